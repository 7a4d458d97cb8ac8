/// @file variance.hpp
/// @brief Footnote 4 as an experiment: the dot product of two random vectors, and the variance of many of them.
///
/// Footnote 4 of the paper: if the entries of q and k are independent random
/// numbers with mean 0 and variance 1, then q · k has mean 0 and variance
/// d_k. random_dot_product() draws one such q · k; mean() and
/// population_variance() measure a batch of them.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>

#include "attention/mulberry32.hpp"
#include "attention/standard_normal.hpp"

namespace attention {

/// @brief q · k for a query and a key of width @p width whose entries are fresh standard normal draws.
///
/// The entries are drawn interleaved, q₁, k₁, q₂, k₂, …, from one stream, and
/// the products are added in that order. Nothing is kept but the sum.
///
/// @param generator the stream to draw from; it advances by 4 × @p width numbers
/// @param width d_k, the number of entries in the query and in the key
/// @return q₁k₁ + q₂k₂ + … + q_{d_k} k_{d_k}; 0 for width 0
inline double random_dot_product(Mulberry32& generator, std::size_t width) {
  // clang-format off
  // [random_dot_product]
  double sum = 0.0;
  for (std::size_t i = 0; i < width; ++i) {  // width is d_k
    const double q_i = standard_normal(generator);
    const double k_i = standard_normal(generator);
    sum += q_i * k_i;
  }
  return sum;
  // [random_dot_product]
  // clang-format on
}

/// @brief The average of @p samples.
/// @param samples at least one number
/// @return their sum divided by their count
/// @throws std::invalid_argument if @p samples is empty
inline double mean(std::span<const double> samples) {
  if (samples.empty()) {
    throw std::invalid_argument("mean: no samples");
  }
  double sum = 0.0;
  for (const double x : samples) {
    sum += x;
  }
  return sum / static_cast<double>(samples.size());
}

/// @brief The population variance of @p samples: the mean of (x − mean)².
///
/// Divides by the count N, not by N − 1, as the hand-worked lesson does. Two
/// passes: first the mean, then the squared distances from it.
///
/// @param samples at least one number
/// @return the mean squared distance of the samples from their mean
/// @throws std::invalid_argument if @p samples is empty
inline double population_variance(std::span<const double> samples) {
  // clang-format off
  // [population_variance]
  const double centre = mean(samples);
  double sum = 0.0;
  for (const double x : samples) {
    sum += (x - centre) * (x - centre);
  }
  return sum / static_cast<double>(samples.size());
  // [population_variance]
  // clang-format on
}

}  // namespace attention
