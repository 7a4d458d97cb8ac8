// Chapter 9's computation, tested in-process: other_layers::compute()'s three
// demonstrations. Additive scores against vᵀ tanh(q W_q + k W_k) written out
// here, and their bound ‖v‖₁; cross-attention's weights against softmax from
// its definition, its rows against convex combinations of the source; the
// convolution against sums worked by hand; and the flags' refusals. Every
// expected value has a reason of its own, not the program's output.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "chapter_support.hpp"
#include "other_layers.hpp"
#include "program/usage_error.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_other_layers {

namespace {

using attention::Matrix;
using chapter_support::random_matrix;
using chapter_support::tokens_of;
using chapter_support::toy;

attention::AdditiveWeights identity_weights() {
  return {Matrix::Identity(2, 2), Matrix::Identity(2, 2), attention::Vector::Ones(2)};
}

other_layers::AdditiveResult additive(const program::AttentionInputs& tokens, const attention::AdditiveWeights& w) {
  other_layers::Inputs inputs;
  inputs.demonstration = other_layers::Demonstration::additive;
  inputs.additive.tokens = tokens;
  inputs.additive.weights = w;
  inputs.additive.timed = false;  // no benchmark in a test
  return other_layers::compute(inputs).additive;
}

other_layers::CrossResult cross(const Matrix& source, const Matrix& target) {
  other_layers::Inputs inputs;
  inputs.demonstration = other_layers::Demonstration::cross;
  inputs.cross.source = source;
  inputs.cross.target = target;
  for (Eigen::Index j = 0; j < source.rows(); ++j) inputs.cross.source_tokens.push_back(fmt::format("s{}", j + 1));
  for (Eigen::Index i = 0; i < target.rows(); ++i) inputs.cross.target_tokens.push_back(fmt::format("t{}", i + 1));
  return other_layers::compute(inputs).cross;
}

other_layers::ConvolutionResult convolution(const Matrix& x, const std::vector<Matrix>& taps) {
  other_layers::Inputs inputs;
  inputs.demonstration = other_layers::Demonstration::convolution;
  inputs.convolution.inputs = x;
  inputs.convolution.kernel.taps = taps;
  return other_layers::compute(inputs).convolution;
}

// softmax(Q Kᵀ / √d) row by row, from its definition.
Matrix scaled_softmax(const Matrix& queries, const Matrix& keys) {
  const Matrix scaled = queries * keys.transpose() / std::sqrt(static_cast<double>(queries.cols()));
  Matrix weights(scaled.rows(), scaled.cols());
  for (Eigen::Index i = 0; i < scaled.rows(); ++i) {
    const Eigen::RowVectorXd e = (scaled.row(i).array() - scaled.row(i).maxCoeff()).exp().matrix();
    weights.row(i) = e / e.sum();
  }
  return weights;
}

Matrix one_by_one(double entry) { return Matrix::Constant(1, 1, entry); }

other_layers::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<other_layers::Flags>("other_layers", "chapter 9", arguments);
}

}  // namespace

TEST_CASE("additive scores on the toy are sums of tanh worked by hand", "[ch09]") {
  // W_q = W_k = I and v = (1 1): s_ij = tanh(q_i1 + k_j1) + tanh(q_i2 + k_j2).
  const other_layers::AdditiveResult result = additive(toy(), identity_weights());
  const Matrix& s = result.additive.scores;
  REQUIRE(s.rows() == 3);
  REQUIRE(s.cols() == 3);
  // q1 = (1 0) against k1 = (2 0), k2 = (0 1), k3 = (1 1).
  CHECK(s(0, 0) == Approx(std::tanh(3.0)).epsilon(1e-15));
  CHECK(s(0, 1) == Approx(2 * std::tanh(1.0)).epsilon(1e-15));
  CHECK(s(0, 2) == Approx(std::tanh(2.0) + std::tanh(1.0)).epsilon(1e-15));
  // q3 = (1 1) against k3 = (1 1): 2 tanh 2.
  CHECK(s(2, 2) == Approx(2 * std::tanh(2.0)).epsilon(1e-15));
  // tanh 2 + tanh 1 ≈ 1.73 beats 2 tanh 1 ≈ 1.52 and tanh 3 ≈ 0.995: q1 favours k3 under additive
  // scoring, while its dot products 2, 0, 1 favour k1.
  CHECK(result.additive_favourite[0] == "k3");
  CHECK(result.dot_product_favourite[0] == "k1");
  CHECK(result.additive_ties[0].empty());
  CHECK(result.dot_product_ties[0].empty());
  // Each row of weights is the softmax of its scores and sums to 1; the output is weights · V.
  for (Eigen::Index i = 0; i < 3; ++i) {
    const Eigen::RowVectorXd e = s.row(i).array().exp().matrix();
    CHECK(result.additive.weights.row(i).isApprox(e / e.sum(), 1e-14));
    CHECK(result.additive.weights.row(i).sum() == Approx(1.0).epsilon(1e-14));
  }
  CHECK(result.additive.output.isApprox(result.additive.weights * toy().values, 1e-14));
  // The dot-product column beside it is scaled attention on the same Q, K, V.
  CHECK(result.dot_product.weights.isApprox(scaled_softmax(toy().queries, toy().keys), 1e-14));
  CHECK_FALSE(result.timing.has_value());
}

TEST_CASE("zero projections give every key the same weight and the mean of the values", "[ch09]") {
  attention::AdditiveWeights zero{Matrix::Zero(2, 3), Matrix::Zero(2, 3), attention::Vector::Constant(3, 5.0)};
  const other_layers::AdditiveResult result = additive(toy(), zero);
  // tanh 0 = 0: every score is 0, every weight 1/3.
  CHECK(result.additive.scores == Matrix::Zero(3, 3));
  CHECK(result.additive.weights.isApprox(Matrix::Constant(3, 3, 1.0 / 3.0), 1e-15));
  // The mean of (1 0), (0 1), (0.5 0.5) is (0.5 0.5).
  for (Eigen::Index i = 0; i < 3; ++i) {
    CHECK(result.additive.output(i, 0) == Approx(0.5).epsilon(1e-15));
    CHECK(result.additive.output(i, 1) == Approx(0.5).epsilon(1e-15));
  }
  CHECK(result.score_bound == 15.0);  // ‖v‖₁ = 3 × 5
  CHECK(result.largest_score == 0.0);
  // Equal scores give equal weights, bit for bit: the first key is named, and the other two tie with it.
  for (Eigen::Index i = 0; i < 3; ++i) {
    CHECK(result.additive_favourite[static_cast<std::size_t>(i)] == "k1");
    CHECK(result.additive_ties[static_cast<std::size_t>(i)] == std::vector<std::string>{"k2", "k3"});
  }
}

TEST_CASE("additive scores stay below the bound however large the inputs", "[ch09]") {
  std::mt19937_64 generator(9);
  for (const double scale : {1.0, 10.0}) {
    const Matrix q = scale * random_matrix(4, 3, generator);
    const Matrix k = scale * random_matrix(5, 3, generator);
    const Matrix v = random_matrix(5, 2, generator);
    attention::AdditiveWeights w{random_matrix(3, 4, generator), random_matrix(3, 4, generator),
                                 random_matrix(4, 1, generator).col(0)};
    const other_layers::AdditiveResult result = additive(tokens_of(q, k, v), w);
    const double bound = w.v.cwiseAbs().sum();
    CHECK(result.score_bound == Approx(bound).epsilon(1e-15));
    CHECK(result.largest_score == result.additive.scores.cwiseAbs().maxCoeff());
    CHECK(result.largest_score < bound);
    // One score written out from the formula: s_23 = Σ_c v_c tanh((q_2 W_q)_c + (k_3 W_k)_c).
    const Eigen::RowVectorXd hidden = q.row(1) * w.query + k.row(2) * w.key;
    double score = 0.0;
    for (Eigen::Index c = 0; c < 4; ++c) score += w.v(c) * std::tanh(hidden(c));
    CHECK(result.additive.scores(1, 2) == Approx(score).epsilon(1e-13));
  }
}

TEST_CASE("cross-attention weighs the source for every target word", "[ch09]") {
  // The chapter's defaults: die Katze frisst Fisch (4 × 3) and cat eats fish (3 × 3).
  Matrix source(4, 3), target(3, 3);
  source << 1, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 3;
  target << 1, 0, 0, 0, 1, 0, 0, 0, 1;
  const other_layers::CrossResult result = cross(source, target);
  REQUIRE(result.steps.weights.rows() == 3);  // one row per target word
  REQUIRE(result.steps.weights.cols() == 4);  // one column per source word
  CHECK(result.steps.weights.isApprox(scaled_softmax(target, source), 1e-14));
  // cat · Katze = 3 is its largest score, eats · frisst = 3, fish · Fisch = 3.
  CHECK(result.favourite == std::vector<std::string>{"s2", "s3", "s4"});
  // cat's scores are 1/√3, 3/√3, 0, 0: frisst and Fisch get the same weight.
  CHECK(result.steps.weights(0, 2) == result.steps.weights(0, 3));
  for (Eigen::Index i = 0; i < 3; ++i) CHECK(result.row_sums(0, i) == Approx(1.0).epsilon(1e-14));
  // The column sums add up to n = 3, the total weight of three rows.
  CHECK(result.column_sums.sum() == Approx(3.0).epsilon(1e-14));
  CHECK(result.column_sums.isApprox(result.steps.weights.colwise().sum(), 1e-15));
}

TEST_CASE("cross-attention's output rows are convex combinations of the source rows", "[ch09]") {
  std::mt19937_64 generator(90);
  const Matrix source = random_matrix(6, 4, generator);
  const Matrix target = random_matrix(2, 4, generator);
  const other_layers::CrossResult result = cross(source, target);
  CHECK((result.steps.weights.array() >= 0.0).all());
  CHECK(result.steps.output.isApprox(result.steps.weights * source, 1e-14));
  for (Eigen::Index i = 0; i < 2; ++i) {
    for (Eigen::Index c = 0; c < 4; ++c) {
      CHECK(result.steps.output(i, c) >= source.col(c).minCoeff() - 1e-12);
      CHECK(result.steps.output(i, c) <= source.col(c).maxCoeff() + 1e-12);
    }
  }
  // A zero query scores 0 against every key: the mean of the source, (1 3/4 3/4) here.
  Matrix small(4, 3);
  small << 1, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 3;
  const other_layers::CrossResult mean = cross(small, Matrix::Zero(1, 3));
  CHECK(mean.steps.output(0, 0) == Approx(1.0).epsilon(1e-15));
  CHECK(mean.steps.output(0, 1) == Approx(0.75).epsilon(1e-15));
  CHECK(mean.steps.output(0, 2) == Approx(0.75).epsilon(1e-15));
}

TEST_CASE("a convolution worked by hand and the attention layer agree bit for bit", "[ch09]") {
  // x = 1 2 3, taps W_-1 = 1, W_0 = 10, W_1 = 100, zero beyond the ends:
  // y_1 = 0 + 10 + 200 = 210, y_2 = 1 + 20 + 300 = 321, y_3 = 2 + 30 + 0 = 32.
  Matrix x(3, 1);
  x << 1, 2, 3;
  const other_layers::ConvolutionResult result = convolution(x, {one_by_one(1), one_by_one(10), one_by_one(100)});
  CHECK(result.convolution(0, 0) == 210.0);
  CHECK(result.convolution(1, 0) == 321.0);
  CHECK(result.convolution(2, 0) == 32.0);
  CHECK(result.attention.output == result.convolution);
  CHECK(result.equal);
  CHECK(result.largest_difference == 0.0);
  // Head δ = −1 looks at the token before: the first query has none (a zero row), the others weight 1.
  REQUIRE(result.attention.heads.size() == 3);
  const Matrix& before = result.attention.heads[0].attention.weights;
  CHECK(result.attention.heads[0].offset == -1);
  CHECK(before.row(0).isZero());
  CHECK(before(1, 0) == 1.0);
  CHECK(before(2, 1) == 1.0);
  CHECK(before.sum() == 2.0);
  // W^O is three 1 × 1 identities stacked.
  CHECK(result.attention.output_projection == Matrix::Ones(3, 1));
}

TEST_CASE("random convolutions equal their attention layers and one product comes close", "[ch09]") {
  std::mt19937_64 generator(99);
  for (const int radius : {0, 1, 2}) {
    const Matrix x = random_matrix(7, 3, generator);
    std::vector<Matrix> taps;
    for (int t = 0; t < 2 * radius + 1; ++t) taps.push_back(random_matrix(3, 2, generator));
    const other_layers::ConvolutionResult result = convolution(x, taps);
    // From the definition: y_i = Σ_δ x_{i+δ} W_δ over the positions that exist.
    Matrix expected = Matrix::Zero(7, 2);
    for (int i = 0; i < 7; ++i)
      for (int delta = -radius; delta <= radius; ++delta)
        if (i + delta >= 0 && i + delta < 7) expected.row(i) += x.row(i + delta) * taps[delta + radius];
    CHECK(result.convolution.isApprox(expected, 1e-13));
    CHECK(result.equal);  // the header's claim: the same terms added in the same order
    CHECK(result.single_product.isApprox(expected, 1e-13));
    CHECK(result.single_product_difference < 1e-12);
    CHECK(result.attention.concatenation.cols() == 2 * (2 * radius + 1));
  }
}

TEST_CASE("the flags read each demonstration and refuse what does not fit", "[ch09]") {
  const other_layers::Inputs defaults = read({});
  CHECK(defaults.demonstration == other_layers::Demonstration::additive);
  CHECK(defaults.additive.weights.query == Matrix::Identity(2, 2));
  CHECK(defaults.additive.timed);
  CHECK(defaults.additive.timed_lengths == std::vector<std::size_t>{16, 64, 256});
  const other_layers::Inputs conv = read({"--demo", "convolution"});
  CHECK(conv.convolution.kernel.taps.size() == 3);
  CHECK(conv.convolution.inputs.rows() == 6);
  const other_layers::Inputs crossed = read({"--demo", "cross"});
  CHECK(crossed.cross.source_tokens == std::vector<std::string>{"die", "Katze", "frisst", "Fisch"});
  CHECK(read({"--demo", "cross", "--source", "1,0;0,1", "--target", "1,1"}).cross.source_tokens ==
        std::vector<std::string>{"s1", "s2"});
  CHECK_THROWS_WITH(read({"--demo", "bogus"}), Catch::StartsWith("--demo: 'bogus' is not a demonstration"));
  CHECK_THROWS_WITH(read({"--x", "1"}), Catch::StartsWith("--x belongs to --demo convolution, not --demo additive"));
  CHECK_THROWS_WITH(read({"--demo", "convolution", "--kernel", "1,0;0,1 | 1,0;0,1"}),
                    Catch::StartsWith("--kernel: 2 taps; expected an odd number"));
  CHECK_THROWS_WITH(read({"--demo", "convolution", "--kernel", "1;1;1"}),
                    Catch::StartsWith("--kernel: tap 1 has 3 rows"));
  CHECK_THROWS_WITH(read({"--demo", "cross", "--target", "1,0"}), Catch::StartsWith("--target: 2 entries per row"));
  CHECK_THROWS_WITH(read({"--va", "1,1,1"}), Catch::StartsWith("--va: 3 numbers; expected one per column"));
  CHECK_THROWS_WITH(read({"--time-n", "8,4"}), Catch::StartsWith("--time-n: 4 after 8"));
  CHECK_THROWS_WITH(read({"--demo", "cross", "--source-tokens", "a,b"}),
                    Catch::StartsWith("--source-tokens: 2 names for 4 rows"));
  CHECK_THROWS_WITH(read({"--demo", "cross", "--source-tokens", "a"}),
                    Catch::StartsWith("--source-tokens: 1 name for 4 rows"));
  CHECK_THROWS_WITH(read({"--va", "1"}), Catch::StartsWith("--va: 1 number; expected one per column"));
}

TEST_CASE("compute refuses a cross-attention whose scores overflow", "[ch09]") {
  Matrix huge(2, 2);
  huge << 1e200, 0, 0, 1e200;  // 1e200 · 1e200 is beyond a double
  CHECK_THROWS_AS(cross(huge, huge), program::UsageError);
  CHECK_THROWS_WITH(cross(huge, huge), Catch::StartsWith("--source"));
}

}  // namespace test_other_layers
