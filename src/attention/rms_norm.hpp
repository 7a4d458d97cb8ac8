/// @file rms_norm.hpp
/// @brief RMSNorm: each token's vector divided by its root mean square, then given a learned gain; no mean is subtracted and there is no bias.
///
/// Zhang and Sennrich (2019), "Root Mean Square Layer Normalization":
/// RMSNorm(x) = x / √(mean(x²) + ε) ⊙ g. It is layer_norm() without the
/// centring and without β. The authors argue that what makes LayerNorm work
/// is its re-scaling, not its re-centring, and that the cheaper statistic
/// does as well. As in LayerNorm, the statistic is taken over the d_model
/// entries of one row, one token, never across tokens.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "attention/layer_norm.hpp"
#include "attention/matrix.hpp"

namespace attention {

/// @brief Every intermediate of rms_norm(), in the order it is computed.
struct RmsNormSteps {
  Vector mean_square;  ///< the mean of x_tj² over row t, one entry per token: the square of the row's root mean square
  Matrix normalized;   ///< x_tj / √(mean_square_t + ε): each row's mean square is about 1 (ms / (ms + ε))
  Matrix output;       ///< g_j · normalized_tj
};

/// @brief RMSNorm(x) = g ⊙ x / √(mean(x²) + ε), row by row.
///
/// @param x n × d_model, one row per token; d_model at least 1
/// @param gain g, d_model entries; training usually starts from all ones
/// @param epsilon ε, added to each row's mean square; the same default as layer_norm()'s, so that the two
///        norms differ only in what they compute
/// @return the mean squares, normalised rows and output
/// @throws std::invalid_argument if the gain has the wrong length, x has no column, or ε is negative or not finite
inline RmsNormSteps rms_norm(const Matrix& x, const Vector& gain, double epsilon = default_layer_norm_epsilon) {
  if (x.cols() < 1) {
    throw std::invalid_argument("rms_norm: each row needs at least one entry");
  }
  if (gain.size() != x.cols()) {
    throw std::invalid_argument("rms_norm: the gain needs one entry per column (" + std::to_string(x.cols()) + ")");
  }
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) {
    throw std::invalid_argument("rms_norm: epsilon must be a finite number, at least 0");
  }
  RmsNormSteps steps;
  const auto d = static_cast<double>(x.cols());
  // clang-format off
  // [rms_norm]
  steps.mean_square = x.array().square().rowwise().sum() / d;
  const Vector root_mean_square = (steps.mean_square.array() + epsilon).sqrt();
  steps.normalized = x.array().colwise() / root_mean_square.array();
  steps.output = steps.normalized.array().rowwise() * gain.transpose().array();
  // [rms_norm]
  // clang-format on
  return steps;
}

}  // namespace attention
