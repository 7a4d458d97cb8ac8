/// @file attention_backward.hpp
/// @brief The backward pass of scaled dot-product attention: the gradients of Q, K and V from the gradient of the output.
///
/// The forward pass is O = W·V with W = softmax(QKᵀ/√d_k), masked where a
/// mask says so. Walking it backwards, one product at a time:
/// dV = Wᵀ·dO and dW = dO·Vᵀ (the two factors of W·V); dS from dW through
/// the softmax (softmax_backward.hpp); then dQ = dS·K/√d_k and
/// dK = dSᵀ·Q/√d_k (the two factors of QKᵀ, with the scale). A masked score
/// was replaced by a constant, so nothing flows back through it: its entry of
/// dS is exactly 0 and it adds nothing to dQ or dK.
#pragma once

#include <cmath>
#include <stdexcept>

#include "attention/attention.hpp"
#include "attention/matrix.hpp"
#include "attention/softmax_backward.hpp"

namespace attention {

/// @brief Every gradient of one attention pass, from the output back to the inputs.
/// @tparam Scalar the number type of the pass, double (the chapters') or float
template <typename Scalar = double>
struct AttentionGradients {
  MatrixOf<Scalar> weights;  ///< dW = dO·Vᵀ, n × m: how the loss changes with each weight
  MatrixOf<Scalar> scores;  ///< dS, n × m: the gradient of the scores after scaling (QKᵀ/√d_k, or QKᵀ when scale
                            ///< is off); exactly 0 at a masked entry
  MatrixOf<Scalar> queries;  ///< dQ = dS·K/√d_k, n × d_k
  MatrixOf<Scalar> keys;     ///< dK = dSᵀ·Q/√d_k, m × d_k
  MatrixOf<Scalar> values;   ///< dV = Wᵀ·dO, m × d_v
};

/// @brief The backward pass of scaled_dot_product_attention().
///
/// It runs in the number type of the forward pass, float or double.
///
/// @tparam Scalar float or double
/// @param queries Q, n × d_k, as given to the forward pass
/// @param keys K, m × d_k
/// @param values V, m × d_v
/// @param steps what scaled_dot_product_attention(Q, K, V, options) returned
/// @param output_gradient dO = ∂L/∂O, n × d_v
/// @param options the options of the forward pass: `scale`, and `mask` (a masked entry of dS is set to exactly 0,
///        which it already is when the fill is −∞, since then its weight is 0)
/// @return dW, dS, dQ, dK and dV
/// @throws std::invalid_argument if dO is not n × d_v, Q, K and V do not fit together, the steps' weights are not
///         n × m, or the mask is not n × m
template <typename Scalar>
AttentionGradients<Scalar> attention_backward(const MatrixOf<Scalar>& queries, const MatrixOf<Scalar>& keys,
                                              const MatrixOf<Scalar>& values, const AttentionSteps<Scalar>& steps,
                                              const MatrixOf<Scalar>& output_gradient,
                                              const AttentionOptions& options = {}) {
  if (output_gradient.rows() != queries.rows() || output_gradient.cols() != values.cols()) {
    throw std::invalid_argument("attention_backward: the output gradient must have one row per query and one column "
                                "per column of V");
  }
  if (steps.weights.rows() != queries.rows() || steps.weights.cols() != keys.rows() || values.rows() != keys.rows() ||
      queries.cols() != keys.cols()) {
    throw std::invalid_argument(
        "attention_backward: the forward steps do not belong to these queries, keys and values");
  }
  if (options.mask && (options.mask->rows() != queries.rows() || options.mask->cols() != keys.rows())) {
    throw std::invalid_argument("attention_backward: the mask must have one row per query and one column per key");
  }
  AttentionGradients<Scalar> gradients;
  // clang-format off
  // [attention_backward]
  gradients.values = steps.weights.transpose() * output_gradient;   // dV = Wᵀ·dO
  gradients.weights = output_gradient * values.transpose();         // dW = dO·Vᵀ
  gradients.scores = softmax_rows_backward(steps.weights, gradients.weights);  // dS
  if (options.mask) {  // a masked score was a constant: nothing flows back through it
    gradients.scores = options.mask->select(gradients.scores, Scalar(0));
  }
  const Scalar scale = options.scale ? 1 / std::sqrt(static_cast<Scalar>(queries.cols())) : 1;
  gradients.queries = scale * (gradients.scores * keys);               // dQ = dS·K/√d_k
  gradients.keys = scale * (gradients.scores.transpose() * queries);   // dK = dSᵀ·Q/√d_k
  // [attention_backward]
  // clang-format on
  return gradients;
}

}  // namespace attention
