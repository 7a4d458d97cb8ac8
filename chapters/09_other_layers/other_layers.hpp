// Chapter 9: other scores and other layers, as one computation with its front ends.
//
// Three demonstrations; --demo chooses which one compute() runs.
//   additive     the toy "cat eat fish" scored by additive attention,
//                vᵀ tanh(q W_q + k W_k), beside scaled dot-product attention on
//                the same vectors; then, unless --no-timing, the two scorings
//                timed against each other on this machine.
//   cross        encoder–decoder attention: queries from a target sentence,
//                keys and values from a source sentence of another length.
//   convolution  a 1-D convolution, and the same numbers from a multi-head
//                self-attention layer with one head per kernel offset.
// to_json() and tables() show the result; Flags reads the command line into
// Inputs. The command line and the page (program/run_chapter.hpp, register_chapter) both go through these.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/additive_attention.hpp"
#include "attention/attention.hpp"
#include "attention/convolution_as_attention.hpp"
#include "attention/matrix.hpp"
#include "attention/timing_comparison.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"

namespace other_layers {

/// Which demonstration a run shows.
enum class Demonstration { additive, cross, convolution };

/// The additive demo's inputs.
struct AdditiveInputs {
  program::AttentionInputs tokens;                      // the toy unless --q, --k, --v, --tokens say otherwise
  attention::AdditiveWeights weights;                   // --wq, --wk, --va
  bool timed = true;                                    // false with --no-timing
  std::vector<std::size_t> timed_lengths{16, 64, 256};  // --time-n, increasing
};

/// The cross-attention demo's inputs: the source sentence gives keys and values, the target queries.
struct CrossInputs {
  attention::Matrix source, target;  // m × d and n × d
  std::vector<std::string> source_tokens, target_tokens;
};

/// The convolution demo's inputs.
struct ConvolutionInputs {
  attention::Matrix inputs;  // --x, n × d_in
  attention::Kernel kernel;  // --kernel
};

/// What the flags say.
struct Inputs {
  Demonstration demonstration = Demonstration::additive;
  AdditiveInputs additive;
  CrossInputs cross;
  ConvolutionInputs convolution;
};

/// Dot-product scoring against additive scoring at one length n.
struct TimingRow {
  std::size_t n = 0;
  std::vector<double> dot_product_samples, additive_samples;  // seconds per call, one per repetition
  attention::TimingSummary dot_product, additive;
};

/// The benchmark: n × n scores of each kind, d_k = d_a = timing_width.
struct Timing {
  std::string machine;
  std::size_t width = 0;
  std::size_t repeats = 0;
  std::vector<TimingRow> rows;
  attention::TimingComparison comparison;  // dot product first, additive second
  std::string summary;                     // the comparison in one sentence
};

/// The additive demo's result.
struct AdditiveResult {
  AdditiveInputs inputs;
  attention::AdditiveSteps additive;
  attention::AttentionSteps<> dot_product;                                // scaled, on the same Q, K, V
  double score_bound = 0.0;                                               // ‖v‖₁: no additive score passes it
  double largest_score = 0.0;                                             // the largest |additive score|
  std::vector<std::string> additive_favourite, dot_product_favourite;     // per query, the key with the largest weight
  std::vector<std::vector<std::string>> additive_ties, dot_product_ties;  // per query, the other keys tied with it
  std::optional<Timing> timing;
};

/// The cross-attention demo's result.
struct CrossResult {
  CrossInputs inputs;
  attention::AttentionSteps<> steps;  // Q = target, K = V = source
  attention::Matrix row_sums, column_sums;
  std::vector<std::string> favourite;  // per target word, the source word with the largest weight
};

/// The convolution demo's result.
struct ConvolutionResult {
  ConvolutionInputs inputs;
  attention::Matrix convolution;                   // convolution_1d()
  attention::ConvolutionAttentionSteps attention;  // convolution_as_attention()
  bool equal = false;                              // every entry equal, as doubles
  double largest_difference = 0.0;
  attention::Matrix single_product;        // Concat · W^O as one product
  double single_product_difference = 0.0;  // its largest distance from the convolution
};

/// Everything the tables and the JSON show: the demonstration that ran.
struct Result {
  Demonstration demonstration = Demonstration::additive;
  AdditiveResult additive;
  CrossResult cross;
  ConvolutionResult convolution;
};

/// Runs the demonstration @p inputs names. Throws program::UsageError naming
/// the flags whose values make a number overflow.
Result compute(const Inputs& inputs);

/// The document --json prints; "demo" says which demonstration it holds.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// Every input flag, with its help and default; read() checks them after
/// parsing and throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  AdditiveInputs read_additive() const;
  CrossInputs read_cross() const;
  ConvolutionInputs read_convolution() const;

  const program::CommandLine& command_line_;
  program::AttentionFlags attention_flags_;
  std::string demo_ = "additive";
  std::string wq_ = "1,0;0,1";
  std::string wk_ = "1,0;0,1";
  std::string va_ = "1,1";
  bool no_timing_ = false;
  std::string time_n_ = "16,64,256";
  std::string source_ = "1,0,0; 3,0,0; 0,3,0; 0,0,3";
  std::string source_tokens_ = "die,Katze,frisst,Fisch";
  std::string target_ = "1,0,0; 0,1,0; 0,0,1";
  std::string target_tokens_ = "cat,eats,fish";
  std::string x_ = "1,0; 2,1; 0,3; -1,2; 4,0; 1,1";
  std::string kernel_ = "1,0;0,1 | 2,0;0,-1 | 0,1;1,0";
};

}  // namespace other_layers
