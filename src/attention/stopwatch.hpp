/// @file stopwatch.hpp
/// @brief Timing computations (two or more) in turns, on this machine, for summarize_timings() and compare_timings().
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
#include <stdexcept>
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
  return std::chrono::duration<double>(clock::now() - start).count() /
         static_cast<double>(std::max<std::size_t>(calls, 1));
}

/// @brief How many calls should make one repetition of @p work last about @p minimum_seconds, from one trial call
/// that is timed but not kept (it also warms the caches).
/// @param work the computation
/// @param minimum_seconds the least time one repetition should last
/// @return the number of calls, at least 1
inline std::size_t calls_for(const TimedWork& work, double minimum_seconds) {
  const double once = std::max(seconds_per_call(work, 1), 1e-9);
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(minimum_seconds / once)));
}

/// @brief Seconds per call of several computations, one time per repetition each, taken in turns.
///
/// Each repetition calls every computation in order, each as many times in a
/// row as @p calls says, so that a busy moment of the machine falls on all of
/// them. @p other_turn, if given, runs at the end of every repetition with its
/// index: the turn of a computation timed another way (chapter 12's NumPy, in
/// a process of its own).
/// @param works the computations
/// @param calls for each computation, the calls one repetition makes
/// @param repeats the number of repetitions
/// @param other_turn called after each repetition's computations, with the repetition's index
/// @return for each computation, its times, one per repetition, in seconds per call
/// @throws std::invalid_argument if @p calls does not have one count per computation
inline std::vector<std::vector<double>> timed_in_turns(const std::vector<TimedWork>& works,
                                                       const std::vector<std::size_t>& calls, std::size_t repeats,
                                                       const std::function<void(std::size_t)>& other_turn = {}) {
  if (calls.size() != works.size()) throw std::invalid_argument("timed_in_turns: one count of calls per computation");
  std::vector<std::vector<double>> seconds(works.size());
  // clang-format off
  // [timed_in_turns]
  for (std::size_t repeat = 0; repeat < repeats; ++repeat) {
    for (std::size_t w = 0; w < works.size(); ++w) {
      seconds[w].push_back(seconds_per_call(works[w], calls[w]));
    }
    if (other_turn) other_turn(repeat);
  }
  // [timed_in_turns]
  // clang-format on
  return seconds;
}

/// @brief Seconds per call of two computations, one time per repetition each, taken in turns.
///
/// One trial call of each first, timed but not kept (it warms the caches),
/// says how many calls should make a repetition last about
/// @p minimum_seconds (calls_for()).
/// @param first the first computation
/// @param second the second computation
/// @param repeats the number of repetitions
/// @param minimum_seconds the least time one repetition of either should last
/// @return the first's times and the second's, one per repetition, in seconds per call
inline std::pair<std::vector<double>, std::vector<double>> timed_in_turns(const TimedWork& first,
                                                                          const TimedWork& second, std::size_t repeats,
                                                                          double minimum_seconds) {
  const std::vector<std::size_t> calls{calls_for(first, minimum_seconds), calls_for(second, minimum_seconds)};
  std::vector<std::vector<double>> seconds = timed_in_turns({first, second}, calls, repeats);
  return {std::move(seconds[0]), std::move(seconds[1])};
}

}  // namespace attention
