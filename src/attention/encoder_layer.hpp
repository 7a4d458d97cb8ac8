/// @file encoder_layer.hpp
/// @brief One encoder layer: multi-head self-attention, then the feed-forward network, each wrapped as LayerNorm(x + Sublayer(x)); and a stack of them.
///
/// §3.1 of the paper: "Each layer has two sub-layers. The first is a
/// multi-head self-attention mechanism, and the second is a simple,
/// position-wise fully connected feed-forward network. We employ a residual
/// connection around each of the two sub-layers, followed by layer
/// normalization. That is, the output of each sub-layer is
/// LayerNorm(x + Sublayer(x))". The encoder is a stack of N = 6 such layers,
/// each with weights of its own.
///
/// The first sub-layer is the only place where tokens exchange information
/// (communicate); the second works on each token alone (think). The paper's
/// dropout, applied to each sub-layer's output before the addition during
/// training (§5.4), is not applied here, not even where the book trains these layers.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "attention/feed_forward.hpp"
#include "attention/layer_norm.hpp"
#include "attention/matrix.hpp"
#include "attention/multi_head.hpp"
#include "attention/rms_norm.hpp"

namespace attention {

/// @brief Every learned number of one encoder layer.
struct EncoderLayerWeights {
  MultiHeadWeights attention;             ///< W^Q_i, W^K_i, W^V_i of each head, and W^O
  LayerNormParameters attention_norm;     ///< γ and β of the LayerNorm after the attention sub-layer
  FeedForwardWeights feed_forward;        ///< W₁, b₁, W₂, b₂
  LayerNormParameters feed_forward_norm;  ///< γ and β of the LayerNorm after the feed-forward sub-layer
};

/// @brief Every intermediate of encoder_layer(), in the order it is computed.
///
/// laid_out_encoder_layer() (chapter 16) fills the same fields in its other
/// layouts: with its norms before the sub-layers, the norms normalise the
/// sub-layers' inputs and the layer's output is `feed_forward_residual`; with
/// RMSNorm, the two `*_rms_norm` fields take the place of the two LayerNorms'.
struct EncoderLayerSteps {
  MultiHeadSteps attention;            ///< MultiHead(x, x, x): communicate
  Matrix attention_residual;           ///< x + MultiHead(x, x, x)
  LayerNormSteps attention_norm;       ///< LayerNorm of that: its output is the middle of the layer, y
  FeedForwardSteps feed_forward;       ///< FFN(y): think, token by token
  Matrix feed_forward_residual;        ///< y + FFN(y)
  LayerNormSteps feed_forward_norm;    ///< LayerNorm of that: its output is the layer's output
  RmsNormSteps attention_rms_norm;     ///< with RMSNorm (chapter 16), in place of attention_norm; empty otherwise
  RmsNormSteps feed_forward_rms_norm;  ///< with RMSNorm (chapter 16), in place of feed_forward_norm; empty otherwise
};

/// @brief One encoder layer of §3.1: y = LayerNorm(x + MultiHead(x, x, x)), then LayerNorm(y + FFN(y)).
///
/// @param x n × d_model, one row per token
/// @param weights the layer's learned numbers; W^O and W₂ must bring the width back to d_model
/// @param options scaling and mask of the attention (the encoder uses no mask; a causal one gives a decoder-style layer)
/// @param epsilon ε of both layer normalisations
/// @return every intermediate; the layer's output is `feed_forward_norm.output`
/// @throws std::invalid_argument if a shape does not fit, or for anything the parts refuse
inline EncoderLayerSteps encoder_layer(const Matrix& x, const EncoderLayerWeights& weights,
                                       const AttentionOptions& options = {},
                                       double epsilon = default_layer_norm_epsilon) {
  if (weights.attention.output.cols() != x.cols()) {
    throw std::invalid_argument("encoder_layer: W^O must bring the width back to d_model = " +
                                std::to_string(x.cols()) + " for the residual connection");
  }
  if (weights.feed_forward.w2.cols() != x.cols()) {
    throw std::invalid_argument("encoder_layer: W2 must bring the width back to d_model = " + std::to_string(x.cols()) +
                                " for the residual connection");
  }
  EncoderLayerSteps steps;
  // clang-format off
  // [encoder_layer]
  // Communicate: every token attends to every token.
  steps.attention = multi_head_attention(x, x, x, weights.attention, options);
  steps.attention_residual = x + steps.attention.output;
  steps.attention_norm = layer_norm(steps.attention_residual, weights.attention_norm, epsilon);
  const Matrix& y = steps.attention_norm.output;
  // Think: each token on its own.
  steps.feed_forward = attention::feed_forward(y, weights.feed_forward);
  steps.feed_forward_residual = y + steps.feed_forward.output;
  steps.feed_forward_norm = layer_norm(steps.feed_forward_residual, weights.feed_forward_norm, epsilon);
  // [encoder_layer]
  // clang-format on
  return steps;
}

/// @brief A stack of encoder layers: the output of layer l is the input of layer l + 1 (§3.1, N = 6 in the paper).
///
/// @param x n × d_model, the input of the first layer
/// @param layers the weights of each layer, first layer first; at least one
/// @param options the attention options of every layer
/// @param epsilon ε of every layer normalisation
/// @return each layer's steps; the stack's output is the last one's `feed_forward_norm.output`
/// @throws std::invalid_argument if there is no layer, or for anything encoder_layer() refuses
inline std::vector<EncoderLayerSteps> encoder_stack(const Matrix& x, const std::vector<EncoderLayerWeights>& layers,
                                                    const AttentionOptions& options = {},
                                                    double epsilon = default_layer_norm_epsilon) {
  if (layers.empty()) {
    throw std::invalid_argument("encoder_stack: there must be at least one layer");
  }
  std::vector<EncoderLayerSteps> steps;
  // clang-format off
  // [encoder_stack]
  Matrix input = x;
  for (const EncoderLayerWeights& layer : layers) {
    steps.push_back(encoder_layer(input, layer, options, epsilon));
    input = steps.back().feed_forward_norm.output;  // the next layer's input
  }
  // [encoder_stack]
  // clang-format on
  return steps;
}

}  // namespace attention
