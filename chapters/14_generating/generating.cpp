#include "generating.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "attention/batch_gradient.hpp"
#include "attention/cross_entropy.hpp"
#include "attention/grouped_query.hpp"
#include "attention/kv_cache.hpp"
#include "attention/numpy_random.hpp"
#include "attention/stopwatch.hpp"
#include "attention/worker_threads.hpp"
#include "chapters/13_sentences/grammar.hpp"
#include "program/trainings.hpp"

namespace generating {

struct Trained {
  Inputs inputs;
  attention::TokenClassifierWeights weights;
  std::set<std::vector<Eigen::Index>> training_sentences;  // every distinct one, as the model read it
  std::vector<long long> logged_steps;
  std::vector<double> loss;
  Quality quality;
  double seconds = 0.0;
};

const std::vector<std::string>& tokens() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> words = sentences::vocabulary();
    words.back() = ".";  // the agreement task's slot: not a word of any sentence
    return words;
  }();
  return list;
}

Eigen::Index end_token() { return static_cast<Eigen::Index>(tokens().size()) - 1; }

std::string text_of(const std::vector<Eigen::Index>& words) {
  std::string text;
  for (const Eigen::Index word : words) {
    if (!text.empty()) text += ' ';
    text += tokens()[static_cast<std::size_t>(word)];
  }
  return text;
}

attention::AdamSettings faster_adam() {
  attention::AdamSettings settings;
  settings.learning_rate = 0.006;
  return settings;
}

attention::TokenClassifierShape Inputs::default_shape() {
  attention::TokenClassifierShape shape;
  shape.vocabulary = shape.outputs = static_cast<Eigen::Index>(sentences::vocabulary().size());
  shape.d_model = 32;
  shape.heads = 4;
  shape.d_ff = 64;
  shape.layers = 1;
  return shape;
}

namespace {

constexpr std::size_t shown_examples = 8;
constexpr std::size_t max_draws = 1'000'000;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A sentence of the grammar as the model reads it, ". w1 … wk", and the words it must predict, "w1 … wk .".
std::vector<Eigen::Index> with_start(const std::vector<Eigen::Index>& words) {
  std::vector<Eigen::Index> read{end_token()};
  read.insert(read.end(), words.begin(), words.end());
  return read;
}

// clang-format off
// [next_word_loss]
// Next-word prediction: position t reads the words up to t (the causal mask) and is scored on the
// word at t + 1; the last word is scored on the end, ".".
attention::CrossEntropy next_word_loss(const attention::Matrix& logits,
                                       const std::vector<Eigen::Index>& words) {
  std::vector<Eigen::Index> next(words.begin() + 1, words.end());  // NumPy: words[1:]
  next.push_back(end_token());
  return attention::softmax_cross_entropy(logits, next);
}
// [next_word_loss]
// clang-format on

std::uint64_t weights_seed(std::uint64_t seed) { return seed ^ 0x9e3779b97f4a7c15u; }
std::uint64_t judging_seed(std::uint64_t seed) { return seed ^ 0x5851f42d4c957f2du; }

}  // namespace

std::vector<Eigen::Index> next_training_sentence(int modifiers, Drawing& drawing) {
  for (;;) {
    std::vector<Eigen::Index> words = with_start(sentences::draw_sentence(drawing.generator, modifiers).words);
    if (drawing.held_out.count(words) == 0) return words;
  }
}

std::vector<std::vector<Eigen::Index>> draw_held_out(const Inputs& inputs, Drawing& drawing) {
  std::vector<std::vector<Eigen::Index>> held_out;
  for (std::size_t draws = 0; held_out.size() < static_cast<std::size_t>(inputs.held_out); ++draws) {
    if (draws == max_draws)
      throw std::runtime_error("the language has too few different sentences for the held-out set");
    std::vector<Eigen::Index> words = with_start(sentences::draw_sentence(drawing.generator, inputs.modifiers).words);
    if (drawing.held_out.insert(words).second) held_out.push_back(std::move(words));
  }
  return held_out;
}

namespace {

// The untrained model, its key/value heads shared in groups, and the held-out sentences.
std::shared_ptr<Trained> prepared(const Inputs& inputs, Drawing& drawing,
                                  std::vector<std::vector<Eigen::Index>>& held_out) {
  auto trained = std::make_shared<Trained>();
  trained->inputs = inputs;
  attention::NumpyGenerator weights_generator(weights_seed(inputs.model_seed));
  trained->weights = attention::initial_token_classifier(inputs.shape, weights_generator);
  attention::share_key_value_heads(trained->weights.layers, inputs.key_value_heads);
  held_out = draw_held_out(inputs, drawing);
  return trained;
}

// clang-format off
// [train]
void train_steps(Trained& trained, Drawing& drawing, const Progress& progress,
                 std::chrono::steady_clock::time_point start) {
  const Inputs& inputs = trained.inputs;
  const Eigen::Index groups = inputs.key_value_heads;
  attention::TokenClassifierWeights& weights = trained.weights;
  attention::Adam adam(attention::grouped_parameter_blocks(weights, groups), inputs.adam);
  double loss_since_log = 0.0, words_since_log = 0.0;
  for (long long step = 1; step <= inputs.training_steps; ++step) {
    const auto one_example = [&](Eigen::Index) {
      const std::vector<Eigen::Index> words = next_training_sentence(inputs.modifiers, drawing);
      trained.training_sentences.insert(words);
      const auto steps = attention::token_classifier(weights, words, attention::Visibility::causal);
      const attention::CrossEntropy error = next_word_loss(steps.logits, words);
      attention::TokenClassifierWeights gradients = attention::token_classifier_backward(
          weights, words, steps, error.logits_gradient, attention::Visibility::causal);
      // A W^K or W^V shared by a group gets the sum of the group's gradients.
      attention::sum_key_value_gradients(gradients.layers, groups);
      const auto count = static_cast<double>(words.size());
      loss_since_log += error.loss * count, words_since_log += count;  // loss: a mean per word
      return gradients;
    };
    const auto grouped_blocks = [&](attention::TokenClassifierWeights& gradient) {
      return attention::grouped_parameter_blocks(gradient, groups);
    };
    attention::TokenClassifierWeights mean =
        attention::batch_mean_gradient(inputs.batch, one_example, grouped_blocks);
    adam.step(grouped_blocks(weights), grouped_blocks(mean));
    attention::share_key_value_heads(weights.layers, groups);  // the first head was updated
    if (step % 100 == 0 || step == inputs.training_steps) {
      trained.logged_steps.push_back(step);
      trained.loss.push_back(loss_since_log / words_since_log);
      loss_since_log = words_since_log = 0.0;
      if (progress) progress(step, inputs.training_steps, seconds_since(start));
    }
  }
}
// [train]
// clang-format on

// The entropy of the words' own frequencies: the lowest mean loss a model that gives every position the same
// probabilities can have on these sentences.
double no_context_loss(const std::vector<std::vector<Eigen::Index>>& held_out) {
  std::map<Eigen::Index, double> counts;
  double total = 0.0;
  for (const auto& words : held_out) {
    for (std::size_t t = 1; t <= words.size(); ++t) {
      ++counts[t < words.size() ? words[t] : end_token()];
      total += 1.0;
    }
  }
  double entropy = 0.0;
  for (const auto& [word, count] : counts) entropy -= count / total * std::log(count / total);
  return entropy;
}

// A judged sentence for the book: a sentence the model did not end within its words is refused where the end
// should have come, even when its words so far parse.
Example example(const std::vector<Eigen::Index>& words, bool grammatical, int modifiers) {
  Example shown{text_of(words), grammatical, std::nullopt};
  if (!grammatical)
    shown.refusal = sentences::refusal(words, modifiers).value_or(sentences::Refusal{words.size(), {"."}});
  return shown;
}

// clang-format off
// [quality]
Quality judged(const Trained& trained, const std::vector<std::vector<Eigen::Index>>& held_out) {
  const Inputs& inputs = trained.inputs;
  Quality quality;
  double loss = 0.0;
  for (const auto& words : held_out) {
    const auto steps =
        attention::token_classifier(trained.weights, words, attention::Visibility::causal);
    loss += next_word_loss(steps.logits, words).loss * static_cast<double>(words.size());
    quality.held_out_words += static_cast<long long>(words.size());
  }
  quality.held_out_loss = loss / static_cast<double>(quality.held_out_words);
  quality.no_context_loss = no_context_loss(held_out);
  double grammar_surprise = 0.0;
  for (const auto& words : held_out) {
    const std::vector<Eigen::Index> sentence(words.begin() + 1, words.end());  // no start "."
    grammar_surprise -= std::log(sentences::sentence_probability(sentence, inputs.modifiers));
  }
  quality.grammar_loss = grammar_surprise / static_cast<double>(quality.held_out_words);
  // Sentences drawn from the model with its own probabilities (judged_sampling), and checked by the grammar.
  attention::NumpyGenerator seeds(judging_seed(inputs.model_seed));
  double grammatical = 0.0, novel = 0.0;
  for (Eigen::Index s = 0; s < inputs.judged; ++s) {
    const Generation sentence =
        generate(trained.weights, inputs.key_value_heads, {end_token()}, inputs.judged_words,
                 judged_sampling, seeds.next_uint64(), true, inputs.modifiers);
    std::vector<Eigen::Index> words{end_token()};
    for (const GeneratedWord& word : sentence.words) {
      if (word.word != end_token()) words.push_back(word.word);
    }
    grammatical += sentence.grammatical ? 1.0 : 0.0;
    novel += sentence.grammatical && trained.training_sentences.count(words) == 0 ? 1.0 : 0.0;
    const std::vector<Eigen::Index> shown(words.begin() + 1, words.end());  // no start "."
    if (quality.examples.size() < shown_examples)
      quality.examples.push_back(example(shown, sentence.grammatical, inputs.modifiers));
    quality.judged_sentences.push_back(text_of(shown));
  }
  quality.grammatical = grammatical / static_cast<double>(inputs.judged);
  quality.novel = novel / static_cast<double>(inputs.judged);
  return quality;
}
// [quality]
// clang-format on

std::vector<double> parameter_values(attention::TokenClassifierWeights weights, Eigen::Index groups) {
  std::vector<double> values;
  for (const attention::ParameterBlock& block : attention::grouped_parameter_blocks(weights, groups)) {
    values.insert(values.end(), block.data, block.data + block.size);
  }
  return values;
}

// The three likeliest words, likeliest first.
std::vector<std::pair<Eigen::Index, double>> top_three(const attention::Vector& probabilities) {
  std::vector<std::pair<Eigen::Index, double>> all;
  for (Eigen::Index w = 0; w < probabilities.size(); ++w) all.emplace_back(w, probabilities(w));
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  all.resize(3);
  return all;
}

}  // namespace

namespace {

// The decoder reading one word after another: with the cache, one step per word; without it, the whole prefix
// again at every word, and its last row.
class Reader {
 public:
  Reader(const attention::TokenClassifierWeights& weights, Eigen::Index key_value_heads, Eigen::Index capacity,
         bool use_cache)
      : weights_(weights),
        groups_(key_value_heads),
        use_cache_(use_cache),
        cache_(attention::empty_key_value_cache(weights, key_value_heads, use_cache ? capacity : 1)) {}

  // The scores of the word after @p word, and where each head of the new position looks.
  attention::DecodingStep read(Eigen::Index word) {
    words_.push_back(word);
    if (use_cache_) return attention::decode_step(weights_, cache_, word);
    const attention::TokenClassifierSteps whole =
        attention::token_classifier(weights_, words_, attention::Visibility::causal);
    attention::DecodingStep step;
    step.logits = whole.logits.bottomRows(1).transpose();
    for (const attention::EncoderLayerSteps& layer : whole.layers) {
      std::vector<attention::Vector>& heads = step.weights.emplace_back();
      for (const attention::HeadSteps& head : layer.attention.heads) {
        heads.push_back(head.attention.weights.bottomRows(1).transpose());
      }
    }
    return step;
  }

  // The numbers the cache holds now (0 without one).
  long long cache_numbers() const {
    if (!use_cache_) return 0;
    return attention::key_value_cache_numbers(static_cast<long long>(weights_.layers.size()), cache_.length, groups_,
                                              weights_.layers.front().attention.heads.front().key.cols());
  }

 private:
  const attention::TokenClassifierWeights& weights_;
  Eigen::Index groups_;
  bool use_cache_;
  attention::KeyValueCache cache_;
  std::vector<Eigen::Index> words_;
};

// What the book shows of one chosen word: the model's own probabilities (T = 1, every word), the probability
// it was drawn with and its stretch of the line from 0 to 1, and where the position that chose it looked.
GeneratedWord described(const attention::DrawnWord& drawn, const attention::DecodingStep& step,
                        const attention::Vector& drawn_from) {
  const Eigen::Index word = drawn.word;
  GeneratedWord generated;
  generated.word = word;
  generated.drawn_with = drawn_from(word);
  generated.u = drawn.u;
  const attention::Vector model = attention::sampling_probabilities(step.logits, {1.0, 0});
  generated.probability = model(word);
  generated.top = top_three(model);
  double from = 0.0;  // the line from 0 to 1, word by word, as drawn
  for (Eigen::Index candidate = 0; candidate < drawn_from.size(); ++candidate) {
    if (drawn_from(candidate) == 0.0) continue;
    if (candidate == word) generated.stretch_from = from;
    generated.line.push_back({candidate, from, from + drawn_from(candidate)});
    from += drawn_from(candidate);
    generated.line_model_probability += model(candidate);
  }
  for (const auto& layer : step.weights) {
    auto& heads = generated.attention.emplace_back();
    for (const attention::Vector& head : layer) heads.emplace_back(head.data(), head.data() + head.size());
  }
  return generated;
}

}  // namespace

Generation generate(const attention::TokenClassifierWeights& weights, Eigen::Index key_value_heads,
                    const std::vector<Eigen::Index>& prompt, long long steps,
                    const attention::SamplingSettings& sampling, std::uint64_t seed, bool use_cache, int modifiers) {
  const auto start = std::chrono::steady_clock::now();
  Generation generation;
  generation.prompt = prompt;
  attention::NumpyGenerator draws(seed);
  Reader reader(weights, key_value_heads, static_cast<Eigen::Index>(prompt.size()) + steps, use_cache);
  // clang-format off
  // [generate]
  attention::DecodingStep step;
  for (const Eigen::Index word : prompt) step = reader.read(word);  // the prompt, one word at a time
  for (long long s = 0; s < steps && !generation.ended; ++s) {
    const attention::Vector probabilities = attention::sampling_probabilities(step.logits, sampling);
    const attention::DrawnWord drawn = attention::draw_word(probabilities, draws);
    GeneratedWord generated = described(drawn, step, probabilities);
    generation.ended = drawn.word == end_token();
    if (!generation.ended) step = reader.read(drawn.word);  // the new word joins what the model reads
    generated.cache_numbers = reader.cache_numbers();
    generation.words.push_back(std::move(generated));
  }
  // [generate]
  // clang-format on
  generation.seconds = seconds_since(start);
  generation.sentence.assign(prompt.begin() + 1, prompt.end());
  for (const GeneratedWord& word : generation.words) {
    if (word.word != end_token()) generation.sentence.push_back(word.word);
  }
  generation.grammatical = generation.ended && sentences::is_sentence(generation.sentence, modifiers);
  return generation;
}

std::shared_ptr<const Trained> train(const Inputs& inputs, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  Drawing drawing(inputs.model_seed);
  std::vector<std::vector<Eigen::Index>> held_out;
  const std::shared_ptr<Trained> trained = prepared(inputs, drawing, held_out);
  train_steps(*trained, drawing, progress, start);
  trained->seconds = seconds_since(start);
  trained->quality = judged(*trained, held_out);
  return trained;
}

namespace {

// The largest difference between the logits of the cache's steps and of the whole prefix, over a sentence.
double largest_difference(const attention::TokenClassifierWeights& weights, Eigen::Index key_value_heads,
                          const std::vector<Eigen::Index>& words) {
  attention::KeyValueCache cache =
      attention::empty_key_value_cache(weights, key_value_heads, static_cast<Eigen::Index>(words.size()));
  const attention::Matrix whole = attention::token_classifier(weights, words, attention::Visibility::causal).logits;
  double largest = 0.0;
  for (std::size_t t = 0; t < words.size(); ++t) {
    const attention::Vector cached = attention::decode_step(weights, cache, words[t]).logits;
    largest = std::max(largest, (cached - whole.row(static_cast<Eigen::Index>(t)).transpose()).cwiseAbs().maxCoeff());
  }
  return largest;
}

}  // namespace

Result report(const Trained& trained, const Inputs& given) {
  Result result;
  result.inputs = given;
  result.parameters = static_cast<long long>(parameter_values(trained.weights, trained.inputs.key_value_heads).size());
  result.logged_steps = trained.logged_steps;
  result.loss = trained.loss;
  result.quality = trained.quality;
  result.seconds = trained.seconds;
  result.generation = generate(trained.weights, trained.inputs.key_value_heads, with_start(given.prompt), given.steps,
                               given.sampling, given.seed, given.use_cache, given.modifiers);
  std::vector<Eigen::Index> read = result.generation.prompt;
  for (const GeneratedWord& word : result.generation.words) read.push_back(word.word);
  result.generation.largest_difference = largest_difference(trained.weights, trained.inputs.key_value_heads, read);
  if (given.include_weights) result.weights = trained.weights;
  return result;
}

Result compute(const Inputs& inputs, const Progress& progress) { return report(*train(inputs, progress), inputs); }

SeedsResult compute_over_seeds(const Inputs& inputs, const Progress& progress) {
  SeedsResult result;
  result.inputs = inputs;
  std::vector<Inputs> plan;  // for each h_kv, for each seed
  for (const Eigen::Index groups : inputs.key_value_heads_list) {
    for (const std::uint64_t seed : inputs.seeds) {
      Inputs one = inputs;
      one.model_seed = seed;
      one.key_value_heads = groups;
      plan.push_back(one);
    }
  }
  result.runs.resize(plan.size());
  // The trainings are independent: one per processor at a time (program/trainings.hpp).
  program::run_trainings(plan.size(), progress, [&](std::size_t r, const program::StepProgress& overall) {
    const std::shared_ptr<const Trained> trained = train(plan[r], overall);
    SeedRun& run = result.runs[r];
    run.seed = plan[r].model_seed;
    run.key_value_heads = plan[r].key_value_heads;
    run.parameters = static_cast<long long>(parameter_values(trained->weights, run.key_value_heads).size());
    run.cache_numbers = attention::key_value_cache_numbers(plan[r].shape.layers, 1, run.key_value_heads,
                                                           plan[r].shape.d_model / plan[r].shape.heads);
    run.quality = trained->quality;
    run.seconds = trained->seconds;
  });
  return result;
}

// clang-format off
// [multiply_adds]
// The multiply-adds of the matrix products one decoding step makes at position t
// (t + 1 words read), with the cache and by recomputing the prefix. Softmax,
// LayerNorm and the additions are left out.
namespace {

double cached_step_multiply_adds(const attention::TokenClassifierShape& shape, Eigen::Index groups,
                                 double t) {
  const double d = static_cast<double>(shape.d_model), h = static_cast<double>(shape.heads);
  const double d_k = d / h, f = static_cast<double>(shape.d_ff), kv = static_cast<double>(groups);
  const double per_layer = d * d             // the queries, every head
                           + 2.0 * d * kv * d_k  // this position's keys and values, once per group
                           + 2.0 * h * (t + 1.0) * d_k  // t + 1 scores, t + 1 weighted values
                           + d * d           // W^O
                           + 2.0 * d * f;    // the feed-forward network
  return static_cast<double>(shape.layers) * per_layer + d * static_cast<double>(shape.outputs);
}

double recomputed_step_multiply_adds(const attention::TokenClassifierShape& shape, double t) {
  const double d = static_cast<double>(shape.d_model), f = static_cast<double>(shape.d_ff);
  const double n = t + 1.0;
  const double per_layer = n * 3.0 * d * d  // queries, keys, values: every position, every head
                           + 2.0 * n * n * d  // every score and weighted value, masked ones too
                           + n * d * d + n * 2.0 * d * f;
  return static_cast<double>(shape.layers) * per_layer + n * d * static_cast<double>(shape.outputs);
}

}  // namespace
// [multiply_adds]
// clang-format on

BenchmarkResult benchmark(const BenchmarkInputs& inputs) {
  BenchmarkResult result;
  result.inputs = inputs;
  result.shape = Inputs::default_shape();
  result.processor = attention::processor_name();
  attention::NumpyGenerator generator(1);
  attention::TokenClassifierWeights weights = attention::initial_token_classifier(result.shape, generator);
  attention::share_key_value_heads(weights.layers, inputs.key_value_heads);
  const Eigen::Index longest = *std::max_element(inputs.lengths.begin(), inputs.lengths.end());
  std::vector<Eigen::Index> words;
  for (Eigen::Index t = 0; t < longest; ++t)
    words.push_back(static_cast<Eigen::Index>(generator.next_uint64() % static_cast<std::uint64_t>(end_token())));
  using Clock = std::chrono::steady_clock;
  // Per repetition, the seconds of every step; the two ways in turns, so that a slow moment of the machine
  // falls on both.
  std::vector<std::vector<double>> cached(inputs.reps), recomputed(inputs.reps);
  static volatile double sink = 0.0;
  for (std::size_t r = 0; r < inputs.reps; ++r) {
    attention::KeyValueCache cache = attention::empty_key_value_cache(weights, inputs.key_value_heads, longest);
    for (Eigen::Index t = 0; t < longest; ++t) {
      const auto before = Clock::now();
      sink = sink + attention::decode_step(weights, cache, words[static_cast<std::size_t>(t)]).logits(0);
      cached[r].push_back(std::chrono::duration<double>(Clock::now() - before).count());
    }
    std::vector<Eigen::Index> prefix;
    for (Eigen::Index t = 0; t < longest; ++t) {
      prefix.push_back(words[static_cast<std::size_t>(t)]);
      const auto before = Clock::now();
      sink = sink + attention::token_classifier(weights, prefix, attention::Visibility::causal).logits(t, 0);
      recomputed[r].push_back(std::chrono::duration<double>(Clock::now() - before).count());
    }
  }
  result.peak = attention::measure_multiply_add_peak(1);
  for (const Eigen::Index n : inputs.lengths) {
    BenchmarkLength length;
    length.n = n;
    std::vector<double> cached_total, recomputed_total, cached_last, recomputed_last;
    for (std::size_t r = 0; r < inputs.reps; ++r) {
      cached_total.push_back(std::accumulate(cached[r].begin(), cached[r].begin() + n, 0.0));
      recomputed_total.push_back(std::accumulate(recomputed[r].begin(), recomputed[r].begin() + n, 0.0));
      cached_last.push_back(cached[r][static_cast<std::size_t>(n - 1)]);
      recomputed_last.push_back(recomputed[r][static_cast<std::size_t>(n - 1)]);
    }
    length.cached = attention::summarize_timings(cached_total);
    length.recomputed = attention::summarize_timings(recomputed_total);
    length.faster = attention::faster_at({static_cast<std::size_t>(n), length.cached, length.recomputed});
    length.cached_last = attention::summarize_timings(cached_last);
    length.recomputed_last = attention::summarize_timings(recomputed_last);
    for (Eigen::Index t = 0; t < n; ++t) {
      length.cached_multiply_adds +=
          cached_step_multiply_adds(result.shape, inputs.key_value_heads, static_cast<double>(t));
      length.recomputed_multiply_adds += recomputed_step_multiply_adds(result.shape, static_cast<double>(t));
    }
    // A multiply-add is two floating-point operations, as the peak counts them.
    length.cached_rate =
        attention::against_peak(2.0 * length.cached_multiply_adds / length.cached.median, result.peak.flops);
    length.recomputed_rate =
        attention::against_peak(2.0 * length.recomputed_multiply_adds / length.recomputed.median, result.peak.flops);
    length.cache_numbers = attention::key_value_cache_numbers(result.shape.layers, n, inputs.key_value_heads,
                                                              result.shape.d_model / result.shape.heads);
    result.lengths.push_back(length);
  }
  LargeCache& large = result.large;
  for (const long long groups : {large.query_heads, 8LL, 1LL}) {
    large.bytes.emplace_back(groups, attention::key_value_cache_numbers(large.layers, large.positions, groups,
                                                                        large.head_width) *
                                         large.bytes_per_number);
  }
  return result;
}

std::string model_key(const Inputs& inputs) {
  return fmt::format("model_seed={} steps={} kv_heads={} weights={}", inputs.model_seed, inputs.training_steps,
                     inputs.key_value_heads, inputs.include_weights);
}

SavedModel saved(const Trained& trained) {
  SavedModel model;
  model.key = model_key(trained.inputs);
  model.parameters = parameter_values(trained.weights, trained.inputs.key_value_heads);
  nlohmann::json examples = nlohmann::json::array();
  for (const Example& shown : trained.quality.examples) examples.push_back({shown.text, shown.grammatical});
  nlohmann::json record{{"logged_steps", trained.logged_steps},
                        {"loss", trained.loss},
                        {"seconds", trained.seconds},
                        {"held_out_loss", trained.quality.held_out_loss},
                        {"held_out_words", trained.quality.held_out_words},
                        {"no_context_loss", trained.quality.no_context_loss},
                        {"grammar_loss", trained.quality.grammar_loss},
                        {"grammatical", trained.quality.grammatical},
                        {"novel", trained.quality.novel},
                        {"examples", examples}};
  // The run with --weights keeps every judged sentence, which its JSON gives (a model for the page does not).
  if (trained.inputs.include_weights) record["judged_sentences"] = trained.quality.judged_sentences;
  model.record = record.dump();
  return model;
}

std::shared_ptr<const Trained> restored(const SavedModel& model, const Inputs& inputs) {
  if (model.key != model_key(inputs)) throw std::invalid_argument("restored: the model was trained with other inputs");
  auto trained = std::make_shared<Trained>();
  trained->inputs = inputs;
  attention::NumpyGenerator weights_generator(weights_seed(inputs.model_seed));
  trained->weights = attention::initial_token_classifier(inputs.shape, weights_generator);
  std::size_t at = 0;
  for (const attention::ParameterBlock& block :
       attention::grouped_parameter_blocks(trained->weights, inputs.key_value_heads)) {
    if (at + static_cast<std::size_t>(block.size) > model.parameters.size())
      throw std::invalid_argument("restored: too few parameters");
    std::copy_n(model.parameters.begin() + static_cast<std::ptrdiff_t>(at), block.size, block.data);
    at += static_cast<std::size_t>(block.size);
  }
  if (at != model.parameters.size()) throw std::invalid_argument("restored: too many parameters");
  attention::share_key_value_heads(trained->weights.layers, inputs.key_value_heads);
  const nlohmann::json record = nlohmann::json::parse(model.record);
  trained->logged_steps = record.at("logged_steps").get<std::vector<long long>>();
  trained->loss = record.at("loss").get<std::vector<double>>();
  trained->seconds = record.at("seconds").get<double>();
  Quality& quality = trained->quality;
  quality.held_out_loss = record.at("held_out_loss").get<double>();
  quality.held_out_words = record.at("held_out_words").get<long long>();
  quality.no_context_loss = record.at("no_context_loss").get<double>();
  quality.grammar_loss = record.at("grammar_loss").get<double>();
  quality.grammatical = record.at("grammatical").get<double>();
  quality.novel = record.at("novel").get<double>();
  for (const nlohmann::json& shown : record.at("examples")) {
    const std::string text = shown.at(0).get<std::string>();  // "" for a sentence that ended at once
    const std::vector<Eigen::Index> words =
        text.empty() ? std::vector<Eigen::Index>{} : sentences::words_of(text, "the saved model's examples");
    quality.examples.push_back(example(words, shown.at(1).get<bool>(), inputs.modifiers));
  }
  if (record.contains("judged_sentences"))
    quality.judged_sentences = record.at("judged_sentences").get<std::vector<std::string>>();
  return trained;
}

nlohmann::json to_json(const SavedModel& model) {
  return {{"key", model.key}, {"parameters", model.parameters}, {"record", model.record}};
}

}  // namespace generating
