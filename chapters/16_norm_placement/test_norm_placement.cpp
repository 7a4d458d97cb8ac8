// Chapter 16's computation, tested in-process: norm_placement::compute()'s
// worked example against LayerNorm and RMSNorm worked by hand; the warm-up's
// rate against its definition, and what it implies of whole runs (a warm-up of
// one step is none; while it lasts only rate / steps matters); a short run's
// bookkeeping held to the chapter's rules (final loss, diverged, accuracy,
// learned); the grid's plan, cells and parameter counts from the shapes; the
// refusals of compute() and of the flags. Every expected value has a reason of
// its own, not the program's output.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "chapter_support.hpp"
#include "norm_placement.hpp"
#include "program/usage_error.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_norm_placement {

namespace {

using attention::LayerLayout;
using attention::NormKind;
using attention::NormPlacement;

constexpr double epsilon = 1e-5;  // both norms' ε, as chapter 8 gives LayerNorm's

const LayerLayout post_layer{NormPlacement::post, NormKind::layer_norm};
const LayerLayout post_rms{NormPlacement::post, NormKind::rms_norm};
const LayerLayout pre_layer{NormPlacement::pre, NormKind::layer_norm};
const LayerLayout pre_rms{NormPlacement::pre, NormKind::rms_norm};

norm_placement::Norms norms_of(std::vector<double> row) {
  norm_placement::Inputs inputs;
  inputs.row = std::move(row);
  inputs.train = false;
  return norm_placement::compute(inputs).norms;
}

// A short grid: two layers, a few steps of four sequences, a few held-out ones.
norm_placement::Inputs small(long long steps) {
  norm_placement::Inputs inputs;
  inputs.training_steps = steps;
  inputs.shape.layers = 2;
  inputs.batch = 4;
  inputs.tested = 10;
  inputs.log_every = 10;
  inputs.final_points = 2;
  return inputs;
}

norm_placement::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<norm_placement::Flags>("norm_placement", "chapter 16", arguments);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// What a run must be, whatever it learned.
void check_bookkeeping(const norm_placement::Inputs& inputs, const norm_placement::TrainedRun& run) {
  std::vector<long long> logged;
  for (long long step = inputs.log_every; step <= inputs.training_steps; step += inputs.log_every)
    logged.push_back(step);
  if (logged.empty() || logged.back() != inputs.training_steps) logged.push_back(inputs.training_steps);
  REQUIRE(run.stopped_at == 0);  // every run here stays finite
  CHECK(run.logged_steps == logged);
  REQUIRE(run.loss.size() == logged.size());
  // The final loss: the mean of the last final_points logged points.
  const auto points = std::min(static_cast<std::size_t>(inputs.final_points), run.loss.size());
  double sum = 0.0;
  for (std::size_t i = run.loss.size() - points; i < run.loss.size(); ++i) sum += run.loss[i];
  CHECK(run.final_loss == Approx(sum / static_cast<double>(points)).epsilon(1e-14));
  // Diverged: ended above the untrained model's loss. Learned: right on at least learned_accuracy of the digits.
  CHECK(run.diverged == (run.final_loss > run.untrained_loss));
  const double count = run.accuracy * static_cast<double>(inputs.tested * inputs.length);
  CHECK(count == Approx(std::round(count)).margin(1e-9));
  CHECK((run.accuracy >= 0.0 && run.accuracy <= 1.0));
  CHECK(run.learned == (run.accuracy >= inputs.learned_accuracy));
  CHECK((std::isfinite(run.untrained_loss) && run.untrained_loss > 0.0));
}

}  // namespace

TEST_CASE("the book's row through both norms worked by hand", "[ch16]") {
  const norm_placement::Norms norms = norms_of({2, 4, 6, 8});
  // Mean 5; variance (9 + 1 + 1 + 9) / 4 = 5; mean square (4 + 16 + 36 + 64) / 4 = 30: all exact.
  CHECK(norms.mean == 5.0);
  CHECK(norms.variance == 5.0);
  CHECK(norms.mean_square == 30.0);
  // LayerNorm: (−3 −1 1 3) / √(5 + ε); RMSNorm: (2 4 6 8) / √(30 + ε), every entry positive.
  const std::vector<double> deviations{-3, -1, 1, 3}, entries{2, 4, 6, 8};
  REQUIRE(norms.layer_norm.size() == 4);
  REQUIRE(norms.rms_norm.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(norms.layer_norm[i] == Approx(deviations[i] / std::sqrt(5 + epsilon)).epsilon(1e-15));
    CHECK(norms.rms_norm[i] == Approx(entries[i] / std::sqrt(30 + epsilon)).epsilon(1e-15));
  }
}

TEST_CASE("one entry and a constant row: LayerNorm says 0 and RMSNorm the sign", "[ch16]") {
  const norm_placement::Norms one = norms_of({7});
  CHECK(one.layer_norm == std::vector<double>{0.0});
  CHECK(one.rms_norm[0] == Approx(7 / std::sqrt(49 + epsilon)).epsilon(1e-15));
  const norm_placement::Norms constant = norms_of({-3, -3, -3});
  CHECK(constant.layer_norm == std::vector<double>{0.0, 0.0, 0.0});
  for (const double entry : constant.rms_norm) CHECK(entry == Approx(-3 / std::sqrt(9 + epsilon)).epsilon(1e-15));
  // Scaling a row by c moves neither norm but for ε: RMSNorm(c x) = x / √(ms + ε / c²).
  const norm_placement::Norms scaled = norms_of({2000, 4000, 6000, 8000});
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(scaled.rms_norm[i] ==
          Approx(2.0 * static_cast<double>(i + 1) / std::sqrt(30 + epsilon / 1e6)).epsilon(1e-14));
  }
}

TEST_CASE("the warm-up climbs in a straight line from zero to the rate", "[ch16]") {
  // rate · step / W until step W, then the rate; no warm-up, the rate from the first step.
  CHECK(norm_placement::warmed_up_rate(0.01, 0, 1) == 0.01);
  CHECK(norm_placement::warmed_up_rate(0.01, 150, 1) == Approx(0.01 / 150).epsilon(1e-15));
  CHECK(norm_placement::warmed_up_rate(0.01, 150, 75) == Approx(0.005).epsilon(1e-15));
  CHECK(norm_placement::warmed_up_rate(0.01, 150, 150) == 0.01);
  CHECK(norm_placement::warmed_up_rate(0.01, 150, 700) == 0.01);
  CHECK(norm_placement::warmed_up_rate(0.03, 1, 1) == 0.03);
}

TEST_CASE("a warm-up of one step is none and while one lasts only rate over steps matters", "[ch16]") {
  const norm_placement::Inputs inputs = small(20);
  const norm_placement::TrainedRun none = norm_placement::train(inputs, pre_layer, 0, 0.01, 1);
  const norm_placement::TrainedRun one = norm_placement::train(inputs, pre_layer, 1, 0.01, 1);
  CHECK(one.untrained_loss == none.untrained_loss);
  CHECK(one.logged_steps == none.logged_steps);
  CHECK(one.loss == none.loss);
  CHECK(one.final_loss == none.final_loss);
  CHECK(one.diverged == none.diverged);
  CHECK(one.accuracy == none.accuracy);
  CHECK(one.learned == none.learned);
  // A warm-up of two steps halves the first step's rate: another run.
  CHECK(norm_placement::train(inputs, pre_layer, 2, 0.01, 1).loss != none.loss);
  // 0.02 over 200 steps is 0.01 over 100, step for step (doubling both is exact in binary), for these 20 steps.
  const norm_placement::TrainedRun hundred = norm_placement::train(inputs, pre_layer, 100, 0.01, 1);
  const norm_placement::TrainedRun doubled = norm_placement::train(inputs, pre_layer, 200, 0.02, 1);
  CHECK(doubled.loss == hundred.loss);
  CHECK(doubled.final_loss == hundred.final_loss);
  CHECK(doubled.accuracy == hundred.accuracy);
  CHECK(hundred.loss != none.loss);
  // The untrained model is the seed's, whatever the warm-up and the rate.
  CHECK(hundred.untrained_loss == none.untrained_loss);
}

TEST_CASE("a layer's gradient length counts its sub-layers' entries and none of its norms'", "[ch16]") {
  // Every entry of the attention and the feed-forward network 1, every norm's gain and bias 100: the length is
  // the root of the number of sub-layer entries, 33; a norm counted would put it above 100.
  attention::EncoderLayerWeights layer;
  const auto ones = [](Eigen::Index rows, Eigen::Index columns) { return attention::Matrix::Ones(rows, columns); };
  layer.attention.heads.push_back({ones(2, 2), ones(2, 2), ones(2, 2)});                                  // 12 entries
  layer.attention.output = ones(2, 2);                                                                    // 4
  layer.feed_forward = {ones(2, 3), attention::Vector::Ones(3), ones(3, 2), attention::Vector::Ones(2)};  // 17
  const attention::LayerNormParameters norm{attention::Vector::Constant(2, 100.0),
                                            attention::Vector::Constant(2, 100.0)};
  layer.attention_norm = norm;
  layer.feed_forward_norm = norm;
  CHECK(norm_placement::sub_layers_gradient_length(layer) == Approx(std::sqrt(33.0)).epsilon(1e-15));
}

TEST_CASE("a short pre-norm run lowers its loss and keeps its books", "[ch16]") {
  const norm_placement::Inputs inputs = small(60);
  for (const LayerLayout& layout : {pre_layer, pre_rms}) {
    INFO(norm_placement::layout_name(layout));
    const norm_placement::TrainedRun run = norm_placement::train(inputs, layout, 0, 0.01, 2);
    check_bookkeeping(inputs, run);
    CHECK(run.layout.placement == layout.placement);
    CHECK(run.layout.norm == layout.norm);
    // Sixty steps bring the loss well under the untrained model's, and under ln 10, a uniform guess.
    CHECK(run.final_loss < run.untrained_loss - 0.2);
    CHECK(run.final_loss < std::log(10.0));
    CHECK_FALSE(run.diverged);
    // The same inputs, the same run.
    CHECK(norm_placement::train(inputs, layout, 0, 0.01, 2).loss == run.loss);
  }
}

TEST_CASE("too high a rate ends above the untrained model's loss: diverged", "[ch16]") {
  const norm_placement::Inputs inputs = small(30);
  const norm_placement::TrainedRun run = norm_placement::train(inputs, post_layer, 0, 1.0, 1);
  check_bookkeeping(inputs, run);
  // Adam at rate 1 moves every weight by about 1 a step: the scores blow up, and the loss ends far above a uniform
  // guess, ln 10, and above the untrained model's.
  CHECK(run.final_loss > 2 * std::log(10.0));
  CHECK(run.diverged);
  CHECK_FALSE(run.learned);
}

TEST_CASE("a logged loss is the mean of the steps since the one logged before", "[ch16]") {
  // Chapter 16: "The program logs the mean loss of every 25 steps". Logging changes nothing in training, so a run
  // logged every step gives each step's loss, and one logged every 5 steps must give their means.
  norm_placement::Inputs every_step = small(20), every_fifth = small(20);
  every_step.log_every = 1;
  every_fifth.log_every = 5;
  const norm_placement::TrainedRun steps = norm_placement::train(every_step, pre_layer, 0, 0.01, 1);
  const norm_placement::TrainedRun fifths = norm_placement::train(every_fifth, pre_layer, 0, 0.01, 1);
  REQUIRE(steps.loss.size() == 20);
  REQUIRE(fifths.loss.size() == 4);
  for (std::size_t j = 0; j < 4; ++j) {
    double sum = 0.0;
    for (std::size_t s = 5 * j; s < 5 * j + 5; ++s) sum += steps.loss[s];
    CHECK(fifths.loss[j] == Approx(sum / 5).epsilon(1e-14));
  }
}

TEST_CASE("a run whose scores stop being numbers stops there and counts as diverged", "[ch16]") {
  // Chapter 16: "It stops too when a score or logit is not a number … It counts as diverged then." At rate 1e300
  // Adam's first step moves every weight with a gradient by about 1e300 (its first step is about the rate, whatever
  // the gradient's size): at step 2 the scores overflow, and the library refuses them before any loss is computed.
  const norm_placement::Inputs inputs = small(20);
  const norm_placement::TrainedRun run = norm_placement::train(inputs, post_layer, 0, 1e300, 1);
  CHECK(run.stopped_at == 2);
  CHECK(run.logged_steps.empty());  // the first log would have been at step 10
  CHECK(std::isinf(run.final_loss));
  CHECK(run.diverged);
  CHECK(run.accuracy == 0.0);
  CHECK_FALSE(run.learned);
}

TEST_CASE("the grid runs each layout warm-up rate and seed and sums up each cell", "[ch16]") {
  norm_placement::Inputs inputs = small(10);
  inputs.layouts = {post_layer, pre_rms};
  inputs.warmups = {0, 5};
  inputs.learning_rates = {0.01};
  inputs.seeds = {1, 2, 3};
  const norm_placement::Result result = norm_placement::compute(inputs);
  CHECK(result.uniform_loss == Approx(std::log(10.0)).epsilon(1e-15));
  REQUIRE(result.runs.size() == 12);
  std::size_t r = 0;
  for (const LayerLayout& layout : inputs.layouts) {
    for (const long long warmup : inputs.warmups) {
      for (const std::uint64_t seed : inputs.seeds) {
        const norm_placement::TrainedRun& run = result.runs[r++];
        CHECK(norm_placement::layout_name(run.layout) == norm_placement::layout_name(layout));
        CHECK(run.warmup == warmup);
        CHECK(run.seed == seed);
        check_bookkeeping(inputs, run);
      }
    }
  }
  REQUIRE(result.cells.size() == 4);
  for (std::size_t c = 0; c < 4; ++c) {
    const norm_placement::Cell& cell = result.cells[c];
    CHECK(cell.runs == std::vector<std::size_t>{3 * c, 3 * c + 1, 3 * c + 2});
    std::vector<double> losses, accuracies;
    Eigen::Index diverged = 0, learned = 0;
    for (const std::size_t i : cell.runs) {
      losses.push_back(result.runs[i].final_loss);
      accuracies.push_back(result.runs[i].accuracy);
      diverged += result.runs[i].diverged ? 1 : 0;
      learned += result.runs[i].learned ? 1 : 0;
    }
    CHECK(cell.median_final_loss == median(losses));
    CHECK(cell.median_accuracy == median(accuracies));
    CHECK(cell.diverged == diverged);
    CHECK(cell.learned == learned);
  }
  // The layouts are different models: the same seed's untrained losses differ.
  CHECK(result.runs[0].untrained_loss != result.runs[6].untrained_loss);
  // A run alone is its row of the grid, though the grid ran its runs side by side.
  const norm_placement::TrainedRun alone = norm_placement::train(inputs, pre_rms, 5, 0.01, 2);
  CHECK(alone.loss == result.runs[10].loss);
  CHECK(alone.accuracy == result.runs[10].accuracy);
}

TEST_CASE("the learned numbers counted from the shapes of each layout", "[ch16]") {
  norm_placement::Inputs inputs = small(1);
  inputs.shape.layers = 4;
  inputs.warmups = {0};
  inputs.seeds = {1};
  const norm_placement::Result result = norm_placement::compute(inputs);
  REQUIRE(result.parameters.size() == 4);
  // d = 16, d_ff = 32, 10 digits. A layer: W^Q, W^K, W^V, W^O (4 d²), W₁, b₁, W₂, b₂, and two norms of a gain and,
  // for LayerNorm, a bias. The embedding and the read-out with its bias; pre-norm adds one norm at the top.
  const long long d = 16, f = 32, v = 10, layers = 4;
  const long long body = v * d + layers * (4 * d * d + d * f + f + f * d + d) + d * v + v;
  CHECK(result.parameters[0] == body + layers * 2 * 2 * d);           // post, LayerNorm
  CHECK(result.parameters[0] == 160 + 4 * (1024 + 1072 + 64) + 170);  // the same, by hand
  CHECK(result.parameters[1] == body + layers * 2 * d);               // post, RMSNorm
  CHECK(result.parameters[2] == body + layers * 2 * 2 * d + 2 * d);   // pre, LayerNorm
  CHECK(result.parameters[3] == body + layers * 2 * d + d);           // pre, RMSNorm
}

TEST_CASE("compute refuses a grid it cannot run", "[ch16]") {
  norm_placement::Inputs inputs = small(1);
  inputs.row.clear();
  CHECK_THROWS_AS(norm_placement::compute(inputs), std::invalid_argument);
  inputs = small(1);
  inputs.seeds.clear();
  CHECK_THROWS_AS(norm_placement::compute(inputs), std::invalid_argument);
  inputs = small(1);
  inputs.warmups = {-1};
  CHECK_THROWS_AS(norm_placement::compute(inputs), std::invalid_argument);
  inputs = small(1);
  inputs.learning_rates = {0.0};
  CHECK_THROWS_AS(norm_placement::compute(inputs), std::invalid_argument);
  inputs = small(1);
  inputs.final_points = 0;
  CHECK_THROWS_AS(norm_placement::compute(inputs), std::invalid_argument);
}

TEST_CASE("the flags read a grid and refuse what does not fit", "[ch16]") {
  const norm_placement::Inputs defaults = read({});
  CHECK(defaults.row == std::vector<double>{2, 4, 6, 8});
  CHECK(defaults.layouts.size() == 4);
  CHECK(defaults.warmups == std::vector<long long>{0, 150});
  CHECK(defaults.learning_rates == std::vector<double>{0.01});
  CHECK(defaults.seeds == std::vector<std::uint64_t>{1});
  CHECK(defaults.training_steps == 700);
  CHECK(defaults.shape.layers == 4);
  const norm_placement::Inputs chosen =
      read({"--layouts", "pre_rms_norm,post_layer_norm", "--rates", "0.005,0.03", "--layers", "2"});
  REQUIRE(chosen.layouts.size() == 2);
  CHECK(norm_placement::layout_name(chosen.layouts[0]) == "pre_rms_norm");
  CHECK(norm_placement::layout_name(chosen.layouts[1]) == "post_layer_norm");
  CHECK(chosen.learning_rates == std::vector<double>{0.005, 0.03});
  CHECK(chosen.shape.layers == 2);
  CHECK(read({"--warmups", "0,1,2,100"}).warmups == std::vector<long long>{0, 1, 2, 100});
  CHECK_FALSE(read({"--no-training", "--row", "1,2"}).train);
  CHECK_THROWS_WITH(read({"--layouts", "pre_norm"}), Catch::StartsWith("--layouts: expected post_layer_norm"));
  CHECK_THROWS_WITH(read({"--layouts", "pre_rms_norm,pre_rms_norm"}),
                    Catch::StartsWith("--layouts: pre_rms_norm is listed twice"));
  CHECK_THROWS_WITH(read({"--rates", "0"}), Catch::StartsWith("--rates: each rate must be above 0 and at most 1"));
  CHECK_THROWS_WITH(read({"--rates", "1.5"}), Catch::StartsWith("--rates: each rate must be above 0"));
  CHECK_THROWS_WITH(read({"--warmups", "5001"}), Catch::StartsWith("--warmups"));
  // A warm-up must end by the last step; the refusal names the flag typed.
  CHECK_THROWS_WITH(read({"--training-steps", "100"}),
                    Catch::StartsWith("--training-steps is 100, fewer than the default warm-up of 150 steps"));
  CHECK_THROWS_WITH(read({"--warmups", "101", "--training-steps", "100"}),
                    Catch::StartsWith("--warmups: a warm-up of 101 steps does not end within the 100 steps"));
  CHECK(read({"--training-steps", "150"}).warmups == std::vector<long long>{0, 150});  // full rate at step 150
  CHECK_THROWS_WITH(read({"--warmups", "0,150,0"}), "--warmups: 0 is listed twice");
  CHECK_THROWS_WITH(read({"--rates", "0.01,0.03,0.01"}), "--rates: 0.01 is listed twice");
  CHECK_THROWS_WITH(read({"--layers", "9"}), Catch::StartsWith("--layers"));
  CHECK_THROWS_WITH(read({"--training-steps", "0"}), Catch::StartsWith("--training-steps"));
  CHECK_THROWS_WITH(read({"--row", "1e7"}), Catch::StartsWith("--row: entries must lie within"));
  CHECK_THROWS_WITH(read({"--no-training", "--seeds", "2"}), Catch::Contains("--no-training"));
}

}  // namespace test_norm_placement
