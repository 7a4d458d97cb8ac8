// The core in float: softmax, masks, attention, its backward pass and the gradient check, run in float on the
// same inputs as in double (cast once), agree with double to float's precision.
//
// The bounds below are a rounding analysis, not the observed differences. u = 2⁻²⁴ is float's unit roundoff
// (half its spacing at 1, round to nearest): each float operation, and each cast of a double input to float,
// is off by at most u relative (std::exp by at most about 1 ulp, counted as 2u). Double's own rounding (2⁻⁵³)
// is negligible beside it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>

#include "attention/attention.hpp"
#include "attention/attention_backward.hpp"
#include "attention/gradient_check.hpp"
#include "attention/mask.hpp"
#include "attention/matrix.hpp"
#include "attention/softmax.hpp"
#include "support.hpp"

namespace float_core_tests {

using attention::Matrix;
using attention::MatrixOf;

constexpr double u = 0x1p-24;  // float's unit roundoff

MatrixOf<float> in_float(const Matrix& m) { return m.cast<float>(); }
Matrix in_double(const MatrixOf<float>& m) { return m.cast<double>(); }

/// |Δs|: the absolute error of a float score q·k/√d. The casts of q and k (2u), a dot product of d terms
/// (d·u) and the scale (u), each relative to Σ|q_l||k_l|/√d, the score summed without cancellation.
Matrix score_error(const Matrix& q, const Matrix& k) {
  const double d = static_cast<double>(q.cols());
  return (d + 3.0) * u * (q.cwiseAbs() * k.cwiseAbs().transpose()) / std::sqrt(d);
}

/// The relative error of each float weight e^(s − m)/Σ e^(s_l − m), for scores whose float errors are at most
/// @p score_error and whose differences s − m are at most @p spread. The exponent s − m carries the errors of
/// s and of m (2·score_error, absolute) and its own rounding (spread·u); e^x turns an absolute error ε in x
/// into a relative one, and adds its own (2u): a per exponential. The numerator carries a, the denominator a
/// sum of m terms each carrying at most a, plus m·u for the sum; the division adds u.
double weight_error(double score_error, double spread, Eigen::Index keys) {
  const double exponential_error = 2.0 * score_error + spread * u + 2.0 * u;
  return 2.0 * exponential_error + static_cast<double>(keys + 1) * u;
}

/// The same for the scores of Q and K: the spread is at most twice the largest score's size.
double weight_error(const Matrix& q, const Matrix& k) {
  const double d = static_cast<double>(q.cols());
  const double largest_score = (q.cwiseAbs() * k.cwiseAbs().transpose()).maxCoeff() / std::sqrt(d);
  return weight_error(score_error(q, k).maxCoeff(), 2.0 * largest_score, k.rows());
}

}  // namespace float_core_tests

using float_core_tests::in_double;  // the names are this file's alone (the tests are one unity build)
using float_core_tests::in_float;

TEST_CASE("float softmax rows sum to 1 and agree with double to float precision", "[ch17]") {
  std::mt19937_64 generator(17);
  const Matrix scores = 3.0 * support::random_matrix(5, 8, generator);
  const attention::MatrixOf<float> weights = attention::softmax_rows(in_float(scores));
  const Matrix reference = attention::softmax_rows(Matrix(in_double(in_float(scores))));
  // The scores are exact in float (cast back, the double reference sees the same numbers): no score error.
  const double spread = 2.0 * scores.cwiseAbs().maxCoeff();
  const double bound = float_core_tests::weight_error(0.0, spread, scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      CHECK(std::abs(static_cast<double>(weights(i, j)) - reference(i, j)) <= bound * reference(i, j));
    }
    // The sum of the row in float: each weight within bound of its share, and m float additions.
    const double row_sum = static_cast<double>(weights.row(i).sum());
    CHECK(std::abs(row_sum - 1.0) <= bound + static_cast<double>(scores.cols()) * float_core_tests::u);
  }
}

TEST_CASE("a float mask gives weight exactly 0 and a fully masked row all 0", "[ch17]") {
  std::mt19937_64 generator(18);
  const attention::MatrixOf<float> q = in_float(support::random_matrix(4, 3, generator));
  const attention::MatrixOf<float> k = in_float(support::random_matrix(4, 3, generator));
  const attention::MatrixOf<float> v = in_float(support::random_matrix(4, 2, generator));
  attention::AttentionOptions options;
  attention::Mask allowed = attention::causal_mask(4);
  allowed.row(2).setConstant(false);  // query 3 may see nothing
  options.mask = allowed;
  const attention::AttentionSteps<float> steps = attention::scaled_dot_product_attention(q, k, v, options);
  for (Eigen::Index i = 0; i < 4; ++i) {
    for (Eigen::Index j = 0; j < 4; ++j) {
      if (!allowed(i, j)) CHECK(steps.weights(i, j) == 0.0f);  // exactly
    }
  }
  CHECK(steps.output.row(2).cwiseAbs().maxCoeff() == 0.0f);
  CHECK(steps.masked_scores(0, 1) == -std::numeric_limits<float>::infinity());
  // The first query sees only the first key: its weight is exactly 1.
  CHECK(steps.weights(0, 0) == 1.0f);
}

TEST_CASE("on the toy a finite fill of -200 leaks in double and not in float, and -1000 in neither", "[ch04]") {
  // Chapter 4: float "stores 0 sooner", and "on the toy, −1000 leaks nothing in either format". A masked weight is
  // at most e^-gap, and the gap is at least |fill| here (the toy's largest scaled score in each row is at least
  // 0). Float's smallest positive number, 2^-149, is e^-103.3, and double's, 2^-1074, is e^-744.4: a gap of 200
  // rounds to 0 in float and not in double (e^-201.4 is about 3.4e-88); a gap of 1000 rounds to 0 in both.
  const support::Toy toy;
  const auto masked_weights = [&](double fill, bool single) {
    attention::AttentionOptions options;
    options.mask = attention::causal_mask(3);
    options.fill = fill;
    if (single) {
      return in_double(attention::scaled_dot_product_attention(in_float(toy.queries), in_float(toy.keys),
                                                               in_float(toy.values), options)
                           .weights);
    }
    return attention::scaled_dot_product_attention(toy.queries, toy.keys, toy.values, options).weights;
  };
  const Matrix float_200 = masked_weights(-200.0, true), double_200 = masked_weights(-200.0, false);
  const Matrix float_1000 = masked_weights(-1000.0, true), double_1000 = masked_weights(-1000.0, false);
  for (const auto& [i, j] : {std::pair<Eigen::Index, Eigen::Index>{0, 1}, {0, 2}, {1, 2}}) {
    CHECK(float_200(i, j) == 0.0);
    CHECK(double_200(i, j) > 0.0);
    CHECK(double_200(i, j) < std::exp(-200.0));
    CHECK(float_1000(i, j) == 0.0);
    CHECK(double_1000(i, j) == 0.0);
  }
}

TEST_CASE("float softmax refuses NaN and +infinity", "[ch17]") {
  attention::MatrixOf<float> scores = attention::MatrixOf<float>::Zero(2, 3);
  scores(1, 2) = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_AS(attention::softmax_rows(scores), std::invalid_argument);
  scores(1, 2) = std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS(attention::softmax_rows(scores), std::invalid_argument);
  scores(1, 2) = -std::numeric_limits<float>::infinity();
  CHECK(attention::softmax_rows(scores)(1, 2) == 0.0f);
}

TEST_CASE("float attention agrees with double to float precision", "[ch17]") {
  std::mt19937_64 generator(19);
  const Matrix q = support::random_matrix(5, 4, generator);
  const Matrix k = support::random_matrix(6, 4, generator);
  const Matrix v = support::random_matrix(6, 3, generator);
  const auto single = attention::scaled_dot_product_attention(in_float(q), in_float(k), in_float(v));
  const attention::AttentionSteps<> reference = attention::scaled_dot_product_attention(q, k, v);
  const double weight_bound = float_core_tests::weight_error(q, k);
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    for (Eigen::Index j = 0; j < k.rows(); ++j) {
      CHECK(std::abs(static_cast<double>(single.weights(i, j)) - reference.weights(i, j)) <=
            weight_bound * reference.weights(i, j));
    }
  }
  // o = Σ_j w_j v_j: each term off by the weight's error, the cast of v (u) and its product (u), the sum of m
  // terms (m·u), relative to Σ_j w_j |v_j|.
  const Matrix magnitude = reference.weights * v.cwiseAbs();
  const double output_bound = weight_bound + static_cast<double>(k.rows() + 2) * float_core_tests::u;
  const Matrix difference = (in_double(single.output) - reference.output).cwiseAbs();
  CHECK((difference.array() <= output_bound * magnitude.array()).all());
}

TEST_CASE("float attention_backward agrees with the double backward to float precision", "[ch10]") {
  std::mt19937_64 generator(20);
  const Matrix q = support::random_matrix(5, 4, generator);
  const Matrix k = support::random_matrix(5, 4, generator);
  const Matrix v = support::random_matrix(5, 3, generator);
  const Matrix output_gradient = support::random_matrix(5, 3, generator);
  const auto steps = attention::scaled_dot_product_attention(in_float(q), in_float(k), in_float(v));
  const attention::AttentionGradients<float> single =
      attention::attention_backward(in_float(q), in_float(k), in_float(v), steps, in_float(output_gradient));
  const auto reference_steps = attention::scaled_dot_product_attention(q, k, v);
  const auto reference = attention::attention_backward(q, k, v, reference_steps, output_gradient);
  // The same chain as the forward pass, with every sum taken in absolute values (no cancellation), so that an
  // entry's error is bounded by a multiple of u times its magnitude: dW = dO·Vᵀ (casts and d_v terms),
  // dS = W ⊙ (dW − Σ_j dW_j W_j) (the weights' error twice, m terms), then dQ = dS·K/√d and dK = dSᵀ·Q/√d
  // (casts, m terms, the scale).
  const double n = static_cast<double>(q.rows());
  const double d = static_cast<double>(q.cols());
  const double w = float_core_tests::weight_error(q, k);
  const double u = float_core_tests::u;
  const Matrix& weights = reference_steps.weights;
  const Matrix weights_gradient_size = output_gradient.cwiseAbs() * v.cwiseAbs().transpose();
  const Matrix scores_gradient_size = weights.cwiseProduct(
      (weights_gradient_size.colwise() + weights.cwiseProduct(weights_gradient_size).rowwise().sum()));
  const double scores_bound = 2.0 * w + (static_cast<double>(v.cols()) + n + 6.0) * u;
  const Matrix queries_size = scores_gradient_size * k.cwiseAbs() / std::sqrt(d);
  const Matrix keys_size = scores_gradient_size.transpose() * q.cwiseAbs() / std::sqrt(d);
  const double query_bound = scores_bound + (n + 4.0) * u;
  const Matrix values_size = weights.transpose() * output_gradient.cwiseAbs();
  const double values_bound = w + (n + 3.0) * u;
  CHECK(
      ((in_double(single.queries) - reference.queries).cwiseAbs().array() <= query_bound * queries_size.array()).all());
  CHECK(((in_double(single.keys) - reference.keys).cwiseAbs().array() <= query_bound * keys_size.array()).all());
  CHECK(((in_double(single.values) - reference.values).cwiseAbs().array() <= values_bound * values_size.array()).all());
}

TEST_CASE("the gradient check runs in float with a step of 1e-2", "[ch10]") {
  std::mt19937_64 generator(21);
  attention::MatrixOf<float> q = in_float(support::random_matrix(4, 3, generator));
  attention::MatrixOf<float> k = in_float(support::random_matrix(4, 3, generator));
  attention::MatrixOf<float> v = in_float(support::random_matrix(4, 2, generator));
  const attention::MatrixOf<float> direction = in_float(support::random_matrix(4, 2, generator));
  const auto loss = [&] {
    return attention::scaled_dot_product_attention(q, k, v).output.cwiseProduct(direction).sum();
  };
  const auto steps = attention::scaled_dot_product_attention(q, k, v);
  const auto gradients = attention::attention_backward(q, k, v, steps, direction);
  // At h = 1e-2 the central difference is off by h²/6·|L'''| (about 2e-5 times a third derivative of the size
  // of the inputs) plus the rounding of the two losses, about u·Σ|terms of L|/h (about 6e-6 times it): both
  // far below 1e-3, which a wrong gradient (an error of order 1) would exceed.
  const float step = 1e-2f;
  const float q_error = attention::relative_error(gradients.queries, attention::central_differences(loss, q, step));
  const float k_error = attention::relative_error(gradients.keys, attention::central_differences(loss, k, step));
  const float v_error = attention::relative_error(gradients.values, attention::central_differences(loss, v, step));
  CHECK(q_error < 1e-3f);
  CHECK(k_error < 1e-3f);
  CHECK(v_error < 1e-3f);
  // The parameters are put back exactly.
  CHECK(attention::scaled_dot_product_attention(q, k, v).output == steps.output);
}
