/// @file cross_entropy.hpp
/// @brief Softmax cross-entropy: the loss of a model that scores every word of the vocabulary at every position, and its gradient.
///
/// Each row of the logits scores the V words of the vocabulary for one
/// position; softmax turns it into probabilities p, and the loss of that
/// position is −log p[target], the surprise at the right answer. The loss of
/// a sequence is the mean over its positions. Its gradient with respect to
/// the logits is short: (p − onehot(target)) / n, the probabilities minus 1
/// at the right word. The log is taken as (logit − max) − log Σ exp(logit −
/// max), so a large logit does not overflow.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/matrix.hpp"
#include "attention/softmax.hpp"

namespace attention {

/// @brief The loss of one sequence and what its gradient needs.
struct CrossEntropy {
  double loss = 0.0;       ///< the mean over positions of −log p[target]
  Matrix probabilities;    ///< softmax of each row of the logits, n × V
  Matrix logits_gradient;  ///< ∂loss/∂logits = (p − onehot(target)) / n, n × V
};

/// @brief Softmax cross-entropy of each row of the logits against one target word per row, averaged over rows.
///
/// @param logits n × V, one row per position, finite
/// @param targets n word numbers, each from 0 to V − 1
/// @return the mean loss, the probabilities and the gradient of the loss with respect to the logits
/// @throws std::invalid_argument if there are no rows, a target is out of range, the counts differ, or a logit is not finite
inline CrossEntropy softmax_cross_entropy(const Matrix& logits, const std::vector<Eigen::Index>& targets) {
  const Eigen::Index n = logits.rows();
  if (n < 1 || static_cast<std::size_t>(n) != targets.size()) {
    throw std::invalid_argument(
        "softmax_cross_entropy: there must be one target per row of logits, and at least one row");
  }
  if (!logits.allFinite()) {
    throw std::invalid_argument("softmax_cross_entropy: the logits must be finite");
  }
  CrossEntropy result;
  result.probabilities.resize(n, logits.cols());
  for (Eigen::Index t = 0; t < n; ++t) {
    const Eigen::Index target = targets[static_cast<std::size_t>(t)];
    if (target < 0 || target >= logits.cols()) {
      throw std::invalid_argument("softmax_cross_entropy: target " + std::to_string(target) + " at position " +
                                  std::to_string(t) + " is not a word of the vocabulary");
    }
  }
  // clang-format off
  // [cross_entropy]
  for (Eigen::Index t = 0; t < n; ++t) {
    const Eigen::Index target = targets[static_cast<std::size_t>(t)];
    const double largest = logits.row(t).maxCoeff();
    const Eigen::RowVectorXd shifted = logits.row(t).array() - largest;
    const double log_sum = std::log(shifted.unaryExpr(&exponential<double>).sum());
    result.loss += log_sum - shifted(target);                  // −log p[target]
    // p_t = np.exp(shifted - log_sum): the softmax of row t
    result.probabilities.row(t) = (shifted.array() - log_sum).unaryExpr(&exponential<double>);
  }
  result.loss /= static_cast<double>(n);
  result.logits_gradient = result.probabilities;
  for (Eigen::Index t = 0; t < n; ++t) {
    result.logits_gradient(t, targets[static_cast<std::size_t>(t)]) -= 1.0;  // p − onehot(target)
  }
  result.logits_gradient /= static_cast<double>(n);
  // [cross_entropy]
  // clang-format on
  return result;
}

}  // namespace attention
