// Chapter 11's computation, tested in-process on models of width 4 and
// sequences of one to three digits: reversing and copying by definition; the
// held-out set drawn again here as the header describes, and every measure the
// chapter reports on it (the untrained loss against log V, accuracy per
// position, the wrong digits and where they come from, each head's weight on
// the mirrored position) recomputed from forward passes; Adam's first step on
// the one sequence training may draw, worked out from its definition; a loss
// that falls; the same seed giving the same bits, a continued run giving a run
// from scratch, the table over seeds giving each seed alone; and the flags'
// refusals. Every expected value has a reason of its own, not the program's
// output.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/cross_entropy.hpp"
#include "attention/numpy_random.hpp"
#include "attention/token_classifier.hpp"
#include "chapter_support.hpp"
#include "program/usage_error.hpp"
#include "training.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_training {

namespace {

using training::Sequence;

// Reversing n digits of V: a model of width 4 with two heads, batches of 2, every weight in the result.
training::Inputs tiny(Eigen::Index length, Eigen::Index vocabulary, long long steps, std::uint64_t seed = 1) {
  training::Inputs inputs;
  inputs.length = length;
  inputs.vocabulary = vocabulary;
  inputs.steps = steps;
  inputs.seed = seed;
  inputs.batch = 2;
  inputs.shape.vocabulary = vocabulary;
  inputs.shape.outputs = vocabulary;
  inputs.shape.d_model = 4;
  inputs.shape.heads = 2;
  inputs.shape.d_ff = 8;
  inputs.shape.layers = 1;
  inputs.log_every = 1;
  inputs.include_weights = true;
  return inputs;
}

// The held-out set as the header describes it: from the seed's generator, after the weights' draws, the
// first distinct sequences of digits drawn uniformly, min(200, V^n / 2) of them.
std::vector<Sequence> held_out_drawn(const training::Inputs& inputs) {
  attention::NumpyGenerator generator(inputs.seed);
  (void)attention::initial_token_classifier(inputs.shape, generator);
  std::uint64_t all = 1;
  for (Eigen::Index i = 0; i < inputs.length; ++i) all *= static_cast<std::uint64_t>(inputs.vocabulary);
  const std::size_t wanted = std::min<std::uint64_t>(200, all / 2);
  std::vector<Sequence> held_out;
  while (held_out.size() < wanted) {
    Sequence candidate;
    for (Eigen::Index i = 0; i < inputs.length; ++i) {
      candidate.push_back(
          static_cast<Eigen::Index>(generator.next_uint64() % static_cast<std::uint64_t>(inputs.vocabulary)));
    }
    if (std::find(held_out.begin(), held_out.end(), candidate) == held_out.end()) held_out.push_back(candidate);
  }
  return held_out;
}

Sequence reversed(const Sequence& input) { return Sequence(input.rbegin(), input.rend()); }

// The first largest entry of a row.
Eigen::Index first_largest(const Eigen::RowVectorXd& row) {
  Eigen::Index best = 0;
  for (Eigen::Index c = 1; c < row.size(); ++c) {
    if (row(c) > row(best)) best = c;
  }
  return best;
}

// −log p[target] of one row of logits: log Σ exp(z) − z[target].
double cross_entropy(const Eigen::RowVectorXd& logits, Eigen::Index target) {
  double sum = 0.0;
  for (Eigen::Index c = 0; c < logits.size(); ++c) sum += std::exp(logits(c));
  return std::log(sum) - logits(target);
}

// What the chapter reports of a model on the held-out set, from its definitions.
struct Measured {
  double loss = 0.0, variance = 0.0, accuracy = 0.0;
  std::vector<double> position_accuracy;
  long long wrong_sequences = 0, wrong_digits = 0, neighbour = 0, both_neighbours = 0, nowhere = 0;
  double nowhere_by_chance = 0.0;      // the wrong digits a random wrong answer would take from outside the input
  std::vector<Sequence> wrong_inputs;  // in held-out order
  std::vector<double> source_weight, source_peak;  // per head of the one layer
};

Measured measured(const attention::TokenClassifierWeights& weights, const std::vector<Sequence>& held_out) {
  Measured m;
  const auto n = static_cast<Eigen::Index>(held_out.front().size());
  const auto count = static_cast<double>(held_out.size());
  m.position_accuracy.assign(static_cast<std::size_t>(n), 0.0);
  m.source_weight.assign(2, 0.0);
  m.source_peak.assign(2, 0.0);
  for (const Sequence& input : held_out) {
    const attention::TokenClassifierSteps steps = attention::token_classifier(weights, input);
    const Sequence target = reversed(input);
    bool wrong = false;
    double loss = 0.0, variance = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::RowVectorXd z = steps.logits.row(i);
      const auto at = static_cast<std::size_t>(i);
      loss += cross_entropy(z, target[at]) / static_cast<double>(n);
      variance += (z.array() - z.mean()).square().mean() / static_cast<double>(n);
      const Eigen::Index answer = first_largest(z);
      if (answer == target[at]) {
        m.position_accuracy[at] += 1.0 / count;
      } else {
        wrong = true;
        ++m.wrong_digits;
        const Eigen::Index source = n - 1 - i;  // where the right digit stands in the input
        const bool left = source > 0 && input[static_cast<std::size_t>(source - 1)] == answer;
        const bool right = source + 1 < n && input[static_cast<std::size_t>(source + 1)] == answer;
        m.neighbour += left || right ? 1 : 0;
        m.both_neighbours += left && right ? 1 : 0;
        m.nowhere += std::find(input.begin(), input.end(), answer) == input.end() ? 1 : 0;
        // The right digit is in the input, so of the V − 1 wrong ones, V minus the input's distinct digits are not.
        Sequence distinct = input;
        std::sort(distinct.begin(), distinct.end());
        const auto in_input = std::unique(distinct.begin(), distinct.end()) - distinct.begin();
        m.nowhere_by_chance += static_cast<double>(z.size() - in_input) / static_cast<double>(z.size() - 1);
      }
      for (std::size_t h = 0; h < 2; ++h) {
        const attention::Matrix& w = steps.layers[0].attention.heads[h].attention.weights;
        m.source_weight[h] += w(i, n - 1 - i) / (count * static_cast<double>(n));
        m.source_peak[h] += first_largest(w.row(i)) == n - 1 - i ? 1.0 / (count * static_cast<double>(n)) : 0.0;
      }
    }
    m.loss += loss / count;
    m.variance += variance / count;
    if (wrong) {
      ++m.wrong_sequences;
      m.wrong_inputs.push_back(input);
    }
  }
  m.accuracy = 1.0 - static_cast<double>(m.wrong_digits) / (count * static_cast<double>(n));
  return m;
}

void check_held_out_measures(const training::Result& result, const std::vector<Sequence>& held_out) {
  REQUIRE(result.weights.has_value());
  const Measured m = measured(*result.weights, held_out);
  CHECK(result.held_out_count == static_cast<long long>(held_out.size()));
  CHECK(result.example_input == held_out.front());
  CHECK(result.example_target == reversed(held_out.front()));
  CHECK(result.final_accuracy == Approx(m.accuracy).epsilon(1e-14));
  REQUIRE(result.position_accuracy.size() == m.position_accuracy.size());
  for (std::size_t i = 0; i < m.position_accuracy.size(); ++i) {
    CHECK(result.position_accuracy[i] == Approx(m.position_accuracy[i]).epsilon(1e-14));
  }
  CHECK(result.wrong_sequences == m.wrong_sequences);
  CHECK(result.wrong_digits == m.wrong_digits);
  CHECK(result.wrong_from_neighbour == m.neighbour);
  CHECK(result.wrong_from_both_neighbours == m.both_neighbours);
  CHECK(result.wrong_not_in_input == m.nowhere);
  CHECK(result.wrong_not_in_input_by_chance == Approx(m.nowhere_by_chance).epsilon(1e-12));
  // The mistakes shown: the first five wrong sequences, in held-out order, each with its wrong answer.
  REQUIRE(result.mistakes.size() == std::min<std::size_t>(5, m.wrong_inputs.size()));
  for (std::size_t s = 0; s < result.mistakes.size(); ++s) {
    CHECK(result.mistakes[s].input == m.wrong_inputs[s]);
    CHECK(result.mistakes[s].target == reversed(m.wrong_inputs[s]));
    CHECK(result.mistakes[s].prediction != result.mistakes[s].target);
  }
  REQUIRE(result.source_weight.size() == 1);
  REQUIRE(result.source_weight[0].size() == 2);
  for (std::size_t h = 0; h < 2; ++h) {
    CHECK(result.source_weight[0][h] == Approx(m.source_weight[h]).epsilon(1e-13));
    CHECK(result.source_peak[0][h] == Approx(m.source_peak[h]).epsilon(1e-13));
    // The example's attention map is a map of weights: rows of n that sum to 1.
    const attention::Matrix& map = result.attention[0][h];
    CHECK(map.rows() == static_cast<Eigen::Index>(held_out.front().size()));
    CHECK((map.rowwise().sum().array() - 1.0).abs().maxCoeff() < 1e-14);
  }
}

training::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<training::Flags>("training", "chapter 11", arguments);
}

}  // namespace

TEST_CASE("reversing sends output i to input n minus 1 minus i and copying to input i", "[ch11]") {
  const Sequence input{3, 1, 4, 1, 5};
  CHECK(training::target_for(training::Task::reverse, input) == Sequence{5, 1, 4, 1, 3});
  CHECK(training::target_for(training::Task::copy, input) == input);
  for (const training::Task task : {training::Task::reverse, training::Task::copy}) {
    const Sequence target = training::target_for(task, input);
    for (Eigen::Index i = 0; i < 5; ++i) {
      CHECK(target[static_cast<std::size_t>(i)] ==
            input[static_cast<std::size_t>(training::source_position(task, i, 5))]);
    }
  }
  CHECK(training::source_position(training::Task::reverse, 0, 8) == 7);
  CHECK(training::source_position(training::Task::copy, 3, 8) == 3);
  CHECK(training::task_name(training::Task::reverse) == "reverse");
}

TEST_CASE("the untrained model on the held-out set: its loss its logits' spread and its mistakes", "[ch11]") {
  // V = 3, n = 3: 27 sequences, 13 held out. Nothing trained: the weights are the initial ones.
  const training::Inputs inputs = tiny(3, 3, 10);
  const std::vector<Sequence> held_out = held_out_drawn(inputs);
  REQUIRE(held_out.size() == 13);
  const training::Trainer trainer(inputs);
  const training::Result result = trainer.result();
  CHECK(result.steps_done == 0);
  check_held_out_measures(result, held_out);
  const Measured m = measured(*result.weights, held_out);
  CHECK(result.untrained.held_out_loss == Approx(m.loss).epsilon(1e-13));
  CHECK(result.untrained.logit_variance == Approx(m.variance).epsilon(1e-13));
  CHECK(result.untrained.uniform_loss == std::log(3.0));
  CHECK(result.untrained.predicted_loss == result.untrained.uniform_loss + result.untrained.logit_variance / 2);
  // A model that is not sure of anything: its loss lies above a uniform guess's, log V.
  CHECK(result.untrained.held_out_loss > std::log(3.0));
  // Half the sequences at most are held out, so that training has the other half: 4 of the 8 for V = 2, n = 3.
  CHECK(training::Trainer(tiny(3, 2, 1)).result().held_out_count == 4);
  CHECK(held_out_drawn(tiny(3, 2, 1)).size() == 4);
}

TEST_CASE("after a few steps every held-out measure is its definition over the held-out set", "[ch11]") {
  training::Inputs inputs = tiny(3, 3, 12, 4);
  inputs.adam.learning_rate = 0.01;
  inputs.log_every = 4;
  const training::Result result = training::compute(inputs);
  CHECK(result.steps_done == 12);
  check_held_out_measures(result, held_out_drawn(inputs));
  // What was measured before training stays the untrained model's.
  const training::Result before = training::Trainer(inputs).result();
  CHECK(result.untrained.held_out_loss == before.untrained.held_out_loss);
  // The logged accuracies are the held-out accuracy at their steps: the last one is the final accuracy.
  CHECK(result.logged_steps == std::vector<long long>{4, 8, 12});
  CHECK(result.held_out_accuracy.back() == result.final_accuracy);
}

TEST_CASE("one Adam step on the only sequence training may draw moves each weight by the learning rate", "[ch11]") {
  // V = 2, n = 1: two sequences, one held out, so every training draw is the other one.
  const training::Inputs inputs = tiny(1, 2, 1);
  const std::vector<Sequence> held_out = held_out_drawn(inputs);
  REQUIRE(held_out.size() == 1);
  const Sequence trained_on{1 - held_out.front()[0]};
  training::Trainer trainer(inputs);
  attention::TokenClassifierWeights before = *trainer.result().weights;
  trainer.advance(1);
  attention::TokenClassifierWeights after = *trainer.result().weights;
  // The gradient of the one sequence's loss; a batch of copies of it has the same mean.
  const attention::TokenClassifierSteps steps = attention::token_classifier(before, trained_on);
  const attention::CrossEntropy error = attention::softmax_cross_entropy(steps.logits, reversed(trained_on));
  attention::TokenClassifierWeights gradient =
      attention::token_classifier_backward(before, trained_on, steps, error.logits_gradient);
  const training::Result result = trainer.result();
  REQUIRE(result.first_loss.has_value());
  CHECK(*result.first_loss == Approx(error.loss).epsilon(1e-14));
  CHECK(*result.first_loss == Approx(cross_entropy(steps.logits.row(0), trained_on[0])).epsilon(1e-14));
  CHECK(result.loss == std::vector<double>{*result.first_loss});  // logged every step: step 1's loss
  // Adam's first step: m̂ = g and v̂ = g², so θ moves by α g / (|g| + ε), about α against g's sign.
  const double alpha = inputs.adam.learning_rate;
  const auto b0 = attention::parameter_blocks(before), b1 = attention::parameter_blocks(after),
             g = attention::parameter_blocks(gradient);
  REQUIRE(b0.size() == g.size());
  double largest_move = 0.0;
  for (std::size_t b = 0; b < b0.size(); ++b) {
    for (Eigen::Index e = 0; e < b0[b].size; ++e) {
      const double expected = b0[b].data[e] - alpha * g[b].data[e] / (std::abs(g[b].data[e]) + inputs.adam.epsilon);
      CHECK(b1[b].data[e] == Approx(expected).margin(1e-12));
      largest_move = std::max(largest_move, std::abs(b1[b].data[e] - b0[b].data[e]));
    }
  }
  CHECK(largest_move == Approx(alpha).epsilon(1e-6));
  // The held-out digit's embedding row gets no gradient, so it does not move at all.
  CHECK(after.embedding.row(held_out.front()[0]) == before.embedding.row(held_out.front()[0]));
}

TEST_CASE("Adam on lone weights: a gradient 10^5 times another moves its weight alike, one that turns moves less",
          "[ch11]") {
  // The library's Adam is held to its definition in tests/unit/test_training.cpp; this holds the chapter's example
  // to what the book says of it, with the run's own α. With the same g at every step the corrected means are g
  // and g², so each step is α g / (|g| + ε): α to within ε / |g| = 10⁻⁶ for the tiny gradient. With g = 1, −1, …,
  // worked out by hand from the definitions: m₁ = 0.1, v₁ = 0.02, a first step of α / (1 + ε); then
  // m₂ = 0.9 · 0.1 − 0.1 = −0.01 and v₂ = 0.98 · 0.02 + 0.02 = 0.0396 = 1 − 0.98², so the second step is back
  // by α (0.01 / 0.19) / (1 + ε).
  attention::AdamSettings settings;
  settings.learning_rate = 0.01;  // not the default: the example must use the run's α
  const training::AdamExample example = training::adam_on_lone_weights(settings);
  REQUIRE(example.weights.size() == example.gradients.size());
  REQUIRE(example.weights.size() >= 3);
  const double alpha = settings.learning_rate, epsilon = settings.epsilon;
  CHECK(example.gradients[0][0] / example.gradients[0][1] == Approx(1e5));
  for (std::size_t t = 0; t < example.weights.size(); ++t) {
    REQUIRE(example.weights[t].size() == 3);
    CHECK(example.gradients[t][0] == example.gradients[0][0]);    // the large gradient, the same at every step
    CHECK(example.gradients[t][1] == example.gradients[0][1]);    // the tiny one
    CHECK(example.gradients[t][2] == (t % 2 == 0 ? 1.0 : -1.0));  // the turning one
    for (std::size_t w = 0; w < 2; ++w) {  // the large and the tiny weight: α a step, against the gradient
      const double before = t == 0 ? 0.0 : example.weights[t - 1][w];
      CHECK(example.weights[t][w] - before == Approx(-alpha).epsilon(2e-6));
    }
  }
  CHECK(example.weights[0][2] == Approx(-alpha / (1.0 + epsilon)).epsilon(0).margin(1e-15));
  CHECK(example.weights[1][2] ==
        Approx(-alpha / (1.0 + epsilon) + alpha * (0.01 / 0.19) / (1.0 + epsilon)).epsilon(0).margin(1e-15));
  // After its first step the turning weight moves less than α, and back and forth.
  for (std::size_t t = 1; t < example.weights.size(); ++t) {
    const double move = example.weights[t][2] - example.weights[t - 1][2];
    CHECK(std::abs(move) < alpha);
    CHECK((move > 0.0) == (t % 2 == 1));
  }
}

TEST_CASE("training never draws a held-out sequence: in 200 steps the held-out digit's row never moves", "[ch11]") {
  // Chapter 11: "a training sequence equal to one of them is drawn again". V = 2, n = 1: one of the two sequences is
  // held out. A digit that is never an input gets a gradient of exactly 0 in its embedding row, and Adam moves a
  // weight whose gradients were all 0 by α·0/(0 + ε) = 0. Drawn without redrawing, the held-out sequence would be
  // among 400 draws but for a chance of 2^-400.
  const training::Inputs inputs = tiny(1, 2, 200);
  const std::vector<Sequence> held_out = held_out_drawn(inputs);
  REQUIRE(held_out.size() == 1);
  const Eigen::Index held = held_out.front()[0];
  training::Trainer trainer(inputs);
  const attention::TokenClassifierWeights before = *trainer.result().weights;
  trainer.advance(200);
  const attention::TokenClassifierWeights after = *trainer.result().weights;
  CHECK(after.embedding.row(held) == before.embedding.row(held));
  CHECK(after.embedding.row(1 - held) != before.embedding.row(1 - held));
}

TEST_CASE("on the one sequence it sees training lowers the loss at every step", "[ch11]") {
  training::Inputs inputs = tiny(1, 2, 8);
  inputs.adam.learning_rate = 0.01;
  const training::Result result = training::compute(inputs);
  REQUIRE(result.loss.size() == 8);  // logged every step: the loss of each step, before its update
  for (std::size_t s = 1; s < result.loss.size(); ++s) CHECK(result.loss[s] < result.loss[s - 1]);
  CHECK(result.loss.front() == *result.first_loss);
}

TEST_CASE("a logged loss is the mean of the steps since the previous logged point", "[ch11]") {
  training::Inputs every = tiny(3, 3, 5, 2);
  const training::Result each = training::compute(every);  // the loss of each step
  training::Inputs sparse = every;
  sparse.log_every = 2;
  const training::Result logged = training::compute(sparse);
  REQUIRE(each.loss.size() == 5);
  CHECK(logged.logged_steps == std::vector<long long>{2, 4, 5});  // every second step, and the last
  CHECK(logged.loss_from == std::vector<long long>{1, 3, 5});     // the means are over steps 1-2, 3-4 and 5
  CHECK(each.loss_from == std::vector<long long>{1, 2, 3, 4, 5});
  REQUIRE(logged.loss.size() == 3);
  CHECK(logged.loss[0] == Approx((each.loss[0] + each.loss[1]) / 2).epsilon(1e-14));
  CHECK(logged.loss[1] == Approx((each.loss[2] + each.loss[3]) / 2).epsilon(1e-14));
  CHECK(logged.loss[2] == each.loss[4]);
  CHECK(logged.final_accuracy == each.final_accuracy);  // logging does not change the training
}

TEST_CASE("the same seed gives the same bits and another seed other weights", "[ch11]") {
  const auto without_time = [](nlohmann::json document) {
    document.erase("seconds");
    document.erase("seconds_at_99");
    document.erase("steps_per_second");
    return document;
  };
  const training::Inputs inputs = tiny(3, 3, 4);
  const nlohmann::json first = without_time(training::to_json(training::compute(inputs)));
  CHECK(without_time(training::to_json(training::compute(inputs))) == first);
  const training::Result other = training::compute(tiny(3, 3, 4, 2));
  CHECK(other.weights->embedding != training::compute(inputs).weights->embedding);
}

TEST_CASE("the speed the page prints is the steps over the run's own clock and null before one is timed", "[ch11]") {
  training::Result result = training::compute(tiny(3, 3, 4));
  result.seconds = 0.5;
  CHECK(training::to_json(result).at("steps_per_second").get<double>() == 2.0 * static_cast<double>(result.steps_done));
  result.seconds = 0.0;
  CHECK(training::to_json(result).at("steps_per_second").is_null());
}

TEST_CASE("a run continued step by step gives what a run from scratch gives", "[ch11]") {
  const auto without_time = [](nlohmann::json document) {
    document.erase("seconds");
    document.erase("seconds_at_99");
    document.erase("steps_per_second");
    return document;
  };
  training::Inputs inputs = tiny(3, 3, 2);
  inputs.log_every = 2;
  training::Trainer trainer(inputs);
  trainer.advance(2);
  training::Inputs longer = inputs;
  longer.steps = 6;
  REQUIRE(trainer.can_continue_to(longer));
  trainer.extend_to(6);
  trainer.advance(4);
  CHECK(without_time(training::to_json(trainer.result())) ==
        without_time(training::to_json(training::compute(longer))));
  // Another seed, fewer steps than done, or a stop between two logged points cannot be continued.
  training::Inputs other_seed = longer;
  other_seed.seed = 2;
  CHECK_FALSE(trainer.can_continue_to(other_seed));
  training::Inputs shorter = longer;
  shorter.steps = 4;
  CHECK_FALSE(trainer.can_continue_to(shorter));
  training::Trainer odd(inputs);
  odd.advance(1);
  CHECK_FALSE(odd.can_continue_to(longer));
}

TEST_CASE("each seed of the table is that seed trained alone and the summary spans them", "[ch11]") {
  training::Inputs inputs = tiny(3, 3, 3);
  inputs.seeds = {3, 1};
  const training::SeedsResult over = training::compute_over_seeds(inputs);
  REQUIRE(over.runs.size() == 2);
  double sharpest_min = 1e9, sharpest_max = -1e9, least_min = 1e9, least_max = -1e9, accuracy_min = 1e9,
         least_peak_max = -1.0;
  long long wrong = 0, neighbour = 0, nowhere = 0, above_half = 0, at_99 = 0, at_100 = 0;
  double nowhere_by_chance = 0.0;
  for (std::size_t s = 0; s < 2; ++s) {
    const training::SeedRun& run = over.runs[s];
    CHECK(run.seed == inputs.seeds[s]);
    const training::Result alone = training::compute(tiny(3, 3, 3, inputs.seeds[s]));
    CHECK(run.final_accuracy == alone.final_accuracy);
    CHECK(run.source_weight == alone.source_weight);
    CHECK(run.source_peak == alone.source_peak);
    CHECK(run.first_step_at_99 == alone.first_step_at_99);
    CHECK(run.first_step_at_100 == alone.first_step_at_100);
    CHECK(run.wrong_digits == alone.wrong_digits);
    CHECK(run.wrong_from_neighbour == alone.wrong_from_neighbour);
    CHECK(run.wrong_not_in_input == alone.wrong_not_in_input);
    CHECK(run.wrong_not_in_input_by_chance == alone.wrong_not_in_input_by_chance);
    CHECK(run.example_source_peak == alone.example_source_peak);
    const std::vector<double>& heads = run.source_weight[0];
    sharpest_min = std::min(sharpest_min, std::max(heads[0], heads[1]));
    sharpest_max = std::max(sharpest_max, std::max(heads[0], heads[1]));
    least_min = std::min(least_min, std::min(heads[0], heads[1]));
    least_max = std::max(least_max, std::min(heads[0], heads[1]));
    const std::vector<double>& peaks = run.source_peak[0];  // the less sharp head's share of rows peaking right
    least_peak_max = std::max(least_peak_max, heads[0] < heads[1] ? peaks[0] : peaks[1]);
    accuracy_min = std::min(accuracy_min, run.final_accuracy);
    above_half += std::min(heads[0], heads[1]) > 0.5 ? 1 : 0;
    at_99 += run.first_step_at_99 ? 1 : 0;
    at_100 += run.first_step_at_100 ? 1 : 0;
    wrong += run.wrong_digits, neighbour += run.wrong_from_neighbour, nowhere += run.wrong_not_in_input;
    nowhere_by_chance += run.wrong_not_in_input_by_chance;
  }
  CHECK(over.summary.sharpest_weight_min == sharpest_min);
  CHECK(over.summary.sharpest_weight_max == sharpest_max);
  CHECK(over.summary.other_weight_min == least_min);
  CHECK(over.summary.other_weight_max == least_max);
  CHECK(over.summary.other_peak_max == least_peak_max);
  CHECK(over.summary.final_accuracy_min == accuracy_min);
  CHECK(over.summary.wrong_digits == wrong);
  CHECK(over.summary.wrong_from_neighbour == neighbour);
  CHECK(over.summary.wrong_not_in_input == nowhere);
  CHECK(over.summary.wrong_not_in_input_by_chance == Approx(nowhere_by_chance).epsilon(1e-12));
  CHECK(over.summary.seeds_with_every_head_above_half == above_half);
  CHECK(over.summary.seeds_at_99 == at_99);
  CHECK(over.summary.seeds_at_100 == at_100);
  CHECK(over.held_out_count == 13);
}

TEST_CASE("a learning rate far too large stops training with the step and the flag to change", "[ch11]") {
  training::Inputs inputs = tiny(3, 3, 5);
  inputs.adam.learning_rate = 1e200;
  CHECK_THROWS_AS(training::compute(inputs), std::runtime_error);
  CHECK_THROWS_WITH(training::compute(inputs),
                    Catch::StartsWith("training diverged at step") && Catch::Contains("--learning-rate"));
}

TEST_CASE("the flags read the defaults and refuse what cannot be trained", "[ch11]") {
  const training::Inputs defaults = read({});
  CHECK(defaults.task == training::Task::reverse);
  CHECK(defaults.length == 8);
  CHECK(defaults.vocabulary == 10);
  CHECK(defaults.steps == 1000);
  CHECK(defaults.seed == 1);
  CHECK(defaults.adam.learning_rate == 0.003);
  CHECK(defaults.batch == 16);
  CHECK(defaults.shape.d_model == 32);
  CHECK(defaults.shape.d_ff == 64);     // twice d_model
  CHECK(defaults.shape.outputs == 10);  // the output is a digit too
  CHECK(defaults.log_every == 50);
  CHECK(defaults.seeds.empty());
  CHECK(read({"--steps", "20"}).log_every == 20);  // never more than the steps
  CHECK(read({"--task", "copy"}).task == training::Task::copy);
  CHECK(read({"--seeds", "3,1"}).seeds == std::vector<std::uint64_t>{3, 1});
  CHECK_THROWS_WITH(read({"--task", "sort"}), Catch::StartsWith("--task: expected reverse or copy, not 'sort'"));
  CHECK_THROWS_WITH(read({"--vocab", "1"}), Catch::StartsWith("--vocab"));
  CHECK_THROWS_WITH(read({"--length", "33"}), Catch::StartsWith("--length"));
  CHECK_THROWS_WITH(read({"--learning-rate", "0"}),
                    Catch::StartsWith("--learning-rate is 0; expected a number above 0"));
  CHECK_THROWS_WITH(read({"--learning-rate", "1e301"}), Catch::StartsWith("--learning-rate"));
  CHECK_THROWS_WITH(read({"--learning-rate", "nan"}), Catch::StartsWith("--learning-rate"));
  CHECK_THROWS_WITH(read({"--d-model", "6"}),
                    Catch::StartsWith("--d-model is 6; each of the 2 heads needs an even share"));
  CHECK(read({"--d-model", "8"}).shape.d_ff == 16);
  CHECK_THROWS_WITH(read({"--log-every", "5000"}), Catch::StartsWith("--log-every"));
  CHECK_THROWS_WITH(read({"--seeds", "1,2", "--seed", "3"}),
                    Catch::StartsWith("--seeds: give either --seed or --seeds"));
  CHECK_THROWS_WITH(read({"--seeds", "1,2", "--weights"}), Catch::StartsWith("--seeds: --weights needs one run"));
  CHECK_THROWS_AS(read({"--seeds", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"}), program::UsageError);
}

}  // namespace test_training
