// Chapter 17: the precision of a number.
//
// With no arguments: adds 1 a thousand times, from 0, in double, float and bfloat16, and prints where each
// total stops growing; then keeps the online softmax's running sum (chapter 12) of 16 to 65536 normal scores
// with its terms and its sum in float or bfloat16, and prints the relative error of the softmax's denominator
// against double. --count, --n, --seed and --spread change them; --json prints it all as one JSON document.
// The computation is in precision.cpp, the JSON, tables and flags in precision_output.cpp.
#include <iostream>

#include "precision.hpp"
#include "program/command_line.hpp"
#include "program/json_output.hpp"

int main(int argc, char** argv) {
  program::CommandLine command_line{
      "precision",
      "Chapter 17 of Attention, Compiled: adding in double, float and bfloat16, and the online softmax's running sum "
      "kept in each: where a sum kept in too few bits stops growing."};
  precision::Flags flags(command_line);
  bool json = false;
  command_line.flag("--json", json, "print the results as one JSON document instead of tables");
  return command_line.run(argc, argv, [&] {
    const precision::Result result = precision::compute(flags.read());
    if (json) {
      std::cout << precision::to_json(result).dump(2) << '\n';
    } else {
      std::cout << precision::tables(result);
    }
  });
}
