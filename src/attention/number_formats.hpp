/// @file number_formats.hpp
/// @brief Three ways to store a real number, double, float and bfloat16, and rounding to each: what a sum loses when its running total is kept in too few bits.
///
/// A binary floating-point number is a sign, an exponent and a fraction of
/// p bits: between two powers of two, 2^e and 2^(e+1), the numbers it can
/// hold are 2^(p) evenly spaced ones, 2^(e−p) apart. double has p = 52,
/// float p = 23 and bfloat16 p = 7: bfloat16 is float with the last 16
/// fraction bits cut off (Kalamkar et al. 2019, "A Study of BFLOAT16 for Deep
/// Learning Training"), the same range of exponents with a far coarser
/// spacing. Rounding goes to the nearest number the format holds, and a tie
/// to the one whose last fraction bit is 0 (round half to even).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace attention {

/// @brief A format for real numbers.
enum class NumberFormat {
  float64,   ///< double: 52 fraction bits
  float32,   ///< float: 23 fraction bits
  bfloat16,  ///< bfloat16: float's 8 exponent bits and 7 fraction bits
};

/// @brief The format's name as the book writes it: double, float, bfloat16.
/// @param format the format
/// @return its name
inline std::string format_name(NumberFormat format) {
  switch (format) {
    case NumberFormat::float64:
      return "double";
    case NumberFormat::float32:
      return "float";
    case NumberFormat::bfloat16:
      return "bfloat16";
  }
  return "?";
}

/// @brief The fraction bits p of the format: 52, 23 or 7.
/// @param format the format
/// @return p; the spacing of the numbers between 1 and 2 is 2^−p
inline int fraction_bits(NumberFormat format) {
  switch (format) {
    case NumberFormat::float64:
      return 52;
    case NumberFormat::float32:
      return 23;
    case NumberFormat::bfloat16:
      return 7;
  }
  return 52;
}

/// @brief @p x rounded to the nearest number @p format holds, ties to even, returned as a double (which holds it exactly).
///
/// To float, by the conversion C++ defines (round to nearest, ties to even).
/// To bfloat16, through float, in two steps that round once: first to a
/// float that keeps whether anything was cut off (round to odd: if @p x lies
/// between two floats, the one of them whose last bit is 1), then the
/// float's 32 bits to their top 16, by adding 0x7FFF plus the lowest kept bit
/// and cutting the low 16 (ties go to an even last bit). Rounding to nearest
/// twice would not do: 1 + 2^−8 + 2^−40 is nearest to the bfloat16 1 + 2^−7,
/// but to float it rounds to 1 + 2^−8, a tie that goes down to 1. Rounded to
/// odd, a float with 16 more bits than bfloat16 never lands on a bfloat16 tie
/// unless @p x is one (Boldo and Melquiond, "Emulation of FMA and Correctly
/// Rounded Sums: Proved Algorithms Using Rounding to Odd").
/// NaN stays NaN, ±∞ stays ±∞.
///
/// @param x any double
/// @param format the format to round to
/// @return the rounded number
inline double rounded(double x, NumberFormat format) {
  if (format == NumberFormat::float64) return x;
  const float nearest = static_cast<float>(x);
  if (format == NumberFormat::float32 || !std::isfinite(nearest)) return nearest;
  std::uint32_t bits = 0;
  std::memcpy(&bits, &nearest, sizeof bits);  // the float's 32 bits
  // clang-format off
  // [round_to_odd]
  if (static_cast<double>(nearest) != x) {
    if (std::abs(static_cast<double>(nearest)) > std::abs(x)) --bits;  // the float below x in magnitude
    bits |= 1u;  // x lies between it and the next: the odd one of the two
  }
  // [round_to_odd]
  // [bfloat16]
  const std::uint32_t lowest_kept = (bits >> 16) & 1u;
  const std::uint32_t kept = (bits + 0x7FFFu + lowest_kept) & 0xFFFF0000u;  // round half to even
  // [bfloat16]
  // clang-format on
  float result = 0.0f;
  std::memcpy(&result, &kept, sizeof result);
  return result;
}

}  // namespace attention
