#include "program/attention_inputs.hpp"

#include <cmath>

#include <fmt/format.h>

#include "attention/scores.hpp"

#include "program/matrix_text.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/toy.hpp"
#include "program/usage_error.hpp"

namespace program {
namespace {

// The token names when there is one per row; otherwise numbered labels.
std::vector<std::string> labels_for(Eigen::Index rows, const std::vector<std::string>& tokens,
                                    const std::string& prefix) {
  if (static_cast<Eigen::Index>(tokens.size()) == rows) {
    return tokens;
  }
  return numbered_labels(prefix, rows);
}

}  // namespace

AttentionFlags::AttentionFlags(CommandLine& command_line, bool with_values)
    : command_line_(command_line),
      with_values_(with_values),
      queries_text_(toy::queries),
      keys_text_(toy::keys),
      values_text_(toy::values),
      tokens_text_(toy::tokens) {
  command_line.option("--q", queries_text_, "queries, one row per token: rows separated by ';', entries by ','",
                      "MATRIX");
  command_line.option("--k", keys_text_, "keys, one row per key, as wide as the queries", "MATRIX");
  if (with_values_) {
    command_line.option("--v", values_text_, "values, one row per key", "MATRIX");
  }
  command_line.option("--tokens", tokens_text_, "names of the tokens, one per query, separated by ','", "NAMES");
}

AttentionInputs AttentionFlags::read() const {
  AttentionInputs inputs;
  inputs.queries = parse_matrix(queries_text_, "--q");
  inputs.keys = parse_matrix(keys_text_, "--k");
  if (inputs.keys.cols() != inputs.queries.cols()) {
    throw UsageError(
        fmt::format("--k: keys have {} per row but queries (--q) have {}; a query and a key must be equally wide",
                    counted(inputs.keys.cols(), "entry", "entries"), inputs.queries.cols()));
  }
  // A score beyond the largest double would turn into ±inf or NaN: -inf would
  // pass for a masked score and +inf has no weight. Refuse such inputs here.
  const attention::Matrix scores = attention::scores(inputs.queries, inputs.keys);
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      if (!std::isfinite(scores(i, j))) {
        throw UsageError(
            fmt::format("--q, --k: the score of query {} against key {} overflows a double; use smaller entries", i + 1,
                        j + 1));
      }
    }
  }
  if (with_values_) {
    inputs.values = parse_matrix(values_text_, "--v");
    if (inputs.values.rows() != inputs.keys.rows()) {
      throw UsageError(fmt::format("--v: {} for {} (--k); give one value per key",
                                   counted(inputs.values.rows(), "value", "values"),
                                   counted(inputs.keys.rows(), "key", "keys")));
    }
  }
  const std::vector<std::string> tokens = parse_names(tokens_text_, "--tokens");
  if (command_line_.given("--tokens") && static_cast<Eigen::Index>(tokens.size()) != inputs.queries.rows()) {
    throw UsageError(fmt::format("--tokens: {} for {}; give one name per row of --q",
                                 counted(tokens.size(), "name", "names"),
                                 counted(inputs.queries.rows(), "query row", "query rows")));
  }
  inputs.query_labels = labels_for(inputs.queries.rows(), tokens, "q");
  inputs.key_labels = labels_for(inputs.keys.rows(), tokens, "k");
  return inputs;
}

std::vector<std::string> AttentionFlags::token_labels(Eigen::Index rows, const std::string& rows_flag,
                                                      const std::string& prefix) const {
  const std::vector<std::string> tokens = parse_names(tokens_text_, "--tokens");
  if (command_line_.given("--tokens") && static_cast<Eigen::Index>(tokens.size()) != rows) {
    throw UsageError(fmt::format("--tokens: {} for {} of {}; give one name per row",
                                 counted(tokens.size(), "name", "names"), counted(rows, "row", "rows"), rows_flag));
  }
  return labels_for(rows, tokens, prefix);
}

}  // namespace program
