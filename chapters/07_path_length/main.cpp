// Chapter 7: self-attention against recurrence — path length and cost.
//
// With no arguments: a sequence of n = 50 positions (the 50-word sentence of
// the hand-worked lesson), vectors of width d = 512 (d_model of the paper's base
// model), convolutions of kernel width 3 and restricted attention of radius 2.
// For each layer type of the paper's Table 1 the program builds the layer's
// dependency graph, stacks layers until every output depends on every input,
// and counts by breadth-first search the maximum path length between an input
// and an output position; it also counts the multiply-adds of one layer and
// the longest chain of steps that must wait for one another. Then it times one
// self-attention layer against one recurrent layer on this machine at a few
// lengths n (a couple of seconds), and says at which n each was faster.
// --n, --d, --kernel and --radius change what is counted; --sweep, --time-n
// and --repeats what is timed; --no-timing only counts; --json prints the same
// values as one JSON document.
//
// The computation, its JSON and its tables are in path_length.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "path_length.hpp"
#include "program/run_chapter.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<path_length::Flags>(
      argc, argv, "path_length",
      "Chapter 7 of Attention, Compiled: self-attention against recurrence. Counts, on each layer type's dependency "
      "graph, the maximum path length between an input and an output position, the multiply-adds of one layer and its "
      "sequential steps; then times one self-attention layer against one recurrent layer on this machine and says at "
      "which n each was faster, or that the two were too close to call.",
      path_length::compute, path_length::to_json, path_length::tables);
}
