// Chapter 6: positional encoding, as one computation with its front ends.
//
// Two demonstrations; the flags choose which one compute() runs. The encoding:
// the sinusoidal table of §3.5, its wavelengths, the shift map M_k with its
// checks, and PE(pos) · PE(pos + k). The permutation: self-attention on the
// same tokens in two orders, without and with the encoding added. to_json()
// and tables() show the result; Flags reads the command line into Inputs.
// The command line and the page (program/run_chapter.hpp, register_chapter) both go through these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/attention.hpp"
#include "attention/matrix.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"

namespace positional_encoding {

/// Which demonstration a run shows.
enum class Demonstration { encoding, permutation };

/// The encoding's inputs: --sentence or --positions, --d-model, --shift.
struct EncodingInputs {
  std::vector<std::string> words{"We", "are", "the", "one"};  // empty with --positions
  Eigen::Index positions = 4;
  Eigen::Index d_model = 8;
  Eigen::Index offset = 1;   // k of M_k: --shift, 1 unless given
  bool print_shift = false;  // --shift was given: the tables show M_k and its checks instead of PE
};

/// The permutation's inputs: the tokens' queries, keys and values, and --order.
struct PermutationInputs {
  program::AttentionInputs tokens;  // the toy "cat eat fish" unless --q, --k, --v, --tokens say otherwise
  std::vector<Eigen::Index> order;  // row r of the new order is token order[r] of the old, from 0
};

/// What the flags say.
struct Inputs {
  Demonstration demonstration = Demonstration::encoding;
  EncodingInputs encoding;        // for Demonstration::encoding
  PermutationInputs permutation;  // for Demonstration::permutation
};

/// PE(pos + k) = PE(pos) · M_k, checked.
struct ShiftCheck {
  Eigen::Index offset = 0;
  attention::Matrix map;               // M_k
  attention::Matrix shifted;           // PE(pos) · M_k for each position of the table
  double table_error = 0.0;            // largest |PE(pos) · M_k − PE(pos + k)| over the table
  double grid_error = 0.0;             // the same over the grid, every k from 0 to grid_size − 1
  double transposed_grid_error = 0.0;  // the same with M_kᵀ in place of M_k: the wrong orientation
};

/// PE(pos) · PE(pos + k) over the grid: for each k, its value at pos = 0 and
/// the smallest and largest over every pos.
struct Similarity {
  Eigen::VectorXd at_first_position, smallest, largest;
  double largest_spread = 0.0;  // the largest (largest − smallest) over every k
};

/// The encoding's result.
struct EncodingResult {
  EncodingInputs inputs;
  attention::Matrix encoding;                // PE, positions × d_model
  Eigen::VectorXd frequencies, wavelengths;  // ω_i and 2π/ω_i of each pair
  double ratio = 0.0;                        // 10000^(2/d_model): one wavelength over the one before
  ShiftCheck shift;
  Similarity similarity;
};

/// Every token in the old order and in the new, compared token by token.
struct Comparison {
  attention::AttentionSteps<> before, after;
  attention::Matrix expected_output;  // the old outputs, in the new order of the tokens
  bool scores_equal = false, weights_equal = false, outputs_equal = false;  // bit for bit
  double largest_score_difference = 0.0, largest_weight_difference = 0.0, largest_output_difference = 0.0;
  std::uint64_t largest_output_difference_ulps = 0;
  Eigen::Index largest_output_difference_row = 0;  // in the new order
};

/// The permutation's result.
struct PermutationResult {
  PermutationInputs inputs;
  Comparison without_positions, with_positions;
  attention::Matrix encoding;                // PE added to the queries and keys
  attention::Matrix value_encoding;          // PE added to the values (as wide as they are)
  attention::Matrix queries_with_positions;  // the queries in the old order, PE added
  std::vector<std::string> reordered;        // the token labels in the new order
};

/// Everything the tables and the JSON show: the demonstration that ran.
struct Result {
  Demonstration demonstration = Demonstration::encoding;
  EncodingResult encoding;
  PermutationResult permutation;
};

/// Runs the demonstration @p inputs names. Throws program::UsageError naming
/// --q, --k or --v when a number the tables show would overflow a double.
Result compute(const Inputs& inputs);

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// --sentence, --positions, --d-model, --shift, --order and --q, --k, --v,
/// --tokens, with their help, defaults and exclusions; read() checks them
/// after parsing and throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  EncodingInputs read_encoding() const;
  PermutationInputs read_permutation() const;

  const program::CommandLine& command_line_;
  std::string sentence_text_ = "We are the one";
  std::string positions_text_ = "4";
  std::string d_model_text_ = "8";
  std::string shift_text_ = "1";
  std::string order_text_ = "3,2,1";
  std::optional<program::AttentionFlags> attention_flags_;  // declared after --order, for --help's order
};

}  // namespace positional_encoding
