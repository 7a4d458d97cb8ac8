// Attention without the n × m matrix (chapter 12): every fast kernel against the teaching version.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include <catch2/catch.hpp>

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "attention/streaming_attention.hpp"
#include "attention/tile_product.hpp"
#include "attention/worker_threads.hpp"
#include "support.hpp"

namespace {

// The largest difference against the teaching output, relative to its largest entry.
double normwise_difference(const attention::Matrix& fast, const attention::Matrix& teaching) {
  const double scale = std::max(teaching.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  return (fast - teaching).cwiseAbs().maxCoeff() / scale;
}

attention::Matrix teaching_output(const attention::Matrix& queries, const attention::Matrix& keys,
                                  const attention::Matrix& values, attention::KeyRange range) {
  attention::AttentionOptions options;
  if (range == attention::KeyRange::causal) options.mask = attention::causal_mask(queries.rows());
  return attention::scaled_dot_product_attention(queries, keys, values, options).output;
}

}  // namespace

TEST_CASE(
    "the vectorised exponential: within two machine epsilons of std::exp relative to it and e^-infinity exactly 0",
    "[ch12]") {
  std::vector<double> arguments;
  for (double x = -707.9; x <= 709.0; x += 0.0137) arguments.push_back(x);
  for (const double x : {0.0, -0.0, 1.0, -1.0, 0.5 * std::log(2.0), -0.5 * std::log(2.0), 1e-300, -1e-300}) {
    arguments.push_back(x);
  }
  std::vector<double> results = arguments;
  attention::exponential_in_place(results.data(), static_cast<Eigen::Index>(results.size()));
  double largest_error = 0.0;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const double expected = std::exp(arguments[i]);
    largest_error = std::max(largest_error, std::abs(results[i] - expected) / expected);
  }
  CHECK(largest_error <= 2 * std::numeric_limits<double>::epsilon());
  std::vector<double> edges = {-support::infinity, -800.0, -708.5, 0.0};
  attention::exponential_in_place(edges.data(), 4);
  CHECK(edges == std::vector<double>{0.0, 0.0, 0.0, 1.0});  // below −708, where e^x is subnormal: 0
  double not_a_number = std::numeric_limits<double>::quiet_NaN();
  attention::exponential_in_place(&not_a_number, 1);
  CHECK(std::isnan(not_a_number));
}

TEST_CASE("every fast kernel gives the teaching output on random inputs, masked and not", "[ch12]") {
  std::mt19937_64 generator(2024);
  // One set of buffers for every shape: what one call leaves must not leak into the next
  attention::StreamingBuffers kept;
  for (const auto& [n, m, d_k, d_v] : {std::tuple{1, 1, 1, 1},
                                       {3, 3, 2, 2},
                                       {7, 7, 5, 3},
                                       {64, 64, 16, 16},
                                       {130, 130, 64, 64},
                                       {257, 257, 8, 33},
                                       {40, 300, 64, 64}}) {
    const attention::Matrix queries = 3.0 * support::random_matrix(n, d_k, generator);
    const attention::Matrix keys = support::random_matrix(m, d_k, generator);
    const attention::Matrix values = support::random_matrix(m, d_v, generator);
    for (const attention::KeyRange range : {attention::KeyRange::all, attention::KeyRange::causal}) {
      if (range == attention::KeyRange::causal && n != m) continue;
      const attention::Matrix teaching = teaching_output(queries, keys, values, range);
      for (const bool vectorised : {false, true}) {
        attention::AttentionBuffers buffers;
        attention::buffered_attention(queries, keys, values, buffers, range, vectorised);
        CHECK(normwise_difference(buffers.output, teaching) < 1e-12);
      }
      for (const Eigen::Index query_tile : {1, 16, 64}) {
        for (const Eigen::Index key_tile : {1, 7, 128}) {
          for (const unsigned threads : {1u, 2u}) {
            for (const bool packed : {false, true}) {
              attention::StreamingOptions options;
              options.query_tile = query_tile;
              options.key_tile = key_tile;
              options.range = range;
              options.threads = threads;
              options.packed_products = packed;
              INFO("n = " << n << ", tiles " << query_tile << " × " << key_tile << ", threads " << threads
                          << (packed ? ", packed products" : ", Eigen's products"));
              CHECK(normwise_difference(attention::streaming_attention(queries, keys, values, options, kept),
                                        teaching) < 1e-12);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("a query whose scores are all -infinity gets a zero row, as in the teaching version", "[ch12]") {
  // Every query has positive entries of at least 1, and key 1 is −1e308 in every entry: each score
  // against key 1 overflows to −∞ (weight exactly 0). Under the causal mask query 1 sees key 1 only.
  std::mt19937_64 generator(7);
  const attention::Matrix queries = support::random_matrix(5, 4, generator).cwiseAbs().array() + 1.0;
  attention::Matrix keys = support::random_matrix(5, 4, generator);
  const attention::Matrix values = support::random_matrix(5, 3, generator);
  keys.row(0).setConstant(-1e308);
  const attention::Matrix teaching = teaching_output(queries, keys, values, attention::KeyRange::causal);
  REQUIRE(teaching.row(0).isZero(0.0));
  for (const Eigen::Index tile : {1, 2, 8}) {
    attention::StreamingOptions options;
    options.range = attention::KeyRange::causal;
    options.query_tile = tile;
    options.key_tile = tile;
    const attention::Matrix fast = attention::streaming_attention(queries, keys, values, options);
    CHECK(fast.row(0).isZero(0.0));
    CHECK(normwise_difference(fast, teaching) < 1e-12);
  }
  attention::AttentionBuffers buffers;
  attention::buffered_attention(queries, keys, values, buffers, attention::KeyRange::causal, true);
  CHECK(buffers.output.row(0).isZero(0.0));
}

TEST_CASE("NaN and +infinity scores are refused by every kernel, and shapes that do not fit", "[ch12]") {
  attention::Matrix queries(2, 2), keys(2, 2), values(2, 1);
  queries << 1e300, 0, 0, 1;
  keys << 1e300, 0, 0, 1;  // 1e600: +∞
  values << 1, 2;
  attention::AttentionBuffers buffers;
  CHECK_THROWS_AS(attention::buffered_attention(queries, keys, values, buffers), std::invalid_argument);
  CHECK_THROWS_AS(attention::streaming_attention(queries, keys, values), std::invalid_argument);
  attention::StreamingOptions two_threads;
  two_threads.threads = 2;
  two_threads.query_tile = 1;
  CHECK_THROWS_AS(attention::streaming_attention(queries, keys, values, two_threads), std::invalid_argument);
  queries(0, 0) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(attention::streaming_attention(queries, keys, values), std::invalid_argument);
  CHECK_THROWS_AS(attention::streaming_attention(attention::Matrix(2, 3), keys, values), std::invalid_argument);
  CHECK_THROWS_AS(attention::streaming_attention(queries, keys, attention::Matrix(3, 1)), std::invalid_argument);
  attention::StreamingOptions causal;
  causal.range = attention::KeyRange::causal;
  CHECK_THROWS_AS(attention::streaming_attention(attention::Matrix(attention::Matrix::Ones(3, 2)), keys, values,
                                                 causal),
                  std::invalid_argument);
}

TEST_CASE("no key gives zero rows, and width 0 is refused, by every kernel as by the teaching version", "[ch12]") {
  // No key: a row of no weights, whose output is the zero row (softmax_rows() of an empty row).
  const attention::Matrix queries = attention::Matrix::Ones(3, 2), no_keys(0, 2), no_values(0, 4);
  const attention::Matrix teaching = teaching_output(queries, no_keys, no_values, attention::KeyRange::all);
  REQUIRE(teaching.rows() == 3);
  REQUIRE(teaching.cols() == 4);
  REQUIRE(teaching.isZero(0.0));
  CHECK(attention::streaming_attention(queries, no_keys, no_values) == teaching);
  attention::AttentionBuffers buffers;
  attention::buffered_attention(queries, no_keys, no_values, buffers);
  CHECK(attention::Matrix(buffers.output) == teaching);
  // Width 0: every score is 0/√0, NaN, which the teaching version refuses; so does every kernel.
  const attention::Matrix narrow_queries(2, 0), narrow_keys(3, 0), values = attention::Matrix::Ones(3, 1);
  CHECK_THROWS_AS(teaching_output(narrow_queries, narrow_keys, values, attention::KeyRange::all),
                  std::invalid_argument);
  CHECK_THROWS_AS(attention::streaming_attention(narrow_queries, narrow_keys, values), std::invalid_argument);
  CHECK_THROWS_AS(attention::buffered_attention(narrow_queries, narrow_keys, values, buffers), std::invalid_argument);
}

TEST_CASE("thread t of T takes query tiles t, t + T, t + 2T, …", "[ch12]") {
  // One query per tile. Tile 1's query is NaN and tile 2T's scores +∞. Under the striped split share 0 takes
  // tiles 0, T and 2T and meets +∞, and share 1 meets NaN; under a split into consecutive runs share 0 would meet
  // tile 1 first. The shares' failures are rethrown in the order of the shares, so the message tells which tiles
  // share 0 took.
  for (const unsigned threads : {2u, 3u}) {
    const Eigen::Index tiles = 3 * threads;
    attention::Matrix queries = attention::Matrix::Zero(tiles, 2), keys(2, 2), values(2, 1);
    queries(1, 0) = std::numeric_limits<double>::quiet_NaN();
    queries(2 * threads, 0) = 1e300;
    keys << 1e300, 0, 0, 1;  // 1e300 · 1e300: +∞
    values << 1, 2;
    attention::StreamingOptions options;
    options.threads = threads;
    options.query_tile = 1;
    INFO("threads " << threads);
    CHECK_THROWS_WITH(attention::streaming_attention(queries, keys, values, options), Catch::Contains("+infinity"));
    options.threads = 1;  // one thread meets tile 1 first
    CHECK_THROWS_WITH(attention::streaming_attention(queries, keys, values, options), Catch::Contains("NaN"));
  }
}

TEST_CASE("the extra memory: a few tiles per thread, and the keys and values packed once", "[ch12]") {
  attention::StreamingOptions options;               // 64 × 128 tiles, one thread, packed products
  options.product = attention::ProductShape{8, 16};  // strips of 16 columns, whatever this build's vectors
  // Per thread: the score tile, the output tile, the tile's queries, and a maximum, a sum and a rescaling per query.
  const std::size_t per_thread = 64 * 128 + 64 * 64 + 64 * 64 + 3 * 64;
  // 256 keys: two tiles of 128, each packed as Kᵀ (64 × 128) and V (128 × 64); no padding, 128 and 64 being
  // whole strips of 16.
  CHECK(attention::streaming_extra_bytes(256, 64, 64, options) == (per_thread + 2 * 2 * 128 * 64) * 8);
  options.threads = 2;
  CHECK(attention::streaming_extra_bytes(256, 64, 64, options) == (2 * per_thread + 2 * 2 * 128 * 64) * 8);
  // 130 keys of width 3, values of width 5: a tile of 128 and one of 2. Each Kᵀ tile has its columns padded to a
  // multiple of 16 (128, 16), each V tile its 5 columns to 16.
  options.threads = 1;
  CHECK(attention::streaming_extra_bytes(130, 3, 5, options) ==
        (64 * 128 + 64 * 5 + 64 * 3 + 3 * 64 + (128 * 3 + 128 * 16) + (16 * 3 + 2 * 16)) * 8);
  // Eigen's products: no queries copied, nothing packed.
  options.packed_products = false;
  CHECK(attention::streaming_extra_bytes(256, 64, 64, options) == (64 * 128 + 64 * 64 + 3 * 64) * 8);
}

namespace {
// A rows × columns matrix of integers from −9 to 9: their products and sums are exact in any order.
attention::RowMajorMatrix small_integer_matrix(Eigen::Index rows, Eigen::Index columns, std::mt19937_64& generator) {
  std::uniform_int_distribution<int> small(-9, 9);
  attention::RowMajorMatrix m(rows, columns);
  for (double& entry : m.reshaped()) entry = small(generator);
  return m;
}
}  // namespace

TEST_CASE("tile_product: small integers give exactly Eigen's product, on blocks, at every edge", "[ch12]") {
  // Products and sums of small integers are exact in any order, so any difference is a misplaced term.
  std::mt19937_64 generator(5);
  const auto integers = [&](Eigen::Index rows, Eigen::Index columns) {
    return small_integer_matrix(rows, columns, generator);
  };
  // Every register block tile_product() is compiled for (4 or 8 rows, strips of 1 or 2 of this build's vectors),
  // and a shape it is not (one entry at a time).
  const Eigen::Index lanes = attention::vector_lanes<double>;
  for (const attention::ProductShape shape :
       {attention::ProductShape{4, lanes}, attention::ProductShape{8, lanes}, attention::ProductShape{4, 2 * lanes},
        attention::ProductShape{8, 2 * lanes}, attention::ProductShape{3, 5}}) {
    for (const Eigen::Index rows : {1, 7, 8, 9, 17, 64}) {
      for (const Eigen::Index depth : {0, 1, 5, 64}) {
        for (const Eigen::Index columns : {1, 15, 16, 17, 40}) {
          INFO(rows << " × " << depth << " times " << depth << " × " << columns << ", blocks of " << shape.block_rows
                    << " × " << shape.strip_columns);
          // The left operand and the result are blocks inside larger matrices: rows that do not start one after
          // the other in memory.
          const attention::RowMajorMatrix left_whole = integers(rows + 2, depth + 3);
          const auto left = left_whole.block(1, 2, rows, depth);
          const attention::Matrix right = integers(depth, columns);  // column by column
          attention::PackedColumns packed;
          attention::pack_columns(right, packed, shape);
          attention::RowMajorMatrix out_whole = integers(rows + 3, columns + 4);
          const attention::RowMajorMatrix before = out_whole;
          const attention::RowMajorMatrix expected = left * right;
          attention::tile_product(left, packed, out_whole.block(2, 1, rows, columns), false);
          CHECK(out_whole.block(2, 1, rows, columns) == expected);
          attention::tile_product(left, packed, out_whole.block(2, 1, rows, columns), true);
          CHECK(out_whole.block(2, 1, rows, columns) == 2 * expected);
          // Nothing outside the block was written.
          out_whole.block(2, 1, rows, columns) = before.block(2, 1, rows, columns);
          CHECK(out_whole == before);
        }
      }
    }
  }
}

TEST_CASE("tile_product under a causal limit: every key a row sees counted and the skipped ones left alone", "[ch12]") {
  // Row r needs keys 0 … r + offset. As the keys of Q·Kᵀ (columns): every entry a row needs is the product's
  // (exactly: small integers), and an entry is left as it was only where its block's last row cannot see its strip.
  // As the keys of weights · V (inner dimension): the result is the product with every weight after a row's last
  // key set to 0, as the causal mask sets them, up to the whole block's last key, which must hold zeros already.
  std::mt19937_64 generator(9);
  const auto integers = [&](Eigen::Index rows, Eigen::Index columns) {
    return small_integer_matrix(rows, columns, generator);
  };
  const Eigen::Index lanes = attention::vector_lanes<double>;
  for (const attention::ProductShape shape :
       {attention::ProductShape{8, 2 * lanes}, attention::ProductShape{4, lanes}, attention::ProductShape{3, 5}}) {
    for (const Eigen::Index offset : {-40, -9, -1, 0, 3, 17, 100}) {
      const Eigen::Index rows = 29, depth = 6, keys = 45;
      INFO("offset " << offset << ", blocks of " << shape.block_rows << " × " << shape.strip_columns);
      const attention::RowMajorMatrix queries = integers(rows, depth);
      const attention::Matrix keys_transposed = integers(depth, keys);
      attention::PackedColumns packed_keys;
      attention::pack_columns(keys_transposed, packed_keys, shape);
      const attention::RowMajorMatrix before = integers(rows, keys);
      attention::RowMajorMatrix scores = before;
      attention::tile_product(queries, packed_keys, scores, false, attention::KeysUpTo{offset, true});
      const attention::RowMajorMatrix full = queries * keys_transposed;
      for (Eigen::Index r = 0; r < rows; ++r) {
        const Eigen::Index block_last_row = std::min(rows, (r / shape.block_rows + 1) * shape.block_rows) - 1;
        for (Eigen::Index key = 0; key < keys; ++key) {
          const bool strip_seen = (key / shape.strip_columns) * shape.strip_columns <= block_last_row + offset;
          if (key <= r + offset) REQUIRE(strip_seen);  // what a row needs is never skipped
          CHECK(scores(r, key) == (strip_seen ? full(r, key) : before(r, key)));
        }
      }
      // weights · V, the weights zero after each row's last key.
      attention::RowMajorMatrix weights = integers(rows, keys);
      for (Eigen::Index r = 0; r < rows; ++r) {
        for (Eigen::Index key = std::max<Eigen::Index>(0, r + offset + 1); key < keys; ++key) weights(r, key) = 0;
      }
      const attention::Matrix values = integers(keys, 7);
      attention::PackedColumns packed_values;
      attention::pack_columns(values, packed_values, shape);
      const attention::RowMajorMatrix start = integers(rows, 7);
      attention::RowMajorMatrix sums = start;
      attention::tile_product(weights, packed_values, sums, true, attention::KeysUpTo{offset, false});
      CHECK(sums == start + weights * values);
    }
  }
}

TEST_CASE("pack_columns: strips of 16 columns, row after row, the last padded with zeros, from either storage order",
          "[ch12]") {
  attention::Matrix operand(2, 18);  // column by column
  for (Eigen::Index row = 0; row < 2; ++row) {
    for (Eigen::Index column = 0; column < 18; ++column)
      operand(row, column) = static_cast<double>(100 * row + column + 1);
  }
  attention::PackedColumns packed;
  const attention::ProductShape sixteen{8, 16};
  attention::pack_columns(operand, packed, sixteen);
  CHECK(packed.rows == 2);
  CHECK(packed.columns == 18);
  REQUIRE(packed.entries.size() == 2 * 2 * 16);
  CHECK(packed.entries[0] == 1.0);     // strip 0, row 0, column 0
  CHECK(packed.entries[15] == 16.0);   // strip 0, row 0, column 15
  CHECK(packed.entries[16] == 101.0);  // strip 0, row 1, column 0
  CHECK(packed.entries[32] == 17.0);   // strip 1, row 0: column 16
  CHECK(packed.entries[33] == 18.0);   // column 17
  CHECK(packed.entries[34] == 0.0);    // padding
  CHECK(packed.entries[48] == 117.0);  // strip 1, row 1, column 16
  CHECK(packed.entries[63] == 0.0);
  attention::PackedColumns from_rows;
  attention::pack_columns(attention::RowMajorMatrix(operand), from_rows, sixteen);
  CHECK(from_rows.entries == packed.entries);
  // Packing again reuses the buffer, and fits the new shape
  attention::pack_columns(attention::Matrix::Zero(1, 1), from_rows, sixteen);
  CHECK(from_rows.entries.size() == 16);
}

TEST_CASE("tile_product refuses shapes that do not fit", "[ch12]") {
  attention::PackedColumns packed;
  attention::pack_columns(attention::Matrix::Ones(3, 4), packed);
  attention::RowMajorMatrix out(2, 4);
  CHECK_NOTHROW(attention::tile_product(attention::RowMajorMatrix::Ones(2, 3), packed, out, false));
  CHECK_THROWS_AS(attention::tile_product(attention::RowMajorMatrix::Ones(2, 2), packed, out, false),
                  std::invalid_argument);
  attention::RowMajorMatrix narrow(2, 3);
  CHECK_THROWS_AS(attention::tile_product(attention::RowMajorMatrix::Ones(2, 3), packed, narrow, false),
                  std::invalid_argument);
}

TEST_CASE("an observer sees every visited tile in order, and the running values it sees end in the output", "[ch12]") {
  std::mt19937_64 generator(11);
  const attention::Matrix queries = support::random_matrix(5, 3, generator);
  const attention::Matrix keys = support::random_matrix(5, 3, generator);
  const attention::Matrix values = support::random_matrix(5, 2, generator);
  for (const attention::KeyRange range : {attention::KeyRange::all, attention::KeyRange::causal}) {
    std::vector<attention::StreamingTileState> states;
    attention::StreamingOptions options;
    options.query_tile = 2;
    options.key_tile = 2;
    options.range = range;
    options.observer = [&](const attention::StreamingTileState& state) { states.push_back(state); };
    const attention::Matrix output = attention::streaming_attention(queries, keys, values, options);
    // 3 query tiles × 3 key tiles; the causal mask skips the tiles wholly after their queries: 3 of 9.
    REQUIRE(states.size() == (range == attention::KeyRange::all ? 9u : 6u));
    for (const attention::StreamingTileState& state : states) {
      CHECK((state.rescale.array() >= 0.0).all());
      CHECK((state.rescale.array() <= 1.0).all());
      // The running sum is the sum of e^(s − M) over the keys seen so far: at least 1 (the maximum's own term).
      CHECK((state.sum.array() >= 1.0 - 1e-15).all());
      CHECK((state.exponentials.array() <= 1.0).all());
    }
    // After a query tile's last key tile, O / L is that tile's output.
    for (std::size_t s = 0; s < states.size(); ++s) {
      const bool last = s + 1 == states.size() || states[s + 1].first_query != states[s].first_query;
      if (!last) continue;
      const attention::StreamingTileState& state = states[s];
      for (Eigen::Index i = 0; i < state.output.rows(); ++i) {
        CHECK(normwise_difference(state.output.row(i) / state.sum(i), output.row(state.first_query + i)) < 1e-14);
      }
    }
    attention::StreamingOptions two = options;
    two.threads = 2;
    CHECK_THROWS_AS(attention::streaming_attention(queries, keys, values, two), std::invalid_argument);
  }
}

TEST_CASE("run_shares runs every share once, share 0 on the caller, and passes on the lowest share's failure",
          "[ch12]") {
  for (const unsigned count : {0u, 1u, 2u, 5u}) {
    INFO(count << " shares");
    std::vector<std::atomic<int>> runs(std::max(1u, count));
    std::thread::id share_zero_thread;
    attention::run_shares(count, [&](unsigned share) {
      ++runs.at(share);
      if (share == 0) share_zero_thread = std::this_thread::get_id();
    });
    for (const std::atomic<int>& run : runs) CHECK(run == 1);
    CHECK(share_zero_thread == std::this_thread::get_id());
  }
  // Shares 1 and 3 fail; every share still runs, and share 1's failure is the one passed on.
  std::atomic<int> finished{0};
  const auto failing = [&](unsigned share) {
    ++finished;
    if (share == 1) throw std::invalid_argument("share 1");
    if (share == 3) throw std::runtime_error("share 3");
  };
  CHECK_THROWS_WITH(attention::run_shares(4, failing), "share 1");
  CHECK(finished == 4);
}

#if defined(__linux__)
TEST_CASE("run_shares keeps each helper thread off the processor the caller was on", "[ch12]") {
  cpu_set_t caller;
  REQUIRE(sched_getaffinity(0, sizeof caller, &caller) == 0);
  std::vector<cpu_set_t> helpers(3);
  std::vector<int> status(3, -1);  // Catch's assertions belong on the test's own thread: checked after
  attention::run_shares(3, [&](unsigned share) {
    if (share > 0) status[share] = sched_getaffinity(0, sizeof helpers[share], &helpers[share]);
  });
  for (unsigned share = 1; share < 3; ++share) {
    INFO("share " << share);
    REQUIRE(status[share] == 0);
    if (CPU_COUNT(&caller) < 2) {
      CHECK(CPU_EQUAL(&helpers[share], &caller));  // one processor: nothing to keep off
      continue;
    }
    // Every processor the helper may use, the caller may use too; exactly one of the caller's is missing.
    cpu_set_t both;
    CPU_AND(&both, &helpers[share], &caller);
    CHECK(CPU_EQUAL(&both, &helpers[share]));
    CHECK(CPU_COUNT(&helpers[share]) == CPU_COUNT(&caller) - 1);
  }
}
#endif
