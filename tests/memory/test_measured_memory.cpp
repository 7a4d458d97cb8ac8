// The extra memory chapter 12 reports for each kernel, against the memory the
// kernel actually takes from the heap while it runs.
//
// Chapter 12's benchmark prints each method's extra memory, counted from the
// buffers it allocates (attention::streaming_extra_bytes() for the streaming
// kernel; four n × n matrices for the teaching version, one for the buffered
// one). A test that restated those formulas would hold the count to itself.
// Here the heap is watched instead: this program replaces malloc and free
// (and their relatives) with versions that keep the bytes in use and their
// peak, and each kernel runs once between two readings. Everything the
// library allocates goes through malloc: Eigen's matrices (Eigen's aligned
// malloc), std::vector and operator new.
//
// What is measured is each block's usable size (malloc_usable_size), which is
// the size asked for, rounded up to 16 bytes, plus up to 8; Eigen's aligned
// blocks ask for 64 bytes more than they hold; a large block, which malloc
// takes from the system by itself, is rounded up to whole pages of 4 KiB. So
// the measured peak, less the output the call returns, lies between the count
// and the count plus 4 KiB and 96 bytes per block taken during the call (with
// two threads, from one thread's count: see the streaming test); the test
// checks both sides, and that few blocks are taken (a kernel that allocated
// per row would fail it).
//
// Not in the sanitizer build: AddressSanitizer replaces malloc itself.
#include <malloc.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/attention.hpp"
#include "attention/product_workspace.hpp"
#include "attention/streaming_attention.hpp"
#include "support.hpp"

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* pointer);
}

namespace {

std::atomic<std::int64_t> bytes_in_use{0};
std::atomic<std::int64_t> peak_in_use{0};
std::atomic<std::int64_t> blocks_taken{0};

void taken(void* pointer) {
  if (pointer == nullptr) return;
  const auto size = static_cast<std::int64_t>(malloc_usable_size(pointer));
  const std::int64_t now = bytes_in_use.fetch_add(size) + size;
  std::int64_t peak = peak_in_use.load();
  while (now > peak && !peak_in_use.compare_exchange_weak(peak, now)) {
  }
  blocks_taken.fetch_add(1);
}

void given_back(void* pointer) {
  if (pointer != nullptr) bytes_in_use.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(pointer)));
}

}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  void* pointer = __libc_malloc(size);
  taken(pointer);
  return pointer;
}
void* calloc(std::size_t count, std::size_t size) {
  void* pointer = __libc_calloc(count, size);
  taken(pointer);
  return pointer;
}
void* realloc(void* pointer, std::size_t size) {
  given_back(pointer);
  void* moved = __libc_realloc(pointer, size);
  taken(moved != nullptr ? moved : (size == 0 ? nullptr : pointer));
  return moved;
}
void free(void* pointer) {
  given_back(pointer);
  __libc_free(pointer);
}
void* memalign(std::size_t alignment, std::size_t size) {
  void* pointer = __libc_memalign(alignment, size);
  taken(pointer);
  return pointer;
}
void* aligned_alloc(std::size_t alignment, std::size_t size) { return memalign(alignment, size); }
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  void* pointer = memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *out = pointer;
  return 0;
}
}

namespace {

using attention::Matrix;
using support::random_matrix;

/// What a call took from the heap: the peak of the bytes in use above those in use before it, and the blocks.
struct Measured {
  std::int64_t peak_extra = 0;
  std::int64_t blocks = 0;
};

template <class Call>
Measured measured(Call&& call) {
  const std::int64_t before = bytes_in_use.load();
  peak_in_use.store(before);
  const std::int64_t blocks_before = blocks_taken.load();
  call();
  return {peak_in_use.load() - before, blocks_taken.load() - blocks_before};
}

// The count, and at most a page and 96 bytes per block over it (see the top of the file).
void check_against_count(const Measured& call, std::int64_t counted, std::int64_t most_blocks) {
  INFO("measured " << call.peak_extra << " bytes in " << call.blocks << " blocks, counted " << counted);
  CHECK(call.peak_extra >= counted);
  CHECK(call.peak_extra <= counted + (4096 + 96) * call.blocks);
  CHECK(call.blocks <= most_blocks);
}

// n = 300 and m = 300 keys: not a whole number of tiles of 64 queries or 128 keys, so the last tiles are partial.
constexpr Eigen::Index n = 300, d = 64;
constexpr auto output_bytes = static_cast<std::int64_t>(n * d * sizeof(double));

struct Inputs {
  Matrix queries, keys, values;
  Inputs() {
    std::mt19937_64 generator(12);
    queries = random_matrix(n, d, generator);
    keys = random_matrix(n, d, generator);
    values = random_matrix(n, d, generator);
  }
};

}  // namespace

TEST_CASE("the heap is watched: a block of a known size is seen", "[ch12]") {
  const Measured call = measured([] {
    Matrix block(100, 100);
    block.setZero();
    CHECK(block.sum() == 0.0);
  });
  check_against_count(call, 100 * 100 * sizeof(double), 1);
}

TEST_CASE("an Eigen product takes the packing buffers product_workspace_bytes counts", "[ch12]") {
  std::mt19937_64 generator(3);
  // (rows, depth, columns): coefficient by coefficient; one row; under the stack's limit; one or both buffers on
  // the heap; a deep product whose blocks the caches bound.
  for (const auto& [rows, depth, columns] : std::vector<std::array<Eigen::Index, 3>>{
           {4, 5, 6}, {1, 300, 300}, {64, 64, 64}, {300, 64, 300}, {300, 300, 64}, {64, 2048, 2048}, {2048, 700, 64}}) {
    INFO("rows " << rows << ", depth " << depth << ", columns " << columns);
    const Matrix left = random_matrix(rows, depth, generator), right = random_matrix(depth, columns, generator);
    Matrix product(rows, columns);
    const Measured call = measured([&] { product.noalias() = left * right; });
    check_against_count(call, static_cast<std::int64_t>(attention::product_workspace_bytes(rows, depth, columns)), 2);
    // Into a row-major result Eigen computes the transposed product.
    attention::RowMajorMatrix row_major(rows, columns);
    const Measured transposed = measured([&] { row_major.noalias() = left * right; });
    check_against_count(transposed, static_cast<std::int64_t>(attention::product_workspace_bytes(columns, depth, rows)),
                        2);
  }
}

TEST_CASE("the teaching version takes four n by n matrices and the last product's buffers", "[ch12]") {
  const Inputs in;
  attention::AttentionSteps<double> steps;
  const Measured call =
      measured([&] { steps = attention::scaled_dot_product_attention(in.queries, in.keys, in.values); });
  // At the peak, the four n × n steps are kept while the weights multiply the values; softmax_rows() takes a
  // small block per row on the way (the teaching version is written to be read, not to spare the heap).
  const auto counted =
      static_cast<std::int64_t>(4 * n * n * sizeof(double) + attention::product_workspace_bytes(n, n, d));
  check_against_count({call.peak_extra - output_bytes, call.blocks}, counted, n + 16);
}

TEST_CASE("the buffered kernel takes one n by n buffer and keeps it", "[ch12]") {
  const Inputs in;
  attention::AttentionBuffers<double> buffers;
  // The scores are a row-major n × n buffer: their product is computed transposed. Each product's buffers live
  // only while it runs, so the larger of the two counts.
  const auto workspace = static_cast<std::int64_t>(
      std::max(attention::product_workspace_bytes(n, d, n), attention::product_workspace_bytes(n, n, d)));
  const Measured first = measured([&] { attention::buffered_attention(in.queries, in.keys, in.values, buffers); });
  check_against_count({first.peak_extra - output_bytes, first.blocks}, n * n * sizeof(double) + workspace, 6);
  // The second call reuses both buffers: only the products' packing buffers are taken, and given back.
  const Measured again = measured([&] { attention::buffered_attention(in.queries, in.keys, in.values, buffers); });
  check_against_count(again, workspace, 4);
  CHECK(bytes_in_use.load() <= peak_in_use.load() - workspace);
}

TEST_CASE("the streaming kernel takes what streaming_extra_bytes counts", "[ch12]") {
  const Inputs in;
  // The default tiles, the tiles this book's machine chooses, and tiles of all the keys, whose products'
  // buffers no longer fit on the stack.
  const std::vector<std::array<Eigen::Index, 2>> tiles{{64, 128}, {256, 128}, {150, 300}};
  for (const auto& [query_tile, key_tile] : tiles) {
    for (const bool packed : {true, false}) {
      for (const unsigned threads : {1u, 2u}) {
        attention::StreamingOptions options;
        options.query_tile = query_tile;
        options.key_tile = key_tile;
        options.packed_products = packed;
        options.threads = threads;
        INFO("tiles " << query_tile << " by " << key_tile << ", packed products " << packed << ", threads " << threads);
        attention::StreamingBuffers<double> buffers;
        Matrix output;
        const Measured call = measured(
            [&] { output = attention::streaming_attention(in.queries, in.keys, in.values, options, buffers); });
        // A thread's start takes a few small blocks of its own (its state, not attention's): 96 bytes each allow
        // for them as for any block's rounding. Each thread's tiles are a handful of blocks, its products' buffers
        // two more at a time; each key tile's packed keys and values two more.
        const auto counted = static_cast<std::int64_t>(attention::streaming_extra_bytes(n, d, d, options));
        const Measured extra{call.peak_extra - output_bytes, call.blocks};
        if (threads == 1) {
          check_against_count(extra, counted, 8 + 2 * 3 + 32);
        } else {
          // The count is each thread's tiles at once. A helper that ends its share before the calling thread takes
          // its own tiles never holds them at the same time: the peak lies between one thread's and the count.
          attention::StreamingOptions one_thread = options;
          one_thread.threads = 1;
          INFO("measured " << extra.peak_extra << " bytes in " << extra.blocks << " blocks, counted " << counted);
          CHECK(extra.peak_extra >= static_cast<std::int64_t>(attention::streaming_extra_bytes(n, d, d, one_thread)));
          CHECK(extra.peak_extra <= counted + (4096 + 96) * extra.blocks);
          CHECK(extra.blocks <= 8 * threads + 2 * 3 + 32);
        }
      }
    }
  }
}
