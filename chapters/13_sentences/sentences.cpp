#include "sentences.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "attention/batch_gradient.hpp"
#include "attention/cross_entropy.hpp"
#include "attention/recurrent_classifier.hpp"

namespace sentences {

struct Trained {
  Inputs inputs;
  attention::TokenClassifierWeights weights;        // with Model::attention
  attention::RecurrentClassifierWeights recurrent;  // with Model::recurrent
  std::vector<Sentence> held_out;
  std::vector<Sentence> samples;
  std::vector<std::string> training_sentences;  // every distinct one, with inputs.list_sentences
  long long drawn = 0, distinct = 0, redrawn = 0;
  std::vector<long long> logged_steps;
  std::vector<double> loss, held_out_accuracy;
  double seconds = 0.0;
};

namespace {

constexpr std::size_t shown_samples = 6;
constexpr std::size_t max_draws = 1'000'000;  // a bound on drawing distinct held-out sentences

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Sentence draw(Task task, int modifiers, attention::NumpyGenerator& generator) {
  return task == Task::tagging ? draw_sentence(generator, modifiers) : draw_agreement_prefix(generator, modifiers);
}

Eigen::Index last(const Sentence& sentence) { return static_cast<Eigen::Index>(sentence.words.size()) - 1; }

// clang-format off
// [loss_and_gradient]
// The loss on one sentence and the gradient of the logits. Tagging scores every word against its
// tag. Agreement scores only the slot's row against the subject's number: the other rows get no
// gradient.
attention::CrossEntropy loss_and_gradient(Task task, const attention::Matrix& logits,
                                          const Sentence& sentence) {
  if (task == Task::tagging) {
    std::vector<Eigen::Index> tags;
    for (const Tag tag : sentence.tags) tags.push_back(static_cast<Eigen::Index>(tag));
    return attention::softmax_cross_entropy(logits, tags);
  }
  const Eigen::Index slot = last(sentence);
  const Eigen::Index number = static_cast<Eigen::Index>(sentence.number);
  attention::CrossEntropy at_slot = attention::softmax_cross_entropy(logits.row(slot), {number});
  attention::Matrix gradient = attention::Matrix::Zero(logits.rows(), logits.cols());
  gradient.row(slot) = at_slot.logits_gradient;
  at_slot.logits_gradient = std::move(gradient);
  return at_slot;
}
// [loss_and_gradient]
// clang-format on

// The model's answers: a tag per word, or the number at the slot.
std::vector<Eigen::Index> answers(Task task, const attention::Matrix& logits) {
  std::vector<Eigen::Index> chosen;
  const Eigen::Index first = task == Task::tagging ? 0 : logits.rows() - 1;
  for (Eigen::Index t = first; t < logits.rows(); ++t) logits.row(t).maxCoeff(&chosen.emplace_back());
  return chosen;
}

// The logits of the trained model, whichever it is.
attention::Matrix logits_of(const Trained& trained, const std::vector<Eigen::Index>& words) {
  return trained.inputs.model == Model::attention ? attention::token_classifier(trained.weights, words).logits
                                                  : attention::recurrent_classifier(trained.recurrent, words).logits;
}

// The share of answers that are right, for the first held-out sentences, one list of answers each: words for
// tagging, verbs for agreement.
double accuracy_of(const Trained& trained, const std::vector<std::vector<Eigen::Index>>& chosen) {
  double right = 0.0, total = 0.0;
  for (std::size_t s = 0; s < chosen.size(); ++s) {
    const Sentence& sentence = trained.held_out[s];
    if (trained.inputs.task == Task::agreement) {
      right += chosen[s][0] == static_cast<Eigen::Index>(sentence.number) ? 1.0 : 0.0;
      total += 1.0;
      continue;
    }
    for (std::size_t t = 0; t < chosen[s].size(); ++t) {
      right += chosen[s][t] == static_cast<Eigen::Index>(sentence.tags[t]) ? 1.0 : 0.0;
    }
    total += static_cast<double>(chosen[s].size());
  }
  return right / total;
}

// The same for the first @p count held-out sentences, answered now (while training goes on).
double accuracy_on(const Trained& trained, std::size_t count) {
  std::vector<std::vector<Eigen::Index>> chosen;
  for (std::size_t s = 0; s < std::min(count, trained.held_out.size()); ++s) {
    chosen.push_back(answers(trained.inputs.task, logits_of(trained, trained.held_out[s].words)));
  }
  return accuracy_of(trained, chosen);
}

const std::string& default_sentence(Task task) {
  static const std::string tagging = "I saw a saw", agreement = "the key to the cabinets";
  return task == Task::tagging ? tagging : agreement;
}

bool is_ambiguous(Eigen::Index word) {
  static const std::vector<bool> ambiguous = [] {  // by word number, looked up once
    const std::vector<std::string>& both = ambiguous_words();
    std::vector<bool> table;
    for (const std::string& known : vocabulary())
      table.push_back(std::find(both.begin(), both.end(), known) != both.end());
    return table;
  }();
  return ambiguous[static_cast<std::size_t>(word)];
}

// clang-format off
// [one_word_ceiling]
// The best any layer that reads one word at a time can do: it gives every occurrence of a word the
// same tag, so on each word it is right at most as often as that word's commonest tag in the
// held-out set. With `with_position`, the same for a layer that reads one word and its position:
// every occurrence of a word at one position gets one tag.
std::pair<double, double> one_word_ceiling(const std::vector<Sentence>& held_out, bool with_position = false) {
  using WordAt = std::pair<Eigen::Index, std::size_t>;  // a word, and its position or 0
  std::map<WordAt, std::map<Tag, long long>> counts;    // word (at a position) → tag → occurrences
  for (const Sentence& sentence : held_out) {
    for (std::size_t t = 0; t < sentence.words.size(); ++t) {
      ++counts[{sentence.words[t], with_position ? t : 0}][sentence.tags[t]];
    }
  }
  double best = 0.0, total = 0.0, best_ambiguous = 0.0, total_ambiguous = 0.0;
  for (const auto& [word_at, tags] : counts) {
    long long most = 0, all = 0;
    for (const auto& [tag, count] : tags) most = std::max(most, count), all += count;
    best += static_cast<double>(most), total += static_cast<double>(all);
    if (is_ambiguous(word_at.first)) {
      best_ambiguous += static_cast<double>(most), total_ambiguous += static_cast<double>(all);
    }
  }
  return {best / total, best_ambiguous / total_ambiguous};
}
// [one_word_ceiling]
// clang-format on

// The attention weights of one forward pass: per layer, per head.
std::vector<std::vector<attention::Matrix>> attention_of(const attention::TokenClassifierSteps& steps) {
  std::vector<std::vector<attention::Matrix>> maps;
  for (const attention::EncoderLayerSteps& layer : steps.layers) {
    std::vector<attention::Matrix> heads;
    for (const attention::HeadSteps& head : layer.attention.heads) heads.push_back(head.attention.weights);
    maps.push_back(std::move(heads));
  }
  return maps;
}

Reading read(const Trained& trained, const std::vector<Eigen::Index>& words) {
  Reading reading;
  reading.words = words;
  const Task task = trained.inputs.task;
  attention::Matrix all_logits;
  if (trained.inputs.model == Model::attention) {
    const attention::TokenClassifierSteps steps = attention::token_classifier(trained.weights, words);
    all_logits = steps.logits;
    reading.attention = attention_of(steps);
  } else {
    all_logits = attention::recurrent_classifier(trained.recurrent, words).logits;  // a recurrence has no attention
  }
  reading.answers = answers(task, all_logits);
  const attention::Matrix logits = task == Task::tagging ? all_logits : attention::Matrix(all_logits.bottomRows(1));
  reading.probabilities =
      attention::softmax_cross_entropy(logits, std::vector<Eigen::Index>(static_cast<std::size_t>(logits.rows()), 0))
          .probabilities;
  return reading;
}

// The trained model on the whole held-out set, one forward pass per sentence: its answers, and where each
// head looks. Tagging: from each ambiguous word to the word before it, which in this grammar decides its tag.
// Agreement: from the slot to the subject's noun. A recurrence has no heads to measure.
struct HeldOutPass {
  std::vector<std::vector<Eigen::Index>> answers;  // one list per held-out sentence
  HeadMeasures heads;
  double even_weight = 0.0;       // 1 / the sentence's length, averaged over the rows the heads are measured on
  double first_word_share = 0.0;  // the share of those rows whose target is the sentence's first word
};

HeldOutPass pass_over_held_out(const Trained& trained) {
  const Task task = trained.inputs.task;
  HeldOutPass pass;
  if (trained.inputs.model == Model::recurrent) {
    for (const Sentence& sentence : trained.held_out) {
      pass.answers.push_back(answers(task, attention::recurrent_classifier(trained.recurrent, sentence.words).logits));
    }
    return pass;
  }
  const auto layers = static_cast<std::size_t>(trained.inputs.shape.layers);
  const auto heads = static_cast<std::size_t>(trained.inputs.shape.heads);
  HeadMeasures& measures = pass.heads;
  measures.assign(layers, std::vector<HeadMeasure>(heads));
  double rows = 0.0, first_word_rows = 0.0;
  for (const Sentence& sentence : trained.held_out) {
    const attention::TokenClassifierSteps steps = attention::token_classifier(trained.weights, sentence.words);
    pass.answers.push_back(answers(task, steps.logits));
    std::vector<std::pair<Eigen::Index, Eigen::Index>> pairs;  // (from, to)
    if (task == Task::agreement) {
      pairs.emplace_back(last(sentence), sentence.subject);
    } else {
      for (Eigen::Index t = 1; t <= last(sentence); ++t) {
        if (is_ambiguous(sentence.words[static_cast<std::size_t>(t)])) pairs.emplace_back(t, t - 1);
      }
    }
    for (const auto& [from, to] : pairs) {
      rows += 1.0;
      pass.even_weight += 1.0 / static_cast<double>(steps.logits.rows());  // every position reads every other
      const bool first = to == 0;
      first_word_rows += first ? 1.0 : 0.0;
      for (std::size_t l = 0; l < layers; ++l) {
        for (std::size_t h = 0; h < heads; ++h) {
          const attention::Matrix& weights = steps.layers[l].attention.heads[h].attention.weights;
          Eigen::Index peak = 0;
          weights.row(from).maxCoeff(&peak);
          measures[l][h].mean_weight += weights(from, to);
          measures[l][h].peak_share += peak == to ? 1.0 : 0.0;
          measures[l][h].peak_share_not_first += peak == to && !first ? 1.0 : 0.0;
        }
      }
    }
  }
  const double rows_not_first = rows - first_word_rows;
  for (auto& layer : measures) {
    for (HeadMeasure& head : layer) {
      head.mean_weight /= rows, head.peak_share /= rows;
      // A held-out set whose every target is the first word leaves no row to count: 0, not 0/0
      head.peak_share_not_first = rows_not_first > 0.0 ? head.peak_share_not_first / rows_not_first : 0.0;
    }
  }
  pass.even_weight /= rows;
  pass.first_word_share = first_word_rows / rows;
  return pass;
}

// Agreement accuracy by the number of attractors, and by the distance from subject to verb.
void group_agreement(const Trained& trained, const std::vector<std::vector<Eigen::Index>>& chosen, Result& result) {
  struct Range {
    Eigen::Index low, high;
  };
  const std::vector<Range> attractor_ranges{{0, 0}, {1, 1}, {2, 2}, {3, 99}};
  const std::vector<Range> distance_ranges{{1, 1}, {2, 6}, {7, 12}, {13, 18}, {19, 24}, {25, 999}};
  const auto label = [](const Range& range) {
    return range.high >= 99          ? fmt::format("{}+", range.low)
           : range.low == range.high ? fmt::format("{}", range.low)
                                     : fmt::format("{}-{}", range.low, range.high);
  };
  for (const Range& range : attractor_ranges) result.by_attractors.push_back({label(range)});
  for (const Range& range : distance_ranges) result.by_distance.push_back({label(range)});
  const auto group_of = [](const std::vector<Range>& ranges, Eigen::Index value) {
    std::size_t g = 0;
    while (value > ranges[g].high) ++g;
    return g;
  };
  long long one = 0;
  for (std::size_t s = 0; s < trained.held_out.size(); ++s) {
    const Sentence& sentence = trained.held_out[s];
    const double model = chosen[s][0] == static_cast<Eigen::Index>(sentence.number) ? 1.0 : 0.0;
    const double nearest = sentence.nearest_number == sentence.number ? 1.0 : 0.0;
    for (AgreementGroup* group : {&result.by_attractors[group_of(attractor_ranges, sentence.attractors)],
                                  &result.by_distance[group_of(distance_ranges, last(sentence) - sentence.subject)]}) {
      ++group->count;
      group->model += model;
      group->nearest_noun += nearest;
    }
    one += sentence.number == Number::one ? 1 : 0;
  }
  for (auto* groups : {&result.by_attractors, &result.by_distance}) {
    for (AgreementGroup& group : *groups) {
      if (group.count > 0)
        group.model /= static_cast<double>(group.count), group.nearest_noun /= static_cast<double>(group.count);
    }
    // A group no held-out sentence falls in (a distance beyond what --modifiers allows) is left out.
    std::erase_if(*groups, [](const AgreementGroup& group) { return group.count == 0; });
  }
  const auto count = static_cast<double>(trained.held_out.size());
  result.one_word_agreement = std::max(static_cast<double>(one), count - static_cast<double>(one)) / count;
}

}  // namespace

std::string task_name(Task task) { return task == Task::tagging ? "tagging" : "agreement"; }

std::string model_name(Model model) { return model == Model::attention ? "attention" : "recurrent"; }

Inputs completed(Inputs inputs) {
  if (inputs.held_out == 0) inputs.held_out = inputs.task == Task::tagging ? 400 : 1000;
  if (inputs.modifiers < 0) inputs.modifiers = default_modifiers(inputs.task);
  if (inputs.sentence.empty()) inputs.sentence = default_sentence(inputs.task);
  inputs.shape.vocabulary = static_cast<Eigen::Index>(vocabulary().size());
  inputs.shape.outputs = inputs.task == Task::tagging ? tag_count : 2;
  inputs.shape.d_ff = 2 * inputs.shape.d_model;
  return inputs;
}

namespace {

// What training draws from: the generator, past the weights and the held-out set, and that set's sentences.
struct Drawing {
  explicit Drawing(std::uint64_t seed) : generator(seed) {}
  attention::NumpyGenerator generator;
  std::set<std::vector<Eigen::Index>> held_out_words;
};

// The seed of the weights' draws: a stream of its own, so that both models, whose weights take different
// numbers of draws, are judged on the same held-out sentences and trained on the same sentences.
std::uint64_t weights_seed(std::uint64_t seed) { return seed ^ 0x9e3779b97f4a7c15u; }

// The untrained model and its held-out set, each sentence different; training draws again whenever it
// draws one of them.
std::shared_ptr<Trained> prepared(const Inputs& given, Drawing& drawing) {
  auto trained = std::make_shared<Trained>();
  trained->inputs = completed(given);
  const Inputs& inputs = trained->inputs;
  attention::NumpyGenerator weights_generator(weights_seed(inputs.seed));
  if (inputs.model == Model::attention) {
    trained->weights = attention::initial_token_classifier(inputs.shape, weights_generator);
  } else {
    trained->recurrent = attention::initial_recurrent_classifier(inputs.shape.vocabulary, inputs.shape.d_model,
                                                                 inputs.shape.outputs, weights_generator);
  }
  for (std::size_t draws = 0; trained->held_out.size() < static_cast<std::size_t>(inputs.held_out); ++draws) {
    if (draws == max_draws)
      throw std::runtime_error("the language has too few different sentences for the held-out set");
    Sentence sentence = draw(inputs.task, inputs.modifiers, drawing.generator);
    if (drawing.held_out_words.insert(sentence.words).second) trained->held_out.push_back(std::move(sentence));
  }
  return trained;
}

// The two models the chapter trains, behind one interface for the training loop.
struct AttentionModel {
  using Weights = attention::TokenClassifierWeights;
  static Weights& of(Trained& trained) { return trained.weights; }
  static attention::TokenClassifierSteps forward(const Weights& weights, const std::vector<Eigen::Index>& words) {
    return attention::token_classifier(weights, words);
  }
  static Weights backward(const Weights& weights, const std::vector<Eigen::Index>& words,
                          const attention::TokenClassifierSteps& steps, const attention::Matrix& gradient) {
    return attention::token_classifier_backward(weights, words, steps, gradient);
  }
  static std::vector<attention::ParameterBlock> blocks(Weights& weights) {
    return attention::parameter_blocks(weights);
  }
};

struct RecurrentModel {
  using Weights = attention::RecurrentClassifierWeights;
  static Weights& of(Trained& trained) { return trained.recurrent; }
  static attention::RecurrentClassifierSteps forward(const Weights& weights, const std::vector<Eigen::Index>& words) {
    return attention::recurrent_classifier(weights, words);
  }
  static Weights backward(const Weights& weights, const std::vector<Eigen::Index>& words,
                          const attention::RecurrentClassifierSteps& steps, const attention::Matrix& gradient) {
    return attention::recurrent_classifier_backward(weights, words, steps, gradient);
  }
  static std::vector<attention::ParameterBlock> blocks(Weights& weights) {
    return attention::recurrent_parameter_blocks(weights);
  }
};

std::vector<attention::ParameterBlock> parameters_of(Trained& trained) {
  return trained.inputs.model == Model::attention ? AttentionModel::blocks(trained.weights)
                                                  : RecurrentModel::blocks(trained.recurrent);
}

// Every learned number of the trained model, in the order of its parameter blocks.
std::vector<double> parameter_values(const Trained& trained) {
  std::vector<double> values;
  const auto append = [&values](auto weights, const auto& blocks_of) {  // a copy: the blocks point into it
    for (const attention::ParameterBlock& block : blocks_of(weights)) {
      values.insert(values.end(), block.data, block.data + block.size);
    }
  };
  if (trained.inputs.model == Model::attention) {
    append(trained.weights, AttentionModel::blocks);
  } else {
    append(trained.recurrent, RecurrentModel::blocks);
  }
  return values;
}

Sentence next_training_sentence(const Inputs& inputs, Drawing& drawing, long long& redrawn) {
  Sentence sentence = draw(inputs.task, inputs.modifiers, drawing.generator);
  while (drawing.held_out_words.count(sentence.words) != 0) {
    sentence = draw(inputs.task, inputs.modifiers, drawing.generator), ++redrawn;
  }
  return sentence;
}

}  // namespace

namespace {

// clang-format off
// [train]
using Words = std::vector<Eigen::Index>;

template <class Model>
void train_steps(Trained& trained, Drawing& drawing, std::set<Words>& training_words,
                 const Progress& progress, std::chrono::steady_clock::time_point start) {
  const Inputs& inputs = trained.inputs;
  typename Model::Weights& weights = Model::of(trained);
  attention::Adam adam(Model::blocks(weights), inputs.adam);
  double loss_since_log = 0.0;
  for (long long step = 1; step <= inputs.steps; ++step) {
    const auto one_example = [&](Eigen::Index) {
      const Sentence sentence = next_training_sentence(inputs, drawing, trained.redrawn);
      if (trained.samples.size() < shown_samples) trained.samples.push_back(sentence);
      if (training_words.insert(sentence.words).second) ++trained.distinct;
      ++trained.drawn;
      const auto steps = Model::forward(weights, sentence.words);
      const attention::CrossEntropy error = loss_and_gradient(inputs.task, steps.logits, sentence);
      loss_since_log += error.loss / static_cast<double>(inputs.batch);
      return Model::backward(weights, sentence.words, steps, error.logits_gradient);
    };
    typename Model::Weights mean =
        attention::batch_mean_gradient(inputs.batch, one_example, Model::blocks);
    adam.step(Model::blocks(weights), Model::blocks(mean));
    if (step % inputs.log_every == 0 || step == inputs.steps) {
      const long long previous = trained.logged_steps.empty() ? 0 : trained.logged_steps.back();
      trained.logged_steps.push_back(step);
      trained.loss.push_back(loss_since_log / static_cast<double>(step - previous));
      trained.held_out_accuracy.push_back(accuracy_on(trained, logged_held_out));
      loss_since_log = 0.0;
      if (progress) progress(step, inputs.steps, seconds_since(start));
    }
  }
}
// [train]
// clang-format on

}  // namespace

std::shared_ptr<const Trained> train(const Inputs& given, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  Drawing drawing(given.seed);
  const std::shared_ptr<Trained> trained = prepared(given, drawing);
  const Inputs& inputs = trained->inputs;
  std::set<std::vector<Eigen::Index>> training_words;
  if (inputs.model == Model::attention) {
    train_steps<AttentionModel>(*trained, drawing, training_words, progress, start);
  } else {
    train_steps<RecurrentModel>(*trained, drawing, training_words, progress, start);
  }
  if (inputs.list_sentences) {
    for (const auto& words : training_words) trained->training_sentences.push_back(text_of(words));
  }
  trained->seconds = seconds_since(start);
  return trained;
}

SavedModel saved(const Trained& trained) {
  SavedModel model;
  model.key = model_key(trained.inputs);
  model.parameters = parameter_values(trained);
  model.logged_steps = trained.logged_steps;
  model.loss = trained.loss;
  model.held_out_accuracy = trained.held_out_accuracy;
  model.drawn = trained.drawn, model.distinct = trained.distinct, model.redrawn = trained.redrawn;
  model.seconds = trained.seconds;
  return model;
}

std::shared_ptr<const Trained> restored(const SavedModel& model, const Inputs& inputs) {
  if (model.key != model_key(completed(inputs)))
    throw std::invalid_argument("restored: the model was trained with other inputs");
  Drawing drawing(inputs.seed);
  const std::shared_ptr<Trained> trained = prepared(inputs, drawing);
  std::size_t at = 0;
  for (const attention::ParameterBlock& block : parameters_of(*trained)) {
    if (at + static_cast<std::size_t>(block.size) > model.parameters.size())
      throw std::invalid_argument("restored: too few parameters");
    std::copy_n(model.parameters.begin() + static_cast<std::ptrdiff_t>(at), block.size, block.data);
    at += static_cast<std::size_t>(block.size);
  }
  if (at != model.parameters.size()) throw std::invalid_argument("restored: too many parameters");
  long long redrawn = 0;  // the first training sentences, drawn again as training drew them
  while (trained->samples.size() < shown_samples)
    trained->samples.push_back(next_training_sentence(trained->inputs, drawing, redrawn));
  trained->logged_steps = model.logged_steps;
  trained->loss = model.loss;
  trained->held_out_accuracy = model.held_out_accuracy;
  trained->drawn = model.drawn, trained->distinct = model.distinct, trained->redrawn = model.redrawn;
  trained->seconds = model.seconds;
  return trained;
}

nlohmann::json to_json(const SavedModel& model) {
  return {{"key", model.key},
          {"parameters", model.parameters},
          {"logged_steps", model.logged_steps},
          {"loss", model.loss},
          {"held_out_accuracy", model.held_out_accuracy},
          {"drawn", model.drawn},
          {"distinct", model.distinct},
          {"redrawn", model.redrawn},
          {"seconds", model.seconds}};
}

std::string model_key(const Inputs& inputs) {
  return fmt::format("{} {} steps={} seed={} layers={} modifiers={} weights={} sentences={}", task_name(inputs.task),
                     model_name(inputs.model), inputs.steps, inputs.seed, inputs.shape.layers, inputs.modifiers,
                     inputs.include_weights, inputs.list_sentences);
}

Result report(const Trained& trained, const Inputs& given) {
  Result result;
  result.inputs = trained.inputs;
  result.inputs.sentence = completed(given).sentence;
  result.samples = trained.samples;
  result.parameters = static_cast<long long>(parameter_values(trained).size());
  result.held_out_count = static_cast<long long>(trained.held_out.size());
  result.training_drawn = trained.drawn;
  result.training_distinct = trained.distinct;
  result.held_out_redrawn = trained.redrawn;
  result.logged_steps = trained.logged_steps;
  result.loss = trained.loss;
  result.held_out_accuracy = trained.held_out_accuracy;
  const HeldOutPass pass = pass_over_held_out(trained);
  result.accuracy = accuracy_of(trained, pass.answers);
  result.heads = pass.heads;
  result.even_weight = pass.even_weight;
  result.first_word_share = pass.first_word_share;
  const Task task = trained.inputs.task;
  if (task == Task::tagging) {
    double right = 0.0;
    for (std::size_t s = 0; s < trained.held_out.size(); ++s) {
      const Sentence& sentence = trained.held_out[s];
      for (std::size_t t = 0; t < sentence.words.size(); ++t) {
        if (!is_ambiguous(sentence.words[t])) continue;
        ++result.ambiguous_count;
        right += pass.answers[s][t] == static_cast<Eigen::Index>(sentence.tags[t]) ? 1.0 : 0.0;
      }
    }
    result.ambiguous_accuracy = right / static_cast<double>(result.ambiguous_count);
    std::tie(result.one_word_ceiling, result.one_word_ceiling_ambiguous) = one_word_ceiling(trained.held_out);
    std::tie(result.word_and_position_ceiling, result.word_and_position_ceiling_ambiguous) =
        one_word_ceiling(trained.held_out, true);
  } else {
    group_agreement(trained, pass.answers, result);
  }
  std::vector<Eigen::Index> words = words_of(result.inputs.sentence, "--sentence");
  if (task == Task::agreement) words.push_back(static_cast<Eigen::Index>(vocabulary().size()) - 1);  // the slot
  result.reading = read(trained, words);
  result.seconds = trained.seconds;
  if (trained.inputs.include_weights) result.weights = trained.weights;
  result.training_sentences = trained.training_sentences;
  if (trained.inputs.list_sentences) {
    for (const Sentence& sentence : trained.held_out) result.held_out_sentences.push_back(text_of(sentence.words));
  }
  return result;
}

Result compute(const Inputs& inputs, const Progress& progress) { return report(*train(inputs, progress), inputs); }

SeedsResult compute_over_seeds(const Inputs& inputs, const Progress& progress) {
  SeedsResult result;
  result.inputs = completed(inputs);
  for (std::size_t s = 0; s < inputs.seeds.size(); ++s) {
    Inputs one = inputs;
    one.seed = inputs.seeds[s];
    const Progress overall = [&](long long step, long long steps, double seconds) {
      if (progress)
        progress(static_cast<long long>(s) * steps + step, static_cast<long long>(inputs.seeds.size()) * steps,
                 seconds);
    };
    const Result run = compute(one, overall);
    SeedRun seed_run;
    seed_run.seed = one.seed;
    seed_run.accuracy = run.accuracy;
    if (inputs.task == Task::tagging) {
      seed_run.hard_accuracy = run.ambiguous_accuracy;
      seed_run.one_word_hard = run.one_word_ceiling_ambiguous;
    } else {
      double right = 0.0, count = 0.0;
      for (const AgreementGroup& group : run.by_attractors) {
        if (group.label == "0") continue;
        right += group.model * static_cast<double>(group.count), count += static_cast<double>(group.count);
      }
      seed_run.hard_accuracy = right / count;
      seed_run.one_word_hard = run.one_word_agreement;
      seed_run.by_distance = run.by_distance;
    }
    for (const auto& layer : run.heads) {
      for (const HeadMeasure& head : layer) {
        seed_run.best_peak_share = std::max(seed_run.best_peak_share, head.peak_share);
        seed_run.best_peak_share_not_first = std::max(seed_run.best_peak_share_not_first, head.peak_share_not_first);
      }
    }
    seed_run.seconds = run.seconds;
    seed_run.parameters = run.parameters;
    result.runs.push_back(seed_run);
  }
  result.by_distance = distance_spreads(result);
  return result;
}

std::vector<DistanceSpread> distance_spreads(const SeedsResult& result) {
  std::vector<DistanceSpread> spreads;
  if (result.runs.empty()) return spreads;
  for (const AgreementGroup& first : result.runs.front().by_distance) {
    std::vector<double> values;
    for (const SeedRun& run : result.runs) {
      for (const AgreementGroup& group : run.by_distance) {
        if (group.label == first.label) values.push_back(group.model);
      }
    }
    spreads.push_back({first.label, attention::spread_over_seeds(values)});
  }
  return spreads;
}

std::vector<DistanceVerdict> distance_verdicts(const std::vector<DistanceSpread>& attention,
                                               const std::vector<DistanceSpread>& recurrent) {
  const auto same_label = [](const DistanceSpread& a, const DistanceSpread& b) { return a.label == b.label; };
  if (!std::equal(attention.begin(), attention.end(), recurrent.begin(), recurrent.end(), same_label)) {
    throw std::invalid_argument("distance_verdicts: the two models were judged on different distance groups");
  }
  std::vector<DistanceVerdict> verdicts;
  for (std::size_t g = 0; g < attention.size(); ++g) {
    const attention::Higher higher = attention::higher_over_seeds(attention[g].accuracy, recurrent[g].accuracy);
    const std::string better = higher == attention::Higher::first    ? model_name(Model::attention)
                               : higher == attention::Higher::second ? model_name(Model::recurrent)
                                                                     : "too close to call";
    verdicts.push_back({attention[g].label, attention[g].accuracy, recurrent[g].accuracy, better});
  }
  return verdicts;
}

ModelsCompared compare_models(const Inputs& inputs, const Progress& progress) {
  ModelsCompared result;
  // One progress line over both: the attention model's seeds, then the recurrent one's.
  const auto part = [&progress](long long before) -> Progress {
    return [&progress, before](long long step, long long steps, double seconds) {
      if (progress) progress(before * steps + step, 2 * steps, seconds);
    };
  };
  Inputs one = inputs;
  one.both_models = false;
  one.model = Model::attention;
  result.attention = compute_over_seeds(one, part(0));
  one.model = Model::recurrent;
  result.recurrent = compute_over_seeds(one, part(1));
  result.by_distance = distance_verdicts(result.attention.by_distance, result.recurrent.by_distance);
  return result;
}

}  // namespace sentences
