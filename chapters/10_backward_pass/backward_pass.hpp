// Chapter 10: the backward pass, as one computation with its front ends.
//
// The walkthrough: the toy "cat eat fish" (or other inputs) through scaled
// dot-product attention, optionally under the causal mask, with the loss
// chosen as ONE entry of the output, L = O[row][column]. Its gradient dO is 1
// at that entry and 0 elsewhere, and the program follows it back: dV, dW, the
// softmax's dS, then dQ and dK.
//
// The check: every backward pass of the library (attention with and without
// the causal mask, multi-head attention, layer normalisation, the
// feed-forward network, the embedding, softmax cross-entropy, one whole
// encoder layer) against central finite differences with step h on random
// inputs drawn from --seed; then the same check for a sweep of steps from
// 1e-1 to 1e-10, to show where the finite difference itself goes wrong; then
// the attention check in double and in float for steps four to a decade, to
// show where the best step of each format lies.
//
// to_json() and tables() show the result; Flags reads the command line into
// Inputs. The command line and the page (program/run_chapter.hpp, register_chapter) both go through these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/attention.hpp"
#include "attention/attention_backward.hpp"
#include "attention/gradient_check.hpp"
#include "attention/matrix.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"

namespace backward_pass {

/// The walkthrough's largest inputs: the toy's own check by central differences
/// costs (n · d) forward passes per matrix, so the sizes stay small.
inline constexpr Eigen::Index max_walkthrough_side = 16;
/// The random check's largest sizes (--length tokens of --d-model entries).
inline constexpr std::uint64_t max_length = 8;
inline constexpr std::uint64_t max_d_model = 8;
/// The random check's fixed shapes: two heads, a hidden layer 4 × d_model
/// wide (as in §3.3 of the paper), a vocabulary of six words.
inline constexpr Eigen::Index heads = 2;
inline constexpr Eigen::Index d_ff_factor = 4;
inline constexpr Eigen::Index vocabulary = 6;

/// What the flags say.
struct Inputs {
  program::AttentionInputs tokens;  // the toy "cat eat fish" unless --q, --k, --v, --tokens say otherwise
  bool causal = false;              // --causal: token i may look at tokens 1 … i
  Eigen::Index loss_row = 0;        // the loss is O[loss_row][loss_column], counted from 0 (the flags count from 1)
  Eigen::Index loss_column = 0;
  std::uint32_t seed = 1;  // the random check's draws: chapter 2's Mulberry32, seeded with this
  double step = attention::default_difference_step;  // h of the central differences
  Eigen::Index length = 4;                           // tokens in the random check
  Eigen::Index d_model = 4;                          // their width
  bool check = true;                                 // false with --no-check: the walkthrough only (the page's figure)
};

/// The toy's gradients, from L = O[row][column] back to Q, K and V.
struct Walkthrough {
  attention::AttentionSteps<> steps;          // the forward pass
  attention::Mask allowed;                    // all true without --causal
  double loss = 0.0;                          // O[row][column]
  attention::Matrix output_gradient;          // dO: 1 at (row, column), 0 elsewhere
  attention::AttentionGradients<> gradients;  // dW, dS, dQ, dK, dV
  attention::Matrix weighted_sums;            // n × 1: rowsum(dW ⊙ W), what the softmax subtracts in each row
  Eigen::Index masked_entries = 0;
  double largest_masked_score_gradient = 0.0;  // max |dS| over the masked entries: exactly 0
  // The toy's own check: dQ, dK, dV against central differences of L, with --step.
  double queries_error = 0.0, keys_error = 0.0, values_error = 0.0;
};

/// One gradient of one layer against central differences.
struct ParameterCheck {
  std::string name;          // "Q", "x", "W^O", "gamma", …
  Eigen::Index entries = 0;  // how many entries were moved by ±h
  double largest = 0.0;      // the largest |entry| of the analytic gradient
  double error = 0.0;        // relative_error(analytic, central differences)
};

/// Every gradient of one layer, checked.
struct LayerCheck {
  std::string key;          // the JSON key: attention, attention_causal, multi_head, layer_norm, …
  std::string title;        // the table's name for it
  std::string short_title;  // the sweep table's column heading, at most 9 characters
  std::vector<ParameterCheck> parameters;
  double error = 0.0;  // the largest error over the parameters
};

/// The random draws' sizes and the check at the chosen step.
struct Check {
  std::vector<LayerCheck> layers;
  double largest_error = 0.0;
  double smallest_relu_input = 0.0;   // the least |xW₁ + b₁| in the two feed-forward networks: the kink's distance
  double layer_norm_row_sum = 0.0;    // the largest |Σ_j dx_tj| of the LayerNorm check's input gradient: about 0
  std::vector<Eigen::Index> words;    // the embedding check's sentence (the first word repeats at the end)
  std::vector<Eigen::Index> targets;  // the cross-entropy check's right answers
};

/// The error of the first gradient of each layer (its input, or Q for
/// attention) for each step of the sweep.
struct Sweep {
  std::vector<double> steps;                // 1e-1, 1e-2, …, 1e-10
  std::vector<std::string> layers;          // the layers' keys, in the check's order
  std::vector<std::vector<double>> errors;  // errors[layer][step]
  std::vector<std::string> parameters;      // which gradient of each layer
};

/// The attention check's dQ in one number format, for every step of the format sweep.
struct FormatCurve {
  std::string format;                 // "double" or "float"
  double spacing = 0.0;               // the format's spacing at 1: 2⁻⁵² or 2⁻²³
  double cube_root_of_spacing = 0.0;  // about where truncation (h²) and rounding (spacing/h) balance
  std::vector<double> errors;         // errors[step]: relative_error(dQ, central differences), all in the format
  double best_step = 0.0;             // the step of the smallest error
  double best_error = 0.0;            // that error
};

/// The attention check (loss Σ O ⊙ R, gradient dQ) run in double and in float
/// for steps h = 10^(−k/4), k = 2 … 48, on the same draws (cast to float).
struct FormatSweep {
  std::vector<double> steps;
  std::vector<FormatCurve> curves;  // double, then float
};

/// Everything the tables and the JSON show.
struct Result {
  Inputs inputs;
  Walkthrough walkthrough;
  Check check;
  Sweep sweep;
  FormatSweep format_sweep;
  attention::Matrix queries, keys, values, direction;  // the attention check's draws, for the JSON
  double epsilon = 0.0;                                // the machine epsilon of a double, 2⁻⁵²
  double cube_root_epsilon = 0.0;                      // ε^(1/3): about where truncation and rounding balance
};

/// The walkthrough, then (unless --no-check) the check at --step and the sweep of steps.
/// Throws program::UsageError naming --v when the output or a gradient
/// overflows a double.
Result compute(const Inputs& inputs);

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// --q, --k, --v, --tokens, --causal, --row, --column, --seed, --step,
/// --length, --d-model and --no-check, with their help and defaults; read() checks them
/// after parsing and throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  program::AttentionFlags attention_flags_;
  bool causal_ = false;
  bool no_check_ = false;
  std::string row_text_ = "1";
  std::string column_text_ = "1";
  std::string seed_text_ = "1";
  std::string step_text_ = "1e-5";
  std::string length_text_ = "4";
  std::string d_model_text_ = "4";
};

}  // namespace backward_pass
