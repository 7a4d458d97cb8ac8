// Masks, and the formula with a mask (chapter 4).
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

using support::infinity;

TEST_CASE("the masks allow what they say", "[ch04]") {
  Mask causal(3, 3), band(4, 4), padding(2, 3);
  causal << true, false, false,  //
      true, true, false,         //
      true, true, true;
  band << true, true, false, false,  //
      true, true, true, false,       //
      false, true, true, true,       //
      false, false, true, true;
  padding << true, true, false,  //
      true, true, false;
  CHECK((attention::causal_mask(3) == causal).all());
  CHECK((attention::band_mask(4, 1) == band).all());
  CHECK((attention::padding_mask(2, 3, 2) == padding).all());
  CHECK(attention::band_mask(4, 3).all());
  CHECK(attention::band_mask(4, 0).count() == 4);  // only the diagonal
  CHECK_THROWS_AS(attention::band_mask(4, -1), std::invalid_argument);
  CHECK_THROWS_AS(attention::padding_mask(2, 3, 4), std::invalid_argument);
  CHECK_THROWS_AS(attention::apply_mask(Matrix(Matrix::Zero(2, 2)), attention::causal_mask(3)), std::invalid_argument);
}

TEST_CASE("causal mask on the toy: the first token sees only itself and the last sees everything", "[ch04]") {
  const support::Toy toy;
  AttentionOptions causal;
  causal.mask = attention::causal_mask(3);
  const auto masked = attention::scaled_dot_product_attention(toy.queries, toy.keys, toy.values, causal);
  const auto unmasked = attention::scaled_dot_product_attention(toy.queries, toy.keys, toy.values);
  CHECK(masked.weights(0, 0) == 1.0);
  CHECK(masked.weights(0, 1) == 0.0);  // exactly 0, not small
  CHECK(masked.weights(0, 2) == 0.0);
  CHECK(masked.weights(1, 2) == 0.0);
  CHECK(masked.output.row(0) == toy.values.row(0));  // v_1 exactly
  CHECK(masked.output.row(2) == unmasked.output.row(2));
  CHECK(masked.masked_scores(0, 1) == -infinity);
}

TEST_CASE("with equal scores and a causal mask, query i gives each key it sees 1/(i + 1)", "[ch06]") {
  // Chapter 6: "A query at position i that weighs all the keys it may see equally gives each of them 1/(i + 1)".
  // Zero queries and keys make every score 0; the mask leaves query i its i + 1 keys, each e^0 over a sum of i + 1.
  std::mt19937_64 generator(61);
  const Matrix zeros = Matrix::Zero(5, 2);
  AttentionOptions causal;
  causal.mask = attention::causal_mask(5);
  const auto steps =
      attention::scaled_dot_product_attention(zeros, zeros, support::random_matrix(5, 2, generator), causal);
  for (Eigen::Index i = 0; i < 5; ++i) {
    for (Eigen::Index j = 0; j < 5; ++j) {
      if (j <= i) {
        CHECK(steps.weights(i, j) == Approx(1.0 / static_cast<double>(i + 1)).margin(1e-15));
      } else {
        CHECK(steps.weights(i, j) == 0.0);
      }
    }
  }
}

TEST_CASE("with a causal mask a change to a later token leaves every earlier output bit for bit unchanged", "[ch04]") {
  std::mt19937_64 generator(2017);
  const Eigen::Index n = 6;
  const Matrix queries = support::random_matrix(n, 4, generator);
  const Matrix keys = support::random_matrix(n, 4, generator);
  const Matrix values = support::random_matrix(n, 3, generator);
  AttentionOptions causal;
  causal.mask = attention::causal_mask(n);
  const Matrix output = attention::scaled_dot_product_attention(queries, keys, values, causal).output;
  for (Eigen::Index later = 1; later < n; ++later) {
    Matrix other_keys = keys, other_values = values;
    other_keys.row(later) = support::random_matrix(1, 4, generator);
    other_values.row(later) = support::random_matrix(1, 3, generator);
    const Matrix changed = attention::scaled_dot_product_attention(queries, other_keys, other_values, causal).output;
    CHECK(changed.topRows(later) == output.topRows(later));
    CHECK(changed.row(later) != output.row(later));
  }
}

TEST_CASE("a band whose radius reaches every token equals no mask", "[ch04]") {
  std::mt19937_64 generator(8);
  const Matrix x = support::random_matrix(5, 3, generator);
  AttentionOptions wide;
  wide.mask = attention::band_mask(5, 4);
  CHECK(attention::scaled_dot_product_attention(x, x, x, wide).output ==
        attention::scaled_dot_product_attention(x, x, x).output);
}

TEST_CASE("a query with every key masked gets zero weights and a zero output and not NaN", "[ch04]") {
  const support::Toy toy;
  AttentionOptions none_real;
  none_real.mask = attention::padding_mask(3, 3, 0);
  const auto steps = attention::scaled_dot_product_attention(toy.queries, toy.keys, toy.values, none_real);
  CHECK(steps.weights == Matrix::Zero(3, 3));
  CHECK(steps.output == Matrix::Zero(3, 2));
}

TEST_CASE("a finite fill leaks weight that -infinity does not", "[ch04]") {
  const support::Toy toy;
  AttentionOptions causal;
  causal.mask = attention::causal_mask(3);
  causal.fill = -10.0;
  const auto leaky = attention::scaled_dot_product_attention(toy.queries, toy.keys, toy.values, causal);
  // Row 1 (cat): scaled scores √2, fill, fill -> the masked weight is e^-10 / (e^√2 + 2 e^-10).
  const double expected = std::exp(-10.0) / (std::exp(std::sqrt(2.0)) + 2 * std::exp(-10.0));
  CHECK(leaky.weights(0, 1) == Approx(expected).epsilon(1e-12));
  CHECK(leaky.weights(0, 1) > 0.0);
}
