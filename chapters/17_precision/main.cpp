// Chapter 17: the precision of a number.
//
// With no arguments: adds 1 a thousand times, from 0, in double, float and bfloat16, and prints where each
// total stops growing; then keeps the online softmax's running sum (chapter 12) of 16 to 65536 normal scores
// with its terms and its sum in float or bfloat16, and prints the relative error of the softmax's denominator
// against double. --count, --n, --seed and --spread change them; --json prints it all as one JSON document.
// The computation is in precision.cpp, the JSON, tables and flags in precision_output.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and prints; --json-file
// writes the JSON document from the same run as the tables.
#include "precision.hpp"
#include "program/run_chapter.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<precision::Flags>(
      argc, argv, "precision",
      "Chapter 17 of Attention, Compiled: adding in double, float and bfloat16, and the online softmax's running sum "
      "kept in each: where a sum kept in too few bits stops growing.",
      precision::compute, precision::to_json, precision::tables);
}
