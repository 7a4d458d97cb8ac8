/// @file convolution_as_attention.hpp
/// @brief A 1-D convolution, and the same convolution computed by a multi-head self-attention layer with one head per kernel offset.
///
/// A convolution of width 2R + 1 gives position i the sum, over the offsets
/// δ = −R … R, of x_{i+δ} · W_δ: each offset has its own d_in × d_out matrix
/// of weights, and positions beyond either end count as zero vectors (zero
/// padding, so the output is as long as the input).
///
/// The same sum comes out of multi-head self-attention built like this. Head δ
/// may look at one key only, the token at offset δ from the query: a mask
/// allows exactly that key, so its softmax gives it weight e⁰ / e⁰ = 1 and
/// every other key weight 0, whatever the scores. A query whose offset falls
/// beyond the ends has no key to look at, and the library gives such a row
/// all-zero weights (softmax_rows()): the zero padding. Head δ's value
/// projection W^V_δ is the kernel's W_δ, so head δ outputs x_{i+δ} · W_δ. W^O
/// is 2R + 1 identity matrices stacked, so Concat(heads) · W^O adds the heads.
///
/// Cordonnier, Loukas and Jaggi (2020, "On the Relationship between
/// Self-Attention and Convolutional Layers", ICLR) prove the general
/// statement: a multi-head self-attention layer with enough heads and a
/// relative positional encoding can express any convolutional layer. Their
/// heads reach one-hot attention through quadratic positional scores; here a
/// mask gives it exactly.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "attention/matrix.hpp"

namespace attention {

/// @brief A 1-D convolution kernel: one d_in × d_out matrix per offset.
struct Kernel {
  /// W_δ for δ = −R, …, R in that order: an odd number of matrices, all of one shape.
  std::vector<Matrix> taps;

  /// R: the kernel reaches this many positions to either side.
  Eigen::Index radius() const { return static_cast<Eigen::Index>(taps.size() / 2); }
  /// The offset of tap @p t: t − R.
  Eigen::Index offset(std::size_t t) const { return static_cast<Eigen::Index>(t) - radius(); }
};

/// @brief Checks that @p kernel has an odd number of taps, all d_in × d_out, with d_in the width of @p inputs.
/// @param kernel the taps
/// @param inputs X, n × d_in
/// @throws std::invalid_argument otherwise
inline void check_kernel(const Kernel& kernel, const Matrix& inputs) {
  if (kernel.taps.empty() || kernel.taps.size() % 2 == 0) {
    throw std::invalid_argument("convolution: a kernel needs an odd number of taps, one per offset −R … R");
  }
  for (const Matrix& tap : kernel.taps) {
    if (tap.rows() != inputs.cols() || tap.cols() != kernel.taps.front().cols()) {
      throw std::invalid_argument("convolution: every tap must be d_in × d_out, with d_in the width of the inputs");
    }
  }
}

/// @brief The convolution y_i = Σ_δ x_{i+δ} · W_δ, positions beyond the ends counting as zero.
///
/// Written from the definition, one offset at a time in the order of the
/// taps: first every x · W_δ as one product, then, for each position, the
/// rows it needs added in the order δ = −R … R.
/// @param inputs X, n × d_in, one row per position
/// @param kernel the taps W_{−R} … W_R
/// @return Y, n × d_out
/// @throws std::invalid_argument from check_kernel()
inline Matrix convolution_1d(const Matrix& inputs, const Kernel& kernel) {
  check_kernel(kernel, inputs);
  const Eigen::Index n = inputs.rows();
  Matrix output = Matrix::Zero(n, kernel.taps.front().cols());
  // clang-format off
  // [convolution_1d]
  for (std::size_t t = 0; t < kernel.taps.size(); ++t) {
    const Eigen::Index delta = kernel.offset(t);
    const Matrix projected = inputs * kernel.taps[t];  // x_j · W_δ for every j
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::Index j = i + delta;  // the position this tap reads
      if (j >= 0 && j < n) output.row(i) += projected.row(j);
    }
  }
  // [convolution_1d]
  // clang-format on
  return output;
}

/// @brief The mask that lets query i look at key i + @p offset only (none when that is beyond the ends).
/// @param tokens n, the number of queries and of keys
/// @param offset δ, negative for earlier positions
/// @return an n × n mask with at most one allowed key per row
inline Mask offset_mask(Eigen::Index tokens, Eigen::Index offset) {
  Mask allowed = Mask::Constant(tokens, tokens, false);
  // clang-format off
  // [offset_mask]
  for (Eigen::Index i = 0; i < tokens; ++i) {
    const Eigen::Index j = i + offset;
    if (j >= 0 && j < tokens) allowed(i, j) = true;
  }
  // [offset_mask]
  // clang-format on
  return allowed;
}

/// @brief One head of the convolution layer: its offset, mask and attention steps.
struct OffsetHead {
  Eigen::Index offset = 0;     ///< δ: the head looks at the token δ positions away
  AttentionSteps<> attention;  ///< scaled_dot_product_attention() under offset_mask(); output = head_δ
};

/// @brief Every intermediate of convolution_as_attention().
struct ConvolutionAttentionSteps {
  std::vector<OffsetHead> heads;  ///< one per tap, offsets −R … R
  Matrix concatenation;           ///< Concat(head_{−R}, …, head_R), n × (2R + 1)·d_out
  Matrix output_projection;       ///< W^O: 2R + 1 identity matrices of side d_out, stacked
  Matrix output;                  ///< Σ_δ head_δ · W^O_δ, which is Concat · W^O, n × d_out
};

/// @brief The convolution of @p inputs by @p kernel, computed as multi-head self-attention.
///
/// Head δ: queries X · W^Q and keys X · W^K with W^Q = W^K = 0 (d_in × 1), so
/// every score is 0 and the head ignores what the tokens say: only the mask
/// offset_mask(n, δ) decides where it looks, as only the position decides in
/// a convolution. Any finite scores would do, since the mask leaves one key.
/// Its values are X · W_δ. All three go through scaled_dot_product_attention(). Then the heads are laid side by side and
/// multiplied by W^O as in multi_head_attention(), but here block by block:
/// Concat · W^O = Σ_δ head_δ · W^O_δ, where W^O_δ is the block of rows of W^O
/// that meets head δ, added in the order δ = −R … R.
///
/// Why block by block: a one-hot weight row times V, and a head times an
/// identity block, are exact in floating point (every other term is 0), so
/// each term is exactly x_{i+δ} · W_δ as convolution_1d() computes it, and the
/// two add the same numbers in the same order: the outputs are equal bit for
/// bit, as long as every X·W_δ is finite. One product Concat · W^O adds the
/// same terms in an order of Eigen's choosing, and may differ from the
/// convolution in the last bit.
/// @param inputs X, n × d_in
/// @param kernel W_{−R} … W_R, which become the value projections
/// @return every head, the concatenation, W^O and the output
/// @throws std::invalid_argument from check_kernel(), or from softmax_rows() if an input is NaN or infinite
inline ConvolutionAttentionSteps convolution_as_attention(const Matrix& inputs, const Kernel& kernel) {
  check_kernel(kernel, inputs);
  const Eigen::Index n = inputs.rows();
  const Eigen::Index d_out = kernel.taps.front().cols();
  const auto heads = static_cast<Eigen::Index>(kernel.taps.size());
  ConvolutionAttentionSteps steps;
  // clang-format off
  // [convolution_as_attention]
  for (std::size_t t = 0; t < kernel.taps.size(); ++t) {
    OffsetHead head;
    head.offset = kernel.offset(t);
    AttentionOptions options;
    options.mask = offset_mask(n, head.offset);  // one key, or none
    const Matrix content_free = inputs * Matrix::Zero(inputs.cols(), 1);  // X · W^Q = X · W^K = 0
    const Matrix values = inputs * kernel.taps[t];                        // X · W^V_δ, W^V_δ = W_δ
    head.attention = scaled_dot_product_attention(content_free, content_free, values, options);
    steps.heads.push_back(std::move(head));
  }
  steps.concatenation.resize(n, heads * d_out);
  for (Eigen::Index h = 0; h < heads; ++h) {
    steps.concatenation.middleCols(h * d_out, d_out) = steps.heads[static_cast<std::size_t>(h)].attention.output;
  }
  steps.output_projection.resize(heads * d_out, d_out);
  for (Eigen::Index h = 0; h < heads; ++h) {
    steps.output_projection.middleRows(h * d_out, d_out) = Matrix::Identity(d_out, d_out);
  }
  // Concat · W^O = Σ_δ head_δ · W^O_δ, W^O_δ the block of rows that meets head δ: added head by head, in order.
  steps.output = Matrix::Zero(n, d_out);
  for (Eigen::Index h = 0; h < heads; ++h) {
    steps.output += steps.heads[static_cast<std::size_t>(h)].attention.output *
                    steps.output_projection.middleRows(h * d_out, d_out);
  }
  // [convolution_as_attention]
  // clang-format on
  return steps;
}

}  // namespace attention
