#include "program/matrix_text.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "program/usage_error.hpp"

namespace program {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) {
      return parts;
    }
    start = end + 1;
  }
}

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  const std::size_t last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

double parse_entry(std::string_view entry, std::string_view flag, std::size_t row, std::size_t column) {
  const auto where = [&] { return fmt::format("{}: row {}, entry {}", flag, row + 1, column + 1); };
  if (entry.empty()) {
    throw UsageError(fmt::format("{} is empty; expected a number (rows separated by ';', entries by ',')", where()));
  }
  double value = 0.0;
  const char* begin = entry.data();
  const char* end = entry.data() + entry.size();
  if (*begin == '+') {
    ++begin;  // from_chars does not take a leading '+'
  }
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (error == std::errc::result_out_of_range) {
    throw UsageError(fmt::format("{} is '{}', too large for a double", where(), entry));
  }
  if (error != std::errc() || stop != end) {
    throw UsageError(fmt::format("{} is '{}'; expected a number", where(), entry));
  }
  if (!std::isfinite(value)) {
    throw UsageError(fmt::format("{} is '{}'; expected a finite number", where(), entry));
  }
  return value;
}

}  // namespace

attention::Matrix parse_matrix(std::string_view text, std::string_view flag) {
  if (trim(text).empty()) {
    throw UsageError(fmt::format("{}: empty matrix; expected rows separated by ';' and entries by ',', e.g. \"1,0;0,1\"", flag));
  }
  const std::vector<std::string_view> rows = split(text, ';');
  const std::vector<std::string_view> first_row = split(rows.front(), ',');
  const auto row_count = static_cast<Eigen::Index>(rows.size());
  const auto column_count = static_cast<Eigen::Index>(first_row.size());
  if (row_count > max_matrix_side || column_count > max_matrix_side) {
    throw UsageError(fmt::format("{}: {} × {} is too large; at most {} rows and {} entries per row", flag,
                                 row_count, column_count, max_matrix_side, max_matrix_side));
  }
  attention::Matrix matrix(row_count, column_count);
  for (std::size_t row = 0; row < rows.size(); ++row) {
    if (trim(rows[row]).empty()) {
      throw UsageError(fmt::format("{}: row {} is empty; expected rows separated by ';' and entries by ','", flag, row + 1));
    }
    const std::vector<std::string_view> entries = split(rows[row], ',');
    if (entries.size() != first_row.size()) {
      throw UsageError(fmt::format("{}: row {} has {} entries but row 1 has {}; every row must have the same number of entries",
                                   flag, row + 1, entries.size(), first_row.size()));
    }
    for (std::size_t column = 0; column < entries.size(); ++column) {
      matrix(static_cast<Eigen::Index>(row), static_cast<Eigen::Index>(column)) =
          parse_entry(trim(entries[column]), flag, row, column);
    }
  }
  return matrix;
}

std::vector<std::string> parse_names(std::string_view text, std::string_view flag) {
  std::vector<std::string> names;
  for (std::string_view name : split(text, ',')) {
    name = trim(name);
    if (name.empty()) {
      throw UsageError(fmt::format("{}: name {} is empty; expected names separated by ',', e.g. \"cat,eat,fish\"",
                                   flag, names.size() + 1));
    }
    names.emplace_back(name);
  }
  return names;
}

}  // namespace program
