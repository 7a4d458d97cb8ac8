/// @file tile_product.hpp
/// @brief The streaming kernel's products, written for its tiles: the right operand packed once, eight rows by
/// sixteen columns of the result held in vector registers while the sum runs.
///
/// Eigen's general product takes any shapes. Each call copies both operands
/// into its own layout, chooses blocks and then runs its register kernel. The
/// streaming kernel makes two small products per tile, thousands of calls, and
/// with Eigen's product each call paid that preparation again (chapter 12
/// times both). tile_product() keeps
/// only the last part. The right operand is packed once, before the tiles:
/// strips of sixteen columns, each strip row after row, so that the kernel
/// reads it in order. The left operand is read where it lies, row by row.
///
/// The sum is the textbook one, term after term along the inner dimension.
/// Where the build may use a fused multiply-add (the book's, with
/// -march=native), each term is one; elsewhere a multiply and an add. Either
/// way the result equals Eigen's product to rounding, not bit for bit: Eigen
/// adds the same terms in another grouping.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include <Eigen/Core>

namespace attention {

/// @brief A matrix stored row by row: one query's scores lie next to each other in memory.
using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// @brief Rows of the result that tile_product() computes together.
inline constexpr Eigen::Index product_block_rows = 8;
/// @brief Columns of the result that tile_product() computes together: one strip of the packed right operand.
inline constexpr Eigen::Index product_strip_columns = 16;

/// @brief The right operand of tile_product(), packed by pack_columns().
struct PackedColumns {
  Eigen::Index rows = 0;     ///< rows of the operand: the product's inner dimension
  Eigen::Index columns = 0;  ///< columns of the operand
  /// Strip after strip of product_strip_columns columns; in a strip, row after
  /// row; the last strip padded with zeros.
  std::vector<double> entries;
};

/// @brief How many numbers pack_columns() writes for a rows × columns operand: its columns padded to whole strips.
/// @param rows rows of the operand
/// @param columns columns of the operand
/// @return rows times the columns rounded up to a multiple of product_strip_columns
inline Eigen::Index packed_size(Eigen::Index rows, Eigen::Index columns) {
  return rows * ((columns + product_strip_columns - 1) / product_strip_columns * product_strip_columns);
}

/// @brief Packs a matrix (or any Eigen expression) as tile_product() reads its right operand.
/// @param operand rows × columns; read in the order of its storage
/// @param packed replaced by the packed copy
template <typename Operand>
void pack_columns(const Eigen::MatrixBase<Operand>& operand, PackedColumns& packed) {
  constexpr Eigen::Index width = product_strip_columns;
  packed.rows = operand.rows();
  packed.columns = operand.cols();
  const Eigen::Index strips = (packed.columns + width - 1) / width;
  packed.entries.assign(static_cast<std::size_t>(packed_size(packed.rows, packed.columns)), 0.0);
  for (Eigen::Index strip = 0; strip < strips; ++strip) {
    double* const first = packed.entries.data() + strip * packed.rows * width;
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

using Packet = Eigen::internal::packet_traits<double>::type;
inline constexpr Eigen::Index packet_size = Eigen::internal::packet_traits<double>::size;
static_assert(product_strip_columns % packet_size == 0, "a strip is a whole number of packets");

// [register_block]
// A block of product_block_rows × product_strip_columns (8 × 16) entries of
// the result, summed in registers: for each term k, one row of the strip (16
// numbers, a few packets) is loaded, and each of the 8 left entries is
// broadcast and multiplied into it. With AVX-512's eight doubles a packet, the
// 8 × 16 sums take 16 of its 32 vector registers.
template <bool Accumulate>
void register_block(Eigen::Index depth, const double* left, Eigen::Index left_stride,
                    const double* strip, double* out, Eigen::Index out_stride) {
  using namespace Eigen::internal;
  constexpr Eigen::Index rows = product_block_rows, columns = product_strip_columns;
  constexpr Eigen::Index packets = columns / packet_size;
  Packet sums[rows][packets];
  for (Eigen::Index row = 0; row < rows; ++row) {
    for (Eigen::Index p = 0; p < packets; ++p) {
      double* const first = out + row * out_stride + p * packet_size;
      sums[row][p] = Accumulate ? ploadu<Packet>(first) : pset1<Packet>(0.0);
    }
  }
  for (Eigen::Index k = 0; k < depth; ++k) {
    Packet right[packets];
    for (Eigen::Index p = 0; p < packets; ++p) {
      right[p] = ploadu<Packet>(strip + k * columns + p * packet_size);
    }
    for (Eigen::Index row = 0; row < rows; ++row) {
      const Packet entry = pset1<Packet>(left[row * left_stride + k]);
      for (Eigen::Index p = 0; p < packets; ++p) {
        sums[row][p] = pmadd(entry, right[p], sums[row][p]);
      }
    }
  }
  for (Eigen::Index row = 0; row < rows; ++row) {
    for (Eigen::Index p = 0; p < packets; ++p) {
      pstoreu(out + row * out_stride + p * packet_size, sums[row][p]);
    }
  }
}
// [register_block]

// The blocks at the bottom and right edges, fewer rows or columns: one entry at a time.
template <bool Accumulate>
void edge_block(Eigen::Index depth, const double* left, Eigen::Index left_stride, const double* strip, double* out,
                Eigen::Index out_stride, Eigen::Index rows, Eigen::Index columns) {
  for (Eigen::Index row = 0; row < rows; ++row) {
    for (Eigen::Index column = 0; column < columns; ++column) {
      double sum = Accumulate ? out[row * out_stride + column] : 0.0;
      for (Eigen::Index k = 0; k < depth; ++k) sum += left[row * left_stride + k] * strip[k * product_strip_columns + column];
      out[row * out_stride + column] = sum;
    }
  }
}

template <bool Accumulate>
void blocks(const Eigen::Ref<const RowMajorMatrix, 0, Eigen::OuterStride<>>& left, const PackedColumns& right,
            Eigen::Ref<RowMajorMatrix, 0, Eigen::OuterStride<>> out) {
  const Eigen::Index depth = right.rows;
  for (Eigen::Index row = 0; row < left.rows(); row += product_block_rows) {
    const Eigen::Index rows = std::min(product_block_rows, left.rows() - row);
    for (Eigen::Index column = 0; column < right.columns; column += product_strip_columns) {
      const Eigen::Index columns = std::min(product_strip_columns, right.columns - column);
      const double* strip = right.entries.data() + column * depth;  // strip column / 16, each depth × 16
      const double* left_rows = left.data() + row * left.outerStride();
      double* out_block = out.data() + row * out.outerStride() + column;
      if (rows == product_block_rows && columns == product_strip_columns) {
        register_block<Accumulate>(depth, left_rows, left.outerStride(), strip, out_block, out.outerStride());
      } else {
        edge_block<Accumulate>(depth, left_rows, left.outerStride(), strip, out_block, out.outerStride(), rows, columns);
      }
    }
  }
}

}  // namespace detail
/// @endcond

/// @brief out = left · right, or out += left · right: a row-major tile times a packed operand.
/// @param left rows × k, stored row by row (a block of a row-major matrix will do)
/// @param right k × columns, packed by pack_columns()
/// @param out rows × columns, stored row by row; overwritten, or added to
/// @param accumulate false: out = left · right; true: out += left · right
/// @throws std::invalid_argument if the shapes do not fit
inline void tile_product(const Eigen::Ref<const RowMajorMatrix, 0, Eigen::OuterStride<>>& left,
                         const PackedColumns& right, Eigen::Ref<RowMajorMatrix, 0, Eigen::OuterStride<>> out,
                         bool accumulate) {
  if (left.cols() != right.rows || out.rows() != left.rows() || out.cols() != right.columns) {
    throw std::invalid_argument("tile_product: the shapes do not fit");
  }
  if (accumulate) {
    detail::blocks<true>(left, right, out);
  } else {
    detail::blocks<false>(left, right, out);
  }
}

}  // namespace attention
