// Chapter 3: softmax and the weighted sum, as one computation with its front ends.
//
// Two demonstrations; the flags choose which one compute() runs. The toy: the
// book's sentence "cat eat fish" through the whole formula softmax(QKᵀ/√d_k)V,
// with and without the scale, plus the hand-worked lesson's two calculations
// redone with every term rounded to three decimals. The saturation demo: one
// row of scores against the same row divided, with an amount added to slot two
// on both sides, and the textbook formula e^s / Σ e^s against the stable one.
// to_json() and tables() show the result; Flags reads the command line into
// Inputs. The command line and the page (program/run_chapter.hpp, register_chapter) both go through these.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/attention.hpp"
#include "attention/matrix.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"

namespace softmax {

/// Which demonstration a run shows.
enum class Demonstration { toy, saturation };

/// The toy's inputs: --q, --k, --v, --tokens, --no-scale and --causal.
struct ToyInputs {
  program::AttentionInputs tokens;  // the toy "cat eat fish" unless the flags say otherwise
  bool scale = true;                // false with --no-scale: softmax(QKᵀ)V is the main result
  bool causal = false;              // true with --causal: token i sees tokens 1 … i (both passes)
};

/// The saturation demo's inputs: --scores, --divide, --add.
struct SaturationInputs {
  Eigen::RowVectorXd scores;  // at least two
  double divide = 8.0;        // finite, not 0
  double add = 0.5;           // finite
  std::string divide_text;    // --divide as typed, for the messages that quote it
};

/// What the flags say.
struct Inputs {
  Demonstration demonstration = Demonstration::toy;
  ToyInputs toy;                // for Demonstration::toy
  SaturationInputs saturation;  // for Demonstration::saturation
};

/// What one pass through the formula shows besides AttentionSteps: the
/// textbook numerators e^s of the scores going into softmax, and the sums.
struct Pass {
  attention::AttentionSteps<> steps;
  attention::Matrix exponentials;    // e^s for each score s that enters softmax
  Eigen::VectorXd exponential_sums;  // one per row
  Eigen::VectorXd row_sums;          // of the weights: 1 each
  Eigen::RowVectorXd column_sums;    // of the weights: need not be 1
  double smallest_weight = 0.0;
  Eigen::Index smallest_row = 0, smallest_column = 0;
  Eigen::Index zero_weights = 0;  // weights that are exactly 0.0
};

/// Where each entry of a matrix stands against the nearest rounding boundary
/// at three decimals, the midpoint between two neighbouring roundings (0.3985
/// between 0.398 and 0.399).
struct Boundaries {
  attention::Matrix nearest;                   // the nearest boundary
  attention::Matrix distance;                  // |x − boundary|
  std::vector<std::vector<std::string>> side;  // "below", "above", or "on" it
};

/// The hand-worked lesson's two calculations for every row, with every
/// intermediate value rounded to three decimals as a hand calculation does,
/// against the full-precision results rounded once.
struct HandRounded {
  int decimals = 3;
  attention::Matrix exponentials;                 // e^s, each rounded
  Eigen::VectorXd exponential_sums;               // the sums of the rounded terms
  Eigen::VectorXd exponential_sums_rounded_once;  // the full-precision sums, rounded
  Eigen::VectorXd exponential_sum_steps_off;      // how many steps of the last decimal apart
  attention::Matrix output;                       // rounded weights · V
  attention::Matrix output_rounded_once;          // the full-precision output, rounded
  Boundaries output_boundary, full_output_boundary;
};

/// The toy's result: both passes, and what the main one (scaled, unless
/// --no-scale) shows besides.
struct ToyResult {
  ToyInputs inputs;
  Eigen::Index d_k = 0;
  double sqrt_d_k = 0.0;
  Pass scaled, unscaled;
  std::vector<std::string> largest_weight_on;  // per row of the main pass, the key given the largest weight
  HandRounded hand_rounded;                    // of the main pass

  const Pass& main_pass() const { return inputs.scale ? scaled : unscaled; }
};

/// The slots (counted from 1) that share a row's largest weight, and that weight.
struct Largest {
  std::vector<Eigen::Index> slots;
  double weight = 0.0;
};

/// One point of the sweep behind the saturation figure.
struct SweepPoint {
  double add = 0.0;
  Eigen::RowVectorXd weights_large, weights_divided;
};

/// The saturation demo's result.
struct SaturationResult {
  SaturationInputs inputs;
  Eigen::RowVectorXd divided, scores_added, divided_added;
  Eigen::RowVectorXd weights_large, weights_large_added, weights_divided, weights_divided_added;
  double lead = 0.0;                                // the highest score minus the next highest (0 for a tie)
  double large_change = 0.0, divided_change = 0.0;  // of slot two's weight
  double divided_change_over_large_change = 0.0;    // inf if the large side's weight does not move
  Largest largest_large, largest_large_added, largest_divided, largest_divided_added;
  // ∂w₂/∂s₂ = w₂(1 − w₂): how fast slot two's weight moves with its own score.
  double sensitivity_large = 0.0, sensitivity_divided = 0.0;
  double sensitivity_divided_per_unit = 0.0;  // per unit of the original scores: divided by --divide
  // The textbook formula on the scores, against the stable one (weights_large).
  Eigen::RowVectorXd exponentials, shifted_exponentials, textbook;
  std::vector<SweepPoint> sweep;
};

/// Everything the tables and the JSON show: the demonstration that ran.
struct Result {
  Demonstration demonstration = Demonstration::toy;
  ToyResult toy;
  SaturationResult saturation;
};

/// Runs the demonstration @p inputs names. Throws program::UsageError naming
/// --v, --divide or --add when a number the tables show would overflow a double.
Result compute(const Inputs& inputs);

/// The document --json prints. The toy: `weights` and `output` at the top level
/// (of the main pass), every step of both passes under `scaled` and `unscaled`.
/// The saturation demo: everything under `saturation`. A value that is not
/// finite is written as "inf", "-inf" or "NaN"; slots count from 1.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// --q, --k, --v, --tokens, --no-scale, --causal and --scores, --divide, --add, with
/// their help, defaults and exclusions; read() checks them after parsing and
/// throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  SaturationInputs read_saturation() const;

  const program::CommandLine& command_line_;
  program::AttentionFlags attention_flags_;
  bool no_scale_ = false;
  bool causal_ = false;
  std::string scores_text_ = "8,4,0";  // the hand-worked lesson's Figure 2 (see the preface)
  std::string divide_text_ = "8";
  std::string add_text_ = "0.5";
};

}  // namespace softmax
