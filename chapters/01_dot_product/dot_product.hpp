// Chapter 1: the dot product and QKᵀ, as one computation with its front ends, in one header:
// the types and what each function does first, then how (every function inline, so the
// program, the page and the tests, which include this file, share one definition of each).
//
// compute() takes the token vectors X and the projections W^Q, W^K, W^V (or
// queries and keys typed directly), makes Q = X W^Q, K = X W^K, V = X W^V,
// and returns the score table QKᵀ from the library's attention::scores();
// to_json() and tables() show it; Flags reads
// the command line into Inputs. The command line and the page (program/run_chapter.hpp,
// register_chapter) both go through these.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"
#include "attention/scores.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"
#include "program/json_output.hpp"
#include "program/matrix_text.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/toy.hpp"
#include "program/usage_error.hpp"

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
  // The first pair (i, j), i < j, row by row, whose mirror-image scores differ; none if symmetric or not square.
  std::optional<std::pair<Eigen::Index, Eigen::Index>> asymmetric_pair;
};

/// Q, K and V from the projections (when given), the score table QKᵀ, and
/// whether it is symmetric (and if not, its first pair of differing mirror-image entries).
inline Result compute(const Inputs& inputs);

/// The document --json prints.
inline nlohmann::json to_json(const Result& result);

/// The text the program prints without --json: Q, K, each score spelled out
/// as a dot product (for small tables), and QKᵀ.
inline std::string tables(const Result& result);

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

// ---- How: the definitions ----

namespace detail {

// Past this many pairs the spelled-out sums would bury the table.
inline constexpr Eigen::Index max_pairs_spelled_out = 36;

inline std::string spelled_out(const attention::Matrix& queries, const attention::Matrix& keys, Eigen::Index i,
                               Eigen::Index j) {
  std::string terms;
  for (Eigen::Index d = 0; d < queries.cols(); ++d) {
    const auto factor = [](double value) {
      const std::string text = program::number_text(value);
      return value < 0 ? "(" + text + ")" : text;
    };
    terms += fmt::format("{}{}×{}", d == 0 ? "" : " + ", factor(queries(i, d)), factor(keys(j, d)));
  }
  return terms;
}

// "score(asker, answerer) = q_asker · k_answerer" for every pair, one line each.
inline std::string spelled_out_scores(const Result& result) {
  const Inputs& inputs = result.inputs;
  const attention::Matrix& queries = result.queries;
  const attention::Matrix& keys = result.keys;
  std::string text = "Each score is one dot product: score(asker, answerer) = q_asker · k_answerer\n";
  std::size_t width = 0;
  for (const auto& label : inputs.query_labels) width = std::max(width, label.size());
  for (const auto& label : inputs.key_labels) width = std::max(width, label.size());
  for (Eigen::Index i = 0; i < result.scores.rows(); ++i) {
    for (Eigen::Index j = 0; j < result.scores.cols(); ++j) {
      text += fmt::format("  {:<{}} asks {:<{}}  {} = {}\n", inputs.query_labels[static_cast<std::size_t>(i)], width,
                          inputs.key_labels[static_cast<std::size_t>(j)], width, spelled_out(queries, keys, i, j),
                          program::number_text(result.scores(i, j)));
    }
  }
  return text + '\n';
}

}  // namespace detail

inline Result compute(const Inputs& inputs) {
  Result result{inputs, inputs.queries, inputs.keys, {}, {}, false, std::nullopt};
  if (inputs.projections) {
    const attention::Matrix& embeddings = inputs.projections->embeddings;  // X
    const Projections& weights = *inputs.projections;
    // clang-format off
    // [project]
    // * between two Eigen matrices is the matrix product, NumPy's @
    result.queries = embeddings * weights.query_weights;  // Q = X W^Q
    result.keys = embeddings * weights.key_weights;       // K = X W^K
    result.values = embeddings * weights.value_weights;   // V = X W^V
    // [project]
    // clang-format on
  }
  const attention::Matrix& queries = result.queries;
  const attention::Matrix& keys = result.keys;
  // clang-format off
  // [compute]
  const attention::Matrix scores = attention::scores(queries, keys);  // QKᵀ
  // [compute]
  // clang-format on
  result.symmetric = scores.rows() == scores.cols() && scores == scores.transpose();
  if (scores.rows() == scores.cols()) {
    for (Eigen::Index i = 0; i < scores.rows() && !result.asymmetric_pair; ++i) {
      for (Eigen::Index j = i + 1; j < scores.cols() && !result.asymmetric_pair; ++j) {
        if (scores(i, j) != scores(j, i)) result.asymmetric_pair = {i, j};
      }
    }
  }
  result.scores = scores;
  return result;
}

inline nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  const attention::Matrix& scores = result.scores;
  nlohmann::json document = {
      {"query_tokens", inputs.query_labels},
      {"key_tokens", inputs.key_labels},
      {"queries", program::matrix_json(result.queries)},
      {"keys", program::matrix_json(result.keys)},
      {"scores", program::matrix_json(scores)},
      // Whether score(i, j) = score(j, i) for every pair, exactly: the book's
      // claim that the toy's table is not symmetric is this key.
      {"symmetric", result.symmetric},
      {"symmetry", scores.rows() != scores.cols() ? "not square" : (result.symmetric ? "symmetric" : "not symmetric")},
      // The pair the page frames: [i, j], the first (row by row, i < j) whose mirror-image entries differ.
      {"asymmetric_pair", result.asymmetric_pair
                              ? nlohmann::json{result.asymmetric_pair->first, result.asymmetric_pair->second}
                              : nlohmann::json(nullptr)},
  };
  if (inputs.projections) {
    const Projections& projections = *inputs.projections;
    document["projections"] = {
        {"features", projections.features},
        {"embeddings", program::matrix_json(projections.embeddings)},
        {"query_weights", program::matrix_json(projections.query_weights)},
        {"key_weights", program::matrix_json(projections.key_weights)},
        {"value_weights", program::matrix_json(projections.value_weights)},
    };
    document["values"] = program::matrix_json(result.values);
  }
  return document;
}

namespace detail {

// X and the three projections that make Q, K and V.
inline std::string projection_tables(const Result& result) {
  const Projections& projections = *result.inputs.projections;
  const std::vector<std::string>& tokens = result.inputs.query_labels;
  const auto shape = [](const attention::Matrix& matrix) {
    return fmt::format("{} × {}", matrix.rows(), matrix.cols());
  };
  const std::vector<std::string> query_columns = program::numbered_labels("d", projections.query_weights.cols());
  const std::vector<std::string> value_columns = program::numbered_labels("d", projections.value_weights.cols());
  std::string text =
      program::table(fmt::format("Token vectors X, one row per token ({})", shape(projections.embeddings)),
                     projections.embeddings, tokens, projections.features) +
      '\n';
  text += program::table(fmt::format("W^Q, one row per feature ({})", shape(projections.query_weights)),
                         projections.query_weights, projections.features, query_columns) +
          '\n';
  text += program::table(fmt::format("W^K ({})", shape(projections.key_weights)), projections.key_weights,
                         projections.features, query_columns) +
          '\n';
  text += program::table(fmt::format("W^V ({})", shape(projections.value_weights)), projections.value_weights,
                         projections.features, value_columns) +
          '\n';
  return text;
}

}  // namespace detail

inline std::string tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const attention::Matrix& scores = result.scores;
  const std::vector<std::string> dimensions = program::numbered_labels("d", result.queries.cols());
  const char* queries_title = inputs.projections ? "Queries Q = X·W^Q" : "Queries Q, one row per token";
  const char* keys_title = inputs.projections ? "Keys K = X·W^K" : "Keys K, one row per token";
  std::string text = inputs.projections ? detail::projection_tables(result) : std::string{};
  text += program::table(fmt::format("{} ({} × {})", queries_title, result.queries.rows(), result.queries.cols()),
                         result.queries, inputs.query_labels, dimensions) +
          '\n' +
          program::table(fmt::format("{} ({} × {})", keys_title, result.keys.rows(), result.keys.cols()), result.keys,
                         inputs.key_labels, dimensions) +
          '\n';
  if (inputs.projections) {
    text += program::table(fmt::format("Values V = X·W^V ({} × {})", result.values.rows(), result.values.cols()),
                           result.values, inputs.key_labels, program::numbered_labels("d", result.values.cols())) +
            '\n';
  }
  if (scores.size() <= detail::max_pairs_spelled_out) text += detail::spelled_out_scores(result);
  return text + program::table(fmt::format("Scores QKᵀ ({} × {}): row = the token asking, column = the token answering",
                                           scores.rows(), scores.cols()),
                               scores, inputs.query_labels, inputs.key_labels);
}

inline Flags::Flags(program::CommandLine& command_line)
    : command_line_(command_line),
      attention_flags_(command_line, /*with_values=*/false),
      embeddings_text_(program::toy::embeddings),
      query_weights_text_(program::toy::query_weights),
      key_weights_text_(program::toy::key_weights),
      value_weights_text_(program::toy::value_weights) {
  command_line.option("--x", embeddings_text_, "token vectors X, one row per token, one column per feature", "MATRIX");
  command_line.option("--w-q", query_weights_text_, "W^Q: one row per feature (column of --x); Q = X W^Q", "MATRIX");
  command_line.option("--w-k", key_weights_text_, "W^K: as --w-q, and as wide; K = X W^K", "MATRIX");
  command_line.option("--w-v", value_weights_text_, "W^V: one row per feature; V = X W^V", "MATRIX");
  for (const char* flag : {"--x", "--w-q", "--w-k", "--w-v"}) command_line.excludes(flag, {"--q", "--k"});
}

inline Inputs Flags::read() const {
  if (command_line_.given("--q") || command_line_.given("--k")) {
    program::AttentionInputs typed = attention_flags_.read();
    return {std::nullopt, std::move(typed.queries), std::move(typed.keys), std::move(typed.query_labels),
            std::move(typed.key_labels)};
  }
  Projections projections;
  projections.embeddings = program::parse_matrix(embeddings_text_, "--x");
  projections.query_weights = program::parse_matrix(query_weights_text_, "--w-q");
  projections.key_weights = program::parse_matrix(key_weights_text_, "--w-k");
  projections.value_weights = program::parse_matrix(value_weights_text_, "--w-v");
  const Eigen::Index features = projections.embeddings.cols();
  for (const auto& [flag, weights] :
       {std::pair{"--w-q", &projections.query_weights}, std::pair{"--w-k", &projections.key_weights},
        std::pair{"--w-v", &projections.value_weights}}) {
    if (weights->rows() != features) {
      throw program::UsageError(fmt::format("{}: {} for {} (columns of --x); give one row per feature", flag,
                                            program::counted(weights->rows(), "row", "rows"),
                                            program::counted(features, "feature", "features")));
    }
  }
  if (projections.key_weights.cols() != projections.query_weights.cols()) {
    throw program::UsageError(
        fmt::format("--w-k: W^K is {} wide but W^Q (--w-q) is {}; a query and a key must be equally wide",
                    projections.key_weights.cols(), projections.query_weights.cols()));
  }
  // A product or a score beyond the largest double would be ±inf or NaN.
  const attention::Matrix queries = projections.embeddings * projections.query_weights;
  const attention::Matrix keys = projections.embeddings * projections.key_weights;
  const attention::Matrix values = projections.embeddings * projections.value_weights;
  if (!queries.allFinite() || !keys.allFinite() || !values.allFinite() ||
      !attention::scores(queries, keys).allFinite()) {
    throw program::UsageError(
        "--x, --w-q, --w-k, --w-v: Q, K, V or a score QKᵀ overflows a double; use smaller entries");
  }
  projections.features = command_line_.given("--x") ? program::numbered_labels("f", features)
                                                    : program::parse_names(program::toy::features, "features");
  std::vector<std::string> labels = attention_flags_.token_labels(projections.embeddings.rows(), "--x", "x");
  return {std::move(projections), {}, {}, labels, labels};
}

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: the book's toy sentence "cat eat fish" (src/program/toy.hpp),
// its queries and keys, every score spelled out as a dot product, and the score table QKᵀ.
// --q and --k replace the queries and keys; --json prints the same values as JSON.
[[maybe_unused]] inline const bool registered =
    program::register_chapter<Flags>("dot_product",
                                     "Chapter 1 of Attention, Compiled: the dot product and the score matrix QKᵀ.",
                                     compute, to_json, tables);

}  // namespace dot_product
