// One-hot vectors and looking words up in an embedding table (chapter 0).
#include <cmath>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/embedding.hpp"
#include "attention/scores.hpp"

using attention::Matrix;

TEST_CASE("one-hot vectors are the rows of the identity, and every pair is orthogonal", "[ch00]") {
  for (const Eigen::Index words : {1, 2, 5, 30}) {
    const Matrix vectors = attention::one_hot(words);
    CHECK(vectors == Matrix::Identity(words, words));
    const Matrix dots = attention::scores(vectors, vectors);
    CHECK(dots == Matrix::Identity(words, words));  // 0 off the diagonal, exactly
  }
  CHECK_THROWS_AS(attention::one_hot(0), std::invalid_argument);
}

TEST_CASE("a lookup gives the same row for the same word, wherever it stands", "[ch00]") {
  Matrix table(3, 2);
  table << 1, 2,  //
      3, 4,       //
      5, 6;
  const Matrix sentence = attention::embedding_lookup(table, {0, 2, 1, 2});
  REQUIRE(sentence.rows() == 4);
  CHECK(sentence.row(0) == table.row(0));
  CHECK(sentence.row(1) == table.row(2));
  CHECK(sentence.row(1) == sentence.row(3));
  CHECK(attention::embedding_lookup(table, {}).rows() == 0);
  CHECK_THROWS_AS(attention::embedding_lookup(table, {3}), std::invalid_argument);
  CHECK_THROWS_AS(attention::embedding_lookup(table, {-1}), std::invalid_argument);
}
