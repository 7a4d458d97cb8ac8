// Euclidean distances between sets of vectors (chapter 0).
#include <cmath>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "attention/distance.hpp"
#include "attention/embedding.hpp"

using attention::Matrix;

TEST_CASE("distances from the definition: a 3-4-5 triangle, and one-hot words all √2 apart", "[ch00]") {
  Matrix points(3, 2);
  points << 0, 0,  //
      3, 0,        //
      3, 4;
  const Matrix distances = attention::euclidean_distances(points, points);
  CHECK(distances(0, 1) == 3.0);
  CHECK(distances(1, 2) == 4.0);
  CHECK(distances(0, 2) == 5.0);
  CHECK(distances == distances.transpose());
  CHECK(distances.diagonal().isZero(0.0));

  const Matrix one_hot = attention::one_hot(6);
  const Matrix flat = attention::euclidean_distances(one_hot, one_hot);
  for (Eigen::Index i = 0; i < 6; ++i) {
    for (Eigen::Index j = 0; j < 6; ++j) {
      CHECK(flat(i, j) == (i == j ? 0.0 : std::sqrt(2.0)));
    }
  }
}

TEST_CASE("distances of close vectors keep their digits", "[ch00]") {
  Matrix a(1, 1), b(1, 1);
  a << 1e8;
  b << 1e8 + 1.0;  // |a|² + |b|² − 2a·b would lose the 1 entirely
  CHECK(attention::euclidean_distances(a, b)(0, 0) == 1.0);
  CHECK_THROWS_AS(attention::euclidean_distances(Matrix::Zero(1, 2), Matrix::Zero(1, 3)), std::invalid_argument);
}
