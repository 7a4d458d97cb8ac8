// Which key each query gives its largest weight, by the key's label: chapters
// 3, 5 and 9 print and write it for their weight tables; chapter 9 also names
// the keys that tie with it.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "attention/matrix.hpp"

namespace program {

/// For each row of @p weights, the label of the column with the largest
/// weight (the first, if several tie). @p labels has one entry per column.
inline std::vector<std::string> largest_weight_labels(const attention::Matrix& weights,
                                                      const std::vector<std::string>& labels) {
  std::vector<std::string> names;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    Eigen::Index j = 0;
    weights.row(i).maxCoeff(&j);
    names.push_back(labels[static_cast<std::size_t>(j)]);
  }
  return names;
}

/// For each row of @p weights, the labels of the other columns whose weight
/// equals the largest exactly, in column order (empty when one column has it
/// alone): the keys tied with the one largest_weight_labels() names.
inline std::vector<std::vector<std::string>> tied_with_largest(const attention::Matrix& weights,
                                                               const std::vector<std::string>& labels) {
  std::vector<std::vector<std::string>> ties;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    Eigen::Index first = 0;
    const double largest = weights.row(i).maxCoeff(&first);
    std::vector<std::string> tied;
    for (Eigen::Index j = 0; j < weights.cols(); ++j) {
      if (j != first && weights(i, j) == largest) tied.push_back(labels[static_cast<std::size_t>(j)]);
    }
    ties.push_back(std::move(tied));
  }
  return ties;
}

}  // namespace program
