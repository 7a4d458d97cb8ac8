/// @file tile_product.hpp
/// @brief The streaming kernel's products, written for its tiles: the right operand packed once, a block of rows
/// by columns of the result (eight by sixteen doubles with AVX-512) held in vector registers while the sum runs.
///
/// Eigen's general product takes any shapes. Each call copies both operands
/// into its own layout, chooses blocks and then runs its register kernel. The
/// streaming kernel makes two small products per tile, thousands of calls, and
/// with Eigen's product each call paid that preparation again (chapter 12
/// times both). tile_product() keeps
/// only the last part. The right operand is packed once, before the tiles:
/// strips of columns (two vector registers wide: sixteen doubles or thirty-two
/// floats with AVX-512), each strip row after row, so that the kernel reads it
/// in order. The left operand is read where it lies, row by row.
///
/// Everything here is written once for both number types, float and double
/// (the template parameter Scalar): the vector registers hold twice as many
/// floats, so a strip of floats has twice the columns.
///
/// The sum is the textbook one, term after term along the inner dimension.
/// Where the build may use a fused multiply-add (the book's, with
/// -march=native), each term is one; elsewhere a multiply and an add. Either
/// way the result equals Eigen's product to rounding, not bit for bit: Eigen
/// adds the same terms in another grouping.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

namespace attention {

/// @brief A matrix stored row by row, entries of type @p Scalar: one query's scores lie next to each other in memory.
template <typename Scalar>
using RowMajorMatrixOf = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// @brief A RowMajorMatrixOf doubles.
using RowMajorMatrix = RowMajorMatrixOf<double>;

/// @brief How many numbers of type @p Scalar one of this build's vector registers holds (Eigen's packet): eight
/// doubles or sixteen floats with AVX-512, four doubles with AVX2, one where the build has no vectors.
template <typename Scalar>
inline constexpr Eigen::Index vector_lanes = Eigen::internal::packet_traits<Scalar>::size;

/// @brief The shape of tile_product()'s register block: the rows of the result it sums together, and the columns of
/// one strip of the packed right operand.
struct ProductShape {
  Eigen::Index block_rows = 8;      ///< rows of the result summed together, each in its own vector registers
  Eigen::Index strip_columns = 16;  ///< columns of a strip: a whole number of vector registers
};

/// @brief The register block for a processor whose vector registers are @p vector_bytes wide, for numbers of
/// @p scalar_bytes: a strip two registers wide, and as many rows as fill half the vector registers with sums.
///
/// x86-64 has 32 vector registers with AVX-512 (64-byte vectors) and 16
/// without. Half of them hold the block's sums, two per row; the rest hold the
/// strip's row and the broadcast left entry. So 8 rows with AVX-512, 4
/// otherwise; 16 columns of doubles or 32 of floats with AVX-512, 8 or 16 with
/// AVX2. (For this build's vector width, every shape this gives is one
/// tile_product() is compiled for; for another width it may not be, and then
/// it falls back to edge blocks.)
/// @param vector_bytes the width of a vector register, in bytes (at least @p scalar_bytes)
/// @param scalar_bytes the size of one number: 4 for float, 8 for double
/// @return the block's rows and its strip's columns
constexpr ProductShape product_shape_for(Eigen::Index vector_bytes, Eigen::Index scalar_bytes) {
  const Eigen::Index lanes = std::max<Eigen::Index>(1, vector_bytes / scalar_bytes);
  const Eigen::Index registers = vector_bytes >= 64 ? 32 : 16;
  const Eigen::Index packets_per_row = 2;
  return {registers / 2 / packets_per_row, packets_per_row * lanes};
}

/// @brief The register block product_shape_for() gives for this build's vectors and @p Scalar.
template <typename Scalar>
constexpr ProductShape build_product_shape() {
  return product_shape_for(vector_lanes<Scalar> * static_cast<Eigen::Index>(sizeof(Scalar)),
                           static_cast<Eigen::Index>(sizeof(Scalar)));
}

/// @brief The right operand of tile_product(), packed by pack_columns().
template <typename Scalar = double>
struct PackedColumns {
  Eigen::Index rows = 0;     ///< rows of the operand: the product's inner dimension
  Eigen::Index columns = 0;  ///< columns of the operand
  ProductShape shape;        ///< the register block it was packed for
  /// Strip after strip of shape.strip_columns columns; in a strip, row after
  /// row; the last strip padded with zeros. Aligned as Eigen aligns its
  /// matrices (64 bytes with AVX-512), so that a row of a strip is whole
  /// vectors that never straddle two cache lines.
  std::vector<Scalar, Eigen::aligned_allocator<Scalar>> entries;
};

/// @brief The part of a tile product that a causal mask leaves: row r of the tile needs only keys 0 … r + offset.
///
/// In Q·Kᵀ the keys are the product's columns; in weights · V they are its
/// inner dimension. A register block whose last row cannot see a strip of
/// keys skips it: in Q·Kᵀ those scores are not computed (the entries keep
/// what they held, for the mask to overwrite), in weights · V the sum stops
/// at the block's last visible key (the weights after it are 0).
struct KeysUpTo {
  /// Row r needs keys 0 … r + offset (the tile's first query minus its first key); by default every key.
  Eigen::Index offset = std::numeric_limits<Eigen::Index>::max() / 2;
  bool keys_are_columns = true;  ///< true: the keys index the product's columns (Q·Kᵀ); false: its inner dimension
};

/// @brief How many numbers pack_columns() writes for a rows × columns operand: its columns padded to whole strips.
/// @param rows rows of the operand
/// @param columns columns of the operand
/// @param strip_columns columns of a strip
/// @return rows times the columns rounded up to a multiple of @p strip_columns
inline Eigen::Index packed_size(Eigen::Index rows, Eigen::Index columns, Eigen::Index strip_columns) {
  return rows * ((columns + strip_columns - 1) / strip_columns * strip_columns);
}

/// @brief Packs a matrix (or any Eigen expression) as tile_product() reads its right operand.
/// @param operand rows × columns; read in the order of its storage
/// @param packed replaced by the packed copy
/// @param shape the register block tile_product() will use (its strips' width)
/// @throws std::invalid_argument if the shape has fewer than 1 row or column
template <typename Operand>
void pack_columns(const Eigen::MatrixBase<Operand>& operand, PackedColumns<typename Operand::Scalar>& packed,
                  ProductShape shape = build_product_shape<typename Operand::Scalar>()) {
  if (shape.block_rows < 1 || shape.strip_columns < 1) {
    throw std::invalid_argument("pack_columns: a register block of at least 1 row and 1 column");
  }
  const Eigen::Index width = shape.strip_columns;
  packed.rows = operand.rows();
  packed.columns = operand.cols();
  packed.shape = shape;
  const Eigen::Index strips = (packed.columns + width - 1) / width;
  packed.entries.assign(static_cast<std::size_t>(packed_size(packed.rows, packed.columns, width)), 0);
  for (Eigen::Index strip = 0; strip < strips; ++strip) {
    auto* const first = packed.entries.data() + strip * packed.rows * width;
    const Eigen::Index columns = std::min(width, packed.columns - strip * width);
    // Along the operand's storage: a column-major operand column by column, a row-major one row by row.
    if constexpr (Operand::IsRowMajor) {
      for (Eigen::Index row = 0; row < packed.rows; ++row) {
        for (Eigen::Index column = 0; column < columns; ++column) {
          first[row * width + column] = operand(row, strip * width + column);
        }
      }
    } else {
      for (Eigen::Index column = 0; column < columns; ++column) {
        for (Eigen::Index row = 0; row < packed.rows; ++row) {
          first[row * width + column] = operand(row, strip * width + column);
        }
      }
    }
  }
}

/// @cond INTERNAL
namespace detail {

template <typename Scalar>
using TileRef = Eigen::Ref<RowMajorMatrixOf<Scalar>, 0, Eigen::OuterStride<>>;
template <typename Scalar>
using ConstTileRef = Eigen::Ref<const RowMajorMatrixOf<Scalar>, 0, Eigen::OuterStride<>>;

// clang-format off
// [register_block]
// A block of Rows × (Packets packets) entries of the result, summed in
// registers: for each term k, one row of the strip (Packets packets) is
// loaded, and each of the Rows left entries is broadcast and multiplied into
// it. With AVX-512 (8 rows, 2 packets: 16 doubles or 32 floats), the 8 × 2
// sums take 16 of its 32 vector registers.
template <typename Scalar, int Rows, int Packets, bool Accumulate>
void register_block(Eigen::Index depth, const Scalar* left, Eigen::Index left_stride, const Scalar* strip,
                    Scalar* out, Eigen::Index out_stride) {
  using namespace Eigen::internal;
  using Packet = typename packet_traits<Scalar>::type;
  constexpr Eigen::Index lanes = packet_traits<Scalar>::size, columns = Packets * lanes;
  Packet sums[Rows][Packets];
  for (int row = 0; row < Rows; ++row) {
    for (int p = 0; p < Packets; ++p) {
      Scalar* const first = out + row * out_stride + p * lanes;
      sums[row][p] = Accumulate ? ploadu<Packet>(first) : pset1<Packet>(Scalar(0));
    }
  }
  for (Eigen::Index k = 0; k < depth; ++k) {
    Packet right[Packets];
    for (int p = 0; p < Packets; ++p) right[p] = ploadu<Packet>(strip + k * columns + p * lanes);
    for (int row = 0; row < Rows; ++row) {
      const Packet entry = pset1<Packet>(left[row * left_stride + k]);
      for (int p = 0; p < Packets; ++p) sums[row][p] = pmadd(entry, right[p], sums[row][p]);
    }
  }
  for (int row = 0; row < Rows; ++row) {
    for (int p = 0; p < Packets; ++p) pstoreu(out + row * out_stride + p * lanes, sums[row][p]);
  }
}
// [register_block]
// clang-format on

// The blocks at the bottom and right edges, fewer rows or columns (and every block of a shape no register block
// is compiled for): one entry at a time.
template <typename Scalar, bool Accumulate>
void edge_block(Eigen::Index depth, const Scalar* left, Eigen::Index left_stride, const Scalar* strip,
                Eigen::Index strip_columns, Scalar* out, Eigen::Index out_stride, Eigen::Index rows,
                Eigen::Index columns) {
  for (Eigen::Index row = 0; row < rows; ++row) {
    for (Eigen::Index column = 0; column < columns; ++column) {
      Scalar sum = Accumulate ? out[row * out_stride + column] : Scalar(0);
      for (Eigen::Index k = 0; k < depth; ++k) sum += left[row * left_stride + k] * strip[k * strip_columns + column];
      out[row * out_stride + column] = sum;
    }
  }
}

template <typename Scalar>
using RegisterBlock = void (*)(Eigen::Index, const Scalar*, Eigen::Index, const Scalar*, Scalar*, Eigen::Index);

// The register blocks compiled: 4 or 8 rows, strips of 1 or 2 packets (product_shape_for() gives 4 or 8 rows of 2).
// Empty for any other shape.
template <typename Scalar, bool Accumulate>
RegisterBlock<Scalar> register_block_for(ProductShape shape) {
  const Eigen::Index lanes = vector_lanes<Scalar>;
  const bool four = shape.block_rows == 4, eight = shape.block_rows == 8;
  if (shape.strip_columns == lanes) {
    if (four) return register_block<Scalar, 4, 1, Accumulate>;
    if (eight) return register_block<Scalar, 8, 1, Accumulate>;
  } else if (shape.strip_columns == 2 * lanes) {
    if (four) return register_block<Scalar, 4, 2, Accumulate>;
    if (eight) return register_block<Scalar, 8, 2, Accumulate>;
  }
  return nullptr;
}

template <typename Scalar, bool Accumulate>
void blocks(const ConstTileRef<Scalar>& left, const PackedColumns<Scalar>& right, TileRef<Scalar> out, KeysUpTo keys) {
  const Eigen::Index block_rows = right.shape.block_rows, strip_columns = right.shape.strip_columns;
  const RegisterBlock<Scalar> block = register_block_for<Scalar, Accumulate>(right.shape);
  for (Eigen::Index row = 0; row < left.rows(); row += block_rows) {
    const Eigen::Index rows = std::min(block_rows, left.rows() - row);
    const Eigen::Index last_key = row + rows - 1 + keys.offset;  // the last key the block's last row sees
    const Eigen::Index depth =
        keys.keys_are_columns ? right.rows : std::clamp<Eigen::Index>(last_key + 1, 0, right.rows);
    const Eigen::Index end = keys.keys_are_columns ? std::min(right.columns, last_key + 1) : right.columns;
    if (Accumulate && depth == 0) continue;  // no key to add
    for (Eigen::Index column = 0; column < end; column += strip_columns) {
      const Eigen::Index columns = std::min(strip_columns, right.columns - column);
      // strip column / strip_columns, each rows × strip
      const Scalar* strip = right.entries.data() + column * right.rows;
      const Scalar* left_rows = left.data() + row * left.outerStride();
      Scalar* out_block = out.data() + row * out.outerStride() + column;
      if (block != nullptr && rows == block_rows && columns == strip_columns) {
        block(depth, left_rows, left.outerStride(), strip, out_block, out.outerStride());
      } else {
        edge_block<Scalar, Accumulate>(depth, left_rows, left.outerStride(), strip, strip_columns, out_block,
                                       out.outerStride(), rows, columns);
      }
    }
  }
}

}  // namespace detail
/// @endcond

/// @brief out = left · right, or out += left · right: a row-major tile times a packed operand, in float or double.
/// @param left rows × k, stored row by row (a block of a row-major matrix will do)
/// @param right k × columns, packed by pack_columns()
/// @param out rows × columns, stored row by row; overwritten, or added to
/// @param accumulate false: out = left · right; true: out += left · right
/// @param keys under a causal mask, the keys each row needs (the rest skipped, a register block at a time); by
/// default all
/// @throws std::invalid_argument if the shapes do not fit
template <typename Scalar>
void tile_product(const std::type_identity_t<detail::ConstTileRef<Scalar>>& left, const PackedColumns<Scalar>& right,
                  std::type_identity_t<detail::TileRef<Scalar>> out, bool accumulate, KeysUpTo keys = {}) {
  if (left.cols() != right.rows || out.rows() != left.rows() || out.cols() != right.columns) {
    throw std::invalid_argument("tile_product: the shapes do not fit");
  }
  if (accumulate) {
    detail::blocks<Scalar, true>(left, right, out, keys);
  } else {
    detail::blocks<Scalar, false>(left, right, out, keys);
  }
}

}  // namespace attention
