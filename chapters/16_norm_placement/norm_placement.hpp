// Chapter 16: where the norm goes. The paper puts a LayerNorm after each residual sum, Norm(x + F(x))
// (post-norm); many later models put it before each sub-layer, x + F(Norm(x)) (pre-norm), and many use
// RMSNorm instead of LayerNorm. Xiong et al. (2020), "On Layer Normalization in the Transformer
// Architecture", argue that a post-norm stack needs the learning rate to warm up from small values at the
// start of training and a pre-norm stack does not.
//
//   the grid   a stack of several layers (the token classifier of chapter 11, reversing digits) trained in
//              each layout (post or pre, LayerNorm or RMSNorm), with and without a linear warm-up of the
//              learning rate, at several learning rates, over several seeds; for each run its loss along
//              the way, its final loss, whether it diverged, and its accuracy on held-out sequences.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/adam.hpp"
#include "attention/matrix.hpp"
#include "attention/norm_placement.hpp"
#include "attention/token_classifier.hpp"
#include "program/command_line.hpp"
#include "program/trainings.hpp"

namespace norm_placement {

/// A layout's name as the flags and the JSON may spell it: post_layer_norm, post_rms_norm, pre_layer_norm,
/// pre_rms_norm.
std::string layout_name(const attention::LayerLayout& layout);

struct Inputs {
  std::vector<double> row{2.0, 4.0, 6.0, 8.0};  // the worked example: one token's vector, normalised both ways
  bool train = true;
  std::vector<attention::LayerLayout> layouts = every_layout();
  std::vector<long long> warmups{0, 150};  // steps of linear warm-up of the learning rate; 0: none
  std::vector<double> learning_rates{0.005, 0.01, 0.03};
  std::vector<std::uint64_t> seeds{1, 2, 3, 4, 5};
  long long training_steps = 700;  // Adam updates per run
  Eigen::Index batch = 8;          // sequences per update
  Eigen::Index length = 8;         // digits per sequence; the task is to say them in reverse (chapter 11)
  Eigen::Index tested = 100;       // held-out sequences the accuracy is measured on
  long long log_every = 25;        // steps per logged point: the mean training loss over those steps
  Eigen::Index final_points = 4;   // the final loss is the mean of this many last logged points
  double learned_accuracy = 0.9;   // a run whose held-out accuracy reaches this has learned the task
  attention::AdamSettings adam;    // β₁, β₂ and ε; the learning rate comes from learning_rates
  attention::TokenClassifierShape shape = default_shape();  // its layout is set by each run
  static attention::TokenClassifierShape default_shape();
  static std::vector<attention::LayerLayout> every_layout();
};

/// The learning rate of step @p step (counted from 1) under a linear warm-up over @p warmup steps: rate · step /
/// warmup until step = warmup, then rate. With warmup = 0, rate from the first step.
double warmed_up_rate(double rate, long long warmup, long long step);

/// One model trained in one layout, with one warm-up, learning rate and seed, then tested.
struct TrainedRun {
  attention::LayerLayout layout;
  long long warmup = 0;
  double learning_rate = 0.0;
  std::uint64_t seed = 0;
  double untrained_loss = 0.0;  // the model before any step, on the held-out sequences
  std::vector<long long> logged_steps;
  std::vector<double> loss;  // mean training loss since the previous logged point
  long long stopped_at = 0;  // the step whose loss or update was not finite (training stops); 0: none
  double final_loss = 0.0;   // mean of the last final_points logged losses (infinite if stopped)
  bool diverged = false;     // stopped, or final_loss above the untrained model's loss
  double accuracy = 0.0;     // share of held-out digits said right (0 if stopped)
  bool learned = false;      // accuracy at least inputs.learned_accuracy
  double seconds = 0.0;
};

/// One cell of the grid: a layout, a warm-up and a learning rate, over the seeds.
struct Cell {
  attention::LayerLayout layout;
  long long warmup = 0;
  double learning_rate = 0.0;
  std::vector<std::size_t> runs;  // indices into Result::runs, one per seed
  double median_final_loss = 0.0;
  Eigen::Index diverged = 0;  // how many of its runs diverged
  Eigen::Index learned = 0;   // how many of its runs learned the task
  double median_accuracy = 0.0;
};

/// The worked example: one row through LayerNorm and through RMSNorm, gains 1 and biases 0.
struct Norms {
  double mean = 0.0, variance = 0.0, mean_square = 0.0;
  std::vector<double> layer_norm, rms_norm;
};

/// Before the first step: in one layout and from one seed, the model train() starts from, run on the first
/// inputs.batch held-out sequences. For each layer, first layer first: how large the vectors it hands on are, and
/// how large the gradient of its attention and feed-forward weights is (of the mean loss over those sequences).
struct AtStart {
  attention::LayerLayout layout;
  std::uint64_t seed = 0;
  std::vector<double> sizes;      // root mean square of the layer's output, over its entries and the sequences
  std::vector<double> gradients;  // each layer's sub_layers_gradient_length() (below)
};

/// At the start, in @p layout, from @p seed: see AtStart.
AtStart at_start(const Inputs& inputs, const attention::LayerLayout& layout, std::uint64_t seed);

/// The length of a layer's gradient as AtStart measures it: the root of the sum of the squares of its sub-layers'
/// entries (attention's and the feed-forward network's), its norms' gains and biases left out.
double sub_layers_gradient_length(attention::EncoderLayerWeights layer);

struct Result {
  Inputs inputs;
  Norms norms;
  std::vector<AtStart> at_start;      // for each layout and seed, in that order
  double uniform_loss = 0.0;          // log V: the loss of a model that gives every digit the same probability
  std::vector<long long> parameters;  // learned numbers of the model in each layout, in the order of the inputs
  std::vector<TrainedRun> runs;       // for each layout, warm-up, learning rate and seed, in that order
  std::vector<Cell> cells;            // for each layout, warm-up and learning rate, in that order
};

using Progress = program::StepProgress;  // step, steps, seconds so far

/// One model trained on the task, then tested.
TrainedRun train(const Inputs& inputs, const attention::LayerLayout& layout, long long warmup, double learning_rate,
                 std::uint64_t seed, const Progress& progress = {});
/// Every run of the grid, one per processor at a time, and each cell's summary.
Result compute(const Inputs& inputs, const Progress& progress = {});

/// One run of the grid as the build ships it to the page (models_for_the_page.py, from the captured grid run):
/// the members in the order of the JSON's keys.
struct SavedModel {
  std::string layout;
  long long warmup = 0;
  double learning_rate = 0.0;
  std::uint64_t seed = 0;
  double untrained_loss = 0.0;
  std::vector<long long> logged_steps;
  std::vector<double> loss;
  long long stopped_at = 0;
  double final_loss = 0.0;
  bool diverged = false;
  double accuracy = 0.0;
  bool learned = false;
};

// Front ends (norm_placement_output.cpp)
nlohmann::json to_json(const Result& result);
std::string tables(const Result& result);

class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  const program::CommandLine& command_line_;
  std::string layouts_text_ = "post_layer_norm,post_rms_norm,pre_layer_norm,pre_rms_norm";
  std::string warmups_text_ = "0,150";
  std::string rates_text_ = "0.01";
  std::string seeds_text_ = "1";
  std::string training_steps_text_ = "700";
  std::string layers_text_ = "4";
  std::string row_text_ = "2,4,6,8";
  bool no_training_ = false;
};

}  // namespace norm_placement
