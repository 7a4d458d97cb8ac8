/// @file timing_comparison.hpp
/// @brief Repeated timings summarised by a median and a spread, and the rule
/// that says which of two timed layers was faster at each length and where
/// their curves cross.
///
/// A stopwatch on a shared machine is noisy: another program takes the
/// processor for a moment and one repetition comes out slow. Chapter 7 times
/// each layer several times at each length n, keeps the median, and states
/// which layer was faster only where the two spreads do not overlap. Where
/// they overlap it says "too close to call" instead of guessing. Every
/// sentence, table column and figure marker about the timings is derived from
/// compare_timings(), so they cannot disagree with one another. Chapter 12
/// judges every speed it states by the same rule, faster_at().
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <vector>

namespace attention {

/// @brief One layer's time at one length, from repeated measurements.
struct TimingSummary {
  double median = 0.0;  ///< the middle repetition (the mean of the two middle
                        ///< ones for an even count)
  /// The fastest repetition once the fastest quarter (rounded down) is left
  /// out: the second fastest of 7. One disturbed repetition can shift it one rank, never become it.
  double spread_low = 0.0;
  double spread_high = 0.0;  ///< the slowest once the slowest quarter is left
                             ///< out: the second slowest of 7
};

/// @brief The middle value of @p values, or the mean of the two middle ones for an even count.
/// @param values any numbers, in any order
/// @return the median
/// @throws std::invalid_argument if @p values is empty
inline double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median: no values");
  std::sort(values.begin(), values.end());
  const std::size_t count = values.size();
  return count % 2 == 1 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2.0;
}

/// @brief The median and spread of repeated timings of one layer at one length.
/// @param seconds one time per repetition, in any order
/// @return the summary
/// @throws std::invalid_argument if @p seconds is empty
inline TimingSummary summarize_timings(std::vector<double> seconds) {
  if (seconds.empty()) throw std::invalid_argument("summarize_timings: no repetitions");
  std::sort(seconds.begin(), seconds.end());
  const std::size_t count = seconds.size();
  const std::size_t left_out = count / 4;  // from each end
  TimingSummary summary;
  summary.median = median(seconds);
  summary.spread_low = seconds[left_out];
  summary.spread_high = seconds[count - 1 - left_out];
  return summary;
}

/// @brief Which of two timed layers was faster at one length.
enum class Faster {
  first,      ///< the first layer's spread lies wholly below the second's
  second,     ///< the second layer's spread lies wholly below the first's
  too_close,  ///< the spreads overlap: the run cannot tell the two apart
};

/// @brief Two layers timed at one length n.
struct TimedLength {
  std::size_t n = 0;     ///< the length
  TimingSummary first;   ///< the first layer's time
  TimingSummary second;  ///< the second layer's time
};

/// @brief A place where the faster layer changes: between two timed lengths,
/// never at one.
struct Crossing {
  std::size_t below_n = 0;                  ///< the last length, before the change, at which one layer was faster
  std::size_t above_n = 0;                  ///< the first length, after it, at which the other
                                            ///< was; any between were too close
  Faster faster_below = Faster::too_close;  ///< the layer faster at below_n
  Faster faster_above = Faster::too_close;  ///< the layer faster at above_n
};

/// @brief The verdict at every timed length and every crossing.
struct TimingComparison {
  std::vector<Faster> faster;       ///< one per timed length, in order
  std::vector<Crossing> crossings;  ///< every change of the faster layer along n, in order
};

/// @brief The rule: which layer was faster at one length.
///
/// One layer was faster only when its whole spread lies below the other's;
/// where the spreads overlap the two are too close to call.
/// @param timed the two layers' times at one length
/// @return the verdict
inline Faster faster_at(const TimedLength& timed) {
  // clang-format off
  // [faster_at]
  if (timed.first.spread_high < timed.second.spread_low) return Faster::first;
  if (timed.second.spread_high < timed.first.spread_low) return Faster::second;
  return Faster::too_close;
  // [faster_at]
  // clang-format on
}

/// @brief Which layer was faster at each timed length, and every place where
/// that changes.
///
/// Lengths where the two are too close to call are skipped when looking for
/// a change: a crossing lies between the last length before it where one layer
/// was faster and the first after it where the other was. Every change is
/// reported, so a disturbed length between two others shows up as two crossings
/// rather than one false one (at either end of the sweep, as one).
/// @param timed the lengths in increasing order of n
/// @return the verdicts and the crossings
/// @throws std::invalid_argument if the lengths are not in increasing order
inline TimingComparison compare_timings(const std::vector<TimedLength>& timed) {
  TimingComparison comparison;
  std::optional<std::size_t> last_decided;  // the index of the last length with a faster layer
  for (std::size_t i = 0; i < timed.size(); ++i) {
    if (i > 0 && timed[i].n <= timed[i - 1].n) {
      throw std::invalid_argument("compare_timings: the lengths must increase");
    }
    // clang-format off
    // [compare_timings]
    const Faster faster = faster_at(timed[i]);
    comparison.faster.push_back(faster);
    if (faster == Faster::too_close) continue;
    if (last_decided && comparison.faster[*last_decided] != faster) {
      const std::size_t before = *last_decided;
      comparison.crossings.push_back(
          {timed[before].n, timed[i].n, comparison.faster[before], faster});
    }
    last_decided = i;
    // [compare_timings]
    // clang-format on
  }
  return comparison;
}

}  // namespace attention
