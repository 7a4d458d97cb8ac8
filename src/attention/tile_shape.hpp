/// @file tile_shape.hpp
/// @brief The streaming kernel's tiles and register block, chosen when the program runs from the vector width the
/// build was compiled for and the cache sizes the processor reports.
///
/// streaming_attention() works on a tile of queries against a tile of keys,
/// and its products (tile_product()) on a block of rows by a strip of
/// columns. Which sizes are fastest depends on the machine: the width of its
/// vector registers, how many of them it has, and the sizes of its caches.
/// choose_tile_shape() is the rule, a pure function of those numbers (so that
/// it can be tested for machines other than the one at hand);
/// tile_shape_for_this_machine() applies it to this build's vectors and the
/// caches find_cache_sizes() finds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <string>

#include <Eigen/Core>

#include <unistd.h>

#include "attention/tile_product.hpp"

namespace attention {

/// @brief The sizes of the two data caches nearest a core, and where they were found.
struct CacheSizes {
  std::size_t level1_bytes = 0;  ///< the first-level data cache of one core
  std::size_t level2_bytes = 0;  ///< the second-level cache of one core
  const char* source = "";       ///< "sysconf", "/sys/devices/system/cpu/cpu0/cache", or "default"
};

/// @brief The cache sizes assumed where the system says nothing (WebAssembly, for one): 32 KiB and 1 MiB, a middle
/// guess (recent cores have 32–128 KiB of first-level data cache and 256 KiB–2 MiB of second-level cache per core).
inline constexpr CacheSizes default_cache_sizes{32 * 1024, 1024 * 1024, "default"};

/// @brief The streaming kernel's tiles and its products' register block.
struct TileShape {
  Eigen::Index query_tile = 64;  ///< queries per tile
  Eigen::Index key_tile = 128;   ///< keys per tile
  ProductShape product;          ///< tile_product()'s register block
};

/// @cond INTERNAL
namespace detail {
// The largest power of two at most `limit`, and at least `low` (itself a power of two).
inline Eigen::Index power_of_two_at_most(double limit, Eigen::Index low) {
  Eigen::Index power = low;
  while (static_cast<double>(2 * power) <= limit) power *= 2;
  return power;
}
}  // namespace detail
/// @endcond

/// @brief The tiles and register block for a machine: its vector width, its number size and its two caches.
///
/// - The register block: product_shape_for() (8 rows by two vectors with
///   AVX-512, 4 rows by two vectors otherwise).
/// - The key tile: product 2 (scores times values) keeps, for one register
///   block, its rows of scores (block rows × key tile) and one strip of packed
///   values (key tile × strip columns) in the first-level cache; they may take
///   half of it. A power of two, 16 to 1024.
/// - The query tile: a tile's scores, its queries and its running output
///   (query tile × (key tile + d_k + d_v) numbers) stay in the second-level
///   cache while the key tiles stream past; they may take a quarter of it,
///   leaving room for the packed keys and values. A power of two, from the
///   block's rows up to 256 (so that n = 1024 still makes four tiles to share
///   among threads).
/// @param vector_bytes the width of a vector register, in bytes (64 with AVX-512, 32 with AVX2)
/// @param scalar_bytes the size of one number: 4 for float, 8 for double
/// @param caches the first- and second-level cache sizes
/// @param key_width d_k
/// @param value_width d_v
/// @return the tiles and the register block
inline TileShape choose_tile_shape(Eigen::Index vector_bytes, Eigen::Index scalar_bytes, const CacheSizes& caches,
                                   Eigen::Index key_width, Eigen::Index value_width) {
  // clang-format off
  // [tile_shape_rule]
  TileShape shape;
  shape.product = product_shape_for(vector_bytes, scalar_bytes);
  const auto number = static_cast<double>(scalar_bytes);
  const auto level1 = static_cast<double>(caches.level1_bytes);
  const auto level2 = static_cast<double>(caches.level2_bytes);
  // The key tile: a block's rows of scores and one strip of values in half the first level.
  const Eigen::Index block_numbers = shape.product.block_rows + shape.product.strip_columns;
  const double key_room = level1 / 2.0 / (static_cast<double>(block_numbers) * number);
  shape.key_tile = std::min<Eigen::Index>(1024, detail::power_of_two_at_most(key_room, 16));
  // The query tile: its scores, queries and output in a quarter of the second level.
  const double per_query = static_cast<double>(shape.key_tile + key_width + value_width) * number;
  const double query_room = level2 / 4.0 / per_query;
  const Eigen::Index queries = detail::power_of_two_at_most(query_room, shape.product.block_rows);
  shape.query_tile = std::min<Eigen::Index>(256, queries);
  // [tile_shape_rule]
  // clang-format on
  return shape;
}

/// @cond INTERNAL
namespace detail {
// A size as /sys writes it: "48K", "2048K", "4M" or a number of bytes; 0 if unreadable.
inline std::size_t size_from_text(const std::string& text) {
  std::size_t digits = 0, value = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    value = value * 10 + static_cast<std::size_t>(text[digits] - '0');
    ++digits;
  }
  if (digits == 0) return 0;
  const char unit = digits < text.size() ? text[digits] : ' ';
  return unit == 'K' ? value * 1024 : unit == 'M' ? value * 1024 * 1024 : value;
}
}  // namespace detail
/// @endcond

/// @brief The first- and second-level cache sizes of this machine's first processor: from sysconf() where the C
/// library knows them, else from /sys/devices/system/cpu/cpu0/cache, else default_cache_sizes.
inline CacheSizes find_cache_sizes() {
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  const long level1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), level2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (level1 > 0 && level2 > 0) {
    return {static_cast<std::size_t>(level1), static_cast<std::size_t>(level2), "sysconf"};
  }
#endif
  CacheSizes found{0, 0, "/sys/devices/system/cpu/cpu0/cache"};
  for (int index = 0; index < 8; ++index) {
    const std::string folder = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(folder + "level"), type_file(folder + "type"), size_file(folder + "size");
    int level = 0;
    std::string type, size;
    if (!(level_file >> level) || !(type_file >> type) || !(size_file >> size)) continue;
    if (level == 1 && type == "Data") found.level1_bytes = detail::size_from_text(size);
    if (level == 2 && (type == "Unified" || type == "Data")) found.level2_bytes = detail::size_from_text(size);
  }
  if (found.level1_bytes > 0 && found.level2_bytes > 0) return found;
  return default_cache_sizes;
}

/// @brief choose_tile_shape() for this build's vectors, numbers of type @p Scalar and this machine's caches.
/// @param caches the caches, as find_cache_sizes() gives them
/// @param key_width d_k
/// @param value_width d_v
/// @return the tiles and the register block
template <typename Scalar>
TileShape tile_shape_for_this_machine(const CacheSizes& caches, Eigen::Index key_width, Eigen::Index value_width) {
  const auto scalar_bytes = static_cast<Eigen::Index>(sizeof(Scalar));
  return choose_tile_shape(vector_lanes<Scalar> * scalar_bytes, scalar_bytes, caches, key_width, value_width);
}

}  // namespace attention
