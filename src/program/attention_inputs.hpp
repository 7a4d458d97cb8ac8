// The flags every attention program shares: --q, --k, --v and --tokens, with
// the toy sentence as the default, read and checked against each other.
#pragma once

#include <string>
#include <vector>

#include "attention/matrix.hpp"
#include "program/command_line.hpp"

namespace program {

/// Queries, keys and (optionally) values, with a label for each row.
struct AttentionInputs {
  attention::Matrix queries;
  attention::Matrix keys;
  attention::Matrix values;               // empty when the program takes no --v
  std::vector<std::string> query_labels;  // one per row of queries
  std::vector<std::string> key_labels;    // one per row of keys (and of values)
};

/// Adds --q, --k, --tokens and, when @p with_values, --v to @p command_line;
/// read() turns what was typed into matrices after parsing.
class AttentionFlags {
 public:
  AttentionFlags(CommandLine& command_line, bool with_values);

  /// The matrices and labels. Throws UsageError naming the flag when a matrix
  /// is malformed or the shapes do not fit (keys as wide as queries, one value
  /// per key, one token name per query), or when a score q_i · k_j overflows.
  AttentionInputs read() const;

  /// The names --tokens gives @p rows tokens (numbered labels starting with
  /// @p prefix when --tokens is not given and the toy's names do not fit).
  /// Throws UsageError when --tokens names another number of tokens than the
  /// rows of @p rows_flag.
  std::vector<std::string> token_labels(Eigen::Index rows, const std::string& rows_flag,
                                        const std::string& prefix) const;

 private:
  const CommandLine& command_line_;
  bool with_values_;
  std::string queries_text_;
  std::string keys_text_;
  std::string values_text_;
  std::string tokens_text_;
};

}  // namespace program
