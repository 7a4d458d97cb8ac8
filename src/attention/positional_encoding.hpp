/// @file positional_encoding.hpp
/// @brief The sinusoidal positional encoding of §3.5: one row of sines and cosines per position, added to the input.
///
/// Self-attention on its own cannot tell one order of the tokens from another:
/// permute the rows of Q, K and V together and the output rows are permuted
/// the same way. §3.5 of the paper gives each position a vector of its own and
/// adds it to the input embeddings, once, at the bottom of the encoder and
/// decoder stacks: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)) and
/// PE(pos, 2i + 1) = cos(pos / 10000^(2i/d_model)).
///
/// Rows are positions, counted from 0; columns are the d_model dimensions,
/// taken in pairs (sine, cosine) that share one angular frequency
/// ω_i = 1 / 10000^(2i/d_model). d_model must be even: an odd width would
/// leave its last sine without the cosine that makes PE(pos + k) a linear
/// function of PE(pos) (see shift_map()), so the library refuses it.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "attention/matrix.hpp"

namespace attention {

/// @brief The base of the encoding's wavelengths: 10000, the paper's choice in §3.5.
inline constexpr double positional_encoding_base = 10000.0;

/// @brief Refuses a width the encoding is not defined for here: d_model must be positive and even.
/// @param d_model the width of the encoding
/// @param who the function asking, for the message
/// @throws std::invalid_argument if @p d_model is not positive and even
inline void require_even_width(Eigen::Index d_model, const char* who) {
  if (d_model <= 0 || d_model % 2 != 0) {
    throw std::invalid_argument(std::string(who) + ": d_model is " + std::to_string(d_model) +
                                "; it must be positive and even (each sine needs its cosine)");
  }
}

/// @brief ω_i = 1 / 10000^(2i/d_model), the angle by which pair @p pair turns from one position to the next.
///
/// Pair 0 (dimensions 0 and 1) turns by exactly 1 radian per position; each
/// later pair turns 10000^(2/d_model) times more slowly than the one before.
/// The wavelength of pair i, 2π/ω_i, therefore runs in a geometric progression
/// from 2π upwards (§3.5 says "from 2π to 10000 · 2π"; the last pair,
/// i = d_model/2 − 1, stops one step short, at 10000^((d_model − 2)/d_model) · 2π).
///
/// @param pair i, from 0 to d_model/2 − 1
/// @param d_model the width of the encoding, positive and even
/// @return ω_i in radians per position
/// @throws std::invalid_argument if @p d_model is not positive and even, or @p pair is out of range
inline double angular_frequency(Eigen::Index pair, Eigen::Index d_model) {
  require_even_width(d_model, "angular_frequency");
  if (pair < 0 || 2 * pair >= d_model) {
    throw std::invalid_argument("angular_frequency: the pair must be from 0 to d_model/2 - 1");
  }
  // clang-format off
  // [angular_frequency]
  // pair is the formula's i; static_cast<double>(x) is Python's float(x)
  const auto two_i = static_cast<double>(2 * pair);
  const auto width = static_cast<double>(d_model);
  return 1.0 / std::pow(positional_encoding_base, two_i / width);
  // [angular_frequency]
  // clang-format on
}

/// @brief The encoding of @p positions consecutive positions, from @p first_position on: one row per position.
///
/// Row r holds PE(first_position + r): in columns 2i and 2i + 1 the sine and
/// the cosine of (first_position + r) · ω_i (see angular_frequency()). Each
/// entry depends only on its position and dimension, so a row is the same
/// number for number whichever table it is computed in. Row 0 of the default
/// table, PE(0), is (0, 1, 0, 1, …).
///
/// @param positions how many rows, ≥ 0
/// @param d_model the width, positive and even (the paper's base model: 512)
/// @param first_position the position of row 0, ≥ 0 (0 unless you need PE(pos + k) beyond a table)
/// @return a positions × d_model matrix
/// @throws std::invalid_argument if @p d_model is not positive and even, or a count is negative
inline Matrix positional_encoding(Eigen::Index positions, Eigen::Index d_model, Eigen::Index first_position = 0) {
  require_even_width(d_model, "positional_encoding");
  if (positions < 0 || first_position < 0) {
    throw std::invalid_argument("positional_encoding: positions are counted from 0 and cannot be negative");
  }
  const auto start = static_cast<double>(first_position);
  // clang-format off
  // [positional_encoding]
  Matrix encoding(positions, d_model);
  for (Eigen::Index row = 0; row < positions; ++row) {
    // start: the position of row 0, 0 unless asked otherwise
    const double pos = start + static_cast<double>(row);
    for (Eigen::Index i = 0; 2 * i < d_model; ++i) {
      const double omega = angular_frequency(i, d_model);
      encoding(row, 2 * i) = std::sin(pos * omega);
      encoding(row, 2 * i + 1) = std::cos(pos * omega);
    }
  }
  return encoding;
  // [positional_encoding]
  // clang-format on
}

/// @brief The input of the first layer: each row of @p embeddings plus the encoding of its position.
///
/// §3.5: "We add 'positional encodings' to the input embeddings at the
/// bottoms of the encoder and decoder stacks." Once, not at every layer: the
/// position travels up the stack inside the sum. Row r gets PE(r).
///
/// @param embeddings n × d_model, row r is the token at position r
/// @return embeddings + positional_encoding(n, d_model)
/// @throws std::invalid_argument if the width is not positive and even
inline Matrix add_positional_encoding(const Matrix& embeddings) {
  require_even_width(embeddings.cols(), "add_positional_encoding");
  // clang-format off
  // [add_positional_encoding]
  const Eigen::Index positions = embeddings.rows();
  const Eigen::Index d_model = embeddings.cols();
  return embeddings + positional_encoding(positions, d_model);
  // [add_positional_encoding]
  // clang-format on
}

/// @brief M_k: the d_model × d_model matrix with PE(pos + k) = PE(pos) · M_k for every position pos.
///
/// The map that §3.5 says exists ("for any fixed offset k, PE_{pos+k} can be
/// represented as a linear function of PE_pos"). It is block-diagonal: pair i
/// gets the 2 × 2 block [[cos kω_i, −sin kω_i], [sin kω_i, cos kω_i]] (rows
/// listed top to bottom) in rows and columns 2i, 2i + 1, and every other
/// entry is 0. In the book's
/// row convention PE(pos) is a row and multiplies the block from the left:
/// (sin a, cos a) · block = (sin a cos b + cos a sin b, −sin a sin b + cos a cos b)
/// = (sin(a + b), cos(a + b)) with a = pos·ω_i and b = k·ω_i. The transpose,
/// M_kᵀ = M_{−k}, shifts the other way, to PE(pos − k). M_k depends on k and
/// d_model only, never on pos; M_0 is the identity.
///
/// @param offset k, any whole number (negative shifts backwards)
/// @param d_model the width, positive and even
/// @return the d_model × d_model matrix M_k
/// @throws std::invalid_argument if @p d_model is not positive and even
inline Matrix shift_map(Eigen::Index offset, Eigen::Index d_model) {
  require_even_width(d_model, "shift_map");
  // clang-format off
  // [shift_map]
  Matrix map = Matrix::Zero(d_model, d_model);
  const auto k = static_cast<double>(offset);
  for (Eigen::Index i = 0; 2 * i < d_model; ++i) {
    const double turn = k * angular_frequency(i, d_model);
    const Eigen::Index sine = 2 * i, cosine = 2 * i + 1;
    map(sine, sine) = std::cos(turn);
    map(sine, cosine) = -std::sin(turn);
    map(cosine, sine) = std::sin(turn);
    map(cosine, cosine) = std::cos(turn);
  }
  return map;
  // [shift_map]
  // clang-format on
}

}  // namespace attention
