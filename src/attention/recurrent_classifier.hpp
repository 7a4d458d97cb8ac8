/// @file recurrent_classifier.hpp
/// @brief The token classifier with chapter 7's recurrent layer in place of attention: embedding, recurrence, read-out.
///
/// Forward: x_t = the embedding row of word t (no positional encoding: the
/// recurrence reads the words in order, so it knows where it is); then
/// h_t = tanh(W h_(t−1) + U x_t) (recurrent_layer()); then
/// logits = H·W_out + b_out, one row of C scores per position. Position t
/// can use words 0 … t only, and word s reaches it through t − s steps of the
/// recurrence, where in attention it reaches it in one.
#pragma once

#include <cmath>
#include <stdexcept>
#include <vector>

#include "attention/adam.hpp"
#include "attention/embedding.hpp"
#include "attention/embedding_backward.hpp"
#include "attention/matrix.hpp"
#include "attention/numpy_random.hpp"
#include "attention/recurrent_layer.hpp"
#include "attention/recurrent_layer_backward.hpp"

namespace attention {

/// @brief Every learned number of a recurrent classifier.
struct RecurrentClassifierWeights {
  Matrix embedding;       ///< V × d, one row per word
  Matrix hidden_weights;  ///< W, d × d
  Matrix input_weights;   ///< U, d × d
  Matrix readout;         ///< W_out, d × C
  Vector readout_bias;    ///< b_out, C entries
};

/// @brief Every intermediate of one forward pass.
struct RecurrentClassifierSteps {
  Matrix input;   ///< the embedding rows, n × d
  Matrix states;  ///< h_1 … h_n, n × d
  Matrix logits;  ///< n × C
};

/// @brief Fresh weights: normal draws, the embedding at scale 1 and every other matrix at 1/√d; the bias 0.
///
/// The draws come from @p generator in this order: the embedding, W, U, the read-out.
/// @param vocabulary V, at least 2
/// @param width d, at least 1
/// @param outputs C, at least 2
/// @param generator the stream of normal draws
/// @return the weights
/// @throws std::invalid_argument if a size is too small
inline RecurrentClassifierWeights initial_recurrent_classifier(Eigen::Index vocabulary, Eigen::Index width,
                                                               Eigen::Index outputs, NumpyGenerator& generator) {
  if (vocabulary < 2 || width < 1 || outputs < 2) {
    throw std::invalid_argument(
        "initial_recurrent_classifier: the vocabulary and the outputs need 2 each, the width 1");
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(width));
  RecurrentClassifierWeights weights;
  weights.embedding = normal_matrix(generator, vocabulary, width);
  weights.hidden_weights = scale * normal_matrix(generator, width, width);
  weights.input_weights = scale * normal_matrix(generator, width, width);
  weights.readout = scale * normal_matrix(generator, width, outputs);
  weights.readout_bias = Vector::Zero(outputs);
  return weights;
}

/// @brief The forward pass: word numbers in, one row of C logits per position out.
/// @param weights the model
/// @param words one word number per position; at least one
/// @return every intermediate and the logits
/// @throws std::invalid_argument if there is no word, a word number is out of range, or W and U do not fit
///         (recurrent_layer()); the readout's shapes are not checked
inline RecurrentClassifierSteps recurrent_classifier(const RecurrentClassifierWeights& weights,
                                                     const std::vector<Eigen::Index>& words) {
  if (words.empty()) throw std::invalid_argument("recurrent_classifier: the input needs at least one word");
  RecurrentClassifierSteps steps;
  // clang-format off
  // [recurrent_classifier]
  steps.input = embedding_lookup(weights.embedding, words);
  steps.states = recurrent_layer(steps.input, weights.hidden_weights, weights.input_weights);
  steps.logits = (steps.states * weights.readout).rowwise() + weights.readout_bias.transpose();
  // [recurrent_classifier]
  // clang-format on
  return steps;
}

/// @brief The backward pass: the gradient of every weight, given the gradient of the logits.
///
/// The shape of @p logits_gradient is not checked: it must be n × C.
/// @param weights the model
/// @param words the input of the forward pass
/// @param steps what recurrent_classifier(weights, words) returned
/// @param logits_gradient ∂L/∂logits, n × C
/// @return the gradients, shaped like the weights
inline RecurrentClassifierWeights recurrent_classifier_backward(const RecurrentClassifierWeights& weights,
                                                                const std::vector<Eigen::Index>& words,
                                                                const RecurrentClassifierSteps& steps,
                                                                const Matrix& logits_gradient) {
  RecurrentClassifierWeights gradients;
  gradients.readout = steps.states.transpose() * logits_gradient;
  gradients.readout_bias = logits_gradient.colwise().sum().transpose();
  const RecurrentLayerGradients layer =
      recurrent_layer_backward(steps.input, weights.hidden_weights, weights.input_weights, steps.states,
                               logits_gradient * weights.readout.transpose());
  gradients.hidden_weights = layer.hidden_weights;
  gradients.input_weights = layer.input_weights;
  gradients.embedding = embedding_backward(weights.embedding.rows(), words, layer.inputs);
  return gradients;
}

/// @brief Every matrix and vector of the weights as a ParameterBlock, in the order of the struct (for Adam::step()).
/// @param weights the model (or a gradient shaped like it)
/// @return the blocks, pointing into @p weights
inline std::vector<ParameterBlock> recurrent_parameter_blocks(RecurrentClassifierWeights& weights) {
  std::vector<ParameterBlock> blocks;
  for (Matrix* matrix : {&weights.embedding, &weights.hidden_weights, &weights.input_weights, &weights.readout}) {
    blocks.push_back({matrix->data(), matrix->size()});
  }
  blocks.push_back({weights.readout_bias.data(), weights.readout_bias.size()});
  return blocks;
}

}  // namespace attention
