// Chapter 4's computation, tested in-process: masking::compute() under each
// mask, held to what a mask means (a masked weight is exactly 0; masking keys
// is attention without them), to the leak of a finite fill worked by hand, and
// to the refusals its header documents.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "chapter_support.hpp"
#include "masking.hpp"
#include "program/command_line.hpp"
#include "program/usage_error.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_masking {

namespace {

using attention::Matrix;
using chapter_support::random_matrix;
using chapter_support::tokens_of;
using chapter_support::toy;

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

masking::Inputs inputs_of(program::AttentionInputs tokens, const std::string& kind, Eigen::Index number = 0,
                          double fill = minus_infinity) {
  masking::Inputs inputs;
  inputs.tokens = std::move(tokens);
  inputs.mask = {kind, number};
  inputs.mask_text = kind == "band" || kind == "pad" ? fmt::format("{}:{}", kind, number) : kind;
  inputs.fill = fill;
  return inputs;
}

masking::Result masked(program::AttentionInputs tokens, const std::string& kind, Eigen::Index number = 0,
                       double fill = minus_infinity) {
  return masking::compute(inputs_of(std::move(tokens), kind, number, fill));
}

const masking::Leak& leak_for(const masking::Result& result, double fill) {
  for (const masking::Leak& leak : result.leaks) {
    if (leak.fill == fill) return leak;
  }
  FAIL("no leak for the fill " << fill);
  throw std::logic_error("unreachable");
}

// The message of the UsageError compute() throws for @p inputs ("" if none).
std::string refusal(const masking::Inputs& inputs) {
  try {
    masking::compute(inputs);
  } catch (const program::UsageError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the causal toy: every weight above the diagonal is exactly 0 and each row sums to 1", "[ch04]") {
  const masking::Result result = masked(toy(), "causal");
  const Matrix& w = result.steps.weights;
  for (Eigen::Index i = 0; i < 3; ++i) {
    for (Eigen::Index j = i + 1; j < 3; ++j) CHECK(w(i, j) == 0.0);
    for (Eigen::Index j = 0; j <= i; ++j) CHECK(w(i, j) > 0.0);
    CHECK(result.row_sums(0, i) == Approx(1.0).epsilon(1e-15));
  }
  CHECK(result.allowed_count == 6);
  CHECK(result.fully_masked_rows.empty());
  // cat may look at itself only: weight 1, and its output is v_cat, bit for bit.
  REQUIRE(result.only_keys.size() == 1);
  CHECK(result.only_keys[0].query == 0);
  CHECK(result.only_keys[0].key == 0);
  CHECK(result.only_keys[0].output_is_value);
  CHECK(w(0, 0) == 1.0);
  // eat sees cat (score 0) and eat (score 1): e^(1/√2) against e^0.
  const double e = std::exp(1.0 / std::sqrt(2.0));
  CHECK(w(1, 0) == Approx(1.0 / (1.0 + e)).epsilon(1e-15));
  CHECK(w(1, 1) == Approx(e / (1.0 + e)).epsilon(1e-15));
}

TEST_CASE("a causal output is attention over the tokens so far", "[ch04]") {
  std::mt19937_64 generator(404);
  const Matrix queries = random_matrix(6, 3, generator);
  const Matrix keys = random_matrix(6, 3, generator);
  const Matrix values = random_matrix(6, 2, generator);
  const masking::Result causal = masked(tokens_of(queries, keys, values), "causal");
  for (Eigen::Index i = 0; i < 6; ++i) {
    // Query i alone, with no mask, against keys 1 … i + 1 only.
    const masking::Result prefix =
        masked(tokens_of(queries.row(i), keys.topRows(i + 1), values.topRows(i + 1)), "none");
    CHECK(Matrix(causal.steps.output.row(i)).isApprox(prefix.steps.output, 1e-14));
    CHECK(Matrix(causal.steps.weights.row(i).head(i + 1)).isApprox(prefix.steps.weights, 1e-14));
  }
}

TEST_CASE("padding keys is attention without them", "[ch04]") {
  std::mt19937_64 generator(44);
  const Matrix queries = random_matrix(4, 3, generator);
  const Matrix keys = random_matrix(5, 3, generator);
  const Matrix values = random_matrix(5, 2, generator);
  const masking::Result padded = masked(tokens_of(queries, keys, values), "pad", 3);
  const masking::Result without = masked(tokens_of(queries, keys.topRows(3), values.topRows(3)), "none");
  CHECK(padded.steps.output.isApprox(without.steps.output, 1e-14));
  CHECK(Matrix(padded.steps.weights.leftCols(3)).isApprox(without.steps.weights, 1e-14));
  CHECK(padded.steps.weights.rightCols(2) == Matrix::Zero(4, 2));  // exactly 0
  CHECK(padded.allowed_count == 4 * 3);
  CHECK(padded.mask_description == "pad:3: keys 1 … 3 are real, keys 4 … 5 are padding");
}

TEST_CASE("a band lets each token see its neighbours within the radius and no further", "[ch04]") {
  std::mt19937_64 generator(41);
  const program::AttentionInputs tokens =
      tokens_of(random_matrix(5, 2, generator), random_matrix(5, 2, generator), random_matrix(5, 2, generator));
  const masking::Result band = masked(tokens, "band", 1);
  for (Eigen::Index i = 0; i < 5; ++i) {
    for (Eigen::Index j = 0; j < 5; ++j) {
      CHECK(band.allowed(i, j) == (std::abs(i - j) <= 1));
      if (std::abs(i - j) > 1) CHECK(band.steps.weights(i, j) == 0.0);
    }
    CHECK(band.row_sums(0, i) == Approx(1.0).epsilon(1e-15));
  }
  CHECK(band.allowed_count == 5 + 2 * 4);
  // A band as wide as the sentence masks nothing; band:0 gives each token its own value.
  CHECK(masked(tokens, "band", 4).steps.output.isApprox(masked(tokens, "none").steps.output, 1e-15));
  const masking::Result own = masked(tokens, "band", 0);
  CHECK(own.steps.output == tokens.values);
  CHECK(own.only_keys.size() == 5);
}

TEST_CASE("with every key masked a query gets weights of 0 and the zero vector not NaN", "[ch04]") {
  const masking::Result result = masked(toy(), "pad", 0);
  CHECK(result.fully_masked_rows == std::vector<Eigen::Index>{0, 1, 2});
  CHECK(result.steps.weights == Matrix::Zero(3, 3));
  CHECK(result.steps.output == Matrix::Zero(3, 2));
  CHECK(result.row_sums == Matrix::Zero(1, 3));
  CHECK(result.allowed_count == 0);
  // No row has both an allowed and a masked key: no gap to speak of.
  for (const masking::Leak& leak : result.leaks) {
    CHECK(leak.gap_rows == 0);
    CHECK_FALSE(leak.smallest_gap.has_value());
  }
}

TEST_CASE("the leak of a finite fill on the causal toy worked by hand", "[ch04]") {
  const masking::Result result = masked(toy(), "causal");
  REQUIRE(result.leaks.size() == 4);  // −∞, −1e9, −1000, −10
  // −∞ is the reference: nothing leaks, and its gap is infinite.
  const masking::Leak& exact = leak_for(result, minus_infinity);
  CHECK(exact.largest_masked_weight == 0.0);
  CHECK(exact.query == -1);
  CHECK(exact.largest_output_change == 0.0);
  CHECK(exact.smallest_gap == std::numeric_limits<double>::infinity());
  // e^(−1000 − s) is below the smallest double: −1e9 and −1000 leak exactly nothing either.
  for (const double fill : {-1e9, -1000.0}) {
    const masking::Leak& leak = leak_for(result, fill);
    CHECK(leak.largest_masked_weight == 0.0);
    CHECK(leak.largest_output_change == 0.0);
  }
  // −10 leaks most where the allowed scores are lowest: eat, whose allowed scores
  // are 0 and 1/√2, onto fish: e^−10 / (e^0 + e^(1/√2) + e^−10).
  const masking::Leak& ten = leak_for(result, -10.0);
  const double e = std::exp(1.0 / std::sqrt(2.0));
  CHECK(ten.largest_masked_weight == Approx(std::exp(-10.0) / (1.0 + e + std::exp(-10.0))).epsilon(1e-13));
  CHECK(ten.query == 1);
  CHECK(ten.key == 2);
  CHECK(ten.gap_rows == 2);  // cat and eat; fish sees every key
  REQUIRE(ten.smallest_gap.has_value());
  CHECK(*ten.smallest_gap == Approx(10.0 + 1.0 / std::sqrt(2.0)).epsilon(1e-15));
  CHECK(ten.largest_masked_weight <= std::exp(-*ten.smallest_gap));  // the bound the chapter states
  CHECK(ten.largest_output_change > 0.0);
  // A fill that is none of the four is compared too, and is the one --fill chose.
  const masking::Result five = masked(toy(), "causal", 0, -5.0);
  CHECK(five.leaks.size() == 5);
  CHECK(five.this_fill().fill == -5.0);
  CHECK(five.this_fill().largest_masked_weight > ten.largest_masked_weight);
}

TEST_CASE("where e to the x becomes exactly 0 in double and in float", "[ch04]") {
  const masking::Underflow facts = masked(toy(), "causal").underflow;
  CHECK(facts.exp_of_minus_1000 == 0.0);
  CHECK(facts.exp_of_minus_10 > 0.0);
  CHECK(facts.double_smallest_positive == std::numeric_limits<double>::denorm_min());
  CHECK(std::exp(facts.double_exp_is_zero_below - 0.1) == 0.0);
  CHECK(std::exp(facts.double_exp_is_zero_below + 0.1) > 0.0);
  CHECK(facts.double_underflow_gap == -facts.double_exp_is_zero_below);
  CHECK(facts.float_smallest_positive == static_cast<double>(std::numeric_limits<float>::denorm_min()));
  CHECK(std::exp(static_cast<float>(-facts.float_underflow_gap) - 0.1f) == 0.0f);
  CHECK(std::exp(static_cast<float>(-facts.float_underflow_gap) + 0.1f) > 0.0f);
}

TEST_CASE("masking refuses what it cannot compute and names the flag", "[ch04]") {
  // A score of 1e400 overflows a double.
  CHECK_THAT(refusal(
                 inputs_of(tokens_of(Matrix::Constant(1, 1, 1e200), Matrix::Constant(1, 1, 1e200), Matrix::Ones(1, 1)),
                           "none")),
             Catch::StartsWith("--q, --k: the scores cannot be computed"));
  // Weights that sum to 1 only after rounding take the largest double past itself.
  constexpr double largest = std::numeric_limits<double>::max();
  Matrix queries(2, 1), keys(2, 1);
  queries << 0.1, 0.2;
  keys << 0.3, 0.1;
  CHECK_THAT(refusal(inputs_of(tokens_of(queries, keys, Matrix::Constant(2, 1, largest)), "none")),
             Catch::StartsWith("--v: the weighted sum of the values overflows"));
  // The fill 1e300 puts cat's weight on the masked keys: its output moves by more than a double holds.
  Matrix values(3, 1);
  values << 1.7e308, -1.7e308, -1.7e308;
  CHECK_THAT(refusal(inputs_of(tokens_of(toy().queries, toy().keys, values), "causal", 0, 1e300)),
             Catch::StartsWith("--v: with the fill 1e300"));
  CHECK(refusal(inputs_of(tokens_of(toy().queries, toy().keys, values), "causal")).empty());
  // From scores of 1.5e308 down to the fill −1.5e308 is further than a double reaches.
  CHECK_THAT(refusal(inputs_of(tokens_of(Matrix::Constant(3, 1, 1.5e308), Matrix::Ones(3, 1), Matrix::Ones(3, 1)),
                               "causal", 0, -1.5e308)),
             Catch::StartsWith("--fill: the gap from the scores down to the fill -1.5e308 overflows"));
}

TEST_CASE("the flags read the mask and refuse one that does not fit", "[ch04]") {
  const auto read = [](const std::vector<std::string>& arguments) {
    return chapter_support::read_flags<masking::Flags>("masking", "chapter 4", arguments);
  };
  const masking::Inputs defaults = read({});
  CHECK(defaults.mask.kind == "causal");
  CHECK(defaults.fill == minus_infinity);
  CHECK(defaults.tokens.queries == toy().queries);
  const masking::Inputs band = read({"--mask", " band:2 ", "--fill", "-10"});
  CHECK(band.mask.kind == "band");
  CHECK(band.mask.number == 2);
  CHECK(band.mask_text == "band:2");
  CHECK(band.fill == -10.0);
  CHECK_THROWS_WITH(read({"--mask", "diagonal"}), Catch::StartsWith("--mask: 'diagonal' is not a mask"));
  CHECK_THROWS_WITH(read({"--mask", "pad:4"}), Catch::StartsWith("--mask: the number N of real keys in pad:N"));
  CHECK_THROWS_WITH(read({"--mask", "causal", "--k", "1,0;0,1", "--v", "1;2"}),
                    Catch::StartsWith("--mask: causal compares positions"));
  CHECK_THROWS_WITH(read({"--fill", "nan"}), Catch::StartsWith("--fill is 'nan'"));
}

}  // namespace test_masking
