/// @file streaming_attention.hpp
/// @brief Attention without the n × m matrix: tiles of keys and an online softmax (Milakov and Gimelshein 2018; Dao et
/// al. 2022), in the form of FlashAttention-2 (Dao 2023).
///
/// scaled_dot_product_attention() keeps every intermediate matrix, as the
/// book's chapters show them. The functions here compute the same output
/// faster, one step at a time: reusing buffers, a vectorised exponential, and
/// finally streaming_attention(), which never holds more than one tile of
/// scores: memory O((n + m)·d), the output and packed K and V, instead of O(n·m) (Rabe and Staats 2021 showed first
/// that attention needs no n × m memory). Its loops are those of
/// FlashAttention-2 (Dao 2023, "FlashAttention-2: Faster Attention with Better
/// Parallelism and Work Partitioning"): the query tiles outside, shared among
/// threads; the keys inside; the output left undivided until the last tile.
/// Its products are tile_product()'s (tile_product.hpp).
///
/// Every function is written once for both number types, float and double
/// (the template parameter Scalar, which the arguments decide). Each gives the
/// teaching version's output to rounding (the tests hold them to a relative
/// difference below 1e-12 in double), and keeps its edge cases:
/// a masked score has weight exactly 0, a query whose keys are all masked (or
/// that has no key) gets a zero output row, and a score that is NaN or +∞ is
/// refused, as are queries and keys of width 0, whose scores are 0/√0. (The
/// streaming kernel's undivided output is a sum of values weighted by factors
/// of at most 1: where the magnitudes of a column of values add up past the
/// largest double (or float), it overflows where the teaching version does not;
/// chapter 12's program refuses such values.)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <Eigen/Dense>

#include "attention/matrix.hpp"
#include "attention/product_workspace.hpp"
#include "attention/tile_product.hpp"
#include "attention/worker_threads.hpp"

namespace attention {

/// @brief Which keys each query may see, in the fast kernels: every key, or those up to its own position (causal).
enum class KeyRange { all, causal };

/// @brief The matrices the buffered kernels write into, kept from call to call.
template <typename Scalar = double>
struct AttentionBuffers {
  RowMajorMatrixOf<Scalar> scores;  ///< n × m: scores, then weights, in place
  MatrixOf<Scalar> output;          ///< n × d_v
};

/// @brief e^x for every entry of a contiguous row, in a loop the compiler turns into vector instructions.
///
/// With @p scale and @p shift, e^(scale · x − shift) instead: the streaming
/// kernel's online softmax scales each raw score and subtracts the row's
/// maximum in the same pass (the multiplication and the subtraction may be
/// fused into one rounding). The defaults, 1 and 0, leave x as it is.
///
/// e^x = 2^k · e^r with k = round(x / ln 2) and r = x − k ln 2, |r| ≤ ln 2 / 2;
/// e^r by its Taylor series to r¹³ (the first term left out is at most about
/// 5.9e-18 of the result), 2^k written straight into the exponent bits. Every
/// entry takes the same steps, so GCC vectorises the loop at -O3 with
/// -fno-trapping-math (chapter 12's build): eight doubles at a time with
/// AVX-512, four with AVX2. Below −708 (just above where e^x stops being a normal
/// double, about −708.4) the result is 0; that includes −∞, so a masked score keeps its weight of
/// exactly 0. Arguments above 709 are clamped (softmax only ever passes x ≤ 0);
/// NaN stays NaN.
/// @param entries the first entry; replaced by its exponential
/// @param count how many entries
/// @param scale each entry is multiplied by this first
/// @param shift and this is subtracted
inline void exponential_in_place(double* entries, Eigen::Index count, double scale = 1.0, double shift = 0.0) {
  // clang-format off
  // [vectorised_exponential]
  constexpr double log2_e = 1.4426950408889634;
  constexpr double ln2_high = 6.93147180369123816490e-01;  // ln 2 split in two, so that
  constexpr double ln2_low = 1.90821492927058770002e-10;   // k · ln2_high is exact
  for (Eigen::Index i = 0; i < count; ++i) {
    const double argument = entries[i] * scale - shift;  // the entry itself, unless asked otherwise
    // Clamped; NaN lands on −708 too, so that the cast to an integer below is defined.
    const double x = argument > -708.0 ? std::min(argument, 709.0) : -708.0;
    const double k = std::nearbyint(x * log2_e);
    const double r = (x - k * ln2_high) - k * ln2_low;
    double series = 1.0 / 6227020800.0;  // 1/13!
    for (const double inverse_factorial :
         {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
          1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0}) {
      series = series * r + inverse_factorial;
    }
    // A double stores exponent k as k + 1023. The cast goes through a 32-bit integer:
    // AVX2 converts vectors of doubles to those, not to 64-bit integers.
    const auto biased_exponent = static_cast<std::uint64_t>(static_cast<std::int32_t>(k) + 1023);
    const std::uint64_t exponent_bits = biased_exponent << 52;
    double two_to_the_k;
    std::memcpy(&two_to_the_k, &exponent_bits, sizeof two_to_the_k);
    const bool is_nan = argument != argument;
    entries[i] = argument < -708.0 ? 0.0 : is_nan ? argument : series * two_to_the_k;
  }
  // [vectorised_exponential]
  // clang-format on
}

/// @brief e^x for every entry of a contiguous row of floats: the same method, with float's constants and fewer terms.
///
/// As the double version, e^x = 2^k · e^r with |r| ≤ ln 2 / 2, and e^r by its
/// Taylor series; only the number of terms is float's own. The first term
/// left out after r^n is at most (ln 2 / 2)^(n+1) / (n+1)!, against a result
/// e^r of at least e^(−ln 2 / 2) ≈ 0.71. For n = 6 that is about 1.7e-7 of the
/// result, more than float's half-spacing 2^-24 ≈ 6e-8; for n = 7 about 7e-9,
/// an eighth of it. So the series goes to r⁷: eight terms instead of double's
/// fourteen. Below −87, where e^x nears the smallest normal float
/// (e^−87.3), the result is 0, −∞ included; arguments above 88 are clamped
/// (2^127 is float's largest power of two); NaN stays NaN. With @p scale and
/// @p shift, e^(scale · x − shift), as the double version.
/// @param entries the first entry; replaced by its exponential
/// @param count how many entries
/// @param scale each entry is multiplied by this first
/// @param shift and this is subtracted
inline void exponential_in_place(float* entries, Eigen::Index count, float scale = 1.0f, float shift = 0.0f) {
  // clang-format off
  // [vectorised_exponential_float]
  constexpr float log2_e = 1.44269504f;
  constexpr float ln2_high = 0.693359375f;    // ln 2 split in two: ln2_high has 9 significant
  constexpr float ln2_low = -2.12194440e-4f;  // bits, so k · ln2_high is exact for |k| ≤ 2^15
  for (Eigen::Index i = 0; i < count; ++i) {
    const float argument = entries[i] * scale - shift;  // the entry itself, unless asked otherwise
    // Clamped; NaN lands on −87 too, so that the cast to an integer below is defined.
    const float x = argument > -87.0f ? std::min(argument, 88.0f) : -87.0f;
    const float k = std::nearbyint(x * log2_e);
    const float r = (x - k * ln2_high) - k * ln2_low;
    float series = 1.0f / 5040.0f;  // 1/7!
    for (const float inverse_factorial : {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f}) {
      series = series * r + inverse_factorial;
    }
    const auto biased_exponent = static_cast<std::uint32_t>(static_cast<std::int32_t>(k) + 127);
    const std::uint32_t exponent_bits = biased_exponent << 23;
    float two_to_the_k;
    std::memcpy(&two_to_the_k, &exponent_bits, sizeof two_to_the_k);
    const bool is_nan = argument != argument;
    entries[i] = argument < -87.0f ? 0.0f : is_nan ? argument : series * two_to_the_k;
  }
  // [vectorised_exponential_float]
  // clang-format on
}

/// @brief exponential_in_place() on a row of a row-major matrix (its entries lie next to each other), float or double.
/// @param row the row; each entry x replaced by e^(scale · x − shift)
/// @param scale each entry is multiplied by this first
/// @param shift and this is subtracted
template <typename Row>
void exponential_in_place(Row&& row, typename std::remove_reference_t<Row>::Scalar scale = 1,
                          typename std::remove_reference_t<Row>::Scalar shift = 0) {
  static_assert(std::remove_reference_t<Row>::IsRowMajor || std::remove_reference_t<Row>::RowsAtCompileTime == 1,
                "a row whose entries lie next to each other");
  exponential_in_place(row.data(), row.size(), scale, shift);
}

/// @cond INTERNAL
namespace detail {

template <typename Scalar>
void check_shapes(const MatrixOf<Scalar>& queries, const MatrixOf<Scalar>& keys, const MatrixOf<Scalar>& values,
                  KeyRange range) {
  if (keys.cols() != queries.cols())
    throw std::invalid_argument("attention: queries and keys must have the same width");
  if (values.rows() != keys.rows()) throw std::invalid_argument("attention: there must be one value per key");
  if (range == KeyRange::causal && queries.rows() != keys.rows()) {
    throw std::invalid_argument("attention: a causal mask needs one query per key");
  }
  // Width 0: every score is 0 · 1/√0, not a number, which the teaching version refuses too (softmax_rows()). The
  // streaming kernel's running maximum would pass over it and leave zero rows.
  if (queries.cols() == 0 && queries.rows() > 0 && keys.rows() > 0) {
    throw std::invalid_argument("attention: queries and keys of width 0 make every score 0/√0, not a number");
  }
}

template <typename Scores>
void refuse_nan_and_plus_infinity(const Eigen::MatrixBase<Scores>& scores) {
  // x − x is 0 unless x is ±∞ or NaN: one vectorised sum says that every score is finite (allFinite() took longer
  // than the exponentials).
  if ((scores.array() - scores.array()).sum() == 0) return;
  if ((scores.array() != scores.array()).any()) throw std::invalid_argument("attention: a score is NaN");
  if ((scores.array() == std::numeric_limits<typename Scores::Scalar>::infinity()).any()) {
    throw std::invalid_argument("attention: a score is +infinity");
  }
}

// destination = source, where one is stored row by row and the other column by column: 16 rows at a time, so
// that the lines of memory read and written while copying them stay in the first-level cache.
template <typename Source, typename Destination>
void copy_by_blocks_of_rows(const Source& source, Destination&& destination) {
  constexpr Eigen::Index block = 16;
  for (Eigen::Index first = 0; first < source.rows(); first += block) {
    const Eigen::Index rows = std::min(block, source.rows() - first);
    destination.middleRows(first, rows) = source.middleRows(first, rows);
  }
}

// Row i of a block whose first query is query `first` may see keys 0 … first + i.
template <typename Block>
void hide_later_keys(Block&& scores, Eigen::Index first_query, Eigen::Index first_key) {
  using Scalar = typename std::remove_reference_t<Block>::Scalar;
  const Scalar minus_infinity = -std::numeric_limits<Scalar>::infinity();
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const Eigen::Index last_visible = first_query + i - first_key;  // in the block's columns
    const Eigen::Index from = std::max<Eigen::Index>(0, last_visible + 1);
    if (from < scores.cols()) scores.row(i).tail(scores.cols() - from).setConstant(minus_infinity);
  }
}

}  // namespace detail
/// @endcond

/// @brief The teaching formula with its matrices kept in @p buffers between calls; its exponentials are std::exp one
/// entry at a time, or exponential_in_place() if @p vectorised_exponential.
///
/// The first step away from scaled_dot_product_attention(): the same
/// arithmetic, but the n × m scores are written into one row-major buffer and
/// turned into weights in place, and the products write straight into their
/// destination (Eigen's noalias()): no new n × m matrix per call. In float or
/// double, as the arguments are.
/// @param queries Q, n × d_k
/// @param keys K, m × d_k
/// @param values V, m × d_v
/// @param buffers reused from call to call; buffers.output holds the result
/// @param range every key, or the causal mask
/// @param vectorised_exponential false: std::exp entry by entry; true: exponential_in_place()
/// @throws std::invalid_argument if the shapes do not fit (queries and keys of width 0 among them), or a score is
/// NaN or +∞
template <typename Scalar>
void buffered_attention(const MatrixOf<Scalar>& queries, const MatrixOf<Scalar>& keys, const MatrixOf<Scalar>& values,
                        AttentionBuffers<Scalar>& buffers, KeyRange range = KeyRange::all,
                        bool vectorised_exponential = false) {
  detail::check_shapes(queries, keys, values, range);
  if (keys.rows() == 0) {  // no key to weigh: zero output rows, as softmax_rows() gives the teaching version
    buffers.output.setZero(queries.rows(), values.cols());
    return;
  }
  RowMajorMatrixOf<Scalar>& scores = buffers.scores;
  scores.resize(queries.rows(), keys.rows());
  // clang-format off
  // [buffered_attention]
  scores.noalias() = queries * keys.transpose();
  scores *= Scalar(1) / std::sqrt(static_cast<Scalar>(queries.cols()));
  detail::refuse_nan_and_plus_infinity(scores);
  if (range == KeyRange::causal) detail::hide_later_keys(scores, 0, 0);
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    auto row = scores.row(i);
    const Scalar largest = row.maxCoeff();
    if (largest == -std::numeric_limits<Scalar>::infinity()) {  // every key masked
      row.setZero();
      continue;
    }
    row.array() -= largest;
    if (vectorised_exponential) {
      exponential_in_place(row);
    } else {
      for (Scalar& score : row) score = std::exp(score);
    }
    row /= row.sum();
  }
  buffers.output.noalias() = scores * values;
  // [buffered_attention]
  // clang-format on
}

/// @brief What streaming_attention() holds after folding in one tile of keys, for a StreamingObserver.
///
/// The rows are the queries of one query tile, the columns the keys of one
/// key tile. The running values are those after the tile; rescale says by how
/// much the tile shrank what had been summed before it. In double whatever the
/// kernel's number type (a float converts to a double exactly).
struct StreamingTileState {
  Eigen::Index first_query = 0;  ///< the tile's first query (counted from 0)
  Eigen::Index first_key = 0;    ///< the tile's first key (counted from 0)
  RowMajorMatrix scores;         ///< the tile's scores, scaled, −∞ where masked
  RowMajorMatrix exponentials;   ///< e^(s − M) for each score s, with M the new running maximum; 0 where masked
  Eigen::VectorXd rescale;       ///< per query, e^(M_before − M): 1 when the maximum did not move,
                                 ///< 0 at the first key seen
  Eigen::VectorXd maximum;       ///< per query, the running maximum M after the tile
  Eigen::VectorXd sum;           ///< per query, the running sum L of e^(s − M) after the tile
  Matrix output;                 ///< per query, the running output O, the sum of e^(s − M)·v, not yet divided by L
};

/// @brief Called by streaming_attention() after each tile of keys it visits, in order (one thread only).
using StreamingObserver = std::function<void(const StreamingTileState&)>;

/// @brief How streaming_attention() cuts the work.
struct StreamingOptions {
  Eigen::Index query_tile = 64;    ///< queries per tile (rows of a score tile)
  Eigen::Index key_tile = 128;     ///< keys per tile (columns of a score tile)
  KeyRange range = KeyRange::all;  ///< every key, or the causal mask
  unsigned threads = 1;            ///< threads sharing the query tiles: the calling one and threads − 1 helpers
                                   ///< (run_shares())
  /// The tiles' products by tile_product(), on keys and values packed once
  /// (true), or by Eigen's general product (false).
  bool packed_products = true;
  /// If set, shown the state after every visited tile (a trace for the book's
  /// figure); needs threads = 1, and costs a copy of each tile.
  StreamingObserver observer;
  /// The register block of tile_product(); empty: build_product_shape() for the kernel's number type.
  std::optional<ProductShape> product;
};

/// @brief What streaming_attention() keeps from call to call: the keys and values, packed for tile_product().
///
/// Packing writes a copy of the keys and the values. Into memory already
/// held, that is cheap. Into memory freshly taken from the system, whose
/// pages are each touched for the first time, it cost more than the packing
/// itself on the machine this book is built on. So a caller that attends many
/// times keeps one of these, as it keeps the buffered kernels'
/// AttentionBuffers.
template <typename Scalar = double>
struct StreamingBuffers {
  std::vector<PackedColumns<Scalar>> keys;    ///< per key tile: its keys, transposed (d_k × tile), packed
  std::vector<PackedColumns<Scalar>> values;  ///< per key tile: its values (tile × d_v), packed
};

/// @brief Packs each tile of keys (transposed, d_k × tile) and of values (tile × d_v) for tile_product().
/// @param keys K, m × d_k
/// @param values V, m × d_v
/// @param key_tile keys per tile, at least 1 (not checked here: streaming_attention() checks it)
/// @param buffers replaced by the packed tiles, in order; the memory they already hold is reused
/// @param shape the register block tile_product() will use
/// @throws std::invalid_argument if @p shape has fewer than 1 row or column (from pack_columns())
template <typename Scalar>
void pack_key_tiles(const MatrixOf<Scalar>& keys, const MatrixOf<Scalar>& values, Eigen::Index key_tile,
                    StreamingBuffers<Scalar>& buffers, ProductShape shape = build_product_shape<Scalar>()) {
  const Eigen::Index m = keys.rows(), tiles = (m + key_tile - 1) / key_tile;
  buffers.keys.resize(static_cast<std::size_t>(tiles));
  buffers.values.resize(static_cast<std::size_t>(tiles));
  for (Eigen::Index tile = 0; tile < tiles; ++tile) {
    const Eigen::Index first = tile * key_tile, columns = std::min(key_tile, m - first);
    pack_columns(keys.middleRows(first, columns).transpose(), buffers.keys[static_cast<std::size_t>(tile)], shape);
    pack_columns(values.middleRows(first, columns), buffers.values[static_cast<std::size_t>(tile)], shape);
  }
}

/// @brief The extra memory streaming_attention() uses, in bytes, beyond its inputs and its output.
/// @param keys m, the number of keys
/// @param key_width d_k
/// @param value_width d_v
/// @param options the tiles, threads and products
/// @return per thread: one score tile, one output tile, a running maximum, sum and rescaling factor per query, and
/// (packed products) the tile's queries or (Eigen's products) the larger of the two tile products' workspaces
/// (product_workspace_bytes()); once: (packed products) the keys and values packed, a strip of columns at a time
/// (options.product's, or build_product_shape()'s), the last strip of each tile padded; numbers of type @p Scalar
template <typename Scalar = double>
std::size_t streaming_extra_bytes(Eigen::Index keys, Eigen::Index key_width, Eigen::Index value_width,
                                  const StreamingOptions& options) {
  const Eigen::Index strip = options.product.value_or(build_product_shape<Scalar>()).strip_columns;
  const Eigen::Index tile = options.query_tile;
  Eigen::Index per_thread = tile * options.key_tile + tile * value_width + 3 * tile;
  Eigen::Index packed = 0;
  if (!options.packed_products) {  // both results are row-major tiles: Eigen computes their transposes
    const std::size_t scores = product_workspace_bytes<Scalar>(options.key_tile, key_width, tile);
    const std::size_t output = product_workspace_bytes<Scalar>(value_width, options.key_tile, tile);
    per_thread += static_cast<Eigen::Index>(std::max(scores, output) / sizeof(Scalar));
  }
  if (options.packed_products) {
    per_thread += tile * key_width;
    for (Eigen::Index first = 0; first < keys; first += options.key_tile) {
      const Eigen::Index columns = std::min(options.key_tile, keys - first);
      packed += packed_size(key_width, columns, strip) + packed_size(columns, value_width, strip);  // Kᵀ and V
    }
  }
  return static_cast<std::size_t>(per_thread * std::max(1u, options.threads) + packed) * sizeof(Scalar);
}

/// @brief softmax(QKᵀ/√d_k)V by tiles of keys, with an online softmax: no n × m matrix.
///
/// For a tile of queries, the keys are visited tile by tile. Each query keeps
/// a running maximum M of its scores so far, a running sum L of e^(s − M),
/// and a running output O, the sum of e^(s − M)·v so far. When a new tile
/// raises the maximum from M to M', what was summed so far is rescaled by
/// e^(M − M'), so that every term is always e^(s − current maximum), as
/// softmax_rows() computes it. After the last tile, O / L is the output row.
///
/// With the causal mask, a key tile that lies wholly after every query of a
/// query tile is not visited at all: about half the tiles.
///
/// The tiles' products are tile_product()'s, on keys and values packed once
/// into @p buffers (or Eigen's, with StreamingOptions::packed_products false).
/// In float or double, as the arguments are.
/// @param queries Q, n × d_k
/// @param keys K, m × d_k
/// @param values V, m × d_v
/// @param options tile sizes, the key range, the number of threads and the products
/// @param buffers the packed keys and values, overwritten; kept by a caller that attends many times
/// @return the output, n × d_v
/// @throws std::invalid_argument if the shapes do not fit (queries and keys of width 0 among them), a tile size
/// is below 1, options.product has fewer than 1 row or column (packed products), a score is NaN or +∞, or an
/// observer is given with more than one thread
template <typename Scalar>
MatrixOf<Scalar> streaming_attention(const MatrixOf<Scalar>& queries, const MatrixOf<Scalar>& keys,
                                     const MatrixOf<Scalar>& values, const StreamingOptions& options,
                                     StreamingBuffers<Scalar>& buffers) {
  detail::check_shapes(queries, keys, values, options.range);
  if (options.query_tile < 1 || options.key_tile < 1)
    throw std::invalid_argument("streaming_attention: tiles of at least 1");
  if (options.observer && options.threads > 1) {
    throw std::invalid_argument("streaming_attention: an observer needs one thread");
  }
  const Eigen::Index n = queries.rows(), m = keys.rows(), value_width = values.cols();
  const Scalar scale = Scalar(1) / std::sqrt(static_cast<Scalar>(queries.cols()));
  const Scalar minus_infinity = -std::numeric_limits<Scalar>::infinity();
  const Eigen::Index query_tiles = (n + options.query_tile - 1) / options.query_tile;
  MatrixOf<Scalar> output(n, value_width);
  using RowMajor = RowMajorMatrixOf<Scalar>;
  using PerQuery = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

  const ProductShape shape = options.product.value_or(build_product_shape<Scalar>());
  if (options.packed_products) pack_key_tiles(keys, values, options.key_tile, buffers, shape);
  const std::vector<PackedColumns<Scalar>>& packed_keys = buffers.keys;
  const std::vector<PackedColumns<Scalar>>& packed_values = buffers.values;

  // Share s of T: query tiles s, s + T, s + 2T, … (every thread gets early and
  // late tiles, so the causal mask's uneven work is shared).
  const unsigned threads = std::max(1u, options.threads);
  const auto work = [&](unsigned share) {
    // Zero at first: under the causal mask a product may leave entries it skips as they were (KeysUpTo), and what
    // they hold must be a number until the mask overwrites it.
    RowMajor scores = RowMajor::Zero(options.query_tile, options.key_tile);
    RowMajor running_output(options.query_tile, value_width);
    RowMajor query_rows(options.packed_products ? options.query_tile : 0, queries.cols());
    PerQuery running_maximum(options.query_tile), running_sum(options.query_tile);
    PerQuery rescales(options.query_tile);
    StreamingTileState observed;  // filled only for an observer, in double
    const auto report = [&](Eigen::Index q0, Eigen::Index k0, const auto& exponentials, Eigen::Index rows) {
      observed.first_query = q0;
      observed.first_key = k0;
      observed.exponentials = exponentials.template cast<double>();
      observed.rescale = rescales.head(rows).template cast<double>();
      observed.maximum = running_maximum.head(rows).template cast<double>();
      observed.sum = running_sum.head(rows).template cast<double>();
      observed.output = running_output.topRows(rows).template cast<double>();
      options.observer(observed);
    };
    for (Eigen::Index tile = share; tile < query_tiles; tile += threads) {
      const Eigen::Index q0 = tile * options.query_tile, rows = std::min(options.query_tile, n - q0);
      running_output.topRows(rows).setZero();
      running_maximum.head(rows).setConstant(minus_infinity);
      running_sum.head(rows).setZero();
      if (options.packed_products)
        detail::copy_by_blocks_of_rows(queries.middleRows(q0, rows), query_rows.topRows(rows));
      // clang-format off
      // [streaming_attention]
      for (Eigen::Index k0 = 0; k0 < m; k0 += options.key_tile) {
        if (options.range == KeyRange::causal && k0 > q0 + rows - 1) break;  // every key after every query
        const Eigen::Index columns = std::min(options.key_tile, m - k0);
        const auto key_tile = static_cast<std::size_t>(k0 / options.key_tile);
        auto tile_scores = scores.topLeftCorner(rows, columns);
        // Under the causal mask query q0 + i sees keys up to q0 + i: in the tile, up to key i + q0 − k0.
        KeysUpTo keys_seen;  // by default every key
        if (options.range == KeyRange::causal) keys_seen.offset = q0 - k0;
        if (options.packed_products) {
          auto tile_queries = query_rows.topRows(rows);
          tile_product<Scalar>(tile_queries, packed_keys[key_tile], tile_scores, false, keys_seen);
        } else {
          tile_scores.noalias() = queries.middleRows(q0, rows) * keys.middleRows(k0, columns).transpose();
        }
        detail::refuse_nan_and_plus_infinity(tile_scores);
        if (options.range == KeyRange::causal) detail::hide_later_keys(tile_scores, q0, k0);
        if (options.observer) observed.scores = (tile_scores * scale).template cast<double>();
        // [online_softmax]
        for (Eigen::Index i = 0; i < rows; ++i) {  // the tile holds q·k; a score s is scale · q·k
          const Scalar maximum = std::max(running_maximum(i), tile_scores.row(i).maxCoeff() * scale);
          if (maximum == minus_infinity) {  // no key seen so far: nothing to add
            tile_scores.row(i).setZero();
            rescales(i) = Scalar(1);
            continue;
          }
          // e^(M − M'): 0 if M = −∞, exactly 1 if the maximum did not move
          const Scalar before = running_maximum(i);
          const Scalar rescale = maximum == before ? Scalar(1) : std::exp(before - maximum);
          exponential_in_place(tile_scores.row(i), scale, maximum);  // e^(s − M'), in one pass
          running_sum(i) = running_sum(i) * rescale + tile_scores.row(i).sum();
          if (rescale != Scalar(1)) running_output.row(i) *= rescale;
          running_maximum(i) = maximum;
          rescales(i) = rescale;
        }
        if (options.packed_products) {
          const KeysUpTo keys_along_the_sum{keys_seen.offset, false};  // the keys are now the inner dimension
          tile_product<Scalar>(tile_scores, packed_values[key_tile], running_output.topRows(rows), true,
                               keys_along_the_sum);
        } else {
          running_output.topRows(rows).noalias() += tile_scores * values.middleRows(k0, columns);
        }
        // [online_softmax]
        if (options.observer) report(q0, k0, tile_scores, rows);
      }
      for (Eigen::Index i = 0; i < rows; ++i) {  // O / L; a fully masked query keeps its zero row
        if (running_sum(i) > 0) {
          running_output.row(i) /= running_sum(i);
        } else {
          running_output.row(i).setZero();
        }
      }
      detail::copy_by_blocks_of_rows(running_output.topRows(rows), output.middleRows(q0, rows));
      // [streaming_attention]
      // clang-format on
    }
  };
  run_shares(threads, work);
  return output;
}

/// @brief streaming_attention() with buffers of its own, given back when it returns.
/// @param queries Q, n × d_k
/// @param keys K, m × d_k
/// @param values V, m × d_v
/// @param options tile sizes, the key range, the number of threads and the products
/// @return the output, n × d_v
/// @throws std::invalid_argument as the version with buffers
template <typename Scalar>
MatrixOf<Scalar> streaming_attention(const MatrixOf<Scalar>& queries, const MatrixOf<Scalar>& keys,
                                     const MatrixOf<Scalar>& values, const StreamingOptions& options = {}) {
  StreamingBuffers<Scalar> buffers;
  return streaming_attention(queries, keys, values, options, buffers);
}

}  // namespace attention
