#include "training.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "attention/batch_gradient.hpp"
#include "attention/cross_entropy.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/real_number.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/usage_error.hpp"

namespace training {
namespace {

constexpr std::uint64_t max_length = 32;
constexpr std::uint64_t max_vocabulary = 100;
constexpr std::uint64_t max_steps = 1'000'000;
constexpr std::uint64_t max_batch = 1024;
constexpr std::uint64_t max_layers = 4;
constexpr std::uint64_t max_d_model = 256;
constexpr double max_learning_rate = 1e300;
constexpr std::size_t largest_held_out = 200;
constexpr double target_accuracy = 0.99;
constexpr std::size_t shown_mistakes = 5;
constexpr long long default_log_every = 50;
constexpr std::size_t max_seeds = 20;  // each seed is a whole training run

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// How many different sequences there are, V^n, or a number above any held-out set when that is huge.
std::uint64_t sequence_count(Eigen::Index vocabulary, Eigen::Index length) {
  std::uint64_t count = 1;
  for (Eigen::Index i = 0; i < length; ++i) {
    count *= static_cast<std::uint64_t>(vocabulary);
    if (count > 1'000'000) return count;
  }
  return count;
}

// Position labels as the prose counts them, from 0: output i of "reverse" reads input n − 1 − i.
std::vector<std::string> positions_from_zero(Eigen::Index count) {
  std::vector<std::string> labels;
  for (Eigen::Index i = 0; i < count; ++i) labels.push_back(std::to_string(i));
  return labels;
}

// The model's answer at each position: the word with the largest logit (the first, on a tie).
Sequence predictions(const attention::Matrix& logits) {
  Sequence answer(static_cast<std::size_t>(logits.rows()));
  for (Eigen::Index t = 0; t < logits.rows(); ++t) logits.row(t).maxCoeff(&answer[static_cast<std::size_t>(t)]);
  return answer;
}

bool all_finite(const std::vector<attention::ParameterBlock>& blocks) {
  return std::all_of(blocks.begin(), blocks.end(), [](const attention::ParameterBlock& block) {
    return Eigen::Map<const Eigen::ArrayXd>(block.data, block.size).allFinite();
  });
}

}  // namespace

std::string task_name(Task task) { return task == Task::reverse ? "reverse" : "copy"; }

Sequence target_for(Task task, const Sequence& input) {
  Sequence target = input;
  if (task == Task::reverse) std::reverse(target.begin(), target.end());
  return target;
}

Eigen::Index source_position(Task task, Eigen::Index i, Eigen::Index length) {
  return task == Task::reverse ? length - 1 - i : i;
}

Trainer::Trainer(const Inputs& inputs)
    : inputs_(inputs),
      generator_(inputs.seed),
      weights_(attention::initial_token_classifier(inputs.shape, generator_)),
      adam_(attention::parameter_blocks(weights_), inputs.adam) {
  // The held-out set first, distinct sequences; training never draws one of them.
  const std::size_t wanted = static_cast<std::size_t>(
      std::min<std::uint64_t>(largest_held_out, sequence_count(inputs.vocabulary, inputs.length) / 2));
  while (held_out_.size() < wanted) {
    Sequence candidate(static_cast<std::size_t>(inputs.length));
    for (Eigen::Index& word : candidate)
      word = static_cast<Eigen::Index>(generator_.next_uint64() % static_cast<std::uint64_t>(inputs.vocabulary));
    if (std::find(held_out_.begin(), held_out_.end(), candidate) == held_out_.end()) held_out_.push_back(candidate);
  }
  held_out_sorted_ = held_out_;
  std::sort(held_out_sorted_.begin(), held_out_sorted_.end());
  log_.untrained = measure_untrained();
}

// The untrained model's loss on the held-out set, and the spread of its logits. Random logits z of variance
// s² over the V digits give a loss of about log V + s²/2, not log V: the mean of −log p[target] =
// log Σ exp(z) − z[target] is log V + s²/2 for small s (the mean of exp(z) is exp(s²/2)), a little less
// for larger s.
Untrained Trainer::measure_untrained() const {
  Untrained untrained;
  for (const Sequence& input : held_out_) {
    const attention::TokenClassifierSteps steps = attention::token_classifier(weights_, input);
    untrained.held_out_loss += attention::softmax_cross_entropy(steps.logits, target_for(inputs_.task, input)).loss;
    const Eigen::ArrayXXd centred = steps.logits.array().colwise() - steps.logits.array().rowwise().mean();
    untrained.logit_variance += centred.square().rowwise().mean().mean();
  }
  untrained.held_out_loss /= static_cast<double>(held_out_.size());
  untrained.logit_variance /= static_cast<double>(held_out_.size());
  untrained.uniform_loss = std::log(static_cast<double>(inputs_.vocabulary));
  untrained.predicted_loss = untrained.uniform_loss + untrained.logit_variance / 2.0;
  return untrained;
}

Sequence Trainer::next_training_input() {
  Sequence input(static_cast<std::size_t>(inputs_.length));
  do {
    for (Eigen::Index& word : input)
      word = static_cast<Eigen::Index>(generator_.next_uint64() % static_cast<std::uint64_t>(inputs_.vocabulary));
  } while (std::binary_search(held_out_sorted_.begin(), held_out_sorted_.end(), input));
  return input;
}

// clang-format off
// [train_one_step]
double Trainer::train_one_step() {
  double loss = 0.0;
  const auto one_example = [&](Eigen::Index) {
    const Sequence input = next_training_input();
    const attention::TokenClassifierSteps steps = attention::token_classifier(weights_, input);
    const attention::CrossEntropy error =
        attention::softmax_cross_entropy(steps.logits, target_for(inputs_.task, input));
    loss += error.loss;
    return attention::token_classifier_backward(weights_, input, steps, error.logits_gradient);
  };
  attention::TokenClassifierWeights mean =
      attention::batch_mean_gradient(inputs_.batch, one_example, attention::parameter_blocks);
  adam_.step(attention::parameter_blocks(weights_), attention::parameter_blocks(mean));
  return loss / static_cast<double>(inputs_.batch);
}
// [train_one_step]
// clang-format on

// Counts the wrong digits of one answer, and those that are the digit of an input position next to the
// position the answer should have read (where attention that is not sharp enough leaks to).
void Trainer::count_wrong_digits(const Sequence& input, const Sequence& answer, Result& result) const {
  const Eigen::Index n = inputs_.length;
  const Sequence target = target_for(inputs_.task, input);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto at = static_cast<std::size_t>(i);
    if (answer[at] == target[at]) continue;
    ++result.wrong_digits;
    const Eigen::Index source = source_position(inputs_.task, i, n);
    const bool left = source > 0 && input[static_cast<std::size_t>(source - 1)] == answer[at];
    const bool right = source + 1 < n && input[static_cast<std::size_t>(source + 1)] == answer[at];
    if (left || right) ++result.wrong_from_neighbour;
    if (left && right) ++result.wrong_from_both_neighbours;
    if (std::find(input.begin(), input.end(), answer[at]) == input.end()) ++result.wrong_not_in_input;
    // The chance baseline: the share of the V − 1 digits that are not right which appear nowhere in the input.
    long long missing = 0;
    for (Eigen::Index digit = 0; digit < inputs_.vocabulary; ++digit) {
      if (digit != target[at] && std::find(input.begin(), input.end(), digit) == input.end()) ++missing;
    }
    result.wrong_not_in_input_by_chance += static_cast<double>(missing) / static_cast<double>(inputs_.vocabulary - 1);
  }
}

double Trainer::held_out_accuracy(Result* details) const {
  const Eigen::Index n = inputs_.length;
  std::vector<double> right(static_cast<std::size_t>(n), 0.0);
  if (details != nullptr) {
    details->source_weight.assign(weights_.layers.size(),
                                  std::vector<double>(static_cast<std::size_t>(inputs_.shape.heads), 0.0));
    details->source_peak = details->source_weight;
  }
  for (const Sequence& input : held_out_) {
    const attention::TokenClassifierSteps steps = attention::token_classifier(weights_, input);
    const Sequence answer = predictions(steps.logits);
    const Sequence target = target_for(inputs_.task, input);
    for (std::size_t t = 0; t < answer.size(); ++t) right[t] += answer[t] == target[t] ? 1.0 : 0.0;
    if (details == nullptr) continue;
    count_wrong_digits(input, answer, *details);
    if (answer != target) {
      ++details->wrong_sequences;
      if (details->mistakes.size() < shown_mistakes) details->mistakes.push_back({input, target, answer});
    }
    for (std::size_t l = 0; l < steps.layers.size(); ++l) {
      for (std::size_t h = 0; h < steps.layers[l].attention.heads.size(); ++h) {
        const attention::Matrix& weights = steps.layers[l].attention.heads[h].attention.weights;
        for (Eigen::Index i = 0; i < n; ++i) {
          const Eigen::Index source = source_position(inputs_.task, i, n);
          details->source_weight[l][h] += weights(i, source);
          Eigen::Index peak = 0;
          weights.row(i).maxCoeff(&peak);
          if (peak == source) details->source_peak[l][h] += 1.0;
        }
      }
    }
  }
  if (details != nullptr) {
    for (auto* per_head : {&details->source_weight, &details->source_peak}) {
      for (auto& layer : *per_head) {
        for (double& head : layer) head /= static_cast<double>(held_out_.size() * static_cast<std::size_t>(n));
      }
    }
  }
  double total = 0.0;
  for (double& count : right) {
    total += count;
    count /= static_cast<double>(held_out_.size());
  }
  if (details != nullptr) details->position_accuracy = right;
  return total / static_cast<double>(held_out_.size() * right.size());
}

void Trainer::advance(long long steps, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const double seconds_before = seconds_;
  const long long last = std::min(inputs_.steps, steps_done_ + steps);
  while (steps_done_ < last) {
    double loss = 0.0;
    try {
      loss = train_one_step();
    } catch (const std::invalid_argument& error) {
      // With the flags checked, the library refuses only numbers that are not finite (a NaN or +∞ score).
      throw std::runtime_error(fmt::format("training diverged at step {}: {}; try a smaller --learning-rate",
                                           steps_done_ + 1, error.what()));
    }
    ++steps_done_;
    if (steps_done_ == 1) log_.first_loss = loss;
    if (!std::isfinite(loss) || !all_finite(attention::parameter_blocks(weights_))) {
      throw std::runtime_error(fmt::format("training diverged at step {}: the loss or a weight is no longer a finite "
                                           "number; try a smaller --learning-rate",
                                           steps_done_));
    }
    loss_since_log_ += loss;
    const long long since_log = (steps_done_ - 1) % inputs_.log_every + 1;
    if (since_log == inputs_.log_every || steps_done_ == inputs_.steps) {
      seconds_ = seconds_before + seconds_since(start);
      double accuracy = 0.0;
      try {
        accuracy = held_out_accuracy();
      } catch (const std::invalid_argument& error) {
        // Weights that are finite but huge can still overflow a score of the held-out pass.
        throw std::runtime_error(
            fmt::format("training diverged at step {}: {}; try a smaller --learning-rate", steps_done_, error.what()));
      }
      log_.logged_steps.push_back(steps_done_);
      log_.loss_from.push_back(steps_done_ - since_log + 1);
      log_.loss.push_back(loss_since_log_ / static_cast<double>(since_log));
      log_.held_out_accuracy.push_back(accuracy);
      if (accuracy >= target_accuracy && !log_.first_step_at_99) {
        log_.first_step_at_99 = steps_done_;
        log_.seconds_at_99 = seconds_;
      }
      if (accuracy == 1.0 && !log_.first_step_at_100) log_.first_step_at_100 = steps_done_;
      loss_since_log_ = 0.0;
      if (progress) progress(steps_done_, inputs_.steps, log_.loss.back(), accuracy, seconds_);
    }
  }
  seconds_ = seconds_before + seconds_since(start);
}

Result Trainer::result() const {
  Result result = log_;
  result.inputs = inputs_;
  result.steps_done = steps_done_;
  result.held_out_count = static_cast<long long>(held_out_.size());
  result.seconds = seconds_;
  result.final_accuracy = held_out_accuracy(&result);
  result.example_input = held_out_.front();
  result.example_target = target_for(inputs_.task, result.example_input);
  const attention::TokenClassifierSteps example = attention::token_classifier(weights_, result.example_input);
  result.example_prediction = predictions(example.logits);
  const Eigen::Index n = inputs_.length;
  for (const attention::EncoderLayerSteps& layer : example.layers) {
    std::vector<attention::Matrix> heads;
    std::vector<long long> peaks;
    for (const attention::HeadSteps& head : layer.attention.heads) {
      heads.push_back(head.attention.weights);
      long long at_source = 0;
      for (Eigen::Index i = 0; i < n; ++i) {
        Eigen::Index peak = 0;
        head.attention.weights.row(i).maxCoeff(&peak);
        if (peak == source_position(inputs_.task, i, n)) ++at_source;
      }
      peaks.push_back(at_source);
    }
    result.attention.push_back(heads);
    result.example_source_peak.push_back(peaks);
  }
  if (inputs_.include_weights) result.weights = weights_;
  result.adam_example = adam_on_lone_weights(inputs_.adam);
  return result;
}

bool Trainer::can_continue_to(const Inputs& inputs) const {
  const Inputs& mine = inputs_;
  const bool same = mine.task == inputs.task && mine.length == inputs.length && mine.vocabulary == inputs.vocabulary &&
                    mine.seed == inputs.seed && mine.adam.learning_rate == inputs.adam.learning_rate &&
                    mine.adam.beta1 == inputs.adam.beta1 && mine.adam.beta2 == inputs.adam.beta2 &&
                    mine.adam.epsilon == inputs.adam.epsilon && mine.batch == inputs.batch &&
                    mine.shape.d_model == inputs.shape.d_model && mine.shape.heads == inputs.shape.heads &&
                    mine.shape.d_ff == inputs.shape.d_ff && mine.shape.layers == inputs.shape.layers &&
                    mine.held_out == inputs.held_out && mine.log_every == inputs.log_every &&
                    mine.include_weights == inputs.include_weights;
  // A run stopped between two logged points logged an extra point at its end; one from scratch would not have.
  return same && inputs.steps >= steps_done_ && steps_done_ % inputs.log_every == 0;
}

AdamExample adam_on_lone_weights(const attention::AdamSettings& settings) {
  AdamExample example;
  // Four steps: a large gradient, a tiny one, and one whose sign turns every step.
  example.gradients = {{100.0, 0.001, 1.0}, {100.0, 0.001, -1.0}, {100.0, 0.001, 1.0}, {100.0, 0.001, -1.0}};
  const auto count = static_cast<Eigen::Index>(example.gradients.front().size());
  Eigen::ArrayXd weights = Eigen::ArrayXd::Zero(count);
  Eigen::ArrayXd gradient(count);
  // The blocks point into the two arrays, which keep their size (and so their storage) from here on.
  const std::vector<attention::ParameterBlock> weight_blocks = {{weights.data(), count}};
  const std::vector<attention::ParameterBlock> gradient_blocks = {{gradient.data(), count}};
  attention::Adam adam(weight_blocks, settings);
  for (const std::vector<double>& given : example.gradients) {
    if (static_cast<Eigen::Index>(given.size()) != count) {
      throw std::logic_error("adam_on_lone_weights: every step gives one gradient per weight");
    }
    gradient = Eigen::Map<const Eigen::ArrayXd>(given.data(), count);
    adam.step(weight_blocks, gradient_blocks);
    example.weights.emplace_back(weights.begin(), weights.end());
  }
  return example;
}

Result compute(const Inputs& inputs, const Progress& progress) {
  Trainer trainer(inputs);
  trainer.advance(inputs.steps, progress);
  return trainer.result();
}

SeedsResult compute_over_seeds(const Inputs& inputs, const Progress& progress) {
  SeedsResult over{inputs, 0, {}, {}, 0.0};
  const long long all_steps = inputs.steps * static_cast<long long>(inputs.seeds.size());
  for (std::size_t s = 0; s < inputs.seeds.size(); ++s) {
    Inputs one = inputs;
    one.seed = inputs.seeds[s];
    one.seeds.clear();
    one.include_weights = false;
    const long long steps_before = inputs.steps * static_cast<long long>(s);
    const double seconds_before = over.seconds;
    Progress each;
    if (progress) {
      each = [&](long long step, long long, double loss, double accuracy, double seconds) {
        progress(steps_before + step, all_steps, loss, accuracy, seconds_before + seconds);
      };
    }
    const Result result = compute(one, each);
    over.seconds += result.seconds;
    over.held_out_count = result.held_out_count;
    over.runs.push_back({one.seed, result.final_accuracy, result.first_step_at_99, result.first_step_at_100,
                         result.wrong_digits, result.wrong_from_neighbour, result.wrong_not_in_input,
                         result.wrong_not_in_input_by_chance, result.source_weight, result.source_peak,
                         result.example_source_peak});
  }
  // What holds over the seeds: the sharpest and the least sharp head of each seed, at their worst and best.
  SeedsResult::Summary& summary = over.summary;
  bool first = true;
  for (const SeedRun& run : over.runs) {
    double sharpest = -1.0, sharpest_peak = 0.0, least = 2.0, least_peak = 0.0;
    for (std::size_t l = 0; l < run.source_weight.size(); ++l) {
      for (std::size_t h = 0; h < run.source_weight[l].size(); ++h) {
        if (run.source_weight[l][h] > sharpest) {
          sharpest = run.source_weight[l][h];
          sharpest_peak = run.source_peak[l][h];
        }
        if (run.source_weight[l][h] < least) {
          least = run.source_weight[l][h];
          least_peak = run.source_peak[l][h];
        }
      }
    }
    summary.sharpest_weight_min = first ? sharpest : std::min(summary.sharpest_weight_min, sharpest);
    summary.sharpest_weight_max = first ? sharpest : std::max(summary.sharpest_weight_max, sharpest);
    summary.sharpest_peak_min = first ? sharpest_peak : std::min(summary.sharpest_peak_min, sharpest_peak);
    summary.other_weight_min = first ? least : std::min(summary.other_weight_min, least);
    summary.other_weight_max = first ? least : std::max(summary.other_weight_max, least);
    summary.other_peak_min = first ? least_peak : std::min(summary.other_peak_min, least_peak);
    summary.other_peak_max = first ? least_peak : std::max(summary.other_peak_max, least_peak);
    summary.final_accuracy_min = first ? run.final_accuracy : std::min(summary.final_accuracy_min, run.final_accuracy);
    first = false;
    if (least > 0.5) ++summary.seeds_with_every_head_above_half;
    if (run.first_step_at_99) {
      ++summary.seeds_at_99;
      summary.last_first_step_at_99 = std::max(summary.last_first_step_at_99.value_or(0), *run.first_step_at_99);
    }
    if (run.first_step_at_100) ++summary.seeds_at_100;
    summary.wrong_digits += run.wrong_digits;
    summary.wrong_from_neighbour += run.wrong_from_neighbour;
    summary.wrong_not_in_input += run.wrong_not_in_input;
    summary.wrong_not_in_input_by_chance += run.wrong_not_in_input_by_chance;
  }
  return over;
}

namespace {

// Rows of numbers (per layer, per head; per step, per weight) as a JSON array of arrays.
nlohmann::json rows_json(const std::vector<std::vector<double>>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& row : rows) {
    nlohmann::json entries = nlohmann::json::array();
    for (double entry : row) entries.push_back(program::number_json(entry));
    list.push_back(entries);
  }
  return list;
}

nlohmann::json optional_json(const std::optional<long long>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

// What every document of the program starts with: the task, the model and the optimiser.
nlohmann::json settings_json(const Inputs& inputs, long long steps, long long held_out) {
  return {{"task", task_name(inputs.task)},
          {"length", inputs.length},
          {"vocabulary", inputs.vocabulary},
          {"steps", steps},
          {"batch", inputs.batch},
          {"held_out", held_out},
          {"model",
           {{"d_model", inputs.shape.d_model},
            {"heads", inputs.shape.heads},
            {"d_ff", inputs.shape.d_ff},
            {"layers", inputs.shape.layers}}},
          {"adam",
           {{"learning_rate", inputs.adam.learning_rate},
            {"beta1", inputs.adam.beta1},
            {"beta2", inputs.adam.beta2},
            {"epsilon", inputs.adam.epsilon}}}};
}

// The lines every printed output starts with: the task, the model and the optimiser.
std::string settings_text(const Inputs& inputs, long long held_out, const std::string& seeds) {
  return fmt::format("Task: {} sequences of {} digits (0 to {}); {} held-out sequences, never trained on\n"
                     "Model: embedding + sinusoidal positions, {} encoder layer(s) of {} heads,\n"
                     "       d_model = {}, d_ff = {}, a linear read-out\n"
                     "Adam: learning rate {}, beta1 {}, beta2 {}, epsilon {}\n"
                     "      {} sequences per step, {}\n\n",
                     task_name(inputs.task), inputs.length, inputs.vocabulary - 1, held_out, inputs.shape.layers,
                     inputs.shape.heads, inputs.shape.d_model, inputs.shape.d_ff, inputs.adam.learning_rate,
                     inputs.adam.beta1, inputs.adam.beta2, inputs.adam.epsilon, inputs.batch, seeds);
}

std::string step_text(const std::optional<long long>& step) { return step ? std::to_string(*step) : "never"; }

}  // namespace

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  nlohmann::json attention_maps = nlohmann::json::array();
  for (const auto& layer : result.attention) {
    nlohmann::json heads = nlohmann::json::array();
    for (const attention::Matrix& head : layer) heads.push_back(program::matrix_json(head));
    attention_maps.push_back(heads);
  }
  const auto numbers = [](const std::vector<double>& values) {
    nlohmann::json list = nlohmann::json::array();
    for (double value : values) list.push_back(program::number_json(value));
    return list;
  };
  // The position each output of the example is copied from: what its attention should find.
  std::vector<Eigen::Index> example_source;
  const auto length = static_cast<Eigen::Index>(result.example_input.size());
  for (Eigen::Index i = 0; i < length; ++i) example_source.push_back(source_position(inputs.task, i, length));
  nlohmann::json mistakes = nlohmann::json::array();
  for (const Result::Mistake& mistake : result.mistakes) {
    mistakes.push_back({{"input", mistake.input}, {"target", mistake.target}, {"prediction", mistake.prediction}});
  }
  nlohmann::json document = settings_json(inputs, result.steps_done, result.held_out_count);
  document.update({
      {"seed", inputs.seed},
      {"first_loss", result.first_loss ? program::number_json(*result.first_loss) : nlohmann::json()},
      {"untrained",
       {{"held_out_loss", program::number_json(result.untrained.held_out_loss)},
        {"logit_variance", program::number_json(result.untrained.logit_variance)},
        {"uniform_loss", program::number_json(result.untrained.uniform_loss)},
        {"predicted_loss", program::number_json(result.untrained.predicted_loss)}}},
      {"logged_steps", result.logged_steps},
      {"loss_from", result.loss_from},
      {"loss", numbers(result.loss)},
      {"held_out_accuracy", numbers(result.held_out_accuracy)},
      {"final_accuracy", program::number_json(result.final_accuracy)},
      {"first_step_at_99", optional_json(result.first_step_at_99)},
      {"seconds_at_99", result.seconds_at_99 ? program::number_json(*result.seconds_at_99) : nlohmann::json()},
      {"first_step_at_100", optional_json(result.first_step_at_100)},
      {"position_accuracy", numbers(result.position_accuracy)},
      {"wrong_sequences", result.wrong_sequences},
      {"wrong_digits", result.wrong_digits},
      {"wrong_from_neighbour", result.wrong_from_neighbour},
      {"wrong_from_both_neighbours", result.wrong_from_both_neighbours},
      {"wrong_not_in_input", result.wrong_not_in_input},
      {"wrong_not_in_input_by_chance", program::number_json(result.wrong_not_in_input_by_chance)},
      {"mistakes", mistakes},
      {"example",
       {{"input", result.example_input},
        {"target", result.example_target},
        {"prediction", result.example_prediction},
        {"source", example_source}}},
      {"attention", attention_maps},
      {"source_weight", rows_json(result.source_weight)},
      {"source_peak", rows_json(result.source_peak)},
      {"example_source_peak", result.example_source_peak},
      {"seconds", program::number_json(result.seconds)},
      // Adam updates per second of the run's own clock: null before a step is timed.
      {"steps_per_second", result.seconds > 0.0
                               ? program::number_json(static_cast<double>(result.steps_done) / result.seconds)
                               : nlohmann::json()},
  });
  document["adam_example"] = {{"gradients", rows_json(result.adam_example.gradients)},
                              {"weights", rows_json(result.adam_example.weights)}};
  if (result.weights) document["weights"] = program::token_classifier_json(*result.weights);
  return document;
}

nlohmann::json to_json(const SeedsResult& result) {
  nlohmann::json runs = nlohmann::json::array();
  for (const SeedRun& run : result.runs) {
    runs.push_back({{"seed", run.seed},
                    {"final_accuracy", program::number_json(run.final_accuracy)},
                    {"first_step_at_99", optional_json(run.first_step_at_99)},
                    {"first_step_at_100", optional_json(run.first_step_at_100)},
                    {"wrong_digits", run.wrong_digits},
                    {"wrong_from_neighbour", run.wrong_from_neighbour},
                    {"wrong_not_in_input", run.wrong_not_in_input},
                    {"wrong_not_in_input_by_chance", program::number_json(run.wrong_not_in_input_by_chance)},
                    {"source_weight", rows_json(run.source_weight)},
                    {"source_peak", rows_json(run.source_peak)},
                    {"example_source_peak", run.example_source_peak}});
  }
  const SeedsResult::Summary& summary = result.summary;
  nlohmann::json document = settings_json(result.inputs, result.inputs.steps, result.held_out_count);
  document.update({
      {"seeds", runs},
      {"summary",
       {{"seeds", result.runs.size()},
        {"sharpest_weight_min", program::number_json(summary.sharpest_weight_min)},
        {"sharpest_weight_max", program::number_json(summary.sharpest_weight_max)},
        {"sharpest_peak_min", program::number_json(summary.sharpest_peak_min)},
        {"other_weight_min", program::number_json(summary.other_weight_min)},
        {"other_weight_max", program::number_json(summary.other_weight_max)},
        {"other_peak_min", program::number_json(summary.other_peak_min)},
        {"other_peak_max", program::number_json(summary.other_peak_max)},
        {"seeds_with_every_head_above_half", summary.seeds_with_every_head_above_half},
        {"seeds_at_99", summary.seeds_at_99},
        {"seeds_at_100", summary.seeds_at_100},
        {"last_first_step_at_99", optional_json(summary.last_first_step_at_99)},
        {"final_accuracy_min", program::number_json(summary.final_accuracy_min)},
        {"wrong_digits", summary.wrong_digits},
        {"wrong_from_neighbour", summary.wrong_from_neighbour},
        {"wrong_not_in_input", summary.wrong_not_in_input},
        {"wrong_not_in_input_by_chance", program::number_json(summary.wrong_not_in_input_by_chance)}}},
      {"seconds", program::number_json(result.seconds)},
  });
  return document;
}

std::string tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const auto digits = [](const Sequence& sequence) {
    std::string text;
    for (const Eigen::Index word : sequence) text += fmt::format("{} ", word);
    if (!text.empty()) text.pop_back();
    return text;
  };
  std::string text = settings_text(inputs, result.held_out_count, fmt::format("seed {}", inputs.seed));
  const Untrained& untrained = result.untrained;
  text += fmt::format("Before training, on the held-out set\n"
                      "  loss                                         {:.4f}\n"
                      "  a uniform guess: log {}                      {:.4f}\n"
                      "  variance of a position's {} logits           {:.4f}\n"
                      "  log {} + that variance / 2                   {:.4f}\n",
                      untrained.held_out_loss, inputs.vocabulary, untrained.uniform_loss, inputs.vocabulary,
                      untrained.logit_variance, inputs.vocabulary, untrained.predicted_loss);
  if (result.first_loss) {
    text += fmt::format("Training loss of step 1 ({} sequences)           {:.4f}\n", inputs.batch, *result.first_loss);
  }
  text += '\n';
  const std::size_t points = result.logged_steps.size();
  const std::size_t stride = std::max<std::size_t>(1, points / 10);
  text += fmt::format("Training: the mean loss since the step logged\n"
                      "before, and the held-out accuracy; logged every\n"
                      "{} steps, {} (--json: all)\n"
                      "     step   loss     held-out accuracy\n",
                      inputs.log_every,
                      stride == 1 ? std::string("every point shown") : fmt::format("one point in {} shown", stride));
  // A loss too large for four decimals in its column (a learning rate far too large) in scientific notation.
  const auto loss_text = [](double loss) {
    return std::abs(loss) < 1e4 ? fmt::format("{:<8.4f}", loss) : fmt::format("{:<8.2e}", loss);
  };
  for (std::size_t i = 0; i < points; ++i) {
    if (i % stride != 0 && i + 1 != points) continue;
    text += fmt::format("{:>9}   {} {:>6.2f} %\n", result.logged_steps[i], loss_text(result.loss[i]),
                        100.0 * result.held_out_accuracy[i]);
  }
  text += fmt::format("\nHeld-out per-token accuracy after {} steps: {:.2f} %\n", result.steps_done,
                      100.0 * result.final_accuracy);
  text += fmt::format("First logged step at or above 99 %: {}; at 100 %: {}\n", step_text(result.first_step_at_99),
                      step_text(result.first_step_at_100));
  text += "Accuracy at each output position:";
  for (const double accuracy : result.position_accuracy) text += fmt::format(" {:.3f}", accuracy);
  // Short lines, and each mistake's three rows one above the other, digit under digit: a phone's column holds
  // about 44 characters, and the wrong digit is easiest to find in a column. No blank line inside: the page shows
  // the block up to the first one.
  text += fmt::format("\n\nHeld-out sequences with a wrong digit:\n"
                      "  {} of {}\n"
                      "Wrong digits: {}\n"
                      "  the digit beside the one to read: {}\n"
                      "  the digit on both sides of it: {}\n"
                      "  a digit nowhere in the input: {}\n",
                      result.wrong_sequences, result.held_out_count, result.wrong_digits, result.wrong_from_neighbour,
                      result.wrong_from_both_neighbours, result.wrong_not_in_input);
  for (std::size_t m = 0; m < result.mistakes.size(); ++m) {
    const Result::Mistake& mistake = result.mistakes[m];
    text += fmt::format("  {:<2} input      {}\n     target     {}\n     prediction {}\n", m + 1, digits(mistake.input),
                        digits(mistake.target), digits(mistake.prediction));
  }
  text += fmt::format("\nOne held-out sequence\ninput      {}\ntarget     {}\nprediction {}\n"
                      "Below, its attention weights. The {} weight of a head is the mean, over\n"
                      "the held-out set and the output positions, of the weight each output puts\n"
                      "on the position it must read.\n\n",
                      digits(result.example_input), digits(result.example_target), digits(result.example_prediction),
                      inputs.task == Task::reverse ? "mirrored" : "same-position");
  const std::vector<std::string> positions = positions_from_zero(inputs.length);
  for (std::size_t l = 0; l < result.attention.size(); ++l) {
    for (std::size_t h = 0; h < result.attention[l].size(); ++h) {
      text += program::table(fmt::format("Layer {}, head {} (rows: outputs, columns: inputs); {} weight {:.3f}", l + 1,
                                         h + 1, inputs.task == Task::reverse ? "mirrored" : "same-position",
                                         result.source_weight[l][h]),
                             result.attention[l][h], positions, positions, 2) +
              '\n';
    }
  }
  // Rows: the weights; columns: the steps. No blank line inside: the book shows the block up to the first one.
  const AdamExample& example = result.adam_example;
  const std::vector<std::string> names = {"large", "tiny", "turning"};  // adam_on_lone_weights()'s three
  const auto steps = static_cast<Eigen::Index>(example.weights.size());
  attention::Matrix after(static_cast<Eigen::Index>(names.size()), steps);
  for (Eigen::Index t = 0; t < steps; ++t) {
    for (Eigen::Index w = 0; w < after.rows(); ++w) {
      after(w, t) = example.weights[static_cast<std::size_t>(t)].at(static_cast<std::size_t>(w));
    }
  }
  const auto given = [&example](std::size_t w) {
    std::vector<std::string> values;
    for (const std::vector<double>& step : example.gradients) values.push_back(fmt::format("{:g}", step.at(w)));
    return fmt::format("g = {}", fmt::join(values, ", "));
  };
  text += fmt::format("Adam on three lone weights, each from 0, with\n"
                      "the gradients given, not computed:\n"
                      "  large:   {}\n  tiny:    {}\n  turning: {}\n",
                      given(0), given(1), given(2));
  text += program::table("The weight after each step:", after, names, program::numbered_labels("step ", steps), 4);
  return text;
}

std::string tables(const SeedsResult& result) {
  const Inputs& inputs = result.inputs;
  std::vector<std::string> seeds;
  for (const SeedRun& run : result.runs) seeds.push_back(std::to_string(run.seed));
  std::string text = settings_text(inputs, result.held_out_count,
                                   fmt::format("{} steps; seeds {}", inputs.steps, fmt::join(seeds, ", ")));
  const bool reverse = inputs.task == Task::reverse;
  text += fmt::format("Each seed after {} steps: held-out accuracy, the first logged step\n"
                      "at 99 % and at 100 %, and the wrong digits: how many, how many are\n"
                      "a neighbour's digit, how many appear nowhere in their input\n"
                      "   seed   accuracy   99 % at  100 % at   wrong  neighbour's  nowhere\n",
                      inputs.steps);
  for (const SeedRun& run : result.runs) {
    text += fmt::format("{:>7}   {:>7.2f} %  {:>7}  {:>8}  {:>6}  {:>11}  {:>7}\n", run.seed,
                        100.0 * run.final_accuracy, step_text(run.first_step_at_99), step_text(run.first_step_at_100),
                        run.wrong_digits, run.wrong_from_neighbour, run.wrong_not_in_input);
  }
  const bool layers = inputs.shape.layers > 1;
  text += fmt::format("\nEach seed and head: the mean weight on the {0} position (by chance\n"
                      "1/{1} = {2:.3f}), the share of held-out rows whose largest weight is\n"
                      "on it, and how many of the example's {1} rows have it there\n"
                      "   seed  {3}    weight   rows peaking there   example rows\n",
                      reverse ? "mirrored" : "same", inputs.length, 1.0 / static_cast<double>(inputs.length),
                      layers ? "layer.head" : "head");
  for (const SeedRun& run : result.runs) {
    for (std::size_t l = 0; l < run.source_weight.size(); ++l) {
      for (std::size_t h = 0; h < run.source_weight[l].size(); ++h) {
        const std::string head =
            layers ? fmt::format("{:>10}", fmt::format("{}.{}", l + 1, h + 1)) : fmt::format("{:>4}", h + 1);
        text +=
            fmt::format("{:>7}  {}   {:>7.3f}   {:>16.1f} %   {:>7} of {}\n", run.seed, head, run.source_weight[l][h],
                        100.0 * run.source_peak[l][h], run.example_source_peak[l][h], inputs.length);
      }
    }
  }
  const SeedsResult::Summary& summary = result.summary;
  const std::size_t seeds_run = result.runs.size();
  text +=
      fmt::format("\nOver the {} seeds\n"
                  "  the sharpest head's weight on the {} position: {:.3f} to {:.3f};\n"
                  "    its largest weight is there in at least {:.1f} % of the rows\n"
                  "  the least sharp head's weight: {:.3f} to {:.3f};\n"
                  "    its largest weight is there in as few as {:.1f} % of the rows\n"
                  "  seeds in which every head puts more than half its weight there: {} of {}\n"
                  "  seeds that reached 99 % at a logged step: {} of {}{}\n"
                  "  seeds that reached 100 % at a logged step: {} of {}\n"
                  "  the lowest held-out accuracy after the last step: {:.2f} %\n"
                  "  wrong digits after the last step: {}; a neighbour's digit: {};\n"
                  "    a digit that appears nowhere in their input: {}\n"
                  "    (about {:.0f} if each were drawn evenly from the digits that are not right)\n",
                  seeds_run, reverse ? "mirrored" : "same", summary.sharpest_weight_min, summary.sharpest_weight_max,
                  100.0 * summary.sharpest_peak_min, summary.other_weight_min, summary.other_weight_max,
                  100.0 * summary.other_peak_min, summary.seeds_with_every_head_above_half, seeds_run,
                  summary.seeds_at_99, seeds_run,
                  summary.last_first_step_at_99 ? fmt::format(", the last at step {}", *summary.last_first_step_at_99)
                                                : "",
                  summary.seeds_at_100, seeds_run, 100.0 * summary.final_accuracy_min, summary.wrong_digits,
                  summary.wrong_from_neighbour, summary.wrong_not_in_input, summary.wrong_not_in_input_by_chance);
  return text;
}

Flags::Flags(program::CommandLine& command_line) : command_line_(command_line) {
  command_line.option("--task", task_text_, "what to learn: reverse (output i is input n - 1 - i) or copy", "NAME");
  command_line.option("--length", length_text_, fmt::format("n, digits per sequence, 1 to {}", max_length), "INTEGER");
  command_line.option("--vocab", vocabulary_text_,
                      fmt::format("V, how many different digits (0 to V - 1), 2 to {}", max_vocabulary), "INTEGER");
  command_line.option("--steps", steps_text_, fmt::format("Adam updates, 1 to {}", max_steps), "INTEGER");
  command_line.option("--seed", seed_text_,
                      "the seed of the weights, the held-out set and the training stream, 0 to 2^64 - 1", "INTEGER");
  command_line.option("--seeds", seeds_text_,
                      fmt::format("train once per seed of this list (at most {}; instead of --seed) and print one "
                                  "row per seed and head: the weight on the right position, and the accuracy",
                                  max_seeds),
                      "LIST");
  command_line.option("--learning-rate", learning_rate_text_,
                      "Adam's step size alpha, a number above 0 and at most 1e300 (0.003 trains; 1e200 diverges at "
                      "once)",
                      "NUMBER");
  command_line.option("--batch", batch_text_, fmt::format("sequences per update, 1 to {}", max_batch), "INTEGER");
  command_line.option("--layers", layers_text_, fmt::format("encoder layers, 1 to {}", max_layers), "INTEGER");
  command_line.option("--d-model", d_model_text_,
                      fmt::format("the width of each token's vector: a multiple of 4 (an even share for each of the 2 "
                                  "heads), 4 to {}; d_ff is "
                                  "twice it",
                                  max_d_model),
                      "INTEGER");
  command_line.option("--log-every", log_every_text_,
                      "steps between two logged points of the loss and the held-out accuracy, 1 to --steps "
                      "(default 50, or --steps if fewer)",
                      "INTEGER");
  command_line.flag("--weights", include_weights_,
                    "put every trained weight in the JSON, so that another program can rerun the model");
  command_line.only_in_json("--weights");
}

Inputs Flags::read() const {
  Inputs inputs;
  if (task_text_ == "reverse") {
    inputs.task = Task::reverse;
  } else if (task_text_ == "copy") {
    inputs.task = Task::copy;
  } else {
    throw program::UsageError(fmt::format("--task: expected reverse or copy, not '{}'", task_text_));
  }
  inputs.length = static_cast<Eigen::Index>(program::parse_whole_number(length_text_, "--length", 1, max_length));
  inputs.vocabulary =
      static_cast<Eigen::Index>(program::parse_whole_number(vocabulary_text_, "--vocab", 2, max_vocabulary));
  inputs.steps = static_cast<long long>(program::parse_whole_number(steps_text_, "--steps", 1, max_steps));
  inputs.seed = program::parse_whole_number(seed_text_, "--seed", 0, UINT64_MAX);
  inputs.adam.learning_rate = program::parse_real_number(learning_rate_text_, "--learning-rate");
  if (!(inputs.adam.learning_rate > 0.0) || inputs.adam.learning_rate > max_learning_rate) {
    throw program::UsageError(
        fmt::format("--learning-rate is {}; expected a number above 0 and at most 1e300", learning_rate_text_));
  }
  inputs.batch = static_cast<Eigen::Index>(program::parse_whole_number(batch_text_, "--batch", 1, max_batch));
  inputs.shape.vocabulary = inputs.vocabulary;
  inputs.shape.outputs = inputs.vocabulary;  // the output is a digit too
  inputs.shape.layers = static_cast<Eigen::Index>(program::parse_whole_number(layers_text_, "--layers", 1, max_layers));
  inputs.shape.d_model =
      static_cast<Eigen::Index>(program::parse_whole_number(d_model_text_, "--d-model", 2, max_d_model));
  if (inputs.shape.d_model % (2 * inputs.shape.heads) != 0) {
    throw program::UsageError(fmt::format("--d-model is {}; each of the {} heads needs an even share, so it must be a "
                                          "multiple of {}",
                                          inputs.shape.d_model, inputs.shape.heads, 2 * inputs.shape.heads));
  }
  inputs.shape.d_ff = 2 * inputs.shape.d_model;
  inputs.log_every = command_line_.given("--log-every")
                         ? static_cast<long long>(program::parse_whole_number(log_every_text_, "--log-every", 1,
                                                                              static_cast<std::uint64_t>(inputs.steps)))
                         : std::min<long long>(default_log_every, inputs.steps);
  inputs.include_weights = include_weights_;
  if (command_line_.given("--seeds")) {
    if (command_line_.given("--seed")) throw program::UsageError("--seeds: give either --seed or --seeds, not both");
    if (include_weights_) throw program::UsageError("--seeds: --weights needs one run; give --seed instead");
    inputs.seeds = program::parse_whole_numbers(seeds_text_, "--seeds", 0, UINT64_MAX, max_seeds);
  }
  return inputs;
}

// The page's way in: the same flags and the same training, the JSON handed back. The page asks for
// --steps 20, then --steps 40, … as the map forms; each answer is what the command line prints for the
// same flags, but the run is kept between calls and continued rather than started again.
[[maybe_unused]] const bool registered_for_the_page = program::register_page_program(
    "training",
    [](const std::vector<std::string>& arguments) {
      static std::unique_ptr<Trainer> kept;  // the page's last run
      program::CommandLine command_line{"training", ""};
      Flags flags(command_line);
      nlohmann::json result;
      command_line.parse_for_page(arguments, [&] {
        const Inputs inputs = flags.read();
        if (!inputs.seeds.empty()) {
          result = to_json(compute_over_seeds(inputs));
          return;
        }
        std::unique_ptr<Trainer> run = std::move(kept);  // not kept if it fails part-way (a divergence)
        if (!run || !run->can_continue_to(inputs)) run = std::make_unique<Trainer>(inputs);
        run->extend_to(inputs.steps);
        run->advance(inputs.steps - run->steps_done());
        result = to_json(run->result());
        kept = std::move(run);
      });
      return result;
    },
    program::flag_defaults<Flags>("training"));

// The program's command line, registered once (program::register_chapter_with_modes(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the
// command line, and the lambda says which computation the flags ask for and prints it.
//
// With no arguments: 1000 Adam steps of 16 sequences on reversing 8 digits
// (0 to 9), one encoder layer of two heads; it prints the loss and the
// held-out accuracy as training goes, one held-out example and the learned
// attention maps, whose right answer is the anti-diagonal. --task copy is the
// contrast. --seeds 1,2,3 trains once per seed and prints, per seed and head,
// how much weight lands on the right position. --json prints it all as one
// JSON document; --weights adds every trained weight.
//
// While it trains, a progress line (step, loss, accuracy, time left) goes to
// stderr when stderr is a terminal, and nowhere otherwise.
[[maybe_unused]] const bool registered_command_line = program::register_chapter_with_modes<Flags>(
    "training",
    "Chapter 11 of Attention, Compiled: a small Transformer (embedding, sinusoidal positions, encoder layers of "
    "two heads, a linear read-out) trained with Adam to reverse a sequence of digits; held-out accuracy and the "
    "learned attention maps.",
    [](Flags& flags, const program::JsonFlags& output) {
      program::ProgressLine line;
      Progress progress;
      if (line.shown()) {
        progress = [&line](long long step, long long steps, double loss, double accuracy, double seconds) {
          const double left = seconds / static_cast<double>(step) * static_cast<double>(steps - step);
          line.update(fmt::format("step {}/{}  loss {:.4f}  held-out accuracy {:.1f} %  {} left", step, steps, loss,
                                  100.0 * accuracy, program::duration_text(left)));
          if (step == steps) std::cerr << '\n';  // the last line stays on the terminal
        };
      }
      const Inputs inputs = flags.read();
      if (!inputs.seeds.empty()) {
        const SeedsResult result = compute_over_seeds(inputs, progress);
        output.print([&] { return to_json(result); }, [&] { return tables(result); });
        return;
      }
      const Result result = compute(inputs, progress);
      output.print([&] { return to_json(result); }, [&] { return tables(result); });
    });

}  // namespace training
