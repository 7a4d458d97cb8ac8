/// @file embedding_backward.hpp
/// @brief The backward pass of an embedding lookup: each row's gradient goes back to the row of the table it was copied from.
///
/// A lookup copies row w_t of the table to position t, so the gradient of
/// the table is zero except in the rows of the words that occurred, and a
/// word that occurs twice collects the sum of both positions' gradients.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "attention/matrix.hpp"

namespace attention {

/// @brief ∂L/∂table for embedding_lookup(table, word_numbers), given ∂L/∂sentence.
///
/// @param words the number of rows of the table (the vocabulary's size)
/// @param word_numbers the word at each position, as given to the lookup
/// @param sentence_gradient ∂L/∂sentence, one row per position
/// @return words × d, the sum of the gradients of the positions each word occurred at
/// @throws std::invalid_argument if the counts differ or a word number is not a row of the table
inline Matrix embedding_backward(Eigen::Index words, const std::vector<Eigen::Index>& word_numbers,
                                 const Matrix& sentence_gradient) {
  if (static_cast<std::size_t>(sentence_gradient.rows()) != word_numbers.size()) {
    throw std::invalid_argument("embedding_backward: there must be one gradient row per position");
  }
  // clang-format off
  // [embedding_backward]
  Matrix table_gradient = Matrix::Zero(words, sentence_gradient.cols());
  for (Eigen::Index t = 0; t < sentence_gradient.rows(); ++t) {
    const Eigen::Index word = word_numbers[static_cast<std::size_t>(t)];
    if (word < 0 || word >= words) {
      throw std::invalid_argument("embedding_backward: a word number is not a row of the table");
    }
    table_gradient.row(word) += sentence_gradient.row(t);  // a repeated word adds up its positions
  }
  // [embedding_backward]
  // clang-format on
  return table_gradient;
}

}  // namespace attention
