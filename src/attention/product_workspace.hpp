/// @file product_workspace.hpp
/// @brief The memory Eigen's general matrix product takes while it runs, besides its operands and its result.
///
/// Eigen multiplies large matrices a block at a time: it copies a block of
/// the left operand and a panel of the right one into buffers laid out for
/// its inner loop ("packing"). The block sizes come from the product's shape
/// and the cache sizes Eigen finds on the machine. A buffer of at most
/// EIGEN_STACK_ALLOCATION_LIMIT bytes (128 KiB) is taken on the stack; a
/// larger one from the heap, for the length of the product. A kernel's extra
/// memory must count the heap ones: at n = 2048 keys, d = 64, the product of
/// the weights by the values takes about 11 MiB of them.
#pragma once

#include <cstddef>

#include <Eigen/Core>

namespace attention {

/// @brief The bytes Eigen's product of a rows × depth matrix by a depth × columns matrix takes from the heap while
/// it runs (its packing buffers), for a column-major result. For a row-major result Eigen computes the transposed
/// product: pass columns for @p rows and rows for @p columns.
///
/// Eigen's own rule, applied to the shape: computeProductBlockingSizes() gives the block sizes k_c, m_c and n_c on
/// this machine, the left block holds k_c · m_c numbers and the right panel k_c · n_c, and a buffer counts if it is
/// larger than EIGEN_STACK_ALLOCATION_LIMIT. A product so small that Eigen computes it coefficient by coefficient
/// takes nothing, nor does a product with one row or one column (Eigen's matrix-vector product packs nothing).
/// One thread: Eigen's own threads are not enabled in this book.
/// @tparam Scalar the operands' number type
template <typename Scalar = double>
std::size_t product_workspace_bytes(Eigen::Index rows, Eigen::Index depth, Eigen::Index columns) {
  if (rows <= 1 || depth < 1 || columns <= 1 || rows + depth + columns < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD) {
    return 0;
  }
  Eigen::Index block_depth = depth, block_rows = rows, block_columns = columns;
  Eigen::internal::computeProductBlockingSizes<Scalar, Scalar, 1, Eigen::Index>(block_depth, block_rows, block_columns,
                                                                                Eigen::Index{1});
  const auto on_the_heap = [](Eigen::Index numbers) {
    const std::size_t bytes = static_cast<std::size_t>(numbers) * sizeof(Scalar);
    return bytes > static_cast<std::size_t>(EIGEN_STACK_ALLOCATION_LIMIT) ? bytes : std::size_t{0};
  };
  return on_the_heap(block_depth * block_rows) + on_the_heap(block_depth * block_columns);
}

}  // namespace attention
