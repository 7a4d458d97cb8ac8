// Chapter 15: rotary positions.
//
// With no arguments: turns the toy's query of "fish", (1, 1), and key of "cat", (2, 0), by their positions and
// prints their score at several pairs of positions (equal offsets, equal scores); then trains the book's small
// Transformer, with the causal mask, to say the digit that stood 3 places back, once with chapter 6's added
// positions, once with rotary ones and once with none, on sequences of 4 to 16 digits, and tests it on 32.
// --q, --k and --placements change the turn; --schemes, --seeds, --back, --longest-trained and --tested-length
// change the training; --no-training trains nothing; --json prints it all as one JSON document.
//
// While it trains, a progress line goes to stderr when stderr is a terminal, and nowhere otherwise.
// The computation is in rotary_positions.cpp, the JSON, tables and flags in rotary_positions_output.cpp; main() hands
// them to program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and prints, with the
// progress line of program::step_progress (src/program/trainings.hpp) while compute() trains.
#include "program/run_chapter.hpp"
#include "program/trainings.hpp"
#include "rotary_positions.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<rotary_positions::Flags>(
      argc, argv, "rotary_positions",
      "Chapter 15 of Attention, Compiled: rotary positions turn each query and key by its position, so that a "
      "score depends on the offset between two words; a small Transformer trained on short sequences with added, "
      "rotary or no positions, and tested on longer ones.",
      program::showing_progress(rotary_positions::compute, program::step_progress), rotary_positions::to_json,
      rotary_positions::tables);
}
