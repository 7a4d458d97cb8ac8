// Chapter 2: scaling and variance.
//
// With no arguments: footnote 4 of the paper as an experiment, run the way the
// hand-worked lesson (see the preface) runs it. For d_k = 2, 64 and 512 it draws 4000 random pairs of
// a query q and a key k (seed 1), takes each q·k, and measures the variance of
// those dot products, before and after dividing them by √d_k.
// --seed, --samples and --dk change the experiment; --histogram adds the
// distribution of q·k at the largest d_k; --json prints the values as JSON.
// The experiment, the tables and the JSON are in scaling_variance.cpp; this
// file only reads the command line and prints.
#include <iostream>

#include "program/command_line.hpp"
#include "scaling_variance.hpp"

int main(int argc, char** argv) {
  program::CommandLine command_line{"scaling_variance",
                                    "Chapter 2 of Attention, Compiled: why the scores are divided by √d_k. Measures "
                                    "the variance of q·k for random q and k, before and after the division."};
  const scaling_variance::Flags flags(command_line);
  bool show_histogram = false;
  bool json = false;
  command_line.flag("--histogram", show_histogram, "also print the distribution of q·k at the largest d_k");
  command_line.flag("--json", json, "print the values as one JSON document instead of tables");

  return command_line.run(argc, argv, [&] {
    const scaling_variance::Result result = scaling_variance::compute(flags.read());
    if (json) {
      std::cout << scaling_variance::to_json(result).dump(2) << '\n';
    } else {
      std::cout << scaling_variance::tables(result, show_histogram);
    }
  });
}
