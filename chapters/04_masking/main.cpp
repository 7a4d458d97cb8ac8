// Chapter 4: masking.
//
// With no arguments: the book's toy sentence "cat eat fish" under the decoder's
// causal mask. Each token may look at itself and the tokens before it; every
// other scaled score is set to −∞ before the softmax, so its weight is exactly 0.
// Then the same inputs with finite fills (−1e9, −1000, −10) in place of −∞, to
// show how much weight each one lets through.
// --mask chooses the mask (none, causal, band:R, pad:N), --fill the value
// written into masked scores; --q, --k, --v and --tokens change the inputs;
// --json prints the same values as one JSON document.
//
// The computation, its JSON and its tables are in masking.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "masking.hpp"
#include "program/run_chapter.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<masking::Flags>(
      argc, argv, "masking",
      "Chapter 4 of Attention, Compiled: masking. Which keys each query may look at, "
      "and why the scores of the others are set to -inf before the softmax.",
      masking::compute, masking::to_json, masking::tables);
}
