/// @file softmax_backward.hpp
/// @brief The gradient of a row-wise softmax: from how the loss changes with each weight to how it changes with each score.
///
/// One row of weights w = softmax(s) depends on every score of its row, so
/// the row's Jacobian is ∂w_j/∂s_k = w_j (δ_jk − w_k). Multiplied by the
/// incoming gradient g = ∂L/∂w it collapses to one line per row:
/// ∂L/∂s_k = w_k (g_k − Σ_j g_j w_j). A masked score has weight exactly 0,
/// so its gradient is exactly 0 too; a fully masked row (all weights 0) gets
/// a row of zeros.
#pragma once

#include <stdexcept>

#include "attention/matrix.hpp"

namespace attention {

/// @brief dS = W ⊙ (dW − rowsum(dW ⊙ W)): the gradient of the scores of softmax_rows().
///
/// It runs in the number type of its arguments, float or double.
///
/// @tparam Scalar float or double
/// @param weights W, the softmax of each row of the scores (n × m), as softmax_rows() returned it
/// @param weights_gradient dW = ∂L/∂W, same shape
/// @return dS = ∂L/∂S, same shape; exactly 0 wherever the weight is exactly 0
/// @throws std::invalid_argument if the two matrices differ in shape
template <typename Scalar>
MatrixOf<Scalar> softmax_rows_backward(const MatrixOf<Scalar>& weights, const MatrixOf<Scalar>& weights_gradient) {
  if (weights.rows() != weights_gradient.rows() || weights.cols() != weights_gradient.cols()) {
    throw std::invalid_argument("softmax_rows_backward: the weights and their gradient differ in shape");
  }
  // clang-format off
  // [softmax_backward]
  // weights is W, weights_gradient dW; cwiseProduct multiplies entry by entry (⊙)
  const Eigen::VectorX<Scalar> weighted_sum =
      weights.cwiseProduct(weights_gradient).rowwise().sum();  // Σ_j dW_ij W_ij, per row
  return weights.cwiseProduct(weights_gradient.colwise() - weighted_sum);
  // [softmax_backward]
  // clang-format on
}

}  // namespace attention
