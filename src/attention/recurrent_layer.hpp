/// @file recurrent_layer.hpp
/// @brief A plain recurrent layer, h_t = tanh(W h_(t−1) + U x_t): the n steps that must run one after another.
#pragma once

#include <stdexcept>

#include "attention/matrix.hpp"

namespace attention {

/// @brief The hidden states of a recurrent layer over a sequence: h_t = tanh(W h_(t−1) + U x_t), with h_0 = 0.
///
/// No gates, no bias: the simplest recurrence, the one chapter 7 times
/// against self-attention. Rows are tokens, as everywhere in the book: row t
/// of @p inputs is x_(t+1) and row t of the result is h_(t+1) (rows count from
/// 0, words from 1).
///
/// The formula above uses column vectors, as recurrent layers are usually
/// written; in the book's row convention the same step is
/// h_t = tanh(h_(t−1) Wᵀ + x_t Uᵀ).
///
/// The input part U x_t does not depend on any earlier step, so it is
/// computed for every t at once, in one matrix product. The hidden part
/// cannot be: W h_(t−1) needs h_(t−1), which needs h_(t−2), and so on, so the
/// layer makes n matrix–vector products one after another.
///
/// @param inputs X, n × d_in, one input per row
/// @param hidden_weights W, d × d
/// @param input_weights U, d × d_in
/// @return the n × d hidden states h_1 … h_n, one per row
/// @throws std::invalid_argument if the shapes do not fit together
inline Matrix recurrent_layer(const Matrix& inputs, const Matrix& hidden_weights, const Matrix& input_weights) {
  if (hidden_weights.rows() != hidden_weights.cols() || input_weights.rows() != hidden_weights.rows() ||
      input_weights.cols() != inputs.cols()) {
    throw std::invalid_argument("recurrent_layer: W must be d × d and U must be d × (the width of the inputs)");
  }
  // clang-format off
  // [recurrent_layer]
  // Row t of input_parts is (U x_(t+1))ᵀ, rows counting from 0: every word at once, in one product.
  const Matrix input_parts = inputs * input_weights.transpose();  // U is input_weights
  Matrix states(inputs.rows(), hidden_weights.rows());
  Vector hidden = Vector::Zero(hidden_weights.rows());  // h_0
  for (Eigen::Index t = 0; t < inputs.rows(); ++t) {     // one step after another
    const Vector input_part = input_parts.row(t).transpose();
    // W is hidden_weights; .array().tanh().matrix() applies tanh entry by entry, as np.tanh
    hidden = (hidden_weights * hidden + input_part).array().tanh().matrix();
    states.row(t) = hidden.transpose();
  }
  return states;
  // [recurrent_layer]
  // clang-format on
}

}  // namespace attention
