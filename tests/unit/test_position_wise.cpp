// A fully connected layer on each vector, and windows of neighbours (chapter 0).
#include <stdexcept>

#include <catch2/catch.hpp>

#include "attention/position_wise.hpp"

using attention::Matrix;

TEST_CASE("a layer on each row: equal rows give equal outputs, bit for bit, and the values are x W + b", "[ch00]") {
  Matrix inputs(4, 3);
  inputs << 0.1, -2.0, 0.3,  //
      0.7, 0.25, -1.5,       //
      -0.4, 0.9, 2.2,        //
      0.7, 0.25, -1.5;       // the same as row 2
  Matrix weights(3, 2);
  weights << 0.3, -1.1,  //
      2.0, 0.5,          //
      -0.7, 0.9;
  Eigen::RowVectorXd bias(2);
  bias << 0.125, -0.5;
  const Matrix outputs = attention::each_row_through_layer(inputs, weights, bias);
  CHECK(outputs.row(1) == outputs.row(3));
  CHECK(outputs(0, 0) == Approx(0.125 + 0.1 * 0.3 + -2.0 * 2.0 + 0.3 * -0.7).epsilon(1e-15));
  const Matrix expected = (inputs * weights).rowwise() + bias;
  CHECK(outputs.isApprox(expected, 1e-14));
  CHECK_THROWS_AS(attention::each_row_through_layer(inputs, Matrix::Zero(2, 2), bias), std::invalid_argument);
  CHECK_THROWS_AS(attention::each_row_through_layer(inputs, weights, Eigen::RowVectorXd::Zero(3)),
                  std::invalid_argument);
}

TEST_CASE("windows lay the neighbours side by side, with zeros beyond the ends", "[ch00]") {
  Matrix inputs(3, 1);
  inputs << 1, 2, 3;
  Matrix expected(3, 3);
  expected << 0, 1, 2,  //
      1, 2, 3,          //
      2, 3, 0;
  CHECK(attention::windows(inputs, 1) == expected);
  CHECK(attention::windows(inputs, 0) == inputs);
  const Matrix wide = attention::windows(inputs, 2);
  REQUIRE(wide.cols() == 5);
  CHECK(wide.row(0) == (Eigen::RowVectorXd(5) << 0, 0, 1, 2, 3).finished());
  CHECK_THROWS_AS(attention::windows(inputs, -1), std::invalid_argument);
}

TEST_CASE("a window layer's weights grow with the window", "[ch00]") {
  CHECK(attention::window_layer_parameters(0, 4, 4) == 20);
  CHECK(attention::window_layer_parameters(1, 4, 4) == 52);
  CHECK(attention::window_layer_parameters(999, 4, 4) == 1999 * 16 + 4);
  CHECK(attention::window_layer_parameters(999999, 64, 64) == 1999999LL * 4096 + 64);
  CHECK_THROWS_AS(attention::window_layer_parameters(-1, 4, 4), std::invalid_argument);
}
