// Chapter 17's computation, tested in-process: precision::compute()'s counting
// to 1000 worked by hand (bfloat16's 8 significant bits stop it at 256);
// running_sum() against its recurrence written out here with the formats'
// rounding defined here (float by the C++ conversion, bfloat16 as 8 significant
// bits with ties to even), and against the sum of e^(s − M) in double; the rows'
// maximum, reference and normaliser error from their definitions; the finite
// differences' curves against e^x sinh(h)/h and (e^h − 1)/h, the float curve
// recomputed step by step, the spacing and the predicted step by hand; and the
// refusals. Every expected value has a reason of its own, not the program's
// output.
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/numpy_random.hpp"
#include "chapter_support.hpp"
#include "precision.hpp"
#include "program/usage_error.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_precision {

namespace {

using attention::NumberFormat;

// A number rounded to float: the C++ conversion, to nearest with ties to even.
double to_float(double x) { return static_cast<double>(static_cast<float>(x)); }

// A number rounded to bfloat16 (normal numbers): 8 significant bits, to nearest with ties to even (nearbyint in
// the default rounding mode).
double to_bfloat16(double x) {
  if (x == 0.0) return x;
  const int exponent = std::ilogb(x);
  return std::ldexp(std::nearbyint(std::ldexp(x, 7 - exponent)), exponent - 7);
}

double to(double x, NumberFormat format) {
  switch (format) {
    case NumberFormat::float64:
      return x;
    case NumberFormat::float32:
      return to_float(x);
    case NumberFormat::bfloat16:
      return to_bfloat16(x);
  }
  return x;
}

// The online running sum written out: L' = L e^(M − M') + e^(s − M'), the term rounded to the terms' format,
// e^(M − M'), the product and the sum to the sum's.
double running_sum_by_definition(const std::vector<double>& scores, const precision::Setup& setup) {
  double maximum = -std::numeric_limits<double>::infinity(), sum = 0.0;
  for (const double s : scores) {
    const double next = std::max(maximum, s);
    const double rescale = to(std::exp(maximum - next), setup.sum);
    sum = to(to(sum * rescale, setup.sum) + to(std::exp(s - next), setup.terms), setup.sum);
    maximum = next;
  }
  return sum;
}

std::vector<double> normal_scores(std::uint64_t seed, std::size_t n, double spread) {
  attention::NumpyGenerator generator(seed);
  std::vector<double> scores(n);
  for (double& score : scores) score = spread * generator.standard_normal();
  return scores;
}

precision::Inputs with_lengths(std::vector<Eigen::Index> lengths) {
  precision::Inputs inputs;
  inputs.lengths = std::move(lengths);
  return inputs;
}

precision::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<precision::Flags>("precision", "chapter 17", arguments);
}

}  // namespace

TEST_CASE("the rounding written here is the formats' on the book's examples", "[ch17]") {
  // The test's own roundings, before they judge the program: 1/3 in bfloat16 is 0.333984375 (171/512), 257 a tie
  // between 256 and 258 that goes to the even 256, 0.1 in float 13421773 / 2^27.
  CHECK(to_bfloat16(1.0 / 3.0) == 171.0 / 512.0);
  CHECK(to_bfloat16(257.0) == 256.0);
  CHECK(to_bfloat16(259.0) == 260.0);
  CHECK(to_float(0.1) == 13421773.0 / 134217728.0);
  CHECK(std::fegetround() == FE_TONEAREST);
}

TEST_CASE("counting to 1000 by adding 1: bfloat16 stops at 256", "[ch17]") {
  const precision::Result result = precision::compute(with_lengths({16}));
  REQUIRE(result.counting.size() == 3);
  CHECK(result.counting[0].format == NumberFormat::float64);
  CHECK(result.counting[1].format == NumberFormat::float32);
  CHECK(result.counting[2].format == NumberFormat::bfloat16);
  // Double and float hold every whole number up to 1000: no addition is lost. Their spacing at 1000 (in 512 …
  // 1024): 2^9 · 2^−52 and 2^9 · 2^−23.
  for (std::size_t f = 0; f < 2; ++f) {
    CHECK(result.counting[f].total == 1000.0);
    CHECK(result.counting[f].stuck_from == 0);
  }
  CHECK(result.counting[0].spacing_there == std::ldexp(1.0, 9 - 52));
  CHECK(result.counting[1].spacing_there == std::ldexp(1.0, 9 - 23));
  // bfloat16 holds every whole number to 256 = 2^8; above it, only even ones: 256 + 1 is a tie, to the even 256.
  // The 257th addition is the first that changes nothing, and every later one too.
  CHECK(result.counting[2].total == 256.0);
  CHECK(result.counting[2].stuck_from == 257);
  CHECK(result.counting[2].spacing_there == 2.0);
  // Counting nothing.
  precision::Inputs none = with_lengths({16});
  none.count = 0;
  for (const precision::Counting& counting : precision::compute(none).counting) {
    CHECK(counting.total == 0.0);
    CHECK(counting.stuck_from == 0);
    CHECK(counting.spacing_there == 0.0);
  }
}

TEST_CASE("the running sum in double is the sum of e to the score less the maximum", "[ch17]") {
  const std::vector<double> scores = normal_scores(17, 300, 2.0);
  const precision::RunningSum sum = precision::running_sum(scores, {NumberFormat::float64, NumberFormat::float64});
  const double maximum = *std::max_element(scores.begin(), scores.end());
  long double expected = 0.0L;
  for (const double s : scores) expected += std::exp(static_cast<long double>(s) - maximum);
  CHECK(sum.maximum == maximum);
  CHECK(sum.sum == Approx(static_cast<double>(expected)).epsilon(1e-13));
  // One score: its term is e^0 = 1, whatever the score.
  CHECK(precision::running_sum({-7.25}, {NumberFormat::bfloat16, NumberFormat::bfloat16}).sum == 1.0);
  CHECK_THROWS_AS(precision::running_sum({}, {}), std::invalid_argument);
}

TEST_CASE("each setup's running sum is its recurrence rounded as the formats define", "[ch17]") {
  const std::vector<double> scores = normal_scores(3, 2000, 1.0);
  for (const precision::Setup setup : {precision::Setup{NumberFormat::float32, NumberFormat::float32},
                                       precision::Setup{NumberFormat::bfloat16, NumberFormat::float32},
                                       precision::Setup{NumberFormat::bfloat16, NumberFormat::bfloat16},
                                       precision::Setup{NumberFormat::float32, NumberFormat::float64}}) {
    INFO("terms " << attention::format_name(setup.terms) << " sum " << attention::format_name(setup.sum));
    CHECK(precision::running_sum(scores, setup).sum == running_sum_by_definition(scores, setup));
  }
}

TEST_CASE("equal scores count by ones and a bfloat16 sum stops where counting does", "[ch17]") {
  const std::vector<double> equal(1000, 0.5);
  // Every term is e^0 = 1: the running sum counts.
  CHECK(precision::running_sum(equal, {NumberFormat::float64, NumberFormat::float64}).sum == 1000.0);
  CHECK(precision::running_sum(equal, {NumberFormat::bfloat16, NumberFormat::float32}).sum == 1000.0);
  CHECK(precision::running_sum(equal, {NumberFormat::bfloat16, NumberFormat::bfloat16}).sum == 256.0);
  // A bfloat16 sum in [2^k, 2^(k+1)) keeps multiples of 2^(k−7): from 256 on, terms no larger than 1 are lost,
  // and a new maximum only scales the sum down. However many scores, it stays at most 256.
  const std::vector<double> scores = normal_scores(1, 20000, 0.01);
  CHECK(precision::running_sum(scores, {NumberFormat::bfloat16, NumberFormat::bfloat16}).sum <= 256.0);
  CHECK(precision::running_sum(scores, {NumberFormat::float64, NumberFormat::float64}).sum > 18000.0);
}

TEST_CASE("each row is the first n scores against the double reference", "[ch17]") {
  precision::Inputs inputs = with_lengths({16, 1024, 16384});
  inputs.seed = 5;
  inputs.spread = 1.5;
  const precision::Result result = precision::compute(inputs);
  const std::vector<double> scores = normal_scores(5, 16384, 1.5);
  REQUIRE(result.rows.size() == 3);
  for (const precision::LengthRow& row : result.rows) {
    INFO("n = " << row.n);
    const std::vector<double> first(scores.begin(), scores.begin() + row.n);
    CHECK(row.reference.maximum == *std::max_element(first.begin(), first.end()));
    CHECK(row.reference.sum == running_sum_by_definition(first, {NumberFormat::float64, NumberFormat::float64}));
    REQUIRE(row.sums.size() == 3);
    for (std::size_t s = 0; s < 3; ++s) {
      const precision::RunningSum& sum = row.sums[s];
      CHECK(sum.sum == running_sum_by_definition(first, inputs.setups[s]));
      // The softmax's denominator e^M L against the double one: |e^M L / (e^M_ref L_ref) − 1|.
      const double ratio = std::exp(sum.maximum - row.reference.maximum) * sum.sum / row.reference.sum;
      CHECK(sum.normalizer_error == Approx(std::abs(ratio - 1.0)).margin(1e-14));
      // The weights e^(s − M) / L, added up in double: 1 / ratio.
      double weights_sum = 0.0;
      for (const double score : first) weights_sum += std::exp(score - sum.maximum) / sum.sum;
      CHECK(sum.weights_sum == Approx(weights_sum).epsilon(1e-12));
      // The spacing at L: L = m · 2^e with m in [1/2, 1), so L lies in [2^(e−1), 2^e), where a format with p
      // fraction bits holds numbers 2^(e − 1 − p) apart (p = 23 for float, 7 for bfloat16).
      int exponent = 0;
      std::frexp(sum.sum, &exponent);
      const int fraction_bits = inputs.setups[s].sum == NumberFormat::bfloat16 ? 7 : 23;
      CHECK(sum.spacing == std::ldexp(1.0, exponent - 1 - fraction_bits));
    }
    // A float sum of float terms loses at most about n · 2^−24 of L, relatively.
    CHECK(row.sums[0].normalizer_error < static_cast<double>(row.n) * std::ldexp(1.0, -24));
  }
  // A float sum of bfloat16 terms is off by no more than its terms are, 2^−8 each, and its own rounding.
  for (const precision::LengthRow& row : result.rows) {
    CHECK(row.sums[1].normalizer_error < std::ldexp(1.0, -8) + static_cast<double>(row.n) * std::ldexp(1.0, -24));
  }
  // At 16384 scores the bfloat16 sum has long stopped: from 128 on its spacing is 1, and every term below 1/2 is
  // lost, while the double sum goes on growing. Its denominator is less than half the double one.
  CHECK(result.rows[2].sums[2].sum < result.rows[2].reference.sum / 2);
  CHECK(result.rows[2].sums[2].normalizer_error > 0.5);
}

TEST_CASE("the central difference's curves against e to the x times sinh h over h", "[ch17]") {
  const precision::Result result = precision::compute(with_lengths({16}));
  // h = 10^(−k/4) for k = 2 … 48.
  REQUIRE(result.steps.size() == 47);
  CHECK(result.steps.front() == Approx(std::pow(10.0, -0.5)).epsilon(1e-15));
  CHECK(result.steps.back() == Approx(1e-12).epsilon(1e-15));
  REQUIRE(result.curves.size() == 3);
  const precision::StepCurve& double_curve = result.curves[0];
  CHECK(double_curve.at == 1.0);
  // (e^(x + h) − e^(x − h)) / 2h = e^x sinh(h) / h: its relative error sinh(h)/h − 1, where rounding is small.
  for (std::size_t k = 0; k < 8; ++k) {
    const double h = result.steps[k];
    CHECK(double_curve.errors[k] == Approx(std::sinh(h) / h - 1.0).epsilon(1e-6));
  }
  // The float curve, every number rounded to float as it is made.
  const precision::StepCurve& float_curve = result.curves[1];
  for (std::size_t k = 0; k < result.steps.size(); ++k) {
    const double h = result.steps[k];
    const double difference = to_float(to_float(std::exp(to_float(1.0 + h))) - to_float(std::exp(to_float(1.0 - h))));
    const double estimate = to_float(difference / to_float(2 * h));
    CHECK(float_curve.errors[k] == std::abs(estimate - std::exp(1.0)) / std::exp(1.0));
  }
  // The best step is the one of the smallest error; the root is (2^−p)^(1/3).
  const int bits[] = {52, 23, 7};
  for (std::size_t f = 0; f < 3; ++f) {
    const precision::StepCurve& curve = result.curves[f];
    const auto best =
        static_cast<std::size_t>(std::min_element(curve.errors.begin(), curve.errors.end()) - curve.errors.begin());
    CHECK(curve.best_error == curve.errors[best]);
    CHECK(curve.best_step == result.steps[best]);
    CHECK(curve.root == Approx(std::cbrt(std::ldexp(1.0, -bits[f]))).epsilon(1e-15));
  }
  // The spacing of one difference at x = 1, relative to e: e (in [2, 4)) is spaced 2^(1−p), 1 is spaced 2^−p, and
  // x + h and x − h are each off by half of that. The predicted step is (3/2 spacing)^(1/3).
  for (std::size_t f = 0; f < 3; ++f) {
    const double spacing = std::ldexp(1.0, 1 - bits[f]) / std::exp(1.0) + std::ldexp(1.0, -bits[f]);
    CHECK(result.curves[f].spacing == Approx(spacing).epsilon(1e-14));
    CHECK(result.curves[f].predicted_step == Approx(std::cbrt(1.5 * spacing)).epsilon(1e-14));
  }
}

TEST_CASE("the forward difference's curves against e to the h less one over h", "[ch17]") {
  precision::Inputs inputs = with_lengths({16});
  inputs.difference = precision::Difference::forward;
  inputs.at = 0.0;
  const precision::Result result = precision::compute(inputs);
  const precision::StepCurve& double_curve = result.curves[0];
  CHECK(double_curve.at == 0.0);
  // At x = 0: (e^h − 1) / h against e^0 = 1.
  for (std::size_t k = 0; k < 8; ++k) {
    const double h = result.steps[k];
    CHECK(double_curve.errors[k] == Approx(std::expm1(h) / h - 1.0).epsilon(1e-8));
  }
  // The bfloat16 curve, every number rounded as it is made.
  for (std::size_t k = 0; k < result.steps.size(); ++k) {
    const double h = result.steps[k];
    const double above = to_bfloat16(0.0 + h);
    const double difference = to_bfloat16(to_bfloat16(std::exp(above)) - 1.0);
    CHECK(result.curves[2].errors[k] == std::abs(to_bfloat16(difference / to_bfloat16(h)) - 1.0));
  }
  // At x = 0 only e^0 = 1 is rounded (spacing 2^−p at 1): the predicted step is (2 · 2^−p)^(1/2), the root 2^(−p/2).
  const int bits[] = {52, 23, 7};
  for (std::size_t f = 0; f < 3; ++f) {
    CHECK(result.curves[f].spacing == Approx(std::ldexp(1.0, -bits[f])).epsilon(1e-15));
    CHECK(result.curves[f].predicted_step == Approx(std::sqrt(std::ldexp(2.0, -bits[f]))).epsilon(1e-15));
    CHECK(result.curves[f].root == Approx(std::sqrt(std::ldexp(1.0, -bits[f]))).epsilon(1e-15));
  }
  // At x = 1 one argument, 1 + h, is rounded, off by half the spacing of 1: e^x spaced 2^(1−p) over e, and 2^−p / 2.
  inputs.at = 1.0;
  const precision::Result at_one = precision::compute(inputs);
  for (std::size_t f = 0; f < 3; ++f) {
    const double spacing = std::ldexp(1.0, 1 - bits[f]) / std::exp(1.0) + std::ldexp(1.0, -bits[f]) / 2;
    CHECK(at_one.curves[f].spacing == Approx(spacing).epsilon(1e-14));
    CHECK(at_one.curves[f].predicted_step == Approx(std::sqrt(2 * spacing)).epsilon(1e-14));
  }
}

TEST_CASE("compute and the flags refuse what does not fit", "[ch17]") {
  precision::Inputs inputs = with_lengths({});
  CHECK_THROWS_AS(precision::compute(inputs), std::invalid_argument);
  inputs = with_lengths({16});
  inputs.spread = 0.0;
  CHECK_THROWS_AS(precision::compute(inputs), std::invalid_argument);
  inputs = with_lengths({16});
  inputs.at = std::numeric_limits<double>::infinity();
  CHECK_THROWS_AS(precision::compute(inputs), std::invalid_argument);
  const precision::Inputs defaults = read({});
  CHECK(defaults.count == 1000);
  CHECK(defaults.lengths == std::vector<Eigen::Index>{16, 64, 256, 1024, 4096, 16384, 65536});
  CHECK(defaults.difference == precision::Difference::central);
  const precision::Inputs chosen =
      read({"--count", "300", "--n", "8,32", "--spread", "2.5", "--at", "-3", "--difference", "forward"});
  CHECK(chosen.count == 300);
  CHECK(chosen.lengths == std::vector<Eigen::Index>{8, 32});
  CHECK(chosen.spread == 2.5);
  CHECK(chosen.at == -3.0);
  CHECK(chosen.difference == precision::Difference::forward);
  CHECK_THROWS_WITH(read({"--count", "10000001"}), Catch::StartsWith("--count"));
  CHECK_THROWS_WITH(read({"--n", "0"}), Catch::StartsWith("--n"));
  CHECK_THROWS_WITH(read({"--spread", "0"}), Catch::StartsWith("--spread: expected a number above 0 and at most 100"));
  CHECK_THROWS_WITH(read({"--spread", "nan"}), Catch::StartsWith("--spread"));
  CHECK_THROWS_WITH(read({"--at", "21"}), Catch::StartsWith("--at: expected a number from -20 to 20"));
  CHECK_THROWS_WITH(read({"--difference", "backward"}), Catch::StartsWith("--difference: expected central or forward"));
}

}  // namespace test_precision
