/// @file layer_norm_backward.hpp
/// @brief The backward pass of layer normalisation: the gradients of its input, its gain γ and its bias β.
///
/// With x̂ = (x − μ)/s, s = √(σ² + ε) (σ² the row's variance), and y = γ ⊙ x̂ + β, row by row:
/// dβ = Σ_t dy_t, dγ = Σ_t dy_t ⊙ x̂_t, and, writing g = dy ⊙ γ,
/// dx = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / s. The two means are there
/// because every entry of a row moved μ and σ², and through them every other
/// entry of the row.
#pragma once

#include <stdexcept>

#include "attention/layer_norm.hpp"
#include "attention/matrix.hpp"

namespace attention {

/// @brief The gradients of one layer normalisation.
struct LayerNormGradients {
  Matrix input;                    ///< ∂L/∂x, n × d_model
  LayerNormParameters parameters;  ///< ∂L/∂γ and ∂L/∂β, d_model entries each
};

/// @brief The backward pass of layer_norm().
///
/// @param parameters γ and β of the forward pass
/// @param steps what layer_norm(x, parameters, epsilon) returned
/// @param output_gradient ∂L/∂y, n × d_model
/// @param epsilon the ε of the forward pass
/// @return ∂L/∂x, ∂L/∂γ and ∂L/∂β
/// @throws std::invalid_argument if the output gradient does not have the output's shape
inline LayerNormGradients layer_norm_backward(const LayerNormParameters& parameters, const LayerNormSteps& steps,
                                              const Matrix& output_gradient,
                                              double epsilon = default_layer_norm_epsilon) {
  if (output_gradient.rows() != steps.output.rows() || output_gradient.cols() != steps.output.cols()) {
    throw std::invalid_argument("layer_norm_backward: the output gradient must have the output's shape");
  }
  LayerNormGradients gradients;
  // clang-format off
  // [layer_norm_backward]
  const Matrix& normalized = steps.normalized;  // x̂
  const Matrix& dy = output_gradient;
  // .colwise().sum(): down each column, over the tokens t (NumPy's .sum(axis=0))
  gradients.parameters.bias = dy.colwise().sum().transpose();                           // dβ
  gradients.parameters.gain = dy.cwiseProduct(normalized).colwise().sum().transpose();  // dγ
  const Matrix g = dy.array().rowwise() * parameters.gain.transpose().array();          // dy ⊙ γ
  const Vector mean_g = g.rowwise().mean();
  const Vector mean_g_normalized = g.cwiseProduct(normalized).rowwise().mean();
  const Vector deviation = (steps.variance.array() + epsilon).sqrt();  // s per row
  const Matrix correction = normalized.array().colwise() * mean_g_normalized.array();  // x̂ · mean(g ⊙ x̂)
  const Matrix centred = (g.colwise() - mean_g) - correction;
  gradients.input = centred.array().colwise() / deviation.array();
  // [layer_norm_backward]
  // clang-format on
  return gradients;
}

}  // namespace attention
