/// @file additive_attention.hpp
/// @brief Additive attention (Bahdanau, Cho and Bengio 2014): score(q, k) = v · tanh(q W_q + k W_k) (rows, the weights on the right), then softmax and the weighted sum.
///
/// §3.2.1 of the paper names two common compatibility functions: additive
/// attention, "using a feed-forward network with a single hidden layer", and
/// the dot product it chose. Here the query and the key are each projected to
/// a hidden width d_a, added, passed through tanh, and reduced to one number by
/// a vector v. In the book's row convention the projections act on the right,
/// q · W_q, so W_q is d_k × d_a.
///
/// Two facts follow from the formula and are checked by the tests. Every
/// score lies within [−‖v‖₁, ‖v‖₁], since each tanh does, however large q and
/// k are (strictly inside in exact arithmetic; in double, tanh rounds to ±1
/// for large arguments, so huge q and k reach the bound): the scores cannot grow with d_k the way unscaled dot
/// products do (chapter 2). And nothing in it is one matrix product: each of
/// the n × m pairs needs its own d_a-wide tanh, which is why the paper calls
/// the dot product "much faster and more space-efficient in practice".
#pragma once

#include <cmath>
#include <stdexcept>

#include "attention/matrix.hpp"
#include "attention/softmax.hpp"

namespace attention {

/// @brief The learned parameters of additive scoring.
struct AdditiveWeights {
  Matrix query;  ///< W_q, d_k × d_a: applied on the right, q · W_q
  Matrix key;    ///< W_k, d_k × d_a: as wide as W_q, so that the two projections can be added
  Vector v;      ///< v, d_a entries: turns the hidden vector into one score
};

/// @brief Every step of additive attention, in the order it is computed.
struct AdditiveSteps {
  Matrix projected_queries;  ///< Q · W_q, n × d_a
  Matrix projected_keys;     ///< K · W_k, m × d_a
  Matrix scores;             ///< s_ij = v · tanh(q_i W_q + k_j W_k), n × m
  Matrix weights;            ///< softmax of each row of the scores, n × m
  Matrix output;             ///< weights · V, n × d_v
};

/// @brief The n × m additive scores s_ij = Σ_c v_c tanh((q_i W_q)_c + (k_j W_k)_c).
///
/// Each score is summed over c = 1 … d_a in that order, one pair at a time,
/// with std::tanh: reproducible on one build; another C library or FMA setting may change the last bits.
/// @param queries Q, n × d_k
/// @param keys K, m × d_k
/// @param weights W_q, W_k (d_k × d_a each) and v (d_a)
/// @return the scores and the two projections
/// @throws std::invalid_argument if the shapes do not fit together
inline AdditiveSteps additive_scores(const Matrix& queries, const Matrix& keys, const AdditiveWeights& weights) {
  if (keys.cols() != queries.cols()) {
    throw std::invalid_argument("additive_scores: queries and keys must be equally wide (d_k)");
  }
  if (weights.query.rows() != queries.cols() || weights.key.rows() != keys.cols()) {
    throw std::invalid_argument("additive_scores: W_q and W_k need one row per column of Q and K");
  }
  if (weights.query.cols() != weights.key.cols() || weights.v.size() != weights.query.cols()) {
    throw std::invalid_argument("additive_scores: W_q, W_k and v must share the hidden width d_a");
  }
  AdditiveSteps steps;
  // clang-format off
  // [additive_scores]
  steps.projected_queries = queries * weights.query;  // q_i W_q for every i
  steps.projected_keys = keys * weights.key;          // k_j W_k for every j
  steps.scores.resize(queries.rows(), keys.rows());
  for (Eigen::Index i = 0; i < queries.rows(); ++i) {
    for (Eigen::Index j = 0; j < keys.rows(); ++j) {
      double score = 0.0;
      for (Eigen::Index c = 0; c < weights.v.size(); ++c) {
        const double hidden = steps.projected_queries(i, c) + steps.projected_keys(j, c);
        score += weights.v(c) * std::tanh(hidden);
      }
      steps.scores(i, j) = score;
    }
  }
  // [additive_scores]
  // clang-format on
  return steps;
}

/// @brief Additive attention: softmax of the additive scores, row by row, times V.
///
/// The same softmax and weighted sum as scaled_dot_product_attention(); only
/// the scores differ, and there is no division by √d_k.
/// @param queries Q, n × d_k
/// @param keys K, m × d_k
/// @param values V, m × d_v: one value per key
/// @param weights W_q, W_k and v
/// @return every intermediate and the output
/// @throws std::invalid_argument if the shapes do not fit together, or from
///         softmax_rows() if a score is NaN or +∞
inline AdditiveSteps additive_attention(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                        const AdditiveWeights& weights) {
  if (values.rows() != keys.rows()) {
    throw std::invalid_argument("additive_attention: there must be one value per key");
  }
  AdditiveSteps steps = additive_scores(queries, keys, weights);
  // clang-format off
  // [additive_attention]
  steps.weights = softmax_rows(steps.scores);
  steps.output = steps.weights * values;
  // [additive_attention]
  // clang-format on
  return steps;
}

}  // namespace attention
