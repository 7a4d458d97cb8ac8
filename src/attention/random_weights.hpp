/// @file random_weights.hpp
/// @brief Seeded random weight matrices for multi-head attention, drawn in a documented order so that anyone can redraw them.
///
/// A trained model's W^Q_i, W^K_i, W^V_i and W^O come out of training. The
/// book has no trained model, so it draws them from chapter 2's generator
/// (Mulberry32 and standard_normal()) and says exactly how, so that the same
/// seed gives the same matrices in any language:
///
/// 1. Every matrix is drawn row by row: entry (1, 1), (1, 2), …, (1, columns),
///    then (2, 1), and so on. Each entry is standard_normal(generator), which
///    takes the next two uniforms of the stream, times a scale factor.
/// 2. random_multi_head_weights() draws, from one stream and in this order:
///    W^Q_1, W^K_1, W^V_1, then W^Q_2, W^K_2, W^V_2, …, up to head h, then W^O.
/// 3. The scale factor of a matrix is 1 / √(its number of rows), computed once
///    as `1.0 / std::sqrt(rows)` and multiplied into each draw: z × factor.
///    For every matrix here the number of rows is d_model.
///
/// Why 1 / √rows: a row of X with entries of variance 1, times a matrix whose
/// entries are independent with variance 1 / rows, gives entries that are
/// sums of `rows` products of variance 1 / rows each, so their variance is
/// again 1. The queries and keys of every head then have entries of variance
/// about 1, which is footnote 4's assumption (chapter 2), and the scaled
/// scores are neither flat nor saturated. This is a common way to start
/// training (scaling by the "fan-in"); the paper does not say how its
/// weights were initialised, and nothing here is learned.
#pragma once

#include <cmath>
#include <stdexcept>

#include "attention/matrix.hpp"
#include "attention/mulberry32.hpp"
#include "attention/multi_head.hpp"
#include "attention/standard_normal.hpp"

namespace attention {

/// @brief A rows × columns matrix of standard normal draws times @p scale, drawn row by row.
///
/// Row 1 is drawn from left to right, then row 2, and so on: with rows and
/// columns counted from 0, entry (r, c) is the (r · columns + c + 1)-th call of
/// standard_normal() on @p generator.
/// @param generator the stream to draw from; it advances by 2 × rows × columns numbers
/// @param rows number of rows; at least 0
/// @param columns number of columns; at least 0
/// @param scale every draw is multiplied by this
/// @return the matrix
/// @throws std::invalid_argument if @p rows or @p columns is negative
inline Matrix random_normal_matrix(Mulberry32& generator, Eigen::Index rows, Eigen::Index columns, double scale) {
  if (rows < 0 || columns < 0) {
    throw std::invalid_argument("random_normal_matrix: the numbers of rows and columns must not be negative");
  }
  // clang-format off
  // [random_normal_matrix]
  Matrix matrix(rows, columns);
  for (Eigen::Index r = 0; r < rows; ++r) {
    for (Eigen::Index c = 0; c < columns; ++c) {
      matrix(r, c) = standard_normal(generator) * scale;
    }
  }
  return matrix;
  // [random_normal_matrix]
  // clang-format on
}

/// @brief W^Q_i, W^K_i, W^V_i for h heads of width d_model / h, then W^O, drawn in that order from @p generator.
///
/// The order, scale and widths are those of the file's description: for
/// head 1, W^Q_1, W^K_1 and W^V_1 (each d_model × d_model/h); then head 2's
/// three, and so on; then W^O (d_model × d_model, since h · d_v = d_model).
/// Every entry is a standard normal draw times 1 / √d_model. The stream
/// advances by 8 × d_model² numbers: 4 × d_model² draws of two uniforms each.
/// @param generator the stream to draw from
/// @param d_model the width of the model's vectors, at least 1
/// @param heads h, at least 1; it must divide @p d_model
/// @return the weights of one multi-head attention layer
/// @throws std::invalid_argument from head_width() if @p heads does not divide @p d_model, or either is less than 1
inline MultiHeadWeights random_multi_head_weights(Mulberry32& generator, Eigen::Index d_model, Eigen::Index heads) {
  const Eigen::Index width = head_width(d_model, heads);  // d_k = d_v = d_model / h
  // clang-format off
  // [random_multi_head_weights]
  // 1 / √rows; every matrix here has d_model rows
  const double scale = 1.0 / std::sqrt(static_cast<double>(d_model));
  MultiHeadWeights weights;
  for (Eigen::Index i = 0; i < heads; ++i) {
    HeadProjections head;
    head.query = random_normal_matrix(generator, d_model, width, scale);  // W^Q_i
    head.key = random_normal_matrix(generator, d_model, width, scale);    // W^K_i
    head.value = random_normal_matrix(generator, d_model, width, scale);  // W^V_i
    weights.heads.push_back(head);
  }
  weights.output =  // W^O
      random_normal_matrix(generator, heads * width, d_model, scale);
  // [random_multi_head_weights]
  // clang-format on
  return weights;
}

}  // namespace attention
