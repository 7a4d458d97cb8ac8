// Trainings a chapter runs side by side (over seeds, over settings), and the
// progress line its program shows while they run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iostream>

#include <fmt/format.h>

#include "attention/worker_threads.hpp"
#include "program/processors.hpp"
#include "program/progress_line.hpp"

namespace program {

/// What a training reports as it goes: the step it reached, of how many, and the seconds so far.
using StepProgress = std::function<void(long long step, long long steps, double seconds)>;

/// The progress line of a program that trains, "step 300/1500  12 s left", or an empty function where the
/// line is not shown (stderr is not a terminal).
inline StepProgress step_progress(ProgressLine& line) {
  if (!line.shown()) return {};
  return [&line](long long step, long long steps, double seconds) {
    const double left = seconds / static_cast<double>(step) * static_cast<double>(steps - step);
    line.update(fmt::format("step {}/{}  {} left", step, steps, duration_text(left)));
    if (step == steps) std::cerr << '\n';  // the last line stays on the terminal
  };
}

/// Runs @p count independent trainings, train(i, its progress) for i = 0 … count − 1, one per usable
/// processor at a time (one at a time in the page, which has one processor). The first processor's
/// trainings report to @p progress as one long run; the others report nothing. Each training's numbers are
/// the same whichever processor runs it; only its seconds depend on what else runs.
inline void run_trainings(std::size_t count, const StepProgress& progress,
                          const std::function<void(std::size_t index, const StepProgress& progress)>& train) {
  if (count == 0) return;
#ifdef __EMSCRIPTEN__
  const unsigned shares = 1;
#else
  const unsigned shares = std::max(1u, std::min<unsigned>(usable_processors(), static_cast<unsigned>(count)));
#endif
  const auto per_share = static_cast<long long>((count + shares - 1) / shares);
  attention::run_shares(shares, [&](unsigned share) {
    long long done = 0;  // trainings this processor has finished
    for (std::size_t index = share; index < count; index += shares, ++done) {
      const StepProgress overall = [&](long long step, long long steps, double seconds) {
        if (progress && share == 0) progress(done * steps + step, per_share * steps, seconds);
      };
      train(index, overall);
    }
  });
}

}  // namespace program
