// program::row_json, which chapters 3 and 4 use for one row of numbers: the
// same list as the one row of matrix_json, non-finite entries included.
#include <limits>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "program/json_output.hpp"

TEST_CASE("row_json writes a row as matrix_json writes a one-row matrix", "[ch03]") {
  const double inf = std::numeric_limits<double>::infinity();
  Eigen::RowVectorXd row(5);
  row << 0.1, -2.0, inf, -inf, std::numeric_limits<double>::quiet_NaN();
  const nlohmann::json expected = nlohmann::json::parse(R"([0.1, -2.0, "inf", "-inf", "NaN"])");
  CHECK(program::row_json(row) == expected);
  CHECK(program::row_json(row) == program::matrix_json(attention::Matrix(row))[0]);
  CHECK(program::row_json(row).dump() == program::matrix_json(attention::Matrix(row))[0].dump());
  CHECK(program::row_json(Eigen::RowVectorXd(0)) == nlohmann::json::array());
}
