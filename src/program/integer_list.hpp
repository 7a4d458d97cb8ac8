// Whole numbers typed on the command line: a seed, a count, a list such as "2,64,512".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace program {

/// Reads @p text as a whole number from @p minimum to @p maximum: digits only,
/// with an optional leading '+' and spaces around it ("12", " +12 "). Throws
/// UsageError naming @p flag for anything else: a sign '-', a decimal point,
/// an exponent, a number outside the range.
std::uint64_t parse_whole_number(std::string_view text, std::string_view flag, std::uint64_t minimum,
                                 std::uint64_t maximum);

/// Reads "2,64,512" as a list of whole numbers, each from @p minimum to
/// @p maximum, at most @p max_count of them, in the order typed (repeats are
/// kept). Throws UsageError naming @p flag and the entry otherwise.
std::vector<std::uint64_t> parse_whole_numbers(std::string_view text, std::string_view flag, std::uint64_t minimum,
                                               std::uint64_t maximum, std::size_t max_count);

}  // namespace program
