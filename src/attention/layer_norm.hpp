/// @file layer_norm.hpp
/// @brief Layer normalisation: each token's vector shifted to mean 0 and scaled to variance σ²/(σ² + ε), just under 1 unless the row's own variance σ² is near ε or smaller (a constant row becomes 0), then given a learned gain and bias.
///
/// The paper places it after every sub-layer, LayerNorm(x + Sublayer(x))
/// (§3.1), and cites Ba, Kiros and Hinton (2016), "Layer Normalization". The
/// statistics are taken over the d_model entries of one row, one token, never
/// across tokens: each token is normalised on its own.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "attention/matrix.hpp"

namespace attention {

/// @brief The learned part of one layer normalisation: a gain γ and a bias β, one entry per column.
struct LayerNormParameters {
  Vector gain;  ///< γ, d_model entries; training usually starts from all ones
  Vector bias;  ///< β, d_model entries; training usually starts from all zeros
};

/// @brief Every intermediate of layer_norm(), in the order it is computed.
struct LayerNormSteps {
  Vector mean;      ///< μ_t, the mean of row t, one entry per token
  Vector variance;  ///< σ²_t, the mean of (x_tj − μ_t)², dividing by d_model (not d_model − 1)
  Matrix normalized;  ///< (x_tj − μ_t) / √(σ²_t + ε): each row has mean 0 and variance σ²_t / (σ²_t + ε), about 1
  Matrix output;  ///< γ_j · normalized_tj + β_j
};

/// @brief The ε that layer_norm() adds to the variance unless told otherwise: 10⁻⁵.
///
/// It keeps the division finite for a row whose entries are all equal. The
/// paper does not state a value; 10⁻⁵ is a common default (PyTorch's
/// LayerNorm uses it).
inline constexpr double default_layer_norm_epsilon = 1e-5;

/// @brief LayerNorm(x) = γ ⊙ (x − μ) / √(σ² + ε) + β, row by row.
///
/// @param x n × d_model, one row per token; d_model at least 1
/// @param parameters γ and β, d_model entries each
/// @param epsilon ε, added to each row's variance; at least 0 (0 divides by zero on a constant row)
/// @return the means, variances, normalised rows and output
/// @throws std::invalid_argument if γ or β has the wrong length, x has no column, or ε is negative or not finite
inline LayerNormSteps layer_norm(const Matrix& x, const LayerNormParameters& parameters,
                                 double epsilon = default_layer_norm_epsilon) {
  if (x.cols() < 1) {
    throw std::invalid_argument("layer_norm: each row needs at least one entry");
  }
  if (parameters.gain.size() != x.cols() || parameters.bias.size() != x.cols()) {
    throw std::invalid_argument("layer_norm: the gain and the bias need one entry per column (" +
                                std::to_string(x.cols()) + ")");
  }
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) {
    throw std::invalid_argument("layer_norm: epsilon must be a finite number, at least 0");
  }
  LayerNormSteps steps;
  const auto d = static_cast<double>(x.cols());
  // clang-format off
  // [layer_norm]
  // In NumPy: mean = x.mean(axis=1); centred = x - mean[:, None];
  // variance = (centred**2).mean(axis=1); deviation = np.sqrt(variance + epsilon);
  // normalized = centred / deviation[:, None]; output = normalized * gain + bias.
  steps.mean = x.rowwise().sum() / d;
  const Matrix centred = x.colwise() - steps.mean;
  steps.variance = centred.array().square().rowwise().sum() / d;
  const Vector deviation = (steps.variance.array() + epsilon).sqrt();
  steps.normalized = centred.array().colwise() / deviation.array();
  steps.output = (steps.normalized.array().rowwise() * parameters.gain.transpose().array()).rowwise() +
                 parameters.bias.transpose().array();
  // [layer_norm]
  // clang-format on
  return steps;
}

/// @brief The parameters training usually starts from: γ all ones, β all zeros, so that LayerNorm only normalises.
/// @param width d_model, at least 0
/// @return γ = 1, β = 0
inline LayerNormParameters identity_layer_norm(Eigen::Index width) {
  return {Vector::Ones(width), Vector::Zero(width)};
}

}  // namespace attention
