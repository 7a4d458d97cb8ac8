// Chapter 7's computation, tested in-process: path_length::compute()'s table of
// six layer types, its figures at n = 5 and n = 50 counted by hand; the stack
// depths and path lengths against reach matrices composed here from each
// layer's definition; the multiply-adds 2·n²·d and 2·n·d² equal at n = d; a
// tiny timing's rows, counted work and verdicts against the chapter's rule;
// the drawn graphs' taps at n = 8, read off the figure by hand;
// and the flags' refusals, at the limits worked out by hand. Every expected
// value has a reason of its own, not the program's output.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "chapter_support.hpp"
#include "path_length.hpp"
#include "program/usage_error.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_path_length {

namespace {

using attention::LayerCount;
using attention::LayerType;

path_length::Inputs counting(std::vector<std::size_t> lengths, std::uint64_t width, std::size_t kernel,
                             std::size_t radius) {
  path_length::Inputs inputs;
  inputs.lengths = std::move(lengths);
  inputs.width = width;
  inputs.kernel = kernel;
  inputs.radius = radius;
  inputs.timed = false;  // no timing in a counting test
  return inputs;
}

const LayerCount& row(const path_length::Result& result, std::size_t n, LayerType type) {
  for (const LayerCount& count : result.counts) {
    if (count.positions == n && count.type == type) return count;
  }
  FAIL("no row for this length and layer");
  return result.counts.front();
}

// One layer as reads[i][j]: output i reads input j. A convolution's taps lie dilation apart within
// (k − 1)/2 taps of i; restricted attention reads |i − j| ≤ R.
using Reads = std::vector<std::vector<bool>>;

Reads convolution_reads(std::size_t n, std::size_t kernel, std::size_t dilation) {
  Reads reads(n, std::vector<bool>(n, false));
  const auto reach = static_cast<long>((kernel - 1) / 2 * dilation);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const long offset = static_cast<long>(j) - static_cast<long>(i);
      reads[i][j] = offset % static_cast<long>(dilation) == 0 && offset >= -reach && offset <= reach;
    }
  }
  return reads;
}

Reads restricted_reads(std::size_t n, std::size_t radius) { return convolution_reads(n, 2 * radius + 1, 1); }

// The dilations of a dilated stack: 1, k, k², … while below n, then from 1 again.
std::size_t dilation(std::size_t n, std::size_t kernel, std::size_t level) {
  std::vector<std::size_t> powers{1};
  while (powers.back() * kernel < n) powers.push_back(powers.back() * kernel);
  return powers[level % powers.size()];
}

// Layers stacked until every output hears from every input: the stack's reach is the boolean
// product of its layers' reads.
template <typename LayerAt>
std::size_t depth_until_connected(std::size_t n, LayerAt layer_at) {
  Reads reach = layer_at(0);
  std::size_t layers = 1;
  const auto everyone = [&] {
    for (const auto& line : reach)
      for (const bool yes : line)
        if (!yes) return false;
    return true;
  };
  while (!everyone()) {
    const Reads next = layer_at(layers++);
    Reads composed(n, std::vector<bool>(n, false));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t m = 0; m < n; ++m)
        if (next[i][m])
          for (std::size_t j = 0; j < n; ++j) composed[i][j] = composed[i][j] || reach[m][j];
    reach = composed;
  }
  return layers;
}

std::size_t edges_of(const Reads& reads) {
  std::size_t edges = 0;
  for (const auto& line : reads)
    for (const bool yes : line) edges += yes ? 1 : 0;
  return edges;
}

path_length::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<path_length::Flags>("path_length", "chapter 7", arguments);
}

}  // namespace

TEST_CASE("six rows per length in the order of the table and no timing when told", "[ch07]") {
  const path_length::Result result = path_length::compute(counting({1, 5}, 4, 3, 1));
  REQUIRE(result.counts.size() == 12);
  const std::vector<LayerType> order{LayerType::self_attention,          LayerType::recurrent,
                                     LayerType::bidirectional_recurrent, LayerType::convolution,
                                     LayerType::dilated_convolution,     LayerType::restricted_self_attention};
  for (std::size_t i = 0; i < 12; ++i) {
    CHECK(result.counts[i].type == order[i % 6]);
    CHECK(result.counts[i].positions == (i < 6 ? 1U : 5U));
    CHECK(result.counts[i].paths.pairs == result.counts[i].positions * result.counts[i].positions);
  }
  CHECK_FALSE(result.timing.has_value());
  // One position: every layer joins its one input to its one output at once.
  for (std::size_t i = 0; i < 6; ++i) CHECK(result.counts[i].layers == 1);
  CHECK(row(result, 1, LayerType::bidirectional_recurrent).paths.maximum == 2);  // x → h→ → y
  CHECK(row(result, 1, LayerType::recurrent).paths.maximum == 1);                // x → h
}

TEST_CASE("five positions counted by hand for every layer type", "[ch07]") {
  // n = 5, d = 4, k = 3, R = 1.
  const path_length::Result result = path_length::compute(counting({5}, 4, 3, 1));
  const LayerCount& attention = row(result, 5, LayerType::self_attention);
  CHECK(attention.layers == 1);
  CHECK(attention.paths.maximum == 1);
  CHECK(attention.paths.connected_pairs == 25);
  CHECK(attention.sequential_steps == 1);
  CHECK(attention.edges == 25);                  // every output reads every input
  CHECK(attention.multiply_adds == 25 * 2 * 4);  // 2d per edge: q_i · k_j and w_ij v_j
  CHECK(attention.paths.to_last_output == std::vector<std::size_t>(5, 1));

  const LayerCount& recurrent = row(result, 5, LayerType::recurrent);
  CHECK(recurrent.layers == 1);                  // never stacked: output 1 never hears input 2
  CHECK(recurrent.paths.maximum == 5);           // x_1 → h_1 → … → h_5
  CHECK(recurrent.paths.connected_pairs == 15);  // output t hears inputs 1 … t: 1 + 2 + 3 + 4 + 5
  CHECK(recurrent.sequential_steps == 5);        // h_0 → h_1 → … → h_5
  CHECK(recurrent.edges == 10);                  // x_t → h_t and h_(t−1) → h_t
  CHECK(recurrent.multiply_adds == 10 * 16);     // d² per edge
  // Input j (from 0) to h_5: one edge to h_(j+1), then 5 − (j + 1) along the chain.
  CHECK(recurrent.paths.to_last_output == std::vector<std::size_t>{5, 4, 3, 2, 1});

  const LayerCount& both = row(result, 5, LayerType::bidirectional_recurrent);
  CHECK(both.layers == 1);
  CHECK(both.paths.maximum == 6);  // x_1 → h→_1 → … → h→_5 → y_5
  CHECK(both.paths.connected_pairs == 25);
  CHECK(both.edges == 30);  // six per position
  CHECK(both.multiply_adds == 30 * 16);

  const LayerCount& convolution = row(result, 5, LayerType::convolution);
  CHECK(convolution.layers == 4);  // one position each way per layer: 4 to go from 1 to 5
  CHECK(convolution.paths.maximum == 4);
  CHECK(convolution.edges == 13);  // 3 taps for 5 outputs, less one at each end
  CHECK(convolution.multiply_adds == 13 * 16);
  CHECK(convolution.stack_multiply_adds == 4 * 13 * 16);
  CHECK(convolution.sequential_steps == 1);
  CHECK(convolution.stack_sequential_steps == 4);

  // Dilations 1, then 3, then 1 again (9 is beyond n). After two layers output 2 hears only inputs 1 … 3:
  // at dilation 3 it reads itself alone, 2 − 3 and 2 + 3 lying outside. A third layer joins the rest.
  const LayerCount& dilated = row(result, 5, LayerType::dilated_convolution);
  CHECK(dilated.layers == 3);
  CHECK(dilated.paths.maximum == 3);
  CHECK(dilated.edges == 13);  // the bottom layer is contiguous
  // The middle layer: outputs 0 and 3 read 0 and 3, 1 and 4 read 1 and 4, 2 reads itself: 9 edges.
  CHECK(dilated.stack_multiply_adds == (13 + 9 + 13) * 16);

  const LayerCount& restricted = row(result, 5, LayerType::restricted_self_attention);
  CHECK(restricted.layers == 4);  // radius 1 reaches as far as a kernel of 3
  CHECK(restricted.edges == 13);
  CHECK(restricted.multiply_adds == 13 * 2 * 4);  // attention edges cost 2d
}

TEST_CASE("the fifty-word sentence: word 2 is 49 steps from word 50 in a recurrence and 1 in attention", "[ch07]") {
  const path_length::Result result = path_length::compute(counting({50}, 512, 3, 2));
  CHECK(row(result, 50, LayerType::recurrent).paths.to_last_output[1] == 49);
  CHECK(row(result, 50, LayerType::self_attention).paths.to_last_output[1] == 1);
  CHECK(row(result, 50, LayerType::recurrent).paths.maximum == 50);
  CHECK(row(result, 50, LayerType::convolution).layers == 49);                // ⌈49 / 1⌉
  CHECK(row(result, 50, LayerType::restricted_self_attention).layers == 25);  // ⌈49 / 2⌉
  CHECK(row(result, 50, LayerType::self_attention).multiply_adds == 2ULL * 50 * 50 * 512);
  CHECK(row(result, 50, LayerType::recurrent).multiply_adds == 2ULL * 50 * 512 * 512);
}

TEST_CASE("stack depths and path lengths match reach matrices composed from each layer's definition", "[ch07]") {
  for (const std::size_t kernel : {3U, 5U}) {
    for (const std::size_t radius : {1U, 3U}) {
      const std::vector<std::size_t> lengths{2, 3, 7, 10, 16, 24};
      const path_length::Result result = path_length::compute(counting(lengths, 2, kernel, radius));
      for (const std::size_t n : lengths) {
        INFO("n = " << n << ", k = " << kernel << ", R = " << radius);
        const std::size_t convolution =
            depth_until_connected(n, [&](std::size_t) { return convolution_reads(n, kernel, 1); });
        const std::size_t dilated = depth_until_connected(n, [&](std::size_t level) {
          return convolution_reads(n, kernel, dilation(n, kernel, level));
        });
        const std::size_t restricted =
            depth_until_connected(n, [&](std::size_t) { return restricted_reads(n, radius); });
        CHECK(row(result, n, LayerType::convolution).layers == convolution);
        CHECK(row(result, n, LayerType::dilated_convolution).layers == dilated);
        CHECK(row(result, n, LayerType::restricted_self_attention).layers == restricted);
        // Every edge of a stack climbs one layer: every path from bottom to top has as many edges as layers.
        for (const LayerType type : {LayerType::convolution, LayerType::dilated_convolution,
                                     LayerType::restricted_self_attention, LayerType::self_attention}) {
          const LayerCount& count = row(result, n, type);
          CHECK(count.paths.maximum == count.layers);
          CHECK(count.stack_sequential_steps == count.layers);
          CHECK(count.paths.connects_every_pair());
        }
        CHECK(row(result, n, LayerType::convolution).edges == edges_of(convolution_reads(n, kernel, 1)));
        CHECK(row(result, n, LayerType::restricted_self_attention).edges == edges_of(restricted_reads(n, radius)));
        // The recurrent chains: n steps one way, n + 1 through a read-out.
        CHECK(row(result, n, LayerType::recurrent).paths.maximum == n);
        CHECK(row(result, n, LayerType::bidirectional_recurrent).paths.maximum == n + 1);
      }
    }
  }
}

TEST_CASE("attention's 2 n squared d equals recurrence's 2 n d squared at n = d and grows faster beyond", "[ch07]") {
  const path_length::Result result = path_length::compute(counting({4, 8, 16}, 8, 3, 1));
  const auto operations = [&](std::size_t n, LayerType type) { return row(result, n, type).multiply_adds; };
  CHECK(operations(8, LayerType::self_attention) == operations(8, LayerType::recurrent));
  CHECK(operations(8, LayerType::self_attention) == 2ULL * 8 * 8 * 8);
  CHECK(operations(4, LayerType::self_attention) < operations(4, LayerType::recurrent));
  CHECK(operations(16, LayerType::self_attention) > operations(16, LayerType::recurrent));
  // Doubling n quadruples attention's work and doubles the recurrence's.
  CHECK(operations(16, LayerType::self_attention) == 4 * operations(8, LayerType::self_attention));
  CHECK(operations(16, LayerType::recurrent) == 2 * operations(8, LayerType::recurrent));
}

TEST_CASE("a tiny timing: each row's counted work and its verdict follow the chapter's rule", "[ch07]") {
  path_length::Inputs inputs = counting({3}, 4, 3, 1);
  inputs.timed = true;
  inputs.sweep = "custom";
  inputs.timed_lengths = {2, 4, 8};
  inputs.repeats = 7;
  const path_length::Result result = path_length::compute(inputs);
  REQUIRE(result.timing.has_value());
  const path_length::Timing& timing = *result.timing;
  REQUIRE(timing.rows.size() == 3);
  REQUIRE(timing.comparison.faster.size() == 3);
  std::size_t decided = 0;
  attention::Faster last = attention::Faster::too_close;
  std::size_t changes = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const path_length::TimingRow& timed = timing.rows[i];
    const std::uint64_t n = inputs.timed_lengths[i];
    CHECK(timed.n == n);
    CHECK(timed.attention_multiply_adds == 2 * n * n * 4);
    CHECK(timed.recurrent_multiply_adds == 2 * n * 4 * 4);
    REQUIRE(timed.attention_samples.size() == 7);
    REQUIRE(timed.recurrent_samples.size() == 7);
    // The median of 7 is the 4th fastest; the spread runs from the 2nd to the 6th.
    for (const auto& [samples, summary] :
         {std::pair{timed.attention_samples, timed.attention}, std::pair{timed.recurrent_samples, timed.recurrent}}) {
      std::vector<double> sorted = samples;
      std::sort(sorted.begin(), sorted.end());
      CHECK(sorted.front() > 0.0);
      CHECK(summary.median == sorted[3]);
      CHECK(summary.spread_low == sorted[1]);
      CHECK(summary.spread_high == sorted[5]);
    }
    // Faster only where one spread lies wholly below the other.
    const attention::Faster expected =
        timed.attention.spread_high < timed.recurrent.spread_low   ? attention::Faster::first
        : timed.recurrent.spread_high < timed.attention.spread_low ? attention::Faster::second
                                                                   : attention::Faster::too_close;
    CHECK(timing.comparison.faster[i] == expected);
    if (expected != attention::Faster::too_close) {
      if (decided > 0 && expected != last) ++changes;
      last = expected;
      ++decided;
    }
  }
  CHECK(timing.comparison.crossings.size() == changes);
  for (const attention::Crossing& crossing : timing.comparison.crossings) {
    CHECK_THAT(timing.summary,
               Catch::Contains(fmt::format("between n = {} and {}", crossing.below_n, crossing.above_n)));
  }
  if (decided == 0) CHECK_THAT(timing.summary, Catch::StartsWith("The two layers were too close to call at every"));
  const bool all_decided = decided == timing.rows.size();
  if (decided > 0 && changes == 0) {
    CHECK_THAT(timing.summary, Catch::Contains(all_decided ? "the curves do not cross between the timed lengths"
                                                           : "no crossing is established between the timed lengths"));
  }
}

TEST_CASE("the drawn graphs at n = 8: the figure's dark taps, worked out by hand", "[ch07]") {
  path_length::Inputs inputs = counting({8, 5}, 4, 3, 2);
  inputs.drawn = true;
  const path_length::Result result = path_length::compute(inputs);
  REQUIRE(result.drawn.size() == 5);  // Table 1's layers; not the bidirectional one
  // The inputs of output 4 (index 3), counted from 0, as the chapter's text reads them off the figure.
  const auto taps_of_output_4 = [](const attention::DependencyGraph& graph) {
    std::vector<std::size_t> taps;
    for (std::size_t j = 0; j < graph.inputs.size(); ++j) {
      const std::vector<std::size_t>& readers = graph.readers[graph.inputs[j]];
      if (std::find(readers.begin(), readers.end(), graph.outputs[3]) != readers.end()) taps.push_back(j);
    }
    return taps;
  };
  CHECK(result.drawn[0].type == LayerType::self_attention);
  CHECK(result.drawn[0].graph.edge_count() == 64);  // 8 × 8
  CHECK(taps_of_output_4(result.drawn[0].graph) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(result.drawn[1].type == LayerType::recurrent);
  CHECK(result.drawn[1].graph.edge_count() == 16);                                // x_t → h_t and h_(t−1) → h_t
  CHECK(taps_of_output_4(result.drawn[1].graph) == std::vector<std::size_t>{3});  // x_4; h_3 carries the rest
  CHECK(taps_of_output_4(result.drawn[2].graph) == std::vector<std::size_t>{2, 3, 4});  // k = 3: 3, 4 and 5
  CHECK(result.drawn[3].type == LayerType::dilated_convolution);
  CHECK(result.drawn[3].dilation == 3);
  CHECK(taps_of_output_4(result.drawn[3].graph) == std::vector<std::size_t>{0, 3, 6});  // 1, 4 and 7
  // Three taps for outputs 4 and 5 only; the others lose one to the padding (output 1 reads 1 and 4): 2 × 3 + 6 × 2.
  CHECK(result.drawn[3].graph.edge_count() == 18);
  CHECK(taps_of_output_4(result.drawn[4].graph) == std::vector<std::size_t>{1, 2, 3, 4, 5});  // R = 2: 2 to 6
  CHECK(read({"--n", "16,400", "--draw", "--no-timing"}).drawn);
  CHECK_THROWS_WITH(read({"--n", "17", "--draw"}), Catch::StartsWith("--draw: the first length of --n is 17"));
  CHECK_FALSE(read({}).drawn);
  CHECK(path_length::to_json(path_length::compute(counting({8}, 4, 3, 2))).count("drawn") == 0);
}

TEST_CASE("the flags read the lengths and the sweep and refuse what does not fit", "[ch07]") {
  const path_length::Inputs defaults = read({});
  CHECK(defaults.lengths == std::vector<std::size_t>{50});
  CHECK(defaults.width == 512);
  CHECK(defaults.kernel == 3);
  CHECK(defaults.radius == 2);
  CHECK(defaults.timed);
  CHECK(defaults.sweep == "short");
  CHECK(defaults.timed_lengths == std::vector<std::size_t>{64, 128, 256, 512});
  CHECK(defaults.repeats == 7);
  CHECK_FALSE(read({"--no-timing"}).timed);
  CHECK(read({"--sweep", "full", "--d", "8"}).timed_lengths ==
        std::vector<std::size_t>{16, 32, 64, 128, 192, 256, 384, 512, 768, 1024});
  const path_length::Inputs custom = read({"--time-n", "8,4,16,8"});
  CHECK(custom.sweep == "custom");
  CHECK(custom.timed_lengths == std::vector<std::size_t>{4, 8, 16});  // sorted, the repeat dropped
  // The graph search: 512³ + 250³ = 149 842 728 steps fit in 150 000 000; 512³ + 251³ = 150 030 979 do not.
  CHECK(read({"--n", "512,250", "--no-timing"}).lengths == std::vector<std::size_t>{512, 250});
  CHECK_THROWS_WITH(read({"--n", "512,251"}), Catch::StartsWith("--n: the lengths need about 150030979 steps"));
  // Timing at d = 512 and 7 repeats: 8 × (2·n²·512 + 2·n·512²) is 1.3e10 at n = 1024, 4.3e10 at 2048.
  CHECK(read({"--time-n", "1024"}).timed_lengths == std::vector<std::size_t>{1024});
  CHECK_THROWS_WITH(read({"--time-n", "2048"}), Catch::StartsWith("--time-n, --d and --repeats: timing would take"));
  CHECK_THROWS_WITH(read({"--kernel", "4"}), Catch::StartsWith("--kernel is 4, even"));
  CHECK_THROWS_WITH(read({"--kernel", "1"}), Catch::StartsWith("--kernel is 1, too small"));
  CHECK_THROWS_WITH(read({"--radius", "0"}), Catch::StartsWith("--radius is 0, too small"));
  CHECK_THROWS_WITH(read({"--n", "0"}), Catch::StartsWith("--n: entry 1 is 0, too small"));
  CHECK_THROWS_WITH(read({"--repeats", "6"}), Catch::StartsWith("--repeats is 6, too small"));
  CHECK_THROWS_WITH(read({"--sweep", "long"}), Catch::StartsWith("--sweep is 'long'; expected short or full"));
  CHECK_THROWS_AS(read({"--no-timing", "--sweep", "full"}), program::UsageError);
  CHECK_THROWS_AS(read({"--sweep", "full", "--time-n", "8"}), program::UsageError);
}

}  // namespace test_path_length
