// Matrices printed as labelled tables, the way the book shows them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/matrix.hpp"

namespace program {

/// A number as the tables show it: rounded once to @p decimals places, with
/// trailing zeros dropped, so 2 prints as "2" and 0.70710678 as "0.7071".
std::string number_text(double value, int decimals = 4);

/// A titled table of @p matrix with a label for each row and each column.
std::string table(const std::string& title, const attention::Matrix& matrix, const std::vector<std::string>& row_labels,
                  const std::vector<std::string>& column_labels, int decimals = 4);

/// A count with its digits in groups of three: 26214400 as "26,214,400".
std::string grouped_digits(std::uint64_t value);

/// Labels "prefix1", "prefix2", … for @p count rows or columns.
std::vector<std::string> numbered_labels(const std::string& prefix, Eigen::Index count);

}  // namespace program
