// Chapter 15's computation, tested in-process: rotary_positions::turn() on the
// toy's query and key and on wider ones, against the turn written out here pair
// by pair (pair i turns by position · ω_i, ω_i = 10000^(−2i/d)) and against the
// score's closed form in the offset alone; a short training's bookkeeping held
// to what the task defines (no answer before `back`, shares of the test
// sequences, means, the rival offset and its turns), its loss going down, its
// determinism; a model's test against the book's definitions of accuracy, the
// reading head and its score by offset, computed here another way; the three
// models of a seed tested from the same weights on the same digits;
// compute()'s plan; and the flags' refusals. Every expected value
// has a reason of its own, not the program's output.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "chapter_support.hpp"
#include "program/usage_error.hpp"
#include "rotary_positions.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_rotary_positions {

namespace {

using attention::Vector;
using Positions = attention::Positions;

const double full_turn = 2.0 * std::acos(-1.0);

// ω_i = 1 / 10000^(2i/d): pair i's angle per position.
double omega(Eigen::Index pair, Eigen::Index width) {
  return std::pow(10000.0, -2.0 * static_cast<double>(pair) / static_cast<double>(width));
}

// The turn as the book writes it, row · M_p: pair (x, y) becomes (x cos a + y sin a, −x sin a + y cos a), a = p ω_i.
Vector turned(const Vector& v, Eigen::Index position) {
  Vector result(v.size());
  for (Eigen::Index i = 0; 2 * i < v.size(); ++i) {
    const double a = static_cast<double>(position) * omega(i, v.size());
    result(2 * i) = v(2 * i) * std::cos(a) + v(2 * i + 1) * std::sin(a);
    result(2 * i + 1) = -v(2 * i) * std::sin(a) + v(2 * i + 1) * std::cos(a);
  }
  return result;
}

// The score of q turned at m with k turned at n, in the offset δ = m − n alone: pair by pair,
// cos(δ ω_i) (q·k)_i + sin(δ ω_i) (q_y k_x − q_x k_y)_i.
double score_at_offset(const Vector& q, const Vector& k, Eigen::Index offset) {
  double score = 0.0;
  for (Eigen::Index i = 0; 2 * i < q.size(); ++i) {
    const double a = static_cast<double>(offset) * omega(i, q.size());
    const double x = q(2 * i), y = q(2 * i + 1), u = k(2 * i), v = k(2 * i + 1);
    score += std::cos(a) * (x * u + y * v) + std::sin(a) * (y * u - x * v);
  }
  return score;
}

// A short training on short sequences, tested on a few.
rotary_positions::Inputs short_training(long long steps) {
  rotary_positions::Inputs inputs;
  inputs.training_steps = steps;
  inputs.longest_trained = 8;
  inputs.tested_length = 12;
  inputs.tested = 10;
  inputs.batch = 4;
  return inputs;
}

rotary_positions::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<rotary_positions::Flags>("rotary_positions", "chapter 15", arguments);
}

// What a trained run must be, whatever it learned.
void check_bookkeeping(const rotary_positions::Inputs& inputs, const rotary_positions::TrainedRun& run) {
  const auto tested_length = static_cast<std::size_t>(inputs.tested_length);
  const auto back = static_cast<std::size_t>(inputs.back), longest = static_cast<std::size_t>(inputs.longest_trained);
  // Logged at every 100th step and the last.
  std::vector<long long> logged;
  for (long long step = 100; step <= inputs.training_steps; step += 100) logged.push_back(step);
  if (logged.empty() || logged.back() != inputs.training_steps) logged.push_back(inputs.training_steps);
  CHECK(run.logged_steps == logged);
  REQUIRE(run.loss.size() == logged.size());
  for (const double loss : run.loss) CHECK((std::isfinite(loss) && loss > 0.0));
  REQUIRE(run.accuracy.size() == tested_length);
  REQUIRE(run.attention_on_answer.size() == tested_length);
  double trained = 0.0, beyond = 0.0;
  for (std::size_t t = 0; t < tested_length; ++t) {
    // No answer before position `back`; elsewhere a share of the test sequences: a count over `tested`.
    if (t < back) CHECK(run.accuracy[t] == 0.0);
    if (t < back) CHECK(run.attention_on_answer[t] == 0.0);
    const double count = run.accuracy[t] * static_cast<double>(inputs.tested);
    CHECK(count == Approx(std::round(count)).margin(1e-9));
    CHECK((run.accuracy[t] >= 0.0 && run.accuracy[t] <= 1.0));
    CHECK((run.attention_on_answer[t] >= 0.0 && run.attention_on_answer[t] <= 1.0 + 1e-12));
    if (t >= back && t < longest) trained += run.accuracy[t];
    if (t >= longest) beyond += run.accuracy[t];
  }
  CHECK(run.accuracy_trained == Approx(trained / static_cast<double>(longest - back)).epsilon(1e-12));
  CHECK(run.accuracy_beyond == Approx(beyond / static_cast<double>(tested_length - longest)).epsilon(1e-12));
  CHECK((run.looking_head >= 0 && run.looking_head < inputs.shape.heads));
  // The rival: the offset other than `back` the looking head scores highest (the nearest among equal scores).
  REQUIRE(run.score_by_offset.size() == tested_length);
  Eigen::Index rival = -1;
  for (Eigen::Index offset = 0; offset < inputs.tested_length; ++offset) {
    if (offset == inputs.back) continue;
    if (rival < 0 ||
        run.score_by_offset[static_cast<std::size_t>(offset)] > run.score_by_offset[static_cast<std::size_t>(rival)]) {
      rival = offset;
    }
  }
  CHECK(run.rival_offset == rival);
  // Pair 0 turns 1 radian per place; pair i turns ω_i per place, and its distance to a whole number of turns.
  const auto gap = static_cast<double>(rival - inputs.back);
  CHECK(run.turn_between == Approx(gap).margin(1e-12));
  CHECK(run.full_turns == std::llround(gap / full_turn));
  const Eigen::Index head_width = inputs.shape.d_model / inputs.shape.heads;
  REQUIRE(run.pair_turns_from_answer.size() == static_cast<std::size_t>(head_width / 2));
  for (Eigen::Index i = 0; i < head_width / 2; ++i) {
    const double turns = gap * omega(i, head_width);
    CHECK(run.pair_turns_from_answer[static_cast<std::size_t>(i)] ==
          Approx(std::abs(turns - full_turn * std::round(turns / full_turn))).margin(1e-12));
  }
}

}  // namespace

TEST_CASE("the toy's fish query and cat key turn by one radian per position", "[ch15]") {
  const rotary_positions::Turn turn = rotary_positions::turn(rotary_positions::Inputs{});
  // q = (1 1) and k = (2 0): q · k = 2; width 2, one pair, ω_0 = 1.
  CHECK(turn.query == Vector{{1.0, 1.0}});
  CHECK(turn.key == Vector{{2.0, 0.0}});
  CHECK(turn.unturned_score == 2.0);
  CHECK(turn.angles == std::vector<double>{1.0});
  REQUIRE(turn.placements.size() == 6);  // (0 0) (2 0) (5 3) (12 10) (0 2) (7 9)
  // At (0 0) nothing turns: exactly q · k.
  CHECK(turn.placements[0].score == 2.0);
  CHECK(turn.placements[0].turned_query == turn.query);
  // (2 0) (5 3) (12 10) stand 2 apart: one score, 2 cos 2 + 2 sin 2 (q_y k_x − q_x k_y = 2).
  for (std::size_t p = 1; p <= 3; ++p) {
    CHECK(turn.placements[p].score == Approx(2 * std::cos(2.0) + 2 * std::sin(2.0)).margin(1e-13));
  }
  // (0 2) and (7 9) stand −2 apart: 2 cos 2 − 2 sin 2, another score.
  for (std::size_t p = 4; p <= 5; ++p) {
    CHECK(turn.placements[p].score == Approx(2 * std::cos(2.0) - 2 * std::sin(2.0)).margin(1e-13));
  }
  // The cos and sin of the query's turn, which the prose uses to turn it by hand: m radians at ω_0 = 1.
  CHECK(turn.placements[1].first_pair_cos == Approx(std::cos(2.0)).margin(1e-15));
  CHECK(turn.placements[1].first_pair_sin == Approx(std::sin(2.0)).margin(1e-15));
  CHECK(turn.placements[2].first_pair_sin == Approx(std::sin(5.0)).margin(1e-15));
  // q at 5 turned by hand: (1 cos 5 + 1 sin 5, −1 sin 5 + 1 cos 5).
  CHECK(turn.placements[2].query_position == 5);
  CHECK(turn.placements[2].turned_query(0) == Approx(std::cos(5.0) + std::sin(5.0)).margin(1e-15));
  CHECK(turn.placements[2].turned_query(1) == Approx(std::cos(5.0) - std::sin(5.0)).margin(1e-15));
  // The score against the offset, −40 to 40.
  REQUIRE(turn.offsets.size() == 81);
  for (std::size_t o = 0; o < 81; ++o) {
    CHECK(turn.offsets[o] == static_cast<Eigen::Index>(o) - 40);
    const auto offset = static_cast<double>(turn.offsets[o]);
    CHECK(turn.scores[o] == Approx(2 * std::cos(offset) + 2 * std::sin(offset)).margin(1e-12));
  }
}

TEST_CASE("wider turns keep lengths and score by the offset alone near the start and far from it", "[ch15]") {
  std::mt19937_64 generator(15);
  const Vector q = chapter_support::random_matrix(8, 1, generator).col(0);
  const Vector k = chapter_support::random_matrix(8, 1, generator).col(0);
  rotary_positions::Inputs inputs;
  inputs.query = q;
  inputs.key = k;
  inputs.placements = {{0, 0}, {1, 0}, {0, 1}, {40, 37}, {1003, 1000}, {100000, 99997}, {0, 100000}};
  inputs.largest_offset = 100;
  const rotary_positions::Turn turn = rotary_positions::turn(inputs);
  REQUIRE(turn.angles.size() == 4);
  for (Eigen::Index i = 0; i < 4; ++i)
    CHECK(turn.angles[static_cast<std::size_t>(i)] == Approx(omega(i, 8)).epsilon(1e-15));
  CHECK(turn.unturned_score == Approx(q.dot(k)).epsilon(1e-15));
  for (const rotary_positions::Placement& placement : turn.placements) {
    INFO("m = " << placement.query_position << " n = " << placement.key_position);
    CHECK(placement.turned_query.isApprox(turned(q, placement.query_position), 1e-12));
    CHECK(placement.turned_key.isApprox(turned(k, placement.key_position), 1e-12));
    CHECK(placement.turned_query.norm() == Approx(q.norm()).epsilon(1e-14));
    CHECK(placement.score ==
          Approx(score_at_offset(q, k, placement.query_position - placement.key_position)).margin(1e-9));
  }
  // (40 37) (1003 1000) (100000 99997) stand 3 apart: the same score, though the turned vectors differ.
  for (const std::size_t p : {4u, 5u}) CHECK(turn.placements[p].score == Approx(turn.placements[3].score).margin(1e-9));
  CHECK((turn.placements[5].turned_query - q).cwiseAbs().maxCoeff() > 0.1);
  REQUIRE(turn.scores.size() == 201);
  for (std::size_t o = 0; o < 201; ++o)
    CHECK(turn.scores[o] == Approx(score_at_offset(q, k, turn.offsets[o])).margin(1e-12));
  // The wave: 8 points per place of offset (800 / 100), through every whole offset's score, bit for bit.
  REQUIRE(turn.wave_samples == 8);
  REQUIRE(turn.wave_offsets.size() == 1601);
  REQUIRE(turn.wave_scores.size() == 1601);
  for (std::size_t o = 0; o < 201; ++o) {
    CHECK(turn.wave_offsets[8 * o] == static_cast<double>(turn.offsets[o]));
    CHECK(turn.wave_scores[8 * o] == turn.scores[o]);
  }
  CHECK(turn.wave_offsets[1] == -99.875);
}

TEST_CASE("the wave between whole offsets is the sum of each pair's cosine wave, at every point", "[ch15]") {
  // q = (1, 1), k = (2, 0): one pair; q turned by δ against k: 2 cos δ + 2 sin δ (the score at offset δ).
  rotary_positions::Inputs inputs;
  const rotary_positions::Turn toy = rotary_positions::turn(inputs);
  REQUIRE(toy.wave_samples == 8);  // 800 / 40 is more than 8
  REQUIRE(toy.wave_offsets.size() == 641);
  for (std::size_t j = 0; j < toy.wave_offsets.size(); ++j) {
    const double delta = toy.wave_offsets[j];
    CHECK(toy.wave_offsets[j] == static_cast<double>(static_cast<long long>(j) - 320) / 8.0);
    CHECK(toy.wave_scores[j] == Approx(2 * std::cos(delta) + 2 * std::sin(delta)).margin(1e-13));
  }
  // The wave peaks at 2√2 at δ = π/4 + 2πj, which no whole offset is: the wave's points come within 1e-5 of
  // the peak (−5.5 is 0.0022 from π/4 − 2π), and rise above every whole offset's score (at most 2.8226).
  const double wave_top = *std::max_element(toy.wave_scores.begin(), toy.wave_scores.end());
  CHECK(wave_top == Approx(2 * std::sqrt(2.0)).margin(1e-5));
  CHECK(wave_top > *std::max_element(toy.scores.begin(), toy.scores.end()));
  // Long ranges: fewer points per place, never fewer than one.
  inputs.largest_offset = 300;
  CHECK(rotary_positions::turn(inputs).wave_samples == 2);
  inputs.largest_offset = 1000;
  const rotary_positions::Turn longest = rotary_positions::turn(inputs);
  CHECK(longest.wave_samples == 1);
  CHECK(longest.wave_scores == longest.scores);
}

TEST_CASE("the task's loss leaves out the first positions, which have no answer", "[ch15]") {
  // Chapter 15: "The loss leaves out the first positions, which have no answer." Seven positions, three back: the
  // loss is the mean over positions 3 to 6 of −log softmax(logits at t)[word at t − 3], worked here from the
  // definition; the first three rows get no gradient, and changing them changes nothing.
  std::mt19937_64 generator(16);
  attention::Matrix logits = chapter_support::random_matrix(7, 10, generator);
  const std::vector<Eigen::Index> words{3, 1, 4, 1, 5, 9, 2};
  double by_hand = 0.0;
  for (Eigen::Index t = 3; t < 7; ++t) {
    const double log_sum = std::log(logits.row(t).array().exp().sum());
    by_hand += (log_sum - logits(t, words[static_cast<std::size_t>(t - 3)])) / 4;
  }
  const attention::CrossEntropy error = rotary_positions::task_loss(logits, words, 3);
  CHECK(error.loss == Approx(by_hand).epsilon(1e-12));
  REQUIRE(error.logits_gradient.rows() == 7);
  CHECK(error.logits_gradient.topRows(3).cwiseAbs().maxCoeff() == 0.0);
  CHECK(error.logits_gradient.bottomRows(4).cwiseAbs().maxCoeff() > 0.0);
  logits.topRows(3) = chapter_support::random_matrix(3, 10, generator);
  CHECK(rotary_positions::task_loss(logits, words, 3).loss == error.loss);
}

TEST_CASE("a query equal to its key scores highest at the offset 0", "[ch15]") {
  rotary_positions::Inputs inputs;
  inputs.ones = 4;
  inputs.largest_offset = 64;
  const rotary_positions::Turn turn = rotary_positions::turn(inputs);
  CHECK(turn.query == Vector::Ones(4));
  CHECK(turn.key == Vector::Ones(4));
  // |q|² = 4 at the offset 0; elsewhere 2 cos δ + 2 cos(δ/100) < 4.
  CHECK(turn.scores[64] == Approx(4.0).epsilon(1e-15));
  for (std::size_t o = 0; o < turn.scores.size(); ++o) {
    if (o == 64) continue;
    CHECK(turn.scores[o] < 4.0 - 1e-4);
    const auto offset = static_cast<double>(turn.offsets[o]);
    CHECK(turn.scores[o] == Approx(2 * std::cos(offset) + 2 * std::cos(offset / 100.0)).margin(1e-12));
  }
}

TEST_CASE("the turn refuses a query and a key of different or odd widths", "[ch15]") {
  rotary_positions::Inputs inputs;
  inputs.query = Vector{{1.0, 2.0, 3.0, 4.0}};
  CHECK_THROWS_AS(rotary_positions::turn(inputs), std::invalid_argument);
  inputs.key = Vector{{1.0, 2.0, 3.0}};
  inputs.query = Vector{{1.0, 2.0, 3.0}};
  CHECK_THROWS_AS(rotary_positions::turn(inputs), std::invalid_argument);
}

TEST_CASE("a short training keeps the task's books and is the same twice", "[ch15]") {
  const rotary_positions::Inputs inputs = short_training(40);
  const rotary_positions::TrainedRun run = rotary_positions::train(inputs, Positions::rotary, 2);
  check_bookkeeping(inputs, run);
  CHECK(run.scheme == Positions::rotary);
  CHECK(run.seed == 2);
  const rotary_positions::TrainedRun again = rotary_positions::train(inputs, Positions::rotary, 2);
  CHECK(again.loss == run.loss);
  CHECK(again.accuracy == run.accuracy);
  CHECK(again.score_by_offset == run.score_by_offset);
  // Another seed draws other weights and other sequences.
  CHECK(rotary_positions::train(inputs, Positions::rotary, 3).loss != run.loss);
}

TEST_CASE("a model's test counts its right answers, finds its reading head and averages that head's scores", "[ch15]") {
  // The book's definitions, computed here another way from the model's own steps: a position's accuracy is the share
  // of the test sequences in which the right digit's score beats the other nine; the reading head is the one whose
  // weight on the key `back` places back, summed over the trained positions, is largest; its score at an offset is
  // the scaled score q · k / √d_k on that diagonal of the score matrix, averaged over the sequences.
  const rotary_positions::Inputs inputs = short_training(0);
  const Positions scheme = Positions::rotary;
  const attention::TokenClassifierWeights weights = rotary_positions::starting_weights(inputs, 5);
  const std::vector<std::vector<Eigen::Index>> sequences = rotary_positions::test_sequences(inputs, 5);
  REQUIRE(sequences.size() == static_cast<std::size_t>(inputs.tested));
  const rotary_positions::TrainedRun run = rotary_positions::test_model(inputs, weights, scheme, sequences);
  const Eigen::Index length = inputs.tested_length, back = inputs.back, heads = inputs.shape.heads;
  const auto count = static_cast<double>(sequences.size());
  std::vector<double> right(static_cast<std::size_t>(length), 0.0), most(static_cast<std::size_t>(length), 0.0);
  std::vector<double> on_answer(static_cast<std::size_t>(heads), 0.0);
  std::vector<std::vector<double>> diagonal_sums(static_cast<std::size_t>(heads),
                                                 std::vector<double>(static_cast<std::size_t>(length), 0.0));
  for (const std::vector<Eigen::Index>& words : sequences) {
    REQUIRE(words.size() == static_cast<std::size_t>(length));
    const auto steps = attention::token_classifier(weights, words, attention::Visibility::causal, scheme);
    const auto& layer_heads = steps.layers.front().attention.heads;
    for (Eigen::Index t = back; t < length; ++t) {
      const Eigen::Index answer = words[static_cast<std::size_t>(t - back)];
      const auto beaten = (steps.logits.row(t).array() < steps.logits(t, answer)).count();
      if (beaten == steps.logits.cols() - 1) right[static_cast<std::size_t>(t)] += 1.0;
      double largest = 0.0;
      for (Eigen::Index h = 0; h < heads; ++h) {
        largest = std::max(largest, layer_heads[static_cast<std::size_t>(h)].attention.weights(t, t - back));
      }
      most[static_cast<std::size_t>(t)] += largest;
    }
    for (Eigen::Index h = 0; h < heads; ++h) {
      const auto& head = layer_heads[static_cast<std::size_t>(h)].attention;
      on_answer[static_cast<std::size_t>(h)] += head.weights.diagonal(-back).head(inputs.longest_trained - back).sum();
      for (Eigen::Index offset = 0; offset < length; ++offset) {
        diagonal_sums[static_cast<std::size_t>(h)][static_cast<std::size_t>(offset)] +=
            head.scaled_scores.diagonal(-offset).sum();
      }
    }
  }
  for (Eigen::Index t = 0; t < length; ++t) {
    INFO("position " << t);
    CHECK(run.accuracy[static_cast<std::size_t>(t)] == right[static_cast<std::size_t>(t)] / count);
    CHECK(run.attention_on_answer[static_cast<std::size_t>(t)] ==
          Approx(most[static_cast<std::size_t>(t)] / count).epsilon(1e-12));
  }
  const auto reading = static_cast<std::size_t>(run.looking_head);
  for (std::size_t h = 0; h < on_answer.size(); ++h) CHECK(on_answer[reading] >= on_answer[h]);
  for (Eigen::Index offset = 0; offset < length; ++offset) {
    INFO("offset " << offset);
    // A sequence of `length` words has length − offset query–key pairs that far apart.
    const double mean =
        diagonal_sums[reading][static_cast<std::size_t>(offset)] / (count * static_cast<double>(length - offset));
    CHECK(run.score_by_offset[static_cast<std::size_t>(offset)] == Approx(mean).epsilon(1e-12).margin(1e-12));
  }
  // What makes the checks above able to fail: the two heads put different weight on the answer, and the untrained
  // model is right at some answers and wrong at others.
  REQUIRE(heads == 2);
  CHECK(on_answer[0] != on_answer[1]);
  const double right_answers = std::accumulate(right.begin(), right.end(), 0.0);
  CHECK(right_answers > 0.0);
  CHECK(right_answers < count * static_cast<double>(length - back));
  // Sequences of another length, or none, are refused.
  CHECK_THROWS_AS(rotary_positions::test_model(inputs, weights, scheme, {}), std::invalid_argument);
  CHECK_THROWS_AS(rotary_positions::test_model(inputs, weights, scheme, {std::vector<Eigen::Index>(3, 1)}),
                  std::invalid_argument);
}

TEST_CASE("train() with no step tests the seed's starting weights on the seed's test digits, whatever the scheme",
          "[ch15]") {
  // The chapter: "the three models of a seed start from the same weights and read the same digits". Without a step
  // of training, train() tests the weights it starts from: for every scheme, starting_weights() on
  // test_sequences(), neither of which is told the scheme.
  const rotary_positions::Inputs inputs = short_training(0);
  for (const Positions scheme : {Positions::added, Positions::rotary, Positions::none}) {
    INFO(rotary_positions::scheme_name(scheme));
    const rotary_positions::TrainedRun untrained = rotary_positions::train(inputs, scheme, 7);
    const rotary_positions::TrainedRun expected =
        rotary_positions::test_model(inputs, rotary_positions::starting_weights(inputs, 7), scheme,
                                     rotary_positions::test_sequences(inputs, 7));
    CHECK(untrained.accuracy == expected.accuracy);
    CHECK(untrained.score_by_offset == expected.score_by_offset);
    CHECK(untrained.looking_head == expected.looking_head);
  }
  // Another seed, other weights and other digits.
  CHECK(rotary_positions::test_sequences(inputs, 8) != rotary_positions::test_sequences(inputs, 7));
  CHECK(rotary_positions::starting_weights(inputs, 8).embedding !=
        rotary_positions::starting_weights(inputs, 7).embedding);
}

TEST_CASE("training lowers the loss from where one step leaves it", "[ch15]") {
  for (const Positions scheme : {Positions::added, Positions::rotary}) {
    INFO(rotary_positions::scheme_name(scheme));
    const rotary_positions::TrainedRun one = rotary_positions::train(short_training(1), scheme, 1);
    const rotary_positions::TrainedRun more = rotary_positions::train(short_training(150), scheme, 1);
    check_bookkeeping(short_training(1), one);
    // The mean loss of steps 101 to 150 against the first step's.
    CHECK(more.loss.back() < one.loss.back() - 0.3);
    // With rotary positions the head finds the word 3 back quickly: more than three times as often right as
    // chance, 1 in 10, at the trained lengths (50 answers: chance would be 0.1 ± 0.04).
    if (scheme == Positions::rotary) CHECK(more.accuracy_trained > 0.3);
  }
}

TEST_CASE("compute trains each scheme for each seed as train does alone", "[ch15]") {
  rotary_positions::Inputs inputs = short_training(3);
  inputs.schemes = {Positions::none, Positions::added};
  inputs.seeds = {1, 2};
  const rotary_positions::Result result = rotary_positions::compute(inputs);
  REQUIRE(result.runs.size() == 4);
  const std::vector<std::pair<Positions, std::uint64_t>> plan{{Positions::none, 1},
                                                              {Positions::none, 2},
                                                              {Positions::added, 1},
                                                              {Positions::added, 2}};
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(std::make_pair(result.runs[r].scheme, result.runs[r].seed) == plan[r]);
    check_bookkeeping(inputs, result.runs[r]);
  }
  CHECK(rotary_positions::train(inputs, Positions::added, 2).accuracy == result.runs[3].accuracy);
  // The parameters: the embedding and read-out of 10 digits, W^Q, W^K, W^V and W^O (d × d each), two LayerNorms,
  // the feed-forward network; positions, added or turned, have none.
  const long long d = 32, f = 64, v = 10;
  CHECK(result.parameters == v * d + (4 * d * d + 4 * d + d * f + f + f * d + d) + d * v + v);
  // Without training: the turn alone.
  inputs.train = false;
  const rotary_positions::Result turn_only = rotary_positions::compute(inputs);
  CHECK(turn_only.runs.empty());
  CHECK(turn_only.turn.scores == result.turn.scores);
}

TEST_CASE("among the trained offsets, six places beyond `back` look most like it to the fastest pair", "[ch15]") {
  // The default task trains offsets 0 to 15 with back 3: gaps −3 to 12. Pair 0 turns 1 radian per place, and 2π is
  // about 6.283: the gap 6 is 0.283 from one whole turn, 12 is 0.566 from two, and no gap from −3 to 3 makes half a
  // turn. So offset 9. Pair 1 of a 16-wide head turns 6 · 10000^(−1/8), about 1.90 radians: far from a whole turn.
  const rotary_positions::Inputs inputs;
  const std::optional<rotary_positions::NearAlike> found = rotary_positions::trained_near_alike(inputs);
  REQUIRE(found.has_value());
  const rotary_positions::NearAlike& near = *found;
  CHECK(near.offset == 9);
  CHECK(near.turn_between == 6.0);
  REQUIRE(near.pair_turns_from_answer.size() == 8);
  CHECK(near.pair_turns_from_answer[0] == Approx(full_turn - 6.0).margin(1e-12));
  CHECK(near.pair_turns_from_answer[1] == Approx(6.0 * omega(1, 16)).margin(1e-12));
  CHECK(near.pair_turns_from_answer[1] > 1.8);
  // A longer training reaches the gap 12 but not 19 (three turns, 0.150 off): the gap 6 stays the nearest.
  rotary_positions::Inputs longer = inputs;
  longer.longest_trained = 22;
  CHECK(rotary_positions::trained_near_alike(longer).value().offset == 9);
  longer.longest_trained = 23;  // offset 22, the gap 19, is now trained
  CHECK(rotary_positions::trained_near_alike(longer).value().offset == 22);
  // Offsets 0 to 5 with back 3: gaps −3 to 2, none as much as half a turn (π ≈ 3.14), so none.
  rotary_positions::Inputs shorter = inputs;
  shorter.longest_trained = 6;
  CHECK_FALSE(rotary_positions::trained_near_alike(shorter).has_value());
  // compute() carries it.
  rotary_positions::Inputs turn_only = inputs;
  turn_only.train = false;
  const rotary_positions::Result result = rotary_positions::compute(turn_only);
  CHECK(result.trained_near_alike.value().offset == 9);
  // The farthest trained offset, 15, is 12 places beyond `back`: pair i turns 12 · 10000^(−2i/16) there, pair 2
  // about 1.2 radians and pair 3 about 0.38.
  REQUIRE(result.pair_turns_in_training.size() == 8);
  for (Eigen::Index i = 0; i < 8; ++i) {
    CHECK(result.pair_turns_in_training[static_cast<std::size_t>(i)] ==
          Approx(12.0 * std::pow(10000.0, -2.0 * static_cast<double>(i) / 16.0)).epsilon(1e-13));
  }
  CHECK(result.pair_turns_in_training[2] == Approx(1.2).epsilon(1e-12));
}

TEST_CASE("the flags read a turn and a training and refuse what does not fit", "[ch15]") {
  const rotary_positions::Inputs defaults = read({});
  CHECK(defaults.query.size() == 0);
  CHECK(defaults.train);
  CHECK(defaults.schemes == std::vector<Positions>{Positions::added, Positions::rotary, Positions::none});
  CHECK(defaults.training_steps == 1000);
  CHECK(defaults.placements.size() == 6);
  const rotary_positions::Inputs chosen =
      read({"--q", "1,0,0,1", "--k", "0,1,1,0", "--placements", "3,1;0,4", "--schemes", "rotary", "--seeds", "4,5"});
  CHECK(chosen.query == Vector{{1.0, 0.0, 0.0, 1.0}});
  CHECK(chosen.placements == std::vector<std::pair<Eigen::Index, Eigen::Index>>{{3, 1}, {0, 4}});
  CHECK(chosen.schemes == std::vector<Positions>{Positions::rotary});
  CHECK(chosen.seeds == std::vector<std::uint64_t>{4, 5});
  CHECK_FALSE(read({"--no-training"}).train);
  CHECK_THROWS_WITH(read({"--q", "1,2,3"}), Catch::StartsWith("--q: expected an even number of entries"));
  CHECK_THROWS_WITH(read({"--k", "1,2,3,4"}), Catch::StartsWith("--k: the key has 4 entries and the query 2"));
  CHECK_THROWS_WITH(read({"--q", "1e7,0"}), Catch::StartsWith("--q: entries must lie within"));
  CHECK_THROWS_WITH(read({"--ones", "3"}), Catch::StartsWith("--ones: expected an even width"));
  CHECK_THROWS_WITH(read({"--ones", "2", "--q", "1,1"}), Catch::Contains("--ones"));
  CHECK_THROWS_WITH(read({"--placements", "0,-1"}), Catch::StartsWith("--placements: positions are whole numbers"));
  CHECK_THROWS_WITH(read({"--placements", "1.5,0"}), Catch::StartsWith("--placements: positions are whole numbers"));
  CHECK_THROWS_WITH(read({"--placements", "1,2,3"}), Catch::StartsWith("--placements: expected 1 to 20 pairs"));
  CHECK_THROWS_WITH(read({"--largest-offset", "0"}), Catch::StartsWith("--largest-offset"));
  CHECK_THROWS_WITH(read({"--schemes", "added,rotery"}),
                    Catch::StartsWith("--schemes: expected added, rotary or none"));
  CHECK_THROWS_WITH(read({"--schemes", "rotary,none,rotary"}), Catch::StartsWith("--schemes: rotary is listed twice"));
  CHECK_THROWS_WITH(read({"--back", "9"}), Catch::StartsWith("--back"));
  CHECK_THROWS_WITH(read({"--back", "5", "--longest-trained", "5"}), Catch::StartsWith("--longest-trained"));
  CHECK_THROWS_WITH(read({"--longest-trained", "20", "--tested-length", "19"}), Catch::StartsWith("--tested-length"));
  CHECK_THROWS_WITH(read({"--no-training", "--seeds", "2"}), Catch::Contains("--no-training"));
}

}  // namespace test_rotary_positions
