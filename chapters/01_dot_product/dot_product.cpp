#include "dot_product.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

#include "attention/scores.hpp"
#include "program/json_output.hpp"
#include "program/page_program.hpp"
#include "program/table.hpp"

namespace dot_product {
namespace {

// Past this many pairs the spelled-out sums would bury the table.
constexpr Eigen::Index max_pairs_spelled_out = 36;

std::string spelled_out(const attention::Matrix& queries, const attention::Matrix& keys, Eigen::Index i,
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
std::string spelled_out_scores(const Result& result) {
  const Inputs& inputs = result.inputs;
  std::string text = "Each score is one dot product: score(asker, answerer) = q_asker · k_answerer\n";
  std::size_t width = 0;
  for (const auto& label : inputs.query_labels) width = std::max(width, label.size());
  for (const auto& label : inputs.key_labels) width = std::max(width, label.size());
  for (Eigen::Index i = 0; i < result.scores.rows(); ++i) {
    for (Eigen::Index j = 0; j < result.scores.cols(); ++j) {
      text += fmt::format("  {:<{}} asks {:<{}}  {} = {}\n", inputs.query_labels[static_cast<std::size_t>(i)], width,
                          inputs.key_labels[static_cast<std::size_t>(j)], width,
                          spelled_out(inputs.queries, inputs.keys, i, j), program::number_text(result.scores(i, j)));
    }
  }
  return text + '\n';
}

}  // namespace

Result compute(const Inputs& inputs) {
  const attention::Matrix& queries = inputs.queries;
  const attention::Matrix& keys = inputs.keys;
  // [compute]
  const attention::Matrix scores = attention::scores(queries, keys);  // QKᵀ
  // [compute]
  const bool symmetric = scores.rows() == scores.cols() && scores == scores.transpose();
  return {inputs, scores, symmetric};
}

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  const attention::Matrix& scores = result.scores;
  return {
      {"query_tokens", inputs.query_labels},
      {"key_tokens", inputs.key_labels},
      {"queries", program::matrix_json(inputs.queries)},
      {"keys", program::matrix_json(inputs.keys)},
      {"scores", program::matrix_json(scores)},
      // Whether score(i, j) = score(j, i) for every pair, exactly: the book's
      // claim that the toy's table is not symmetric is this key.
      {"symmetric", result.symmetric},
      {"symmetry",
       scores.rows() != scores.cols() ? "not square" : (result.symmetric ? "symmetric" : "not symmetric")},
  };
}

std::string tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const attention::Matrix& scores = result.scores;
  const std::vector<std::string> dimensions = program::numbered_labels("d", inputs.queries.cols());
  std::string text =
      program::table(fmt::format("Queries Q, one row per token ({} × {})", inputs.queries.rows(), inputs.queries.cols()),
                     inputs.queries, inputs.query_labels, dimensions) +
      '\n' +
      program::table(fmt::format("Keys K, one row per token ({} × {})", inputs.keys.rows(), inputs.keys.cols()),
                     inputs.keys, inputs.key_labels, dimensions) +
      '\n';
  if (scores.size() <= max_pairs_spelled_out) text += spelled_out_scores(result);
  return text + program::table(fmt::format("Scores QKᵀ ({} × {}): row = the token asking, column = the token answering",
                                           scores.rows(), scores.cols()),
                               scores, inputs.query_labels, inputs.key_labels);
}

Flags::Flags(program::CommandLine& command_line) : attention_flags_(command_line, /*with_values=*/false) {}

Inputs Flags::read() const {
  program::AttentionInputs typed = attention_flags_.read();
  return {std::move(typed.queries), std::move(typed.keys), std::move(typed.query_labels),
          std::move(typed.key_labels)};
}

namespace {

// The page's way in: the same flags and checks, the JSON --json prints.
[[maybe_unused]] const bool registered_for_the_page =
    program::register_chapter_for_page<Flags>("dot_product", compute, to_json);

}  // namespace
}  // namespace dot_product
