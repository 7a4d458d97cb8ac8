// Chapter 12: attention without the n × n matrix.
//
// With no arguments: the toy sentence (cat, eat, fish) through the streaming
// kernel one key at a time, with the running maximum, the running sum and the
// output so far after every tile, and the output against the teaching
// version's. --q, --k, --v, --tokens, --tile, --query-tile and --mask change
// the example. With --n, a benchmark instead: the teaching version, each fast
// step and NumPy timed at each length n (--d, --threads, --reps,
// --memory-limit, --python, --no-numpy), with the memory each needs and the
// machine's measured multiply-add peak. --json prints the same values as one
// JSON document.
//
// The computation is compute() (Inputs → Result) in fast_attention.cpp;
// main() only reads the flags and prints the result as tables or as JSON.
#include <iostream>
#include <string>

#include "fast_attention.hpp"
#include "program/command_line.hpp"
#include "program/json_flags.hpp"

int main(int argc, char** argv) {
  program::CommandLine command_line{
      "fast_attention",
      "Chapter 12 of Attention, Compiled: attention without the n x n matrix. Traces the streaming kernel (tiles of "
      "keys, an online softmax) on a small example, or with --n times the teaching version, each fast step and NumPy "
      "on this machine."};
  const fast_attention::Flags flags(command_line);
  const program::JsonFlags output(command_line, "print the values as one JSON document instead of tables",
                                 "also write the JSON document to this file, from the same run as the tables (the "
                                 "timings differ from run to run)");

  return command_line.run(argc, argv, [&] {
    const fast_attention::Result result = fast_attention::compute(flags.read());
    output.print([&] { return fast_attention::to_json(result); }, [&] { return fast_attention::tables(result); });
  });
}
