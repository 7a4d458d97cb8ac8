// Chapter 10's computation, tested in-process: backward_pass::compute()'s
// walkthrough gradients against central differences written here, of attention
// written here from its definition; the shape of the gradients of one output
// entry worked by hand (dV is a column of W, dW a row of V, one row of dS);
// the causal mask's exact zeros; the random check, its sweep of steps and the
// float-against-double sweep against what the chapter claims of them; and the
// flags' refusals. Every expected value has a reason of its own, not the
// program's output.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "backward_pass.hpp"
#include "chapter_support.hpp"
#include "program/usage_error.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_backward_pass {

namespace {

using attention::Matrix;
using chapter_support::random_matrix;
using chapter_support::tokens_of;
using chapter_support::toy;

backward_pass::Result walk(const program::AttentionInputs& tokens, Eigen::Index row, Eigen::Index column,
                           bool causal = false) {
  backward_pass::Inputs inputs;
  inputs.tokens = tokens;
  inputs.loss_row = row;
  inputs.loss_column = column;
  inputs.causal = causal;
  inputs.check = false;  // the walkthrough only
  return backward_pass::compute(inputs);
}

// O = softmax(Q Kᵀ / √d_k) V from the definition; under the causal mask key j > i gets weight 0.
Matrix attention_output(const Matrix& q, const Matrix& k, const Matrix& v, bool causal) {
  const Matrix s = q * k.transpose() / std::sqrt(static_cast<double>(q.cols()));
  Matrix w = Matrix::Zero(s.rows(), s.cols());
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    const Eigen::Index last = causal ? i : s.cols() - 1;
    const double largest = s.row(i).head(last + 1).maxCoeff();
    double sum = 0.0;
    for (Eigen::Index j = 0; j <= last; ++j) sum += w(i, j) = std::exp(s(i, j) - largest);
    w.row(i) /= sum;
  }
  return w * v;
}

// ∂L / ∂M by central differences (f(M + h) − f(M − h)) / 2h, one entry of M at a time.
// Written here rather than calling attention::central_differences: the program's own check calls that one, and
// this reference must not share its code.
template <typename Loss>
Matrix central_differences(Matrix& m, const Loss& loss, double h) {
  Matrix gradient(m.rows(), m.cols());
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      const double kept = m(r, c);
      m(r, c) = kept + h;
      const double up = loss();
      m(r, c) = kept - h;
      const double down = loss();
      m(r, c) = kept;
      gradient(r, c) = (up - down) / (2 * h);
    }
  }
  return gradient;
}

void check_against_differences(const program::AttentionInputs& tokens, Eigen::Index row, Eigen::Index column,
                               bool causal) {
  const backward_pass::Walkthrough w = walk(tokens, row, column, causal).walkthrough;
  Matrix q = tokens.queries, k = tokens.keys, v = tokens.values;
  const auto loss = [&] { return attention_output(q, k, v, causal)(row, column); };
  CHECK(w.loss == Approx(loss()).epsilon(1e-14));
  // Truncation error of order h² ≈ 1e-10 and rounding of order ε/h ≈ 1e-11: 1e-8 leaves room.
  const double h = 1e-5;
  CHECK((w.gradients.queries - central_differences(q, loss, h)).cwiseAbs().maxCoeff() < 1e-8);
  CHECK((w.gradients.keys - central_differences(k, loss, h)).cwiseAbs().maxCoeff() < 1e-8);
  CHECK((w.gradients.values - central_differences(v, loss, h)).cwiseAbs().maxCoeff() < 1e-8);
  // The program's own check of the same gradients agrees.
  CHECK(w.queries_error < 1e-7);
  CHECK(w.keys_error < 1e-7);
  CHECK(w.values_error < 1e-7);
}

backward_pass::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<backward_pass::Flags>("backward_pass", "chapter 10", arguments);
}

}  // namespace

TEST_CASE("the toy's gradients agree with central differences written here", "[ch10]") {
  for (Eigen::Index row = 0; row < 3; ++row) {
    for (Eigen::Index column = 0; column < 2; ++column) {
      check_against_differences(toy(), row, column, false);
      check_against_differences(toy(), row, column, true);
    }
  }
}

TEST_CASE("random inputs of other shapes agree with central differences", "[ch10]") {
  std::mt19937_64 generator(10);
  // n = 3 queries, m = 5 keys, d_k = 4, d_v = 2: the shapes of dQ, dK, dV follow Q, K, V.
  const program::AttentionInputs tokens =
      tokens_of(random_matrix(3, 4, generator), random_matrix(5, 4, generator), random_matrix(5, 2, generator));
  check_against_differences(tokens, 2, 1, false);
  const program::AttentionInputs square =
      tokens_of(random_matrix(4, 3, generator), random_matrix(4, 3, generator), random_matrix(4, 3, generator));
  check_against_differences(square, 3, 0, true);
  check_against_differences(square, 1, 2, true);
}

TEST_CASE("the gradient of one output entry has the shape worked by hand", "[ch10]") {
  // L = O[1][0] on the toy (the second query, the first column of the values).
  const backward_pass::Walkthrough w = walk(toy(), 1, 0).walkthrough;
  const Matrix& weights = w.steps.weights;
  const Matrix values = toy().values;
  // dO is 1 at (1, 0) and 0 elsewhere.
  Matrix d_output = Matrix::Zero(3, 2);
  d_output(1, 0) = 1.0;
  CHECK(w.output_gradient == d_output);
  // dW = dO Vᵀ: row 1 is column 0 of V, the other rows 0.
  CHECK(w.gradients.weights.row(1) == values.col(0).transpose());
  CHECK(w.gradients.weights.row(0).isZero());
  CHECK(w.gradients.weights.row(2).isZero());
  // dV = Wᵀ dO: column 0 is row 1 of the weights, column 1 is 0.
  CHECK(w.gradients.values.col(0).isApprox(weights.row(1).transpose(), 1e-15));
  CHECK(w.gradients.values.col(1).isZero());
  // What the softmax subtracts in row 1 is Σ_j W_1j V_j0 = O[1][0], the loss itself.
  CHECK(w.weighted_sums(1, 0) == Approx(w.loss).epsilon(1e-14));
  // dS = W ⊙ (dW − that sum): only row 1 moves, and each row of dS sums to 0 (Σ_j W_ij = 1).
  for (Eigen::Index j = 0; j < 3; ++j) {
    CHECK(w.gradients.scores(1, j) == Approx(weights(1, j) * (values(j, 0) - w.loss)).margin(1e-15));
  }
  CHECK(w.gradients.scores.row(1).sum() == Approx(0.0).margin(1e-15));
  CHECK(w.gradients.scores.row(0).isZero());
  CHECK(w.gradients.queries.row(0).isZero());  // dQ = dS K / √d_k: rows of zeros stay zero
  CHECK(w.gradients.queries.row(2).isZero());
  // dK = dSᵀ Q / √d_k: only query 1 = (0 1) contributes, so the first column of dK is 0.
  CHECK(w.gradients.keys.col(0).isZero());
  CHECK(w.gradients.keys.col(1).isApprox(w.gradients.scores.row(1).transpose() / std::sqrt(2.0), 1e-14));
}

TEST_CASE("under the causal mask the masked scores get exactly zero gradient", "[ch10]") {
  const backward_pass::Walkthrough w = walk(toy(), 2, 1, true).walkthrough;
  CHECK(w.masked_entries == 3);  // n (n − 1) / 2 for n = 3
  CHECK(w.largest_masked_score_gradient == 0.0);
  CHECK(w.gradients.scores(0, 1) == 0.0);
  CHECK(w.gradients.scores(0, 2) == 0.0);
  CHECK(w.gradients.scores(1, 2) == 0.0);
  // The first query sees only the first key: weight 1, output v1, and nothing it could change.
  const backward_pass::Walkthrough first = walk(toy(), 0, 0, true).walkthrough;
  CHECK(first.steps.weights(0, 0) == 1.0);
  CHECK(first.loss == 1.0);  // v1 = (1 0)
  CHECK(first.gradients.queries.isZero());
  CHECK(first.gradients.keys.isZero());
  Matrix d_values = Matrix::Zero(3, 2);
  d_values(0, 0) = 1.0;
  CHECK(first.gradients.values == d_values);
  // Without the mask nothing is masked.
  CHECK(walk(toy(), 2, 1).walkthrough.masked_entries == 0);
}

TEST_CASE("the random check passes at its step and the sweep shows both kinds of error", "[ch10]") {
  backward_pass::Inputs inputs = read({});
  REQUIRE(inputs.check);
  const backward_pass::Result result = backward_pass::compute(inputs);
  const backward_pass::Check& check = result.check;
  std::vector<std::string> keys;
  for (const backward_pass::LayerCheck& layer : check.layers) keys.push_back(layer.key);
  CHECK(keys.size() == 8);  // the header lists eight: attention with and without the mask, multi-head, LayerNorm,
  // the feed-forward network, the embedding, softmax cross-entropy and a whole encoder layer
  CHECK(keys.front() == "attention");
  // A correct backward pass agrees with differences at h = 1e-5 to far better than 1e-6.
  CHECK(check.largest_error < 1e-6);
  for (const backward_pass::LayerCheck& layer : check.layers) {
    double largest = 0.0;
    for (const backward_pass::ParameterCheck& p : layer.parameters) {
      CHECK(p.entries > 0);
      largest = std::max(largest, p.error);
    }
    CHECK(layer.error == largest);
  }
  // LayerNorm's output does not change when a row is shifted by a constant, so dx's rows sum to 0.
  CHECK(check.layer_norm_row_sum < 1e-12);
  // The sweep: 1e-1 … 1e-10; at 1e-1 truncation (h²) dominates, at 1e-10 rounding (ε/h): both are
  // worse than 1e-5, near ε^(1/3) ≈ 6e-6.
  REQUIRE(result.sweep.steps.size() == 10);
  CHECK(result.sweep.steps.front() == 0.1);
  CHECK(result.sweep.steps.back() == Approx(1e-10).epsilon(1e-15));
  const std::vector<double>& attention_errors = result.sweep.errors.front();
  CHECK(attention_errors[0] > attention_errors[4]);
  CHECK(attention_errors[9] > attention_errors[4]);
  CHECK(result.epsilon == std::ldexp(1.0, -52));
  CHECK(result.cube_root_epsilon == Approx(std::cbrt(std::ldexp(1.0, -52))).epsilon(1e-15));
  // float's spacing is 2⁻²³: its best step is larger than double's, and its best error worse.
  REQUIRE(result.format_sweep.curves.size() == 2);
  const backward_pass::FormatCurve& in_double = result.format_sweep.curves[0];
  const backward_pass::FormatCurve& in_float = result.format_sweep.curves[1];
  CHECK(in_double.spacing == std::ldexp(1.0, -52));
  CHECK(in_float.spacing == std::ldexp(1.0, -23));
  CHECK(in_float.best_step > in_double.best_step);
  CHECK(in_float.best_error > in_double.best_error);
  // --no-check leaves the check out.
  inputs.check = false;
  const backward_pass::Result only = backward_pass::compute(inputs);
  CHECK(only.check.layers.empty());
  CHECK(only.sweep.steps.empty());
}

TEST_CASE("the flags count from 1 and refuse what the walkthrough cannot use", "[ch10]") {
  const backward_pass::Inputs defaults = read({});
  CHECK(defaults.loss_row == 0);
  CHECK(defaults.loss_column == 0);
  CHECK(defaults.step == 1e-5);
  CHECK_FALSE(defaults.causal);
  const backward_pass::Inputs chosen = read({"--row", "3", "--column", "2", "--causal", "--no-check"});
  CHECK(chosen.loss_row == 2);
  CHECK(chosen.loss_column == 1);
  CHECK(chosen.causal);
  CHECK_FALSE(chosen.check);
  CHECK_THROWS_WITH(read({"--row", "4"}), Catch::StartsWith("--row"));
  CHECK_THROWS_WITH(read({"--column", "3"}), Catch::StartsWith("--column"));
  CHECK_THROWS_WITH(read({"--step", "0"}), Catch::StartsWith("--step is 0; expected a number above 0"));
  CHECK_THROWS_WITH(read({"--step", "2"}), Catch::StartsWith("--step is 2"));
  CHECK_THROWS_WITH(read({"--d-model", "3"}), Catch::StartsWith("--d-model is 3; expected an even number"));
  CHECK_THROWS_WITH(read({"--length", "9"}), Catch::StartsWith("--length"));
  CHECK_THROWS_WITH(read({"--causal", "--q", "1,0;0,1", "--k", "1,0;0,1;1,1", "--v", "1;2;3"}),
                    Catch::StartsWith("--causal compares positions"));
  std::string rows = "1";
  for (int i = 1; i < 17; ++i) rows += ";1";
  CHECK_THROWS_WITH(read({"--q", rows, "--k", rows, "--v", rows}), Catch::StartsWith("--q, --k, --v: at most 16"));
}

TEST_CASE("compute refuses an output or a gradient that overflows", "[ch10]") {
  Matrix q(2, 1), k(2, 1), v(2, 1);
  k << 0, 0;  // every score 0: each weight 1/2
  q << 0, 0;
  v << 1.0, std::numeric_limits<double>::infinity();  // half of infinity is still infinite
  CHECK_THROWS_WITH(walk(tokens_of(q, k, v), 0, 0), Catch::StartsWith("--v: the output overflows"));
  // v = (1e308 −1e308): O = 0 is fine, but dS_0j = ±1e308 / 2 and dK = dSᵀ Q with q = 10 is ±5e308.
  q << 10, 10;
  v << 1e308, -1e308;
  CHECK_THROWS_WITH(walk(tokens_of(q, k, v), 0, 0), Catch::StartsWith("--v: a gradient overflows"));
}

}  // namespace test_backward_pass
