#include "program/matrix_text.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "program/real_number.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace program {

attention::Matrix parse_matrix(std::string_view text, std::string_view flag) {
  if (trim(text).empty()) {
    throw UsageError(
        fmt::format("{}: empty matrix; expected rows separated by ';' and entries by ',', e.g. \"1,0;0,1\"", flag));
  }
  const std::vector<std::string_view> rows = split(text, ';');
  const std::vector<std::string_view> first_row = split(rows.front(), ',');
  const auto row_count = static_cast<Eigen::Index>(rows.size());
  const auto column_count = static_cast<Eigen::Index>(first_row.size());
  if (row_count > max_matrix_side || column_count > max_matrix_side) {
    throw UsageError(fmt::format("{}: {} × {} is too large; at most {} rows and {} entries per row", flag, row_count,
                                 column_count, max_matrix_side, max_matrix_side));
  }
  attention::Matrix matrix(row_count, column_count);
  for (std::size_t row = 0; row < rows.size(); ++row) {
    if (trim(rows[row]).empty()) {
      throw UsageError(
          fmt::format("{}: row {} is empty; expected rows separated by ';' and entries by ','", flag, row + 1));
    }
    const std::vector<std::string_view> entries = split(rows[row], ',');
    // An empty entry (a ',' too many, say at the end) is named, not the count of entries it throws off.
    for (std::size_t column = 0; column < entries.size(); ++column) {
      if (trim(entries[column]).empty()) {
        throw UsageError(fmt::format("{}: row {}, entry {} is empty; expected entries separated by ',', each a number",
                                     flag, row + 1, column + 1));
      }
    }
    if (entries.size() != first_row.size()) {
      throw UsageError(fmt::format("{}: row {} has {} but row 1 has {}; every row must have the same number of entries",
                                   flag, row + 1, counted(entries.size(), "entry", "entries"), first_row.size()));
    }
    for (std::size_t column = 0; column < entries.size(); ++column) {
      matrix(static_cast<Eigen::Index>(row), static_cast<Eigen::Index>(column)) =
          parse_real_number(entries[column], fmt::format("{}: row {}, entry {}", flag, row + 1, column + 1));
    }
  }
  return matrix;
}

std::string typed_number(double value) {
  const double size = std::abs(value);
  if (!std::isfinite(value) || size == 0.0 || (size >= 1e-4 && size < 1e6)) {
    return fmt::format("{}", value);  // the shortest text that reads back: "0.5", "1000", "-inf"
  }
  // In scientific notation, with the fewest digits that read back: "1e6", "-2.5e-7".
  std::string text;
  for (int digits = 0; digits <= 17; ++digits) {
    text = fmt::format("{:.{}e}", value, digits);
    if (std::strtod(text.c_str(), nullptr) == value) break;
  }
  const std::size_t e = text.find('e');
  std::string exponent = text.substr(e + 1);
  const bool negative = exponent.front() == '-';
  exponent.erase(0, exponent.find_first_not_of("+-0"));
  return text.substr(0, e) + "e" + (negative ? "-" : "") + (exponent.empty() ? "0" : exponent);
}

void require_entries_within(const attention::Matrix& matrix, double limit, std::string_view flag) {
  for (Eigen::Index row = 0; row < matrix.rows(); ++row) {
    for (Eigen::Index column = 0; column < matrix.cols(); ++column) {
      const double entry = matrix(row, column);
      if (!(std::abs(entry) <= limit)) {
        throw UsageError(fmt::format("{}: row {}, entry {} is {}; expected entries from {} to {}", flag, row + 1,
                                     column + 1, typed_number(entry), typed_number(-limit), typed_number(limit)));
      }
    }
  }
}

std::vector<double> parse_numbers(std::string_view text, std::string_view flag) {
  if (trim(text).empty()) {
    throw UsageError(fmt::format("{}: empty list; expected numbers separated by ',', e.g. \"8,4,0\"", flag));
  }
  const std::vector<std::string_view> entries = split(text, ',');
  if (static_cast<Eigen::Index>(entries.size()) > max_matrix_side) {
    throw UsageError(fmt::format("{}: {} numbers is too many; at most {}", flag, entries.size(), max_matrix_side));
  }
  std::vector<double> numbers;
  for (const std::string_view entry : entries) {
    numbers.push_back(parse_real_number(entry, fmt::format("{}: entry {}", flag, numbers.size() + 1)));
  }
  return numbers;
}

std::vector<std::string> parse_names(std::string_view text, std::string_view flag) {
  std::vector<std::string> names;
  for (std::string_view name : split(text, ',')) {
    name = trim(name);
    if (name.empty()) {
      throw UsageError(fmt::format("{}: name {} is empty; expected names separated by ',', e.g. \"cat,eat,fish\"", flag,
                                   names.size() + 1));
    }
    if (!is_utf8(name)) {
      throw UsageError(fmt::format("{}: name {} is not UTF-8 text", flag, names.size() + 1));
    }
    if (name.find_first_of(" \t") != std::string_view::npos) {
      // "I saw a saw" would be one name, and one row: the reader meant commas.
      std::string with_commas;  // every run of spaces, tabs and commas made one comma
      for (const char c : text) {
        const bool separates = c == ' ' || c == '\t' || c == ',';
        if (!separates) {
          with_commas.push_back(c);
        } else if (!with_commas.empty() && with_commas.back() != ',') {
          with_commas.push_back(',');
        }
      }
      if (!with_commas.empty() && with_commas.back() == ',') with_commas.pop_back();
      throw UsageError(fmt::format("{}: name {} (\"{}\") has a space or tab; names are separated by ',', e.g. \"{}\"",
                                   flag, names.size() + 1, name, with_commas));
    }
    names.emplace_back(name);
  }
  return names;
}

}  // namespace program
