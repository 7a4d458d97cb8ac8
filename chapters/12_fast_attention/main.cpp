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
// The computation is compute() (Inputs → Result) in fast_attention.cpp;
// main() only reads the flags and prints the result as tables or as JSON.
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "fast_attention.hpp"
#include "program/command_line.hpp"
#include "program/json_flags.hpp"
#include "program/progress_line.hpp"

int main(int argc, char** argv) {
  program::CommandLine command_line{
      "fast_attention",
      "Chapter 12 of Attention, Compiled: attention without the n x n matrix. Traces the streaming kernel (tiles of "
      "keys, an online softmax) on a small example, or with --n times the teaching version, each fast step and NumPy "
      "on this machine. The full sweep of the book (--n 256,...,16384 --reps 5) takes several minutes; it says how "
      "long before it starts."};
  const fast_attention::Flags flags(command_line);
  const program::JsonFlags output(command_line, "print the values as one JSON document instead of tables",
                                 "also write the JSON document to this file, from the same run as the tables (the "
                                 "timings differ from run to run)");

  return command_line.run(argc, argv, [&] {
    program::ProgressLine line;
    fast_attention::Progress progress;
    if (line.shown()) {
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
    }
    const fast_attention::Result result = fast_attention::compute(flags.read(), progress);
    line.clear();
    output.print([&] { return fast_attention::to_json(result); }, [&] { return fast_attention::tables(result); });
  });
}
