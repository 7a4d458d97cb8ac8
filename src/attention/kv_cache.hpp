/// @file kv_cache.hpp
/// @brief Decoding one word at a time with a cache of every layer's keys and values.
///
/// A decoder reads its words with the causal mask (chapter 4): position t
/// reads positions 0 … t and nothing after. So when a word is added at the
/// end, nothing the model computed for the earlier positions changes, in any
/// layer. Their keys and values can be kept instead of computed again: each
/// new word computes its own query, key and value in each layer, adds its key
/// and value to the cache, and reads the cache with its query. One step costs
/// a fixed amount for the projections and the feed-forward network, and one
/// dot product per cached position for the attention; recomputing the whole
/// prefix at every step costs all of that once per position of the prefix.
///
/// After n words the cache has filled 2 · layers · n · h_kv · d_k numbers
/// (key_value_cache_numbers(); empty_key_value_cache() allocates room for its
/// whole capacity at once), where h_kv is the number of key/value heads
/// (grouped_query.hpp): with h_kv = h, what multi-head attention needs; with
/// h_kv = 1, multi-query attention, h times less.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/feed_forward.hpp"
#include "attention/grouped_query.hpp"
#include "attention/layer_norm.hpp"
#include "attention/matrix.hpp"
#include "attention/norm_placement.hpp"
#include "attention/positional_encoding.hpp"
#include "attention/softmax.hpp"
#include "attention/token_classifier.hpp"

namespace attention {

/// @brief Every layer's keys and values of the positions decoded so far, one group of heads at a time.
struct KeyValueCache {
  Eigen::Index key_value_heads = 1;         ///< h_kv, the groups of heads that share keys and values
  Eigen::Index length = 0;                  ///< the positions cached so far
  std::vector<std::vector<Matrix>> keys;    ///< [layer][group]: capacity × d_k; rows 0 … length − 1 are filled
  std::vector<std::vector<Matrix>> values;  ///< [layer][group]: capacity × d_v, likewise
};

/// @brief The numbers a cache has filled after @p positions positions: 2 · layers · positions · h_kv · d_k.
/// @param layers the decoder's layers
/// @param positions n, the positions cached
/// @param key_value_heads h_kv
/// @param head_width d_k (= d_v)
/// @return the count; times the bytes of a number (8 for a double) gives the memory a cache of capacity
///         @p positions allocates
inline long long key_value_cache_numbers(long long layers, long long positions, long long key_value_heads,
                                         long long head_width) {
  // clang-format off
  // [cache_numbers]
  return 2 * layers * positions * key_value_heads * head_width;
  // [cache_numbers]
  // clang-format on
}

/// @brief An empty cache with room for @p capacity positions, allocated once.
/// @param weights the decoder (its layers give the shapes)
/// @param key_value_heads h_kv; it must divide the number of heads, whose W^K and W^V must be shared in groups
///        (share_key_value_heads()): the cache keeps each group's first head's keys and values
/// @param capacity the most positions it will hold, at least 1
/// @return the cache, length 0
/// @throws std::invalid_argument if @p capacity is below 1, or h_kv is below 1 or does not divide a layer's heads
inline KeyValueCache empty_key_value_cache(const TokenClassifierWeights& weights, Eigen::Index key_value_heads,
                                           Eigen::Index capacity) {
  if (capacity < 1) throw std::invalid_argument("empty_key_value_cache: the capacity must be at least 1");
  KeyValueCache cache;
  cache.key_value_heads = key_value_heads;
  for (const EncoderLayerWeights& layer : weights.layers) {
    const auto heads = static_cast<Eigen::Index>(layer.attention.heads.size());
    key_value_group(0, heads, key_value_heads);  // refuses an h_kv that does not divide h
    cache.keys.emplace_back(static_cast<std::size_t>(key_value_heads),
                            Matrix::Zero(capacity, layer.attention.heads.front().key.cols()));
    cache.values.emplace_back(static_cast<std::size_t>(key_value_heads),
                              Matrix::Zero(capacity, layer.attention.heads.front().value.cols()));
  }
  return cache;
}

/// @brief What one decoding step gives.
struct DecodingStep {
  Vector logits;                             ///< the scores of the next word, C entries
  std::vector<std::vector<Vector>> weights;  ///< [layer][head]: the new position's attention over positions 0 … t
};

/// @brief Reads one more word at the end of what the cache holds, and gives the scores of the word after it.
///
/// The same computation as the last row of token_classifier(weights, words,
/// Visibility::causal) for the words cached so far and @p word, with the
/// earlier positions' keys and values read from the cache instead of computed
/// again. The numbers agree to rounding, not bit for bit: the whole-prefix pass
/// multiplies matrices where this step multiplies a row by a matrix, and the
/// two add their products in different orders.
/// @param weights the decoder, its W^K and W^V shared in the cache's groups; at least one layer
/// @param cache the keys and values of the positions so far; this position's are added
/// @param word the word at position t = cache.length, 0 to V − 1
/// @return the next word's scores, and each head's attention over positions 0 … t
/// @throws std::invalid_argument if the cache is full or was made for another model (other layers, or an h_kv that
///         does not divide the heads, or keys and values of another width), the word is out of range, the decoder
///         has no layer, or the layers are not laid out as the paper's (post-norm LayerNorm, the only layout this
///         step computes)
inline DecodingStep decode_step(const TokenClassifierWeights& weights, KeyValueCache& cache, Eigen::Index word) {
  if (weights.layout != LayerLayout{}) {
    throw std::invalid_argument("decode_step: only the paper's layout, post-norm LayerNorm, is decoded step by step");
  }
  if (weights.layers.empty()) throw std::invalid_argument("decode_step: the decoder has no layer");
  const Eigen::Index t = cache.length;
  const auto made_for_another_model = [&] {
    if (cache.keys.size() != weights.layers.size() || cache.values.size() != weights.layers.size()) return true;
    const Eigen::Index groups = cache.key_value_heads;
    for (std::size_t l = 0; l < weights.layers.size(); ++l) {
      const std::vector<HeadProjections>& heads = weights.layers[l].attention.heads;
      const auto count = static_cast<Eigen::Index>(heads.size());
      if (groups < 1 || count % groups != 0 || static_cast<Eigen::Index>(cache.keys[l].size()) != groups ||
          static_cast<Eigen::Index>(cache.values[l].size()) != groups) {
        return true;
      }
      for (Eigen::Index g = 0; g < groups; ++g) {
        const HeadProjections& first = heads[static_cast<std::size_t>(g * (count / groups))];
        const Matrix& keys = cache.keys[l][static_cast<std::size_t>(g)];
        const Matrix& values = cache.values[l][static_cast<std::size_t>(g)];
        if (keys.cols() != first.key.cols() || values.cols() != first.value.cols() || keys.rows() != values.rows() ||
            keys.rows() != cache.keys.front().front().rows()) {
          return true;
        }
      }
    }
    return false;
  };
  if (made_for_another_model()) throw std::invalid_argument("decode_step: the cache was made for another model");
  if (t >= cache.keys.front().front().rows()) throw std::invalid_argument("decode_step: the cache is full");
  if (word < 0 || word >= weights.embedding.rows()) {
    throw std::invalid_argument("decode_step: word " + std::to_string(word) + " is out of range");
  }
  const Eigen::Index d_model = weights.embedding.cols();
  DecodingStep step;
  Matrix x = weights.embedding.row(word) + positional_encoding(1, d_model, t);  // 1 × d_model
  for (std::size_t l = 0; l < weights.layers.size(); ++l) {
    const EncoderLayerWeights& layer = weights.layers[l];
    const auto heads = static_cast<Eigen::Index>(layer.attention.heads.size());
    const Eigen::Index groups = cache.key_value_heads;
    std::vector<Matrix>& keys = cache.keys[l];
    std::vector<Matrix>& values = cache.values[l];
    std::vector<Vector>& layer_weights = step.weights.emplace_back();
    // clang-format off
    // [decode_step]
    // This position's key and value join the cache: once per group of heads.
    for (Eigen::Index g = 0; g < groups; ++g) {
      const auto first_head = static_cast<std::size_t>(g * (heads / groups));
      const HeadProjections& first = layer.attention.heads[first_head];
      keys[g].row(t) = x * first.key;
      values[g].row(t) = x * first.value;
    }
    // Each head's query reads every key its group has cached: positions 0 … t, so no mask.
    Matrix concatenation(1, 0);
    for (Eigen::Index h = 0; h < heads; ++h) {
      const HeadProjections& head = layer.attention.heads[static_cast<std::size_t>(h)];
      const Eigen::Index g = key_value_group(h, heads, groups);
      const Matrix query = x * head.query;
      const double d_k = static_cast<double>(query.cols());
      const Matrix scores = query * keys[g].topRows(t + 1).transpose() / std::sqrt(d_k);
      const Matrix attention_weights = softmax_rows(scores);  // 1 × (t + 1)
      const Matrix output = attention_weights * values[g].topRows(t + 1);
      // NumPy: concatenation = np.hstack([concatenation, output])
      concatenation.conservativeResize(1, concatenation.cols() + output.cols());
      concatenation.rightCols(output.cols()) = output;
      layer_weights.push_back(attention_weights.row(0).transpose());
    }
    // The rest of the layer works on this position alone, as in encoder_layer().
    const Matrix attended = x + concatenation * layer.attention.output;
    const Matrix y = layer_norm(attended, layer.attention_norm).output;
    x = layer_norm(y + feed_forward(y, layer.feed_forward).output, layer.feed_forward_norm).output;
    // [decode_step]
    // clang-format on
  }
  cache.length = t + 1;
  step.logits = (x * weights.readout).transpose() + weights.readout_bias;
  return step;
}

}  // namespace attention
