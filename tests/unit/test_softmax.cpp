// Softmax by rows (chapter 3): values with an independent reason to be right, and the edge cases.
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "attention/softmax.hpp"
#include "support.hpp"

using support::row_of;

using attention::Matrix;

using support::infinity;

TEST_CASE("softmax of logarithms gives back the proportions", "[ch03]") {
  // e^(ln a) = a, so softmax(ln 1, ln 2, ln 3) = (1, 2, 3) / 6.
  const Matrix weights = attention::softmax_rows(row_of({std::log(1.0), std::log(2.0), std::log(3.0)}));
  CHECK(weights(0, 0) == Approx(1.0 / 6).epsilon(1e-15));
  CHECK(weights(0, 1) == Approx(2.0 / 6).epsilon(1e-15));
  CHECK(weights(0, 2) == Approx(3.0 / 6).epsilon(1e-15));
  // Equal scores share equally.
  CHECK(attention::softmax_rows(row_of({7, 7, 7, 7})) == Matrix::Constant(1, 4, 0.25));
}

TEST_CASE("rows sum to 1 and every weight is positive and at most 1 and adding a constant to a row changes nothing",
          "[ch03]") {
  std::mt19937_64 generator(3);
  const Matrix scores = 4.0 * support::random_matrix(20, 9, generator);
  const Matrix weights = attention::softmax_rows(scores);
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    CHECK(weights.row(i).sum() == Approx(1.0).epsilon(1e-14));
    CHECK(weights.row(i).minCoeff() > 0.0);
    CHECK(weights.row(i).maxCoeff() <= 1.0);
  }
  const Matrix shifted = attention::softmax_rows(Matrix((scores.array() + 123.0).matrix()));
  CHECK(shifted.isApprox(weights, 1e-12));
}

TEST_CASE("huge scores: stable where the textbook formula gives NaN", "[ch03]") {
  const Matrix far_apart = row_of({1e300, -1e300});
  CHECK(attention::softmax_rows(far_apart) == row_of({1.0, 0.0}));
  CHECK(attention::softmax_rows(row_of({1e300, 1e300})) == row_of({0.5, 0.5}));
  CHECK(attention::softmax_rows(row_of({-1e300, -1e300})) == row_of({0.5, 0.5}));
  // e^1e300 overflows to +inf and inf / inf is NaN; e^-1e300 underflows to 0 and 0 / 0 is NaN.
  CHECK(std::isnan(attention::softmax_rows_unstable(far_apart)(0, 0)));
  CHECK(std::isnan(attention::softmax_rows_unstable(row_of({-1e300, -1e300}))(0, 0)));
  // Below the overflow threshold the two agree.
  CHECK(
      attention::softmax_rows_unstable(row_of({1, 2, 3})).isApprox(attention::softmax_rows(row_of({1, 2, 3})), 1e-15));
}

TEST_CASE("e to the -infinity is exactly 0 on every path", "[ch03]") {
  // Long rows, where Eigen would vectorise: no masked weight may leak.
  attention::Matrix scores = attention::Matrix::Constant(3, 17, -infinity);
  scores.col(5).setConstant(1.0);
  const attention::Matrix weights = attention::softmax_rows(scores);
  CHECK(weights.col(5) == attention::Matrix::Ones(3, 1));
  CHECK((weights.array() == 0.0).count() == 3 * 16);
  CHECK(attention::softmax_rows_unstable(scores) == weights);
  CHECK(attention::exponential(-infinity) == 0.0);
#ifdef EIGEN_VECTORIZE
  // Why the library calls std::exp (the chapter's reason): Eigen's vectorised exponential clamps its argument, so
  // e^−∞ comes out a tiny positive number in its vector lanes, and a masked score would leak a weight.
  const Eigen::ArrayXd vectorised = Eigen::ArrayXd::Constant(16, -infinity).exp();
  CHECK((vectorised > 0.0).any());
#endif
}

TEST_CASE("a one-element row has weight exactly 1", "[ch03]") {
  for (double score : {0.0, -5.0, 1e300, -1e300}) {
    CHECK(attention::softmax_rows(row_of({score}))(0, 0) == 1.0);
  }
}

TEST_CASE("a score of -infinity is masked: weight exactly 0", "[ch03]") {
  const Matrix weights = attention::softmax_rows(row_of({-infinity, 0.0, -infinity, 0.0}));
  CHECK(weights == row_of({0.0, 0.5, 0.0, 0.5}));
  CHECK(attention::softmax_rows(row_of({3.0, -infinity})) == row_of({1.0, 0.0}));
}

TEST_CASE("a row with every score -infinity gets all-zero weights and not NaN", "[ch03]") {
  Matrix scores(2, 3);
  scores << -infinity, -infinity, -infinity,  //
      1, 2, 3;
  const Matrix weights = attention::softmax_rows(scores);
  CHECK(weights.row(0) == Matrix::Zero(1, 3));
  CHECK(weights.row(1).sum() == Approx(1.0));
}

TEST_CASE("NaN and +infinity are refused with the entry named", "[ch03]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(attention::softmax_rows(row_of({0.0, nan})), Catch::Contains("score (1, 2) is NaN"));
  CHECK_THROWS_WITH(attention::softmax_rows(row_of({infinity, 0.0})), Catch::Contains("score (1, 1) is +infinity"));
  CHECK_THROWS_AS(attention::softmax_rows(row_of({nan})), std::invalid_argument);
}

TEST_CASE("no keys and no weights", "[ch03]") {
  CHECK(attention::softmax_rows(Matrix(3, 0)).cols() == 0);
  CHECK(attention::softmax_rows(Matrix(0, 3)).rows() == 0);
}
