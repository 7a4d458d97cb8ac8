// Chapter 17's rounding (attention/number_formats.hpp) held to numbers worked by hand: a float or bfloat16 holds,
// between 2^e and 2^(e+1), the multiples of 2^(e−p), p = 23 or 7; a number goes to the nearest one, and a tie to
// the one whose last fraction bit is 0. Then to the properties any rounding must have, over a sweep of doubles:
// it is the nearest (ties to even), it keeps what it gives back (idempotent), it keeps the order (monotone), and a
// bfloat16 is a float whose 16 low bits are 0.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/number_formats.hpp"

namespace number_format_tests {

using attention::NumberFormat;
using attention::rounded;

constexpr double infinity = std::numeric_limits<double>::infinity();

double bfloat16(double x) { return rounded(x, NumberFormat::bfloat16); }
double single(double x) { return rounded(x, NumberFormat::float32); }

std::uint32_t float_bits(double x) { return std::bit_cast<std::uint32_t>(static_cast<float>(x)); }
double from_float_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

// Doubles of every sign and of exponents from below bfloat16's smallest subnormal (2^−133) to above its largest
// number (about 2^128), with all 52 fraction bits random.
std::vector<double> sweep(std::size_t count) {
  std::mt19937_64 generator(17);
  std::uniform_int_distribution<int> exponent(-140, 129);
  std::uniform_real_distribution<double> fraction(1.0, 2.0);
  std::vector<double> values;
  for (std::size_t i = 0; i < count; ++i) {
    const double magnitude = std::ldexp(fraction(generator), exponent(generator));
    values.push_back((generator() & 1) ? -magnitude : magnitude);
  }
  return values;
}

TEST_CASE("the formats' names and fraction bits: double 52 and float 23 and bfloat16 7", "[ch17]") {
  CHECK(attention::format_name(NumberFormat::float64) == "double");
  CHECK(attention::format_name(NumberFormat::float32) == "float");
  CHECK(attention::format_name(NumberFormat::bfloat16) == "bfloat16");
  CHECK(attention::fraction_bits(NumberFormat::float64) == 52);
  CHECK(attention::fraction_bits(NumberFormat::float32) == 23);
  CHECK(attention::fraction_bits(NumberFormat::bfloat16) == 7);
  // p is the spacing above 1: float's 1 + 2^−23 and bfloat16's 1 + 2^−7 are the numbers after 1.
  CHECK(std::nextafter(1.0f, 2.0f) == static_cast<float>(1.0 + std::ldexp(1.0, -23)));
}

TEST_CASE("rounding to double changes nothing", "[ch17]") {
  for (const double x : {0.1, 1.0 / 3.0, -1e300, 0x1.fffffffffffffp1023, 0x1p-1074}) {
    CHECK(rounded(x, NumberFormat::float64) == x);
  }
}

TEST_CASE("bfloat16 near 1 holds the multiples of 2^-7: halfway goes to the even neighbour and anything past it up",
          "[ch17]") {
  const double step = std::ldexp(1.0, -7);
  CHECK(bfloat16(1.0 + step) == 1.0 + step);                     // held exactly
  CHECK(bfloat16(1.0 + step / 2) == 1.0);                        // a tie: 1 ends in 0, 1 + 2^−7 in 1
  CHECK(bfloat16(1.0 + 3 * step / 2) == 1.0 + 2 * step);         // a tie between 1 + 2^−7 (odd) and 1 + 2^−6
  CHECK(bfloat16(1.0 + 3 * std::ldexp(1.0, -9)) == 1.0 + step);  // 3/4 of the way: up
  CHECK(bfloat16(1.0 + std::ldexp(1.0, -9)) == 1.0);             // 1/4 of the way: down
  // Just past the tie, by less than float can tell: the nearest is still 1 + 2^−7.
  CHECK(bfloat16(1.0 + step / 2 + std::ldexp(1.0, -40)) == 1.0 + step);
  CHECK(bfloat16(1.0 + step / 2 - std::ldexp(1.0, -40)) == 1.0);
}

TEST_CASE("a bfloat16 sum L loses any term below half its spacing: below L/512 always, up to L/256 just past 2^e",
          "[ch17]") {
  // Chapter 17: "a term below L/512 is always lost, and one up to L/256 when L has just passed a power of two".
  // For L in [2^e, 2^(e+1)) bfloat16's spacing is 2^(e-7), half of it 2^(e-8), and L/512 < 2^(e-8). Every L below
  // is a bfloat16 number (1 + k/128 times 2^e), and each sum L + term is exact in double.
  for (int e = -5; e <= 10; ++e) {
    const double half_spacing = std::ldexp(1.0, e - 8);
    for (int k = 0; k < 128; ++k) {
      const double sum = std::ldexp(1.0 + k / 128.0, e);
      CHECK(bfloat16(sum + half_spacing * (1 - 0x1p-20)) == sum);  // just below half the spacing: lost
      CHECK(bfloat16(sum + sum / 512 * (1 - 0x1p-20)) == sum);
      CHECK(bfloat16(sum + half_spacing * (1 + 0x1p-20)) != sum);  // just above: kept, as the next number
    }
    const double power = std::ldexp(1.0, e);
    CHECK(bfloat16(power + power / 256) == power);  // exactly half the spacing, a tie: 2^e's fraction is even
    CHECK(bfloat16(power + power / 256 * (1 + 0x1p-20)) != power);
  }
}

TEST_CASE("bfloat16 holds every whole number to 256 and above it only the even ones: 257 goes to 256 and 259 to 260",
          "[ch17]") {
  for (int i = 0; i <= 256; ++i) CHECK(bfloat16(i) == i);
  CHECK(bfloat16(257) == 256);  // a tie between 256 (fraction 0000000) and 258 (0000001)
  CHECK(bfloat16(258) == 258);
  CHECK(bfloat16(259) == 260);  // a tie between 258 (odd) and 260 (0000010)
  CHECK(bfloat16(511) == 512);  // between 510 and 512, the even one
  CHECK(bfloat16(513) == 512);  // above 512 the spacing is 4: 513 is nearest to 512
  CHECK(bfloat16(514) == 512);  // a tie between 512 and 516 (odd)
  CHECK(bfloat16(518) == 520);  // a tie between 516 (odd) and 520
}

TEST_CASE("1/3 in bfloat16 is 0x3EAB or 0.333984375 and 0.1 in float is 0x1.99999ap-4", "[ch17]") {
  // 1/3 = 0.010101…₂ = 1.0101010|1010…₂ · 2^−2: past halfway, so the 7 kept bits 0101010 go up to 0101011.
  const double third = bfloat16(1.0 / 3.0);
  CHECK(third == 0.333984375);
  CHECK(third == 171.0 / 512.0);
  CHECK(float_bits(third) == 0x3EAB0000u);
  // 0.1 = 1.100110011…₂ · 2^−4: float's 23 bits end in …1001|1001…, past halfway, so …1010.
  CHECK(single(0.1) == 0x1.99999ap-4);
  CHECK(float_bits(single(0.1)) == 0x3DCCCCCDu);
  CHECK(single(1.0 + std::ldexp(1.0, -24)) == 1.0);                             // a tie, to 1
  CHECK(single(1.0 + 3 * std::ldexp(1.0, -24)) == 1.0 + std::ldexp(1.0, -22));  // a tie, to the even
  CHECK(single(16777217.0) == 16777216.0);                                      // 2^24 + 1: a tie
  CHECK(single(16777219.0) == 16777220.0);
}

TEST_CASE("rounding is symmetric in the sign: it keeps the sign of 0 and leaves infinities and NaN alone", "[ch17]") {
  for (const NumberFormat format : {NumberFormat::float32, NumberFormat::bfloat16}) {
    for (const double x : {1.0 / 3.0, 257.0, 259.0, 0.1, 1.0 + 0x1p-8, 1e-40, 3e38}) {
      CHECK(rounded(-x, format) == -rounded(x, format));
    }
    CHECK(rounded(0.0, format) == 0.0);
    CHECK_FALSE(std::signbit(rounded(0.0, format)));
    CHECK(rounded(-0.0, format) == 0.0);
    CHECK(std::signbit(rounded(-0.0, format)));
    CHECK(rounded(infinity, format) == infinity);
    CHECK(rounded(-infinity, format) == -infinity);
    CHECK(std::isnan(rounded(std::numeric_limits<double>::quiet_NaN(), format)));
    CHECK(std::isnan(rounded(-std::numeric_limits<double>::quiet_NaN(), format)));
  }
}

TEST_CASE("bfloat16's largest number is 0x1.fep127: the largest float and anything from halfway up become infinity",
          "[ch17]") {
  CHECK(bfloat16(0x1.fep127) == 0x1.fep127);
  CHECK(float_bits(bfloat16(0x1.fep127)) == 0x7F7F0000u);
  CHECK(bfloat16(0x1.fffffep127) == infinity);  // the largest float: past halfway to 2^128
  CHECK(bfloat16(-0x1.fffffep127) == -infinity);
  CHECK(bfloat16(0x1.ffp127) == infinity);  // halfway: 0x1.fep127 ends in 1, so up, to 2^128, which is ∞
  CHECK(bfloat16(0x1.fefffffp127) == 0x1.fep127);
  CHECK(single(0x1.fffffep127) == 0x1.fffffep127);
  CHECK(single(0x1.fffffffp127) == infinity);  // past halfway from float's largest to 2^128
  CHECK(single(1e300) == infinity);
  CHECK(bfloat16(-1e300) == -infinity);
}

TEST_CASE("subnormals: below 2^-126 float keeps multiples of 2^-149 and bfloat16 multiples of 2^-133", "[ch17]") {
  CHECK(single(0x1p-149) == 0x1p-149);
  CHECK(single(0x1p-150) == 0.0);         // a tie between 0 (even) and 2^−149
  CHECK(single(0x1.8p-149) == 0x1p-148);  // a tie between 2^−149 (odd) and 2^−148
  CHECK(single(0x1p-160) == 0.0);
  CHECK(std::signbit(single(-0x1p-160)));
  CHECK(bfloat16(0x1p-133) == 0x1p-133);  // bfloat16's smallest, float bits 0x00010000
  CHECK(float_bits(bfloat16(0x1p-133)) == 0x00010000u);
  CHECK(bfloat16(0x1p-134) == 0.0);             // a tie: to 0
  CHECK(bfloat16(0x1.8p-133) == 0x1p-132);      // a tie between 2^−133 (odd) and 2^−132
  CHECK(bfloat16(0x1.4p-133) == 0x1p-133);      // a quarter past: down
  CHECK(bfloat16(0x1p-149) == 0.0);             // float's smallest is far below bfloat16's
  CHECK(bfloat16(0x1.fcp-127) == 0x1.fcp-127);  // the largest subnormal, 127 · 2^−133, held
  CHECK(bfloat16(0x1.fep-127) == 0x1p-126);     // 127.5 · 2^−133: a tie, up to the smallest normal, 2^−126
  CHECK(std::signbit(bfloat16(-0x1p-150)));
}

TEST_CASE("over a sweep of doubles the rounded number is the nearest the format holds with ties to even", "[ch17]") {
  for (const double x : sweep(200000)) {
    const double b = bfloat16(x);
    const double f = single(x);
    // A bfloat16 is a float with its low 16 bits 0.
    REQUIRE(static_cast<double>(static_cast<float>(f)) == f);
    if (std::isinf(b)) {
      REQUIRE(std::abs(x) >= 0x1.ffp127);  // only from halfway past the largest up
      continue;
    }
    REQUIRE((float_bits(b) & 0xFFFFu) == 0u);
    // The neighbours of b, one bfloat16 step down and up in magnitude (the float bits move by 2^16).
    const std::uint32_t bits = float_bits(b);
    const double nearer_zero = (bits & 0x7FFFFFFFu) == 0 ? b : from_float_bits(bits - 0x10000u);
    const double farther = from_float_bits(bits + 0x10000u);
    // Differences of numbers within a factor of 2 of each other are exact in double.
    const double distance = std::abs(x - b);
    if (!std::isinf(farther)) {
      REQUIRE(distance <= std::abs(x - farther));
      if (distance == std::abs(x - farther)) REQUIRE((bits & 0x10000u) == 0u);
    } else {
      REQUIRE(std::abs(x) < 0x1.ffp127);
    }
    REQUIRE(distance <= std::abs(x - nearer_zero));
    if (nearer_zero != b && distance == std::abs(x - nearer_zero)) REQUIRE((bits & 0x10000u) == 0u);
  }
}

TEST_CASE("rounding is idempotent and monotone over a sweep of doubles", "[ch17]") {
  std::vector<double> values = sweep(100000);
  std::sort(values.begin(), values.end());
  for (const NumberFormat format : {NumberFormat::float64, NumberFormat::float32, NumberFormat::bfloat16}) {
    double previous = -infinity;
    for (const double x : values) {
      const double r = rounded(x, format);
      REQUIRE(rounded(r, format) == r);
      REQUIRE(r >= previous);
      previous = r;
    }
  }
}

}  // namespace number_format_tests
