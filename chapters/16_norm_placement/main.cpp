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
// The computation is in norm_placement.cpp, the JSON, tables and flags in norm_placement_output.cpp; this file
// reads the command line and prints.
#include "norm_placement.hpp"
#include "program/command_line.hpp"
#include "program/json_flags.hpp"
#include "program/trainings.hpp"

int main(int argc, char** argv) {
  program::CommandLine command_line{
      "norm_placement",
      "Chapter 16 of Attention, Compiled: a stack of layers trained with the norm after each residual sum "
      "(post-norm, the paper's) or before each sub-layer (pre-norm), LayerNorm or RMSNorm, with and without a "
      "warm-up of the learning rate, over learning rates and seeds."};
  norm_placement::Flags flags(command_line);
  const program::JsonFlags output(command_line, "print the results as one JSON document instead of tables",
                                  "also write the JSON document to this file, from the same run as the tables");
  return command_line.run(argc, argv, [&] {
    program::ProgressLine line;
    const norm_placement::Progress progress = program::step_progress(line);
    const norm_placement::Result result = norm_placement::compute(flags.read(), progress);
    output.print([&] { return norm_placement::to_json(result); }, [&] { return norm_placement::tables(result); });
  });
}
