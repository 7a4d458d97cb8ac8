// Fuzzes program::parse_whole_number and parse_whole_numbers (src/program/integer_list.hpp).
//
// Invariants: every number returned lies in [minimum, maximum]; a list has at
// most max_count entries; written back in decimal, it parses to the same
// numbers; every error message starts with the flag.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz_support.hpp"
#include "program/integer_list.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider provider(data, size);
  const std::string_view flag =
      fuzz::flags[provider.ConsumeIntegralInRange<std::size_t>(0, std::size(fuzz::flags) - 1)];
  const bool list = provider.ConsumeBool();
  std::uint64_t minimum = provider.ConsumeIntegral<std::uint64_t>();
  std::uint64_t maximum = provider.ConsumeIntegral<std::uint64_t>();
  if (minimum > maximum) std::swap(minimum, maximum);
  const auto max_count = provider.ConsumeIntegralInRange<std::size_t>(1, 64);
  const std::string text = provider.ConsumeRemainingBytesAsString();

  std::vector<std::uint64_t> numbers;
  try {
    if (list) {
      numbers = program::parse_whole_numbers(text, flag, minimum, maximum, max_count);
    } else {
      numbers.push_back(program::parse_whole_number(text, flag, minimum, maximum));
    }
  } catch (const program::UsageError& error) {
    fuzz::require_names_flag(error, flag);
    return 0;
  }
  fuzz::require(!numbers.empty() && numbers.size() <= max_count, "a list has 1 … max_count entries", text);
  for (const std::uint64_t number : numbers) {
    fuzz::require(minimum <= number && number <= maximum, "every number lies in [minimum, maximum]",
                  fmt::format("{} not in [{}, {}]", number, minimum, maximum));
  }
  const std::string written = fmt::format("{}", fmt::join(numbers, ","));
  try {
    const std::vector<std::uint64_t> again =
        list ? program::parse_whole_numbers(written, flag, minimum, maximum, max_count)
             : std::vector<std::uint64_t>{program::parse_whole_number(written, flag, minimum, maximum)};
    fuzz::require(again == numbers, "numbers written back parse to the same numbers", written);
  } catch (const program::UsageError& error) {
    fuzz::broken("numbers written back parse again", written + " | " + error.what());
  }
  return 0;
}
