// Matrices printed as labelled tables, the way the book shows them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/matrix.hpp"

namespace program {

/// From this size on, number_text() writes a number in scientific notation:
/// above 2⁵³ ≈ 9.007e15 a double no longer holds every whole number, and its
/// fixed-point digits would be hundreds of digits of noise near 1e308.
inline constexpr double scientific_from = 1e15;

/// A number as the tables show it: rounded once to @p decimals places, with
/// trailing zeros dropped, so 2 prints as "2" and 0.70710678 as "0.7071";
/// from scientific_from up in size, with @p decimals places after the point of
/// its mantissa: 1.23456789e20 as "1.2346e20", 1e308 as "1e308". The page's
/// tables write numbers the same way (numberText in docs/_static/interactive.js).
std::string number_text(double value, int decimals = 4);

/// A titled table of @p matrix with a label for each row and each column.
std::string table(const std::string& title, const attention::Matrix& matrix, const std::vector<std::string>& row_labels,
                  const std::vector<std::string>& column_labels, int decimals = 4);

/// A count with its digits in groups of three: 26214400 as "26,214,400".
std::string grouped_digits(std::uint64_t value);

/// Labels "prefix1", "prefix2", … for @p count rows or columns.
std::vector<std::string> numbered_labels(const std::string& prefix, Eigen::Index count);

}  // namespace program
