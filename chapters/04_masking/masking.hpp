// Chapter 4: masking, as one computation with its front ends.
//
// The toy sentence "cat eat fish" (or other inputs) under a mask: none, the
// decoder's causal mask, a band or padding. Masked scores are set to the fill
// (−∞ unless told otherwise) before the softmax; then the same inputs and mask
// with finite fills (−1e9, −1000, −10) in place of −∞, to show how much weight
// each lets through. to_json() and tables() show the result; Flags reads the
// command line into Inputs. The command line and the page (program/run_chapter.hpp, register_chapter) both
// go through these.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "attention/matrix.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"

namespace masking {

/// What --mask asked for: its kind ("none", "causal", "band" or "pad") and, for
/// a band or padding, the number after the colon (R of band:R, N of pad:N).
struct MaskSpec {
  std::string kind;
  Eigen::Index number = 0;
};

/// What the flags say.
struct Inputs {
  program::AttentionInputs tokens;   // the toy "cat eat fish" unless --q, --k, --v, --tokens say otherwise
  MaskSpec mask;                     // checked against the number of queries and keys
  std::string mask_text = "causal";  // --mask as typed, without the spaces around it
  double fill = -std::numeric_limits<double>::infinity();  // unless --fill says otherwise
};

/// What one fill lets through, on the same inputs and mask, against the output under −∞.
struct Leak {
  double fill = 0.0;
  double largest_masked_weight = 0.0;  // the largest weight on any masked key
  Eigen::Index query = -1;             // where it is; −1 when every masked weight is exactly 0
  Eigen::Index key = -1;
  double largest_output_change = 0.0;  // the largest |output − output under −∞|, over all entries
  bool output_finite = true;           // false when an output or its change overflowed a double
  // The smallest gap, over rows with both an allowed and a masked key, between the
  // row's largest allowed score and the fill: a masked weight is at most e^(−gap).
  // Empty when no row has both (no mask, or every key masked); +∞ for the fill −∞.
  std::optional<double> smallest_gap;
  Eigen::Index gap_rows = 0;  // how many rows have both an allowed and a masked key
};

/// A query that may look at one key only: its output should be that key's value.
struct OnlyKey {
  Eigen::Index query = 0, key = 0;
  bool output_is_value = false;  // bit for bit
};

/// Where e^x stops being a positive double, in double and in float precision.
struct Underflow {
  double exp_of_minus_1000 = 0.0, exp_of_minus_10 = 0.0;
  double double_smallest_positive = 0.0;
  double double_exp_is_zero_below = 0.0;  // e^x is exactly 0 for every x below this (about −745)
  double double_underflow_gap = 0.0;      // its negative: the gap beyond which a masked weight is 0
  double double_smallest_positive_log = 0.0;
  double float_smallest_positive = 0.0;
  double float_smallest_positive_log = 0.0;
  double float_underflow_gap = 0.0;
};

/// Everything the tables and the JSON show.
struct Result {
  Inputs inputs;
  attention::Mask allowed;
  std::string mask_description;  // what the mask allows, in words
  attention::AttentionSteps<> steps;
  attention::Matrix row_sums;  // 1 × n: each row of the weights added up
  Eigen::Index allowed_count = 0;
  std::vector<Eigen::Index> fully_masked_rows;  // queries that may look at no key
  std::vector<Leak> leaks;                      // −∞, −1e9, −1000, −10, then --fill if it is none of those
  std::vector<OnlyKey> only_keys;               // queries that may look at one key only
  Underflow underflow;

  /// The leak of the fill --fill chose.
  const Leak& this_fill() const;
};

/// Attention under the mask and fill of @p inputs, and the leak of each
/// compared fill. Throws program::UsageError naming --q, --k when the scores
/// cannot be computed, --v when an output or its change overflows a double,
/// and --fill when the gap down to the fill does.
Result compute(const Inputs& inputs);

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// --q, --k, --v, --tokens, --mask and --fill, with their help and defaults;
/// read() checks them after parsing and throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  program::AttentionFlags attention_flags_;
  std::string mask_text_ = "causal";
  std::string fill_text_ = "-inf";
};

}  // namespace masking
