// The spread rule on seeds: the median, lowest and highest of one measure over
// several seeds, and which of two kinds of model measured higher. The values
// are typed here, so every expected verdict follows from the rule as the book
// states it (one kind is higher only if its lowest seed is above the other's
// highest), not from a run.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "attention/seed_spread.hpp"

using attention::Higher;
using attention::SeedSpread;

namespace seed_spread_tests {

TEST_CASE("a spread over seeds is their median lowest and highest in any order", "[ch13]") {
  const SeedSpread odd = attention::spread_over_seeds({0.7, 0.9, 0.8});
  CHECK(odd.median == 0.8);
  CHECK(odd.lowest == 0.7);
  CHECK(odd.highest == 0.9);
  const SeedSpread even = attention::spread_over_seeds({1.0, 0.25, 0.5, 0.75});
  CHECK(even.median == 0.625);
  CHECK(even.lowest == 0.25);
  CHECK(even.highest == 1.0);
  const SeedSpread one = attention::spread_over_seeds({0.5});
  CHECK((one.median == 0.5 && one.lowest == 0.5 && one.highest == 0.5));
  CHECK_THROWS_AS(attention::spread_over_seeds({}), std::invalid_argument);
}

TEST_CASE("one kind measured higher only when its lowest seed is above the other's highest", "[ch13]") {
  const SeedSpread low = attention::spread_over_seeds({0.6, 0.7, 0.65});
  const SeedSpread high = attention::spread_over_seeds({0.71, 0.9, 0.8});
  CHECK(attention::higher_over_seeds(high, low) == Higher::first);
  CHECK(attention::higher_over_seeds(low, high) == Higher::second);
  // A higher median is not enough: one seed of the lower kind beats one of the higher.
  const SeedSpread overlapping = attention::spread_over_seeds({0.6, 0.62, 0.75});
  CHECK(overlapping.median < high.median);
  CHECK(attention::higher_over_seeds(high, overlapping) == Higher::too_close);
  CHECK(attention::higher_over_seeds(overlapping, high) == Higher::too_close);
  // Touching is not beating: the lowest of one equal to the highest of the other.
  const SeedSpread touching = attention::spread_over_seeds({0.7, 0.8});
  CHECK(attention::higher_over_seeds(touching, low) == Higher::too_close);
  CHECK(attention::higher_over_seeds(low, touching) == Higher::too_close);
  CHECK(attention::higher_over_seeds(low, low) == Higher::too_close);
}

}  // namespace seed_spread_tests
