#include "program/integer_list.hpp"

#include <charconv>
#include <string>

#include <fmt/format.h>

#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace program {
namespace {

bool only_digits(const char* begin, const char* end) {
  return std::string_view(begin, static_cast<std::size_t>(end - begin)).find_first_not_of("0123456789") ==
         std::string_view::npos;
}

// The range a number must lie in, as the messages say it.
std::string range_text(std::uint64_t minimum, std::uint64_t maximum) {
  return fmt::format("a whole number from {} to {}", minimum, maximum);
}

// "what" is how a message names the number: "--seed" or "--dk: entry 2".
std::uint64_t parse_one(std::string_view text, const std::string& what, std::uint64_t minimum, std::uint64_t maximum) {
  const std::string_view digits = trim(text);
  if (digits.empty()) {
    throw UsageError(fmt::format("{} is empty; expected {}", what, range_text(minimum, maximum)));
  }
  const char* begin = digits.data();
  const char* end = digits.data() + digits.size();
  if (*begin == '+' && end - begin > 1) {
    ++begin;  // from_chars does not take a leading '+'
  }
  std::uint64_t value = 0;
  const bool all_digits = only_digits(begin, end);
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (*begin == '-' && end - begin > 1 && only_digits(begin + 1, end)) {
    throw UsageError(fmt::format("{} is {}, negative; expected {}", what, digits, range_text(minimum, maximum)));
  }
  if (!all_digits || (error != std::errc() && error != std::errc::result_out_of_range) || stop != end) {
    throw UsageError(
        fmt::format("{} is '{}', not a whole number; expected {}", what, digits, range_text(minimum, maximum)));
  }
  if (error == std::errc::result_out_of_range || value > maximum) {
    throw UsageError(fmt::format("{} is {}, too large; expected {}", what, digits, range_text(minimum, maximum)));
  }
  if (value < minimum) {
    throw UsageError(fmt::format("{} is {}, too small; expected {}", what, digits, range_text(minimum, maximum)));
  }
  return value;
}

}  // namespace

std::uint64_t parse_whole_number(std::string_view text, std::string_view flag, std::uint64_t minimum,
                                 std::uint64_t maximum) {
  return parse_one(text, std::string(flag), minimum, maximum);
}

std::vector<std::uint64_t> parse_whole_numbers(std::string_view text, std::string_view flag, std::uint64_t minimum,
                                               std::uint64_t maximum, std::size_t max_count) {
  if (trim(text).empty()) {
    throw UsageError(fmt::format("{}: empty list; expected whole numbers separated by ',', e.g. \"2,64,512\"", flag));
  }
  const std::vector<std::string_view> entries = split(text, ',');
  if (entries.size() > max_count) {
    throw UsageError(fmt::format("{}: more than {} entries; expected at most {}", flag, max_count, max_count));
  }
  std::vector<std::uint64_t> values;
  for (const std::string_view entry : entries) {
    values.push_back(parse_one(entry, fmt::format("{}: entry {}", flag, values.size() + 1), minimum, maximum));
  }
  return values;
}

}  // namespace program
