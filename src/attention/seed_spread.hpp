/// @file seed_spread.hpp
/// @brief One measure of several trainings that differ only in their seed,
/// summarised by the median, the lowest and the highest seed, and the rule
/// that says which of two kinds of model measured higher.
///
/// A seed fixes a training's random draws: the starting weights, the order of
/// the examples. Two trainings that differ only in their seed can end up
/// apart, so one seed's accuracy says little about a kind of model. Chapters
/// 13 and 15 train each kind on several seeds and apply chapter 7's spread
/// rule (see timing_comparison.hpp) to what the seeds measure: one kind is
/// better only if its worst seed beats the other's best seed. Where the
/// seeds overlap, the two are too close to call. Chapter 14 applies the same
/// rule to losses, where lower is better.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "attention/timing_comparison.hpp"

namespace attention {

/// @brief What one measure came to over several seeds.
struct SeedSpread {
  double median = 0.0;   ///< the middle seed (the mean of the two middle ones for an even count)
  double lowest = 0.0;   ///< the lowest seed: the worst for an accuracy, the best for a loss
  double highest = 0.0;  ///< the highest seed
};

/// @brief The median, lowest and highest of one measure over several seeds.
/// @param values one value per seed, in any order
/// @return the spread
/// @throws std::invalid_argument if @p values is empty
inline SeedSpread spread_over_seeds(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("spread_over_seeds: no seeds");
  const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
  return {median(values), *lowest, *highest};
}

/// @brief Which of two kinds of model measured higher over their seeds.
enum class Higher {
  first,      ///< the first kind's lowest seed is above the second's highest
  second,     ///< the second kind's lowest seed is above the first's highest
  too_close,  ///< the seeds overlap (or touch): they cannot tell the two apart
};

/// @brief The spread rule on seeds: which kind measured higher.
///
/// One kind measured higher only when every one of its seeds is above every
/// seed of the other; a tie between the lowest of one and the highest of the
/// other is too close to call.
/// @param first the first kind's seeds
/// @param second the second kind's seeds
/// @return the verdict
inline Higher higher_over_seeds(const SeedSpread& first, const SeedSpread& second) {
  // clang-format off
  // [higher_over_seeds]
  if (first.lowest > second.highest) return Higher::first;
  if (second.lowest > first.highest) return Higher::second;
  return Higher::too_close;
  // [higher_over_seeds]
  // clang-format on
}

}  // namespace attention
