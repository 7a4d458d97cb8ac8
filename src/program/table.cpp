#include "program/table.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include <fmt/format.h>

namespace program {

namespace {

// "2.5000" as "2.5", "2.0000" as "2".
void drop_trailing_zeros(std::string& text) {
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') {
      text.pop_back();
    }
  }
}

}  // namespace

std::string number_text(double value, int decimals) {
  if (std::isfinite(value) && std::abs(value) >= scientific_from) {
    // "1.2346e+20" as "1.2346e20": decimals digits after the mantissa's point, trailing zeros dropped.
    const std::string text = fmt::format("{:.{}e}", value, decimals);
    const std::size_t e = text.find('e');
    std::string mantissa = text.substr(0, e);
    drop_trailing_zeros(mantissa);
    std::string exponent = text.substr(e + 1);
    exponent.erase(0, exponent.find_first_not_of('+'));
    return mantissa + "e" + exponent;
  }
  std::string text = fmt::format("{:.{}f}", value, decimals);
  drop_trailing_zeros(text);
  if (text == "-0") {
    text = "0";
  }
  return text;
}

std::string table(const std::string& title, const attention::Matrix& matrix, const std::vector<std::string>& row_labels,
                  const std::vector<std::string>& column_labels, int decimals) {
  assert(static_cast<Eigen::Index>(row_labels.size()) == matrix.rows());
  assert(static_cast<Eigen::Index>(column_labels.size()) == matrix.cols());
  std::size_t label_width = 0;
  for (const std::string& label : row_labels) {
    label_width = std::max(label_width, label.size());
  }
  std::size_t cell_width = 0;
  for (const std::string& label : column_labels) {
    cell_width = std::max(cell_width, label.size());
  }
  for (Eigen::Index row = 0; row < matrix.rows(); ++row) {
    for (Eigen::Index column = 0; column < matrix.cols(); ++column) {
      cell_width = std::max(cell_width, number_text(matrix(row, column), decimals).size());
    }
  }
  std::string text = title + "\n" + std::string(label_width, ' ');
  for (const std::string& label : column_labels) {
    text += fmt::format("  {:>{}}", label, cell_width);
  }
  text += "\n";
  for (Eigen::Index row = 0; row < matrix.rows(); ++row) {
    text += fmt::format("{:<{}}", row_labels[static_cast<std::size_t>(row)], label_width);
    for (Eigen::Index column = 0; column < matrix.cols(); ++column) {
      text += fmt::format("  {:>{}}", number_text(matrix(row, column), decimals), cell_width);
    }
    text += "\n";
  }
  return text;
}

std::string grouped_digits(std::uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string text;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
    text += digits[i];
  }
  return text;
}

std::vector<std::string> numbered_labels(const std::string& prefix, Eigen::Index count) {
  std::vector<std::string> labels;
  for (Eigen::Index i = 1; i <= count; ++i) {
    labels.push_back(fmt::format("{}{}", prefix, i));
  }
  return labels;
}

}  // namespace program
