// Additive attention, cross attention and convolution as attention (chapter 9).
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/additive_attention.hpp"
#include "attention/attention.hpp"
#include "attention/convolution_as_attention.hpp"
#include "attention/stopwatch.hpp"
#include "support.hpp"

using attention::Matrix;

namespace other_layers_tests {

attention::AdditiveWeights random_additive(Eigen::Index d_k, Eigen::Index d_a, std::mt19937_64& generator) {
  attention::AdditiveWeights weights;
  weights.query = support::random_matrix(d_k, d_a, generator);
  weights.key = support::random_matrix(d_k, d_a, generator);
  weights.v = support::random_matrix(d_a, 1, generator).col(0);
  return weights;
}

attention::Kernel random_kernel(Eigen::Index radius, Eigen::Index d_in, Eigen::Index d_out,
                                std::mt19937_64& generator) {
  attention::Kernel kernel;
  for (Eigen::Index t = 0; t < 2 * radius + 1; ++t)
    kernel.taps.push_back(support::random_matrix(d_in, d_out, generator));
  return kernel;
}

}  // namespace other_layers_tests

TEST_CASE("additive scores follow v tanh(q W_q + k W_k) entry by entry", "[ch09]") {
  const support::Toy toy;
  attention::AdditiveWeights weights;
  weights.query = Matrix::Identity(2, 2);
  weights.key = Matrix::Identity(2, 2);
  weights.v = attention::Vector::Ones(2);
  const attention::AdditiveSteps steps = attention::additive_attention(toy.queries, toy.keys, toy.values, weights);
  // cat (1,0) against fish (1,1): tanh(2) + tanh(1).
  CHECK(steps.scores(0, 2) == Approx(std::tanh(2.0) + std::tanh(1.0)).epsilon(1e-15));
  // eat (0,1) against cat (2,0): tanh(2) + tanh(1), the same pair of sums.
  CHECK(steps.scores(1, 0) == Approx(std::tanh(2.0) + std::tanh(1.0)).epsilon(1e-15));
  CHECK(steps.scores(0, 0) == Approx(std::tanh(3.0)).epsilon(1e-15));
  for (Eigen::Index i = 0; i < 3; ++i) CHECK(steps.weights.row(i).sum() == Approx(1.0).epsilon(1e-15));
  CHECK((steps.output - steps.weights * toy.values).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("additive scores stay within the norm of v however large the inputs", "[ch09]") {
  std::mt19937_64 generator(9);
  for (const Eigen::Index d_k : {2, 64, 512}) {
    const attention::AdditiveWeights weights = other_layers_tests::random_additive(d_k, 8, generator);
    const Matrix queries = 100.0 * support::random_matrix(5, d_k, generator);
    const Matrix keys = 100.0 * support::random_matrix(7, d_k, generator);
    const attention::AdditiveSteps steps = attention::additive_scores(queries, keys, weights);
    CHECK(steps.scores.cwiseAbs().maxCoeff() <= weights.v.cwiseAbs().sum());
    // The unscaled dot products of the same vectors are far larger.
    CHECK(attention::scores(queries, keys).cwiseAbs().maxCoeff() > weights.v.cwiseAbs().sum());
  }
}

TEST_CASE("additive attention refuses shapes that do not fit", "[ch09]") {
  const support::Toy toy;
  attention::AdditiveWeights weights;
  weights.query = Matrix::Identity(2, 3);
  weights.key = Matrix::Identity(2, 3);
  weights.v = attention::Vector::Ones(2);  // d_a is 3
  CHECK_THROWS_AS(attention::additive_attention(toy.queries, toy.keys, toy.values, weights), std::invalid_argument);
  weights.v = attention::Vector::Ones(3);
  CHECK_NOTHROW(attention::additive_attention(toy.queries, toy.keys, toy.values, weights));
  CHECK_THROWS_AS(attention::additive_attention(toy.queries, toy.keys, toy.values.topRows(2), weights),
                  std::invalid_argument);
  weights.key = Matrix::Identity(3, 3);
  CHECK_THROWS_AS(attention::additive_scores(toy.queries, toy.keys, weights), std::invalid_argument);
}

TEST_CASE("cross attention: n queries over m keys give an n by m weight matrix whose rows sum to 1", "[ch09]") {
  std::mt19937_64 generator(3);
  const Matrix target = support::random_matrix(3, 4, generator);
  const Matrix source = support::random_matrix(5, 4, generator);
  const attention::AttentionSteps steps = attention::scaled_dot_product_attention(target, source, source);
  CHECK(steps.weights.rows() == 3);
  CHECK(steps.weights.cols() == 5);
  CHECK(steps.output.rows() == 3);
  CHECK(steps.output.cols() == 4);
  for (Eigen::Index i = 0; i < 3; ++i) CHECK(steps.weights.row(i).sum() == Approx(1.0).epsilon(1e-15));
  // Reordering the source words permutes the columns and leaves the outputs unchanged (to rounding).
  Eigen::PermutationMatrix<Eigen::Dynamic> reverse(5);
  for (int j = 0; j < 5; ++j) reverse.indices()[j] = 4 - j;
  const Matrix reversed = reverse * source;
  const attention::AttentionSteps again = attention::scaled_dot_product_attention(target, reversed, reversed);
  CHECK((again.output - steps.output).cwiseAbs().maxCoeff() < 1e-14);
  CHECK((again.weights.rowwise().reverse() - steps.weights).cwiseAbs().maxCoeff() < 1e-15);
}

TEST_CASE("the offset mask allows one key per row, or none beyond the ends", "[ch09]") {
  const attention::Mask allowed = attention::offset_mask(4, -1);
  CHECK(allowed.row(0).count() == 0);
  for (Eigen::Index i = 1; i < 4; ++i) {
    CHECK(allowed.row(i).count() == 1);
    CHECK(allowed(i, i - 1));
  }
  CHECK(attention::offset_mask(3, 5).count() == 0);
  CHECK(attention::offset_mask(3, 0).count() == 3);
}

TEST_CASE("convolution as attention equals the convolution bit for bit on random inputs", "[ch09]") {
  std::mt19937_64 generator(2020);
  for (int trial = 0; trial < 200; ++trial) {
    std::uniform_int_distribution<Eigen::Index> size(1, 9), radius_of(0, 3);
    const Eigen::Index n = size(generator), d_in = size(generator), d_out = size(generator);
    const Eigen::Index radius = radius_of(generator);
    const Matrix inputs = support::random_matrix(n, d_in, generator);
    const attention::Kernel kernel = other_layers_tests::random_kernel(radius, d_in, d_out, generator);
    const Matrix convolution = attention::convolution_1d(inputs, kernel);
    const attention::ConvolutionAttentionSteps steps = attention::convolution_as_attention(inputs, kernel);
    INFO("trial " << trial << ": n " << n << ", d_in " << d_in << ", d_out " << d_out << ", R " << radius);
    REQUIRE(steps.output.rows() == n);
    REQUIRE(steps.output.cols() == d_out);
    CHECK((steps.output.array() == convolution.array()).all());
    for (const attention::OffsetHead& head : steps.heads) {
      // Each head's weights are one-hot (exactly 1 and exactly 0), or all 0 beyond the ends.
      CHECK(((head.attention.weights.array() == 0.0) || (head.attention.weights.array() == 1.0)).all());
    }
  }
}

TEST_CASE("the convolution follows its definition at the ends", "[ch09]") {
  Matrix inputs(4, 1);
  inputs << 1, 2, 3, 4;
  attention::Kernel kernel;
  for (const double w : {10.0, 100.0, 1000.0}) kernel.taps.push_back(Matrix::Constant(1, 1, w));
  // y_i = 10 x_{i-1} + 100 x_i + 1000 x_{i+1}, zero beyond the ends.
  Matrix expected(4, 1);
  expected << 100 + 2000, 10 + 200 + 3000, 20 + 300 + 4000, 30 + 400;
  CHECK(attention::convolution_1d(inputs, kernel) == expected);
  CHECK(attention::convolution_as_attention(inputs, kernel).output == expected);
  kernel.taps.pop_back();
  CHECK_THROWS_AS(attention::convolution_1d(inputs, kernel), std::invalid_argument);
  CHECK_THROWS_AS(attention::convolution_as_attention(inputs, kernel), std::invalid_argument);
}

TEST_CASE("timing in turns gives one time per repetition for each computation", "[ch09]") {
  int first_calls = 0, second_calls = 0;
  const auto [first, second] = attention::timed_in_turns([&] { return static_cast<double>(++first_calls); },
                                                         [&] { return static_cast<double>(++second_calls); }, 5, 1e-5);
  CHECK(first.size() == 5);
  CHECK(second.size() == 5);
  CHECK(first_calls >= 6);  // one untimed call, then at least one per repetition
  CHECK(second_calls >= 6);
  for (const double seconds : first) CHECK(seconds >= 0.0);
}

TEST_CASE("timing in turns of several computations: each round calls each in order, then the other turn", "[ch09]") {
  std::string order;  // what ran, in order: a letter per call, a digit per other turn
  const std::vector<attention::TimedWork> works{[&] {
                                                  order += 'a';
                                                  return 0.0;
                                                },
                                                [&] {
                                                  order += 'b';
                                                  return 0.0;
                                                },
                                                [&] {
                                                  order += 'c';
                                                  return 0.0;
                                                }};
  const std::vector<std::vector<double>> seconds =
      attention::timed_in_turns(works, {2, 1, 3}, 3,
                                [&](std::size_t repeat) { order += static_cast<char>('0' + repeat); });
  CHECK(order == "aabccc0aabccc1aabccc2");
  REQUIRE(seconds.size() == 3);
  for (const std::vector<double>& times : seconds) CHECK(times.size() == 3);
  CHECK_THROWS_AS(attention::timed_in_turns(works, {1, 1}, 3), std::invalid_argument);
  // calls_for: one untimed call, and at least one call per repetition
  int calls = 0;
  CHECK(attention::calls_for([&] { return static_cast<double>(++calls); }, 0.0) == 1);
  CHECK(calls == 1);
}
