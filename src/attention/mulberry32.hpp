/// @file mulberry32.hpp
/// @brief mulberry32: a small seeded generator of random numbers, the same one the hand-worked lesson (see the preface) draws with.
///
/// The book draws its random vectors with mulberry32, a 32-bit generator
/// popular in JavaScript, so that a seed names the same numbers here as in the
/// source the book reproduces, and the same numbers on every machine. It is
/// not a generator for cryptography, nor for statistics that need more than
/// 2³² draws.
#pragma once

#include <cstdint>

namespace attention {

/// @brief The mulberry32 generator: a seed in, a reproducible stream of 32-bit numbers out.
///
/// The state is one 32-bit number. Each draw adds the odd constant 0x6D2B79F5
/// to it (wrapping around at 2³²) and scrambles the result into the output.
/// Because the constant is odd, the state visits every one of the 2³² values
/// once before it repeats, so the stream has period 2³². All arithmetic is on
/// unsigned 32-bit numbers, which wrap exactly as JavaScript's
/// `Math.imul` and `>>> 0` do; the outputs match the JavaScript original bit
/// for bit.
///
/// One consequence to know: the output is 0 exactly when the state is 0,
/// that is once per period. next_uniform() then returns 0.0; see
/// standard_normal() for how a normal draw handles it.
class Mulberry32 {
 public:
  /// @brief A generator whose stream is fixed by @p seed.
  /// @param seed any 32-bit number; equal seeds give equal streams
  explicit Mulberry32(std::uint32_t seed) : state_(seed) {}

  /// @brief The next number of the stream, from 0 to 2³² − 1.
  /// @return 32 random bits
  std::uint32_t next_uint32() {
    // clang-format off
    // [next_uint32]
    state_ += 0x6D2B79F5u;
    std::uint32_t t = (state_ ^ (state_ >> 15)) * (state_ | 1u);
    t = (t + ((t ^ (t >> 7)) * (t | 61u))) ^ t;
    return t ^ (t >> 14);
    // [next_uint32]
    // clang-format on
  }

  /// @brief The next number of the stream as a fraction: next_uint32() / 2³².
  ///
  /// Exact in double precision. It lies in [0, 1): it can be 0 (once per
  /// period) and is never 1.
  /// @return a uniform random number from 0 up to, not including, 1
  double next_uniform() {
    // clang-format off
    // [next_uniform]
    return static_cast<double>(next_uint32()) / 4294967296.0;  // 2³²
    // [next_uniform]
    // clang-format on
  }

 private:
  std::uint32_t state_;
};

}  // namespace attention
