/// @file multi_head_backward.hpp
/// @brief The backward pass of multi-head attention: the gradients of its inputs and of every W^Q_i, W^K_i, W^V_i and W^O.
///
/// The forward pass is Concat(head₁, …, head_h)·W^O with
/// head_i = Attention(Q·W^Q_i, K·W^K_i, V·W^V_i). Backwards: the gradient of
/// the concatenation is dOut·(W^O)ᵀ and dW^O = Concatᵀ·dOut; each head takes
/// its own columns of that gradient through attention_backward(); a
/// projection X·W gives dW = Xᵀ·dY and passes dY·Wᵀ back to X. In
/// self-attention Q, K and V are the same matrix x, and its gradient is the
/// sum of the three. With rotary positions (chapter 15) the gradients of the
/// turned queries and keys are turned back before they reach the projections.
#pragma once

#include <cstddef>
#include <stdexcept>

#include "attention/attention_backward.hpp"
#include "attention/matrix.hpp"
#include "attention/multi_head.hpp"
#include "attention/rotary.hpp"

namespace attention {

/// @brief The gradients of multi-head attention: of its three inputs and of its weights.
struct MultiHeadGradients {
  Matrix queries;  ///< ∂L/∂Q, n × d_model
  Matrix keys;     ///< ∂L/∂K, m × d_model
  Matrix values;   ///< ∂L/∂V, m × d_model
  MultiHeadWeights weights;  ///< ∂L/∂W^Q_i, ∂L/∂W^K_i, ∂L/∂W^V_i for each head, and ∂L/∂W^O; shaped like the weights
};

/// @brief The backward pass of multi_head_attention().
///
/// @param queries Q, as given to the forward pass
/// @param keys K
/// @param values V
/// @param weights the weights of the forward pass
/// @param steps what multi_head_attention(Q, K, V, weights, options) returned
/// @param output_gradient ∂L/∂output, n × d_model
/// @param options the options of the forward pass
/// @return the gradients of Q, K, V and of every weight matrix
/// @throws std::invalid_argument if the output gradient does not have the output's shape
inline MultiHeadGradients multi_head_backward(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                              const MultiHeadWeights& weights, const MultiHeadSteps& steps,
                                              const Matrix& output_gradient, const AttentionOptions& options = {}) {
  if (output_gradient.rows() != steps.output.rows() || output_gradient.cols() != steps.output.cols()) {
    throw std::invalid_argument("multi_head_backward: the output gradient must have the output's shape");
  }
  const Eigen::Index first_query_position = keys.rows() - queries.rows();  // with rotary positions
  MultiHeadGradients gradients;
  gradients.queries = Matrix::Zero(queries.rows(), queries.cols());
  gradients.keys = Matrix::Zero(keys.rows(), keys.cols());
  gradients.values = Matrix::Zero(values.rows(), values.cols());
  // clang-format off
  // [multi_head_backward]
  gradients.weights.output = steps.concatenation.transpose() * output_gradient;  // dW^O = Concatᵀ·dOut
  const Matrix concatenation_gradient = output_gradient * weights.output.transpose();
  Eigen::Index at = 0;  // the first column of head i in the concatenation
  for (std::size_t i = 0; i < weights.heads.size(); ++i) {
    const HeadProjections& projection = weights.heads[i];
    const HeadSteps& head = steps.heads[i];
    const Eigen::Index width = projection.value.cols();
    const Matrix head_gradient = concatenation_gradient.middleCols(at, width);  // dO of head i
    const AttentionGradients<> inner =
        attention_backward(head.queries, head.keys, head.values, head.attention, head_gradient, options);
    at += width;
    // With rotary positions (chapter 15), the gradients of the turned queries and keys are turned back.
    const Matrix query_gradient =
        options.rotary ? rotated_back(inner.queries, first_query_position) : inner.queries;
    const Matrix key_gradient = options.rotary ? rotated_back(inner.keys) : inner.keys;
    gradients.weights.heads.push_back({queries.transpose() * query_gradient,   // dW^Q_i = Qᵀ·dQ_i
                                       keys.transpose() * key_gradient,        // dW^K_i = Kᵀ·dK_i
                                       values.transpose() * inner.values});    // dW^V_i = Vᵀ·dV_i
    gradients.queries += query_gradient * projection.query.transpose();
    gradients.keys += key_gradient * projection.key.transpose();
    gradients.values += inner.values * projection.value.transpose();
  }
  // [multi_head_backward]
  // clang-format on
  return gradients;
}

}  // namespace attention
