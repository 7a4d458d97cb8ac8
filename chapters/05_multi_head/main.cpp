// Chapter 5: multi-head attention.
//
// With no arguments: the sentence "I love you" with d_model = 4 and h = 2
// heads, each of width d_k = d_v = d_model / h = 2 (the shapes of the book's
// source, seed 004). The input X and every weight matrix are drawn from
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
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attention/multi_head.hpp"
#include "attention/mulberry32.hpp"
#include "attention/random_weights.hpp"
#include "program/command_line.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/matrix_text.hpp"
#include "program/table.hpp"
#include "program/usage_error.hpp"

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

// What one multi-head self-attention layer costs over n tokens, counted in
// multiply-adds of its matrix products (a p × q matrix times a q × r matrix
// takes p·q·r), and in exponentials of its softmaxes.
struct LayerCost {
  Eigen::Index heads = 0, d_k = 0, d_v = 0;
  std::uint64_t projections = 0;        // Q_i, K_i, V_i = X·W^Q_i, X·W^K_i, X·W^V_i: h · n·d_model·(2d_k + d_v)
  std::uint64_t scores = 0;             // Q_i K_iᵀ: h · n·d_k·n
  std::uint64_t weighted_sums = 0;      // weights_i · V_i: h · n·n·d_v
  std::uint64_t output_projection = 0;  // Concat · W^O: n·(h·d_v)·d_model
  std::uint64_t exponentials = 0;       // softmax of every head's n × n scores: h · n²
  std::uint64_t total() const { return projections + scores + weighted_sums + output_projection; }
};

LayerCost layer_cost(std::uint64_t n, std::uint64_t d_model, std::uint64_t h, std::uint64_t d_k,
                     std::uint64_t d_v) {
  LayerCost cost;
  cost.heads = static_cast<Eigen::Index>(h);
  cost.d_k = static_cast<Eigen::Index>(d_k);
  cost.d_v = static_cast<Eigen::Index>(d_v);
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
  // [layer_cost]
  cost.exponentials = h * n * n;  // one e^x per entry of each head's n × n scores
  return cost;
}

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

std::string cost_text(const LayerCost& multi, const LayerCost& single, std::uint64_t n) {
  const std::string multi_name = fmt::format("{} heads of {}", multi.heads, multi.d_k);
  const std::string single_name = fmt::format("1 head of {}", single.d_k);
  const char* const row = "{:<34}  {:>4}  {:>17}  {:>17}\n";
  std::string text = fmt::format("The cost of this layer for n = {} tokens, in multiply-adds\n", n);
  text += fmt::format(fmt::runtime(row), "", "grows", multi_name, single_name);
  const auto line = [&](const std::string& stage, const char* growth, std::uint64_t a, std::uint64_t b) {
    text += fmt::format(fmt::runtime(row), stage, growth, program::grouped_digits(a), program::grouped_digits(b));
  };
  line("projections Q_i, K_i, V_i = X·W", "n", multi.projections, single.projections);
  line("scores Q_i K_iᵀ", "n²", multi.scores, single.scores);
  line("weighted sums weights_i · V_i", "n²", multi.weighted_sums, single.weighted_sums);
  line("output projection Concat · W^O", "n", multi.output_projection, single.output_projection);
  line("total", "", multi.total(), single.total());
  text += fmt::format("{:<34}  {:>4}  {:>17}  {:>17}\n", "exponentials (softmax)", "n²", program::grouped_digits(multi.exponentials),
                      program::grouped_digits(single.exponentials));
  return text;
}

// The sizes the command line asked for, checked.
struct Sizes {
  std::uint32_t seed = 0;
  Eigen::Index d_model = 0, heads = 0, width = 0;  // width: d_k = d_v = d_model / h
  std::vector<std::string> tokens;
};

// The whole numbers from 1 to d_model that divide it: the numbers of heads it allows.
std::string divisors_text(Eigen::Index d_model) {
  std::vector<Eigen::Index> divisors;
  for (Eigen::Index h = 1; h <= d_model; ++h) {
    if (d_model % h == 0) divisors.push_back(h);
  }
  std::string text;
  for (std::size_t i = 0; i < divisors.size(); ++i) {
    text += fmt::format("{}{}", i == 0 ? "" : (i + 1 == divisors.size() ? " or " : ", "), divisors[i]);
  }
  return text;
}

Sizes read_sizes(const std::string& seed_text, const std::string& d_model_text, const std::string& heads_text,
                 const std::string& tokens_text, bool sizes_only) {
  Sizes sizes;
  sizes.seed = static_cast<std::uint32_t>(program::parse_whole_number(seed_text, "--seed", 0, max_seed));
  sizes.d_model = static_cast<Eigen::Index>(program::parse_whole_number(d_model_text, "--d-model", 1, max_d_model));
  if (!sizes_only && static_cast<std::uint64_t>(sizes.d_model) > max_d_model_drawn) {
    throw program::UsageError(fmt::format(
        "--d-model is {}, too large for a run that draws every weight; expected at most {} (with --sizes-only, up to {})",
        sizes.d_model, max_d_model_drawn, max_d_model));
  }
  sizes.heads = static_cast<Eigen::Index>(program::parse_whole_number(heads_text, "--heads", 1, max_d_model));
  if (!sizes_only && static_cast<std::uint64_t>(sizes.heads) > max_heads_drawn) {
    throw program::UsageError(fmt::format(
        "--heads is {}, too many for a run that draws every weight; expected at most {} (with --sizes-only, up to {})",
        sizes.heads, max_heads_drawn, max_d_model));
  }
  if (sizes.heads > sizes.d_model) {
    throw program::UsageError(fmt::format(
        "--heads is {}, more than --d-model {}; each head needs at least one of the d_model columns", sizes.heads,
        sizes.d_model));
  }
  if (sizes.d_model % sizes.heads != 0) {
    throw program::UsageError(fmt::format(
        "--heads: {} heads do not divide --d-model {}; each head gets d_model / h columns, so h must be one of {}",
        sizes.heads, sizes.d_model, divisors_text(sizes.d_model)));
  }
  sizes.width = attention::head_width(sizes.d_model, sizes.heads);
  sizes.tokens = program::parse_names(tokens_text, "--tokens");
  if (sizes.tokens.size() > max_tokens) {
    throw program::UsageError(
        fmt::format("--tokens: {} names is too many; at most {}", sizes.tokens.size(), max_tokens));
  }
  return sizes;
}

// Matrices side by side, as one matrix: [A | B | …].
Matrix side_by_side(const std::vector<const Matrix*>& blocks) {
  Eigen::Index columns = 0;
  for (const Matrix* block : blocks) columns += block->cols();
  Matrix joined(blocks.front()->rows(), columns);
  Eigen::Index at = 0;
  for (const Matrix* block : blocks) {
    joined.middleCols(at, block->cols()) = *block;
    at += block->cols();
  }
  return joined;
}

// Labels "prefix1", … for each of three blocks of @p width columns: q1 q2 k1 k2 v1 v2.
std::vector<std::string> query_key_value_labels(Eigen::Index width) {
  std::vector<std::string> labels;
  for (const char* prefix : {"q", "k", "v"}) {
    const std::vector<std::string> block = program::numbered_labels(prefix, width);
    labels.insert(labels.end(), block.begin(), block.end());
  }
  return labels;
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

// For each row of @p weights, the token it gives the largest weight (the first, on a tie).
std::vector<std::string> largest_weight_tokens(const Matrix& weights, const std::vector<std::string>& tokens) {
  std::vector<std::string> names;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    Eigen::Index j = 0;
    weights.row(i).maxCoeff(&j);
    names.push_back(tokens[static_cast<std::size_t>(j)]);
  }
  return names;
}

void print_sizes(const Sizes& sizes) {
  std::cout << fmt::format("d_model = {}, h = {} heads\nd_k = d_v = d_model / h = {} / {} = {}\n\n", sizes.d_model,
                           sizes.heads, sizes.d_model, sizes.heads, sizes.width);
}

}  // namespace

int main(int argc, char** argv) {
  program::CommandLine command_line{
      "multi_head",
      "Chapter 5 of Attention, Compiled: multi-head attention. h heads, each with its own W^Q_i, W^K_i, W^V_i of "
      "width d_model / h, attend in parallel; their outputs are concatenated and multiplied by W^O. The inputs and "
      "weights are drawn from chapter 2's generator with --seed."};
  std::string seed_text = "1";
  std::string d_model_text = "4";
  std::string heads_text = "2";
  std::string tokens_text = "I,love,you";
  bool sizes_only = false;
  bool json = false;
  command_line.option("--heads", heads_text,
                      fmt::format("h, the number of heads: a whole number that divides --d-model (at most {} when "
                                  "the weights are drawn)",
                                  max_heads_drawn),
                      "INTEGER");
  command_line.option("--d-model", d_model_text,
                      fmt::format("d_model, the width of each token's vector, from 1 to {} (to {} with --sizes-only)",
                                  max_d_model_drawn, max_d_model),
                      "INTEGER");
  command_line.option("--seed", seed_text,
                      fmt::format("seed of the random stream the inputs and weights are drawn from, 0 to {}", max_seed),
                      "INTEGER");
  command_line.option("--tokens", tokens_text,
                      fmt::format("names of the tokens, separated by ','; n is their number (at most {})", max_tokens),
                      "NAMES");
  command_line.flag("--sizes-only", sizes_only,
                    "print only the head width and the cost of one layer; draw and compute nothing");
  command_line.flag("--json", json, "print the values as one JSON document instead of tables");

  return command_line.run(argc, argv, [&] {
    const Sizes sizes = read_sizes(seed_text, d_model_text, heads_text, tokens_text, sizes_only);
    const Eigen::Index d_model = sizes.d_model;
    const Eigen::Index heads = sizes.heads;
    const std::vector<std::string>& tokens = sizes.tokens;
    const auto n = static_cast<std::uint64_t>(tokens.size());
    const auto u = [](Eigen::Index value) { return static_cast<std::uint64_t>(value); };
    const LayerCost multi = layer_cost(n, u(d_model), u(heads), u(sizes.width), u(sizes.width));
    const LayerCost single = layer_cost(n, u(d_model), 1, u(d_model), u(d_model));
    const nlohmann::json sizes_json = {{"d_model", d_model}, {"h", heads},   {"d_k", sizes.width},
                                       {"d_v", sizes.width}, {"n", n},       {"tokens", tokens}};
    // What the book says of the two columns, computed: whether the matrix
    // products cost the same, and, counting an exponential like a multiply-add,
    // what the extra exponentials of h heads add to the arithmetic per pair.
    const std::uint64_t per_pair = (multi.scores + multi.weighted_sums) / (n * n);
    const nlohmann::json costs_json = {
        {"n", n},
        {"multi_head", cost_json(multi, n)},
        {"single_head", cost_json(single, n)},
        {"matrix_products_equal", multi.total() == single.total()},
        {"matrix_products", multi.total() == single.total() ? "equal" : "different"},
        {"extra_exponentials_per_pair", u(heads) - 1},
        {"extra_exponentials_share_per_pair",
         static_cast<double>(u(heads) - 1) / static_cast<double>(per_pair)}};

    if (sizes_only) {
      if (json) {
        nlohmann::json document = sizes_json;
        document["sizes_only"] = true;
        document["cost"] = costs_json;
        std::cout << document.dump(2) << '\n';
        return;
      }
      print_sizes(sizes);
      std::cout << cost_text(multi, single, n);
      return;
    }

    const auto rows = static_cast<Eigen::Index>(n);
    // [draw]
    attention::Mulberry32 generator(sizes.seed);
    const attention::MultiHeadWeights weights =
        attention::random_multi_head_weights(generator, d_model, heads);
    const Matrix input =  // X, drawn after the weights
        attention::random_normal_matrix(generator, rows, d_model, 1.0);
    // [draw]
    // [compute]
    const attention::MultiHeadSteps steps =  // self-attention: Q = K = V = X
        attention::multi_head_attention(input, input, input, weights);
    // [compute]

    if (json) {
      nlohmann::json head_documents = nlohmann::json::array();
      for (std::size_t i = 0; i < steps.heads.size(); ++i) {
        const attention::HeadSteps& head = steps.heads[i];
        head_documents.push_back({
            {"W_q", program::matrix_json(weights.heads[i].query)},
            {"W_k", program::matrix_json(weights.heads[i].key)},
            {"W_v", program::matrix_json(weights.heads[i].value)},
            {"queries", program::matrix_json(head.queries)},
            {"keys", program::matrix_json(head.keys)},
            {"values", program::matrix_json(head.values)},
            {"scores", program::matrix_json(head.attention.scores)},
            {"scaled_scores", program::matrix_json(head.attention.scaled_scores)},
            {"weights", program::matrix_json(head.attention.weights)},
            {"output", program::matrix_json(head.attention.output)},
            {"largest_weight_on", largest_weight_tokens(head.attention.weights, tokens)},
        });
      }
      nlohmann::json draw_order = nlohmann::json::array();
      for (Eigen::Index i = 1; i <= heads; ++i) {
        for (const char* name : {"W_q", "W_k", "W_v"}) draw_order.push_back(fmt::format("{} of head {}", name, i));
      }
      draw_order.push_back("W_o");
      draw_order.push_back("input");
      nlohmann::json document = sizes_json;
      document.update({
          {"seed", sizes.seed},
          {"draws",
           {{"generator",
            "mulberry32 seeded with seed; uniform = output / 2^32; normal = sqrt(-2 ln u1) cos(2 pi u2) from two "
            "consecutive uniforms, a u1 of 0 read as 2^-33; entry = normal * scale"},
            {"order", draw_order},
            {"each_matrix", "row by row"},
            {"weight_scale", 1.0 / std::sqrt(static_cast<double>(d_model))},
            {"input_scale", 1.0},
            {"uniforms_used", 2 * (4 * u(d_model) * u(d_model) + n * u(d_model))}}},
          {"input", program::matrix_json(input)},
          {"heads", head_documents},
          {"concat", program::matrix_json(steps.concatenation)},
          {"W_o", program::matrix_json(weights.output)},
          {"output", program::matrix_json(steps.output)},
          {"cost", costs_json},
      });
      std::cout << document.dump(2) << '\n';
      return;
    }

    std::string sentence;
    for (const std::string& token : tokens) sentence += (sentence.empty() ? "" : " ") + token;
    std::cout << fmt::format("Multi-head self-attention on \"{}\", seed {}\n", sentence, sizes.seed);
    print_sizes(sizes);
    std::cout << fmt::format(
        "Drawn from mulberry32 with seed {} (chapter 2), in this order: W^Q_i, W^K_i, W^V_i\n"
        "for head 1, then head 2, …, then W^O (each entry × 1/√{}), then the input X\n"
        "(each entry × 1). Every matrix is drawn row by row. Nothing here is learned.\n\n",
        sizes.seed, d_model);

    if (static_cast<Eigen::Index>(n) > max_printed_side || d_model > max_printed_side) {
      std::cout << fmt::format(
          "(With n = {} tokens and d_model = {}, the matrices are too large to print\n"
          " here: at most {} rows and columns. --json prints every entry.)\n\n",
          n, d_model, max_printed_side);
      std::cout << cost_text(multi, single, n);
      return;
    }

    const std::vector<std::string> dimensions = program::numbered_labels("d", d_model);
    const Eigen::Index w = sizes.width;
    std::cout << program::table(fmt::format("Input X, one row per token ({} × {})", n, d_model), input, tokens,
                                dimensions)
              << '\n';
    for (std::size_t i = 0; i < steps.heads.size(); ++i) {
      const attention::HeadSteps& head = steps.heads[i];
      const attention::HeadProjections& projections = weights.heads[i];
      const std::size_t number = i + 1;
      std::cout << fmt::format("── Head {} ──\n\n", number)
                << program::table(fmt::format("W^Q_{0} | W^K_{0} | W^V_{0}, each {1} × {2}", number, d_model, w),
                                  side_by_side({&projections.query, &projections.key, &projections.value}),
                                  dimensions, query_key_value_labels(w))
                << '\n'
                << program::table(fmt::format("Q_{0} = X·W^Q_{0} | K_{0} = X·W^K_{0} | V_{0} = X·W^V_{0}, each {1} × {2}",
                                              number, n, w),
                                  side_by_side({&head.queries, &head.keys, &head.values}), tokens,
                                  query_key_value_labels(w))
                << '\n'
                << program::table(fmt::format("Weights softmax(Q_{0} K_{0}ᵀ / √{1}): row = the token asking", number, w),
                                  head.attention.weights, tokens, tokens)
                << '\n'
                << program::table(fmt::format("head_{0} = weights · V_{0} ({1} × {2})", number, n, w),
                                  head.attention.output, tokens, head_labels(i, w))
                << '\n';
    }
    std::vector<std::string> concatenated_labels;
    for (std::size_t i = 0; i < steps.heads.size(); ++i) {
      const std::vector<std::string> labels = head_labels(i, w);
      concatenated_labels.insert(concatenated_labels.end(), labels.begin(), labels.end());
    }
    std::cout << "── All heads ──\n\n"
              << program::table(fmt::format("{} ({} × {}): each head's columns, side by side", concat_name(heads), n,
                                            heads * w),
                                steps.concatenation, tokens, concatenated_labels)
              << '\n'
              << program::table(fmt::format("W^O ({} × {}): row hi.j meets column j of head i", heads * w, d_model),
                                weights.output, concatenated_labels, dimensions)
              << '\n'
              << program::table(fmt::format("Output = {} · W^O ({} × {})", concat_name(heads), n, d_model),
                                steps.output, tokens, dimensions)
              << '\n'
              << cost_text(multi, single, n);
  });
}
