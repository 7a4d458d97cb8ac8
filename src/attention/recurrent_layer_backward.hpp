/// @file recurrent_layer_backward.hpp
/// @brief The backward pass of chapter 7's recurrent layer: backpropagation through time.
#pragma once

#include <stdexcept>

#include "attention/matrix.hpp"

namespace attention {

/// @brief The gradients of a loss with respect to a recurrent layer's weights and inputs.
struct RecurrentLayerGradients {
  Matrix hidden_weights;  ///< ∂L/∂W, d × d
  Matrix input_weights;   ///< ∂L/∂U, d × d_in
  Matrix inputs;          ///< ∂L/∂X, n × d_in
};

/// @brief Backpropagation through time for h_t = tanh(W h_(t−1) + U x_t), h_0 = 0 (recurrent_layer()).
///
/// The gradient flows backward the way the states flowed forward, one step
/// at a time: the gradient reaching h_t is what the loss gives h_t directly
/// (row t of @p states_gradient) plus what h_(t+1) passes back through W.
/// With a_t = W h_(t−1) + U x_t and h_t = tanh(a_t):
/// - ∂L/∂a_t = ∂L/∂h_t ⊙ (1 − h_t²);
/// - ∂L/∂W gains ∂L/∂a_t h_(t−1)ᵀ, and ∂L/∂U gains ∂L/∂a_t x_tᵀ;
/// - ∂L/∂x_t = Uᵀ ∂L/∂a_t, and ∂L/∂h_(t−1) gains Wᵀ ∂L/∂a_t.
///
/// A gradient that must travel from step t back to step s is multiplied by
/// Wᵀ and by a tanh slope at most 1, t − s times: chapter 7's path length,
/// as a product.
///
/// @param inputs X, n × d_in, as given to recurrent_layer()
/// @param hidden_weights W, d × d
/// @param input_weights U, d × d_in
/// @param states what recurrent_layer(inputs, hidden_weights, input_weights) returned, n × d
/// @param states_gradient ∂L/∂H, n × d: the loss's gradient with respect to each state directly
/// @return the gradients of W, U and X
/// @throws std::invalid_argument if the shapes do not fit together
inline RecurrentLayerGradients recurrent_layer_backward(const Matrix& inputs, const Matrix& hidden_weights,
                                                        const Matrix& input_weights, const Matrix& states,
                                                        const Matrix& states_gradient) {
  const Eigen::Index d = hidden_weights.rows();
  if (hidden_weights.cols() != d || input_weights.rows() != d || input_weights.cols() != inputs.cols() ||
      states.rows() != inputs.rows() || states.cols() != d || states_gradient.rows() != states.rows() ||
      states_gradient.cols() != d) {
    throw std::invalid_argument(
        "recurrent_layer_backward: the shapes of the inputs, weights, states and gradient do not fit");
  }
  RecurrentLayerGradients gradients{Matrix::Zero(d, d), Matrix::Zero(d, inputs.cols()),
                                    Matrix::Zero(inputs.rows(), inputs.cols())};
  // clang-format off
  // [recurrent_layer_backward]
  Vector from_later = Vector::Zero(d);  // ∂L/∂h_t that h_(t+1) passes back
  for (Eigen::Index t = inputs.rows() - 1; t >= 0; --t) {
    const Vector state = states.row(t).transpose();
    const Vector state_gradient = states_gradient.row(t).transpose() + from_later;
    const Vector sum_gradient = state_gradient.array() * (1.0 - state.array().square());  // ∂L/∂a_t
    if (t > 0) gradients.hidden_weights += sum_gradient * states.row(t - 1);  // h_0 = 0 adds nothing
    gradients.input_weights += sum_gradient * inputs.row(t);
    gradients.inputs.row(t) = (input_weights.transpose() * sum_gradient).transpose();
    from_later = hidden_weights.transpose() * sum_gradient;  // Wᵀ (…): W is hidden_weights
  }
  // [recurrent_layer_backward]
  // clang-format on
  return gradients;
}

}  // namespace attention
