// Chapter 3: softmax and the weighted sum.
//
// Two demonstrations; the flags choose which one runs.
//
// - The toy (no arguments, or any of --q --k --v --tokens --no-scale): the
//   book's sentence "cat eat fish" (src/program/toy.hpp) through the whole
//   formula softmax(QKᵀ/√d_k)V, one table per box of the paper's Figure 2
//   (left), then the same vectors with and without the scale, side by side.
//   --no-scale makes softmax(QKᵀ)V the main result.
// - The saturation demo (any of --scores --divide --add): one row of scores s
//   against the same row divided by --divide, with --add added to slot two on
//   both sides (after the division on the divided side, as the hand-worked
//   lesson does); then the textbook formula e^s / Σ e^s against the stable one on s.
//
// --json prints the same values as one JSON document. The toy: `weights` and
// `output` at the top level (of the scaled run, or the unscaled one with
// --no-scale), every step of both runs under `scaled` and `unscaled`. The
// saturation demo: everything under `saturation`, including `sweep`, the
// weights for 41 added amounts from 0 to 2 (or to --add, if it lies outside).
// A value that is not finite (e^s that overflows, the textbook formula's NaN)
// is written as the string "inf", "-inf" or "NaN"; slots count from 1.
//
// The computation, its JSON and its tables are in softmax.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "program/run_chapter.hpp"
#include "softmax.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<softmax::Flags>(
      argc, argv, "softmax",
      "Chapter 3 of Attention, Compiled: softmax and the weighted sum.\n"
      "Two demonstrations. With no arguments, or with --q --k --v --tokens --no-scale: the toy through the whole\n"
      "formula softmax(QKᵀ/√d_k)V, step by step, and the same vectors with and without the scale. With any of\n"
      "--scores --divide --add: the saturation demo, one row of scores against the same row divided, with an amount\n"
      "added to slot two on both sides (default: 8,4,0 against 8,4,0 / 8, adding 0.5). The two sets of flags do not\n"
      "mix. --json prints the same values as one JSON document; the saturation demo's are under \"saturation\".",
      softmax::compute, softmax::to_json, softmax::tables);
}
