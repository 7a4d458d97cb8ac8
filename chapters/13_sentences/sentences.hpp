// Chapter 13: attention that means something. A small Transformer, the token classifier of chapter 11,
// trained here on a language stated in full (grammar.hpp), learns two tasks:
//
//   tagging    give every word its class; "saw" is a verb in "I saw" and a noun in "a saw";
//   agreement  read a subject with phrases after it ("the key to the cabinets") and say whether the verb
//              that comes next takes the form for one ("is") or for many ("are").
//
// Both are measured on held-out sentences never trained on, against what a layer that reads one word
// at a time can do at best, and over several seeds.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/adam.hpp"
#include "attention/numpy_random.hpp"
#include "attention/seed_spread.hpp"
#include "attention/token_classifier.hpp"
#include "grammar.hpp"
#include "program/command_line.hpp"

namespace sentences {

enum class Task { tagging, agreement };
std::string task_name(Task task);

/// The most phrases after the subject's noun when --modifiers is not given: 2 for tagging, 3 for agreement.
inline int default_modifiers(Task task) { return task == Task::tagging ? 2 : 3; }

/// The model: chapter 11's token classifier (attention), or the same with chapter 7's recurrent layer in
/// place of the encoder layers (attention/recurrent_classifier.hpp).
enum class Model { attention, recurrent };
std::string model_name(Model model);

/// Held-out sentences measured at each logged point of training, the last included: the first this many.
inline constexpr std::size_t logged_held_out = 200;

/// Adam's settings with α = 0.006.
inline attention::AdamSettings faster_adam() {
  attention::AdamSettings settings;
  settings.learning_rate = 0.006;
  return settings;
}

struct Inputs {
  Task task = Task::tagging;
  Model model = Model::attention;
  int modifiers = -1;      // the most phrases after the subject's noun (below 0: the task's default)
  long long steps = 1500;  // Adam updates
  std::uint64_t seed = 1;  // of the weights, the held-out set and the training sentences
  std::string sentence;    // the sentence the model reads for the reader (empty: the task's default)
  // α = 0.006: twice chapter 11's, which this language needs to learn in seconds
  attention::AdamSettings adam = faster_adam();
  Eigen::Index batch = 16;  // sentences per update
  attention::TokenClassifierShape shape;
  Eigen::Index held_out = 0;         // held-out sentences (0: the task's default)
  long long log_every = 100;         // steps between two logged points
  bool include_weights = false;      // put every trained weight in the JSON
  bool list_sentences = false;       // put every training and held-out sentence in the JSON
  std::vector<std::uint64_t> seeds;  // with --seeds: train once per seed and report each
  bool both_models = false;          // with --seeds: train the attention model and the recurrent one, and compare
};

/// The same inputs with the task's defaults filled in (held-out size, the sentence, the read-out's width).
Inputs completed(Inputs inputs);

/// How each head of each layer spreads its weight, measured over the held-out set.
struct HeadMeasure {
  // Tagging: on the previous word, from an ambiguous word; agreement: on the subject, from the slot
  double mean_weight = 0.0;
  double peak_share = 0.0;  // the share of those rows whose largest weight is there
  // The same share over the rows whose target is not the sentence's first word. Where it is (tagging: an
  // ambiguous word in second place), a head that always looks at the first word lands there by habit alone.
  double peak_share_not_first = 0.0;
};
using HeadMeasures = std::vector<std::vector<HeadMeasure>>;  // [layer][head]

/// Agreement accuracy in one group of held-out sentences (by attractors, or by distance).
struct AgreementGroup {
  std::string label;
  long long count = 0;
  double model = 0.0;         // the model's accuracy
  double nearest_noun = 0.0;  // the rule "the verb agrees with the last noun before it"
};

/// The model's reading of one sentence, for the reader.
struct Reading {
  std::vector<Eigen::Index> words;
  // Tagging: a tag per word; agreement: one number, at the slot
  std::vector<Eigen::Index> answers;
  attention::Matrix probabilities;                        // per word (tagging) or for the slot (agreement), per output
  std::vector<std::vector<attention::Matrix>> attention;  // [layer][head], n × n
};

struct Result {
  Inputs inputs;
  long long parameters = 0;       // learned numbers in the model
  std::vector<Sentence> samples;  // the first training sentences drawn
  long long held_out_count = 0;
  long long training_drawn = 0;     // sentences training used (with repeats)
  long long training_distinct = 0;  // … of which distinct
  long long held_out_redrawn = 0;   // draws that fell in the held-out set and were drawn again
  std::vector<long long> logged_steps;
  std::vector<double> loss;               // mean training loss since the previous logged point
  std::vector<double> held_out_accuracy;  // on the first held-out sentences, at each logged point
  double accuracy = 0.0;                  // tagging: of words; agreement: of verbs; over the whole held-out set
  // tagging
  long long ambiguous_count = 0;  // held-out words that are both noun and verb in the language
  double ambiguous_accuracy = 0.0;
  double one_word_ceiling = 0.0;  // the best any layer that reads one word at a time can do on the held-out set
  double one_word_ceiling_ambiguous = 0.0;
  double word_and_position_ceiling = 0.0;  // the same for a layer that reads one word and its position
  double word_and_position_ceiling_ambiguous = 0.0;
  // agreement
  std::vector<AgreementGroup> by_attractors, by_distance;
  double one_word_agreement = 0.0;  // a layer that reads only the slot: always the commoner number
  HeadMeasures heads;
  // What a head spreading its weight evenly over each sentence would put there, averaged over the same rows
  double even_weight = 0.0;
  double first_word_share = 0.0;  // the share of those rows whose target is the sentence's first word
  Reading reading;
  double seconds = 0.0;  // training time, wall clock
  std::optional<attention::TokenClassifierWeights> weights;
  std::vector<std::string> training_sentences, held_out_sentences;  // with list_sentences
};

struct SeedRun {
  std::uint64_t seed = 0;
  double accuracy = 0.0;
  double hard_accuracy = 0.0;               // tagging: on ambiguous words; agreement: on sentences with an attractor
  double best_peak_share = 0.0;             // of the head whose largest weight most often lands where HeadMeasure says
  double best_peak_share_not_first = 0.0;   // the largest peak_share_not_first of the heads
  double one_word_hard = 0.0;               // the best a layer that reads one word at a time can do on the hard cases
  std::vector<AgreementGroup> by_distance;  // agreement: accuracy by distance from subject to slot
  long long parameters = 0;                 // learned numbers in the model
  double seconds = 0.0;
};

/// One distance group over the seeds: the median, worst and best accuracy of the seeds that have the group.
struct DistanceSpread {
  std::string label;
  attention::SeedSpread accuracy;
};

struct SeedsResult {
  Inputs inputs;
  std::vector<SeedRun> runs;
  std::vector<DistanceSpread> by_distance;  // agreement: distance_spreads() of the runs
};

/// Each distance group of @p result's seeds, in the order of the first seed's groups.
std::vector<DistanceSpread> distance_spreads(const SeedsResult& result);

/// Which model the seeds tell apart at one distance group, and each model's seeds there.
struct DistanceVerdict {
  std::string label;
  attention::SeedSpread attention_accuracy, recurrent_accuracy;
  // "attention" or "recurrent" when that model's worst seed beats the other's best, else "too close to call"
  std::string better;
};
/// The spread rule (attention::higher_over_seeds()) at each distance group.
/// @throws std::invalid_argument if the two were not judged on the same distance groups
std::vector<DistanceVerdict> distance_verdicts(const std::vector<DistanceSpread>& attention,
                                               const std::vector<DistanceSpread>& recurrent);

/// The attention model and the recurrent one, trained on the same seeds, sentences and held-out subjects.
struct ModelsCompared {
  SeedsResult attention, recurrent;
  std::vector<DistanceVerdict> by_distance;
};

/// Reports progress: (steps done, steps in all, seconds so far).
using Progress = std::function<void(long long, long long, double)>;

/// A trained model and the data it was trained and judged on.
struct Trained;

/// Trains from scratch with @p inputs (completed()).
std::shared_ptr<const Trained> train(const Inputs& inputs, const Progress& progress = {});
/// What the book shows of a trained model, with its reading of inputs.sentence.
Result report(const Trained& trained, const Inputs& inputs);
/// A trained model as the build ships it to the page: every parameter in parameter_blocks() order, and what
/// training logged. The page restores it instead of training (see trained_for_the_page in sentences.cpp).
struct SavedModel {
  std::string key;  // model_key() of the inputs it was trained with
  std::vector<double> parameters;
  std::vector<long long> logged_steps;
  std::vector<double> loss, held_out_accuracy;
  long long drawn = 0, distinct = 0, redrawn = 0;
  double seconds = 0.0;
};
/// Everything training depends on, as text: two inputs with the same key train the same model.
std::string model_key(const Inputs& inputs);
SavedModel saved(const Trained& trained);
/// The model @p model holds, with the held-out set and the first training sentences drawn again from the seed.
/// @throws std::invalid_argument if @p model was trained with other inputs, or its parameters do not fit
std::shared_ptr<const Trained> restored(const SavedModel& model, const Inputs& inputs);
nlohmann::json to_json(const SavedModel& model);

/// Trains and reports.
Result compute(const Inputs& inputs, const Progress& progress = {});
/// Trains once per seed of inputs.seeds.
SeedsResult compute_over_seeds(const Inputs& inputs, const Progress& progress = {});
/// Trains both models once per seed of inputs.seeds, and compares them at each distance (inputs.both_models).
ModelsCompared compare_models(const Inputs& inputs, const Progress& progress = {});

nlohmann::json to_json(const Result& result);
nlohmann::json to_json(const SeedsResult& result);
nlohmann::json to_json(const ModelsCompared& result);
/// The verdicts in a phrase: "too close to call at all 6 distances", or "too close to call at 1, 2-6 and
/// 7-12; the attention model better at 13-18, 19-24 and 25+".
std::string verdict_summary(const std::vector<DistanceVerdict>& verdicts);
nlohmann::json language_json();

std::string tables(const Result& result);
std::string tables(const SeedsResult& result);
std::string tables(const ModelsCompared& result);
std::string language_tables();

class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;
  bool language_only() const { return language_only_; }
  bool model_for_the_page() const { return model_for_the_page_; }

 private:
  const program::CommandLine& command_line_;
  std::string task_text_ = "tagging";
  std::string model_text_ = "attention";
  std::string modifiers_text_;
  std::string steps_text_ = "1500";
  std::string seed_text_ = "1";
  std::string sentence_text_;
  std::string layers_text_ = "1";
  std::string seeds_text_;
  bool include_weights_ = false;
  bool list_sentences_ = false;
  bool both_models_ = false;
  bool language_only_ = false;
  bool model_for_the_page_ = false;
};

}  // namespace sentences
