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
// The computation, its JSON and its tables are in sets_of_vectors.cpp; this
// file only reads the command line and prints.
#include <iostream>

#include "program/command_line.hpp"
#include "sets_of_vectors.hpp"

int main(int argc, char** argv) {
  program::CommandLine command_line{"sets_of_vectors",
                                    "Chapter 0 of Attention, Compiled: sets of vectors in, sets of vectors out. Words "
                                    "and speech as vectors, and why a layer that reads one vector at a time cannot "
                                    "tell the two saws of \"I saw a saw\" apart."};
  sets_of_vectors::Flags flags(command_line);  // not const: parsing writes into it
  bool json = false;
  command_line.flag("--json", json, "print the values as one JSON document instead of tables");

  return command_line.run(argc, argv, [&] {
    const sets_of_vectors::Result result = sets_of_vectors::compute(flags.read());
    if (json) {
      std::cout << sets_of_vectors::to_json(result).dump(2) << '\n';
    } else {
      std::cout << sets_of_vectors::tables(result);
    }
  });
}
