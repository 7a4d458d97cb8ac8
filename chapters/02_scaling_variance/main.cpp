// Chapter 2: scaling and variance.
//
// With no arguments: footnote 4 of the paper as an experiment, run the way the
// hand-worked lesson (see the preface) runs it. For d_k = 2, 64 and 512 it draws 4000 random pairs of
// a query q and a key k (seed 1), takes each q·k, and measures the variance of
// those dot products, before and after dividing them by √d_k.
// --seed, --samples and --dk change the experiment; --histogram adds the
// distribution of q·k at the largest d_k; --json prints the values as JSON.
// The experiment, its JSON and its tables are in scaling_variance.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "program/run_chapter.hpp"
#include "scaling_variance.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<scaling_variance::Flags>(
      argc, argv, "scaling_variance",
      "Chapter 2 of Attention, Compiled: why the scores are divided by √d_k. Measures "
      "the variance of q·k for random q and k, before and after the division.",
      scaling_variance::compute, scaling_variance::to_json, scaling_variance::tables);
}
