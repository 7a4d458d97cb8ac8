// The whole formula softmax(QKᵀ/√d_k)V (chapter 3).
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "support.hpp"

using attention::AttentionOptions;
using attention::Mask;
using attention::Matrix;

// The hand-worked lesson works the toy through by hand and prints every value to 3 decimals.
TEST_CASE("the toy through the whole formula matches the hand-worked tables", "[ch03]") {
  const support::Toy toy;
  const auto steps = attention::scaled_dot_product_attention(toy.queries, toy.keys, toy.values);
  Matrix weights(3, 3), output(3, 2);
  weights << 0.576, 0.140, 0.284,  //
      0.198, 0.401, 0.401,         //
      0.401, 0.198, 0.401;
  output << 0.718, 0.282,  //
      0.398, 0.602,        //
      0.602, 0.398;
  CHECK((steps.weights - weights).cwiseAbs().maxCoeff() < 0.0005);
  CHECK((steps.output - output).cwiseAbs().maxCoeff() < 0.0005);
  CHECK(steps.scaled_scores(0, 0) == Approx(std::sqrt(2.0)));  // 2 / √2
  CHECK(steps.masked_scores == steps.scaled_scores);           // no mask
}

TEST_CASE("each output row is the weighted average of the values", "[ch03]") {
  std::mt19937_64 generator(11);
  const Matrix queries = support::random_matrix(4, 3, generator);
  const Matrix keys = support::random_matrix(6, 3, generator);
  const Matrix values = support::random_matrix(6, 5, generator);
  const auto steps = attention::scaled_dot_product_attention(queries, keys, values);
  for (Eigen::Index i = 0; i < 4; ++i) {
    Eigen::RowVectorXd average = Eigen::RowVectorXd::Zero(5);
    for (Eigen::Index j = 0; j < 6; ++j) average += steps.weights(i, j) * values.row(j);
    CHECK(steps.output.row(i).isApprox(average, 1e-13));
    CHECK(steps.weights.row(i).sum() == Approx(1.0));
  }
}

TEST_CASE("permuting the keys and values together changes nothing", "[ch03]") {
  std::mt19937_64 generator(5);
  const Matrix queries = support::random_matrix(3, 4, generator);
  const Matrix keys = support::random_matrix(5, 4, generator);
  const Matrix values = support::random_matrix(5, 2, generator);
  Eigen::PermutationMatrix<Eigen::Dynamic> permutation(5);
  permutation.indices() << 3, 0, 4, 1, 2;
  const Matrix output = attention::scaled_dot_product_attention(queries, keys, values).output;
  const Matrix permuted =
      attention::scaled_dot_product_attention(queries, Matrix(permutation * keys), Matrix(permutation * values)).output;
  CHECK(permuted.isApprox(output, 1e-13));
}

TEST_CASE("shapes that do not fit are refused", "[ch03]") {
  const support::Toy toy;
  CHECK_THROWS_AS(attention::scaled_dot_product_attention(toy.queries, toy.keys, Matrix(Matrix::Zero(2, 2))),
                  std::invalid_argument);
  AttentionOptions wrong_mask;
  wrong_mask.mask = attention::causal_mask(4);
  CHECK_THROWS_AS(attention::scaled_dot_product_attention(toy.queries, toy.keys, toy.values, wrong_mask),
                  std::invalid_argument);
}
