// The dot product and the score matrix QKᵀ (chapter 1).
#include <random>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "attention/dot_product.hpp"
#include "attention/scores.hpp"
#include "support.hpp"

using attention::Matrix;
using attention::Vector;

namespace {
Vector vector_of(std::initializer_list<double> entries) { return support::row_of(entries).row(0).transpose(); }

Matrix whole_numbers(Matrix m) { return m.array().round().matrix(); }
}  // namespace

// Each value below is small enough to check by hand.
TEST_CASE("dot products worked by hand", "[ch01]") {
  CHECK(attention::dot_product(vector_of({1, 2}), vector_of({3, 1})) == 5.0);    // 1·3 + 2·1
  CHECK(attention::dot_product(vector_of({1, 0}), vector_of({0, 1})) == 0.0);    // perpendicular
  CHECK(attention::dot_product(vector_of({1, 0}), vector_of({-1, 0})) == -1.0);  // opposite
  // Same direction, longer key: a larger score.
  CHECK(attention::dot_product(vector_of({1, 0}), vector_of({3, 0})) == 3.0);
  CHECK(attention::dot_product(vector_of({1, 0}), vector_of({1, 0})) == 1.0);
  CHECK(attention::dot_product(Vector(0), Vector(0)) == 0.0);  // the empty sum
}

TEST_CASE("a dot product of vectors of different widths is refused", "[ch01]") {
  CHECK_THROWS_AS(attention::dot_product(vector_of({1, 2}), vector_of({1, 2, 3})), std::invalid_argument);
}

// The toy sentence "cat eat fish": the hand-worked lesson works this table out.
TEST_CASE("the toy's score table", "[ch01]") {
  Matrix queries(3, 2), keys(3, 2), expected(3, 3);
  queries << 1, 0, 0, 1, 1, 1;
  keys << 2, 0, 0, 1, 1, 1;
  expected << 2, 0, 1,  //
      0, 1, 1,          //
      2, 1, 2;
  const Matrix scores = attention::scores(queries, keys);
  CHECK(scores == expected);
  SECTION("it is not symmetric: cat asks fish 1, fish asks cat 2") {
    CHECK(scores(0, 2) == 1.0);
    CHECK(scores(2, 0) == 2.0);
  }
}

TEST_CASE("entry (i j) of QKᵀ is query i · key j for random inputs", "[ch01]") {
  std::mt19937_64 generator(20170612);
  for (const auto& [n, m, d] : {std::tuple{1, 1, 1}, {3, 3, 2}, {5, 7, 4}, {16, 9, 64}, {2, 40, 3}}) {
    const Matrix queries = support::random_matrix(n, d, generator);
    const Matrix keys = support::random_matrix(m, d, generator);
    const Matrix scores = attention::scores(queries, keys);
    REQUIRE(scores.rows() == n);
    REQUIRE(scores.cols() == m);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < m; ++j) {
        const double expected = attention::dot_product(queries.row(i).transpose(), keys.row(j).transpose());
        CHECK(scores(i, j) == Approx(expected).epsilon(1e-12).margin(1e-12));
      }
    }
    CHECK(attention::scores_pair_by_pair(queries, keys).isApprox(scores, 1e-12));
  }
}

TEST_CASE("swapping the roles of queries and keys transposes the table", "[ch01]") {
  std::mt19937_64 generator(1706);
  // Whole numbers: every product and sum is exact, so the tables must match bit for bit.
  const Matrix a = whole_numbers(3 * support::random_matrix(6, 5, generator));
  const Matrix b = whole_numbers(3 * support::random_matrix(4, 5, generator));
  CHECK(attention::scores(b, a) == attention::scores(a, b).transpose());
}

TEST_CASE("queries and keys of different widths are refused", "[ch01]") {
  CHECK_THROWS_AS(attention::scores(Matrix(Matrix::Zero(3, 2)), Matrix(Matrix::Zero(3, 3))), std::invalid_argument);
  CHECK_THROWS_AS(attention::scores_pair_by_pair(Matrix::Zero(3, 2), Matrix::Zero(3, 3)), std::invalid_argument);
}

TEST_CASE("no tokens and no scores", "[ch01]") {
  CHECK(attention::scores(Matrix(0, 2), Matrix(Matrix::Zero(3, 2))).rows() == 0);
}
