// Chapter 8's computation, tested in-process: encoder_layer::compute()'s
// walkthrough head under the causal mask, the order of the weights' draws, each
// step of the layer against its formula (residuals, LayerNorm's mean 0 and
// variance σ²/(σ² + ε) per row, the ReLU network), the stack feeding each layer
// the last one's output, the feed-forward network working on each token alone,
// reordered tokens, and the flags' refusals. Every expected value has a reason of
// its own (a hand calculation, a property of the layer), not the program's output.
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "attention/layer_norm.hpp"
#include "attention/numpy_random.hpp"
#include "chapter_support.hpp"
#include "encoder_layer.hpp"
#include "program/command_line.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_encoder_layer {

namespace {

using attention::Matrix;

// The graph chapter's x = np.arange(24).reshape(4, 6) / 10, typed out again here.
Matrix arange_x() {
  Matrix x(4, 6);
  for (int t = 0; t < 4; ++t)
    for (int c = 0; c < 6; ++c) x(t, c) = (6 * t + c) / 10.0;
  return x;
}

encoder_layer::Inputs inputs_of(Matrix x, Eigen::Index heads = 2, Eigen::Index layers = 1, bool causal = false) {
  encoder_layer::Inputs inputs;
  inputs.x = std::move(x);
  inputs.tokens.clear();
  for (Eigen::Index t = 0; t < inputs.x.rows(); ++t) inputs.tokens.push_back(fmt::format("t{}", t));
  inputs.heads = heads;
  inputs.d_ff = 4 * inputs.x.cols();
  inputs.layers = layers;
  inputs.causal = causal;
  return inputs;
}

// Mean and variance (dividing by d) of each row.
std::pair<attention::Vector, attention::Vector> row_moments(const Matrix& m) {
  const auto d = static_cast<double>(m.cols());
  const attention::Vector mean = m.rowwise().sum() / d;
  const attention::Vector variance = (m.colwise() - mean).array().square().rowwise().sum() / d;
  return {mean, variance};
}

encoder_layer::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<encoder_layer::Flags>("encoder_layer", "chapter 8", arguments);
}

constexpr double epsilon = 1e-5;  // the chapter's ε, PyTorch's default

}  // namespace

TEST_CASE("the walkthrough head is a triangle whose first row attends to itself alone", "[ch08]") {
  const encoder_layer::Result result = encoder_layer::compute(inputs_of(arange_x()));
  REQUIRE(result.d_model == 6);
  REQUIRE(result.d_k == 3);  // 6 / 2 heads
  const attention::AttentionSteps<>& walk = result.walkthrough;
  const attention::HeadProjections& head = result.weights[0].attention.heads[0];
  const Matrix x = arange_x();
  const Matrix q = x * head.query, k = x * head.key, v = x * head.value;
  CHECK(walk.scaled_scores.isApprox(q * k.transpose() / std::sqrt(3.0), 1e-14));
  for (Eigen::Index i = 0; i < 4; ++i) {
    for (Eigen::Index j = i + 1; j < 4; ++j) {
      // Above the diagonal: −∞, and e^−∞ = 0 exactly.
      CHECK(walk.masked_scores(i, j) == -std::numeric_limits<double>::infinity());
      CHECK(walk.weights(i, j) == 0.0);
    }
    for (Eigen::Index j = 0; j <= i; ++j) CHECK(walk.weights(i, j) > 0.0);
    CHECK(walk.weights.row(i).sum() == Approx(1.0).epsilon(1e-15));
  }
  // Row 0 has only itself: weight e^s / e^s = 1, and its output is v[0].
  CHECK(walk.weights(0, 0) == 1.0);
  CHECK(Matrix(walk.output.row(0)).isApprox(Matrix(v.row(0)), 1e-15));
  CHECK(result.out0_equals_v0);
}

TEST_CASE("the weights are drawn layer by layer in the documented order", "[ch08]") {
  encoder_layer::Inputs inputs = inputs_of(arange_x(), 2, 2);
  inputs.seed = 7;
  inputs.d_ff = 5;
  inputs.scale = 0.25;
  const encoder_layer::Result result = encoder_layer::compute(inputs);
  REQUIRE(result.weights.size() == 2);
  // One stream: per layer W^Q_1, W^K_1, W^V_1, W^Q_2, …, W^O, W1, W2, each row by row, × the scale.
  attention::NumpyGenerator rng(7);
  const auto check_drawn = [&](const Matrix& m, Eigen::Index rows, Eigen::Index columns) {
    REQUIRE(m.rows() == rows);
    REQUIRE(m.cols() == columns);
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index c = 0; c < columns; ++c) CHECK(m(r, c) == 0.25 * rng.standard_normal());  // × 2⁻²: exact
  };
  for (const attention::EncoderLayerWeights& w : result.weights) {
    for (const attention::HeadProjections& head : w.attention.heads) {
      check_drawn(head.query, 6, 3);
      check_drawn(head.key, 6, 3);
      check_drawn(head.value, 6, 3);
    }
    check_drawn(w.attention.output, 6, 6);
    check_drawn(w.feed_forward.w1, 6, 5);
    check_drawn(w.feed_forward.w2, 5, 6);
    // Nothing drawn for the biases and the norms: where training starts.
    CHECK(w.feed_forward.b1 == attention::Vector::Zero(5));
    CHECK(w.feed_forward.b2 == attention::Vector::Zero(6));
    CHECK(w.attention_norm.gain == attention::Vector::Ones(6));
    CHECK(w.attention_norm.bias == attention::Vector::Zero(6));
    CHECK(w.feed_forward_norm.gain == attention::Vector::Ones(6));
    CHECK(w.feed_forward_norm.bias == attention::Vector::Zero(6));
  }
}

TEST_CASE("each step of the layer is its formula: residual then LayerNorm twice", "[ch08]") {
  const encoder_layer::Result result = encoder_layer::compute(inputs_of(arange_x()));
  REQUIRE(result.layers.size() == 1);
  const attention::EncoderLayerSteps& s = result.layers[0];
  const attention::EncoderLayerWeights& w = result.weights[0];
  const Matrix x = arange_x();
  // Communicate: the two heads' outputs side by side, times W^O; then x + that, exactly.
  Matrix joined(4, 6);
  joined << s.attention.heads[0].attention.output, s.attention.heads[1].attention.output;
  CHECK(s.attention.output.isApprox(joined * w.attention.output, 1e-14));
  CHECK(s.attention_residual == x + s.attention.output);
  // LayerNorm: per row (x − μ) / √(σ² + ε), with γ = 1 and β = 0 changing nothing.
  const auto [mean, variance] = row_moments(s.attention_residual);
  CHECK(s.attention_norm.mean.isApprox(mean, 1e-14));
  CHECK(s.attention_norm.variance.isApprox(variance, 1e-14));
  for (Eigen::Index t = 0; t < 4; ++t) {
    const Eigen::RowVectorXd expected =
        (s.attention_residual.row(t).array() - mean(t)) / std::sqrt(variance(t) + epsilon);
    CHECK(Matrix(s.attention_norm.normalized.row(t)).isApprox(Matrix(expected), 1e-14));
  }
  CHECK(s.attention_norm.output == s.attention_norm.normalized);
  // Think: max(0, y W1) W2 with zero biases, then y + FFN(y), exactly.
  const Matrix& y = s.attention_norm.output;
  const Matrix hidden = (y * w.feed_forward.w1).cwiseMax(0.0);
  CHECK(s.feed_forward.hidden.isApprox(hidden, 1e-14));
  // The ReLU cut something: of 4 × 24 entries of y W1, each as likely below 0 as above
  // (symmetric random weights), none below 0 would happen once in 2⁹⁶.
  CHECK(s.feed_forward.hidden.minCoeff() == 0.0);
  CHECK(s.feed_forward.output.isApprox(hidden * w.feed_forward.w2, 1e-14));
  CHECK(s.feed_forward_residual == y + s.feed_forward.output);
}

TEST_CASE("every LayerNorm row has mean 0 and variance sigma squared over sigma squared plus epsilon", "[ch08]") {
  const encoder_layer::Result result = encoder_layer::compute(inputs_of(arange_x(), 2, 3));
  for (const attention::EncoderLayerSteps& s : result.layers) {
    for (const attention::LayerNormSteps* norm : {&s.attention_norm, &s.feed_forward_norm}) {
      const auto [mean, variance] = row_moments(norm->output);
      for (Eigen::Index t = 0; t < 4; ++t) {
        CHECK(mean(t) == Approx(0.0).margin(1e-15));
        // Dividing by √(σ² + ε) instead of σ: variance just under 1.
        const double sigma2 = norm->variance(t);
        CHECK(variance(t) == Approx(sigma2 / (sigma2 + epsilon)).epsilon(1e-13));
        CHECK(variance(t) < 1.0);
        CHECK(variance(t) > 0.99);
      }
    }
  }
}

TEST_CASE("a row of two entries normalises to plus and minus one deviation", "[ch08]") {
  // The toy's queries as x: (1, 0), (0, 1), (1, 1), one head of width 2.
  Matrix x(3, 2);
  x << 1, 0, 0, 1, 1, 1;
  const encoder_layer::Result result = encoder_layer::compute(inputs_of(x, 1));
  const attention::LayerNormSteps& norm = result.layers[0].attention_norm;
  for (Eigen::Index t = 0; t < 3; ++t) {
    // (a, b): mean (a + b)/2, deviation |a − b|/2, so each entry lies one deviation from the mean.
    const double a = result.layers[0].attention_residual(t, 0), b = result.layers[0].attention_residual(t, 1);
    CHECK(norm.mean(t) == Approx((a + b) / 2).epsilon(1e-15));
    CHECK(norm.variance(t) == Approx((a - b) * (a - b) / 4).epsilon(1e-14));
    const double size = std::sqrt(norm.variance(t) / (norm.variance(t) + epsilon));
    CHECK(norm.output(t, 0) == Approx(a > b ? size : -size).epsilon(1e-12));
    CHECK(norm.output(t, 1) == Approx(-norm.output(t, 0)).epsilon(1e-12));
  }
}

TEST_CASE("LayerNorm works on each token alone: changing one row leaves the others bit for bit", "[ch08]") {
  const encoder_layer::Result result = encoder_layer::compute(inputs_of(arange_x()));
  const attention::EncoderLayerSteps& s = result.layers[0];
  Matrix changed = s.attention_residual;
  changed.row(3) *= 3.0;
  changed(3, 0) += 1.0;
  const attention::LayerNormSteps norm = attention::layer_norm(changed, result.weights[0].attention_norm);
  CHECK(norm.output.topRows(3) == s.attention_norm.output.topRows(3));
  CHECK(norm.output.row(3) != s.attention_norm.output.row(3));
  // And the program's norm is the library's on the same matrix, bit for bit.
  CHECK(attention::layer_norm(s.attention_residual, result.weights[0].attention_norm).output ==
        s.attention_norm.output);
}

TEST_CASE("the stack feeds each layer the output of the one before", "[ch08]") {
  const encoder_layer::Result three = encoder_layer::compute(inputs_of(arange_x(), 2, 3));
  REQUIRE(three.layers.size() == 3);
  for (std::size_t l = 1; l < 3; ++l) {
    CHECK(three.layers[l].attention_residual ==
          three.layers[l - 1].feed_forward_norm.output + three.layers[l].attention.output);
  }
  // The first layer of three is the one layer of one: the same seed draws layer 1's weights first.
  const encoder_layer::Result one = encoder_layer::compute(inputs_of(arange_x(), 2, 1));
  CHECK(three.weights[0].attention.output == one.weights[0].attention.output);
  CHECK(three.layers[0].feed_forward_norm.output == one.layers[0].feed_forward_norm.output);
  // Layers 2 and 3 have weights of their own.
  CHECK(three.weights[1].feed_forward.w1 != three.weights[0].feed_forward.w1);
}

TEST_CASE("nudging the last token moves every row through attention and one row through the network", "[ch08]") {
  const encoder_layer::Result result = encoder_layer::compute(inputs_of(arange_x()));
  const encoder_layer::PerToken& check = result.per_token;
  REQUIRE(check.feed_forward_change.size() == 4);
  for (std::size_t t = 0; t < 3; ++t) {
    CHECK(check.feed_forward_change[t] == 0.0);  // exactly: row t of FFN reads row t alone
    CHECK(check.attention_change[t] > 0.0);      // every token attends to the last one
  }
  CHECK(check.feed_forward_change[3] > 0.0);
  CHECK(check.attention_change[3] > 0.0);
  CHECK(check.permuted_difference < 1e-13);
  CHECK(check.alone_difference < 1e-13);
  // Under the causal mask no earlier token sees the last one: their attention rows stay exactly.
  const encoder_layer::Result causal = encoder_layer::compute(inputs_of(arange_x(), 2, 1, true));
  for (std::size_t t = 0; t < 3; ++t) CHECK(causal.per_token.attention_change[t] == 0.0);
  CHECK(causal.per_token.attention_change[3] > 0.0);
}

TEST_CASE("reversing the tokens reverses the layer's output unless the mask is causal", "[ch08]") {
  const Matrix x = arange_x();
  const Matrix reversed = x.colwise().reverse();
  for (const bool causal : {false, true}) {
    // The weights depend on the seed and the sizes only: the same for both orders.
    const encoder_layer::Result forward = encoder_layer::compute(inputs_of(x, 2, 2, causal));
    const encoder_layer::Result backward = encoder_layer::compute(inputs_of(reversed, 2, 2, causal));
    const Matrix expected = forward.layers[1].feed_forward_norm.output.colwise().reverse();
    const double difference = (backward.layers[1].feed_forward_norm.output - expected).cwiseAbs().maxCoeff();
    if (causal) {
      CHECK(difference > 1e-3);
    } else {
      CHECK(difference < 1e-12);
    }
  }
}

TEST_CASE("the flags read the two examples and refuse what does not fit", "[ch08]") {
  const encoder_layer::Inputs defaults = read({});
  CHECK(defaults.example == "walkthrough");
  CHECK(defaults.x == arange_x());
  CHECK(defaults.heads == 2);
  CHECK(defaults.d_ff == 24);  // 4 · d_model
  CHECK(defaults.seed == 1337);
  CHECK(defaults.scale == 0.5);
  CHECK(defaults.tokens == std::vector<std::string>{"t0", "t1", "t2", "t3"});
  const encoder_layer::Inputs toy = read({"--example", "toy"});
  CHECK(toy.x == (Matrix(3, 2) << 1, 0, 0, 1, 1, 1).finished());
  CHECK(toy.tokens == std::vector<std::string>{"cat", "eat", "fish"});
  CHECK(toy.heads == 1);
  CHECK(toy.d_ff == 8);
  const encoder_layer::Inputs own = read({"--x", "1,2,3,4", "--d-ff", "3", "--layers", "2", "--causal"});
  CHECK(own.heads == 2);
  CHECK(own.d_ff == 3);
  CHECK(own.layers == 2);
  CHECK(own.causal);
  CHECK_THROWS_WITH(read({"--example", "story"}), Catch::StartsWith("--example: expected walkthrough or toy"));
  CHECK_THROWS_WITH(read({"--heads", "4"}), Catch::StartsWith("--heads: 4 heads do not divide d_model = 6"));
  CHECK_THROWS_WITH(read({"--heads", "7"}), Catch::StartsWith("--heads: 7 heads do not divide d_model = 6"));
  CHECK_THROWS_WITH(read({"--scale", "0"}), Catch::StartsWith("--scale is 0; expected a number above 0"));
  CHECK_THROWS_WITH(read({"--scale", "11"}), Catch::StartsWith("--scale is 11"));
  CHECK_THROWS_WITH(read({"--tokens", "a,b"}), Catch::StartsWith("--tokens names 2 tokens, but x has 4 rows"));
  CHECK_THROWS_WITH(read({"--x", "2e6,1"}), Catch::StartsWith("--x: row 1, entry 1 is 2e6"));
  CHECK_THROWS_WITH(read({"--x", "1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17"}), Catch::StartsWith("--x is 17 × 1"));
  CHECK_THROWS_WITH(read({"--layers", "13"}), Catch::StartsWith("--layers"));
}

}  // namespace test_encoder_layer
