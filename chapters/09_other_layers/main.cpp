// Chapter 9: other scores and other layers.
//
// With no arguments: the toy sentence "cat eat fish" scored by additive
// attention, vᵀ tanh(q W_q + k W_k), beside scaled dot-product attention on the
// same vectors, then the two scorings timed against each other on this
// machine (--no-timing skips that). --demo cross: encoder–decoder attention,
// a 3-word target asking a 4-word source. --demo convolution: a 1-D
// convolution, and the same numbers from multi-head self-attention with one
// head per kernel offset. --json prints the same values as one JSON document.
//
// The computation, its JSON and its tables are in other_layers.cpp; this file
// only reads the command line and prints.
#include <iostream>
#include <string>

#include "other_layers.hpp"
#include "program/command_line.hpp"
#include "program/json_flags.hpp"

int main(int argc, char** argv) {
  program::CommandLine command_line{"other_layers",
                                    "Chapter 9 of Attention, Compiled: other scores and other layers. Additive "
                                    "attention, encoder-decoder (cross) attention, and a convolution computed as "
                                    "multi-head self-attention."};
  other_layers::Flags flags(command_line);  // not const: parsing writes into it
  const program::JsonFlags output(command_line, "print the values as one JSON document instead of tables",
                                 "also write the JSON document to this file, from the same run as the tables (the "
                                 "timings differ from run to run)");

  return command_line.run(argc, argv, [&] {
    const other_layers::Result result = other_layers::compute(flags.read());
    output.print([&] { return other_layers::to_json(result); }, [&] { return other_layers::tables(result); });
  });
}
