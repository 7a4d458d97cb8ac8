/// @file gradient_check.hpp
/// @brief Checking a gradient without trusting its derivation: central finite differences, entry by entry.
///
/// For a loss L and one entry θ of a parameter, (L(θ + h) − L(θ − h)) / 2h
/// differs from ∂L/∂θ by a term in h² (the Taylor series' even terms cancel)
/// plus the rounding of the two losses divided by 2h. In double precision a
/// step of about 10⁻⁵ balances the two.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/matrix.hpp"

namespace attention {

/// @brief The finite-difference step gradient checks use unless told otherwise: 10⁻⁵.
inline constexpr double default_difference_step = 1e-5;

/// @brief Steps h = 10^(−k/4) for k = @p first … @p last: four to a decade, largest first.
///
/// A sweep of steps this fine finds the best step of a central difference to
/// within a factor of 10^(1/4) ≈ 1.8 (chapter 10; chapter 17 sweeps the same steps).
/// @param first the first k (a negative k gives steps above 1)
/// @param last the last k
/// @return last − first + 1 steps, or none if last < first
inline std::vector<double> quarter_decade_steps(int first, int last) {
  std::vector<double> steps;
  for (int k = first; k <= last; ++k) steps.push_back(std::pow(10.0, -0.25 * k));
  return steps;
}

/// @brief The gradient of `loss` with respect to every entry of `parameter`, by central differences.
///
/// Each entry is moved by +h and −h in place, the loss evaluated, and the
/// entry put back exactly as it was.
///
/// The whole check runs in the parameter's number type, float or double: the
/// loss returns that type, the step is of that type, and so is every
/// difference. In float the rounding of the losses is about 2⁻²⁴ of their
/// size instead of 2⁻⁵³, and the best step is larger (chapters 10 and 17).
///
/// @tparam Parameter a matrix or vector of float or double (its `Scalar`)
/// @param loss the loss as a function of the current parameters
/// @param parameter the matrix or vector to differentiate by; changed and restored
/// @param step h
/// @return a matrix shaped like the parameter
template <class Parameter>
MatrixOf<typename Parameter::Scalar> central_differences(
    const std::function<typename Parameter::Scalar()>& loss, Parameter& parameter,
    typename Parameter::Scalar step = static_cast<typename Parameter::Scalar>(default_difference_step)) {
  using Scalar = typename Parameter::Scalar;
  MatrixOf<Scalar> gradient(parameter.rows(), parameter.cols());
  // clang-format off
  // [central_differences]
  for (Eigen::Index i = 0; i < parameter.rows(); ++i) {
    for (Eigen::Index j = 0; j < parameter.cols(); ++j) {
      const Scalar kept = parameter(i, j);  // θ
      parameter(i, j) = kept + step;        // step is h
      const Scalar above = loss();          // L(θ + h)
      parameter(i, j) = kept - step;
      const Scalar below = loss();          // L(θ − h)
      parameter(i, j) = kept;
      gradient(i, j) = (above - below) / (2 * step);
    }
  }
  // [central_differences]
  // clang-format on
  return gradient;
}

/// @brief How far a gradient is from a reference: max |a − b| over the entries, divided by the largest |a| or |b|.
///
/// The error is measured against the largest entry of either gradient rather
/// than entry by entry: an entry near 0 has a finite-difference error of the
/// same absolute size as the others, so entry by entry it would look large
/// for no fault of the gradient. Both exactly 0 gives 0. It is computed in
/// the number type of the two gradients, float or double.
///
/// Both must have the same shape and at least one entry. A NaN may be missed
/// (Eigen's maxCoeff() does not pass it on): check that both are finite first.
///
/// @tparam Gradient a matrix or vector of float or double
/// @tparam Reference the same shape, of the same number type
/// @param gradient the gradient to judge
/// @param reference what it should be (for example central_differences())
/// @return the relative error, 0 when both are all zeros
/// @throws std::invalid_argument if their shapes differ or they have no entry
template <typename Gradient, typename Reference>
typename Gradient::Scalar relative_error(const Eigen::MatrixBase<Gradient>& gradient,
                                         const Eigen::MatrixBase<Reference>& reference) {
  using Scalar = typename Gradient::Scalar;
  if (gradient.rows() != reference.rows() || gradient.cols() != reference.cols() || gradient.size() == 0) {
    throw std::invalid_argument("relative_error: the gradient is " + std::to_string(gradient.rows()) + " by " +
                                std::to_string(gradient.cols()) + " and its reference " +
                                std::to_string(reference.rows()) + " by " + std::to_string(reference.cols()) +
                                "; they must have the same shape and at least one entry");
  }
  // clang-format off
  // [relative_error]
  const Scalar scale = std::max(gradient.cwiseAbs().maxCoeff(), reference.cwiseAbs().maxCoeff());
  if (scale == 0) {
    return 0;
  }
  return (gradient - reference).cwiseAbs().maxCoeff() / scale;
  // [relative_error]
  // clang-format on
}

}  // namespace attention
