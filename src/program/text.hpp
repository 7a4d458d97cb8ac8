// Cutting command-line text into pieces, and joining pieces into a sentence's list.
#pragma once

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace program {

/// The pieces of @p text between @p separator characters, empty pieces kept:
/// split("1,,2", ',') is {"1", "", "2"}.
std::vector<std::string_view> split(std::string_view text, char separator);

/// @p text without the spaces and tabs around it.
std::string_view trim(std::string_view text);

/// How many characters @p text shows: its UTF-8 code points, so that "∞" and
/// "eat → fish" count as a terminal shows them, not as their bytes (fmt pads
/// to the same count).
std::size_t shown_width(std::string_view text);

/// Whether @p text is UTF-8: every character a well-formed sequence of one to
/// four bytes (no stray continuation byte, no sequence cut short, no overlong
/// form, no surrogate, nothing above U+10FFFF). Names a reader types end up in
/// JSON, which holds only UTF-8.
bool is_utf8(std::string_view text);

/// @p text as lines of at most @p width characters (shown_width), each ending
/// in a newline, broken at spaces; a word longer than a line is cut across
/// lines, never inside a character.
/// Lines after the first start with @p indent. For text a program prints
/// that is not its own (a processor's name, a library's path), so that the
/// book's pages show it whole at any length.
std::string wrapped(std::string_view text, std::size_t width, std::string_view indent = "");

/// @p lines (each ending in a newline, as wrapped() returns them) with
/// @p first before the first line and @p rest before each other:
/// indented("a\nb\n", "- ", "  ") is "- a\n  b\n".
std::string indented(std::string_view lines, std::string_view first, std::string_view rest);

/// @p count and its noun, one or many: counted(1, "row", "rows") is "1 row",
/// counted(3, "row", "rows") is "3 rows". For messages that say what a reader typed.
template <std::integral Count>
std::string counted(Count count, std::string_view one, std::string_view many) {
  return std::to_string(count) + " " + std::string(count == 1 ? one : many);
}

/// @p items as a sentence lists them, @p last_join before the last:
/// listed({"a", "b", "c"}, "or") is "a, b or c", listed({"a", "b"}, "and") is
/// "a and b", one item is itself and none is "".
std::string listed(const std::vector<std::string>& items, std::string_view last_join);

/// Whole numbers listed the same way: listed({16, 32, 64}, "and") is "16, 32 and 64".
template <std::integral Number>
std::string listed(const std::vector<Number>& numbers, std::string_view last_join) {
  std::vector<std::string> items;
  for (const Number number : numbers) items.push_back(std::to_string(number));
  return listed(items, last_join);
}

}  // namespace program
