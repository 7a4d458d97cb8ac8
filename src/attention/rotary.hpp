/// @file rotary.hpp
/// @brief Rotary positions: each query and key turned by an angle proportional to its position, so that their dot product depends only on how far apart they are.
///
/// Su et al., "RoFormer: Enhanced Transformer with Rotary Position
/// Embedding" (2021), §3.2. Instead of adding a vector to the input once
/// (§3.5 of the paper, chapter 6), every attention head turns its query at
/// position m and its key at position n, after the projections and before
/// the scores. Pair i of coordinates (2i and 2i + 1) turns by m·ω_i, with
/// chapter 6's ω_i = 1/10000^(2i/d_k) (angular_frequency()). The turn of a row
/// at position p is chapter 6's shift map: row · M_p (shift_map()). Since
/// M_m·M_nᵀ = M_{m−n}, the score of the two turned vectors is
/// (q·M_m)·(k·M_n) = q·M_{m−n}·kᵀ: it depends on m − n and not on m or n.
///
/// In the column convention of Su et al. the turned query is R_{Θ,m}·q; the
/// book's row · M_m turns the other way (its transpose). Nothing depends on
/// the direction: both give a score that is a function of the offset only.
#pragma once

#include <cmath>
#include <stdexcept>
#include <vector>

#include "attention/matrix.hpp"
#include "attention/positional_encoding.hpp"

namespace attention {

/// @cond INTERNAL
namespace detail {
// Each row turned by direction × its position, pair by pair (rotated_by_position(), rotated_back() and
// rotated_at_position()). A whole position is exact in a double, so the turns of whole positions are those
// an integer position would give, bit for bit.
inline Matrix turned(const Matrix& rows, double first_position, double direction) {
  require_even_width(rows.cols(), "rotary positions: the head width");
  if (!(first_position >= 0.0)) {
    throw std::invalid_argument("rotary positions: positions are counted from 0 and cannot be negative");
  }
  const Eigen::Index d_k = rows.cols();
  std::vector<double> omega(static_cast<std::size_t>(d_k / 2));
  for (Eigen::Index i = 0; 2 * i < d_k; ++i) omega[static_cast<std::size_t>(i)] = angular_frequency(i, d_k);
  Matrix result(rows.rows(), d_k);
  // clang-format off
  // [rotate]
  for (Eigen::Index r = 0; r < rows.rows(); ++r) {
    const double position = first_position + static_cast<double>(r);
    for (Eigen::Index i = 0; 2 * i < d_k; ++i) {
      const double angle = direction * position * omega[static_cast<std::size_t>(i)];
      const double c = std::cos(angle), s = std::sin(angle);
      const double x = rows(r, 2 * i), y = rows(r, 2 * i + 1);
      result(r, 2 * i) = x * c + y * s;       // (x, y) · [[c, −s], [s, c]]:
      result(r, 2 * i + 1) = -x * s + y * c;  // pair i turned by position · ω_i
    }
  }
  // [rotate]
  // clang-format on
  return result;
}
}  // namespace detail
/// @endcond

/// @brief Each row turned by its position: row r stands at position first_position + r and becomes row · M_position.
///
/// M_p is shift_map(p, d_k), chapter 6's map from PE(pos) to PE(pos + p):
/// pair i of coordinates turns by p·ω_i. Computed pair by pair, never as a
/// d_k × d_k matrix. Turning keeps every row's length.
///
/// @param rows n × d_k queries or keys of one head, one row per position; d_k even
/// @param first_position the position of row 0, ≥ 0
/// @return the turned rows, n × d_k
/// @throws std::invalid_argument if d_k is not positive and even, or the first position is negative
inline Matrix rotated_by_position(const Matrix& rows, Eigen::Index first_position = 0) {
  return detail::turned(rows, static_cast<double>(first_position), 1.0);
}

/// @brief Rows turned as if row 0 stood at @p position, which need not be whole: pair i turns by position·ω_i.
///
/// No token stands between two whole positions. Chapter 15 turns a query and
/// a key there to draw their score between whole offsets: the smooth wave
/// that the whole offsets sample. At a whole position this is
/// rotated_by_position(), bit for bit.
///
/// @param rows n × d_k queries or keys of one head; row r stands at position + r; d_k even
/// @param position the position of row 0, finite and ≥ 0 (+∞ is not refused: every entry comes out NaN)
/// @return the turned rows, n × d_k
/// @throws std::invalid_argument if d_k is not positive and even, or the position is negative or NaN
inline Matrix rotated_at_position(const Matrix& rows, double position) { return detail::turned(rows, position, 1.0); }

/// @brief The backward pass of rotated_by_position(): each gradient row turned back, row · M_positionᵀ.
///
/// A turn is a linear map whose inverse is its transpose, so the gradient of
/// the unturned rows is the gradient of the turned rows turned by −position.
///
/// @param gradient ∂L/∂(turned rows), n × d_k
/// @param first_position the position of row 0, as in the forward pass
/// @return ∂L/∂rows, n × d_k
/// @throws std::invalid_argument as rotated_by_position()
inline Matrix rotated_back(const Matrix& gradient, Eigen::Index first_position = 0) {
  return detail::turned(gradient, static_cast<double>(first_position), -1.0);
}

}  // namespace attention
