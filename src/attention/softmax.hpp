/// @file softmax.hpp
/// @brief Softmax along each row: scores in, weights that are non-negative and sum to 1 out (a fully masked row: all 0).
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "attention/matrix.hpp"

namespace attention {

/// @brief e^x as the C++ standard library computes it, in float or double: e^(−∞) is exactly 0.
///
/// The softmax functions use this rather than Eigen's vectorised exp, which
/// clamps its argument near ±709.78 and so returns about 5.6e−309 instead of 0
/// for −∞: a masked score would leak a weight, however small.
/// @tparam Scalar float or double
/// @param x any number of that type
/// @return std::exp(x), of the same type
template <typename Scalar>
Scalar exponential(Scalar x) {
  return std::exp(x);
}

/// @brief Softmax of each row, computed stably: weights(i, j) = e^(s_ij − m_i) / Σ_l e^(s_il − m_i).
///
/// m_i is the largest score of row i. Subtracting it changes nothing
/// mathematically (the factor e^(−m_i) cancels) but keeps every exponent ≤ 0,
/// so no exponential overflows and at least one term of the sum is exactly 1.
///
/// How it treats the edge cases:
/// - A score of −∞ is a masked score: its weight is exactly 0.
/// - A row in which every score is −∞ (every key masked) gets weights that are
///   all exactly 0: that query attends to nothing, so its output will be the
///   zero vector, and the row sums to 0, not 1. (PyTorch's softmax returns NaN
///   for such a row, and the NaN spreads into every later result.)
/// - Huge finite scores, such as ±1e300, are fine: only differences from the
///   row's largest score are exponentiated.
/// - NaN or +∞ is refused: there is no sensible weight for either.
///
/// It runs in the number type of its argument, float or double; the book's
/// chapters call it in double.
///
/// @tparam Scalar float or double
/// @param scores n × m; every entry finite or −∞
/// @return n × m weights; each row sums to 1 (up to rounding), or is all 0 if
///         every score in it is −∞
/// @throws std::invalid_argument naming the first entry that is NaN or +∞, as (row, column) counted from 1
template <typename Scalar>
MatrixOf<Scalar> softmax_rows(const MatrixOf<Scalar>& scores) {
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      const Scalar score = scores(i, j);
      if (std::isnan(score) || score == std::numeric_limits<Scalar>::infinity()) {
        throw std::invalid_argument("softmax_rows: score (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                                    ") is " + (std::isnan(score) ? "NaN" : "+infinity") +
                                    "; scores must be finite or -infinity");
      }
    }
  }
  MatrixOf<Scalar> weights = MatrixOf<Scalar>::Zero(scores.rows(), scores.cols());
  if (scores.cols() == 0) {
    return weights;
  }
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    // [empty_row]
    const Scalar largest = scores.row(i).maxCoeff();
    if (largest == -std::numeric_limits<Scalar>::infinity()) {
      continue;  // every key masked: the row stays all 0
    }
    // [empty_row]
    // clang-format off
    // [softmax_row]
    // NumPy: exponentials = np.exp(scores[i] - largest)
    const RowVectorOf<Scalar> exponentials =
        (scores.row(i).array() - largest).unaryExpr(&exponential<Scalar>);
    weights.row(i) = exponentials / exponentials.sum();
    // [softmax_row]
    // clang-format on
  }
  return weights;
}

/// @brief Softmax of each row straight from the definition, e^(s_ij) / Σ_l e^(s_il).
///
/// For comparison only: with a score above about 709, e^s overflows to +∞, that
/// entry becomes ∞/∞ = NaN and the rest of its row 0; with every score below about −745, every e^s
/// underflows to 0 and the row becomes 0/0 = NaN. softmax_rows() has neither
/// problem (in float the limits are about 88 and −104).
///
/// @tparam Scalar float or double
/// @param scores n × m
/// @return n × m, the textbook formula evaluated as written
template <typename Scalar>
MatrixOf<Scalar> softmax_rows_unstable(const MatrixOf<Scalar>& scores) {
  // clang-format off
  // [softmax_unstable]
  const MatrixOf<Scalar> exponentials = scores.unaryExpr(&exponential<Scalar>);
  return exponentials.array().colwise() / exponentials.rowwise().sum().array();
  // [softmax_unstable]
  // clang-format on
}

}  // namespace attention
