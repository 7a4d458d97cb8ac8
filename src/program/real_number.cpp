#include "program/real_number.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace program {

// std::from_chars for a double. The C++ library of Debian's emscripten (LLVM
// 14's libc++) has only the integer overloads; there the same grammar is
// checked by hand and the conversion left to strtod, which rounds correctly
// as from_chars does. The grammar: an optional '-', then inf, infinity or
// nan (any case), or digits with at most one '.', at least one digit, and an
// optional exponent; no leading space, '+' or "0x" (parse_real_number takes
// off a leading '+' itself).
std::from_chars_result double_from_chars_by_hand(const char* begin, const char* end, double& value) {
  const char* cursor = begin;
  if (cursor != end && *cursor == '-') ++cursor;
  const auto word = [&](std::string_view name) {
    if (static_cast<std::size_t>(end - cursor) < name.size()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
      if ((cursor[i] | 0x20) != name[i]) return false;
    }
    return true;
  };
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  const char* stop = nullptr;
  if (word("infinity")) {
    stop = cursor + 8;
  } else if (word("inf")) {
    stop = cursor + 3;
  } else if (word("nan")) {
    stop = cursor + 3;
    // nan(n-char-sequence): letters, digits and '_' between parentheses.
    const char* inside = stop;
    if (inside != end && *inside == '(') {
      ++inside;
      while (inside != end &&
             (is_digit(*inside) || *inside == '_' || ((*inside | 0x20) >= 'a' && (*inside | 0x20) <= 'z'))) {
        ++inside;
      }
      if (inside != end && *inside == ')') stop = inside + 1;
    }
  } else {
    std::size_t digits = 0;
    while (cursor != end && is_digit(*cursor)) ++cursor, ++digits;
    if (cursor != end && *cursor == '.') {
      ++cursor;
      while (cursor != end && is_digit(*cursor)) ++cursor, ++digits;
    }
    if (digits == 0) return {begin, std::errc::invalid_argument};
    stop = cursor;
    if (cursor != end && (*cursor == 'e' || *cursor == 'E')) {
      const char* exponent = cursor + 1;
      if (exponent != end && (*exponent == '+' || *exponent == '-')) ++exponent;
      if (exponent != end && is_digit(*exponent)) {
        while (exponent != end && is_digit(*exponent)) ++exponent;
        stop = exponent;
      }
    }
  }
  const std::string text(begin, stop);
  errno = 0;
  value = std::strtod(text.c_str(), nullptr);
  // strtod also reports a subnormal result as a range error; from_chars only
  // a result that overflowed to infinity or underflowed to 0.
  if (errno == ERANGE && (value == 0.0 || std::isinf(value))) return {stop, std::errc::result_out_of_range};
  return {stop, std::errc()};
}

namespace {

std::from_chars_result double_from_chars(const char* begin, const char* end, double& value) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  return std::from_chars(begin, end, value);
#else
  return double_from_chars_by_hand(begin, end, value);
#endif
}

}  // namespace

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
  const auto [stop, error] = double_from_chars(begin, end, value);
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
