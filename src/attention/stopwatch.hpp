/// @file stopwatch.hpp
/// @brief Timing two computations in turns, on this machine, for summarize_timings() and compare_timings().
///
/// One call of a small computation is too short to time, so each repetition
/// times enough calls to last at least a minimum time and divides. The two
/// computations take turns within each repetition, so that a moment when the
/// machine is busy falls on both rather than on one. Chapter 9 times dot-product
/// scoring against additive scoring this way; the numbers are this machine's.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace attention {

/// @brief The processor's name as Linux reports it (the first "model name" of /proc/cpuinfo), for a timing's report.
///
/// The environment variable BOOK_PROCESSOR_NAME, where set and not empty,
/// replaces it: the book's tests give a long name, to check that no printed
/// table grows too wide for the page on a machine whose name is long.
/// @return the name, or "unknown" where /proc/cpuinfo has none
inline std::string processor_name() {
  if (const char* name = std::getenv("BOOK_PROCESSOR_NAME"); name != nullptr && *name != '\0') return name;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

/// @brief A computation to time. It returns a number computed from its result,
/// which the stopwatch keeps, so that the compiler cannot drop the work.
using TimedWork = std::function<double()>;

/// @brief Seconds per call of @p work, over @p calls calls in a row.
/// @param work the computation
/// @param calls how many calls to time together; at least 1
/// @return the elapsed time on std::chrono::steady_clock divided by @p calls
inline double seconds_per_call(const TimedWork& work, std::size_t calls) {
  static volatile double sink = 0.0;  // every result lands here
  using clock = std::chrono::steady_clock;
  const clock::time_point start = clock::now();
  for (std::size_t call = 0; call < calls; ++call) sink = sink + work();
  return std::chrono::duration<double>(clock::now() - start).count() / static_cast<double>(std::max<std::size_t>(calls, 1));
}

/// @brief Seconds per call of two computations, one time per repetition each, taken in turns.
///
/// One untimed call of each first (it warms the caches) says how many calls
/// make a repetition last at least @p minimum_seconds.
/// @param first the first computation
/// @param second the second computation
/// @param repeats the number of repetitions
/// @param minimum_seconds the least time one repetition of either should last
/// @return the first's times and the second's, one per repetition, in seconds per call
inline std::pair<std::vector<double>, std::vector<double>> timed_in_turns(const TimedWork& first,
                                                                          const TimedWork& second,
                                                                          std::size_t repeats,
                                                                          double minimum_seconds) {
  const auto calls_for = [&](const TimedWork& work) {
    const double once = std::max(seconds_per_call(work, 1), 1e-9);
    return static_cast<std::size_t>(std::ceil(minimum_seconds / once));
  };
  const std::size_t first_calls = calls_for(first);
  const std::size_t second_calls = calls_for(second);
  std::pair<std::vector<double>, std::vector<double>> seconds;
  // [timed_in_turns]
  for (std::size_t repeat = 0; repeat < repeats; ++repeat) {
    seconds.first.push_back(seconds_per_call(first, first_calls));
    seconds.second.push_back(seconds_per_call(second, second_calls));
  }
  // [timed_in_turns]
  return seconds;
}

}  // namespace attention
