// Chapter 1: the dot product and QKᵀ, as one computation with its front ends.
//
// compute() takes queries and keys and returns the score table QKᵀ from the
// library's attention::scores(); to_json() and tables() show it; Flags reads
// the command line into Inputs. main.cpp and the page
// (program/page_program.hpp) both go through these.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"

namespace dot_product {

/// What the flags say: queries and keys, one row per token, with their names.
struct Inputs {
  attention::Matrix queries;
  attention::Matrix keys;
  std::vector<std::string> query_labels;  // one per row of queries
  std::vector<std::string> key_labels;    // one per row of keys
};

/// Everything the tables and the JSON show.
struct Result {
  Inputs inputs;
  attention::Matrix scores;  // QKᵀ: row = the token asking, column = the token answering
  bool symmetric = false;    // score(i, j) = score(j, i) for every pair, exactly (false if not square)
};

/// The score table QKᵀ of the inputs, and whether it is symmetric.
Result compute(const Inputs& inputs);

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json: Q, K, each score spelled out
/// as a dot product (for small tables), and QKᵀ.
std::string tables(const Result& result);

/// --q, --k and --tokens, with the toy sentence as the default; read() checks
/// them against each other after parsing and throws program::UsageError
/// naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Inputs read() const;

 private:
  program::AttentionFlags attention_flags_;
};

}  // namespace dot_product
