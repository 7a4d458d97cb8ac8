/// @file scores.hpp
/// @brief The score matrix QKᵀ: every query against every key in one product.
#pragma once

#include <stdexcept>

#include "attention/dot_product.hpp"
#include "attention/matrix.hpp"

namespace attention {

/// @brief All raw attention scores at once: QKᵀ.
///
/// Entry (i, j) is the dot product of query i with key j: how strongly token i
/// asks for token j. Row i holds everything token i asks; the matrix need not
/// be symmetric, because token i's query is scored against token j's key, not
/// against token j's query. It runs in float or double, as its arguments are.
///
/// @tparam Scalar float or double
/// @param queries n × d, one query per row
/// @param keys m × d, one key per row
/// @return the n × m matrix QKᵀ
/// @throws std::invalid_argument if queries and keys have different widths
template <typename Scalar>
MatrixOf<Scalar> scores(const MatrixOf<Scalar>& queries, const MatrixOf<Scalar>& keys) {
  if (queries.cols() != keys.cols()) {
    throw std::invalid_argument("scores: queries and keys have different widths");
  }
  // clang-format off
  // [scores]
  return queries * keys.transpose();
  // [scores]
  // clang-format on
}

/// @brief The same matrix as scores(), up to rounding, one dot product at a time.
///
/// Slow and plain: it spells out that entry (i, j) is queries.row(i) · keys.row(j).
/// The book uses it to show what the single matrix product computes.
///
/// @param queries n × d, one query per row
/// @param keys m × d, one key per row
/// @return the n × m matrix with entry (i, j) = dot_product(query i, key j)
/// @throws std::invalid_argument if queries and keys have different widths
inline Matrix scores_pair_by_pair(const Matrix& queries, const Matrix& keys) {
  if (queries.cols() != keys.cols()) {
    throw std::invalid_argument("scores_pair_by_pair: queries and keys have different widths");
  }
  // clang-format off
  // [scores_pair_by_pair]
  Matrix result(queries.rows(), keys.rows());
  for (Eigen::Index i = 0; i < queries.rows(); ++i) {
    for (Eigen::Index j = 0; j < keys.rows(); ++j) {
      const Vector query = queries.row(i);  // q_i, NumPy's queries[i]
      const Vector key = keys.row(j);       // k_j, NumPy's keys[j]
      result(i, j) = dot_product(query, key);
    }
  }
  return result;
  // [scores_pair_by_pair]
  // clang-format on
}

}  // namespace attention
