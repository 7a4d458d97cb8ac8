// Chapter 12's computation, tested in-process: fast_attention::compute()'s trace
// of the streaming kernel. Its output against the teaching version's, the
// running maximum, sum and output after each tile against their definitions
// (and worked by hand on the toy), and which tiles the causal mask lets the
// kernel skip, counted by hand. And a rate above the measured peak: the peak
// measured again up to three times before the rate is called a bug. And how a
// number of bytes is written.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "chapter_support.hpp"
#include "fast_attention.hpp"
#include "program/command_line.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_fast_attention {

namespace {

using attention::Matrix;
using chapter_support::random_matrix;
using chapter_support::tokens_of;
using chapter_support::toy;

fast_attention::Trace trace_of(program::AttentionInputs example, Eigen::Index key_tile, Eigen::Index query_tile,
                               attention::KeyRange range = attention::KeyRange::all) {
  fast_attention::Inputs inputs;
  inputs.trace.example = std::move(example);
  inputs.trace.key_tile = key_tile;
  inputs.trace.query_tile = query_tile;
  inputs.trace.range = range;
  const fast_attention::Result result = fast_attention::compute(inputs);
  REQUIRE(result.trace.has_value());
  REQUIRE_FALSE(result.benchmark.has_value());
  return *result.trace;
}

// softmax(QKᵀ/√d_k)V as chapter 3 computes it, under the causal mask when asked.
attention::AttentionSteps<> teaching(const program::AttentionInputs& example, attention::KeyRange range) {
  attention::AttentionOptions options;
  if (range == attention::KeyRange::causal) options.mask = attention::causal_mask(example.queries.rows());
  return attention::scaled_dot_product_attention(example.queries, example.keys, example.values, options);
}

}  // namespace

TEST_CASE("the traced kernel's output is the teaching version's for every tiling", "[ch12]") {
  std::mt19937_64 generator(1212);
  const program::AttentionInputs example =
      tokens_of(random_matrix(7, 4, generator), random_matrix(7, 4, generator), random_matrix(7, 3, generator));
  for (const attention::KeyRange range : {attention::KeyRange::all, attention::KeyRange::causal}) {
    const Matrix expected = teaching(example, range).output;
    for (const Eigen::Index key_tile : {1, 2, 3, 7, 12}) {
      for (const Eigen::Index query_tile : {1, 3, 7}) {
        const bool causal = range == attention::KeyRange::causal;
        CAPTURE(key_tile, query_tile, causal);
        const fast_attention::Trace trace = trace_of(example, key_tile, query_tile, range);
        CHECK(trace.output.isApprox(expected, 1e-13));
        CHECK(trace.largest_difference < 1e-13);
        CHECK(trace.teaching_output.isApprox(expected, 1e-15));
      }
    }
  }
}

TEST_CASE("after the last tile the running maximum sum and output are the row's own", "[ch12]") {
  std::mt19937_64 generator(12);
  const program::AttentionInputs example =
      tokens_of(random_matrix(6, 3, generator), random_matrix(6, 3, generator), random_matrix(6, 2, generator));
  for (const attention::KeyRange range : {attention::KeyRange::all, attention::KeyRange::causal}) {
    const attention::AttentionSteps<> steps = teaching(example, range);
    const fast_attention::Trace trace = trace_of(example, 4, 6, range);
    const fast_attention::TraceStep& last = trace.steps.back();
    for (std::size_t i = 0; i < 6; ++i) {
      const auto row = static_cast<Eigen::Index>(i);
      REQUIRE(last.maximum[i].has_value());
      // M = the largest score the query may see; L = Σ e^(s − M) over those scores.
      const double largest = steps.masked_scores.row(row).maxCoeff();
      CHECK(*last.maximum[i] == Approx(largest).epsilon(1e-14).margin(1e-14));
      const double sum = (steps.masked_scores.row(row).array() - largest).exp().sum();
      CHECK(*last.sum[i] == Approx(sum).epsilon(1e-14));
      CHECK(Matrix(*last.output[i]).isApprox(Matrix(steps.output.row(row)), 1e-13));
    }
  }
}

TEST_CASE("the running maximum never falls and the rescale is 1 where it did not move", "[ch12]") {
  std::mt19937_64 generator(121);
  const program::AttentionInputs example =
      tokens_of(random_matrix(5, 3, generator), random_matrix(9, 3, generator), random_matrix(9, 2, generator));
  const fast_attention::Trace trace = trace_of(example, 2, 5);
  REQUIRE(trace.steps.size() == 5);  // one query tile, keys in tiles of 2: ⌈9 / 2⌉ steps
  for (std::size_t s = 1; s < trace.steps.size(); ++s) {
    const attention::StreamingTileState& tile = trace.steps[s].tile;
    for (std::size_t i = 0; i < 5; ++i) {
      const auto row = static_cast<Eigen::Index>(i);
      const double before = *trace.steps[s - 1].maximum[i];
      CHECK(*trace.steps[s].maximum[i] >= before);
      CHECK(tile.rescale(row) == Approx(std::exp(before - tile.maximum(row))).epsilon(1e-13));
      if (tile.maximum(row) == before) CHECK(tile.rescale(row) == 1.0);
      CHECK(tile.rescale(row) > 0.0);
      CHECK(tile.rescale(row) <= 1.0);
    }
  }
}

TEST_CASE("the toy one key at a time worked by hand", "[ch12]") {
  const fast_attention::Trace trace = trace_of(toy(), 1, 3);
  REQUIRE(trace.steps.size() == 3);
  const double root2 = std::sqrt(2.0);
  // Key 1, cat = (2, 0): the scores are 2/√2 = √2 for cat, 0 for eat, √2 for fish. With
  // one key, M is that score, L = e^0 = 1, and the output so far is v_cat = (1, 0).
  const fast_attention::TraceStep& first = trace.steps[0];
  CHECK(first.tile.first_key == 0);
  CHECK(*first.maximum[0] == Approx(root2).epsilon(1e-14));
  CHECK(*first.maximum[1] == 0.0);
  CHECK(*first.maximum[2] == Approx(root2).epsilon(1e-14));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(*first.sum[i] == 1.0);
    CHECK(*first.output[i] == Eigen::RowVector2d(1.0, 0.0));
  }
  // Key 2, eat = (0, 1): cat scores 0, below its √2, so M stays and L = 1 + e^−√2;
  // eat scores 1/√2, above its 0, so M moves there and L = e^−(1/√2) + 1.
  const fast_attention::TraceStep& second = trace.steps[1];
  CHECK(*second.maximum[0] == Approx(root2).epsilon(1e-14));
  CHECK(*second.sum[0] == Approx(1.0 + std::exp(-root2)).epsilon(1e-14));
  CHECK(*second.maximum[1] == Approx(1.0 / root2).epsilon(1e-14));
  CHECK(*second.sum[1] == Approx(std::exp(-1.0 / root2) + 1.0).epsilon(1e-14));
  CHECK(second.tile.rescale(0) == 1.0);
  CHECK(second.tile.rescale(1) == Approx(std::exp(-1.0 / root2)).epsilon(1e-14));
  // cat's output so far: (1·v_cat + e^−√2·v_eat) / L.
  const double w = std::exp(-root2);
  CHECK((*second.output[0])(0) == Approx(1.0 / (1.0 + w)).epsilon(1e-14));
  CHECK((*second.output[0])(1) == Approx(w / (1.0 + w)).epsilon(1e-14));
  // Nothing is masked and every tile is visited.
  CHECK(trace.skipped.empty());
}

TEST_CASE("queries whose tile has not started have no state yet", "[ch12]") {
  const fast_attention::Trace trace = trace_of(toy(), 3, 1);  // each query a tile of its own, all keys at once
  REQUIRE(trace.steps.size() == 3);
  for (std::size_t s = 0; s < 3; ++s) {
    CHECK(trace.steps[s].tile.first_query == static_cast<Eigen::Index>(s));
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(trace.steps[s].maximum[i].has_value() == (i <= s));
      CHECK(trace.steps[s].output[i].has_value() == (i <= s));
    }
  }
}

TEST_CASE("under the causal mask the kernel skips the tiles after every query of their tile", "[ch12]") {
  std::mt19937_64 generator(1200);
  const program::AttentionInputs example =
      tokens_of(random_matrix(5, 2, generator), random_matrix(5, 2, generator), random_matrix(5, 2, generator));
  // Queries and keys in tiles of 2: {1, 2}, {3, 4}, {5}. Query tile 1 (queries 1 and 2)
  // sees key tile 1 only; query tile 2 (up to query 4) key tiles 1 and 2; query tile 3 all.
  const fast_attention::Trace causal = trace_of(example, 2, 2, attention::KeyRange::causal);
  using Tile = std::pair<Eigen::Index, Eigen::Index>;
  CHECK(causal.skipped == std::vector<Tile>{{0, 1}, {0, 2}, {1, 2}});
  std::vector<Tile> visited;
  for (const fast_attention::TraceStep& step : causal.steps) {
    visited.emplace_back(step.tile.first_query, step.tile.first_key);
  }
  std::sort(visited.begin(), visited.end());
  CHECK(visited == std::vector<Tile>{{0, 0}, {2, 0}, {2, 2}, {4, 0}, {4, 2}, {4, 4}});
  // In a tile on the diagonal a key after the query is masked: score −∞, e^(s − M) exactly 0.
  for (const fast_attention::TraceStep& step : causal.steps) {
    const attention::StreamingTileState& tile = step.tile;
    for (Eigen::Index i = 0; i < tile.scores.rows(); ++i) {
      for (Eigen::Index j = 0; j < tile.scores.cols(); ++j) {
        if (tile.first_key + j > tile.first_query + i) {
          CHECK(tile.scores(i, j) == -std::numeric_limits<double>::infinity());
          CHECK(tile.exponentials(i, j) == 0.0);
        }
      }
    }
  }
  // The first query sees only the first key: its output is v_1, bit for bit.
  CHECK(causal.output.row(0) == example.values.row(0));
  // Without the mask every tile is visited: 3 × 3.
  const fast_attention::Trace all = trace_of(example, 2, 2);
  CHECK(all.skipped.empty());
  CHECK(all.steps.size() == 9);
}

TEST_CASE("a rate above the peak: the peak measured again up to three times, then the rate listed as a bug", "[ch12]") {
  fast_attention::Benchmark benchmark;
  benchmark.peak_gflops = benchmark.peak_gflops_one_thread = 10.0;
  fast_attention::MethodRow row;
  row.n = 256;
  row.method = "streaming";
  row.samples = {1.0};
  row.time.median = 1.0;
  row.multiply_add_flops = 12e9;  // 12 GFLOP/s, above the peak of 10
  benchmark.rows.push_back(row);
  int calls = 0;
  // A peak that never rises: measured again three times, and the rate is a bug.
  fast_attention::hold_rates_to_the_peak(benchmark, [&](fast_attention::Benchmark&) { ++calls; });
  CHECK(calls == 3);
  CHECK_FALSE(benchmark.rows[0].gflops.has_value());
  CHECK(benchmark.rows[0].above_peak);
  REQUIRE(benchmark.above_peak.size() == 1);
  CHECK(benchmark.above_peak[0].what == "streaming at n = 256");
  CHECK(benchmark.above_peak[0].peak_gflops == 10.0);
  // A peak that rises past the rate at its second measurement: measured twice, and the rate kept.
  benchmark.above_peak.clear();
  calls = 0;
  fast_attention::hold_rates_to_the_peak(benchmark, [&](fast_attention::Benchmark& measured) {
    if (++calls == 2) measured.peak_gflops = measured.peak_gflops_one_thread = 20.0;
  });
  CHECK(calls == 2);
  CHECK(benchmark.rows[0].gflops == 12.0);
  CHECK_FALSE(benchmark.rows[0].above_peak);
  CHECK(benchmark.above_peak.empty());
  // No rate above the peak: not measured again.
  calls = 0;
  fast_attention::hold_rates_to_the_peak(benchmark, [&](fast_attention::Benchmark&) { ++calls; });
  CHECK(calls == 0);
  CHECK(benchmark.rows[0].gflops == 12.0);
}

TEST_CASE("the goals judged by the spread rule, worked by hand on made-up timings", "[ch12]") {
  // Chapter 12: "Each goal is judged met, not met, or, where the spreads leave it open, too close to call", by
  // chapter 7's rule: one is faster only if its whole spread lies below the other's. Times are in seconds.
  fast_attention::Benchmark benchmark;
  benchmark.inputs.lengths = {512, 1024};
  benchmark.peak_gflops = benchmark.peak_gflops_one_thread = 100.0;
  const auto timed = [&](std::size_t n, const char* method, double low, double high, double flops = 1.0) {
    fast_attention::MethodRow row;
    row.n = n;
    row.method = method;
    row.samples = {low, high};
    row.time = {(low + high) / 2, low, high};
    row.multiply_add_flops = flops;
    row.gflops = flops / row.time.median / 1e9;
    benchmark.rows.push_back(row);
  };
  timed(512, "streaming", 2.0, 2.2);  // slower than NumPy, but below n = 1024: not judged
  timed(512, "numpy", 1.0, 1.2);
  timed(1024, "streaming", 1.0, 1.1);
  timed(1024, "numpy", 1.6, 1.8);
  timed(1024, "tile_products_only", 1.0, 1.1, 60e9);  // 54.5 to 60 GFLOP/s, against half the peak, 50
  timed(1024, "streaming_causal", 0.5, 0.58);         // against 0.6 times the unmasked spread: 0.6 to 0.66
  const auto verdicts = [&] {
    std::vector<std::string> all;
    for (const fast_attention::Goal& goal : fast_attention::judged(benchmark)) all.push_back(goal.verdict);
    return all;
  };
  // Faster than NumPy: 1.1 < 1.6. At 1.5 times the speed: 1.5 times the spread, 1.5 to 1.65, meets 1.6 to 1.8.
  // The memory goal is counted, not timed: met for d = 64 (the chapter's 0.2 %).
  CHECK(verdicts() == std::vector<std::string>{"met", "too close to call", "met", "met", "met"});
  // The products at 1.1 to 1.25 s: 48 to 54.5 GFLOP/s, a spread that holds 50.
  benchmark.rows[4].time = {1.175, 1.1, 1.25};
  CHECK(verdicts()[2] == "too close to call");
  // A longer n at which the kernel is slower than NumPy: not met, though it was faster at 1024.
  benchmark.inputs.lengths.push_back(2048);
  timed(2048, "streaming", 5.0, 5.5);
  timed(2048, "numpy", 4.0, 4.5);
  CHECK(verdicts()[0] == "not met");
  CHECK(verdicts()[1] == "not met");
}

TEST_CASE("bytes in the unit that keeps three digits readable", "[ch12]") {
  CHECK(fast_attention::bytes_text(512) == "512 B");
  CHECK(fast_attention::bytes_text(999) == "999 B");
  CHECK(fast_attention::bytes_text(1000) == "0.977 KiB");  // 1000 / 1024 = 0.9765625
  CHECK(fast_attention::bytes_text(1536) == "1.5 KiB");
  CHECK(fast_attention::bytes_text(1023.0 * 1024) == "0.999 MiB");  // 1023 / 1024 = 0.99902
  CHECK(fast_attention::bytes_text(3.0 * 1024 * 1024 * 1024) == "3 GiB");
}

TEST_CASE("the trace's flags and the bad ones refused", "[ch12]") {
  const auto read = [](const std::vector<std::string>& arguments) {
    return chapter_support::read_flags<fast_attention::Flags>("fast_attention", "chapter 12", arguments);
  };
  const fast_attention::Inputs defaults = read({});
  CHECK_FALSE(defaults.benchmark.has_value());
  CHECK(defaults.trace.key_tile == 1);
  CHECK(defaults.trace.query_tile == 3);  // every query of the toy in one tile
  CHECK(defaults.trace.range == attention::KeyRange::all);
  CHECK(defaults.trace.example.keys == toy().keys);
  const fast_attention::Inputs causal = read({"--mask", "causal", "--tile", "2", "--query-tile", "2"});
  CHECK(causal.trace.range == attention::KeyRange::causal);
  CHECK(causal.trace.key_tile == 2);
  CHECK(causal.trace.query_tile == 2);
  CHECK_THROWS_WITH(read({"--mask", "band"}), Catch::StartsWith("--mask: 'band' is not a mask here"));
  CHECK_THROWS_WITH(read({"--tile", "0"}), Catch::StartsWith("--tile"));
  CHECK_THROWS_WITH(read({"--tile", "13"}), Catch::StartsWith("--tile"));
  CHECK_THROWS_WITH(read({"--mask", "causal", "--k", "1,0;0,1", "--v", "1;2"}),
                    Catch::StartsWith("--mask: causal needs one query per key"));
  // The kernel adds up values before it divides: a column whose sum passes the largest double is refused.
  CHECK_THROWS_WITH(read({"--v", "1.7e308;1.7e308;1"}), Catch::StartsWith("--v: the entries of column 1"));
}

}  // namespace test_fast_attention
