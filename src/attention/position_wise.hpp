/// @file position_wise.hpp
/// @brief A fully connected layer applied to each vector of a set on its own, and the windows that let it see neighbours.
///
/// The plainest way to label every vector of a sequence is to give each one,
/// alone, to the same fully connected layer: y_t = x_t W + b. The layer sees
/// one vector at a time, so two equal vectors get equal outputs wherever they
/// stand. Giving it a window instead, the vector with its neighbours side by
/// side, lets the context change the output, at the price of a weight matrix
/// that grows with the window.
#pragma once

#include <stdexcept>

#include "attention/matrix.hpp"

namespace attention {

/// @brief A fully connected layer applied to each row of @p inputs separately: row t of the result is inputs_t W + b.
///
/// Each row goes through the same loops, one row at a time, and nothing
/// from any other row enters its sum: the same input row gives the same
/// output row, bit for bit, wherever it stands in the set.
/// @param inputs n × d, one vector per row
/// @param weights d × c, the layer's weight matrix W
/// @param bias 1 × c, the layer's bias b
/// @return the n × c matrix of outputs, one row per input row
/// @throws std::invalid_argument if the widths do not fit together
inline Matrix each_row_through_layer(const Matrix& inputs, const Matrix& weights, const Eigen::RowVectorXd& bias) {
  if (inputs.cols() != weights.rows() || weights.cols() != bias.cols()) {
    throw std::invalid_argument("each_row_through_layer: inputs (n × d), weights (d × c) and bias (1 × c) do not fit");
  }
  Matrix outputs(inputs.rows(), weights.cols());
  for (Eigen::Index t = 0; t < inputs.rows(); ++t) {
    // clang-format off
    // [layer_on_one_row]
    for (Eigen::Index o = 0; o < weights.cols(); ++o) {
      double sum = bias(o);
      for (Eigen::Index i = 0; i < weights.rows(); ++i) {
        sum += inputs(t, i) * weights(i, o);  // only row t of the inputs
      }
      outputs(t, o) = sum;
    }
    // [layer_on_one_row]
    // clang-format on
  }
  return outputs;
}

/// @brief Each row with its @p radius neighbours on either side, laid end to end: the input of a window layer.
///
/// Row t of the result is rows t − radius, …, t, …, t + radius of @p inputs,
/// side by side, (2 · radius + 1) · d entries in all. A neighbour beyond
/// either end of the set is a row of zeros (zero padding), so the first and
/// last @p radius rows see zeros where the others see words.
/// @param inputs n × d, one vector per row
/// @param radius how many neighbours on each side, at least 0
/// @return the n × (2 · radius + 1) · d matrix of windows
/// @throws std::invalid_argument if @p radius is negative
inline Matrix windows(const Matrix& inputs, Eigen::Index radius) {
  if (radius < 0) {
    throw std::invalid_argument("windows: the radius must not be negative");
  }
  const Eigen::Index n = inputs.rows(), d = inputs.cols(), width = 2 * radius + 1;
  Matrix stacked = Matrix::Zero(n, width * d);
  // clang-format off
  // [windows]
  for (Eigen::Index t = 0; t < n; ++t) {
    for (Eigen::Index offset = -radius; offset <= radius; ++offset) {
      const Eigen::Index source = t + offset;
      if (source >= 0 && source < n) {  // beyond the ends: left as zeros
        // NumPy: stacked[t, s:s + d] = inputs[source],
        // with s = (offset + radius) * d, the slot's first column
        stacked.block(t, (offset + radius) * d, 1, d) = inputs.row(source);
      }
    }
  }
  // [windows]
  // clang-format on
  return stacked;
}

/// @brief The number of weights and biases of a fully connected layer that reads a window of 2 · @p radius + 1 vectors of width @p width and gives @p outputs numbers.
///
/// The layer's W is ((2 · radius + 1) · width) × outputs and its b has
/// @p outputs entries: (2 · radius + 1) · width · outputs + outputs in all.
/// Radius 0 is the layer that sees one vector.
/// @param radius neighbours on each side, at least 0
/// @param width the width d of each vector, at least 0
/// @param outputs the number of outputs (chapter 0: one per tag), at least 0
/// @return the count
/// @throws std::invalid_argument if an argument is negative
inline long long window_layer_parameters(long long radius, long long width, long long outputs) {
  if (radius < 0 || width < 0 || outputs < 0) {
    throw std::invalid_argument("window_layer_parameters: the radius, width and outputs must not be negative");
  }
  // clang-format off
  // [window_layer_parameters]
  return (2 * radius + 1) * width * outputs + outputs;
  // [window_layer_parameters]
  // clang-format on
}

}  // namespace attention
