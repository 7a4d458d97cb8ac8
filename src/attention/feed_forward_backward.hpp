/// @file feed_forward_backward.hpp
/// @brief The backward pass of the position-wise feed-forward network: the gradients of its input and of W₁, b₁, W₂, b₂.
///
/// Backwards through FFN(x) = max(0, xW₁ + b₁)W₂ + b₂: dW₂ = hiddenᵀ·dOut,
/// db₂ = the column sums of dOut; the hidden gradient dOut·W₂ᵀ passes the
/// ReLU only where its input was positive (at exactly 0 the book takes the
/// derivative as 0); then dW₁ = xᵀ·dWidened, db₁ = its column sums, and
/// dx = dWidened·W₁ᵀ.
#pragma once

#include <stdexcept>

#include "attention/feed_forward.hpp"
#include "attention/matrix.hpp"

namespace attention {

/// @brief The gradients of the feed-forward network.
struct FeedForwardGradients {
  Matrix input;                ///< ∂L/∂x, n × d_model
  FeedForwardWeights weights;  ///< ∂L/∂W₁, ∂L/∂b₁, ∂L/∂W₂, ∂L/∂b₂, shaped like the weights
};

/// @brief The backward pass of feed_forward().
///
/// @param x the input of the forward pass, n × d_model
/// @param weights the weights of the forward pass
/// @param steps what feed_forward(x, weights) returned
/// @param output_gradient ∂L/∂output, n × d_out
/// @return ∂L/∂x and the gradients of the weights
/// @throws std::invalid_argument if the output gradient does not have the output's shape
inline FeedForwardGradients feed_forward_backward(const Matrix& x, const FeedForwardWeights& weights,
                                                  const FeedForwardSteps& steps, const Matrix& output_gradient) {
  if (output_gradient.rows() != steps.output.rows() || output_gradient.cols() != steps.output.cols()) {
    throw std::invalid_argument("feed_forward_backward: the output gradient must have the output's shape");
  }
  FeedForwardGradients gradients;
  // clang-format off
  // [feed_forward_backward]
  gradients.weights.w2 = steps.hidden.transpose() * output_gradient;  // dW₂ = hiddenᵀ·dOut
  gradients.weights.b2 = output_gradient.colwise().sum().transpose();
  const Matrix hidden_gradient = output_gradient * weights.w2.transpose();
  const Matrix widened_gradient = (steps.widened.array() > 0.0).select(hidden_gradient, 0.0);  // through the ReLU
  gradients.weights.w1 = x.transpose() * widened_gradient;  // dW₁ = xᵀ·dWidened
  gradients.weights.b1 = widened_gradient.colwise().sum().transpose();
  gradients.input = widened_gradient * weights.w1.transpose();
  // [feed_forward_backward]
  // clang-format on
  return gradients;
}

}  // namespace attention
