// Chapter 5: multi-head attention, as one computation with its front ends.
//
// compute() draws the input X and every weight matrix from chapter 2's
// generator and runs the library's multi_head_attention() on them; to_json()
// and tables() show the result; Flags reads the command line into Inputs.
// The command line and the page (program/run_chapter.hpp, register_chapter) both go through these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"
#include "attention/multi_head.hpp"
#include "program/command_line.hpp"

namespace multi_head {

/// What the flags say: the sizes, the seed and the tokens, checked.
struct Inputs {
  std::uint32_t seed = 1;
  Eigen::Index d_model = 4;
  Eigen::Index heads = 2;
  std::vector<std::string> tokens{"I", "love", "you"};
  bool sizes_only = false;  // only the head width and the cost: draw and compute nothing
};

/// What one multi-head self-attention layer costs over n tokens, counted in
/// multiply-adds of its matrix products (a p × q matrix times a q × r matrix
/// takes p·q·r), and in exponentials of its softmaxes.
struct LayerCost {
  Eigen::Index heads = 0, d_k = 0, d_v = 0;
  std::uint64_t projections = 0;        // Q_i, K_i, V_i = X·W^Q_i, X·W^K_i, X·W^V_i: h · n·d_model·(2d_k + d_v)
  std::uint64_t scores = 0;             // Q_i K_iᵀ: h · n·d_k·n
  std::uint64_t weighted_sums = 0;      // weights_i · V_i: h · n·n·d_v
  std::uint64_t output_projection = 0;  // Concat · W^O: n·(h·d_v)·d_model
  std::uint64_t exponentials = 0;       // softmax of every head's n × n scores: h · n²
  std::uint64_t total() const { return projections + scores + weighted_sums + output_projection; }
};

/// Everything the tables and the JSON show.
struct Result {
  Inputs inputs;
  Eigen::Index width = 0;  // d_k = d_v = d_model / h
  LayerCost multi;         // h heads of width d_model / h
  LayerCost single;        // one head of width d_model
  // Empty with --sizes-only:
  attention::MultiHeadWeights weights;   // W^Q_i, W^K_i, W^V_i of each head, W^O
  attention::Matrix input;               // X, n × d_model, drawn after the weights
  attention::MultiHeadSteps steps;       // self-attention on X
  std::vector<attention::Matrix> parts;  // head_i · W^O_i, head i's part of the output; they add up to it
};

/// Draws the weights and X from mulberry32 seeded with inputs.seed (in the
/// order src/attention/random_weights.hpp documents, then X) and runs
/// multi-head self-attention; with sizes_only, only the costs.
Result compute(const Inputs& inputs);

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// --heads, --d-model, --seed, --tokens and --sizes-only, with their help and
/// defaults; read() checks them against each other after parsing and throws
/// program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  std::string seed_text_ = "1";
  std::string d_model_text_ = "4";
  std::string heads_text_ = "2";
  std::string tokens_text_ = "I,love,you";
  bool sizes_only_ = false;
};

}  // namespace multi_head
