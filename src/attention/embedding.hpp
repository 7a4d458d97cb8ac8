/// @file embedding.hpp
/// @brief Words as vectors: one-hot vectors, and looking a word's row up in a table of embeddings.
///
/// A model reads a sentence as a set of vectors, one per word. The simplest
/// vector for word number i of a vocabulary of n words is one-hot: n entries,
/// all 0 except entry i, which is 1. An embedding table instead gives each word
/// a row of numbers of its own choosing (learned, in a real model), and a
/// sentence becomes the rows of its words, looked up one by one.
#pragma once

#include <stdexcept>
#include <vector>

#include "attention/matrix.hpp"

namespace attention {

/// @brief The one-hot vectors of a vocabulary of @p words words, one per row.
///
/// Row i is word i's vector: 1 in column i, 0 everywhere else, so the matrix
/// is the n × n identity. Any two different rows have dot product exactly 0
/// and distance exactly √2: one-hot vectors say that words differ, never how much.
/// @param words the size of the vocabulary, at least 1
/// @return the n × n matrix whose row i is word i's one-hot vector
/// @throws std::invalid_argument if @p words is less than 1
inline Matrix one_hot(Eigen::Index words) {
  if (words < 1) {
    throw std::invalid_argument("one_hot: a vocabulary needs at least one word");
  }
  // clang-format off
  // [one_hot]
  Matrix vectors = Matrix::Zero(words, words);
  // Eigen::Index is Eigen's integer type for sizes and positions.
  for (Eigen::Index i = 0; i < words; ++i) {
    vectors(i, i) = 1.0;
  }
  return vectors;
  // [one_hot]
  // clang-format on
}

/// @brief A sentence as a set of vectors: row t is the table's row for word t of the sentence.
///
/// The same word gives the same row wherever it stands: the lookup knows the
/// word, not its place in the sentence.
/// @param table one row per word of the vocabulary
/// @param word_numbers the sentence, as row numbers into @p table (counted from 0)
/// @return a matrix with one row per word of the sentence and as many columns as @p table
/// @throws std::invalid_argument if a word number is not a row of @p table
inline Matrix embedding_lookup(const Matrix& table, const std::vector<Eigen::Index>& word_numbers) {
  Matrix sentence(static_cast<Eigen::Index>(word_numbers.size()), table.cols());
  for (Eigen::Index t = 0; t < sentence.rows(); ++t) {
    const Eigen::Index word = word_numbers[static_cast<std::size_t>(t)];
    if (word < 0 || word >= table.rows()) {
      throw std::invalid_argument("embedding_lookup: a word number is not a row of the table");
    }
    sentence.row(t) = table.row(word);
  }
  return sentence;
}

}  // namespace attention
