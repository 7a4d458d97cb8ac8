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
// The computation, its JSON and its tables are in masking.cpp; this file only
// reads the command line and prints.
#include <iostream>

#include "masking.hpp"
#include "program/command_line.hpp"

int main(int argc, char** argv) {
  program::CommandLine command_line{"masking",
                                    "Chapter 4 of Attention, Compiled: masking. Which keys each query may look at, "
                                    "and why the scores of the others are set to -inf before the softmax."};
  masking::Flags flags(command_line);  // not const: parsing writes into it
  bool json = false;
  command_line.flag("--json", json, "print the values as one JSON document instead of tables");

  return command_line.run(argc, argv, [&] {
    const masking::Result result = masking::compute(flags.read());
    if (json) {
      std::cout << masking::to_json(result).dump(2) << '\n';
    } else {
      std::cout << masking::tables(result);
    }
  });
}
