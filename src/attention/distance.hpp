/// @file distance.hpp
/// @brief How far apart two vectors are: the Euclidean distance between every row of one matrix and every row of another.
#pragma once

#include <cmath>
#include <stdexcept>

#include "attention/matrix.hpp"

namespace attention {

/// @brief The Euclidean distance between row i of @p a and row j of @p b, for every pair.
///
/// Entry (i, j) is √((a_i1 − b_j1)² + … + (a_id − b_jd)²), computed from the
/// differences themselves (not as |a|² + |b|² − 2 a·b, which can lose every
/// digit when two vectors are close), one pair at a time. A vector's distance
/// to itself is exactly 0, and the table of a matrix against itself is
/// symmetric, bit for bit.
/// @param a n × d, one vector per row
/// @param b m × d, one vector per row
/// @return the n × m matrix of distances
/// @throws std::invalid_argument if @p a and @p b have different widths
inline Matrix euclidean_distances(const Matrix& a, const Matrix& b) {
  if (a.cols() != b.cols()) {
    throw std::invalid_argument("euclidean_distances: the two sets of vectors have different widths");
  }
  Matrix distances(a.rows(), b.rows());
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < b.rows(); ++j) {
      // clang-format off
      // [euclidean_distance]
      // a(i, c) is NumPy's a[i, c], entry c of word i (a_c in the formula)
      double sum_of_squares = 0.0;
      for (Eigen::Index c = 0; c < a.cols(); ++c) {
        const double difference = a(i, c) - b(j, c);
        sum_of_squares += difference * difference;
      }
      distances(i, j) = std::sqrt(sum_of_squares);
      // [euclidean_distance]
      // clang-format on
    }
  }
  return distances;
}

}  // namespace attention
