/// @file multi_head.hpp
/// @brief Multi-head attention: h heads, each attending in its own projection, concatenated, then multiplied by W^O.
///
/// §3.2.2 of the paper: MultiHead(Q, K, V) = Concat(head₁, …, head_h) W^O,
/// with head_i = Attention(Q W^Q_i, K W^K_i, V W^V_i). Each head is one call
/// of scaled_dot_product_attention() on its own projections of the inputs.
/// The heads' outputs are laid side by side, not averaged and not voted on,
/// and one more learned matrix, W^O, mixes them.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "attention/attention.hpp"
#include "attention/matrix.hpp"
#include "attention/rotary.hpp"

namespace attention {

/// @brief The three learned matrices of one head, applied on the right: Q_i = Q · W^Q_i.
struct HeadProjections {
  Matrix query;  ///< W^Q_i, d_model × d_k
  Matrix key;    ///< W^K_i, d_model × d_k: as wide as W^Q_i, so that queries and keys can be compared
  Matrix value;  ///< W^V_i, d_model × d_v
};

/// @brief Every learned matrix of one multi-head attention layer.
struct MultiHeadWeights {
  std::vector<HeadProjections> heads;  ///< W^Q_i, W^K_i, W^V_i for i = 1 … h, in order
  Matrix output;                       ///< W^O, h·d_v × d_model: rows 1 … d_v meet head 1, the next d_v head 2, …
};

/// @brief One head's work: its projections of the inputs, and attention over them.
struct HeadSteps {
  Matrix queries;              ///< Q_i = Q · W^Q_i, n × d_k
  Matrix keys;                 ///< K_i = K · W^K_i, m × d_k
  Matrix values;               ///< V_i = V · W^V_i, m × d_v
  AttentionSteps<> attention;  ///< scaled_dot_product_attention(Q_i, K_i, V_i); its output is head_i, n × d_v
};

/// @brief Every intermediate of multi_head_attention(), in the order it is computed.
struct MultiHeadSteps {
  std::vector<HeadSteps> heads;  ///< head 1 … head h
  Matrix concatenation;          ///< Concat(head₁, …, head_h), n × h·d_v: head 1's columns first
  Matrix output;                 ///< Concat(head₁, …, head_h) · W^O, n × d_model
};

/// @brief The width of each head in the paper's layout: d_k = d_v = d_model / h (§3.2.2).
///
/// The paper splits the model's width evenly between the heads, so that h
/// heads together are as wide as one head of width d_model: 512 / 8 = 64 in
/// its base model.
/// @param d_model the width of the model's vectors; at least 1
/// @param heads h, the number of heads; at least 1, and it must divide @p d_model
/// @return d_model / h
/// @throws std::invalid_argument if either is less than 1, or if @p heads does not divide @p d_model
inline Eigen::Index head_width(Eigen::Index d_model, Eigen::Index heads) {
  if (d_model < 1 || heads < 1) {
    throw std::invalid_argument("head_width: d_model and the number of heads must both be at least 1");
  }
  if (d_model % heads != 0) {
    throw std::invalid_argument("head_width: d_model = " + std::to_string(d_model) + " is not divisible by h = " +
                                std::to_string(heads) + "; each head must get d_model / h whole columns");
  }
  // clang-format off
  // [head_width]
  return d_model / heads;
  // [head_width]
  // clang-format on
}

/// @brief MultiHead(Q, K, V) = Concat(head₁, …, head_h) W^O, where head_i = Attention(Q W^Q_i, K W^K_i, V W^V_i).
///
/// Equation of §3.2.2 of the paper, with every intermediate kept. For
/// self-attention pass the same matrix X (n × d_model, one row per token) as
/// @p queries, @p keys and @p values.
///
/// Each head projects the inputs with its own three matrices and runs
/// scaled_dot_product_attention() on the projections, with @p options (a mask
/// applies to every head). The heads' outputs are then laid side by side in
/// the order of @p weights, and the result is multiplied by W^O. Because
/// Concat(head₁, …, head_h) · W^O = Σ_i head_i · W^O_i, where W^O_i is the
/// block of rows of W^O that meets head i, every head contributes through its
/// own block of W^O: nothing is averaged and nothing is voted on.
///
/// With `options.rotary` (chapter 15), each head turns its projected queries
/// and keys by their positions before the scores: key j stands at position j,
/// and the n queries at the last n of the m keys' positions (all of them in
/// self-attention). HeadSteps then holds the turned queries and keys.
///
/// The paper gives every head the same widths, d_k = d_v = d_model / h (see
/// head_width()); this function only needs the shapes to fit together.
///
/// @param queries Q, n × d_model
/// @param keys K, m × d_model
/// @param values V, m × d_model: one value per key
/// @param weights W^Q_i, W^K_i, W^V_i for each head, and W^O
/// @param options scaling, mask and fill, for every head (see AttentionOptions)
/// @return each head's projections and attention steps, the concatenation, and the output
/// @throws std::invalid_argument if there is no head, if a matrix does not fit the inputs or the
///         other matrices, for anything scaled_dot_product_attention() refuses, or, with
///         options.rotary, if there are fewer keys than queries or a head's d_k is not positive and even
inline MultiHeadSteps multi_head_attention(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                           const MultiHeadWeights& weights, const AttentionOptions& options = {}) {
  if (weights.heads.empty()) {
    throw std::invalid_argument("multi_head_attention: there must be at least one head");
  }
  Eigen::Index width = 0;  // of the concatenation: h · d_v
  for (std::size_t i = 0; i < weights.heads.size(); ++i) {
    const HeadProjections& head = weights.heads[i];
    const std::string name = "multi_head_attention: head " + std::to_string(i + 1) + ": ";
    if (head.query.rows() != queries.cols() || head.key.rows() != keys.cols() || head.value.rows() != values.cols()) {
      throw std::invalid_argument(name + "W^Q, W^K and W^V need one row per column of Q, K and V");
    }
    if (head.query.cols() != head.key.cols()) {
      throw std::invalid_argument(name + "W^Q and W^K must be equally wide (d_k)");
    }
    width += head.value.cols();
  }
  if (weights.output.rows() != width) {
    throw std::invalid_argument("multi_head_attention: W^O needs one row per column of the concatenated heads (" +
                                std::to_string(width) + "), not " + std::to_string(weights.output.rows()));
  }

  if (options.rotary && keys.rows() < queries.rows()) {
    throw std::invalid_argument("multi_head_attention: with rotary positions the queries are the last of the keys' "
                                "positions, so there must be at least as many keys as queries");
  }
  const Eigen::Index first_query_position = keys.rows() - queries.rows();  // the queries are the last positions
  MultiHeadSteps steps;
  // clang-format off
  // [heads]
  for (const auto& w : weights.heads) {  // w: head i's W^Q_i, W^K_i, W^V_i
    HeadSteps head;
    head.queries = queries * w.query;  // Q W^Q_i
    head.keys = keys * w.key;          // K W^K_i
    head.values = values * w.value;    // V W^V_i
    if (options.rotary) {  // chapter 15, off unless asked for: each query and key turned by its position
      head.queries = rotated_by_position(head.queries, first_query_position);
      head.keys = rotated_by_position(head.keys);
    }
    head.attention =
        scaled_dot_product_attention(
            head.queries, head.keys,
            head.values, options);
    steps.heads.push_back(std::move(head));  // append; std::move spares a copy
  }
  // [heads]
  // clang-format on
  // clang-format off
  // [concatenate]
  Matrix& joined = steps.concatenation;
  joined.resize(queries.rows(), width);
  Eigen::Index at = 0;  // next free column
  for (const HeadSteps& head : steps.heads) {
    const Matrix& out = head.attention.output;
    // NumPy: joined[:, at:at + out.shape[1]] = out
    joined.middleCols(at, out.cols()) = out;
    at += out.cols();
  }
  steps.output = joined * weights.output;
  // [concatenate]
  // clang-format on
  return steps;
}

}  // namespace attention
