// The toy's projections (program/toy.hpp): X W^Q, X W^K and X W^V are the
// queries, keys and values every chapter uses, exactly. The products are of
// small integers and halves, so any difference would be a wrong entry, not
// rounding.
#include <catch2/catch.hpp>

#include "program/matrix_text.hpp"
#include "program/toy.hpp"

namespace toy_tests {

TEST_CASE("the toy's projections make its queries, keys and values exactly", "[ch01]") {
  using program::parse_matrix;
  const attention::Matrix embeddings = parse_matrix(program::toy::embeddings, "X");
  REQUIRE(embeddings.rows() == 3);
  CHECK(embeddings * parse_matrix(program::toy::query_weights, "W^Q") == parse_matrix(program::toy::queries, "Q"));
  CHECK(embeddings * parse_matrix(program::toy::key_weights, "W^K") == parse_matrix(program::toy::keys, "K"));
  CHECK(embeddings * parse_matrix(program::toy::value_weights, "W^V") == parse_matrix(program::toy::values, "V"));
  // The comparison can fail: another W^Q gives other queries.
  CHECK(embeddings * parse_matrix(program::toy::key_weights, "W^K") != parse_matrix(program::toy::queries, "Q"));
}

}  // namespace toy_tests
