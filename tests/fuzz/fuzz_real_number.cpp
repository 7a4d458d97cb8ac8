// Fuzzes program::parse_real_number (src/program/real_number.hpp).
//
// Invariants: it returns a finite number, or −∞ only where −∞ is accepted, or
// throws UsageError whose message starts with the flag; the number written back
// at full precision parses to the same bits; spaces around it change nothing.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "fuzz_support.hpp"
#include "program/real_number.hpp"

namespace {

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

}  // namespace

// The first byte chooses the flag and whether −∞ is accepted; the rest is the text typed.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view flag = fuzz::flags[data[0] % std::size(fuzz::flags)];
  const auto minus_infinity =
      (data[0] & 0x80) != 0 ? program::MinusInfinity::accepted : program::MinusInfinity::refused;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  double value = 0.0;
  try {
    value = program::parse_real_number(text, flag, minus_infinity);
  } catch (const program::UsageError& error) {
    fuzz::require_names_flag(error, flag);
    return 0;
  }
  const bool infinity_accepted = minus_infinity == program::MinusInfinity::accepted;
  fuzz::require(std::isfinite(value) || (infinity_accepted && std::isinf(value) && value < 0),
                "a parsed number is finite, or -inf where -inf is accepted", text);
  const std::string written = std::isinf(value) ? "-inf" : fmt::format("{}", value);
  try {
    fuzz::require(same_bits(program::parse_real_number(written, flag, minus_infinity), value),
                  "a number written back at full precision parses to the same bits", written);
    fuzz::require(same_bits(program::parse_real_number(" \t" + written + "\t ", flag, minus_infinity), value),
                  "spaces and tabs around a number change nothing", written);
  } catch (const program::UsageError& error) {
    fuzz::broken("a number written back parses again", written + " | " + error.what());
  }
  return 0;
}
