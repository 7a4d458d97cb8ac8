#include "program/real_number.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace program {

double parse_real_number(std::string_view text, std::string_view flag, MinusInfinity minus_infinity) {
  const bool infinity_accepted = minus_infinity == MinusInfinity::accepted;
  const std::string expected = infinity_accepted ? "a number such as -1e9, or -inf" : "a number such as 0.5 or -1e9";
  const std::string_view number = trim(text);
  if (number.empty()) {
    throw UsageError(fmt::format("{} is empty; expected {}", flag, expected));
  }
  const char* begin = number.data();
  const char* end = number.data() + number.size();
  if (*begin == '+' && end - begin > 1 && begin[1] != '-') {
    ++begin;  // from_chars does not take a leading '+'
  }
  double value = 0.0;
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (error == std::errc::result_out_of_range) {
    // from_chars says only "out of range"; strtod tells too large (±HUGE_VAL) from too close to 0 (0).
    const bool too_large = std::strtod(std::string(begin, end).c_str(), nullptr) != 0.0;
    throw UsageError(fmt::format("{} is '{}', {} for a double; expected {}", flag, number,
                                 too_large ? "too large" : "too close to 0", expected));
  }
  if (error != std::errc() || stop != end) {
    throw UsageError(fmt::format("{} is '{}'; expected {}", flag, number, expected));
  }
  const bool allowed_infinity = infinity_accepted && std::isinf(value) && value < 0;
  if (!std::isfinite(value) && !allowed_infinity) {
    throw UsageError(fmt::format("{} is '{}'; expected {}", flag, number,
                                 infinity_accepted ? "a finite number or -inf" : "a finite number"));
  }
  return value;
}

}  // namespace program
