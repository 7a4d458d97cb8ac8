// The streaming kernel's tiles chosen from a machine's vectors and caches (chapter 12): the rule on made-up
// machines, each worked out by hand in its comment; nothing here depends on the processor the tests run on.
#include <string>

#include <catch2/catch.hpp>

#include "attention/tile_shape.hpp"

namespace {

attention::CacheSizes caches_of(std::size_t level1_kib, std::size_t level2_kib) {
  return {level1_kib * 1024, level2_kib * 1024, "made up"};
}

void check_shape(const attention::TileShape& shape, Eigen::Index query_tile, Eigen::Index key_tile,
                 Eigen::Index block_rows, Eigen::Index strip_columns) {
  CHECK(shape.query_tile == query_tile);
  CHECK(shape.key_tile == key_tile);
  CHECK(shape.product.block_rows == block_rows);
  CHECK(shape.product.strip_columns == strip_columns);
}

}  // namespace

TEST_CASE("the tile rule on made-up machines: AVX-512 and AVX2, float and double, small and large caches", "[ch12]") {
  SECTION("AVX-512, doubles, 48 KiB and 2 MiB") {
    // 64-byte vectors: 8 doubles, 32 registers, so 8 rows by 2 vectors (16 columns). Key tile: half of 48 KiB,
    // 24576 bytes, over (8 + 16) · 8 = 192 bytes per key: 128. Query tile: a quarter of 2 MiB, 524288 bytes, over
    // (128 + 64 + 64) · 8 = 2048 bytes per query: 256, the most allowed.
    check_shape(attention::choose_tile_shape(64, 8, caches_of(48, 2048), 64, 64), 256, 128, 8, 16);
  }
  SECTION("AVX-512, floats, 48 KiB and 2 MiB") {
    // 16 floats a vector: 8 rows by 32 columns. Key: 24576 / ((8 + 32) · 4) = 153.6, so 128. Query: 524288 /
    // ((128 + 128) · 4) = 512, capped at 256.
    check_shape(attention::choose_tile_shape(64, 4, caches_of(48, 2048), 64, 64), 256, 128, 8, 32);
  }
  SECTION("AVX2, doubles, 32 KiB and 512 KiB") {
    // 32-byte vectors: 4 doubles, 16 registers, so 4 rows by 8 columns. Key: 16384 / ((4 + 8) · 8) = 170.7, so 128.
    // Query: 131072 / ((128 + 128) · 8) = 64.
    check_shape(attention::choose_tile_shape(32, 8, caches_of(32, 512), 64, 64), 64, 128, 4, 8);
  }
  SECTION("AVX2, floats, small caches: 16 KiB and 256 KiB") {
    // 8 floats a vector: 4 rows by 16 columns. Key: 8192 / ((4 + 16) · 4) = 102.4, so 64. Query: 65536 /
    // ((64 + 128) · 4) = 85.3, so 64.
    check_shape(attention::choose_tile_shape(32, 4, caches_of(16, 256), 64, 64), 64, 64, 4, 16);
  }
  SECTION("AVX-512, doubles, large caches: 128 KiB and 8 MiB") {
    // Key: 65536 / 192 = 341.3, so 256. Query: 2097152 / ((256 + 128) · 8) = 682.7, capped at 256.
    check_shape(attention::choose_tile_shape(64, 8, caches_of(128, 8192), 64, 64), 256, 256, 8, 16);
  }
  SECTION("no vectors (one double a register), the default caches") {
    // 16 registers, 4 rows by 2 columns. Key: 16384 / ((4 + 2) · 8) = 341.3, so 256. Query: 262144 /
    // ((256 + 128) · 8) = 85.3, so 64.
    check_shape(attention::choose_tile_shape(8, 8, attention::default_cache_sizes, 64, 64), 64, 256, 4, 2);
  }
  SECTION("caches too small for the rule: the smallest tiles") {
    // Key: 512 / 192 < 16, so 16. Query: 1024 / ((16 + 128) · 8) < 1: the block's 8 rows.
    check_shape(attention::choose_tile_shape(64, 8, {1024, 4096, "made up"}, 64, 64), 8, 16, 8, 16);
  }
  SECTION("wider keys and values: fewer queries to a tile") {
    // AVX2 doubles, 32 KiB and 1 MiB, d = 256: key 128 (as above); query: 262144 / ((128 + 512) · 8) = 51.2, so 32.
    check_shape(attention::choose_tile_shape(32, 8, caches_of(32, 1024), 256, 256), 32, 128, 4, 8);
  }
}

TEST_CASE("cache sizes as the system writes them, and this machine's found or defaulted", "[ch12]") {
  CHECK(attention::detail::size_from_text("48K") == 48 * 1024);
  CHECK(attention::detail::size_from_text("2048K\n") == 2048 * 1024);
  CHECK(attention::detail::size_from_text("4M") == 4 * 1024 * 1024);
  CHECK(attention::detail::size_from_text("512") == 512);
  CHECK(attention::detail::size_from_text("") == 0);
  CHECK(attention::detail::size_from_text("K") == 0);
  const attention::CacheSizes found = attention::find_cache_sizes();
  CHECK(found.level1_bytes > 0);
  CHECK(found.level2_bytes >= found.level1_bytes);
  const std::string source = found.source;
  CHECK((source == "sysconf" || source == "/sys/devices/system/cpu/cpu0/cache" || source == "default"));
}
