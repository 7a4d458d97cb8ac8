// Which key each query gives its largest weight, by the key's label: chapters
// 3, 5 and 9 print and write it for their weight tables.
#pragma once

#include <cstddef>
#include <string>
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

}  // namespace program
