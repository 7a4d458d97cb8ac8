// Chapter 6: positional encoding.
//
// Two demonstrations; the flags choose which one runs.
//
// - The encoding (no arguments, or any of --sentence --positions --d-model
//   --shift): the sinusoidal encoding of §3.5, one row per position, for the
//   book's worked sentence "We are the one" with d_model = 8, and the
//   wavelength of each pair of dimensions. --shift K prints instead M_K, the fixed
//   matrix with PE(pos + K) = PE(pos) · M_K, checked on the table's positions
//   and on a grid, and the dot product PE(pos) · PE(pos + k) for small k,
//   which depends on k only.
// - The permutation (any of --order --q --k --v --tokens): the toy "cat eat
//   fish" (src/program/toy.hpp) and the same tokens in another order, each
//   keeping its own query, key and value. Without positions every token gets
//   the same output in both orders; with the encoding added to each token's
//   query, key and value (what adding it to X does when every projection is
//   the identity), it does not.
//
// --json prints the same values as one JSON document. The encoding: `pe` (one
// row per position), `pairs` (frequency and wavelength of each pair), `shift`
// (M_k for --shift, 1 unless given, with the largest errors) and `similarity`,
// always, whether or not --shift was given. The permutation: `pe` (the
// encoding added), `without_positions` and `with_positions`. Positions and
// dimensions count from 0, as in the paper's formula; --order counts tokens
// from 1, as the other chapters do.
//
// The computation, its JSON and its tables are in positional_encoding.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "positional_encoding.hpp"
#include "program/run_chapter.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<positional_encoding::Flags>(
      argc, argv, "positional_encoding",
      "Chapter 6 of Attention, Compiled: positional encoding. Without positions, self-attention cannot tell one "
      "order of the tokens from another; the sinusoidal encoding of section 3.5 gives each position its own vector.",
      positional_encoding::compute, positional_encoding::to_json, positional_encoding::tables);
}
