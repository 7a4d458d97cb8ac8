// What the library's tests share: the book's toy and random matrices.
//
// The test files are compiled together as one unit (a unity build), so
// anything file-local must have a name no other test file uses.
#pragma once

#include <initializer_list>
#include <limits>
#include <random>
#include <vector>

#include "attention/adam.hpp"
#include "attention/matrix.hpp"

namespace support {

inline constexpr double infinity = std::numeric_limits<double>::infinity();

/// The toy sentence "cat eat fish": its queries, keys and values, rows are tokens.
struct Toy {
  attention::Matrix queries{3, 2}, keys{3, 2}, values{3, 2};
  Toy() {
    queries << 1, 0, 0, 1, 1, 1;
    keys << 2, 0, 0, 1, 1, 1;
    values << 1, 0, 0, 1, 0.5, 0.5;
  }
};

/// A rows × columns matrix of standard normal entries.
inline attention::Matrix random_matrix(Eigen::Index rows, Eigen::Index columns, std::mt19937_64& generator) {
  std::normal_distribution<double> normal;
  attention::Matrix m(rows, columns);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < columns; ++j) m(i, j) = normal(generator);
  return m;
}

/// A 1 × n matrix: one row of scores.
inline attention::Matrix row_of(std::initializer_list<double> entries) {
  attention::Matrix m(1, static_cast<Eigen::Index>(entries.size()));
  Eigen::Index j = 0;
  for (double entry : entries) m(0, j++) = entry;
  return m;
}

/// Parameters and their gradient, each one vector handed to an optimiser as a single block; the blocks
/// point into the vectors, so a test changes `theta` or `gradient` and the next step sees it.
struct OneBlock {
  Eigen::VectorXd theta, gradient;
  std::vector<attention::ParameterBlock> parameters, gradients;
  OneBlock(std::initializer_list<double> theta_entries, std::initializer_list<double> gradient_entries)
      : theta(
            Eigen::Map<const Eigen::VectorXd>(theta_entries.begin(), static_cast<Eigen::Index>(theta_entries.size()))),
        gradient(Eigen::Map<const Eigen::VectorXd>(gradient_entries.begin(),
                                                   static_cast<Eigen::Index>(gradient_entries.size()))),
        parameters{{theta.data(), theta.size()}},
        gradients{{gradient.data(), gradient.size()}} {}
  OneBlock(const OneBlock&) = delete;  // a copy's blocks would point into the original's vectors
  OneBlock& operator=(const OneBlock&) = delete;
};

}  // namespace support
