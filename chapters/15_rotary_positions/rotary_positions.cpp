#include "rotary_positions.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "attention/batch_gradient.hpp"
#include "attention/cross_entropy.hpp"
#include "attention/numpy_random.hpp"
#include "attention/positional_encoding.hpp"
#include "attention/rotary.hpp"
#include "attention/worker_threads.hpp"
#include "program/trainings.hpp"

namespace rotary_positions {

std::string scheme_name(attention::Positions scheme) {
  switch (scheme) {
    case attention::Positions::added:
      return "added";
    case attention::Positions::rotary:
      return "rotary";
    case attention::Positions::none:
      return "none";
  }
  return "?";
}

attention::TokenClassifierShape Inputs::default_shape() {
  attention::TokenClassifierShape shape;
  shape.vocabulary = shape.outputs = 10;  // the digits 0 to 9, read and said
  shape.d_model = 32;
  shape.heads = 2;
  shape.d_ff = 64;
  shape.layers = 1;
  return shape;
}

attention::AdamSettings Inputs::faster_adam() {
  attention::AdamSettings settings;
  settings.learning_rate = 0.006;
  return settings;
}

namespace {

const double full_turn = 2.0 * std::acos(-1.0);  // radians

// How far each pair of a head head_width wide turns over gap positions, from a whole number of turns.
std::vector<double> pair_turns_from_whole(Eigen::Index gap, Eigen::Index head_width) {
  std::vector<double> from_whole;
  for (Eigen::Index i = 0; 2 * i < head_width; ++i) {
    const double pair_turn = static_cast<double>(gap) * attention::angular_frequency(i, head_width);
    from_whole.push_back(std::abs(pair_turn - std::round(pair_turn / full_turn) * full_turn));
  }
  return from_whole;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The score of the query turned as at m and the key as at n, where m and n need not be whole.
double score_between(const attention::Vector& query, const attention::Vector& key, double m, double n) {
  const attention::Vector turned_query = attention::rotated_at_position(query.transpose(), m).transpose();
  const attention::Vector turned_key = attention::rotated_at_position(key.transpose(), n).transpose();
  return turned_query.dot(turned_key);
}

// The score of q at position m with k at position n: both turned, then the dot product of chapter 1.
Placement placed(const attention::Vector& query, const attention::Vector& key, Eigen::Index m, Eigen::Index n) {
  Placement placement;
  placement.query_position = m;
  placement.key_position = n;
  // clang-format off
  // [turned_score]
  placement.turned_query = attention::rotated_by_position(query.transpose(), m).transpose();
  placement.turned_key = attention::rotated_by_position(key.transpose(), n).transpose();
  placement.score = placement.turned_query.dot(placement.turned_key);
  // [turned_score]
  // clang-format on
  const double query_angle = static_cast<double>(m) * attention::angular_frequency(0, query.size());
  placement.first_pair_cos = std::cos(query_angle);
  placement.first_pair_sin = std::sin(query_angle);
  return placement;
}

// A whole number from 0 to count − 1 (the remainder of 64 random bits: its bias is below 2⁻⁵⁹ here).
Eigen::Index below(attention::NumpyGenerator& generator, Eigen::Index count) {
  return static_cast<Eigen::Index>(generator.next_uint64() % static_cast<std::uint64_t>(count));
}

std::vector<Eigen::Index> random_digits(attention::NumpyGenerator& generator, Eigen::Index length,
                                        Eigen::Index digits) {
  std::vector<Eigen::Index> words(static_cast<std::size_t>(length));
  for (Eigen::Index& word : words) word = below(generator, digits);
  return words;
}

}  // namespace

// clang-format off
// [task_loss]
// The task: at position t ≥ back, say the word at t − back. Positions before `back` have no answer: the loss
// and its gradient leave them out.
attention::CrossEntropy task_loss(const attention::Matrix& logits, const std::vector<Eigen::Index>& words,
                                  Eigen::Index back) {
  const Eigen::Index answered = logits.rows() - back;
  const std::vector<Eigen::Index> answers(words.begin(), words.begin() + answered);  // word t − back at t
  attention::CrossEntropy error = attention::softmax_cross_entropy(logits.bottomRows(answered), answers);
  attention::Matrix gradient = attention::Matrix::Zero(logits.rows(), logits.cols());
  gradient.bottomRows(answered) = error.logits_gradient;
  error.logits_gradient = std::move(gradient);
  return error;
}
// [task_loss]
// clang-format on

namespace {

std::uint64_t weights_seed(std::uint64_t seed) { return seed ^ 0x9e3779b97f4a7c15u; }
std::uint64_t test_seed(std::uint64_t seed) { return seed ^ 0x5851f42d4c957f2du; }

}  // namespace

Turn turn(const Inputs& inputs) {
  Turn result;
  result.query = inputs.query.size() ? inputs.query : attention::Vector{{1.0, 1.0}};
  result.key = inputs.key.size() ? inputs.key : attention::Vector{{2.0, 0.0}};
  if (inputs.ones > 0) result.query = result.key = attention::Vector::Ones(inputs.ones);
  if (result.query.size() != result.key.size()) {
    throw std::invalid_argument("the query and the key must be equally wide");
  }
  attention::require_even_width(result.query.size(), "the query and the key");
  result.unturned_score = result.query.dot(result.key);
  for (Eigen::Index i = 0; 2 * i < result.query.size(); ++i) {
    result.angles.push_back(attention::angular_frequency(i, result.query.size()));
  }
  for (const auto& [m, n] : inputs.placements) result.placements.push_back(placed(result.query, result.key, m, n));
  for (Eigen::Index offset = -inputs.largest_offset; offset <= inputs.largest_offset; ++offset) {
    result.offsets.push_back(offset);
    result.scores.push_back(
        placed(result.query, result.key, std::max<Eigen::Index>(offset, 0), std::max<Eigen::Index>(-offset, 0)).score);
  }
  result.wave_samples = std::clamp<Eigen::Index>(800 / inputs.largest_offset, 1, 8);
  const Eigen::Index last = inputs.largest_offset * result.wave_samples;
  for (Eigen::Index j = -last; j <= last; ++j) {
    const double offset = static_cast<double>(j) / static_cast<double>(result.wave_samples);
    result.wave_offsets.push_back(offset);
    result.wave_scores.push_back(
        score_between(result.query, result.key, std::max(offset, 0.0), std::max(-offset, 0.0)));
  }
  return result;
}

attention::TokenClassifierWeights starting_weights(const Inputs& inputs, std::uint64_t seed) {
  attention::NumpyGenerator generator(weights_seed(seed));
  return attention::initial_token_classifier(inputs.shape, generator);
}

std::vector<std::vector<Eigen::Index>> test_sequences(const Inputs& inputs, std::uint64_t seed) {
  attention::NumpyGenerator test(test_seed(seed));
  std::vector<std::vector<Eigen::Index>> sequences;
  for (Eigen::Index s = 0; s < inputs.tested; ++s) {
    sequences.push_back(random_digits(test, inputs.tested_length, inputs.shape.vocabulary));
  }
  return sequences;
}

TrainedRun test_model(const Inputs& inputs, const attention::TokenClassifierWeights& weights,
                      attention::Positions scheme, const std::vector<std::vector<Eigen::Index>>& sequences) {
  if (sequences.empty()) throw std::invalid_argument("test_model: no test sequence");
  for (const std::vector<Eigen::Index>& words : sequences) {
    if (static_cast<Eigen::Index>(words.size()) != inputs.tested_length) {
      throw std::invalid_argument("test_model: every test sequence must have tested_length words");
    }
  }
  TrainedRun run;
  run.scheme = scheme;
  const auto causal = attention::Visibility::causal;
  const auto count = static_cast<double>(sequences.size());
  std::vector<double> right(static_cast<std::size_t>(inputs.tested_length), 0.0);
  run.attention_on_answer.assign(static_cast<std::size_t>(inputs.tested_length), 0.0);
  const auto heads = static_cast<std::size_t>(inputs.shape.heads);
  std::vector<double> on_answer(heads, 0.0);  // each head's weight on the answer, at the trained positions
  std::vector<std::vector<double>> score_sum(heads,
                                             std::vector<double>(static_cast<std::size_t>(inputs.tested_length)));
  std::vector<double> score_count(static_cast<std::size_t>(inputs.tested_length), 0.0);
  for (const std::vector<Eigen::Index>& words : sequences) {
    const auto steps = attention::token_classifier(weights, words, causal, scheme);
    for (Eigen::Index t = inputs.back; t < inputs.tested_length; ++t) {
      Eigen::Index said = 0;
      steps.logits.row(t).maxCoeff(&said);
      if (said == words[static_cast<std::size_t>(t - inputs.back)]) right[static_cast<std::size_t>(t)] += 1.0;
      double most = 0.0;
      for (std::size_t h = 0; h < heads; ++h) {
        const double weight = steps.layers.front().attention.heads[h].attention.weights(t, t - inputs.back);
        most = std::max(most, weight);
        if (t < inputs.longest_trained) on_answer[h] += weight;
      }
      run.attention_on_answer[static_cast<std::size_t>(t)] += most / count;
    }
    for (Eigen::Index t = 0; t < inputs.tested_length; ++t) {
      for (Eigen::Index offset = 0; offset <= t; ++offset) {
        for (std::size_t h = 0; h < heads; ++h) {
          score_sum[h][static_cast<std::size_t>(offset)] +=
              steps.layers.front().attention.heads[h].attention.scaled_scores(t, t - offset);
        }
        score_count[static_cast<std::size_t>(offset)] += 1.0;
      }
    }
  }
  run.looking_head =
      static_cast<Eigen::Index>(std::max_element(on_answer.begin(), on_answer.end()) - on_answer.begin());
  for (Eigen::Index offset = 0; offset < inputs.tested_length; ++offset) {
    run.score_by_offset.push_back(
        score_sum[static_cast<std::size_t>(run.looking_head)][static_cast<std::size_t>(offset)] /
        score_count[static_cast<std::size_t>(offset)]);
  }
  run.rival_offset = -1;
  for (Eigen::Index offset = 0; offset < inputs.tested_length; ++offset) {
    const double score = run.score_by_offset[static_cast<std::size_t>(offset)];
    if (offset != inputs.back &&
        (run.rival_offset < 0 || score > run.score_by_offset[static_cast<std::size_t>(run.rival_offset)])) {
      run.rival_offset = offset;
    }
  }
  // How far each pair of the head turns between offset `back` and the rival, and how far that is from a whole
  // number of turns; pair 0 turns 1 radian per position.
  const Eigen::Index gap = run.rival_offset - inputs.back;
  run.turn_between = static_cast<double>(gap);
  run.full_turns = std::llround(run.turn_between / full_turn);
  run.pair_turns_from_answer = pair_turns_from_whole(gap, inputs.shape.d_model / inputs.shape.heads);
  double trained = 0.0, beyond = 0.0;
  for (Eigen::Index t = 0; t < inputs.tested_length; ++t) {
    const double share = right[static_cast<std::size_t>(t)] / count;
    run.accuracy.push_back(share);
    if (t >= inputs.back && t < inputs.longest_trained) trained += share;
    if (t >= inputs.longest_trained) beyond += share;
  }
  run.accuracy_trained = trained / static_cast<double>(inputs.longest_trained - inputs.back);
  run.accuracy_beyond = inputs.tested_length > inputs.longest_trained
                            ? beyond / static_cast<double>(inputs.tested_length - inputs.longest_trained)
                            : 0.0;
  return run;
}

TrainedRun train(const Inputs& inputs, attention::Positions scheme, std::uint64_t seed, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  attention::TokenClassifierWeights weights = starting_weights(inputs, seed);
  attention::NumpyGenerator data(seed);
  attention::Adam adam(attention::parameter_blocks(weights), inputs.adam);
  const auto causal = attention::Visibility::causal;
  std::vector<long long> logged_steps;
  std::vector<double> losses;
  double loss_since_log = 0.0;
  long long since_log = 0;
  // clang-format off
  // [train]
  for (long long step = 1; step <= inputs.training_steps; ++step) {
    const auto one_example = [&](Eigen::Index) {
      const auto length = inputs.back + 1 + below(data, inputs.longest_trained - inputs.back);
      const std::vector<Eigen::Index> words = random_digits(data, length, inputs.shape.vocabulary);
      const auto steps = attention::token_classifier(weights, words, causal, scheme);
      const attention::CrossEntropy error = task_loss(steps.logits, words, inputs.back);
      loss_since_log += error.loss, ++since_log;
      return attention::token_classifier_backward(weights, words, steps, error.logits_gradient, causal, scheme);
    };
    attention::TokenClassifierWeights mean =
        attention::batch_mean_gradient(inputs.batch, one_example, attention::parameter_blocks);
    adam.step(attention::parameter_blocks(weights), attention::parameter_blocks(mean));
    // [train]
    // clang-format on
    if (step % 100 == 0 || step == inputs.training_steps) {
      logged_steps.push_back(step);
      losses.push_back(loss_since_log / static_cast<double>(since_log));
      loss_since_log = 0.0, since_log = 0;
      if (progress) progress(step, inputs.training_steps, seconds_since(start));
    }
  }
  // Tested on sequences of tested_length words, drawn apart from the training ones.
  TrainedRun run = test_model(inputs, weights, scheme, test_sequences(inputs, seed));
  run.seed = seed;
  run.logged_steps = std::move(logged_steps);
  run.loss = std::move(losses);
  run.seconds = seconds_since(start);
  return run;
}

std::optional<NearAlike> trained_near_alike(const Inputs& inputs) {
  std::optional<NearAlike> near;
  double nearest = std::numeric_limits<double>::infinity();
  for (Eigen::Index offset = 0; offset < inputs.longest_trained; ++offset) {
    const auto gap = static_cast<double>(offset - inputs.back);  // pair 0's turn: 1 radian per position
    const double whole_turns = std::round(gap / full_turn);
    const double from_whole = std::abs(gap - whole_turns * full_turn);
    if (whole_turns == 0.0 || from_whole >= nearest) continue;
    nearest = from_whole;
    near = NearAlike{offset, gap, {}};
  }
  if (near) {
    near->pair_turns_from_answer =
        pair_turns_from_whole(near->offset - inputs.back, inputs.shape.d_model / inputs.shape.heads);
  }
  return near;
}

Result compute(const Inputs& inputs, const Progress& progress) {
  Result result;
  result.inputs = inputs;
  result.turn = turn(inputs);
  result.trained_near_alike = trained_near_alike(inputs);
  const Eigen::Index head_width = inputs.shape.d_model / inputs.shape.heads;
  for (Eigen::Index i = 0; 2 * i < head_width; ++i) {
    result.pair_turns_in_training.push_back(static_cast<double>(inputs.longest_trained - 1 - inputs.back) *
                                            attention::angular_frequency(i, head_width));
  }
  {
    attention::TokenClassifierWeights weights = starting_weights(inputs, 1);  // any seed: only the sizes count
    for (const attention::ParameterBlock& block : attention::parameter_blocks(weights)) result.parameters += block.size;
  }
  if (!inputs.train) return result;
  std::vector<std::pair<attention::Positions, std::uint64_t>> plan;  // for each scheme, for each seed
  for (const attention::Positions scheme : inputs.schemes) {
    for (const std::uint64_t seed : inputs.seeds) plan.emplace_back(scheme, seed);
  }
  result.runs.resize(plan.size());
  // The trainings are independent: one per processor at a time (program/trainings.hpp).
  program::run_trainings(plan.size(), progress, [&](std::size_t r, const program::StepProgress& overall) {
    result.runs[r] = train(inputs, plan[r].first, plan[r].second, overall);
  });
  return result;
}

}  // namespace rotary_positions
