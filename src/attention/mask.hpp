/// @file mask.hpp
/// @brief Masks: which keys each query may look at, and writing −∞ into the rest.
#pragma once

#include <limits>
#include <stdexcept>
#include <type_traits>

#include "attention/matrix.hpp"

namespace attention {

/// @brief allowed(i, j) is true when query i may look at key j.
using Mask = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic>;

/// @brief Every query may look at every key (an encoder's self-attention).
/// @param queries number of queries (rows)
/// @param keys number of keys (columns)
/// @return a queries × keys mask that allows everything
inline Mask no_mask(Eigen::Index queries, Eigen::Index keys) { return Mask::Constant(queries, keys, true); }

/// @brief Token i may look at tokens 0 … i only: no peeking at later positions.
///
/// The decoder's mask (§3.2.3 of the paper): allowed(i, j) = (j ≤ i).
/// @param tokens sequence length n
/// @return an n × n lower-triangular mask
inline Mask causal_mask(Eigen::Index tokens) {
  // clang-format off
  // [causal_mask]
  Mask allowed(tokens, tokens);
  for (Eigen::Index i = 0; i < tokens; ++i) {
    for (Eigen::Index j = 0; j < tokens; ++j) {
      allowed(i, j) = j <= i;
    }
  }
  return allowed;
  // [causal_mask]
  // clang-format on
}

/// @brief Token i may look at tokens within @p radius positions: |i − j| ≤ radius.
///
/// The band of restricted self-attention (§4 of the paper, which considers
/// "a neighborhood of size r" without saying whether r counts one side or
/// both). Here the radius counts one side: each row allows up to
/// 2·radius + 1 keys. A radius of n − 1 or more allows everything.
/// @param tokens sequence length n
/// @param radius how many positions to each side are visible; must be ≥ 0
/// @return an n × n band mask
/// @throws std::invalid_argument if @p radius is negative
inline Mask band_mask(Eigen::Index tokens, Eigen::Index radius) {
  if (radius < 0) {
    throw std::invalid_argument("band_mask: the radius must not be negative");
  }
  Mask allowed(tokens, tokens);
  // [band_mask]
  for (Eigen::Index i = 0; i < tokens; ++i) {
    for (Eigen::Index j = 0; j < tokens; ++j) {
      allowed(i, j) = (i > j ? i - j : j - i) <= radius;  // |i − j| ≤ R
    }
  }
  // [band_mask]
  return allowed;
}

/// @brief Only the first @p real_keys keys are real tokens; the rest are padding.
///
/// Sequences of different lengths are padded to one length to share a batch.
/// Every query, padding included, may look only at the real keys.
/// @param queries number of queries (rows)
/// @param keys number of keys (columns), real and padding
/// @param real_keys how many keys, from the first, are real; 0 ≤ real_keys ≤ keys
/// @return a queries × keys mask allowing columns 0 … real_keys − 1
/// @throws std::invalid_argument if @p real_keys is outside [0, keys]
inline Mask padding_mask(Eigen::Index queries, Eigen::Index keys, Eigen::Index real_keys) {
  if (real_keys < 0 || real_keys > keys) {
    throw std::invalid_argument("padding_mask: the number of real keys must be between 0 and the number of keys");
  }
  Mask allowed = Mask::Constant(queries, keys, false);
  allowed.leftCols(real_keys).setConstant(true);
  return allowed;
}

/// @brief The scores with every disallowed entry replaced by @p fill (−∞ unless told otherwise).
///
/// With −∞, softmax gives a masked entry a weight of exactly 0, because
/// e^(−∞) = 0. A finite fill such as −1e9 only makes the weight small, and
/// whether it rounds to 0 depends on the other scores in the row.
/// The scores may be float or double; the fill is converted to their type
/// (−∞ stays −∞).
/// @tparam Scalar float or double
/// @param scores n × m
/// @param allowed n × m mask
/// @param fill the value written where @p allowed is false
/// @return n × m scores with the disallowed entries replaced
/// @throws std::invalid_argument if the shapes differ
template <typename Scalar>
MatrixOf<Scalar> apply_mask(const MatrixOf<Scalar>& scores, const Mask& allowed,
                            std::type_identity_t<Scalar> fill = -std::numeric_limits<Scalar>::infinity()) {
  if (allowed.rows() != scores.rows() || allowed.cols() != scores.cols()) {
    throw std::invalid_argument("apply_mask: the mask and the scores have different shapes");
  }
  // clang-format off
  // [apply_mask]
  // NumPy: np.where(allowed, scores, fill)
  return allowed.select(scores, fill);
  // [apply_mask]
  // clang-format on
}

}  // namespace attention
