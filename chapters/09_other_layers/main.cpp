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
// The computation, its JSON and its tables are in other_layers.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "other_layers.hpp"
#include "program/run_chapter.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<other_layers::Flags>(
      argc, argv, "other_layers",
      "Chapter 9 of Attention, Compiled: other scores and other layers. Additive "
      "attention, encoder-decoder (cross) attention, and a convolution computed as "
      "multi-head self-attention.",
      other_layers::compute, other_layers::to_json, other_layers::tables);
}
