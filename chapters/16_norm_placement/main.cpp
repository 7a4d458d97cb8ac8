// Chapter 16: where the norm goes.
//
// With no arguments: trains the book's small Transformer, four layers deep, to reverse eight digits, in each of
// four layouts (the norm after each residual sum, as the paper, or before each sub-layer; LayerNorm or
// RMSNorm), without and with a warm-up of the learning rate, at one learning rate and one seed, and prints
// which runs learned the task. --layouts, --warmups, --rates and --seeds make the grid (every combination);
// --training-steps and --layers change each run; --json prints it all as one JSON document, every run's loss
// along the way included.
//
// While it trains, a progress line goes to stderr when stderr is a terminal, and nowhere otherwise.
// The computation is in norm_placement.cpp, the JSON, tables and flags in norm_placement_output.cpp; main() hands
// them to program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and prints, with the
// progress line of program::step_progress (src/program/trainings.hpp) while compute() trains.
#include "norm_placement.hpp"
#include "program/run_chapter.hpp"
#include "program/trainings.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<norm_placement::Flags>(
      argc, argv, "norm_placement",
      "Chapter 16 of Attention, Compiled: a stack of layers trained with the norm after each residual sum "
      "(post-norm, the paper's) or before each sub-layer (pre-norm), LayerNorm or RMSNorm, with and without a "
      "warm-up of the learning rate, over learning rates and seeds.",
      program::showing_progress(norm_placement::compute, program::step_progress), norm_placement::to_json,
      norm_placement::tables);
}
