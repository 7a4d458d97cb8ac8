// Chapter 11: a small Transformer learns to reverse a sequence of digits.
//
// The model is the library's token classifier (attention/token_classifier.hpp):
// embedding, sinusoidal positions, encoder layers with two heads, a linear
// read-out. It is trained with Adam on random digit sequences, and judged on
// held-out sequences it never saw. The attention that solves "reverse" is
// known in advance: output i must read input n − 1 − i, the anti-diagonal.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/adam.hpp"
#include "attention/numpy_random.hpp"
#include "attention/token_classifier.hpp"
#include "program/command_line.hpp"

namespace training {

/// What the model must learn to do with a sequence.
enum class Task { reverse, copy };

/// The task's name on the command line and in the JSON.
std::string task_name(Task task);

/// A sequence of word numbers.
using Sequence = std::vector<Eigen::Index>;

/// The right output for @p input: reversed, or copied.
Sequence target_for(Task task, const Sequence& input);

/// The input position output position @p i must read to be right.
Eigen::Index source_position(Task task, Eigen::Index i, Eigen::Index length);

struct Inputs {
  Task task = Task::reverse;
  Eigen::Index length = 8;       // n, digits per sequence
  Eigen::Index vocabulary = 10;  // V, the digits 0 … V − 1
  long long steps = 1000;        // Adam updates
  std::uint64_t seed = 1;        // of the weights, the held-out set and the training stream
  attention::AdamSettings adam;  // α, β₁, β₂, ε
  Eigen::Index batch = 16;       // sequences per update
  attention::TokenClassifierShape shape;
  Eigen::Index held_out = 200;       // sequences kept out of training, to measure accuracy on
  long long log_every = 50;          // steps between two logged losses and accuracies
  bool include_weights = false;      // put every trained weight in the JSON (for an independent forward pass)
  std::vector<std::uint64_t> seeds;  // with --seeds: train once per seed, and report each (seed is then unused)
};

/// The untrained model on the held-out set: how far its loss is from a uniform guess, and why.
struct Untrained {
  double held_out_loss = 0.0;   // mean cross-entropy over the held-out digits, before any step
  double logit_variance = 0.0;  // the variance of a position's V logits, averaged over the held-out positions
  double uniform_loss = 0.0;    // log V: the loss of a model that gives every digit the same probability
  double predicted_loss = 0.0;  // log V + logit_variance / 2: the loss of random logits of that variance, about
};

/// Adam on three lone weights, each from 0, with their gradients given, not computed: a large gradient, a tiny
/// one, and one whose sign turns every step. How far each moves shows that a step's size does not follow its
/// gradient's.
struct AdamExample {
  std::vector<std::vector<double>> gradients;  // [step][weight]: the gradient each weight is given at that step
  std::vector<std::vector<double>> weights;    // [step][weight]: the weight after that step
};

/// The run's optimiser, with @p settings, on the three lone weights of AdamExample.
AdamExample adam_on_lone_weights(const attention::AdamSettings& settings);

/// Where training stands, as the book, the tests and the page show it.
struct Result {
  Inputs inputs;
  long long steps_done = 0;
  long long held_out_count = 0;                // how many sequences the accuracy is measured on
  std::vector<long long> logged_steps;         // the step of each logged point
  std::vector<long long> loss_from;            // the first step each logged loss is the mean over
  std::vector<double> loss;                    // mean training loss over the steps since the last logged point
  std::vector<double> held_out_accuracy;       // per-token accuracy on the held-out set, at each logged point
  double final_accuracy = 0.0;                 // the same after the last step
  std::optional<double> first_loss;            // the training loss of step 1, before any update
  Untrained untrained;                         // the model before training, on the held-out set
  std::optional<long long> first_step_at_99;   // the first logged step with held-out accuracy ≥ 99 %
  std::optional<long long> first_step_at_100;  // the first logged step with every held-out digit right
  std::optional<double> seconds_at_99;         // the time training had taken by then
  std::vector<double> position_accuracy;       // held-out accuracy at each output position, after the last step
  struct Mistake {
    Sequence input, target, prediction;
  };
  std::vector<Mistake> mistakes;             // the first few held-out sequences with a wrong digit, after the last step
  long long wrong_sequences = 0;             // how many held-out sequences have at least one wrong digit
  long long wrong_digits = 0;                // how many held-out digits are wrong
  long long wrong_from_neighbour = 0;        // of those, how many are the input digit next to the right position
  long long wrong_from_both_neighbours = 0;  // … and how many are the digit on both sides of the right position
  long long wrong_not_in_input = 0;          // how many wrong digits appear nowhere in their input
  // How many would, on average, if each wrong digit were drawn at random from the V − 1 that are not right:
  // the chance baseline for wrong_not_in_input
  double wrong_not_in_input_by_chance = 0.0;
  Sequence example_input, example_target, example_prediction;  // held-out sequence 1
  std::vector<std::vector<attention::Matrix>> attention;       // its weights: per layer, per head, n × n
  std::vector<std::vector<double>> source_weight;  // per layer, per head: mean weight on the source position
  // Per layer, per head: share of held-out rows whose largest weight is there
  std::vector<std::vector<double>> source_peak;
  // Per layer, per head: rows of the example whose largest weight is there
  std::vector<std::vector<long long>> example_source_peak;
  double seconds = 0.0;  // the training's wall-clock time (the only number that varies)
  std::optional<attention::TokenClassifierWeights> weights;  // with include_weights
  AdamExample adam_example;                                  // the run's optimiser on three lone weights
};

/// One seed's training, as the table over seeds shows it.
struct SeedRun {
  std::uint64_t seed = 0;
  double final_accuracy = 0.0;
  std::optional<long long> first_step_at_99, first_step_at_100;
  long long wrong_digits = 0, wrong_from_neighbour = 0, wrong_not_in_input = 0;
  double wrong_not_in_input_by_chance = 0.0;
  std::vector<std::vector<double>> source_weight, source_peak;  // per layer, per head
  std::vector<std::vector<long long>> example_source_peak;      // per layer, per head
};

/// The same training from several seeds, and what holds over all of them.
struct SeedsResult {
  Inputs inputs;
  long long held_out_count = 0;  // per seed
  std::vector<SeedRun> runs;
  struct Summary {
    double sharpest_weight_min = 0.0, sharpest_weight_max = 0.0;  // over seeds, of the largest weight of a head
    double sharpest_peak_min = 0.0;  // over seeds, the share of rows that head's largest weight is right
    double other_weight_min = 0.0, other_weight_max = 0.0;  // over seeds, of the smallest weight of a head
    double other_peak_min = 0.0;  // over seeds, the share of rows that head's largest weight is right
    double other_peak_max = 0.0;  // … and its largest
    long long seeds_with_every_head_above_half = 0;  // seeds in which every head puts more than 0.5 there
    long long seeds_at_99 = 0, seeds_at_100 = 0;     // seeds that reached 99 % (100 %) at a logged step
    std::optional<long long> last_first_step_at_99;  // the latest step at which a seed first reached 99 %
    double final_accuracy_min = 0.0;
    long long wrong_digits = 0, wrong_from_neighbour = 0, wrong_not_in_input = 0;  // summed over seeds
    double wrong_not_in_input_by_chance = 0.0;                                     // summed over seeds
  } summary;
  double seconds = 0.0;  // all the seeds' training, wall clock
};

/// Reports progress while training runs: (steps done, steps in all, last logged loss, held-out accuracy, seconds so far).
using Progress = std::function<void(long long, long long, double, double, double)>;

/// A training run that can be advanced a few steps at a time (the page trains this way).
class Trainer {
 public:
  explicit Trainer(const Inputs& inputs);
  /// Makes @p steps more Adam updates (fewer if the run's total is reached).
  void advance(long long steps, const Progress& progress = {});
  /// Whether advancing this run to @p inputs.steps gives exactly what training from scratch with @p inputs
  /// gives: every input but the number of steps the same, and no logged point in between that would differ.
  bool can_continue_to(const Inputs& inputs) const;
  /// Raises the run's total number of steps (can_continue_to() must hold).
  void extend_to(long long steps) { inputs_.steps = steps; }
  /// Where training stands now.
  Result result() const;
  long long steps_done() const { return steps_done_; }

 private:
  double train_one_step();
  /// The share of right digits over the held-out set; with @p details, also fills its accuracy per
  /// position, the mistakes and the mean weight on the source position, from the same forward passes.
  double held_out_accuracy(Result* details = nullptr) const;
  void count_wrong_digits(const Sequence& input, const Sequence& answer, Result& result) const;
  Untrained measure_untrained() const;
  Sequence next_training_input();

  Inputs inputs_;
  attention::NumpyGenerator generator_;
  attention::TokenClassifierWeights weights_;
  attention::Adam adam_;
  std::vector<Sequence> held_out_;
  std::vector<Sequence> held_out_sorted_;  // for the never-trained-on check
  long long steps_done_ = 0;
  double loss_since_log_ = 0.0;
  Result log_;  // what training logs as it goes (and the untrained model's numbers)
  double seconds_ = 0.0;
};

/// Trains from scratch for inputs.steps steps.
Result compute(const Inputs& inputs, const Progress& progress = {});

/// Trains from scratch once per seed of inputs.seeds, everything else as @p inputs says.
SeedsResult compute_over_seeds(const Inputs& inputs, const Progress& progress = {});

nlohmann::json to_json(const Result& result);
nlohmann::json to_json(const SeedsResult& result);

std::string tables(const Result& result);
std::string tables(const SeedsResult& result);

/// The program's input flags.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  const program::CommandLine& command_line_;
  std::string task_text_ = "reverse";
  std::string length_text_ = "8";
  std::string vocabulary_text_ = "10";
  std::string steps_text_ = "1000";
  std::string seed_text_ = "1";
  std::string learning_rate_text_ = "0.003";
  std::string batch_text_ = "16";
  std::string layers_text_ = "1";
  std::string d_model_text_ = "32";
  std::string log_every_text_;
  std::string seeds_text_;
  bool include_weights_ = false;
};

}  // namespace training
