// Chapter 10's library pieces: every backward pass against central finite
// differences of its own forward pass, on random inputs. The loss in each
// check is Σ output ⊙ R for a fixed random R, so ∂L/∂output = R.
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/attention.hpp"
#include "attention/attention_backward.hpp"
#include "attention/cross_entropy.hpp"
#include "attention/embedding.hpp"
#include "attention/embedding_backward.hpp"
#include "attention/encoder_layer.hpp"
#include "attention/encoder_layer_backward.hpp"
#include "attention/feed_forward_backward.hpp"
#include "attention/gradient_check.hpp"
#include "attention/layer_norm_backward.hpp"
#include "attention/mask.hpp"
#include "attention/multi_head_backward.hpp"
#include "attention/softmax_backward.hpp"
#include "support.hpp"

using attention::Matrix;
using attention::Vector;

namespace {

// The bound every check below meets: the largest difference from central
// differences (h = 1e-5), over the largest gradient entry.
constexpr double gradient_tolerance = 1e-7;

double probe(const Matrix& output, const Matrix& direction) { return output.cwiseProduct(direction).sum(); }

Vector random_vector(Eigen::Index n, std::mt19937_64& generator) {
  return support::random_matrix(n, 1, generator).col(0);
}

attention::MultiHeadWeights random_heads(Eigen::Index d, Eigen::Index h, std::mt19937_64& generator) {
  attention::MultiHeadWeights w;
  const Eigen::Index d_k = d / h;
  for (Eigen::Index i = 0; i < h; ++i) {
    w.heads.push_back({support::random_matrix(d, d_k, generator), support::random_matrix(d, d_k, generator),
                       support::random_matrix(d, d_k, generator)});
  }
  w.output = support::random_matrix(h * d_k, d, generator);
  return w;
}

}  // namespace

TEST_CASE("softmax_rows_backward equals the full Jacobian times the gradient", "[ch10]") {
  std::mt19937_64 generator(1);
  const Matrix scores = support::random_matrix(3, 5, generator);
  const Matrix g = support::random_matrix(3, 5, generator);
  const Matrix weights = attention::softmax_rows(scores);
  const Matrix dS = attention::softmax_rows_backward(weights, g);
  for (Eigen::Index i = 0; i < 3; ++i) {
    for (Eigen::Index k = 0; k < 5; ++k) {
      double expected = 0.0;  // Σ_j g_j ∂w_j/∂s_k, with ∂w_j/∂s_k = w_j (δ_jk − w_k)
      for (Eigen::Index j = 0; j < 5; ++j) {
        expected += g(i, j) * weights(i, j) * ((j == k ? 1.0 : 0.0) - weights(i, k));
      }
      CHECK(dS(i, k) == Approx(expected).margin(1e-15));
    }
  }
  // Adding a constant to every g in a row changes nothing: softmax ignores a shift of its scores.
  const Matrix shifted = attention::softmax_rows_backward(weights, Matrix((g.array() + 7.0).matrix()));
  CHECK((shifted - dS).cwiseAbs().maxCoeff() < 1e-14);
  CHECK_THROWS_AS(attention::softmax_rows_backward(weights, Matrix(Matrix::Zero(3, 4))), std::invalid_argument);
}

TEST_CASE("attention_backward agrees with central differences, with and without a causal mask", "[ch10]") {
  std::mt19937_64 generator(2);
  for (const bool masked : {false, true}) {
    Matrix q = support::random_matrix(4, 3, generator);
    Matrix k = support::random_matrix(4, 3, generator);
    Matrix v = support::random_matrix(4, 2, generator);
    const Matrix direction = support::random_matrix(4, 2, generator);
    attention::AttentionOptions options;
    if (masked) options.mask = attention::causal_mask(4);
    const auto loss = [&] {
      return probe(attention::scaled_dot_product_attention(q, k, v, options).output, direction);
    };
    const auto steps = attention::scaled_dot_product_attention(q, k, v, options);
    const auto gradients = attention::attention_backward(q, k, v, steps, direction, options);
    CHECK(attention::relative_error(gradients.queries, attention::central_differences(loss, q)) < gradient_tolerance);
    CHECK(attention::relative_error(gradients.keys, attention::central_differences(loss, k)) < gradient_tolerance);
    CHECK(attention::relative_error(gradients.values, attention::central_differences(loss, v)) < gradient_tolerance);
    if (masked) {
      for (Eigen::Index i = 0; i < 4; ++i)
        for (Eigen::Index j = i + 1; j < 4; ++j) CHECK(gradients.scores(i, j) == 0.0);  // exactly
      // The first query sees only the first key: its weight is 1 whatever its score, so its score gets no gradient,
      // and the query itself none at all.
      CHECK(gradients.queries.row(0).cwiseAbs().maxCoeff() == 0.0);
      // The last key is seen only by the last query.
      CHECK(gradients.values.row(3) == (steps.weights(3, 3) * direction.row(3)));
    }
  }
}

TEST_CASE("attention_backward: a finite fill is a constant too, and a fully masked row passes back nothing", "[ch10]") {
  std::mt19937_64 generator(3);
  Matrix q = support::random_matrix(3, 2, generator);
  Matrix k = support::random_matrix(3, 2, generator);
  Matrix v = support::random_matrix(3, 2, generator);
  const Matrix direction = support::random_matrix(3, 2, generator);
  attention::Mask allowed = attention::causal_mask(3);
  attention::AttentionOptions finite;
  finite.mask = allowed;
  finite.fill = -1.0;  // masked weights are not 0, but the masked scores do not depend on Q or K
  const auto loss = [&] { return probe(attention::scaled_dot_product_attention(q, k, v, finite).output, direction); };
  const auto steps = attention::scaled_dot_product_attention(q, k, v, finite);
  const auto gradients = attention::attention_backward(q, k, v, steps, direction, finite);
  CHECK(attention::relative_error(gradients.queries, attention::central_differences(loss, q)) < gradient_tolerance);
  CHECK(attention::relative_error(gradients.keys, attention::central_differences(loss, k)) < gradient_tolerance);
  for (Eigen::Index i = 0; i < 3; ++i) {
    for (Eigen::Index j = i + 1; j < 3; ++j) CHECK(gradients.scores(i, j) == 0.0);  // every masked entry
  }

  attention::AttentionOptions none;
  allowed.row(1).setConstant(false);  // query 2 may see nothing: its weights and output are 0
  none.mask = allowed;
  const auto empty_steps = attention::scaled_dot_product_attention(q, k, v, none);
  const auto empty = attention::attention_backward(q, k, v, empty_steps, direction, none);
  CHECK(empty.queries.row(1).cwiseAbs().maxCoeff() == 0.0);
  CHECK(empty.scores.row(1).cwiseAbs().maxCoeff() == 0.0);
  CHECK(empty.queries.allFinite());
  CHECK(empty.keys.allFinite());
  CHECK(empty.values.allFinite());
  // Chapter 10: the row "adds nothing to dV either", nor to dK. Its weights and its score gradients are exact 0s, so
  // every term it adds is an exact 0: the gradients are those of the same pass with that row's output gradient 0.
  Matrix without_row = direction;
  without_row.row(1).setZero();
  const auto reference = attention::attention_backward(q, k, v, empty_steps, without_row, none);
  CHECK(empty.keys == reference.keys);
  CHECK(empty.values == reference.values);
}

TEST_CASE("attention_backward refuses a mask of another shape than the forward pass's scores", "[ch10]") {
  // A 2 × 2 mask for 3 queries and 3 keys would have been read past its end.
  std::mt19937_64 generator(5);
  const Matrix q = support::random_matrix(3, 2, generator);
  const Matrix k = support::random_matrix(3, 2, generator);
  const Matrix v = support::random_matrix(3, 2, generator);
  const Matrix direction = support::random_matrix(3, 2, generator);
  attention::AttentionOptions options;
  options.mask = attention::causal_mask(3);
  const auto steps = attention::scaled_dot_product_attention(q, k, v, options);
  CHECK_NOTHROW(attention::attention_backward(q, k, v, steps, direction, options));
  options.mask = attention::causal_mask(2);
  CHECK_THROWS_WITH(attention::attention_backward(q, k, v, steps, direction, options),
                    Catch::Contains("one row per query and one column per key"));
}

TEST_CASE("multi_head_backward agrees with central differences for inputs and all weights", "[ch10]") {
  std::mt19937_64 generator(4);
  Matrix x = support::random_matrix(5, 4, generator);
  attention::MultiHeadWeights w = random_heads(4, 2, generator);
  const Matrix direction = support::random_matrix(5, 4, generator);
  attention::AttentionOptions options;
  options.mask = attention::causal_mask(5);
  const auto loss = [&] { return probe(attention::multi_head_attention(x, x, x, w, options).output, direction); };
  const auto steps = attention::multi_head_attention(x, x, x, w, options);
  const auto gradients = attention::multi_head_backward(x, x, x, w, steps, direction, options);
  const Matrix input = gradients.queries + gradients.keys + gradients.values;
  CHECK(attention::relative_error(input, attention::central_differences(loss, x)) < gradient_tolerance);
  CHECK(attention::relative_error(gradients.weights.output, attention::central_differences(loss, w.output)) <
        gradient_tolerance);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(attention::relative_error(gradients.weights.heads[i].query,
                                    attention::central_differences(loss, w.heads[i].query)) < gradient_tolerance);
    CHECK(attention::relative_error(gradients.weights.heads[i].key,
                                    attention::central_differences(loss, w.heads[i].key)) < gradient_tolerance);
    CHECK(attention::relative_error(gradients.weights.heads[i].value,
                                    attention::central_differences(loss, w.heads[i].value)) < gradient_tolerance);
  }
}

TEST_CASE("layer_norm_backward agrees with central differences, and its input gradient sums to 0 along each row",
          "[ch10]") {
  std::mt19937_64 generator(5);
  Matrix x = support::random_matrix(4, 6, generator);
  attention::LayerNormParameters p{random_vector(6, generator), random_vector(6, generator)};
  const Matrix direction = support::random_matrix(4, 6, generator);
  const auto loss = [&] { return probe(attention::layer_norm(x, p).output, direction); };
  const auto gradients = attention::layer_norm_backward(p, attention::layer_norm(x, p), direction);
  CHECK(attention::relative_error(gradients.input, attention::central_differences(loss, x)) < gradient_tolerance);
  CHECK(attention::relative_error(gradients.parameters.gain, attention::central_differences(loss, p.gain)) <
        gradient_tolerance);
  CHECK(attention::relative_error(gradients.parameters.bias, attention::central_differences(loss, p.bias)) <
        gradient_tolerance);
  // Shifting a whole row does not change its normalised output, so the gradient has no component along (1, …, 1).
  CHECK(gradients.input.rowwise().sum().cwiseAbs().maxCoeff() < 1e-12);

  // Chapter 10: the part along x̂ makes dx predict no change for a stretch "exactly, if ε were 0". With ε = 0,
  // stretching a row about its mean leaves x̂ as it was, so each row of dx has no component along x̂; with the
  // default ε it has one (the stretch then moves x̂ a little), here above 1e-6.
  const auto along_normalized = [&](double epsilon) {
    const auto steps = attention::layer_norm(x, p, epsilon);
    const auto with_epsilon = attention::layer_norm_backward(p, steps, direction, epsilon);
    return with_epsilon.input.cwiseProduct(steps.normalized).rowwise().sum().cwiseAbs().maxCoeff();
  };
  CHECK(along_normalized(0.0) < 1e-12);
  CHECK(along_normalized(attention::default_layer_norm_epsilon) > 1e-6);
}

TEST_CASE("feed_forward_backward agrees with central differences", "[ch10]") {
  std::mt19937_64 generator(6);
  Matrix x = support::random_matrix(4, 3, generator);
  attention::FeedForwardWeights w{support::random_matrix(3, 8, generator), random_vector(8, generator),
                                  support::random_matrix(8, 3, generator), random_vector(3, generator)};
  const Matrix direction = support::random_matrix(4, 3, generator);
  const auto loss = [&] { return probe(attention::feed_forward(x, w).output, direction); };
  const auto steps = attention::feed_forward(x, w);
  // A ReLU input within h of 0 would make the finite difference straddle the kink: this draw has none.
  REQUIRE(steps.widened.cwiseAbs().minCoeff() > 1e-3);
  const auto gradients = attention::feed_forward_backward(x, w, steps, direction);
  CHECK(attention::relative_error(gradients.input, attention::central_differences(loss, x)) < gradient_tolerance);
  CHECK(attention::relative_error(gradients.weights.w1, attention::central_differences(loss, w.w1)) <
        gradient_tolerance);
  CHECK(attention::relative_error(gradients.weights.b1, attention::central_differences(loss, w.b1)) <
        gradient_tolerance);
  CHECK(attention::relative_error(gradients.weights.w2, attention::central_differences(loss, w.w2)) <
        gradient_tolerance);
  CHECK(attention::relative_error(gradients.weights.b2, attention::central_differences(loss, w.b2)) <
        gradient_tolerance);
}

TEST_CASE("feed_forward_backward takes the ReLU's slope at exactly 0 as 0, by hand", "[ch10]") {
  // Chapter 10: "at exactly 0, a kink with no derivative, the library takes 0". x = 1, W1 = (1, 1), b1 = (0, -1):
  // the widened row is (1, 0), its second entry exactly at the kink. W2 = (1; 1), b2 = 0, and dOut = 1, so
  // dHidden = (1, 1) and dWidened = (1, slope at 0). Slope 0 gives db1 = (1, 0), dW1 = (1, 0) and dx = 1;
  // slope 1 would give (1, 1), (1, 1) and 2.
  const Matrix x = Matrix::Constant(1, 1, 1.0);
  Matrix w1(1, 2), w2(2, 1);
  w1 << 1, 1;
  w2 << 1, 1;
  Vector b1(2);
  b1 << 0, -1;
  const attention::FeedForwardWeights w{w1, b1, w2, Vector::Zero(1)};
  const auto steps = attention::feed_forward(x, w);
  REQUIRE(steps.widened(0, 1) == 0.0);
  const auto gradients = attention::feed_forward_backward(x, w, steps, Matrix::Constant(1, 1, 1.0));
  CHECK(gradients.weights.b1(0) == 1.0);
  CHECK(gradients.weights.b1(1) == 0.0);
  CHECK(gradients.weights.w1(0, 0) == 1.0);
  CHECK(gradients.weights.w1(0, 1) == 0.0);
  CHECK(gradients.input(0, 0) == 1.0);
}

TEST_CASE("softmax_cross_entropy: the loss by hand, and its gradient against central differences", "[ch10]") {
  Matrix logits(2, 3);
  logits << 0, 0, 0,  //
      std::log(1.0), std::log(3.0), std::log(6.0);
  const auto result = attention::softmax_cross_entropy(logits, {2, 1});
  // Position 1: three equal logits, p = 1/3. Position 2: p = (1, 3, 6)/10, target 1 has 0.3.
  CHECK(result.loss == Approx((std::log(3.0) - std::log(0.3)) / 2.0).epsilon(1e-14));
  CHECK(result.logits_gradient.rowwise().sum().cwiseAbs().maxCoeff() < 1e-16);
  std::mt19937_64 generator(7);
  Matrix random_logits = support::random_matrix(4, 5, generator) * 3.0;
  const std::vector<Eigen::Index> targets{0, 4, 4, 2};
  const auto loss = [&] { return attention::softmax_cross_entropy(random_logits, targets).loss; };
  const auto exact = attention::softmax_cross_entropy(random_logits, targets);
  CHECK(attention::relative_error(exact.logits_gradient, attention::central_differences(loss, random_logits)) <
        gradient_tolerance);
  Matrix huge(1, 2);
  huge << 1000.0, 0.0;  // exp(1000) would overflow; the shifted form does not
  CHECK(attention::softmax_cross_entropy(huge, {1}).loss == Approx(1000.0));
  CHECK_THROWS_AS(attention::softmax_cross_entropy(huge, {2}), std::invalid_argument);
  CHECK_THROWS_AS(attention::softmax_cross_entropy(huge, {0, 1}), std::invalid_argument);
  // A target outside the vocabulary is named with its position, the first such one (here the second row's).
  const Matrix three_rows = Matrix::Zero(3, 2);
  CHECK_THROWS_WITH(attention::softmax_cross_entropy(three_rows, {0, -1, 5}),
                    Catch::Matchers::Contains("target -1 at position 1 is not a word of the vocabulary"));
  huge(0, 1) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(attention::softmax_cross_entropy(huge, {0}), std::invalid_argument);
}

TEST_CASE("embedding_backward sends each row's gradient to its word, summing repeats", "[ch10]") {
  std::mt19937_64 generator(8);
  Matrix table = support::random_matrix(5, 3, generator);
  const std::vector<Eigen::Index> words{1, 3, 1};
  const Matrix direction = support::random_matrix(3, 3, generator);
  const auto loss = [&] { return probe(attention::embedding_lookup(table, words), direction); };
  const Matrix gradient = attention::embedding_backward(5, words, direction);
  CHECK(attention::relative_error(gradient, attention::central_differences(loss, table)) < gradient_tolerance);
  CHECK(gradient.row(1) == direction.row(0) + direction.row(2));
  CHECK(gradient.row(0).cwiseAbs().maxCoeff() == 0.0);
  CHECK_THROWS_AS(attention::embedding_backward(5, {5, 0, 0}, direction), std::invalid_argument);
}

TEST_CASE("encoder_layer_backward agrees with central differences for the input and every weight", "[ch10]") {
  std::mt19937_64 generator(9);
  const Eigen::Index d = 4;
  Matrix x = support::random_matrix(3, d, generator);
  attention::EncoderLayerWeights w;
  w.attention = random_heads(d, 2, generator);
  w.attention_norm = {random_vector(d, generator), random_vector(d, generator)};
  w.feed_forward = {support::random_matrix(d, 8, generator), random_vector(8, generator),
                    support::random_matrix(8, d, generator), random_vector(d, generator)};
  w.feed_forward_norm = {random_vector(d, generator), random_vector(d, generator)};
  const Matrix direction = support::random_matrix(3, d, generator);
  const auto loss = [&] { return probe(attention::encoder_layer(x, w).feed_forward_norm.output, direction); };
  const auto steps = attention::encoder_layer(x, w);
  REQUIRE(steps.feed_forward.widened.cwiseAbs().minCoeff() > 1e-3);
  const auto g = attention::encoder_layer_backward(x, w, steps, direction);
  const auto check = [&](const Matrix& analytic, auto& parameter) {
    CHECK(attention::relative_error(analytic, attention::central_differences(loss, parameter)) < gradient_tolerance);
  };
  check(g.input, x);
  check(g.weights.attention.output, w.attention.output);
  check(g.weights.attention.heads[1].query, w.attention.heads[1].query);
  check(g.weights.attention.heads[0].value, w.attention.heads[0].value);
  check(g.weights.attention_norm.gain, w.attention_norm.gain);
  check(g.weights.feed_forward.w1, w.feed_forward.w1);
  check(g.weights.feed_forward.b2, w.feed_forward.b2);
  check(g.weights.feed_forward_norm.bias, w.feed_forward_norm.bias);
}

TEST_CASE("relative_error and central_differences on a function whose derivative is known", "[ch10]") {
  Matrix a(1, 2);
  a << 1.0, 2.0;
  Matrix b(1, 2);
  b << 1.0, 2.5;
  CHECK(attention::relative_error(a, b) == Approx(0.2));
  CHECK(attention::relative_error(Matrix::Zero(2, 2), Matrix::Zero(2, 2)) == 0.0);
  // No entry has no largest entry to measure against, and two shapes cannot be compared entry by entry.
  CHECK_THROWS_AS(attention::relative_error(Matrix(0, 0), Matrix(0, 0)), std::invalid_argument);
  CHECK_THROWS_AS(attention::relative_error(a, Matrix::Zero(2, 1)), std::invalid_argument);
  Matrix theta(1, 1);
  theta << 0.5;
  const auto cube = [&] { return theta(0, 0) * theta(0, 0) * theta(0, 0); };
  const Matrix derivative = attention::central_differences(cube, theta);
  CHECK(theta(0, 0) == 0.5);                              // put back exactly
  CHECK(derivative(0, 0) == Approx(0.75).epsilon(1e-9));  // 3θ², off by h² = 1e-10 at most
}
