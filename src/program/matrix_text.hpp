// Matrices and lists typed on the command line: rows separated by ';', entries by ','.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attention/matrix.hpp"

namespace program {

/// The largest matrix a flag accepts, in rows and in columns.
inline constexpr Eigen::Index max_matrix_side = 1024;

/// Reads "1,0;0,1;1,1" as a 3 × 2 matrix. Every row must have the same number
/// of entries; every entry must be a finite number. Throws UsageError naming
/// @p flag otherwise.
attention::Matrix parse_matrix(std::string_view text, std::string_view flag);

/// Reads "8,4,0" as a list of finite numbers, at most max_matrix_side of them,
/// in the order typed, each as parse_real_number() reads one. Throws
/// UsageError naming @p flag and the entry otherwise.
std::vector<double> parse_numbers(std::string_view text, std::string_view flag);

/// Reads "cat,eat,fish" as a list of non-empty names. Throws UsageError naming
/// @p flag for an empty name.
std::vector<std::string> parse_names(std::string_view text, std::string_view flag);

}  // namespace program
