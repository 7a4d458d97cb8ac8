// Chapter 12: attention without the n × n matrix.
//
// With no arguments: the toy sentence (cat, eat, fish) through the streaming
// kernel one key at a time, with the running maximum, the running sum and the
// output so far after every tile, and the output against the teaching
// version's. --q, --k, --v, --tokens, --tile, --query-tile and --mask change
// the example. With --n, a benchmark instead: the teaching version, each fast
// step and NumPy timed at each length n (--d, --threads, --reps,
// --memory-limit, --python, --no-numpy), with the memory each needs and the
// ceilings measured in the same run. --json prints the same values as one
// JSON document.
//
// When stderr is a terminal, and nowhere otherwise: a sweep with a length of
// 4096 or more first says there about how long it will take, and while a
// benchmark runs a progress line shows the length, the repetition, the time so
// far and the time left. (The JSON holds the estimate either way.)
//
// The computation, its JSON and its tables are in fast_attention.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and prints,
// with the estimate and the progress line of progress_on() below while compute() runs.
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "fast_attention.hpp"
#include "program/progress_line.hpp"
#include "program/run_chapter.hpp"

namespace {

// What compute() reports on the progress line: the sweep's estimate before it starts and the progress line while it
// runs, where stderr is a terminal (nothing otherwise).
fast_attention::Progress progress_on(program::ProgressLine& line) {
  fast_attention::Progress progress;
  if (!line.shown()) return progress;
  progress.estimate = [](double seconds, std::size_t from_n) {
    std::cerr << fmt::format("This sweep will take about {} on this machine (estimated from one call of each "
                             "method at n = {}).\n",
                             program::duration_text(seconds), from_n);
  };
  progress.update = [&line](const fast_attention::ProgressReport& report) {
    line.update(fmt::format("n = {} ({} of {}), {}: {} so far{}", report.n, report.length_index + 1, report.lengths,
                            report.step, program::duration_text(report.seconds),
                            report.seconds_left ? ", about " + program::duration_text(*report.seconds_left) + " left"
                                                : std::string()));
  };
  return progress;
}

}  // namespace

int main(int argc, char** argv) {
  return program::run_chapter<fast_attention::Flags>(
      argc, argv, "fast_attention",
      "Chapter 12 of Attention, Compiled: attention without the n x n matrix. Traces the streaming kernel (tiles of "
      "keys, an online softmax) on a small example, or with --n times the teaching version, each fast step and NumPy "
      "on this machine. The full sweep of the book (--n 256,...,16384 --reps 5) takes several minutes; it says how "
      "long before it starts.",
      program::showing_progress(fast_attention::compute, progress_on), fast_attention::to_json, fast_attention::tables);
}
