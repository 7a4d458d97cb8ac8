// Chapter 1: the dot product and QKᵀ, as one computation with its front ends.
//
// compute() takes the token vectors X and the projections W^Q, W^K, W^V (or
// queries and keys typed directly), makes Q = X W^Q, K = X W^K, V = X W^V,
// and returns the score table QKᵀ from the library's attention::scores();
// to_json() and tables() show it; Flags reads
// the command line into Inputs. The command line and the page (program/run_chapter.hpp,
// register_chapter) both go through these.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"

namespace dot_product {

/// Where queries, keys and values come from: one vector per token, and three
/// matrices that turn it into the token's query, key and value.
struct Projections {
  std::vector<std::string> features;  // the names of the columns of X
  attention::Matrix embeddings;       // X, one row per token
  attention::Matrix query_weights;    // W^Q, one row per feature
  attention::Matrix key_weights;      // W^K, as wide as W^Q
  attention::Matrix value_weights;    // W^V
};

/// What the flags say: the token vectors and projections (the default), or
/// queries and keys typed directly; one row per token, with their names.
struct Inputs {
  std::optional<Projections> projections;  // set unless --q or --k was given
  attention::Matrix queries;               // --q; unused with projections
  attention::Matrix keys;                  // --k; unused with projections
  std::vector<std::string> query_labels;   // one per query (per token)
  std::vector<std::string> key_labels;     // one per key
};

/// Everything the tables and the JSON show.
struct Result {
  Inputs inputs;
  attention::Matrix queries;  // Q = X W^Q, or --q
  attention::Matrix keys;     // K = X W^K, or --k
  attention::Matrix values;   // V = X W^V; empty without projections
  attention::Matrix scores;   // QKᵀ: row = the token asking, column = the token answering
  bool symmetric = false;     // score(i, j) = score(j, i) for every pair, exactly (false if not square)
};

/// Q, K and V from the projections (when given), the score table QKᵀ, and
/// whether it is symmetric.
Result compute(const Inputs& inputs);

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json: Q, K, each score spelled out
/// as a dot product (for small tables), and QKᵀ.
std::string tables(const Result& result);

/// --x, --w-q, --w-k, --w-v (the toy's projections by default), or --q and
/// --k instead, and --tokens; read() checks them against each other after
/// parsing and throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Inputs read() const;

 private:
  const program::CommandLine& command_line_;
  program::AttentionFlags attention_flags_;
  std::string embeddings_text_;
  std::string query_weights_text_;
  std::string key_weights_text_;
  std::string value_weights_text_;
};

}  // namespace dot_product
