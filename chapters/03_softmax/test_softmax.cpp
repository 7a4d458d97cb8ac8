// Chapter 3's computation, tested in-process: softmax::compute() on the toy, on
// inputs with a known answer, and on inputs it must refuse. Every expected value
// has a reason of its own (a hand calculation, a tie, a property of softmax),
// not the program's output.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "chapter_support.hpp"
#include "program/command_line.hpp"
#include "program/usage_error.hpp"
#include "softmax.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_softmax {

namespace {

using attention::Matrix;
using chapter_support::random_matrix;
using chapter_support::tokens_of;
using chapter_support::toy;

// Queries, keys and values with numbered labels, as the flags would give them.
softmax::ToyResult toy_result(const program::AttentionInputs& tokens, bool causal = false) {
  softmax::Inputs inputs;
  inputs.toy.tokens = tokens;
  inputs.toy.causal = causal;
  return softmax::compute(inputs).toy;
}

softmax::SaturationResult saturation_result(std::vector<double> scores, double divide, double add) {
  softmax::Inputs inputs;
  inputs.demonstration = softmax::Demonstration::saturation;
  inputs.saturation.scores =
      Eigen::Map<const Eigen::RowVectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size()));
  inputs.saturation.divide = divide;
  inputs.saturation.add = add;
  inputs.saturation.divide_text = std::to_string(divide);
  return softmax::compute(inputs).saturation;
}

// softmax of one row by its definition, e^s / Σ e^s (the scores here are small).
Eigen::RowVectorXd softmax_by_definition(const Eigen::RowVectorXd& scores) {
  const Eigen::RowVectorXd exponentials = scores.array().exp().matrix();
  return exponentials / exponentials.sum();
}

// The message of the UsageError compute() throws for @p inputs ("" if none).
std::string refusal(const softmax::Inputs& inputs) {
  try {
    softmax::compute(inputs);
  } catch (const program::UsageError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the toy's scores are the dot products worked by hand", "[ch03]") {
  const softmax::ToyResult result = toy_result(toy());
  // cat = (1, 0), eat = (0, 1), fish = (1, 1) against the keys (2, 0), (0, 1), (1, 1).
  Matrix by_hand(3, 3);
  by_hand << 2, 0, 1, 0, 1, 1, 2, 1, 2;
  CHECK(result.scaled.steps.scores == by_hand);
  CHECK(result.d_k == 2);
  CHECK(result.sqrt_d_k == Approx(std::sqrt(2.0)).epsilon(1e-15));
  CHECK(result.scaled.steps.scaled_scores.isApprox(by_hand / std::sqrt(2.0), 1e-15));
  // Without the scale the scores go into softmax unchanged.
  CHECK(result.unscaled.steps.scaled_scores == by_hand);
}

TEST_CASE("the toy's weights are e to the scaled score over the row's sum", "[ch03]") {
  const softmax::ToyResult result = toy_result(toy());
  const Matrix& scaled_scores = result.scaled.steps.scaled_scores;
  for (Eigen::Index i = 0; i < 3; ++i) {
    const Eigen::RowVectorXd expected = softmax_by_definition(scaled_scores.row(i));
    CHECK(Matrix(result.scaled.steps.weights.row(i)).isApprox(Matrix(expected), 1e-14));
    CHECK(result.scaled.row_sums(i) == Approx(1.0).epsilon(1e-15));
    CHECK(result.scaled.exponential_sums(i) == Approx(scaled_scores.row(i).array().exp().sum()).epsilon(1e-14));
  }
  // Equal scores give equal weights, bit for bit: eat scores eat and fish 1 each,
  // fish scores cat and fish 2 each.
  CHECK(result.scaled.steps.weights(1, 1) == result.scaled.steps.weights(1, 2));
  CHECK(result.scaled.steps.weights(2, 0) == result.scaled.steps.weights(2, 2));
  // Nothing is masked: no weight is 0.
  CHECK(result.scaled.zero_weights == 0);
  CHECK(result.scaled.smallest_weight > 0.0);
  // cat's scores 2, 0, 1: cat gets the largest weight, eat the smallest of the whole matrix.
  CHECK(result.largest_weight_on[0] == "k1");
  CHECK(result.scaled.smallest_row == 0);
  CHECK(result.scaled.smallest_column == 1);
}

TEST_CASE("the toy's output is the weighted sum of the values", "[ch03]") {
  const program::AttentionInputs tokens = toy();
  const softmax::ToyResult result = toy_result(tokens);
  for (const softmax::Pass* pass : {&result.scaled, &result.unscaled}) {
    const Matrix& w = pass->steps.weights;
    for (Eigen::Index i = 0; i < 3; ++i) {
      // v_cat = (1, 0), v_eat = (0, 1), v_fish = (0.5, 0.5).
      CHECK(pass->steps.output(i, 0) == Approx(w(i, 0) + 0.5 * w(i, 2)).epsilon(1e-15));
      CHECK(pass->steps.output(i, 1) == Approx(w(i, 1) + 0.5 * w(i, 2)).epsilon(1e-15));
      // Every value's entries add up to 1, and the weights do: so do the output's.
      CHECK(pass->steps.output.row(i).sum() == Approx(1.0).epsilon(1e-15));
    }
  }
  // Without the scale the differences between scores are larger: the largest weight of each row grows.
  for (Eigen::Index i = 0; i < 3; ++i) {
    CHECK(result.unscaled.steps.weights.row(i).maxCoeff() > result.scaled.steps.weights.row(i).maxCoeff());
  }
  // --no-scale only chooses which pass is the main one.
  softmax::Inputs no_scale;
  no_scale.toy.tokens = tokens;
  no_scale.toy.scale = false;
  const softmax::ToyResult unscaled_main = softmax::compute(no_scale).toy;
  CHECK(unscaled_main.main_pass().steps.weights == result.unscaled.steps.weights);
  CHECK(result.main_pass().steps.weights == result.scaled.steps.weights);
}

TEST_CASE("the causal toy: each token weighs only itself and the tokens before it", "[ch03]") {
  const softmax::ToyResult result = toy_result(toy(), /*causal=*/true);
  const Matrix& w = result.scaled.steps.weights;
  // Above the diagonal the weights are exactly 0: three of them.
  CHECK(w(0, 1) == 0.0);
  CHECK(w(0, 2) == 0.0);
  CHECK(w(1, 2) == 0.0);
  CHECK(result.scaled.zero_weights == 3);
  CHECK(result.unscaled.zero_weights == 3);
  // cat sees only itself: weight 1, and its output is v_cat, bit for bit.
  CHECK(w(0, 0) == 1.0);
  const Matrix values = toy().values;
  CHECK(result.scaled.steps.output.row(0) == values.row(0));
  // eat sees cat (score 0) and eat (score 1): softmax of (0, 1/√2).
  const Eigen::RowVectorXd eat = softmax_by_definition(Eigen::RowVector2d(0.0, 1.0 / std::sqrt(2.0)));
  CHECK(w(1, 0) == Approx(eat(0)).epsilon(1e-15));
  CHECK(w(1, 1) == Approx(eat(1)).epsilon(1e-15));
  // fish sees all three: its row is the row without the mask.
  CHECK(Matrix(w.row(2)).isApprox(Matrix(toy_result(toy()).scaled.steps.weights.row(2)), 1e-15));
  for (Eigen::Index i = 0; i < 3; ++i) CHECK(result.scaled.row_sums(i) == Approx(1.0).epsilon(1e-15));
}

TEST_CASE("reordering the keys with their values reorders the weights and leaves the output", "[ch03]") {
  std::mt19937_64 generator(303);
  const Matrix queries = random_matrix(5, 4, generator);
  const Matrix keys = random_matrix(6, 4, generator);
  const Matrix values = random_matrix(6, 3, generator);
  Eigen::PermutationMatrix<Eigen::Dynamic> order(6);
  order.indices() << 3, 0, 5, 1, 4, 2;
  const softmax::ToyResult result = toy_result(tokens_of(queries, keys, values));
  const softmax::ToyResult reordered = toy_result(tokens_of(queries, order * keys, order * values));
  CHECK(reordered.scaled.steps.weights.isApprox(Matrix(result.scaled.steps.weights * order.transpose()), 1e-14));
  CHECK(reordered.scaled.steps.output.isApprox(result.scaled.steps.output, 1e-13));
  // Reordering the queries reorders the rows of the output.
  Eigen::PermutationMatrix<Eigen::Dynamic> query_order(5);
  query_order.indices() << 4, 2, 0, 3, 1;
  const softmax::ToyResult queries_reordered = toy_result(tokens_of(query_order * queries, keys, values));
  CHECK(queries_reordered.scaled.steps.output.isApprox(Matrix(query_order * result.scaled.steps.output), 1e-14));
  // And on random inputs every row still sums to 1, every weight in (0, 1].
  for (Eigen::Index i = 0; i < 5; ++i) {
    CHECK(result.scaled.row_sums(i) == Approx(1.0).epsilon(1e-14));
    CHECK(result.scaled.steps.weights.row(i).minCoeff() > 0.0);
    CHECK(result.scaled.steps.weights.row(i).maxCoeff() <= 1.0);
  }
}

TEST_CASE("scaling by the square root of d_k divides every score by 2 when d_k is 4", "[ch03]") {
  std::mt19937_64 generator(4);
  const softmax::ToyResult result = toy_result(
      tokens_of(random_matrix(3, 4, generator), random_matrix(3, 4, generator), random_matrix(3, 2, generator)));
  CHECK(result.sqrt_d_k == 2.0);
  CHECK(result.scaled.steps.scaled_scores == result.unscaled.steps.scaled_scores / 2.0);
}

TEST_CASE("the rounding boundary: half of 0.001 lies on it and 0.0006 above it", "[ch03]") {
  // One query scoring 0 against two keys: weights 1/2 each, so the output is half the first value.
  Matrix query(1, 1), keys(2, 1), values(2, 2);
  query << 0;
  keys << 0, 0;
  values << 0.001, 0.0012, 0, 0;
  const softmax::ToyResult result = toy_result(tokens_of(query, keys, values));
  CHECK(result.scaled.steps.weights == Matrix::Constant(1, 2, 0.5));
  const softmax::Boundaries& boundary = result.hand_rounded.full_output_boundary;
  // 0.0005 is the midpoint between the roundings 0.000 and 0.001 ...
  CHECK(boundary.side[0][0] == "on");
  CHECK(boundary.nearest(0, 0) == Approx(0.0005).epsilon(1e-12));
  // ... and 0.0006 is 0.0001 above it.
  CHECK(boundary.side[0][1] == "above");
  CHECK(boundary.nearest(0, 1) == Approx(0.0005).epsilon(1e-12));
  CHECK(boundary.distance(0, 1) == Approx(0.0001).epsilon(1e-9));
  CHECK(result.hand_rounded.decimals == 3);
  // e^0 = 1 twice: the rounded terms and the rounded sum agree, no step apart.
  CHECK(result.hand_rounded.exponential_sums(0) == 2.0);
  CHECK(result.hand_rounded.exponential_sum_steps_off(0) == 0.0);
}

TEST_CASE("saturation: dividing the scores lets slot two's weight move", "[ch03]") {
  // The hand-worked lesson's row 8, 4, 0, divided by 8, with 0.5 added to slot two.
  const softmax::SaturationResult result = saturation_result({8, 4, 0}, 8, 0.5);
  CHECK(result.divided == Eigen::RowVector3d(1.0, 0.5, 0.0));  // exact: divisions by a power of 2
  CHECK(result.scores_added == Eigen::RowVector3d(8.0, 4.5, 0.0));
  CHECK(result.divided_added == Eigen::RowVector3d(1.0, 1.0, 0.0));
  CHECK(Matrix(result.weights_large).isApprox(Matrix(softmax_by_definition(Eigen::RowVector3d(8, 4, 0))), 1e-14));
  CHECK(Matrix(result.weights_divided).isApprox(Matrix(softmax_by_definition(Eigen::RowVector3d(1, 0.5, 0))), 1e-14));
  // Slot two moves further on the divided side: the large side is saturated.
  CHECK(result.large_change > 0.0);
  CHECK(result.divided_change > result.large_change);
  CHECK(result.divided_change_over_large_change > 1.0);
  // After adding, the divided row is 1, 1, 0: slots one and two tie, bit for bit.
  CHECK(result.largest_divided_added.slots == std::vector<Eigen::Index>{1, 2});
  CHECK(result.weights_divided_added(0) == result.weights_divided_added(1));
  CHECK(result.largest_large.slots == std::vector<Eigen::Index>{1});
  // The sensitivity w₂(1 − w₂) is largest at w₂ = 1/2 and never above 1/4.
  CHECK(result.sensitivity_divided > result.sensitivity_large);
  CHECK(result.sensitivity_divided <= 0.25);
  CHECK(result.sensitivity_divided_per_unit == Approx(result.sensitivity_divided / 8).epsilon(1e-15));
}

TEST_CASE("saturation: the lead is the highest score minus the next highest wherever they stand", "[ch03]") {
  CHECK(saturation_result({8, 4, 0}, 8, 0.5).lead == 4.0);
  CHECK(saturation_result({1, 5, 3}, 8, 0.5).lead == 2.0);  // the highest is not in slot one
  CHECK(saturation_result({-2, -7}, 8, 0.5).lead == 5.0);   // negative scores
  CHECK(saturation_result({3, 0, 3}, 8, 0.5).lead == 0.0);  // a tie for the top
}

TEST_CASE("saturation: the textbook formula gives NaN where e to the s overflows and the stable one does not",
          "[ch03]") {
  const softmax::SaturationResult result = saturation_result({1000, 0, -1000}, 8, 0.5);
  CHECK(std::isinf(result.exponentials(0)));
  CHECK(std::isnan(result.textbook(0)));
  // e^(0 − 1000) underflows to exactly 0: the stable weights are 1, 0, 0 exactly.
  CHECK(result.weights_large == Eigen::RowVector3d(1.0, 0.0, 0.0));
  CHECK(result.shifted_exponentials == Eigen::RowVector3d(1.0, 0.0, 0.0));
  // On small scores the two formulas agree.
  const softmax::SaturationResult small = saturation_result({1, 2, 3}, 8, 0.5);
  CHECK(Matrix(small.textbook).isApprox(Matrix(small.weights_large), 1e-15));
}

TEST_CASE("saturation: the sweep runs from 0 to 2 or to the added amount if it lies beyond", "[ch03]") {
  const softmax::SaturationResult result = saturation_result({8, 4, 0}, 8, 0.5);
  REQUIRE(result.sweep.size() == 41);
  CHECK(result.sweep.front().add == 0.0);
  CHECK(result.sweep.back().add == 2.0);
  CHECK(result.sweep.front().weights_large == result.weights_large);  // adding 0 changes nothing
  CHECK(result.sweep[10].add == Approx(0.5).epsilon(1e-15));          // 41 points: steps of 0.05
  CHECK(Matrix(result.sweep[10].weights_divided).isApprox(Matrix(result.weights_divided_added), 1e-14));
  for (std::size_t point = 1; point < result.sweep.size(); ++point) {  // slot two's weight grows with its score
    CHECK(result.sweep[point].weights_divided(1) > result.sweep[point - 1].weights_divided(1));
  }
  const softmax::SaturationResult beyond = saturation_result({8, 4, 0}, 8, 3);
  CHECK(beyond.sweep.back().add == 3.0);
  const softmax::SaturationResult below = saturation_result({8, 4, 0}, 8, -1);
  CHECK(below.sweep.front().add == -1.0);
}

TEST_CASE("no flags give the toy and the saturation flags the demo", "[ch03]") {
  const auto read = [](const std::vector<std::string>& arguments) {
    return chapter_support::read_flags<softmax::Flags>("softmax", "chapter 3", arguments);
  };
  const softmax::Inputs toy_inputs = read({});
  CHECK(toy_inputs.demonstration == softmax::Demonstration::toy);
  CHECK(toy_inputs.toy.tokens.queries == toy().queries);
  CHECK(toy_inputs.toy.tokens.keys == toy().keys);
  CHECK(toy_inputs.toy.tokens.values == toy().values);
  CHECK(toy_inputs.toy.tokens.query_labels == std::vector<std::string>{"cat", "eat", "fish"});
  const softmax::Inputs demo = read({"--add", "1"});
  CHECK(demo.demonstration == softmax::Demonstration::saturation);
  CHECK(demo.saturation.scores == Eigen::RowVector3d(8, 4, 0));  // the lesson's row, the default
  CHECK(demo.saturation.divide == 8.0);
  CHECK(demo.saturation.add == 1.0);
  CHECK_THROWS_WITH(read({"--divide", "0"}), Catch::StartsWith("--divide is 0"));
  CHECK_THROWS_WITH(read({"--scores", "8"}), Catch::StartsWith("--scores: one number"));
  CHECK_THROWS_WITH(read({"--scores", "1,2", "--causal"}), Catch::Contains("excludes"));
}

TEST_CASE("compute refuses what would overflow and names the flag", "[ch03]") {
  constexpr double largest = std::numeric_limits<double>::max();
  // Eleven equal weights of 1/11, each rounded up, times the largest double: the sum rounds past it.
  softmax::Inputs eleven;
  eleven.toy.tokens = tokens_of(Matrix::Zero(1, 1), Matrix::Zero(11, 1), Matrix::Constant(11, 1, largest));
  CHECK_THAT(refusal(eleven), Catch::StartsWith("--v: the weighted sum of the values overflows"));

  softmax::Inputs causal;
  causal.toy.tokens = tokens_of(Matrix::Zero(3, 1), Matrix::Zero(2, 1), Matrix::Zero(2, 1));
  causal.toy.causal = true;
  CHECK_THAT(refusal(causal), Catch::StartsWith("--causal: a causal mask needs one query per key"));

  const auto saturation = [](std::vector<double> scores, double divide, double add) {
    softmax::Inputs inputs;
    inputs.demonstration = softmax::Demonstration::saturation;
    inputs.saturation.scores =
        Eigen::Map<const Eigen::RowVectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size()));
    inputs.saturation.divide = divide;
    inputs.saturation.add = add;
    inputs.saturation.divide_text = "x";
    return inputs;
  };
  CHECK_THAT(refusal(saturation({1e308, 1.7e308}, 8, 1e308)),
             Catch::StartsWith("--add: slot two of --scores plus --add"));
  CHECK_THAT(refusal(saturation({1e10, 0}, 1e-300, 0.5)),
             Catch::StartsWith("--divide: --scores divided by x overflows"));
  // Equal scores: w₂(1 − w₂) = 1/4, divided by the smallest positive double, is past the largest.
  CHECK_THAT(refusal(saturation({0, 0}, std::numeric_limits<double>::denorm_min(), 0.5)),
             Catch::StartsWith("--divide: x is so close to 0"));
  // Within range, no refusal.
  CHECK(refusal(saturation({8, 4, 0}, 8, 0.5)).empty());
}

}  // namespace test_softmax
