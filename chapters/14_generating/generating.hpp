// Chapter 14: generating. The book's small Transformer, with chapter 4's causal mask, learns to predict the
// next word of chapter 13's language, then writes sentences one word at a time:
//
//   training     next-word prediction on sentences drawn from the grammar, judged by the loss per word on
//                held-out sentences and by the share of generated sentences the grammar accepts;
//   decoding     greedy, or drawn with a temperature and top-k, seeded; each step reads the earlier words
//                through a cache of every layer's keys and values (attention/kv_cache.hpp), or, to check it
//                and to time it, by running the model on the whole prefix again;
//   grouping     h query heads share h_kv heads of keys and values (attention/grouped_query.hpp), from
//                h_kv = h down to 1: the cache shrinks h / h_kv times, and the seeds say what the model loses.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/adam.hpp"
#include "attention/multiply_add_peak.hpp"
#include "attention/numpy_random.hpp"
#include "attention/sampling.hpp"
#include "attention/timing_comparison.hpp"
#include "attention/token_classifier.hpp"
#include "chapters/13_sentences/grammar.hpp"
#include "program/command_line.hpp"

namespace generating {

/// The words the model reads and writes: chapter 13's vocabulary, with its last entry, the agreement task's
/// slot, standing for the end of a sentence, written ".". A sentence is read as ". w1 … wk": the "." before it
/// is the start the model predicts the first word from, and it must predict "." after the last.
const std::vector<std::string>& tokens();
Eigen::Index end_token();
std::string text_of(const std::vector<Eigen::Index>& words);

/// Adam's settings with α = 0.006, chapter 13's.
attention::AdamSettings faster_adam();

/// How the judged sentences are drawn: T = 1 among every word (top-k 0), the model's own probabilities.
inline constexpr attention::SamplingSettings judged_sampling{1.0, 0};

struct Inputs {
  // The model and its training
  std::uint64_t model_seed = 1;      // of the weights, the held-out set and the training sentences
  long long training_steps = 1500;   // Adam updates of 16 sentences
  Eigen::Index key_value_heads = 4;  // h_kv: groups of query heads sharing keys and values
  attention::TokenClassifierShape shape = default_shape();
  attention::AdamSettings adam = faster_adam();
  Eigen::Index batch = 16;
  int modifiers = 2;            // the most phrases after a subject's noun, as chapter 13's tagging
  Eigen::Index held_out = 400;  // held-out sentences
  Eigen::Index judged = 200;    // sentences generated (judged_sampling) to count the grammatical ones
  long long judged_words = 40;  // … each cut off here: a judged sentence with no "." by then is not a sentence
  // Decoding, for the reader
  std::vector<Eigen::Index> prompt;              // the words the sentence starts with, after the start "."
  long long steps = 16;                          // the most words to add; it stops at "."
  attention::SamplingSettings sampling{0.0, 0};  // T = 0: greedy
  std::uint64_t seed = 1;                        // of the draws, when T > 0
  bool use_cache = true;                         // false: every step runs the model on the whole prefix
  bool include_weights = false;                  // put every trained weight in the JSON
  // Over seeds
  std::vector<std::uint64_t> seeds;                // with --seeds: train once per seed and value of h_kv
  std::vector<Eigen::Index> key_value_heads_list;  // … for each of these h_kv

  static attention::TokenClassifierShape default_shape();
};

/// One word of the generated sentence.
struct GeneratedWord {
  Eigen::Index word = 0;
  double probability = 0.0;   // that the model gives it: softmax of the scores
  double drawn_with = 0.0;    // … after T and top-k (1 when greedy)
  std::optional<double> u;    // the uniform number that drew it; none when greedy
  double stretch_from = 0.0;  // where its stretch of the line from 0 to 1 starts: the words before it, drawn_with
  std::vector<std::pair<Eigen::Index, double>> top;  // the three words the model gives most, with their probabilities
  // The words the draw could take (those T and top-k left a probability; greedy, the one word chosen), in the
  // vocabulary's order, each with its stretch of the line from 0 to 1, as long as its probability as drawn.
  struct Stretch {
    Eigen::Index word = 0;
    double from = 0.0, to = 0.0;
  };
  std::vector<Stretch> line;
  double line_model_probability = 0.0;  // what the model (T = 1, every word) gives those words together
  std::vector<std::vector<std::vector<double>>> attention;  // [layer][head]: over the positions before it
  long long cache_numbers = 0;                              // numbers in the cache after this step (0 without one)
};

struct Generation {
  std::vector<Eigen::Index> prompt;  // with the start "."
  std::vector<GeneratedWord> words;
  std::vector<Eigen::Index> sentence;  // the prompt without the start "." and the words without the final "."
  bool ended = false;                  // it wrote "."
  bool grammatical = false;            // the prompt and the words form a sentence of the grammar
  double seconds = 0.0;                // decoding only, wall clock
  double largest_difference = 0.0;     // between the cached and the recomputed logits, over every step
};

/// One of the judged sentences the book shows.
struct Example {
  std::string text;
  bool grammatical = false;
  std::optional<sentences::Refusal> refusal;  // for a sentence the grammar refuses: where, and what it could have had
};

/// How good the trained model is.
struct Quality {
  double held_out_loss = 0.0;  // mean −ln p(next word) over every word of the held-out sentences, "." included
  long long held_out_words = 0;
  double no_context_loss = 0.0;   // the best a model giving every position the same odds can do:
                                  // entropy of the held-out words' own frequencies
  double grammar_loss = 0.0;      // the grammar's own loss there: −ln of the chance that it writes each held-out
                                  // sentence (the sum of −ln p(word | words before) over its words), per word
  double grammatical = 0.0;       // share of the judged sentences (drawn with T = 1) the grammar accepts
  double novel = 0.0;             // … that are grammatical and were never a training sentence
  std::vector<Example> examples;  // the first judged sentences
  std::vector<std::string> judged_sentences;  // every judged sentence, in the order drawn (the JSON's with --weights)
};

/// The sentences the grammar draws, one at a time, with the held-out ones training must not see.
struct Drawing {
  explicit Drawing(std::uint64_t seed) : generator(seed) {}
  attention::NumpyGenerator generator;
  std::set<std::vector<Eigen::Index>> held_out;  // as the model reads them, "." first
};

/// The next training sentence, as the model reads it ("." first): the grammar's next draw (chapter 13's
/// sentences::draw_sentence(), up to @p modifiers phrases after a subject's noun), drawn again while it is
/// held out.
std::vector<Eigen::Index> next_training_sentence(int modifiers, Drawing& drawing);

/// The held-out sentences, as the model reads them: the grammar's first inputs.held_out different draws from
/// @p drawing, which keeps them (Drawing::held_out) so that next_training_sentence() never returns one. Training
/// draws them first, from a Drawing of its model seed, then its own sentences from the same stream.
std::vector<std::vector<Eigen::Index>> draw_held_out(const Inputs& inputs, Drawing& drawing);

struct Trained;

struct Result {
  Inputs inputs;
  long long parameters = 0;
  std::vector<long long> logged_steps;
  std::vector<double> loss;  // mean training loss per word since the previous logged point
  Quality quality;
  Generation generation;
  double seconds = 0.0;  // training
  std::optional<attention::TokenClassifierWeights> weights;
};

struct SeedRun {
  std::uint64_t seed = 0;
  Eigen::Index key_value_heads = 0;
  long long parameters = 0;
  long long cache_numbers = 0;  // per position (all layers, keys and values)
  Quality quality;
  double seconds = 0.0;
};

struct SeedsResult {
  Inputs inputs;
  std::vector<SeedRun> runs;  // for each h_kv, for each seed
};

/// The benchmark: the same words decoded with the cache and by recomputing, on an untrained model of the
/// default shape, in turns, reps times.
struct BenchmarkInputs {
  std::vector<Eigen::Index> lengths{32, 64, 128, 256};
  std::size_t reps = 5;
  Eigen::Index key_value_heads = 4;
};

struct BenchmarkLength {
  Eigen::Index n = 0;
  attention::TimingSummary cached, recomputed;  // seconds for all n words
  attention::Faster faster = attention::Faster::too_close;
  attention::TimingSummary cached_last, recomputed_last;              // seconds for the n-th word alone
  double cached_multiply_adds = 0.0, recomputed_multiply_adds = 0.0;  // counted, for all n words
  long long cache_numbers = 0;
  // Counted multiply-adds per second (median), against the peak
  attention::RateAgainstPeak cached_rate, recomputed_rate;
};

/// The cache of a larger decoder than the book's, at a longer length, for each h_kv: the formula at scale.
struct LargeCache {
  long long layers = 80, query_heads = 64, head_width = 128, positions = 4096, bytes_per_number = 2;
  std::vector<std::pair<long long, long long>> bytes;  // (h_kv, bytes)
};

struct BenchmarkResult {
  BenchmarkInputs inputs;
  attention::TokenClassifierShape shape;
  std::string processor;
  std::vector<BenchmarkLength> lengths;
  attention::MultiplyAddPeak peak;  // one thread's, measured in the same run
  LargeCache large;
};

using Progress = std::function<void(long long, long long, double)>;

std::shared_ptr<const Trained> train(const Inputs& inputs, const Progress& progress = {});
/// The trained model's quality and the reader's sentence, decoded as inputs say.
Result report(const Trained& trained, const Inputs& inputs);
Result compute(const Inputs& inputs, const Progress& progress = {});
SeedsResult compute_over_seeds(const Inputs& inputs, const Progress& progress = {});
BenchmarkResult benchmark(const BenchmarkInputs& inputs);

/// Decodes @p steps words after @p prompt (which starts with "."), with the cache or by recomputing.
Generation generate(const attention::TokenClassifierWeights& weights, Eigen::Index key_value_heads,
                    const std::vector<Eigen::Index>& prompt, long long steps,
                    const attention::SamplingSettings& sampling, std::uint64_t seed, bool use_cache, int modifiers);

/// A trained model as the build ships it to the page (see models_for_the_page.py).
struct SavedModel {
  std::string key;
  std::vector<double> parameters;
  std::string record;  // the rest of what training measured, as JSON text
};
std::string model_key(const Inputs& inputs);
SavedModel saved(const Trained& trained);
std::shared_ptr<const Trained> restored(const SavedModel& model, const Inputs& inputs);
nlohmann::json to_json(const SavedModel& model);

nlohmann::json to_json(const Result& result);
nlohmann::json to_json(const SeedsResult& result);
nlohmann::json to_json(const BenchmarkResult& result);
std::string tables(const Result& result);
std::string tables(const SeedsResult& result);
std::string tables(const BenchmarkResult& result);

class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;
  BenchmarkInputs read_benchmark() const;
  bool benchmark() const { return benchmark_; }
  bool model_for_the_page() const { return model_for_the_page_; }

 private:
  const program::CommandLine& command_line_;
  std::string prompt_text_;
  std::string steps_text_ = "16";
  std::string temperature_text_ = "0";
  std::string top_k_text_ = "0";
  std::string seed_text_ = "1";
  std::string key_value_heads_text_ = "4";
  std::string model_seed_text_ = "1";
  std::string training_steps_text_ = "1500";
  std::string seeds_text_;
  std::string lengths_text_ = "32,64,128,256";
  std::string reps_text_ = "5";
  bool no_cache_ = false;
  bool include_weights_ = false;
  bool benchmark_ = false;
  bool model_for_the_page_ = false;
};

}  // namespace generating
