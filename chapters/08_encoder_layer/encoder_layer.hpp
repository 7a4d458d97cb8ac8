// Chapter 8: one encoder layer, as one computation with its front ends.
//
// compute() draws every weight from NumPy's generator (a C++ port,
// src/attention/numpy_random.hpp), runs the graph chapter's walkthrough (one causal
// head, printed as NumPy prints) and a stack of encoder layers
// (src/attention/encoder_layer.hpp) on the same input; to_json() and tables()
// show the result; Flags reads the command line into Inputs. The command line and
// the page (program/run_chapter.hpp, register_chapter) both go through these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/encoder_layer.hpp"
#include "attention/matrix.hpp"
#include "program/command_line.hpp"

namespace encoder_layer {

/// What the flags say, checked.
struct Inputs {
  // walkthrough (the graph chapter's x = arange(24)/10, 4 × 6) or toy (cat eat fish)
  std::string example = "walkthrough";
  attention::Matrix x;              // the input, one row per token
  std::vector<std::string> tokens;  // one name per row of x
  std::uint64_t seed = 1337;        // np.random.default_rng(seed)
  Eigen::Index heads = 2;           // h
  Eigen::Index d_ff = 24;           // the feed-forward network's hidden width, 4 · d_model unless told
  Eigen::Index layers = 1;          // N
  double scale = 0.5;               // every weight is scale × a normal draw
  bool causal = false;              // mask the future inside the layers' attention
};

/// The check that the feed-forward network works on each token alone.
struct PerToken {
  double permuted_difference = 0;  // max |FFN(P y) − P FFN(y)| for P reversing the tokens
  double alone_difference = 0;     // max over t of |FFN(y_t alone) − FFN(y)_t|
  // Add 1 to every entry of the last token's row of x: how much each token's row changes.
  std::vector<double> attention_change;     // in MultiHead(x, x, x) of layer 1
  std::vector<double> feed_forward_change;  // in FFN(x) with layer 1's weights
};

/// Everything the tables and the JSON show.
struct Result {
  Inputs inputs;
  Eigen::Index d_model = 0, d_k = 0;
  std::vector<attention::EncoderLayerWeights> weights;  // one per layer, drawn in the documented order
  attention::AttentionSteps<> walkthrough;              // head 1 of layer 1 on x, under a causal mask
  bool out0_equals_v0 = false;                          // np.allclose(out[0], v[0])
  std::vector<attention::EncoderLayerSteps> layers;     // the stack on x
  // For each layer of the stack, the largest difference between two rows' entries in the same column of its
  // output: how far apart the tokens' vectors still are.
  std::vector<double> rows_apart;
  PerToken per_token;
};

/// Draws the weights and runs the walkthrough and the stack.
Result compute(const Inputs& inputs);

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// A matrix as NumPy prints it after np.set_printoptions(precision=2, suppress=True):
/// "[[-0.14 -0.27]\n [ 0.5   1.  ]]". Exposed for the tests.
std::string numpy_text(const attention::Matrix& matrix);

/// --example, --x, --tokens, --seed, --heads, --d-ff, --layers, --scale and
/// --causal; read() checks them and throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  const program::CommandLine& command_line_;
  std::string example_text_ = "walkthrough";
  std::string x_text_;
  std::string tokens_text_;
  std::string seed_text_ = "1337";
  std::string heads_text_;
  std::string d_ff_text_;
  std::string layers_text_ = "1";
  std::string scale_text_ = "0.5";
  bool causal_ = false;
};

}  // namespace encoder_layer
