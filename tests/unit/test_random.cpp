// The random numbers of chapter 2: mulberry32, Box–Muller normals, and footnote 4's experiment.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/mulberry32.hpp"
#include "attention/standard_normal.hpp"
#include "attention/variance.hpp"

using attention::Mulberry32;

// The expected outputs below come from an independent implementation: the
// JavaScript mulberry32 as it is commonly published, run with node (v20). To
// rerun it, save these lines as mulberry32.js and type `node mulberry32.js`:
//
//   function mulberry32(a) {
//     return function () {
//       a |= 0; a = (a + 0x6D2B79F5) | 0;
//       let t = Math.imul(a ^ (a >>> 15), 1 | a);
//       t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
//       return (t ^ (t >>> 14)) >>> 0;
//     };
//   }
//   for (const seed of [1, 2, 4294967295, 2463401483]) {
//     const next = mulberry32(seed);
//     console.log(seed + ": " + Array.from({ length: 8 }, () => next()).join(", "));
//   }
//
// It prints:
//
//   1: 2693262067, 11749833, 2265367787, 4213581821, 4159151403, 1207330352, 2632122864, 3095568220
//   2: 3153583793, 1395857638, 1225337227, 2310499808, 3759333107, 2709408573, 2144054433, 1534354113
//   4294967295: 3850105811, 813802916, 3073704848, 4054706436, 3630262831, 2315588663, 2922715533, 2042566601
//   2463401483: 0, 1144304738, 1416247, 958946056, 627933444, 2007157716, 2340967985, 2642484575

namespace {

std::vector<std::uint32_t> first_outputs(std::uint32_t seed, std::size_t count) {
  Mulberry32 generator(seed);
  std::vector<std::uint32_t> outputs;
  for (std::size_t i = 0; i < count; ++i) outputs.push_back(generator.next_uint32());
  return outputs;
}

}  // namespace

TEST_CASE("mulberry32 gives the JavaScript original's numbers", "[ch02]") {
  CHECK(first_outputs(1, 8) == std::vector<std::uint32_t>{2693262067, 11749833, 2265367787, 4213581821, 4159151403,
                                                          1207330352, 2632122864, 3095568220});
  CHECK(first_outputs(2, 8) == std::vector<std::uint32_t>{3153583793, 1395857638, 1225337227, 2310499808, 3759333107,
                                                          2709408573, 2144054433, 1534354113});
  // The largest seed: JavaScript reads it as −1 (a |= 0); the 32 bits are the same.
  CHECK(first_outputs(4294967295, 8) == std::vector<std::uint32_t>{3850105811, 813802916, 3073704848, 4054706436,
                                                                   3630262831, 2315588663, 2922715533, 2042566601});
}

TEST_CASE("mulberry32 outputs 0 when its state is 0: once per period", "[ch02]") {
  // 2463401483 + 0x6D2B79F5 = 2³²: the first draw finds the state at 0. A search
  // over all 2³² states (not run here) finds no other state whose output is 0.
  Mulberry32 generator(2463401483);
  CHECK(generator.next_uint32() == 0);
  // The state is now 0, which is where seed 0 starts.
  CHECK(first_outputs(2463401483, 8) ==
        std::vector<std::uint32_t>{0, 1144304738, 1416247, 958946056, 627933444, 2007157716, 2340967985, 2642484575});
  Mulberry32 from_zero(0);
  CHECK(from_zero.next_uint32() == 1144304738);
}

TEST_CASE("equal seeds give equal streams and different seeds different ones", "[ch02]") {
  CHECK(first_outputs(20170612, 100) == first_outputs(20170612, 100));
  CHECK(first_outputs(20170612, 100) != first_outputs(20170613, 100));
}

TEST_CASE("a uniform is exactly the 32-bit output divided by 2³²", "[ch02]") {
  Mulberry32 generator(1);
  CHECK(generator.next_uniform() == 2693262067.0 / 4294967296.0);
  CHECK(generator.next_uniform() == 11749833.0 / 4294967296.0);
  Mulberry32 zero(2463401483);
  CHECK(zero.next_uniform() == 0.0);
  // Every uniform of a long stream lies in [0, 1), the largest output included.
  Mulberry32 stream(20170612);
  double smallest = 1.0, largest = 0.0;
  for (int i = 0; i < 100000; ++i) {
    const double u = stream.next_uniform();
    smallest = std::min(smallest, u);
    largest = std::max(largest, u);
  }
  CHECK(smallest >= 0.0);
  CHECK(largest < 1.0);
  CHECK(largest > 0.9999);  // and the stream does reach close to 1
}

// Box–Muller by hand: z = √(−2 ln u₁) · cos(2π u₂), with u = output / 2³² from the
// JavaScript outputs above, computed independently with Python's math module:
//   import math
//   u = [x / 2**32 for x in (2693262067, 11749833, 2265367787, 4213581821)]
//   [math.sqrt(-2 * math.log(u[i])) * math.cos(2 * math.pi * u[i + 1]) for i in (0, 2)]
TEST_CASE("Box–Muller normals worked from the JavaScript outputs", "[ch02]") {
  Mulberry32 generator(1);
  CHECK(attention::standard_normal(generator) == Approx(0.9659740590152261).epsilon(1e-14));
  CHECK(attention::standard_normal(generator) == Approx(1.1231041937525543).epsilon(1e-14));
  CHECK(attention::standard_normal(generator) == Approx(-0.049227862786499016).epsilon(1e-14));
  CHECK(attention::standard_normal(generator) == Approx(-0.1808915033144518).epsilon(1e-14));
  // Two uniforms per normal: four normals used eight outputs, so the ninth is next.
  Mulberry32 reference(1);
  for (int i = 0; i < 8; ++i) reference.next_uint32();
  CHECK(generator.next_uint32() == reference.next_uint32());
}

TEST_CASE("a first uniform of 0 is read as 2⁻³³ and the draw stays finite", "[ch02]") {
  CHECK(attention::zero_uniform_replacement == std::ldexp(1.0, -33));
  // Seed 2463401483 starts with u₁ = 0 and u₂ = 1144304738 / 2³². By hand (Python):
  //   math.sqrt(-2 * math.log(2**-33)) * math.cos(2 * math.pi * 1144304738 / 2**32)
  Mulberry32 generator(2463401483);
  const double z = attention::standard_normal(generator);
  CHECK(std::isfinite(z));
  CHECK(z == Approx(-0.6969628564725121).epsilon(1e-14));
  // Still two uniforms per draw: the next normal is the next pair, (1416247, 958946056).
  CHECK(attention::standard_normal(generator) == Approx(0.6693120306869765).epsilon(1e-14));
  // The largest size a draw can have, √(−2 ln 2⁻³³) = √(66 ln 2).
  CHECK(std::sqrt(-2.0 * std::log(attention::zero_uniform_replacement)) == Approx(6.763705635001895).epsilon(1e-14));
}

TEST_CASE("many normals have mean 0 and variance 1", "[ch02]") {
  // One million draws: the sample mean has standard deviation 0.001 and the
  // sample variance about 0.0014, so these margins are five of those or more.
  Mulberry32 generator(20170612);
  std::vector<double> draws(1'000'000);
  std::size_t within_one = 0;
  for (double& z : draws) {
    z = attention::standard_normal(generator);
    if (std::abs(z) < 1.0) ++within_one;
  }
  CHECK(attention::mean(draws) == Approx(0.0).margin(0.005));
  CHECK(attention::population_variance(draws) == Approx(1.0).margin(0.01));
  // 68.27 % of a standard normal lies within one standard deviation of the mean.
  CHECK(static_cast<double>(within_one) / 1e6 == Approx(0.6827).margin(0.003));
}

TEST_CASE("a random dot product draws q₁ k₁ q₂ k₂ … interleaved from one stream", "[ch02]") {
  // From the normals worked by hand above: q₁ = 0.9659…, k₁ = 1.1231…, q₂ = −0.0492…, k₂ = −0.1809….
  Mulberry32 one(1);
  CHECK(attention::random_dot_product(one, 1) == Approx(0.9659740590152261 * 1.1231041937525543).epsilon(1e-14));
  Mulberry32 two(1);
  CHECK(attention::random_dot_product(two, 2) ==
        Approx(0.9659740590152261 * 1.1231041937525543 + -0.049227862786499016 * -0.1808915033144518).epsilon(1e-14));
  // Four uniforms per entry of q: width 2 used eight outputs.
  Mulberry32 reference(1);
  for (int i = 0; i < 8; ++i) reference.next_uint32();
  CHECK(two.next_uint32() == reference.next_uint32());
  SECTION("width 0 is the empty sum and draws nothing") {
    Mulberry32 untouched(1);
    CHECK(attention::random_dot_product(untouched, 0) == 0.0);
    CHECK(untouched.next_uint32() == 2693262067);
  }
}

TEST_CASE("mean and population variance worked by hand", "[ch02]") {
  const std::vector<double> samples{1, 2, 3, 4};
  CHECK(attention::mean(samples) == 2.5);
  // ((−1.5)² + (−0.5)² + 0.5² + 1.5²) / 4 = 5 / 4: divided by N, not N − 1.
  CHECK(attention::population_variance(samples) == 1.25);
  CHECK(attention::population_variance(std::vector<double>{7}) == 0.0);
  CHECK_THROWS_AS(attention::mean(std::vector<double>{}), std::invalid_argument);
  CHECK_THROWS_AS(attention::population_variance(std::vector<double>{}), std::invalid_argument);
}

TEST_CASE("footnote 4: the variance of q·k is close to d_k", "[ch02]") {
  // 20000 samples: the measured variance over d_k has a standard deviation of
  // √((2 + 6/d_k) / 20000), at most 0.02 (at d_k = 1); the margin is four of those.
  for (const std::size_t width : {std::size_t{1}, std::size_t{8}, std::size_t{100}}) {
    Mulberry32 generator(static_cast<std::uint32_t>(width));
    std::vector<double> samples(20'000);
    for (double& x : samples) x = attention::random_dot_product(generator, width);
    CHECK(attention::mean(samples) == Approx(0.0).margin(4.0 * std::sqrt(static_cast<double>(width) / 20'000.0)));
    CHECK(attention::population_variance(samples) / static_cast<double>(width) == Approx(1.0).margin(0.08));
  }
}
