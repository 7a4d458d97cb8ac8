// Chapter 0: sets of vectors in, sets of vectors out.
//
// With no arguments: four words (cat, dog, apple, pear) as one-hot vectors and
// as illustrative embeddings, with the dot product and the distance between
// every pair; the frames a 25 ms window moved by 10 ms cuts from one second of
// speech; and "I saw a saw" through a fully connected layer that reads one
// vector at a time, then through one that reads a window of three.
// --words and --embeddings change the vocabulary; --seconds, --window-ms and
// --hop-ms the recording; --sentence, --width, --tags, --radius, --seed and
// --longest the layers; --json prints the same values as one JSON document.
//
// The computation, its JSON and its tables are in sets_of_vectors.cpp; main() hands them to
// program::run_chapter() (src/program/run_chapter.hpp), which reads the command line and
// prints; --json-file writes the JSON document from the same run as the tables.
#include "program/run_chapter.hpp"
#include "sets_of_vectors.hpp"

int main(int argc, char** argv) {
  return program::run_chapter<sets_of_vectors::Flags>(
      argc, argv, "sets_of_vectors",
      "Chapter 0 of Attention, Compiled: sets of vectors in, sets of vectors out. Words "
      "and speech as vectors, and why a layer that reads one vector at a time cannot "
      "tell the two saws of \"I saw a saw\" apart.",
      sets_of_vectors::compute, sets_of_vectors::to_json, sets_of_vectors::tables);
}
