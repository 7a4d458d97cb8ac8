// Chapter 8: one encoder layer.
//
// With no arguments: the NumPy walkthrough of the graph chapter (a chapter of a
// Thai-language book; see the preface), reproduced digit for digit: x = arange(24)/10 as 4 tokens of 6 channels, and W_q, W_k, W_v =
// 0.5 × normal draws (6 × 3 each) from np.random.default_rng(1337), through a
// C++ port of NumPy's generator. Head 1 of layer 1 under a causal mask is
// printed as NumPy prints it; then the whole encoder layer on the same x:
// multi-head self-attention (communicate), the position-wise feed-forward
// network (think), each with a residual connection and LayerNorm (§3.1).
//
// --example toy takes "cat eat fish"; --x and --tokens any input; --seed,
// --heads, --d-ff, --layers, --scale and --causal change the layer. --json
// prints every intermediate as one JSON document.
//
// The computation, its JSON and its tables are in encoder_layer.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "encoder_layer.hpp"
#include "program/run_chapter.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<encoder_layer::Flags>(
      argc, argv, "encoder_layer",
      "Chapter 8 of Attention, Compiled: one encoder layer. Tokens communicate (multi-head self-attention), then "
      "each thinks alone (a feed-forward network); each sub-layer is wrapped as LayerNorm(x + Sublayer(x)). Weights "
      "are NumPy's draws from np.random.default_rng(--seed).",
      encoder_layer::compute, encoder_layer::to_json, encoder_layer::tables);
}
