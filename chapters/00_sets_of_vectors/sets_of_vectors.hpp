// Chapter 0: sets of vectors in, sets of vectors out, as one computation with
// its front ends.
//
// Three things the rest of the book takes for granted. Words become vectors:
// one-hot vectors against embeddings, compared by dot product and by
// distance. Speech becomes vectors: how many frames a window and a hop cut
// from a recording. And a fully connected layer that reads each vector on its
// own gives equal words equal outputs ("I saw a saw"), where a window of
// neighbours does not, at a cost in weights that grows with the window.
// to_json() and tables() show the result; Flags reads the command line into
// Inputs. The command line and the page (program/run_chapter.hpp, register_chapter) both go through these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"
#include "program/command_line.hpp"

namespace sets_of_vectors {

/// What the flags say.
struct Inputs {
  std::vector<std::string> words;  // the vocabulary, --words
  attention::Matrix embeddings;    // one row per word, --embeddings (illustrative, not trained)
  std::int64_t duration_us = 0;    // --seconds, rounded to the nearest microsecond
  std::int64_t window_ms = 25, hop_ms = 10;
  std::vector<std::string> sentence;  // --sentence, one word per entry
  Eigen::Index width = 4;             // d, the width of each word vector of the sentence
  Eigen::Index tags = 4;              // c, the number of outputs per word
  Eigen::Index radius = 1;            // the window layer's neighbours on each side
  std::uint32_t seed = 1;
  long long longest = 1000;  // the longest sentence a whole-sentence window must cover
};

/// One encoding of the vocabulary: its vectors and the two tables that compare them.
struct Encoding {
  attention::Matrix vectors, dot_products, distances;
  // For the first word: which of the second and third it is nearer to
  // ("neither" when the two distances are equal, bit for bit).
  std::string nearer;
};

/// How many frames a window and a hop cut from a recording.
struct Frames {
  std::int64_t count = 0;   // floor((duration − window) / hop) + 1, or 0 if the window does not fit
  double per_second = 0.0;  // 1000 / hop
  std::int64_t last_start_us = 0, last_end_us = 0;  // the last frame, when there is one
  std::int64_t uncovered_us = 0;                    // the end of the recording no frame reaches
  std::int64_t count_if_end_padded = 0;             // frames if the end is padded so that every moment is in a frame
};

/// One word that occurs more than once in the sentence, and whether its outputs agree.
struct Repeat {
  std::string word;
  std::vector<Eigen::Index> positions;  // counted from 0
  bool inputs_identical = false;        // its input vectors, bit for bit
  bool each_vector_identical = false;   // the outputs of the layer that reads one vector
  bool window_identical = false;        // the outputs of the window layer
};

/// The window layer's size for one radius.
struct WindowSize {
  long long radius = 0, window = 1, parameters = 0;
  bool covers_sentence = false;  // every position sees every word of the sentence
};

/// Everything the tables and the JSON show.
struct Result {
  Inputs inputs;
  Encoding one_hot, embedding;
  Frames frames;
  std::vector<std::string> distinct_words;  // in order of first appearance
  attention::Matrix word_vectors;           // one row per distinct word, drawn from the seed
  attention::Matrix sentence_vectors;       // one row per word of the sentence
  attention::Matrix one_weights, window_weights;
  Eigen::RowVectorXd one_bias, window_bias;
  attention::Matrix one_outputs, window_inputs, window_outputs;
  std::vector<Repeat> repeats;
  std::vector<WindowSize> sizes;                 // radius 0 up to the first that covers the sentence
  WindowSize longest;                            // the window that covers a sentence of --longest words
  long long attention_parameters = 0;            // W^Q, W^K, W^V of one head of width d: 3 d², whatever the length
  long long attention_and_layer_parameters = 0;  // those, and the one-vector layer after them (radius 0)
};

/// The tables, the frames and the two layers. Throws program::UsageError
/// naming the flag when an input cannot be used.
Result compute(const Inputs& inputs);

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// The input flags, with their help and defaults; read() checks them after
/// parsing and throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  std::string words_ = "cat,dog,apple,pear";
  std::string embeddings_ = "0.9,0.2; 0.8,0.3; 0.2,0.9; 0.3,0.7";
  std::string seconds_ = "1", window_ms_ = "25", hop_ms_ = "10";
  std::string sentence_ = "I,saw,a,saw";
  std::string width_ = "4", tags_ = "4", radius_ = "1", seed_ = "1", longest_ = "1000";
};

}  // namespace sets_of_vectors
