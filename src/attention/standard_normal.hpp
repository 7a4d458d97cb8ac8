/// @file standard_normal.hpp
/// @brief Standard normal numbers (mean 0, variance 1) from a Mulberry32, by the Box–Muller transform.
#pragma once

#include <cmath>
#include <numbers>

#include "attention/mulberry32.hpp"

namespace attention {

/// @brief What standard_normal() uses in place of a first uniform of 0: half of the smallest step, 2⁻³³.
///
/// ln 0 is −∞, so a first uniform of exactly 0 would turn the draw into an
/// infinity and every sum it enters into an infinity or NaN. Mulberry32 hands
/// out a 0 once in every 2³² numbers. Reading that 0 as the middle of its
/// step, 2⁻³³ instead of 0, keeps the draw finite (its size is then at most
/// √(66 ln 2), just under 7) and leaves every other draw untouched. The draw still
/// uses exactly two uniforms, so the stream stays in step.
inline constexpr double zero_uniform_replacement = 0x1p-33;

/// @brief One standard normal number from two consecutive uniforms of @p generator.
///
/// The Box–Muller transform, cosine branch only: with u₁ and u₂ the next two
/// uniforms, in that order, z = √(−2 ln u₁) · cos(2π u₂).
///
/// If u₁ and u₂ are independent and uniform on (0, 1), z has the normal
/// distribution with mean 0 and variance 1. The sine branch, which would give
/// a second independent number from the same pair, is not used: each call
/// takes two uniforms and returns one number, as the hand-worked lesson does.
///
/// A u₁ of exactly 0 is read as zero_uniform_replacement.
///
/// @param generator the stream to draw from; it advances by two numbers
/// @return a draw from the standard normal distribution
inline double standard_normal(Mulberry32& generator) {
  // clang-format off
  // [standard_normal]
  double u1 = generator.next_uniform();
  const double u2 = generator.next_uniform();
  if (u1 == 0.0) {
    u1 = zero_uniform_replacement;  // ln 0 = −∞
  }
  const double radius = std::sqrt(-2.0 * std::log(u1));
  return radius * std::cos(2.0 * std::numbers::pi * u2);
  // [standard_normal]
  // clang-format on
}

}  // namespace attention
