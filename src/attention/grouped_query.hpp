/// @file grouped_query.hpp
/// @brief Grouped-query attention: h query heads share h_kv heads of keys and values (multi-query attention when h_kv = 1).
///
/// Shazeer ("Fast Transformer Decoding: One Write-Head is All You Need",
/// 2019) gave every query head the same single head of keys and values, so
/// that a decoder's cache holds one head's keys and values instead of h.
/// Ainslie et al. ("GQA: Training Generalized Multi-Query Transformer Models
/// from Multi-Head Checkpoints", 2023) put the heads in h_kv groups instead:
/// the heads of a group share one W^K and one W^V, and each head keeps its own
/// W^Q. Here the heads of a group are consecutive: with h = 4 and h_kv = 2,
/// heads 1 and 2 share, and heads 3 and 4.
///
/// The library's layers keep a W^K and a W^V in every head. A grouped model is
/// that layer with the group's matrices held equal: share_key_value_heads()
/// makes them equal. Training updates only the group's first head
/// (grouped_parameter_blocks()) with the sum of the group's gradients
/// (sum_key_value_gradients()): a weight used by several heads gets the sum of
/// what each use asks of it. After every step the caller copies that head to
/// the rest of the group again with share_key_value_heads() (chapter 14 does). The forward pass still computes a
/// group's keys once per head, which costs time but changes no number; the
/// decoder's cache (kv_cache.hpp) stores them once per group.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/adam.hpp"
#include "attention/token_classifier.hpp"

namespace attention {

/// @brief The group of keys and values that query head @p head reads.
/// @param head the query head, 0 to h − 1
/// @param heads h, the query heads; at least 1
/// @param key_value_heads h_kv, the heads of keys and values; it must divide h
/// @return head / (h / h_kv)
/// @throws std::invalid_argument if h or h_kv is below 1, or h_kv does not divide h
inline Eigen::Index key_value_group(Eigen::Index head, Eigen::Index heads, Eigen::Index key_value_heads) {
  if (heads < 1) {
    throw std::invalid_argument("key_value_group: the query heads (" + std::to_string(heads) + ") must be at least 1");
  }
  if (key_value_heads < 1 || heads % key_value_heads != 0) {
    throw std::invalid_argument("key_value_group: the key/value heads (" + std::to_string(key_value_heads) +
                                ") must divide the query heads (" + std::to_string(heads) + ")");
  }
  if (head < 0 || head >= heads) {
    throw std::invalid_argument("key_value_group: head " + std::to_string(head) + " is not one of the " +
                                std::to_string(heads) + " query heads");
  }
  return head / (heads / key_value_heads);
}

/// @brief True for the first head of its group: the head whose W^K and W^V the group uses.
/// @param head the query head, 0 to h − 1
/// @param heads h
/// @param key_value_heads h_kv; it must divide h
/// @return whether @p head is the first of its group
/// @throws std::invalid_argument if h or h_kv is below 1, or h_kv does not divide h (head 0 is never checked)
inline bool leads_its_group(Eigen::Index head, Eigen::Index heads, Eigen::Index key_value_heads) {
  return head == 0 ||
         key_value_group(head, heads, key_value_heads) != key_value_group(head - 1, heads, key_value_heads);
}

/// @brief Gives every head of a group its group's first W^K and W^V.
/// @param layers the layers' weights, changed in place
/// @param key_value_heads h_kv; it must divide every layer's number of heads
/// @throws std::invalid_argument if h_kv is below 1 or does not divide the number of heads (a layer of one head is
///         never checked). Layers before the one that throws are already changed.
inline void share_key_value_heads(std::vector<EncoderLayerWeights>& layers, Eigen::Index key_value_heads) {
  for (EncoderLayerWeights& layer : layers) {
    std::vector<HeadProjections>& heads = layer.attention.heads;
    const auto count = static_cast<Eigen::Index>(heads.size());
    for (Eigen::Index h = 0; h < count; ++h) {
      if (leads_its_group(h, count, key_value_heads)) continue;
      const HeadProjections& first = heads[static_cast<std::size_t>(h - h % (count / key_value_heads))];
      heads[static_cast<std::size_t>(h)].key = first.key;
      heads[static_cast<std::size_t>(h)].value = first.value;
    }
  }
}

/// @brief Adds each group's W^K and W^V gradients into its first head's: the gradient of the shared matrices.
/// @param gradients the layers' gradients, changed in place (the other heads' are left as they were)
/// @param key_value_heads h_kv; it must divide every layer's number of heads
/// @throws std::invalid_argument if h_kv is below 1 or does not divide the number of heads (a layer of one head is
///         never checked). Layers before the one that throws are already changed.
inline void sum_key_value_gradients(std::vector<EncoderLayerWeights>& gradients, Eigen::Index key_value_heads) {
  for (EncoderLayerWeights& layer : gradients) {
    std::vector<HeadProjections>& heads = layer.attention.heads;
    const auto count = static_cast<Eigen::Index>(heads.size());
    for (Eigen::Index h = 0; h < count; ++h) {
      if (leads_its_group(h, count, key_value_heads)) continue;
      HeadProjections& first = heads[static_cast<std::size_t>(h - h % (count / key_value_heads))];
      first.key += heads[static_cast<std::size_t>(h)].key;
      first.value += heads[static_cast<std::size_t>(h)].value;
    }
  }
}

/// @brief The parameters of a grouped model: parameter_blocks() without the W^K and W^V of heads that lead no group.
///
/// Called on the weights and on a gradient of the same shape, it lists
/// matching blocks in matching order, which is what Adam::step() needs.
/// @param weights the model (or a gradient shaped like it)
/// @param key_value_heads h_kv; it must divide every layer's number of heads
/// @return the blocks, pointing into @p weights
/// @throws std::invalid_argument if h_kv is below 1 or does not divide the number of heads (a layer of one head is
///         never checked)
inline std::vector<ParameterBlock> grouped_parameter_blocks(TokenClassifierWeights& weights,
                                                            Eigen::Index key_value_heads) {
  std::vector<const double*> copies;  // the W^K and W^V that only repeat their group's first
  for (EncoderLayerWeights& layer : weights.layers) {
    const auto count = static_cast<Eigen::Index>(layer.attention.heads.size());
    for (Eigen::Index h = 0; h < count; ++h) {
      if (leads_its_group(h, count, key_value_heads)) continue;
      copies.push_back(layer.attention.heads[static_cast<std::size_t>(h)].key.data());
      copies.push_back(layer.attention.heads[static_cast<std::size_t>(h)].value.data());
    }
  }
  std::vector<ParameterBlock> blocks = parameter_blocks(weights);
  std::erase_if(blocks, [&copies](const ParameterBlock& block) {
    return std::find(copies.begin(), copies.end(), block.data) != copies.end();
  });
  return blocks;
}

}  // namespace attention
