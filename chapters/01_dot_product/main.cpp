// Chapter 1: the dot product and QKᵀ.
//
// With no arguments: the book's toy sentence "cat eat fish" (src/program/toy.hpp),
// its queries and keys, every score spelled out as a dot product, and the score table QKᵀ.
// --q and --k replace the queries and keys; --json prints the same values as JSON.
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attention/scores.hpp"
#include "program/attention_inputs.hpp"
#include "program/json_output.hpp"
#include "program/command_line.hpp"
#include "program/table.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  program::CommandLine command_line{"dot_product",
                                    "Chapter 1 of Attention, Compiled: the dot product and the score matrix QKᵀ."};
  program::AttentionFlags inputs_flags(command_line, /*with_values=*/false);
  bool json = false;
  command_line.flag("--json", json, "print the values as one JSON document instead of tables");

  return command_line.run(argc, argv, [&] {
    const program::AttentionInputs inputs = inputs_flags.read();
    const attention::Matrix& queries = inputs.queries;
    const attention::Matrix& keys = inputs.keys;
    const std::vector<std::string>& query_labels = inputs.query_labels;
    const std::vector<std::string>& key_labels = inputs.key_labels;

    // [compute]
    const attention::Matrix scores = attention::scores(queries, keys);  // QKᵀ
    // [compute]

    if (json) {
      const bool symmetric = scores.rows() == scores.cols() && scores == scores.transpose();
      const nlohmann::json document = {
          {"query_tokens", query_labels},
          {"key_tokens", key_labels},
          {"queries", program::matrix_json(queries)},
          {"keys", program::matrix_json(keys)},
          {"scores", program::matrix_json(scores)},
          // Whether score(i, j) = score(j, i) for every pair, exactly: the book's
          // claim that the toy's table is not symmetric is this key.
          {"symmetric", symmetric},
          {"symmetry", scores.rows() != scores.cols() ? "not square" : (symmetric ? "symmetric" : "not symmetric")},
      };
      std::cout << document.dump(2) << '\n';
      return;
    }

    const std::vector<std::string> dimensions = program::numbered_labels("d", queries.cols());
    std::cout << program::table(fmt::format("Queries Q, one row per token ({} × {})", queries.rows(), queries.cols()),
                                queries, query_labels, dimensions)
              << '\n'
              << program::table(fmt::format("Keys K, one row per token ({} × {})", keys.rows(), keys.cols()), keys,
                                key_labels, dimensions)
              << '\n';
    if (scores.size() <= max_pairs_spelled_out) {
      std::cout << "Each score is one dot product: score(asker, answerer) = q_asker · k_answerer\n";
      std::size_t width = 0;
      for (const auto& label : query_labels) width = std::max(width, label.size());
      for (const auto& label : key_labels) width = std::max(width, label.size());
      for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        for (Eigen::Index j = 0; j < scores.cols(); ++j) {
          std::cout << fmt::format("  {:<{}} asks {:<{}}  {} = {}\n", query_labels[static_cast<std::size_t>(i)],
                                   width, key_labels[static_cast<std::size_t>(j)], width,
                                   spelled_out(queries, keys, i, j), program::number_text(scores(i, j)));
        }
      }
      std::cout << '\n';
    }
    std::cout << program::table(fmt::format("Scores QKᵀ ({} × {}): row = the token asking, column = the token answering",
                                            scores.rows(), scores.cols()),
                                scores, query_labels, key_labels);
  });
}
