// The page's number reader against the C++ library's: the WebAssembly build
// has no floating-point std::from_chars, so it reads numbers with
// double_from_chars_by_hand. Here, where both exist, they must agree on every
// text: where they stop, what error they give, and the value to the last bit.
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/mulberry32.hpp"
#include "program/real_number.hpp"

namespace {

void check_agreement(const std::string& text) {
  double library = -7.0;
  double by_hand = -7.0;
  const auto expected = std::from_chars(text.data(), text.data() + text.size(), library);
  const auto actual = program::double_from_chars_by_hand(text.data(), text.data() + text.size(), by_hand);
  INFO("text: '" << text << "'");
  REQUIRE((actual.ec == expected.ec));
  if (expected.ec == std::errc()) {
    CHECK(actual.ptr == expected.ptr);
    if (library == library) {  // NaN's payload is not compared
      CHECK(std::bit_cast<std::uint64_t>(by_hand) == std::bit_cast<std::uint64_t>(library));
    }
  }
}

}  // namespace

TEST_CASE("the number reader written by hand agrees with std::from_chars", "[ch01]") {
  const std::vector<std::string> texts = {"0",
                                          "-0",
                                          "1",
                                          "0.5",
                                          ".5",
                                          "5.",
                                          "-1e9",
                                          "1e-9",
                                          "1E+3",
                                          "1e",
                                          "1e+",
                                          "1e-x",
                                          "12abc",
                                          "1.2.3",
                                          "inf",
                                          "-inf",
                                          "Infinity",
                                          "-INFINITY",
                                          "infinit",
                                          "nan",
                                          "NaN",
                                          "-nan",
                                          "nan(1)",
                                          "",
                                          "-",
                                          ".",
                                          "-.",
                                          "e5",
                                          "0x10",
                                          " 1",
                                          "+1",
                                          "--1",
                                          "1e400",
                                          "-1e400",
                                          "1e-400",
                                          "2.2250738585072014e-308",
                                          "4.9406564584124654e-324",
                                          "1.7976931348623157e308",
                                          "0.30000000000000004",
                                          "123456789012345678901234567890",
                                          "0.1e-5000",
                                          "00012",
                                          "1_0",
                                          "3.14159,2"};
  for (const std::string& text : texts) {
    check_agreement(text);
  }
  // Random doubles written at full precision and in short forms.
  attention::Mulberry32 generator(2024);
  for (int i = 0; i < 2000; ++i) {
    const double exponent = generator.next_uniform() * 600.0 - 300.0;
    const double value = (generator.next_uniform() - 0.5) * std::pow(10.0, exponent);
    char buffer[64];
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, value);
    check_agreement(std::string(buffer, written.ptr));
    check_agreement(std::to_string(value));
  }
}
