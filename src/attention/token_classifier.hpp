/// @file token_classifier.hpp
/// @brief The book's smallest trainable Transformer: embedding, sinusoidal positions, encoder layers and a linear read-out that scores every word at every position.
///
/// Forward: x = embedding rows of the input words + positional encoding
/// (§3.5; or, with Positions::rotary, no addition and every head turns its queries and keys); then a stack of encoder layers (§3.1; unmasked, every position
/// reading every other, or with the causal mask of a decoder); then logits = x·W_out + b_out, one row of C scores
/// per position (C = V to predict a word, the number of tags to tag one). Backward walks the same path in reverse with the
/// backward passes of chapter 10. Everything is the library's own pieces;
/// this header only wires them together and lists the parameters for an
/// optimiser. Unlike the rest of the library, its passes and starting weights
/// are compiled once, in token_classifier.cpp, which every program that trains
/// a model links. The layers are the paper's post-norm LayerNorm layers unless
/// the shape's LayerLayout says otherwise (chapter 16): then they are
/// laid_out_encoder_layer()'s, and a pre-norm stack ends in one more norm
/// before the read-out.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/adam.hpp"
#include "attention/embedding.hpp"
#include "attention/embedding_backward.hpp"
#include "attention/encoder_layer.hpp"
#include "attention/encoder_layer_backward.hpp"
#include "attention/layer_norm.hpp"
#include "attention/matrix.hpp"
#include "attention/norm_placement.hpp"
#include "attention/norm_placement_backward.hpp"
#include "attention/numpy_random.hpp"
#include "attention/positional_encoding.hpp"
#include "attention/rms_norm.hpp"

namespace attention {

/// @brief The sizes of a token classifier.
struct TokenClassifierShape {
  Eigen::Index vocabulary = 10;  ///< V, the number of words (for digits, 10)
  Eigen::Index outputs = 10;     ///< C, the scores the read-out gives each position: V to predict a word,
                                 ///< the number of tags to tag one.
  Eigen::Index d_model = 32;     ///< the width of every token's vector; even, and divisible by the number of heads;
                                 ///< with rotary positions, d_model / h must be even too
  Eigen::Index heads = 2;        ///< h, attention heads per layer
  Eigen::Index d_ff = 64;        ///< the feed-forward network's inner width
  Eigen::Index layers = 1;       ///< encoder layers in the stack
  LayerLayout layout{};          ///< where every layer's norms go and which norm they are: the paper's unless told
};

/// @brief Every learned number of a token classifier.
struct TokenClassifierWeights {
  Matrix embedding;                         ///< V × d_model, one row per word
  std::vector<EncoderLayerWeights> layers;  ///< the encoder layers, first to last
  LayerNormParameters final_norm;           ///< pre-norm only: the norm between the last layer and the read-out
                                            ///< (for RMSNorm, a gain and an empty bias); empty in a post-norm stack
  Matrix readout;                           ///< W_out, d_model × C
  Vector readout_bias;                      ///< b_out, C entries
  LayerLayout layout{};                     ///< how every layer is laid out: the paper's unless told
};

/// @brief Which positions each position may read.
enum class Visibility {
  everything,  ///< every position reads every position: an encoder, which tags words (chapter 13)
  causal,      ///< each position reads itself and the positions before it (chapter 4's causal mask): a decoder,
               ///< which predicts the next word without seeing it
};

/// @brief How the model knows where each word stands.
enum class Positions {
  added,   ///< chapter 6's sinusoidal encoding, added to the embeddings once, below the first layer (§3.5)
  rotary,  ///< chapter 15's rotary positions: every head turns its queries and keys by their positions
  none,    ///< no position at all: the model reads a set of words (chapter 6's permutation argument)
};

/// @brief The attention options of a stack that reads @p positions positions with @p visibility.
/// @param visibility every position, or only the earlier ones
/// @param positions n, the input's length
/// @param scheme how positions enter: with Positions::rotary every head turns its queries and keys
/// @return no mask, or causal_mask(n); rotary or not
inline AttentionOptions attention_options(Visibility visibility, Eigen::Index positions,
                                          Positions scheme = Positions::added) {
  AttentionOptions options;
  if (visibility == Visibility::causal) options.mask = causal_mask(positions);
  options.rotary = scheme == Positions::rotary;
  return options;
}

/// @brief The first layer's input: the embedding rows of @p words, with chapter 6's encoding added if @p scheme says so.
/// @param embedding V × d_model
/// @param words word numbers, one per position
/// @param scheme Positions::added adds PE(position) to each row; rotary and none leave the rows as they are
/// @return n × d_model
/// @throws std::invalid_argument if a word number is not a row of @p embedding, or, with Positions::added, if
///         d_model is not positive and even
inline Matrix first_layer_input(const Matrix& embedding, const std::vector<Eigen::Index>& words,
                                Positions scheme = Positions::added) {
  const Matrix rows = embedding_lookup(embedding, words);
  return scheme == Positions::added ? add_positional_encoding(rows) : rows;
}

/// @brief Every intermediate of one forward pass.
struct TokenClassifierSteps {
  Matrix input;                           ///< the embedding rows, plus PE(pos) with Positions::added, n × d_model
  std::vector<EncoderLayerSteps> layers;  ///< each encoder layer's steps (their attention weights are the maps)
  LayerNormSteps final_norm;              ///< pre-norm LayerNorm only: the norm of the last layer's output
  RmsNormSteps final_rms_norm;            ///< pre-norm RMSNorm only: the norm of the last layer's output
  Matrix logits;  ///< n × C: the last layer's output (after final_norm in a pre-norm stack) · W_out + b_out
};

/// @brief Fresh weights: normal draws scaled by 1/√(fan-in), norm gains 1, LayerNorm biases 0, other biases 0.
///
/// The draws come from @p generator in this order: the embedding (scale 1),
/// then for each layer and head W^Q, W^K, W^V (scale 1/√d_model), W^O
/// (1/√d_model), W₁ (1/√d_model), W₂ (1/√d_ff), and last the read-out
/// (1/√d_model). Scaling by 1/√(fan-in) keeps each product's entries about
/// as large as its inputs' (chapter 2's variance argument, once more). The
/// layout draws nothing, so every layout starts from the same draws.
///
/// @param shape the sizes
/// @param generator the stream of normal draws
/// @return the weights
/// @throws std::invalid_argument if a size is below 1, d_model is odd or not divisible by the heads, V < 2 or C < 2
TokenClassifierWeights initial_token_classifier(const TokenClassifierShape& shape, NumpyGenerator& generator);

/// @brief The forward pass of a token classifier whose layers are laid out otherwise than the paper's (chapter 16).
///
/// token_classifier() calls it when the weights' layout is not the default. The
/// layers are laid_out_encoder_layer()'s; a pre-norm stack's output passes
/// through TokenClassifierWeights::final_norm before the read-out. With the
/// paper's layout it gives token_classifier()'s numbers exactly.
///
/// @param weights the model
/// @param words the input, one word number per position; at least one
/// @param visibility which positions each position reads
/// @param positions how positions enter
/// @return every intermediate and the logits
/// @throws std::invalid_argument if there is no word, a word number is out of range, or the final norm does not
///         fit the layout (present in a pre-norm stack, absent in a post-norm one)
TokenClassifierSteps laid_out_token_classifier(const TokenClassifierWeights& weights,
                                               const std::vector<Eigen::Index>& words,
                                               Visibility visibility = Visibility::everything,
                                               Positions positions = Positions::added);

/// @brief The backward pass of laid_out_token_classifier().
///
/// @param weights the model
/// @param words the input of the forward pass
/// @param steps what laid_out_token_classifier(weights, words, visibility, positions) returned
/// @param logits_gradient ∂L/∂logits, n × C
/// @param visibility the forward pass's
/// @param positions the forward pass's
/// @return the gradients, shaped like the weights (the same layout, and a final norm where the weights have one)
TokenClassifierWeights laid_out_token_classifier_backward(const TokenClassifierWeights& weights,
                                                          const std::vector<Eigen::Index>& words,
                                                          const TokenClassifierSteps& steps,
                                                          const Matrix& logits_gradient,
                                                          Visibility visibility = Visibility::everything,
                                                          Positions positions = Positions::added);

/// @brief The forward pass: word numbers in, one row of C logits per position out.
///
/// Weights laid out otherwise than the paper's go to laid_out_token_classifier().
///
/// @param weights the model
/// @param words the input, one word number (0 to V − 1) per position; at least one
/// @param visibility which positions each position reads (every one unless told)
/// @param positions how positions enter (chapter 6's added encoding unless told)
/// @return every intermediate and the logits
/// @throws std::invalid_argument if there is no word, a word number is out of range, the weights do not fit together
///         (no layer, wrong shapes in a layer, or, in a layout other than the paper's, a final norm that does not fit
///         it), or, with Positions::added, d_model is odd, or, with Positions::rotary, a head's d_k is odd. The
///         read-out's shapes are not checked.
TokenClassifierSteps token_classifier(const TokenClassifierWeights& weights, const std::vector<Eigen::Index>& words,
                                      Visibility visibility = Visibility::everything,
                                      Positions positions = Positions::added);

/// @brief The backward pass: the gradient of every weight, given the gradient of the logits.
///
/// Weights laid out otherwise than the paper's go to laid_out_token_classifier_backward().
///
/// @param weights the model
/// @param words the input of the forward pass
/// @param steps what token_classifier(weights, words, visibility, positions) returned
/// @param logits_gradient ∂L/∂logits, n × C (softmax_cross_entropy() gives it)
/// @param visibility the forward pass's
/// @param positions the forward pass's
/// @return the gradients, shaped like the weights
TokenClassifierWeights token_classifier_backward(const TokenClassifierWeights& weights,
                                                 const std::vector<Eigen::Index>& words,
                                                 const TokenClassifierSteps& steps, const Matrix& logits_gradient,
                                                 Visibility visibility = Visibility::everything,
                                                 Positions positions = Positions::added);

/// @brief Every matrix and vector of the weights as a ParameterBlock, in a fixed order (the order of the struct).
///
/// Called on the weights and on a gradient of the same shape, it lists
/// matching blocks in matching order, which is what Adam::step() needs. An
/// empty block is left out: RMSNorm's bias, and a post-norm stack's final norm.
/// @param weights the model (or a gradient shaped like it)
/// @return the blocks, pointing into @p weights
inline std::vector<ParameterBlock> parameter_blocks(TokenClassifierWeights& weights) {
  std::vector<ParameterBlock> blocks;
  const auto add = [&blocks](auto& m) {
    if (m.size() > 0) blocks.push_back({m.data(), m.size()});
  };
  add(weights.embedding);
  for (EncoderLayerWeights& layer : weights.layers) {
    for (HeadProjections& head : layer.attention.heads) {
      add(head.query);
      add(head.key);
      add(head.value);
    }
    add(layer.attention.output);
    add(layer.attention_norm.gain);
    add(layer.attention_norm.bias);
    add(layer.feed_forward.w1);
    add(layer.feed_forward.b1);
    add(layer.feed_forward.w2);
    add(layer.feed_forward.b2);
    add(layer.feed_forward_norm.gain);
    add(layer.feed_forward_norm.bias);
  }
  add(weights.final_norm.gain);
  add(weights.final_norm.bias);
  add(weights.readout);
  add(weights.readout_bias);
  return blocks;
}

}  // namespace attention
