/// @file batch_gradient.hpp
/// @brief The mean of a batch's gradients: each example run forward and backward, the gradients added block by
/// block, the sum divided by the batch's size.
///
/// Every training step of the book (chapters 11, 13, 14, 15 and 16) hands
/// Adam this mean. The examples run in order 0, 1, …, batch − 1 and their
/// gradients are added in that order, so a run with a given seed is repeated
/// to the last bit.
#pragma once

#include <stdexcept>
#include <vector>

#include <Eigen/Core>

#include "attention/adam.hpp"

namespace attention {

/// @brief The mean of @p batch examples' gradients, as a training step hands it to Adam.
/// @param batch how many examples, at least 1
/// @param example example(b) runs example b forward and backward and returns its gradient, a set of weights
///   (TokenClassifierWeights, say)
/// @param blocks blocks(gradient) lists a gradient's parameter blocks, in the order Adam was given the weights'
/// @return the mean gradient, of the type example() returns
/// @throws std::invalid_argument if @p batch is below 1, or if two examples' gradients have different blocks
///   (add_into()); whatever example() throws passes through
template <typename Example, typename Blocks>
auto batch_mean_gradient(Eigen::Index batch, Example&& example, Blocks&& blocks) {
  if (batch < 1) throw std::invalid_argument("batch_mean_gradient: a batch needs at least one example");
  // clang-format off
  // [batch_mean_gradient]
  auto sum = example(Eigen::Index{0});
  for (Eigen::Index b = 1; b < batch; ++b) {
    auto gradient = example(b);
    add_into(blocks(sum), blocks(gradient));
  }
  for (const ParameterBlock& block : blocks(sum)) {
    Eigen::Map<Eigen::ArrayXd>(block.data, block.size) /= static_cast<double>(batch);
  }
  // [batch_mean_gradient]
  // clang-format on
  return sum;
}

}  // namespace attention
