#include "multi_head.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "attention/mulberry32.hpp"
#include "attention/random_weights.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/largest_weight.hpp"
#include "program/matrix_text.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace multi_head {
namespace {

using attention::Matrix;

// Limits that keep one run to about a second and its JSON to tens of megabytes.
// A run that draws its weights takes d_model up to the paper's base model (512,
// about a million weights); --sizes-only draws nothing and takes up to
// program::max_matrix_side (1024), the width of the paper's big model (Table 3).
constexpr std::uint64_t max_seed = 4294967295;  // 2³² − 1: mulberry32's seed is 32 bits
constexpr std::uint64_t max_d_model_drawn = 512;
constexpr std::uint64_t max_d_model = static_cast<std::uint64_t>(program::max_matrix_side);
constexpr std::size_t max_tokens = 64;
// Each head adds its own matrices to the JSON: past this the document runs to hundreds of megabytes.
constexpr std::uint64_t max_heads_drawn = 64;

// Tables are printed while every matrix has at most this many rows and columns.
constexpr Eigen::Index max_printed_side = 16;

std::uint64_t u(Eigen::Index value) { return static_cast<std::uint64_t>(value); }

LayerCost layer_cost(std::uint64_t n, std::uint64_t d_model, std::uint64_t h, std::uint64_t d_k, std::uint64_t d_v) {
  LayerCost cost;
  cost.heads = static_cast<Eigen::Index>(h);
  cost.d_k = static_cast<Eigen::Index>(d_k);
  cost.d_v = static_cast<Eigen::Index>(d_v);
  // clang-format off
  // [layer_cost]
  // X (n × d_model) times W^Q_i, W^K_i, W^V_i
  cost.projections =
      h * n * d_model * (2 * d_k + d_v);
  // Q_i (n × d_k) times K_iᵀ (d_k × n)
  cost.scores = h * n * d_k * n;
  // weights_i (n × n) times V_i (n × d_v)
  cost.weighted_sums = h * n * n * d_v;
  // Concat (n × h·d_v) times W^O
  cost.output_projection =
      n * (h * d_v) * d_model;
  // one e^x per entry of each head's n × n scores
  cost.exponentials = h * n * n;
  // [layer_cost]
  // clang-format on
  return cost;
}

// ---------------------------------------------------------------------------
// JSON.

nlohmann::json cost_json(const LayerCost& cost, std::uint64_t n) {
  return {{"heads", cost.heads},
          {"d_k", cost.d_k},
          {"d_v", cost.d_v},
          {"projections", cost.projections},
          {"scores", cost.scores},
          {"weighted_sums", cost.weighted_sums},
          {"output_projection", cost.output_projection},
          {"total", cost.total()},
          {"exponentials", cost.exponentials},
          {"per_token", (cost.projections + cost.output_projection) / n},  // the part that grows like n
          {"per_pair", (cost.scores + cost.weighted_sums) / (n * n)}};     // the part that grows like n²
}

// What the book says of the two columns, computed: whether the matrix
// products cost the same, and, counting an exponential like a multiply-add,
// what the extra exponentials of h heads add to the arithmetic per pair.
nlohmann::json costs_json(const Result& result) {
  const LayerCost &multi = result.multi, &single = result.single;
  const auto n = static_cast<std::uint64_t>(result.inputs.tokens.size());
  const std::uint64_t per_pair = (multi.scores + multi.weighted_sums) / (n * n);
  return {{"n", n},
          {"multi_head", cost_json(multi, n)},
          {"single_head", cost_json(single, n)},
          {"matrix_products_equal", multi.total() == single.total()},
          {"matrix_products", multi.total() == single.total() ? "equal" : "different"},
          {"extra_exponentials_per_pair", u(result.inputs.heads) - 1},
          {"extra_exponentials_share_per_pair",
           static_cast<double>(u(result.inputs.heads) - 1) / static_cast<double>(per_pair)}};
}

nlohmann::json heads_json(const Result& result) {
  nlohmann::json documents = nlohmann::json::array();
  for (std::size_t i = 0; i < result.steps.heads.size(); ++i) {
    const attention::HeadSteps& head = result.steps.heads[i];
    const attention::HeadProjections& projections = result.weights.heads[i];
    documents.push_back({
        {"W_q", program::matrix_json(projections.query)},
        {"W_k", program::matrix_json(projections.key)},
        {"W_v", program::matrix_json(projections.value)},
        {"queries", program::matrix_json(head.queries)},
        {"keys", program::matrix_json(head.keys)},
        {"values", program::matrix_json(head.values)},
        {"scores", program::matrix_json(head.attention.scores)},
        {"scaled_scores", program::matrix_json(head.attention.scaled_scores)},
        {"weights", program::matrix_json(head.attention.weights)},
        {"output", program::matrix_json(head.attention.output)},
        {"part_of_output", program::matrix_json(result.parts[i])},
        {"largest_weight_on", program::largest_weight_labels(head.attention.weights, result.inputs.tokens)},
    });
  }
  return documents;
}

// How the draws were made, enough to make them again in another language.
nlohmann::json draws_json(const Inputs& inputs) {
  nlohmann::json order = nlohmann::json::array();
  for (Eigen::Index i = 1; i <= inputs.heads; ++i) {
    for (const char* name : {"W_q", "W_k", "W_v"}) order.push_back(fmt::format("{} of head {}", name, i));
  }
  order.push_back("W_o");
  order.push_back("input");
  const auto n = static_cast<std::uint64_t>(inputs.tokens.size());
  return {{"generator",
           "mulberry32 seeded with seed; uniform = output / 2^32; normal = sqrt(-2 ln u1) cos(2 pi u2) from two "
           "consecutive uniforms, a u1 of 0 read as 2^-33; entry = normal * scale"},
          {"order", order},
          {"each_matrix", "row by row"},
          {"weight_scale", 1.0 / std::sqrt(static_cast<double>(inputs.d_model))},
          {"input_scale", 1.0},
          {"uniforms_used", 2 * (4 * u(inputs.d_model) * u(inputs.d_model) + n * u(inputs.d_model))}};
}

// ---------------------------------------------------------------------------
// Tables.

// The counts of each stage, with h heads and with one, in columns narrow enough
// for a phone's page (about 44 characters): how a count grows comes last.
std::string cost_text(const LayerCost& multi, const LayerCost& single, std::uint64_t n) {
  constexpr int label_width = 13;  // "weighted sums", the longest label
  const std::string multi_heads = fmt::format("{} head{}", multi.heads, multi.heads == 1 ? "" : "s");
  const std::string multi_width = fmt::format("of {}", multi.d_k);
  const std::string single_heads = "1 head", single_width = fmt::format("of {}", single.d_k);
  // Each column as wide as its widest heading or count; the total is the largest count.
  const std::size_t multi_column =
      std::max({multi_heads.size(), multi_width.size(), program::grouped_digits(multi.total()).size()});
  const std::size_t single_column =
      std::max({single_heads.size(), single_width.size(), program::grouped_digits(single.total()).size()});
  const auto row = [&](const std::string& stage, const std::string& a, const std::string& b, const char* growth) {
    const std::string line =
        fmt::format("{:<{}}  {:>{}}  {:>{}}  {}", stage, label_width, a, multi_column, b, single_column, growth);
    return line.substr(0, line.find_last_not_of(' ') + 1) + '\n';
  };
  const auto counts = [&](const std::string& stage, std::uint64_t a, std::uint64_t b, const char* growth) {
    return row(stage, program::grouped_digits(a), program::grouped_digits(b), growth);
  };
  return fmt::format("The cost of this layer for n = {} tokens,\nin multiply-adds\n", n) +
         row("", multi_heads, single_heads, "") + row("", multi_width, single_width, "grows") +
         counts("projections", multi.projections, single.projections, "n") +
         counts("scores", multi.scores, single.scores, "n²") +
         counts("weighted sums", multi.weighted_sums, single.weighted_sums, "n²") +
         counts("Concat · W^O", multi.output_projection, single.output_projection, "n") +
         counts("total", multi.total(), single.total(), "") +
         counts("exponentials", multi.exponentials, single.exponentials, "n²");
}

std::string sizes_text(const Result& result) {
  const Inputs& inputs = result.inputs;
  return fmt::format("d_model = {}, h = {} head{}\nd_k = d_v = d_model / h = {} / {} = {}\n\n", inputs.d_model,
                     inputs.heads, inputs.heads == 1 ? "" : "s", inputs.d_model, inputs.heads, result.width);
}

// "Concat(head_1, head_2)", and for more than three heads "Concat(head_1, …, head_8)".
std::string concat_name(Eigen::Index heads) {
  if (heads > 3) return fmt::format("Concat(head_1, …, head_{})", heads);
  std::string names;
  for (Eigen::Index i = 1; i <= heads; ++i) names += fmt::format("{}head_{}", i == 1 ? "" : ", ", i);
  return "Concat(" + names + ")";
}

// Column labels of head i's output, as they appear in the concatenation: h1.1, h1.2, …
std::vector<std::string> head_labels(std::size_t head, Eigen::Index width) {
  return program::numbered_labels(fmt::format("h{}.", head + 1), width);
}

// Head i's weights, projections, attention weights and output. W^Q_i, W^K_i and
// W^V_i, and the Q_i, K_i and V_i they make, are each a table of their own (as in
// chapter 1): side by side, three would not fit a phone's page.
std::string head_text(const Result& result, std::size_t i) {
  const attention::HeadSteps& head = result.steps.heads[i];
  const attention::HeadProjections& projections = result.weights.heads[i];
  const std::vector<std::string>& tokens = result.inputs.tokens;
  const Eigen::Index n = result.input.rows(), d_model = result.inputs.d_model, w = result.width;
  const std::size_t number = i + 1;
  struct Projection {
    const char* name;    // Q, K or V
    const char* column;  // q, k or v: the prefix of its column labels
    const Matrix& weights;
    const Matrix& projected;
  };
  const std::vector<Projection> three = {{"Q", "q", projections.query, head.queries},
                                         {"K", "k", projections.key, head.keys},
                                         {"V", "v", projections.value, head.values}};
  std::string text = fmt::format("── Head {} ──\n\n", number);
  for (const Projection& projection : three) {
    text += program::table(fmt::format("W^{}_{} ({} × {})", projection.name, number, d_model, w), projection.weights,
                           program::numbered_labels("d", d_model), program::numbered_labels(projection.column, w)) +
            '\n';
  }
  for (const Projection& projection : three) {
    text += program::table(fmt::format("{0}_{1} = X·W^{0}_{1} ({2} × {3})", projection.name, number, n, w),
                           projection.projected, tokens, program::numbered_labels(projection.column, w)) +
            '\n';
  }
  return text +
         program::table(fmt::format("Weights softmax(Q_{0} K_{0}ᵀ / √{1}): row = the token asking", number, w),
                        head.attention.weights, tokens, tokens) +
         '\n' +
         program::table(fmt::format("head_{0} = weights · V_{0} ({1} × {2})", number, n, w), head.attention.output,
                        tokens, head_labels(i, w)) +
         '\n';
}

// The concatenation, W^O and the output.
std::string all_heads_text(const Result& result) {
  const std::vector<std::string>& tokens = result.inputs.tokens;
  const Eigen::Index n = result.input.rows(), d_model = result.inputs.d_model, heads = result.inputs.heads;
  const Eigen::Index w = result.width;
  const std::vector<std::string> dimensions = program::numbered_labels("d", d_model);
  std::vector<std::string> concatenated_labels;
  for (std::size_t i = 0; i < result.steps.heads.size(); ++i) {
    const std::vector<std::string> labels = head_labels(i, w);
    concatenated_labels.insert(concatenated_labels.end(), labels.begin(), labels.end());
  }
  return "── All heads ──\n\n" +
         program::table(fmt::format("{} ({} × {}): each head's columns, side by side", concat_name(heads), n,
                                    heads * w),
                        result.steps.concatenation, tokens, concatenated_labels) +
         '\n' +
         program::table(fmt::format("W^O ({} × {}): row hi.j meets column j of head i", heads * w, d_model),
                        result.weights.output, concatenated_labels, dimensions) +
         '\n' +
         program::table(fmt::format("Output = {} · W^O ({} × {})", concat_name(heads), n, d_model), result.steps.output,
                        tokens, dimensions) +
         '\n';
}

// ---------------------------------------------------------------------------
// Flags.

// The whole numbers from 1 to d_model that divide it: the numbers of heads it allows.
std::string divisors_text(Eigen::Index d_model) {
  std::vector<Eigen::Index> divisors;
  for (Eigen::Index h = 1; h <= d_model; ++h) {
    if (d_model % h == 0) divisors.push_back(h);
  }
  return program::listed(divisors, "or");
}

}  // namespace

Result compute(const Inputs& inputs) {
  Result result;
  result.inputs = inputs;
  const Eigen::Index d_model = inputs.d_model, heads = inputs.heads;
  result.width = attention::head_width(d_model, heads);
  const auto n = static_cast<std::uint64_t>(inputs.tokens.size());
  result.multi = layer_cost(n, u(d_model), u(heads), u(result.width), u(result.width));
  result.single = layer_cost(n, u(d_model), 1, u(d_model), u(d_model));
  if (inputs.sizes_only) return result;

  const auto rows = static_cast<Eigen::Index>(n);
  // clang-format off
  // [draw]
  attention::Mulberry32 generator(inputs.seed);
  result.weights =
      attention::random_multi_head_weights(generator, d_model, heads);
  result.input =  // X, drawn after the weights
      attention::random_normal_matrix(generator, rows, d_model, 1.0);
  // [draw]
  // clang-format on
  const Matrix& input = result.input;
  // clang-format off
  // [compute]
  result.steps =  // self-attention: Q = K = V = X
      attention::multi_head_attention(input, input, input, result.weights);
  // [compute]
  // clang-format on
  for (std::size_t i = 0; i < result.steps.heads.size(); ++i) {
    const Matrix& head_output = result.steps.heads[i].attention.output;
    const Eigen::Index head_width = head_output.cols();  // W^O_i: the rows of W^O that meet head i's columns
    result.parts.push_back(head_output *
                           result.weights.output.middleRows(static_cast<Eigen::Index>(i) * head_width, head_width));
  }
  return result;
}

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  nlohmann::json document = {{"d_model", inputs.d_model},
                             {"h", inputs.heads},
                             {"d_k", result.width},
                             {"d_v", result.width},
                             {"n", static_cast<std::uint64_t>(inputs.tokens.size())},
                             {"tokens", inputs.tokens}};
  if (inputs.sizes_only) {
    document["sizes_only"] = true;
    document["cost"] = costs_json(result);
    return document;
  }
  document.update({
      {"seed", inputs.seed},
      {"draws", draws_json(inputs)},
      {"input", program::matrix_json(result.input)},
      {"heads", heads_json(result)},
      {"concat", program::matrix_json(result.steps.concatenation)},
      {"W_o", program::matrix_json(result.weights.output)},
      {"output", program::matrix_json(result.steps.output)},
      {"cost", costs_json(result)},
  });
  return document;
}

std::string tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const auto n = static_cast<std::uint64_t>(inputs.tokens.size());
  const std::string cost = cost_text(result.multi, result.single, n);
  if (inputs.sizes_only) return sizes_text(result) + cost;

  std::string text =
      fmt::format("Multi-head self-attention on \"{}\", seed {}\n", fmt::join(inputs.tokens, " "), inputs.seed) +
      sizes_text(result) +
      fmt::format("Drawn from mulberry32 with seed {} (chapter 2), in this order: W^Q_i, W^K_i, W^V_i\n"
                  "for head 1, then head 2, …, then W^O: each entry of all these × 1/√{};\n"
                  "then the input X: each entry × 1. Every matrix is drawn row by row.\n"
                  "Nothing here is learned.\n\n",
                  inputs.seed, inputs.d_model);
  if (static_cast<Eigen::Index>(n) > max_printed_side || inputs.d_model > max_printed_side) {
    return text +
           fmt::format("(With n = {} tokens and d_model = {}, the matrices are too large to print\n"
                       " here: at most {} rows and columns. --json prints every entry.)\n\n",
                       n, inputs.d_model, max_printed_side) +
           cost;
  }
  text += program::table(fmt::format("Input X, one row per token ({} × {})", n, inputs.d_model), result.input,
                         inputs.tokens, program::numbered_labels("d", inputs.d_model)) +
          '\n';
  for (std::size_t i = 0; i < result.steps.heads.size(); ++i) text += head_text(result, i);
  return text + all_heads_text(result) + cost;
}

Flags::Flags(program::CommandLine& command_line) {
  command_line.option("--heads", heads_text_,
                      fmt::format("h, the number of heads: a whole number that divides --d-model (at most {} when "
                                  "the weights are drawn)",
                                  max_heads_drawn),
                      "INTEGER");
  command_line.option("--d-model", d_model_text_,
                      fmt::format("d_model, the width of each token's vector, from 1 to {} (to {} with --sizes-only)",
                                  max_d_model_drawn, max_d_model),
                      "INTEGER");
  command_line.option("--seed", seed_text_,
                      fmt::format("seed of the random stream the inputs and weights are drawn from, 0 to {}", max_seed),
                      "INTEGER");
  command_line.option("--tokens", tokens_text_,
                      fmt::format("names of the tokens, separated by ','; n is their number (at most {})", max_tokens),
                      "NAMES");
  command_line.flag("--sizes-only", sizes_only_,
                    "print only the head width and the cost of one layer; draw and compute nothing");
  command_line.excludes("--sizes-only", {"--seed"});  // nothing is drawn
}

Inputs Flags::read() const {
  Inputs inputs;
  inputs.sizes_only = sizes_only_;
  inputs.seed = static_cast<std::uint32_t>(program::parse_whole_number(seed_text_, "--seed", 0, max_seed));
  inputs.d_model = static_cast<Eigen::Index>(program::parse_whole_number(d_model_text_, "--d-model", 1, max_d_model));
  if (!sizes_only_ && u(inputs.d_model) > max_d_model_drawn) {
    throw program::UsageError(fmt::format("--d-model is {}, too large for a run that draws every weight; expected at "
                                          "most {} (with --sizes-only, up to {})",
                                          inputs.d_model, max_d_model_drawn, max_d_model));
  }
  inputs.heads = static_cast<Eigen::Index>(program::parse_whole_number(heads_text_, "--heads", 1, max_d_model));
  if (!sizes_only_ && u(inputs.heads) > max_heads_drawn) {
    throw program::UsageError(fmt::format(
        "--heads is {}, too many for a run that draws every weight; expected at most {} (with --sizes-only, up to {})",
        inputs.heads, max_heads_drawn, max_d_model));
  }
  if (inputs.heads > inputs.d_model) {
    throw program::UsageError(
        fmt::format("--heads is {}, more than --d-model {}; each head needs at least one of the d_model columns",
                    inputs.heads, inputs.d_model));
  }
  if (inputs.d_model % inputs.heads != 0) {
    throw program::UsageError(fmt::format(
        "--heads: {} heads do not divide --d-model {}; each head gets d_model / h columns, so h must be one of {}",
        inputs.heads, inputs.d_model, divisors_text(inputs.d_model)));
  }
  inputs.tokens = program::parse_names(tokens_text_, "--tokens");
  if (inputs.tokens.size() > max_tokens) {
    throw program::UsageError(
        fmt::format("--tokens: {} names is too many; at most {}", inputs.tokens.size(), max_tokens));
  }
  return inputs;
}

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: the sentence "I love you" with d_model = 4 and h = 2
// heads, each of width d_k = d_v = d_model / h = 2 (the shapes of the Korean
// walkthrough the preface describes). The input X and every weight matrix are drawn from
// chapter 2's generator with seed 1, in the order src/attention/random_weights.hpp
// documents: W^Q_1, W^K_1, W^V_1, W^Q_2, …, W^O, then X. The program prints
// each head's projections, weights and output, the concatenation, W^O, the
// output, and what one layer costs against one head of full width.
//
// --heads, --d-model, --seed and --tokens change the sizes and the draws.
// --sizes-only prints only the head width and the cost, for any allowed
// sizes, without drawing or computing anything (the paper's base model:
// --d-model 512 --heads 8 --sizes-only). --json prints the same values as one
// JSON document: enough to recompute everything (see the chapter).
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "multi_head",
    "Chapter 5 of Attention, Compiled: multi-head attention. h heads, each with its own W^Q_i, W^K_i, W^V_i of "
    "width d_model / h, attend in parallel; their outputs are concatenated and multiplied by W^O. The inputs and "
    "weights are drawn from chapter 2's generator with --seed.",
    compute, to_json, tables);

}  // namespace multi_head
