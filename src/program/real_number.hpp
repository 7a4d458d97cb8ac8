// One real number typed on the command line: a fill value, a divisor, a step.
#pragma once

#include <charconv>
#include <string_view>

namespace program {

/// Whether a number flag takes minus infinity ("-inf") besides finite numbers.
enum class MinusInfinity { refused, accepted };

/// Reads @p text as a double: "0.5", "-1e9", "+3", with spaces around it
/// allowed; also "-inf" (or "-infinity", any case) when @p minus_infinity is
/// accepted. Throws UsageError naming @p flag for anything else: an empty
/// text, a word, NaN, +inf, a number too large or too close to 0 for a double.
double parse_real_number(std::string_view text, std::string_view flag,
                         MinusInfinity minus_infinity = MinusInfinity::refused);

/// std::from_chars for a double, written out: the grammar checked by hand and
/// the conversion left to strtod. parse_real_number uses it where the C++
/// library has no floating-point from_chars (the book's WebAssembly build);
/// a test holds it to std::from_chars on this machine.
std::from_chars_result double_from_chars_by_hand(const char* begin, const char* end, double& value);

}  // namespace program
