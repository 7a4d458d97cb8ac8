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

/// Refuses a matrix with an entry larger than @p limit in size, such as an
/// input whose products would overflow a double further on: throws UsageError
/// naming @p flag, the entry and the range ("--x: row 1, entry 2 is 1e308;
/// expected entries from -1e6 to 1e6").
void require_entries_within(const attention::Matrix& matrix, double limit, std::string_view flag);

/// A number as a reader would type it, in the fewest digits that read back to
/// the same double: 0.5 as "0.5" and 1000 as "1000"; from 1e6 up in size, or
/// below 1e-4, in scientific notation: 1e6 as "1e6", -2.5e-7 as "-2.5e-7".
std::string typed_number(double value);

/// Reads "8,4,0" as a list of finite numbers, at most max_matrix_side of them,
/// in the order typed, each as parse_real_number() reads one. Throws
/// UsageError naming @p flag and the entry otherwise.
std::vector<double> parse_numbers(std::string_view text, std::string_view flag);

/// Reads "cat,eat,fish" as a list of non-empty names. Throws UsageError naming
/// @p flag for an empty name.
std::vector<std::string> parse_names(std::string_view text, std::string_view flag);

}  // namespace program
