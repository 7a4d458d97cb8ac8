/// @file attention.hpp
/// @brief Scaled dot-product attention, softmax(QKᵀ/√d_k)V, keeping every intermediate step.
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "attention/mask.hpp"
#include "attention/matrix.hpp"
#include "attention/scores.hpp"
#include "attention/softmax.hpp"

namespace attention {

/// @brief What scaled_dot_product_attention() can be told besides Q, K and V.
struct AttentionOptions {
  /// Divide the scores by √d_k (the paper's choice); false shows what happens without it.
  bool scale = true;
  /// Which keys each query may look at; none means every key.
  std::optional<Mask> mask;
  /// The value written into masked scores, after scaling and before softmax (converted to float in a float pass,
  /// where a fill beyond float's range, −1e300 say, becomes −∞).
  double fill = -std::numeric_limits<double>::infinity();
  /// Rotary positions (chapter 15): multi_head_attention() turns each head's queries and keys by their
  /// positions (rotated_by_position()) before the scores. This function takes Q and K as given.
  bool rotary = false;
};

/// @brief Every step of one pass through the formula, in the order of the paper's Figure 2 (left).
/// @tparam Scalar the number type of the pass, double (the chapters') or float
template <typename Scalar = double>
struct AttentionSteps {
  MatrixOf<Scalar> scores;         ///< QKᵀ (n × m): MatMul
  MatrixOf<Scalar> scaled_scores;  ///< QKᵀ/√d_k, or QKᵀ unchanged when scaling is off: Scale
  MatrixOf<Scalar> masked_scores;  ///< the scaled scores with masked entries set to the fill: Mask (opt.)
  MatrixOf<Scalar> weights;        ///< softmax of each row of the masked scores (n × m): SoftMax
  MatrixOf<Scalar> output;         ///< weights · V (n × d_v): MatMul
};

/// @brief Attention(Q, K, V) = softmax(QKᵀ/√d_k)V, equation (1) of the paper (§3.2.1).
///
/// Row i of the output is a weighted average of the rows of V, with the
/// weights in row i of AttentionSteps::weights. With the default fill, −∞, a
/// query whose keys are all masked gets all-zero weights and a zero output row
/// (see softmax_rows()); with a fill that is finite in the pass's number type
/// (−1e300 becomes −∞ in float), such a row gets equal weights, 1/m each, and
/// its output is the mean of the rows of V.
/// Every step runs in the number type of Q, K and V: float or double.
///
/// @tparam Scalar float or double
/// @param queries Q, n × d_k
/// @param keys K, m × d_k
/// @param values V, m × d_v: one value per key
/// @param options scaling, mask and fill
/// @return every intermediate matrix and the output
/// @throws std::invalid_argument if the shapes do not fit together, or if a
///         score becomes NaN or +∞ (see softmax_rows())
template <typename Scalar>
AttentionSteps<Scalar> scaled_dot_product_attention(const MatrixOf<Scalar>& queries, const MatrixOf<Scalar>& keys,
                                                    const MatrixOf<Scalar>& values,
                                                    const AttentionOptions& options = {}) {
  if (values.rows() != keys.rows()) {
    throw std::invalid_argument("scaled_dot_product_attention: there must be one value per key");
  }
  if (options.mask && (options.mask->rows() != queries.rows() || options.mask->cols() != keys.rows())) {
    throw std::invalid_argument(
        "scaled_dot_product_attention: the mask must have one row per query and one column per key");
  }
  AttentionSteps<Scalar> steps;
  // clang-format off
  // [attention]
  steps.scores = scores(queries, keys);
  const Scalar d_k = static_cast<Scalar>(queries.cols());
  // c ? a : b is Python's a if c else b
  steps.scaled_scores = options.scale ? MatrixOf<Scalar>(steps.scores / std::sqrt(d_k))
                                      : steps.scores;
  // options.mask may hold a mask (chapter 4); *options.mask is that mask
  // [mask]
  const Scalar fill = static_cast<Scalar>(options.fill);  // −∞ unless told otherwise
  steps.masked_scores = options.mask ? apply_mask(steps.scaled_scores, *options.mask, fill)
                                     : steps.scaled_scores;
  // [mask]
  steps.weights = softmax_rows(steps.masked_scores);
  // [weighted_sum]
  steps.output = steps.weights * values;
  // [weighted_sum]
  // [attention]
  // clang-format on
  return steps;
}

}  // namespace attention
