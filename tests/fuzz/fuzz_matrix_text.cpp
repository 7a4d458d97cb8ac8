// Fuzzes program::parse_matrix, parse_numbers and parse_names (src/program/matrix_text.hpp).
//
// Invariants: a parser either returns or throws UsageError whose message starts
// with the flag; a parsed matrix has 1 … max_matrix_side rows and columns of
// finite numbers, and written back at full precision ("{}" is the shortest text
// that reads back exactly) it parses to the same shape and the same bits; the
// same for a list of numbers; names are non-empty and have no spaces around them.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fuzz_support.hpp"
#include "program/matrix_text.hpp"
#include "program/text.hpp"

namespace {

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

std::string matrix_text(const attention::Matrix& matrix) {
  std::string text;
  for (Eigen::Index i = 0; i < matrix.rows(); ++i) {
    for (Eigen::Index j = 0; j < matrix.cols(); ++j) {
      text += fmt::format("{}{}", j == 0 ? (i == 0 ? "" : ";") : ",", matrix(i, j));
    }
  }
  return text;
}

void check_matrix(std::string_view text, std::string_view flag) {
  attention::Matrix matrix;
  try {
    matrix = program::parse_matrix(text, flag);
  } catch (const program::UsageError& error) {
    fuzz::require_names_flag(error, flag);
    return;
  }
  fuzz::require(matrix.rows() >= 1 && matrix.rows() <= program::max_matrix_side && matrix.cols() >= 1 &&
                    matrix.cols() <= program::max_matrix_side,
                "a parsed matrix has 1 … max_matrix_side rows and columns");
  fuzz::require(matrix.allFinite(), "every entry of a parsed matrix is finite");
  const std::string written = matrix_text(matrix);
  attention::Matrix again;
  try {
    again = program::parse_matrix(written, flag);
  } catch (const program::UsageError& error) {
    fuzz::broken("a matrix written back at full precision parses again", written + " | " + error.what());
  }
  fuzz::require(again.rows() == matrix.rows() && again.cols() == matrix.cols(),
                "a matrix written back parses to the same shape", written);
  for (Eigen::Index i = 0; i < matrix.rows(); ++i) {
    for (Eigen::Index j = 0; j < matrix.cols(); ++j) {
      fuzz::require(same_bits(again(i, j), matrix(i, j)), "a matrix written back parses to the same bits",
                    fmt::format("{} | entry ({}, {})", written, i + 1, j + 1));
    }
  }
}

void check_numbers(std::string_view text, std::string_view flag) {
  std::vector<double> numbers;
  try {
    numbers = program::parse_numbers(text, flag);
  } catch (const program::UsageError& error) {
    fuzz::require_names_flag(error, flag);
    return;
  }
  fuzz::require(!numbers.empty() && static_cast<Eigen::Index>(numbers.size()) <= program::max_matrix_side,
                "a parsed list has 1 … max_matrix_side numbers");
  const std::string written = fmt::format("{}", fmt::join(numbers, ","));
  const std::vector<double> again = program::parse_numbers(written, flag);
  fuzz::require(again.size() == numbers.size(), "a list written back parses to as many numbers", written);
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    fuzz::require(std::isfinite(numbers[i]), "every parsed number is finite", written);
    fuzz::require(same_bits(again[i], numbers[i]), "a list written back parses to the same bits", written);
  }
}

void check_names(std::string_view text, std::string_view flag) {
  try {
    for (const std::string& name : program::parse_names(text, flag)) {
      fuzz::require(!name.empty() && program::trim(name) == name, "a name is non-empty and trimmed", name);
    }
  } catch (const program::UsageError& error) {
    fuzz::require_names_flag(error, flag);
  }
}

}  // namespace

// The first byte chooses the flag and the parser; the rest is the text typed.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view flag = fuzz::flags[data[0] % std::size(fuzz::flags)];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch ((data[0] / std::size(fuzz::flags)) % 3) {
    case 0:
      check_matrix(text, flag);
      break;
    case 1:
      check_numbers(text, flag);
      break;
    default:
      check_names(text, flag);
      break;
  }
  return 0;
}
