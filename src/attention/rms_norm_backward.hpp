/// @file rms_norm_backward.hpp
/// @brief The backward pass of RMSNorm: the gradients of its input and of its gain.
///
/// With r = √(mean(x²) + ε), x̂ = x / r and y = g ⊙ x̂, row by row:
/// dg = Σ_t dy_t ⊙ x̂_t, and, writing u = dy ⊙ g, dx = (u − x̂ · mean(u ⊙ x̂)) / r.
/// It is layer_norm_backward()'s formula without the term − mean(u): that
/// term came from the mean that LayerNorm subtracts and RMSNorm does not.
#pragma once

#include <stdexcept>

#include "attention/layer_norm.hpp"
#include "attention/matrix.hpp"
#include "attention/rms_norm.hpp"

namespace attention {

/// @brief The gradients of one RMSNorm.
struct RmsNormGradients {
  Matrix input;  ///< ∂L/∂x, n × d_model
  Vector gain;   ///< ∂L/∂g, d_model entries
};

/// @brief The backward pass of rms_norm().
///
/// @param gain g of the forward pass
/// @param steps what rms_norm(x, gain, epsilon) returned
/// @param output_gradient ∂L/∂y, n × d_model
/// @param epsilon the ε of the forward pass
/// @return ∂L/∂x and ∂L/∂g
/// @throws std::invalid_argument if the output gradient does not have the output's shape
inline RmsNormGradients rms_norm_backward(const Vector& gain, const RmsNormSteps& steps, const Matrix& output_gradient,
                                          double epsilon = default_layer_norm_epsilon) {
  if (output_gradient.rows() != steps.output.rows() || output_gradient.cols() != steps.output.cols()) {
    throw std::invalid_argument("rms_norm_backward: the output gradient must have the output's shape");
  }
  RmsNormGradients gradients;
  // clang-format off
  // [rms_norm_backward]
  const Matrix& normalized = steps.normalized;  // x̂
  const Matrix& dy = output_gradient;
  gradients.gain = dy.cwiseProduct(normalized).colwise().sum().transpose();  // dg
  const Matrix u = dy.array().rowwise() * gain.transpose().array();          // dy ⊙ g
  const Vector mean_u_normalized = u.cwiseProduct(normalized).rowwise().mean();
  const Vector root_mean_square = (steps.mean_square.array() + epsilon).sqrt();  // r, per row
  // x̂ · mean(u ⊙ x̂): u's part along the row, a change of its scale, which RMSNorm undoes
  const Matrix correction = normalized.array().colwise() * mean_u_normalized.array();
  gradients.input = (u - correction).array().colwise() / root_mean_square.array();
  // [rms_norm_backward]
  // clang-format on
  return gradients;
}

}  // namespace attention
