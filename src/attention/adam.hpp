/// @file adam.hpp
/// @brief Adam, the optimiser the Transformer paper trained with: each parameter moves by its gradient's running mean over its running size.
///
/// Kingma and Ba (2015), "Adam: A Method for Stochastic Optimization",
/// Algorithm 1. For each entry θ with gradient g, at step t:
/// m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g², then
/// θ ← θ − α · (m / (1 − β₁ᵗ)) / (√(v / (1 − β₂ᵗ)) + ε). The divisions by
/// 1 − βᵗ undo the pull towards 0 of averages that start at 0. The
/// Transformer paper (§5.3) used β₁ = 0.9, β₂ = 0.98 and ε = 10⁻⁹, with a
/// learning rate that first grows and then decays; the book's defaults keep
/// the first three and a constant α.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include <Eigen/Core>

namespace attention {

/// @brief One block of numbers an optimiser updates in place: a matrix's or a vector's storage.
struct ParameterBlock {
  double* data = nullptr;  ///< the first number
  Eigen::Index size = 0;   ///< how many numbers follow
};

/// @brief Adam's hyper-parameters.
struct AdamSettings {
  double learning_rate = 3e-3;  ///< α
  double beta1 = 0.9;           ///< β₁, how slowly the mean of the gradient forgets (§5.3: 0.9)
  double beta2 = 0.98;          ///< β₂, how slowly the mean of its square forgets (§5.3: 0.98)
  double epsilon = 1e-9;        ///< ε, keeps the step finite where the gradient has always been 0 (§5.3: 10⁻⁹)
};

/// @brief Adam's state: the two running means of every parameter, and the step count.
class Adam {
 public:
  /// @brief An optimiser for parameters shaped like @p blocks, its running means all 0.
  /// @param blocks the parameters it will update, in the order step() will get them
  /// @param settings α, β₁, β₂, ε
  /// @throws std::invalid_argument if α is not a finite positive number, β₁ or β₂ is not in [0, 1), or ε is negative
  ///         or NaN
  Adam(const std::vector<ParameterBlock>& blocks, AdamSettings settings) : settings_(settings) {
    if (!(settings.learning_rate > 0.0) || !std::isfinite(settings.learning_rate)) {
      throw std::invalid_argument("Adam: the learning rate must be a positive number");
    }
    if (!(settings.beta1 >= 0.0 && settings.beta1 < 1.0) || !(settings.beta2 >= 0.0 && settings.beta2 < 1.0) ||
        !(settings.epsilon >= 0.0)) {
      throw std::invalid_argument("Adam: beta1 and beta2 must be in [0, 1) and epsilon at least 0");
    }
    for (const ParameterBlock& block : blocks) {
      mean_.push_back(Eigen::ArrayXd::Zero(block.size));
      square_.push_back(Eigen::ArrayXd::Zero(block.size));
    }
  }

  /// @brief One update: every parameter moves against its gradient.
  /// @param parameters the parameters, in the constructor's order and sizes
  /// @param gradients their gradients, in the same order and sizes
  /// @throws std::invalid_argument if the blocks do not match the constructor's. A wrong size is found only when its
  ///         block's turn comes: by then steps() has grown and the blocks before it have moved.
  void step(const std::vector<ParameterBlock>& parameters, const std::vector<ParameterBlock>& gradients) {
    if (parameters.size() != mean_.size() || gradients.size() != mean_.size()) {
      throw std::invalid_argument("Adam::step: the parameters are not the ones the optimiser was made for");
    }
    ++steps_;
    const double t = static_cast<double>(steps_);
    const double mean_correction = 1.0 - std::pow(settings_.beta1, t);
    const double square_correction = 1.0 - std::pow(settings_.beta2, t);
    for (std::size_t b = 0; b < parameters.size(); ++b) {
      if (parameters[b].size != mean_[b].size() || gradients[b].size != mean_[b].size()) {
        throw std::invalid_argument("Adam::step: a parameter block changed size");
      }
      Eigen::Map<Eigen::ArrayXd> theta(parameters[b].data, parameters[b].size);
      const Eigen::Map<const Eigen::ArrayXd> g(gradients[b].data, gradients[b].size);
      // clang-format off
      // [adam_step]
      mean_[b] = settings_.beta1 * mean_[b] + (1.0 - settings_.beta1) * g;              // m
      square_[b] = settings_.beta2 * square_[b] + (1.0 - settings_.beta2) * g.square();  // v
      // α is learning_rate; mean_correction is 1 − β₁ᵗ, square_correction 1 − β₂ᵗ
      theta -= settings_.learning_rate * (mean_[b] / mean_correction) /
               ((square_[b] / square_correction).sqrt() + settings_.epsilon);
      // [adam_step]
      // clang-format on
    }
  }

  /// @brief How many updates step() has made.
  [[nodiscard]] long long steps() const { return steps_; }

  /// @brief α, the learning rate the next step() will use.
  [[nodiscard]] double learning_rate() const { return settings_.learning_rate; }

  /// @brief Sets α for the steps that follow: how a schedule, such as a warm-up (chapter 16), is applied.
  ///
  /// The running means are kept: only the size of the next steps changes.
  /// @param learning_rate the new α
  /// @throws std::invalid_argument if it is not a finite positive number
  void set_learning_rate(double learning_rate) {
    if (!(learning_rate > 0.0) || !std::isfinite(learning_rate)) {
      throw std::invalid_argument("Adam: the learning rate must be a positive number");
    }
    settings_.learning_rate = learning_rate;
  }

 private:
  AdamSettings settings_;
  std::vector<Eigen::ArrayXd> mean_;    // m, one array per block
  std::vector<Eigen::ArrayXd> square_;  // v
  long long steps_ = 0;
};

/// @brief Adds each block of @p term into the matching block of @p sum: how a batch's gradients are summed.
/// @param sum blocks to add into (they point into a gradient being summed)
/// @param term blocks of the same sizes, in the same order
/// @throws std::invalid_argument if the blocks do not match in number or size
inline void add_into(const std::vector<ParameterBlock>& sum, const std::vector<ParameterBlock>& term) {
  if (sum.size() != term.size()) throw std::invalid_argument("add_into: the two lists of blocks differ in length");
  for (std::size_t b = 0; b < sum.size(); ++b) {
    if (sum[b].size != term[b].size) throw std::invalid_argument("add_into: two matching blocks differ in size");
    Eigen::Map<Eigen::ArrayXd>(sum[b].data, sum[b].size) +=
        Eigen::Map<const Eigen::ArrayXd>(term[b].data, term[b].size);
  }
}

}  // namespace attention
