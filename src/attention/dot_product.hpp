/// @file dot_product.hpp
/// @brief The dot product: how well one query matches one key.
#pragma once

#include <stdexcept>

#include "attention/matrix.hpp"

namespace attention {

/// @brief The dot product q · k = q₁k₁ + q₂k₂ + … + q_d k_d.
///
/// Multiply the two vectors entry by entry and add the products. Large when the
/// vectors point the same way, 0 when they are perpendicular, negative when
/// they point apart; it also grows with their lengths.
///
/// @param query the vector that asks
/// @param key the vector that answers; must have as many entries as @p query
/// @return the sum of the entry-wise products
/// @throws std::invalid_argument if the two widths differ
inline double dot_product(const Vector& query, const Vector& key) {
  if (query.size() != key.size()) {
    throw std::invalid_argument("dot_product: query and key have different widths");
  }
  // clang-format off
  // [dot_product]
  double sum = 0.0;
  for (Eigen::Index c = 0; c < query.size(); ++c) {
    sum += query[c] * key[c];
  }
  return sum;
  // [dot_product]
  // clang-format on
}

}  // namespace attention
