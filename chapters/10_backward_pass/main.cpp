// Chapter 10: the backward pass.
//
// With no arguments: the book's toy sentence "cat eat fish" through scaled
// dot-product attention, with the loss chosen as one entry of the output,
// L = O[cat][d1]. Its gradient dO has a single 1, and the program follows it
// back through the formula: dV = Wᵀ·dO, dW = dO·Vᵀ, the softmax's
// dS = W ⊙ (dW − rowsum(dW ⊙ W)), dQ = dS·K/√d_k and dK = dSᵀ·Q/√d_k.
// Then every backward pass of the library against central finite
// differences on random inputs, and the error against the step h.
//
// --causal masks the future; --row and --column choose the entry; --q, --k,
// --v and --tokens change the inputs; --seed, --step, --length and --d-model
// change the random check. --json prints the same values as one JSON document.
//
// The computation, its JSON and its tables are in backward_pass.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "backward_pass.hpp"
#include "program/run_chapter.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<backward_pass::Flags>(
      argc, argv, "backward_pass",
      "Chapter 10 of Attention, Compiled: the backward pass. One entry of the output is the loss; its gradient is "
      "followed back through attention to Q, K and V, and every layer's gradient is checked against central finite "
      "differences.",
      backward_pass::compute, backward_pass::to_json, backward_pass::tables);
}
