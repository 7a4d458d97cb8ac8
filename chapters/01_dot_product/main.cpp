// Chapter 1: the dot product and QKᵀ.
//
// With no arguments: the book's toy sentence "cat eat fish" (src/program/toy.hpp),
// its queries and keys, every score spelled out as a dot product, and the score table QKᵀ.
// --q and --k replace the queries and keys; --json prints the same values as JSON.
// The computation, the tables and the JSON are in dot_product.cpp; this file
// only reads the command line and prints.
#include <iostream>

#include "dot_product.hpp"
#include "program/command_line.hpp"

int main(int argc, char** argv) {
  program::CommandLine command_line{"dot_product",
                                    "Chapter 1 of Attention, Compiled: the dot product and the score matrix QKᵀ."};
  const dot_product::Flags flags(command_line);
  bool json = false;
  command_line.flag("--json", json, "print the values as one JSON document instead of tables");

  return command_line.run(argc, argv, [&] {
    const dot_product::Result result = dot_product::compute(flags.read());
    if (json) {
      std::cout << dot_product::to_json(result).dump(2) << '\n';
    } else {
      std::cout << dot_product::tables(result);
    }
  });
}
