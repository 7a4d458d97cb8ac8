// Chapter 5's computation, tested in-process: multi_head::compute()'s heads
// against attention computed here from its definition, the concatenation and
// W^O against the sum of the heads through their blocks, the draws against the
// generator's stream read by hand, the costs against the chapter's formulas, and
// the flags' refusals. Every expected value has a reason of its own, not the
// program's output.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "attention/mulberry32.hpp"
#include "chapter_support.hpp"
#include "multi_head.hpp"
#include "program/command_line.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_multi_head {

namespace {

using attention::Matrix;

multi_head::Result run(std::uint32_t seed, Eigen::Index d_model, Eigen::Index heads, Eigen::Index tokens,
                       bool sizes_only = false) {
  multi_head::Inputs inputs;
  inputs.seed = seed;
  inputs.d_model = d_model;
  inputs.heads = heads;
  inputs.tokens.clear();
  for (Eigen::Index i = 0; i < tokens; ++i) inputs.tokens.push_back(fmt::format("t{}", i + 1));
  inputs.sizes_only = sizes_only;
  return multi_head::compute(inputs);
}

// softmax(Q Kᵀ / √d_k) row by row, from its definition.
Matrix attention_weights(const Matrix& queries, const Matrix& keys) {
  const Matrix scaled = queries * keys.transpose() / std::sqrt(static_cast<double>(queries.cols()));
  Matrix weights(scaled.rows(), scaled.cols());
  for (Eigen::Index i = 0; i < scaled.rows(); ++i) {
    const Eigen::RowVectorXd exponentials = (scaled.row(i).array() - scaled.row(i).maxCoeff()).exp().matrix();
    weights.row(i) = exponentials / exponentials.sum();
  }
  return weights;
}

// One standard normal number from the next two uniforms, by the Box–Muller
// formula the book states (cosine branch): √(−2 ln u₁) cos(2π u₂).
double box_muller(attention::Mulberry32& generator) {
  const double u1 = generator.next_uniform();
  const double u2 = generator.next_uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

multi_head::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<multi_head::Flags>("multi_head", "chapter 5", arguments);
}

}  // namespace

TEST_CASE("every head is attention on its own projections of X", "[ch05]") {
  for (const auto& [d_model, heads] : {std::pair{4, 2}, std::pair{6, 3}, std::pair{8, 1}, std::pair{4, 4}}) {
    const multi_head::Result result = run(7, d_model, heads, 5);
    REQUIRE(result.width == d_model / heads);
    REQUIRE(result.steps.heads.size() == static_cast<std::size_t>(heads));
    const Matrix& x = result.input;
    for (std::size_t i = 0; i < result.steps.heads.size(); ++i) {
      const attention::HeadSteps& head = result.steps.heads[i];
      const attention::HeadProjections& w = result.weights.heads[i];
      // Self-attention: queries, keys and values all come from X.
      CHECK(head.queries.isApprox(x * w.query, 1e-15));
      CHECK(head.keys.isApprox(x * w.key, 1e-15));
      CHECK(head.values.isApprox(x * w.value, 1e-15));
      CHECK(head.queries.cols() == result.width);
      const Matrix weights = attention_weights(head.queries, head.keys);
      CHECK(head.attention.weights.isApprox(weights, 1e-13));
      CHECK(head.attention.output.isApprox(weights * head.values, 1e-13));
      // Every row of every head's weights sums to 1.
      for (Eigen::Index r = 0; r < weights.rows(); ++r) {
        CHECK(head.attention.weights.row(r).sum() == Approx(1.0).epsilon(1e-14));
      }
    }
  }
}

TEST_CASE("the concatenation lays the heads side by side and W^O sums them through their blocks", "[ch05]") {
  const multi_head::Result result = run(3, 6, 3, 4);
  const Eigen::Index width = result.width;  // 2
  REQUIRE(result.steps.concatenation.cols() == 6);
  Matrix sum = Matrix::Zero(4, 6);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto at = static_cast<Eigen::Index>(i) * width;
    const Matrix& head = result.steps.heads[i].attention.output;
    // Head i's columns are copied: the same bits.
    CHECK(result.steps.concatenation.middleCols(at, width) == head);
    sum += head * result.weights.output.middleRows(at, width);  // head_i · W^O_i
  }
  // Concat(head₁, …, head_h) W^O = Σ_i head_i W^O_i.
  CHECK(result.steps.output.isApprox(sum, 1e-13));
  CHECK(result.steps.output.cols() == 6);  // as wide as the input
  // Swapping two heads with their blocks of W^O leaves the sum: the order of the heads does not matter.
  const Matrix swapped = result.steps.heads[2].attention.output * result.weights.output.middleRows(4, 2) +
                         result.steps.heads[0].attention.output * result.weights.output.middleRows(0, 2) +
                         result.steps.heads[1].attention.output * result.weights.output.middleRows(2, 2);
  CHECK(result.steps.output.isApprox(swapped, 1e-13));
}

TEST_CASE("one token attends to itself alone: each head's output is its value", "[ch05]") {
  const multi_head::Result result = run(5, 4, 2, 1);
  for (const attention::HeadSteps& head : result.steps.heads) {
    // softmax of a single score is e^s / e^s = 1, exactly.
    CHECK(head.attention.weights == Matrix::Ones(1, 1));
    CHECK(head.attention.output.isApprox(head.values, 1e-15));
  }
  Matrix values(1, 4);
  values << result.steps.heads[0].values, result.steps.heads[1].values;
  CHECK(result.steps.output.isApprox(values * result.weights.output, 1e-14));
}

TEST_CASE("heads of width 1 score with a single product scaled by 1", "[ch05]") {
  const multi_head::Result result = run(9, 3, 3, 4);
  REQUIRE(result.width == 1);
  for (const attention::HeadSteps& head : result.steps.heads) {
    // √1 = 1: the scaled scores are the scores, and each is q_i k_j.
    CHECK(head.attention.scaled_scores == head.attention.scores);
    for (Eigen::Index i = 0; i < 4; ++i)
      for (Eigen::Index j = 0; j < 4; ++j)
        CHECK(head.attention.scores(i, j) == Approx(head.queries(i, 0) * head.keys(j, 0)).epsilon(1e-15));
  }
}

TEST_CASE("the weights and X are drawn in the documented order and scale", "[ch05]") {
  // d_model = 4, two heads of width 2: W^Q_1, W^K_1, W^V_1, W^Q_2, … each 4 × 2, then W^O 4 × 4, then X.
  const multi_head::Result result = run(42, 4, 2, 3);
  attention::Mulberry32 generator(42);
  const double scale = 1.0 / std::sqrt(4.0);  // 1 / √d_model = 1/2, exact
  const auto next = [&] { return box_muller(generator) * scale; };
  for (const attention::HeadProjections& head : result.weights.heads) {
    for (const Matrix* matrix : {&head.query, &head.key, &head.value}) {
      REQUIRE(matrix->rows() == 4);
      REQUIRE(matrix->cols() == 2);
      for (Eigen::Index r = 0; r < 4; ++r)  // row by row
        for (Eigen::Index c = 0; c < 2; ++c) CHECK(((*matrix)(r, c)) == Approx(next()).epsilon(1e-15));
    }
  }
  REQUIRE(result.weights.output.rows() == 4);
  for (Eigen::Index r = 0; r < 4; ++r)
    for (Eigen::Index c = 0; c < 4; ++c) CHECK(result.weights.output(r, c) == Approx(next()).epsilon(1e-15));
  // X last, unscaled.
  for (Eigen::Index r = 0; r < 3; ++r)
    for (Eigen::Index c = 0; c < 4; ++c) CHECK(result.input(r, c) == Approx(box_muller(generator)).epsilon(1e-15));
}

TEST_CASE("adding a token changes no weight and no earlier row of X", "[ch05]") {
  const multi_head::Result three = run(11, 6, 2, 3);
  const multi_head::Result four = run(11, 6, 2, 4);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(four.weights.heads[i].query == three.weights.heads[i].query);
    CHECK(four.weights.heads[i].key == three.weights.heads[i].key);
    CHECK(four.weights.heads[i].value == three.weights.heads[i].value);
  }
  CHECK(four.weights.output == three.weights.output);
  CHECK(four.input.topRows(3) == three.input);
  // Another seed gives other weights; the same seed the same bits.
  CHECK(run(12, 6, 2, 3).weights.output != three.weights.output);
  CHECK(run(11, 6, 2, 3).steps.output == three.steps.output);
}

TEST_CASE("the cost counts match the chapter's formulas and h heads cost what one wide head does", "[ch05]") {
  for (const auto& [d_model, heads, n] : {std::tuple{4, 2, 3}, std::tuple{512, 8, 3}, std::tuple{1024, 16, 10}}) {
    const multi_head::Result result = run(1, d_model, heads, n, /*sizes_only=*/true);
    const auto d = static_cast<std::uint64_t>(d_model);
    const auto h = static_cast<std::uint64_t>(heads);
    const auto tokens = static_cast<std::uint64_t>(n);
    CHECK(result.width == d_model / heads);
    // With d_k = d_v = d_model / h: 3 n d², n² d, n² d and n d², in both columns.
    for (const multi_head::LayerCost* cost : {&result.multi, &result.single}) {
      CHECK(cost->projections == 3 * tokens * d * d);
      CHECK(cost->scores == tokens * tokens * d);
      CHECK(cost->weighted_sums == tokens * tokens * d);
      CHECK(cost->output_projection == tokens * d * d);
      CHECK(cost->total() == 4 * tokens * d * d + 2 * tokens * tokens * d);
    }
    // Only the exponentials grow with h: one n × n table per head.
    CHECK(result.multi.exponentials == h * tokens * tokens);
    CHECK(result.single.exponentials == tokens * tokens);
    CHECK(result.multi.heads == heads);
    CHECK(result.single.heads == 1);
    CHECK(result.single.d_k == d_model);
    // --sizes-only draws and computes nothing.
    CHECK(result.steps.heads.empty());
    CHECK(result.weights.heads.empty());
    CHECK(result.input.size() == 0);
  }
  // The defaults by hand: n = 3, d_model = 4, h = 2, d_k = d_v = 2.
  const multi_head::Result small = run(1, 4, 2, 3, true);
  CHECK(small.multi.projections == 2 * 3 * 4 * (2 * 2 + 2));  // 144
  CHECK(small.multi.scores == 2 * 3 * 2 * 3);                 // 36
  CHECK(small.multi.output_projection == 3 * (2 * 2) * 4);    // 48
}

TEST_CASE("the flags read the sizes and refuse a split that does not divide", "[ch05]") {
  const multi_head::Inputs defaults = read({});
  CHECK(defaults.seed == 1);
  CHECK(defaults.d_model == 4);
  CHECK(defaults.heads == 2);
  CHECK(defaults.tokens == std::vector<std::string>{"I", "love", "you"});
  CHECK_FALSE(defaults.sizes_only);
  const multi_head::Inputs big = read({"--d-model", "1024", "--heads", "16", "--sizes-only"});
  CHECK(big.d_model == 1024);
  CHECK(big.sizes_only);
  CHECK_THROWS_WITH(read({"--heads", "3"}),
                    Catch::StartsWith("--heads: 3 heads do not divide --d-model 4") && Catch::EndsWith("1, 2 or 4"));
  CHECK_THROWS_WITH(read({"--d-model", "6", "--heads", "4"}), Catch::Contains("1, 2, 3 or 6"));
  CHECK_THROWS_WITH(read({"--heads", "8"}), Catch::StartsWith("--heads is 8, more than --d-model 4"));
  CHECK_THROWS_WITH(read({"--d-model", "1024", "--heads", "16"}),
                    Catch::StartsWith("--d-model is 1024, too large for a run that draws every weight"));
  CHECK_THROWS_WITH(read({"--d-model", "512", "--heads", "128"}), Catch::StartsWith("--heads is 128, too many"));
  CHECK_THROWS_WITH(read({"--heads", "0"}), Catch::StartsWith("--heads"));
  std::string many = "a";
  for (int i = 1; i < 65; ++i) many += ",a";
  CHECK_THROWS_WITH(read({"--tokens", many}), Catch::StartsWith("--tokens: 65 names is too many"));
}

}  // namespace test_multi_head
