// One real number typed on the command line: a fill value, a divisor, a step.
#pragma once

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

}  // namespace program
