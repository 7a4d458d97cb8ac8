/// @file feed_forward.hpp
/// @brief The position-wise feed-forward network, FFN(x) = max(0, xW₁ + b₁)W₂ + b₂, applied to each token on its own.
///
/// §3.3 of the paper: every layer of the encoder and the decoder contains "a
/// fully connected feed-forward network, which is applied to each position
/// separately and identically": two linear maps with a ReLU between them,
/// widening from d_model to d_ff and narrowing back. In the base model
/// d_model = 512 and d_ff = 2048 = 4 × 512. The same W₁, b₁, W₂, b₂ serve every
/// position; they differ from layer to layer.
///
/// Row t of the output depends on row t of the input only: no token sees
/// another here. That is the "think" half of a layer; attention is the
/// "communicate" half.
#pragma once

#include <stdexcept>

#include "attention/matrix.hpp"

namespace attention {

/// @brief The learned numbers of one feed-forward network.
struct FeedForwardWeights {
  Matrix w1;  ///< W₁, d_model × d_ff
  Vector b1;  ///< b₁, d_ff entries
  Matrix w2;  ///< W₂, d_ff × d_out (d_model in every layer)
  Vector b2;  ///< b₂, d_out entries (d_model in every layer)
};

/// @brief Every intermediate of feed_forward().
struct FeedForwardSteps {
  Matrix widened;  ///< xW₁ + b₁, n × d_ff
  Matrix hidden;   ///< max(0, xW₁ + b₁): the ReLU, n × d_ff
  Matrix output;   ///< hidden · W₂ + b₂, n × d_out (d_out = W₂'s columns; d_model in every layer)
};

/// @brief FFN(x) = max(0, xW₁ + b₁)W₂ + b₂, equation (2) of the paper (§3.3), for every row of @p x at once.
///
/// The biases are added to every row; the ReLU acts entry by entry. Stacking
/// the rows into one matrix is only a way to compute many tokens at once: row
/// t of the output is FFN(row t of x).
/// @param x n × d_model, one row per token
/// @param weights W₁, b₁, W₂, b₂
/// @return the widened rows, the hidden rows after the ReLU, and the output
/// @throws std::invalid_argument if the shapes do not fit together
inline FeedForwardSteps feed_forward(const Matrix& x, const FeedForwardWeights& weights) {
  if (weights.w1.rows() != x.cols() || weights.b1.size() != weights.w1.cols() ||
      weights.w2.rows() != weights.w1.cols() || weights.b2.size() != weights.w2.cols()) {
    throw std::invalid_argument(
        "feed_forward: W1 must be d_model x d_ff, b1 have d_ff entries, W2 be d_ff x d_out and b2 have d_out entries");
  }
  FeedForwardSteps steps;
  // clang-format off
  // [feed_forward]
  // NumPy: x @ w1 + b1; .rowwise() + adds b1, turned into a row, to every row
  steps.widened = (x * weights.w1).rowwise() + weights.b1.transpose();
  steps.hidden = steps.widened.cwiseMax(0.0);  // ReLU: np.maximum(widened, 0)
  steps.output = (steps.hidden * weights.w2).rowwise() + weights.b2.transpose();
  // [feed_forward]
  // clang-format on
  return steps;
}

}  // namespace attention
