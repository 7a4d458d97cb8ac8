// Chapter 8's library pieces: layer_norm(), feed_forward(), encoder_layer() and encoder_stack().
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/encoder_layer.hpp"
#include "attention/feed_forward.hpp"
#include "attention/layer_norm.hpp"
#include "attention/mask.hpp"
#include "attention/multi_head.hpp"
#include "support.hpp"

using attention::Matrix;
using attention::Vector;

namespace {

attention::LayerNormParameters random_norm(Eigen::Index d, std::mt19937_64& generator) {
  return {support::random_matrix(d, 1, generator).col(0), support::random_matrix(d, 1, generator).col(0)};
}

attention::FeedForwardWeights random_ffn(Eigen::Index d, Eigen::Index d_ff, std::mt19937_64& generator) {
  return {support::random_matrix(d, d_ff, generator), support::random_matrix(d_ff, 1, generator).col(0),
          support::random_matrix(d_ff, d, generator), support::random_matrix(d, 1, generator).col(0)};
}

attention::EncoderLayerWeights random_layer(Eigen::Index d, Eigen::Index h, Eigen::Index d_ff,
                                            std::mt19937_64& generator) {
  attention::EncoderLayerWeights w;
  const Eigen::Index d_k = d / h;
  for (Eigen::Index i = 0; i < h; ++i) {
    w.attention.heads.push_back({support::random_matrix(d, d_k, generator), support::random_matrix(d, d_k, generator),
                                 support::random_matrix(d, d_k, generator)});
  }
  w.attention.output = support::random_matrix(h * d_k, d, generator);
  w.attention_norm = random_norm(d, generator);
  w.feed_forward = random_ffn(d, d_ff, generator);
  w.feed_forward_norm = random_norm(d, generator);
  return w;
}

Matrix row_means(const Matrix& m) { return m.rowwise().mean(); }

Matrix row_variances(const Matrix& m) {
  const Matrix centred = m.colwise() - m.rowwise().mean();
  return centred.array().square().rowwise().mean();
}

}  // namespace

TEST_CASE("LayerNorm rows have mean 0 and variance 1 before the gain and bias", "[ch08]") {
  std::mt19937_64 generator(8);
  const Matrix x = 3.0 * support::random_matrix(5, 7, generator) + Matrix::Constant(5, 7, 10.0);
  const attention::LayerNormSteps steps = attention::layer_norm(x, random_norm(7, generator), 0.0);
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    CHECK(row_means(steps.normalized)(t, 0) == Approx(0.0).margin(1e-12));
    CHECK(row_variances(steps.normalized)(t, 0) == Approx(1.0).epsilon(1e-12));
    CHECK(steps.mean(t) == Approx(x.row(t).mean()).epsilon(1e-14));
  }
}

TEST_CASE("LayerNorm's epsilon: the variance of a normalised row is var / (var + eps), and a constant row gives 0",
          "[ch08]") {
  Matrix x(2, 4);
  x << 1, 2, 3, 4, 5, 5, 5, 5;
  const double eps = 1e-5;
  const attention::LayerNormSteps steps = attention::layer_norm(x, attention::identity_layer_norm(4), eps);
  CHECK(steps.variance(0) == Approx(1.25).epsilon(1e-15));
  CHECK(row_variances(steps.normalized)(0, 0) == Approx(1.25 / (1.25 + eps)).epsilon(1e-12));
  CHECK(steps.output.row(1).cwiseAbs().maxCoeff() == 0.0);
  // By hand: (1 − 2.5) / √(1.25 + 1e-5).
  CHECK(steps.output(0, 0) == Approx(-1.5 / std::sqrt(1.25 + eps)).epsilon(1e-15));
}

TEST_CASE("LayerNorm applies the gain and bias per column, after normalising", "[ch08]") {
  std::mt19937_64 generator(9);
  const Matrix x = support::random_matrix(3, 5, generator);
  const attention::LayerNormParameters p = random_norm(5, generator);
  const attention::LayerNormSteps steps = attention::layer_norm(x, p);
  for (Eigen::Index t = 0; t < 3; ++t)
    for (Eigen::Index j = 0; j < 5; ++j)
      CHECK(steps.output(t, j) == Approx(p.gain(j) * steps.normalized(t, j) + p.bias(j)).epsilon(1e-14));
}

TEST_CASE("LayerNorm normalises each token alone: other rows do not matter", "[ch08]") {
  std::mt19937_64 generator(10);
  Matrix x = support::random_matrix(4, 6, generator);
  const attention::LayerNormParameters p = random_norm(6, generator);
  const Matrix before = attention::layer_norm(x, p).output;
  x.row(2) *= 100.0;
  const Matrix after = attention::layer_norm(x, p).output;
  CHECK(after.row(0) == before.row(0));
  CHECK(after.row(3) == before.row(3));
}

TEST_CASE("layer_norm refuses bad parameters", "[ch08]") {
  const Matrix x = Matrix::Ones(2, 3);
  CHECK_THROWS_AS(attention::layer_norm(x, attention::identity_layer_norm(2)), std::invalid_argument);
  CHECK_THROWS_AS(attention::layer_norm(x, attention::identity_layer_norm(3), -1.0), std::invalid_argument);
  CHECK_THROWS_AS(attention::layer_norm(x, attention::identity_layer_norm(3), std::nan("")), std::invalid_argument);
  CHECK_THROWS_AS(attention::layer_norm(Matrix(2, 0), attention::identity_layer_norm(0)), std::invalid_argument);
}

TEST_CASE("the feed-forward network is max(0, xW1 + b1)W2 + b2, by hand", "[ch08]") {
  attention::FeedForwardWeights w{Matrix(2, 3), Vector(3), Matrix(3, 2), Vector(2)};
  w.w1 << 1, -1, 0, 0, 1, 2;
  w.b1 << 0, 0.5, -3;
  w.w2 << 1, 0, 0, 1, 1, 1;
  w.b2 << 10, 20;
  Matrix x(1, 2);
  x << 2, 1;
  // xW1 + b1 = (2, −1 + 0.5, 2 − 3) = (2, −0.5, −1); ReLU → (2, 0, 0); · W2 = (2, 0); + b2 = (12, 20).
  const attention::FeedForwardSteps steps = attention::feed_forward(x, w);
  CHECK(steps.widened == (Matrix(1, 3) << 2, -0.5, -1).finished());
  CHECK(steps.hidden == (Matrix(1, 3) << 2, 0, 0).finished());
  CHECK(steps.output == (Matrix(1, 2) << 12, 20).finished());
}

TEST_CASE("a column (1, -1) of W1 computes 'a only if not b'", "[ch08]") {
  // Chapter 8: "A column (1, −1) of W₁ turns the input (a, b) into a − b. Cut at 0, max(0, a − b) is 1 at (1, 0)
  // and 0 at (0, 1) and at (1, 1)." With W2 = 1 and both biases 0 the output is that entry, exactly.
  attention::FeedForwardWeights w{Matrix(2, 1), Vector::Zero(1), Matrix::Ones(1, 1), Vector::Zero(1)};
  w.w1 << 1, -1;
  Matrix x(3, 2);
  x << 1, 0, 0, 1, 1, 1;
  CHECK(attention::feed_forward(x, w).output == (Matrix(3, 1) << 1, 0, 0).finished());
}

TEST_CASE("the feed-forward network works per token: permuting the tokens permutes its output", "[ch08]") {
  std::mt19937_64 generator(11);
  const Matrix x = support::random_matrix(6, 4, generator);
  const attention::FeedForwardWeights w = random_ffn(4, 16, generator);
  const Matrix out = attention::feed_forward(x, w).output;
  const std::vector<Eigen::Index> order{3, 0, 5, 1, 4, 2};
  Matrix permuted(6, 4);
  for (Eigen::Index t = 0; t < 6; ++t) permuted.row(t) = x.row(order[static_cast<std::size_t>(t)]);
  const Matrix permuted_out = attention::feed_forward(permuted, w).output;
  for (Eigen::Index t = 0; t < 6; ++t) {
    CHECK((permuted_out.row(t) - out.row(order[static_cast<std::size_t>(t)])).cwiseAbs().maxCoeff() < 1e-12);
    // No token sees another: each row alone gives the same row.
    CHECK((attention::feed_forward(x.row(t), w).output - out.row(t)).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("feed_forward refuses shapes that do not fit", "[ch08]") {
  std::mt19937_64 generator(12);
  const attention::FeedForwardWeights w = random_ffn(4, 8, generator);
  CHECK_THROWS_AS(attention::feed_forward(Matrix::Ones(2, 3), w), std::invalid_argument);
  attention::FeedForwardWeights bad = w;
  bad.b1 = Vector::Zero(7);
  CHECK_THROWS_AS(attention::feed_forward(Matrix::Ones(2, 4), bad), std::invalid_argument);
}

TEST_CASE("an encoder layer is LayerNorm(x + MultiHead(x)), then LayerNorm(y + FFN(y))", "[ch08]") {
  std::mt19937_64 generator(13);
  const Matrix x = support::random_matrix(5, 6, generator);
  const attention::EncoderLayerWeights w = random_layer(6, 2, 24, generator);
  const attention::EncoderLayerSteps steps = attention::encoder_layer(x, w);
  const Matrix attended = attention::multi_head_attention(x, x, x, w.attention).output;
  const Matrix y = attention::layer_norm(x + attended, w.attention_norm).output;
  const Matrix out =
      attention::layer_norm(y + attention::feed_forward(y, w.feed_forward).output, w.feed_forward_norm).output;
  CHECK(steps.attention_norm.output == y);
  CHECK(steps.feed_forward_norm.output == out);
  CHECK(steps.attention_residual == x + attended);
}

TEST_CASE("an encoder layer mixes tokens only in attention: without it, a token's output ignores the others",
          "[ch08]") {
  std::mt19937_64 generator(14);
  Matrix x = support::random_matrix(4, 6, generator);
  const attention::EncoderLayerWeights w = random_layer(6, 3, 12, generator);
  const Matrix before = attention::encoder_layer(x, w).feed_forward_norm.output;
  x(3, 0) += 1.0;
  const Matrix after = attention::encoder_layer(x, w).feed_forward_norm.output;
  // Through attention, changing token 4 changes every token's output.
  for (Eigen::Index t = 0; t < 4; ++t) CHECK((after.row(t) - before.row(t)).cwiseAbs().maxCoeff() > 1e-9);
  // Under a causal mask, tokens 1 to 3 do not see token 4.
  attention::AttentionOptions causal;
  causal.mask = attention::causal_mask(4);
  Matrix y = x;
  y(3, 0) -= 1.0;
  const Matrix causal_before = attention::encoder_layer(y, w, causal).feed_forward_norm.output;
  const Matrix causal_after = attention::encoder_layer(x, w, causal).feed_forward_norm.output;
  for (Eigen::Index t = 0; t < 3; ++t)
    CHECK((causal_after.row(t) - causal_before.row(t)).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("a stack feeds each layer's output to the next", "[ch08]") {
  std::mt19937_64 generator(15);
  const Matrix x = support::random_matrix(3, 4, generator);
  std::vector<attention::EncoderLayerWeights> layers;
  for (int l = 0; l < 3; ++l) layers.push_back(random_layer(4, 2, 16, generator));
  const std::vector<attention::EncoderLayerSteps> stack = attention::encoder_stack(x, layers);
  REQUIRE(stack.size() == 3);
  Matrix input = x;
  for (std::size_t l = 0; l < 3; ++l) {
    const Matrix out = attention::encoder_layer(input, layers[l]).feed_forward_norm.output;
    CHECK(stack[l].feed_forward_norm.output == out);
    input = out;
  }
  CHECK_THROWS_AS(attention::encoder_stack(x, {}), std::invalid_argument);
}

TEST_CASE("encoder_layer refuses sub-layers that do not return to d_model", "[ch08]") {
  std::mt19937_64 generator(16);
  const Matrix x = support::random_matrix(3, 4, generator);
  attention::EncoderLayerWeights w = random_layer(4, 2, 8, generator);
  attention::EncoderLayerWeights narrow = w;
  narrow.attention.output = support::random_matrix(4, 3, generator);
  CHECK_THROWS_AS(attention::encoder_layer(x, narrow), std::invalid_argument);
  narrow = w;
  narrow.feed_forward.w2 = support::random_matrix(8, 3, generator);
  narrow.feed_forward.b2 = Vector::Zero(3);
  CHECK_THROWS_AS(attention::encoder_layer(x, narrow), std::invalid_argument);
}
