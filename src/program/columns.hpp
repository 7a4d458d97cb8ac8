// A table of text laid out column by column, each column as wide as its widest line: chapter 4's fills and
// chapter 17's sums print their tables this way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "program/text.hpp"

namespace program {

/// One column of a table: its heading, a line over the other (top empty for a heading of one line), and its entries.
struct Column {
  Column(std::string top_line, std::string bottom_line, std::size_t spaces_before = 2, bool aligned_left = false)
      : top(std::move(top_line)), bottom(std::move(bottom_line)), gap(spaces_before), left(aligned_left) {}
  std::string top, bottom;
  std::vector<std::string> entries;  // one a row; every column has as many
  std::size_t gap;                   // the spaces before it (before the first, the table's indent)
  bool left;                         // aligned left, as the rows' names are; numbers are aligned right
};

/// @p columns as lines of text: the headings (on two lines if any column's top line is not empty), then one line a
/// row. Each column is as wide as its widest heading line or entry (shown_width), and no line ends in spaces.
inline std::string columns_text(const std::vector<Column>& columns) {
  const auto line = [&](const auto& entry_of) {
    std::string text;
    for (const Column& column : columns) {
      std::size_t width = std::max(shown_width(column.top), shown_width(column.bottom));
      for (const std::string& entry : column.entries) width = std::max(width, shown_width(entry));
      text += std::string(column.gap, ' ');
      text +=
          column.left ? fmt::format("{:<{}}", entry_of(column), width) : fmt::format("{:>{}}", entry_of(column), width);
    }
    text.erase(text.find_last_not_of(' ') + 1);
    return text + '\n';
  };
  const bool two_lines =
      std::any_of(columns.begin(), columns.end(), [](const Column& column) { return !column.top.empty(); });
  std::string text = two_lines ? line([](const Column& column) { return column.top; }) : "";
  text += line([](const Column& column) { return column.bottom; });
  for (std::size_t row = 0; row < columns.front().entries.size(); ++row) {
    text += line([row](const Column& column) { return column.entries[row]; });
  }
  return text;
}

}  // namespace program
