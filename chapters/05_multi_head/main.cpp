// Chapter 5: multi-head attention.
//
// With no arguments: the sentence "I love you" with d_model = 4 and h = 2
// heads, each of width d_k = d_v = d_model / h = 2 (the shapes of the Korean
// walkthrough the preface describes). The input X and every weight matrix are drawn from
// chapter 2's generator with seed 1, in the order src/attention/random_weights.hpp
// documents: W^Q_1, W^K_1, W^V_1, W^Q_2, …, W^O, then X. The program prints
// each head's projections, weights and output, the concatenation, W^O, the
// output, and what one layer costs against one head of full width.
//
// --heads, --d-model, --seed and --tokens change the sizes and the draws.
// --sizes-only prints only the head width and the cost, for any allowed
// sizes, without drawing or computing anything (the paper's base model:
// --d-model 512 --heads 8 --sizes-only). --json prints the same values as one
// JSON document: enough to recompute everything (see the chapter).
//
// The computation, its JSON and its tables are in multi_head.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "multi_head.hpp"
#include "program/run_chapter.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<multi_head::Flags>(
      argc, argv, "multi_head",
      "Chapter 5 of Attention, Compiled: multi-head attention. h heads, each with its own W^Q_i, W^K_i, W^V_i of "
      "width d_model / h, attend in parallel; their outputs are concatenated and multiplied by W^O. The inputs and "
      "weights are drawn from chapter 2's generator with --seed.",
      multi_head::compute, multi_head::to_json, multi_head::tables);
}
