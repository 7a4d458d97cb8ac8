#include "precision.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention/gradient_check.hpp"
#include "attention/numpy_random.hpp"

namespace precision {

namespace {

using attention::NumberFormat;
using attention::rounded;

// The gap from x (positive) to the next number the format holds above it.
double spacing_at(double x, NumberFormat format) {
  // clang-format off
  // [spacing]
  const int exponent = std::ilogb(x);
  return std::ldexp(1.0, exponent - attention::fraction_bits(format));
  // [spacing]
  // clang-format on
}

}  // namespace

RunningSum running_sum(const std::vector<double>& scores, const Setup& setup) {
  if (scores.empty()) throw std::invalid_argument("running_sum: no score");
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  double maximum = minus_infinity, sum = 0.0;
  // clang-format off
  // [running_sum]
  for (const double score : scores) {
    const double new_maximum = std::max(maximum, score);
    // e^(M − M'): 0 at the start, when M = −∞
    const double rescale = rounded(std::exp(maximum - new_maximum), setup.sum);
    // e^(s − M'), rounded to the terms' format
    const double term = rounded(std::exp(score - new_maximum), setup.terms);
    // L' = L e^(M − M') + e^(s − M'), each step rounded to the sum's
    sum = rounded(rounded(sum * rescale, setup.sum) + term, setup.sum);
    maximum = new_maximum;
  }
  // [running_sum]
  // clang-format on
  return {sum, maximum, 0.0};
}

std::string difference_name(Difference difference) { return difference == Difference::central ? "central" : "forward"; }

namespace {

// clang-format off
// [central_difference]
// (e^(x + h) − e^(x − h)) / 2h, every number rounded to the format as it is made (x is one it holds).
double central_difference(double x, double h, NumberFormat format) {
  const double above = rounded(x + h, format), below = rounded(x - h, format);
  const double difference =
      rounded(rounded(std::exp(above), format) - rounded(std::exp(below), format), format);
  return rounded(difference / rounded(2.0 * h, format), format);
}
// [central_difference]
// clang-format on

// clang-format off
// [forward_difference]
// (e^(x + h) − e^x) / h: one step forward instead of half a step each way.
double forward_difference(double x, double h, NumberFormat format) {
  const double above = rounded(x + h, format);
  const double difference =
      rounded(rounded(std::exp(above), format) - rounded(std::exp(x), format), format);
  return rounded(difference / rounded(h, format), format);
}
// [forward_difference]
// clang-format on

// The curve of one format: the error at every step, the best step, and where the arithmetic puts it.
StepCurve step_curve(const std::vector<double>& steps, double at, Difference difference, NumberFormat format) {
  StepCurve curve;
  curve.format = format;
  curve.at = rounded(at, format);
  const double derivative = std::exp(curve.at);
  curve.best_error = std::numeric_limits<double>::infinity();
  for (const double h : steps) {
    const double estimate = difference == Difference::central ? central_difference(curve.at, h, format)
                                                              : forward_difference(curve.at, h, format);
    const double error = std::abs(estimate - derivative) / derivative;
    curve.errors.push_back(error);
    if (error < curve.best_error) curve.best_error = error, curve.best_step = h;
  }
  const double epsilon = std::ldexp(1.0, -attention::fraction_bits(format));
  const double arguments = difference == Difference::central ? 2.0 : 1.0;  // the x ± h rounded
  const double spacing_of_x = curve.at == 0.0 ? 0.0 : spacing_at(std::abs(curve.at), format);
  curve.spacing = spacing_at(derivative, format) / derivative + arguments * spacing_of_x / 2.0;
  if (difference == Difference::central) {
    // h^2/6 + spacing/2h, smallest where h/3 = spacing/2h^2
    curve.root = std::cbrt(epsilon);
    curve.predicted_step = std::cbrt(1.5 * curve.spacing);
  } else {
    // h/2 + spacing/h, smallest where 1/2 = spacing/h^2
    curve.root = std::sqrt(epsilon);
    curve.predicted_step = std::sqrt(2.0 * curve.spacing);
  }
  return curve;
}

}  // namespace

Result compute(const Inputs& inputs) {
  if (inputs.count < 0 || inputs.lengths.empty() || !(inputs.spread > 0.0) || !std::isfinite(inputs.at)) {
    throw std::invalid_argument(
        "precision: the count must be at least 0, with at least one length, a positive spread and a finite point");
  }
  Result result;
  result.inputs = inputs;
  for (const NumberFormat format : {NumberFormat::float64, NumberFormat::float32, NumberFormat::bfloat16}) {
    Counting counting;
    counting.format = format;
    // clang-format off
    // [counting]
    double total = 0.0;
    for (long long i = 1; i <= inputs.count; ++i) {
      const double next = rounded(total + 1.0, format);
      if (next == total && counting.stuck_from == 0) counting.stuck_from = i;
      total = next;
    }
    // [counting]
    // clang-format on
    counting.total = total;
    counting.spacing_there = total > 0.0 ? spacing_at(total, format) : 0.0;
    result.counting.push_back(counting);
  }
  result.steps = attention::quarter_decade_steps(2, 48);  // the steps of chapter 10's sweep
  for (const NumberFormat format : {NumberFormat::float64, NumberFormat::float32, NumberFormat::bfloat16}) {
    result.curves.push_back(step_curve(result.steps, inputs.at, inputs.difference, format));
  }
  const Eigen::Index longest = *std::max_element(inputs.lengths.begin(), inputs.lengths.end());
  attention::NumpyGenerator generator(inputs.seed);
  std::vector<double> scores(static_cast<std::size_t>(longest));
  for (double& score : scores) score = inputs.spread * generator.standard_normal();
  const Setup reference{NumberFormat::float64, NumberFormat::float64};
  for (const Eigen::Index n : inputs.lengths) {
    const std::vector<double> first(scores.begin(), scores.begin() + n);
    LengthRow row;
    row.n = n;
    row.reference = running_sum(first, reference);
    row.term_at_one_spread = std::exp(inputs.spread - row.reference.maximum);
    for (const Setup& setup : inputs.setups) {
      RunningSum sum = running_sum(first, setup);
      // The softmax's denominator is e^M · L; its relative error against the double one:
      const double denominator_ratio =
          std::exp(sum.maximum - row.reference.maximum + std::log(sum.sum) - std::log(row.reference.sum));
      sum.normalizer_error = std::abs(denominator_ratio - 1.0);
      sum.weights_sum = 1.0 / denominator_ratio;     // the true Σ e^(s − M) over this denominator
      sum.spacing = spacing_at(sum.sum, setup.sum);  // a term below half of it is lost
      row.sums.push_back(sum);
    }
    result.rows.push_back(row);
  }
  return result;
}

}  // namespace precision
