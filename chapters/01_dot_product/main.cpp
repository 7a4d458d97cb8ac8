// Chapter 1: the dot product and QKᵀ.
//
// With no arguments: the book's toy sentence "cat eat fish" (src/program/toy.hpp),
// its queries and keys, every score spelled out as a dot product, and the score table QKᵀ.
// --q and --k replace the queries and keys; --json prints the same values as JSON.
// The computation, its JSON and its tables are in dot_product.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "dot_product.hpp"
#include "program/run_chapter.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<dot_product::Flags>(
      argc, argv, "dot_product", "Chapter 1 of Attention, Compiled: the dot product and the score matrix QKᵀ.",
      dot_product::compute, dot_product::to_json, dot_product::tables);
}
