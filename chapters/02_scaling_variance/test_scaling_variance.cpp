// Chapter 2's computation, tested in-process: scaling_variance::compute()'s
// dot products against the stream of uniforms read here with the Box–Muller
// formula, one stream for every width in the order listed, the mean and
// population variance against their definitions, footnote 4's Var(q·k/√d_k) ≈ 1
// and the typical swing over many seeds, the histogram, and the flags' refusals.
// Every expected value has a reason of its own (a hand calculation, the
// statistics footnote 4 predicts), not the program's output.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/mulberry32.hpp"
#include "chapter_support.hpp"
#include "program/command_line.hpp"
#include "scaling_variance.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_scaling_variance {

namespace {

scaling_variance::Result run(std::uint32_t seed, std::size_t samples, std::vector<std::size_t> widths) {
  scaling_variance::Inputs inputs;
  inputs.seed = seed;
  inputs.samples = samples;
  inputs.widths = std::move(widths);
  return scaling_variance::compute(inputs);
}

// One standard normal number from the next two uniforms, z = √(−2 ln u₁) cos(2π u₂),
// with a first uniform of 0 read as 2⁻³³, as the chapter states.
double box_muller(attention::Mulberry32& generator) {
  double u1 = generator.next_uniform();
  const double u2 = generator.next_uniform();
  if (u1 == 0.0) u1 = std::ldexp(1.0, -33);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// The dot products the chapter describes: one stream for every width in order,
// @p samples per width, each q·k drawn interleaved q₁, k₁, q₂, k₂, …
std::vector<std::vector<double>> dot_products(std::uint32_t seed, std::size_t samples,
                                              const std::vector<std::size_t>& widths) {
  attention::Mulberry32 generator(seed);
  std::vector<std::vector<double>> all;
  for (const std::size_t width : widths) {
    std::vector<double> products(samples);
    for (double& product : products) {
      product = 0;
      for (std::size_t i = 0; i < width; ++i) {
        const double q = box_muller(generator);
        const double k = box_muller(generator);
        product += q * k;
      }
    }
    all.push_back(products);
  }
  return all;
}

double mean_of(const std::vector<double>& x) {
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

// The mean of (x − mean)², dividing by N.
double variance_of(const std::vector<double>& x) {
  const double m = mean_of(x);
  double sum = 0;
  for (const double v : x) sum += (v - m) * (v - m);
  return sum / static_cast<double>(x.size());
}

scaling_variance::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<scaling_variance::Flags>("scaling_variance", "chapter 2", arguments);
}

}  // namespace

TEST_CASE("one product of width 1 from the seed whose first uniform is 0 worked by hand", "[ch02]") {
  // Seed 2463401483 starts with u₁ = 0: its first two normals, worked in Python from
  // the uniforms (tests/unit/test_random.cpp), are −0.6969628564725121 and 0.6693120306869765.
  const scaling_variance::Result result = run(2463401483u, 1, {1});
  REQUIRE(result.rows.size() == 1);
  const scaling_variance::Row& row = result.rows[0];
  CHECK(row.width == 1);
  CHECK(row.mean_raw == Approx(-0.6969628564725121 * 0.6693120306869765).epsilon(1e-14));
  // One sample lies at its own mean: variance 0 exactly.
  CHECK(row.var_raw == 0.0);
  CHECK(row.var_scaled == 0.0);
  // The swing for d_k = 1 and N = 1: √((2 + 6/1) / 1) = √8.
  CHECK(row.var_scaled_sd == Approx(std::sqrt(8.0)).epsilon(1e-15));
}

TEST_CASE("every row is the mean and variance of the dot products drawn from one stream", "[ch02]") {
  const std::vector<std::size_t> widths{2, 7, 3};
  const scaling_variance::Result result = run(5, 50, widths);
  const std::vector<std::vector<double>> products = dot_products(5, 50, widths);
  REQUIRE(result.rows.size() == 3);
  for (std::size_t w = 0; w < widths.size(); ++w) {
    const scaling_variance::Row& row = result.rows[w];
    CHECK(row.width == widths[w]);
    CHECK(row.mean_raw == Approx(mean_of(products[w])).epsilon(1e-12).margin(1e-14));
    CHECK(row.var_raw == Approx(variance_of(products[w])).epsilon(1e-12));
    // Dividing q·k by √d_k divides its variance by d_k.
    CHECK(row.var_scaled == Approx(row.var_raw / static_cast<double>(widths[w])).epsilon(1e-15));
    CHECK(row.var_scaled_sd == Approx(std::sqrt((2.0 + 6.0 / static_cast<double>(widths[w])) / 50.0)).epsilon(1e-15));
  }
}

TEST_CASE("a width measured after another starts where the stream left off", "[ch02]") {
  const scaling_variance::Result after = run(1, 200, {2, 64});
  const scaling_variance::Result alone = run(1, 200, {64});
  // The same width, other random numbers: the measurements differ.
  CHECK(after.rows[1].var_raw != alone.rows[0].var_raw);
  // The first width of both runs draws from the start of the stream: the same bits.
  CHECK(run(1, 200, {64, 2}).rows[0].var_raw == alone.rows[0].var_raw);
  // A width listed twice is measured twice, on fresh draws.
  const scaling_variance::Result twice = run(1, 200, {8, 8});
  CHECK(twice.rows[0].var_raw != twice.rows[1].var_raw);
  // Another seed, other numbers.
  CHECK(run(2, 200, {64}).rows[0].var_raw != alone.rows[0].var_raw);
}

TEST_CASE("the variance grows like d_k and the scaled variance stays near 1", "[ch02]") {
  // The defaults: 4000 samples at d_k = 2, 64, 512.
  const scaling_variance::Result result = run(1, 4000, {2, 64, 512});
  for (const scaling_variance::Row& row : result.rows) {
    // A bug lands many swings away; a correct run lands within two about 19 times in 20, within 4 nearly always.
    CHECK(std::abs(row.var_scaled - 1.0) < 4 * row.var_scaled_sd);
    // q·k has mean 0 and standard deviation √d_k: its mean over 4000 samples within 4 · √(d_k/4000).
    CHECK(std::abs(row.mean_raw) < 4 * std::sqrt(static_cast<double>(row.width) / 4000.0));
  }
  CHECK(result.rows[1].var_raw > 10 * result.rows[0].var_raw);
  CHECK(result.rows[2].var_raw > 4 * result.rows[1].var_raw);
}

TEST_CASE("over 300 seeds the scaled variance averages 1 and spreads by the typical swing", "[ch02]") {
  // d_k = 4, N = 500: swing √((2 + 6/4)/500) ≈ 0.084; the mean of 300 runs lies within
  // 4 · 0.084/√300 ≈ 0.019 of 1 − 1/500 (dividing by N leaves that bias), and the spread
  // measured from 300 runs within about 5 % of the swing, so within 20 %.
  std::vector<double> scaled;
  double swing = 0;
  for (std::uint32_t seed = 1; seed <= 300; ++seed) {
    const scaling_variance::Result result = run(seed, 500, {4});
    scaled.push_back(result.rows[0].var_scaled);
    swing = result.rows[0].var_scaled_sd;
  }
  CHECK(swing == Approx(std::sqrt(3.5 / 500)).epsilon(1e-15));
  CHECK(mean_of(scaled) == Approx(1.0 - 1.0 / 500).margin(4 * swing / std::sqrt(300.0)));
  CHECK(std::sqrt(variance_of(scaled)) == Approx(swing).epsilon(0.2));
}

TEST_CASE("the histogram counts the largest width's products in bins a quarter of root d_k wide", "[ch02]") {
  const std::vector<std::size_t> widths{4, 16, 9, 16};
  const scaling_variance::Result result = run(3, 1000, widths);
  const scaling_variance::Histogram& histogram = result.histogram;
  CHECK(histogram.width == 16);
  // Its first occurrence: the second row's products, binned from −4 to 4 standard deviations.
  const std::vector<double> products = dot_products(3, 1000, widths)[1];
  std::vector<std::size_t> counts(32, 0);
  std::size_t below = 0, above = 0;
  for (const double x : products) {
    const double deviations = x / 4.0;  // √16 = 4
    if (deviations < -4.0) {
      ++below;
    } else if (deviations >= 4.0) {
      ++above;
    } else {
      ++counts[static_cast<std::size_t>(std::floor((deviations + 4.0) * 4.0))];
    }
  }
  CHECK(histogram.counts == counts);
  CHECK(histogram.below == below);
  CHECK(histogram.above == above);
  CHECK(std::accumulate(histogram.counts.begin(), histogram.counts.end(), std::size_t{0}) + histogram.below +
            histogram.above ==
        1000);
  // A standard normal lies beyond 4 deviations about 6 times in 100,000: hardly ever here.
  CHECK(histogram.below + histogram.above <= 2);
}

TEST_CASE("the flags read the experiment and refuse a run too large", "[ch02]") {
  const scaling_variance::Inputs defaults = read({});
  CHECK(defaults.seed == 1);
  CHECK(defaults.samples == 4000);
  CHECK(defaults.widths == std::vector<std::size_t>{2, 64, 512});
  const scaling_variance::Inputs own = read({"--seed", "4294967295", "--samples", "10", "--dk", "1,4,16,256,4096"});
  CHECK(own.seed == 4294967295u);
  CHECK(own.widths == std::vector<std::size_t>{1, 4, 16, 256, 4096});
  // 1,000,000 samples × 2 + 64 + 512 = 578,000,000 products, past 25,000,000.
  CHECK_THROWS_WITH(read({"--samples", "1000000"}),
                    Catch::StartsWith("--samples and --dk: 1000000 samples × 578 (the sum of --dk) is 578000000"));
  CHECK_THROWS_WITH(read({"--seed", "4294967296"}), Catch::StartsWith("--seed"));
  CHECK_THROWS_WITH(read({"--samples", "0"}), Catch::StartsWith("--samples"));
  CHECK_THROWS_WITH(read({"--samples", "1"}), Catch::StartsWith("--samples"));  // one product has no variance
  CHECK_THROWS_WITH(read({"--dk", "0"}), Catch::StartsWith("--dk"));
  CHECK_THROWS_WITH(read({"--dk", "100001"}), Catch::StartsWith("--dk"));
  CHECK_THROWS_WITH(read({"--dk", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"}), Catch::StartsWith("--dk"));
}

}  // namespace test_scaling_variance
