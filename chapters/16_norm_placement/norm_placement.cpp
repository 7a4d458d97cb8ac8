#include "norm_placement.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "attention/batch_gradient.hpp"
#include "attention/cross_entropy.hpp"
#include "attention/numpy_random.hpp"
#include "attention/timing_comparison.hpp"
#include "attention/worker_threads.hpp"
#include "program/trainings.hpp"

namespace norm_placement {

std::string layout_name(const attention::LayerLayout& layout) {
  const std::string placement = layout.placement == attention::NormPlacement::pre ? "pre" : "post";
  const std::string norm = layout.norm == attention::NormKind::rms_norm ? "rms_norm" : "layer_norm";
  return placement + "_" + norm;
}

attention::TokenClassifierShape Inputs::default_shape() {
  attention::TokenClassifierShape shape;
  shape.vocabulary = shape.outputs = 10;  // the digits 0 to 9, read and said
  shape.d_model = 16;
  shape.heads = 2;
  shape.d_ff = 32;
  shape.layers = 4;
  return shape;
}

std::vector<attention::LayerLayout> Inputs::every_layout() {
  using attention::NormKind, attention::NormPlacement;
  return {{NormPlacement::post, NormKind::layer_norm},
          {NormPlacement::post, NormKind::rms_norm},
          {NormPlacement::pre, NormKind::layer_norm},
          {NormPlacement::pre, NormKind::rms_norm}};
}

double warmed_up_rate(double rate, long long warmup, long long step) {
  // clang-format off
  // [warmed_up_rate]
  if (step >= warmup) return rate;
  return rate * static_cast<double>(step) / static_cast<double>(warmup);
  // [warmed_up_rate]
  // clang-format on
}

namespace {

using Sequence = std::vector<Eigen::Index>;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A whole number from 0 to count − 1 (the remainder of 64 random bits: its bias is below 2⁻⁵⁹ here).
Eigen::Index below(attention::NumpyGenerator& generator, Eigen::Index count) {
  return static_cast<Eigen::Index>(generator.next_uint64() % static_cast<std::uint64_t>(count));
}

Sequence random_digits(attention::NumpyGenerator& generator, Eigen::Index length, Eigen::Index digits) {
  Sequence words(static_cast<std::size_t>(length));
  for (Eigen::Index& word : words) word = below(generator, digits);
  return words;
}

Sequence reversed(const Sequence& words) { return {words.rbegin(), words.rend()}; }

bool finite(const std::vector<attention::ParameterBlock>& blocks) {
  for (const attention::ParameterBlock& block : blocks) {
    if (!Eigen::Map<const Eigen::ArrayXd>(block.data, block.size).allFinite()) return false;
  }
  return true;
}

std::uint64_t weights_seed(std::uint64_t seed) { return seed ^ 0x9e3779b97f4a7c15u; }
std::uint64_t test_seed(std::uint64_t seed) { return seed ^ 0x5851f42d4c957f2du; }

}  // namespace

TrainedRun train(const Inputs& inputs, const attention::LayerLayout& layout, long long warmup, double learning_rate,
                 std::uint64_t seed, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  TrainedRun run;
  run.layout = layout;
  run.warmup = warmup;
  run.learning_rate = learning_rate;
  run.seed = seed;
  attention::TokenClassifierShape shape = inputs.shape;
  shape.layout = layout;
  attention::NumpyGenerator weights_generator(weights_seed(seed));
  attention::TokenClassifierWeights weights = attention::initial_token_classifier(shape, weights_generator);
  // The held-out sequences, drawn apart from the training ones.
  attention::NumpyGenerator test(test_seed(seed));
  std::vector<Sequence> held_out;
  for (Eigen::Index s = 0; s < inputs.tested; ++s) {
    held_out.push_back(random_digits(test, inputs.length, shape.vocabulary));
  }
  for (const Sequence& words : held_out) {
    const auto steps = attention::token_classifier(weights, words);
    run.untrained_loss += attention::softmax_cross_entropy(steps.logits, reversed(words)).loss;
  }
  run.untrained_loss /= static_cast<double>(held_out.size());

  attention::NumpyGenerator data(seed);
  attention::AdamSettings settings = inputs.adam;
  settings.learning_rate = learning_rate;
  attention::Adam adam(attention::parameter_blocks(weights), settings);
  double loss_since_log = 0.0;
  long long since_log = 0;
  for (long long step = 1; step <= inputs.training_steps; ++step) {
    // clang-format off
    // [warm_up_step]
    adam.set_learning_rate(warmed_up_rate(learning_rate, warmup, step));
    // [warm_up_step]
    // clang-format on
    double batch_loss = 0.0;
    const auto one_example = [&](Eigen::Index) {
      const Sequence words = random_digits(data, inputs.length, shape.vocabulary);
      const auto steps = attention::token_classifier(weights, words);
      const attention::CrossEntropy error = attention::softmax_cross_entropy(steps.logits, reversed(words));
      batch_loss += error.loss;
      return attention::token_classifier_backward(weights, words, steps, error.logits_gradient);
    };
    // A loss or gradient that is no longer a number ends the run: every later step would be one too. Weights that
    // have blown up usually show it sooner, in a score or a logit that is NaN or infinite, which the library refuses
    // (chapters 3 and 10) rather than compute with; that ends the run the same way. The fresh weights of step 1
    // cannot have blown up: a refusal there is a bug (a shape that does not fit), and is not caught.
    attention::TokenClassifierWeights mean;
    try {
      mean = attention::batch_mean_gradient(inputs.batch, one_example, attention::parameter_blocks);
    } catch (const std::invalid_argument&) {
      if (step == 1) throw;
      run.stopped_at = step;
      break;
    }
    const std::vector<attention::ParameterBlock> mean_blocks = attention::parameter_blocks(mean);
    if (!std::isfinite(batch_loss) || !finite(mean_blocks)) {
      run.stopped_at = step;
      break;
    }
    adam.step(attention::parameter_blocks(weights), mean_blocks);
    loss_since_log += batch_loss / static_cast<double>(inputs.batch), ++since_log;
    if (step % inputs.log_every == 0 || step == inputs.training_steps) {
      run.logged_steps.push_back(step);
      run.loss.push_back(loss_since_log / static_cast<double>(since_log));
      loss_since_log = 0.0, since_log = 0;
      if (progress) progress(step, inputs.training_steps, seconds_since(start));
    }
  }
  if (run.stopped_at == 0 && !finite(attention::parameter_blocks(weights))) run.stopped_at = inputs.training_steps;
  if (run.stopped_at != 0) {
    run.final_loss = std::numeric_limits<double>::infinity();
  } else {
    const auto points = std::min<std::size_t>(static_cast<std::size_t>(inputs.final_points), run.loss.size());
    for (std::size_t i = run.loss.size() - points; i < run.loss.size(); ++i) run.final_loss += run.loss[i];
    run.final_loss /= static_cast<double>(points);
    double right = 0.0;
    for (const Sequence& words : held_out) {
      const auto steps = attention::token_classifier(weights, words);
      const Sequence target = reversed(words);
      for (Eigen::Index t = 0; t < inputs.length; ++t) {
        Eigen::Index said = 0;
        steps.logits.row(t).maxCoeff(&said);
        if (said == target[static_cast<std::size_t>(t)]) right += 1.0;
      }
    }
    run.accuracy = right / static_cast<double>(inputs.tested * inputs.length);
  }
  // clang-format off
  // [diverged]
  run.diverged = run.stopped_at != 0 || !(run.final_loss <= run.untrained_loss);
  // [diverged]
  // clang-format on
  run.learned = run.accuracy >= inputs.learned_accuracy;
  run.seconds = seconds_since(start);
  return run;
}

double sub_layers_gradient_length(attention::EncoderLayerWeights layer) {
  // its attention and feed-forward weights only: its norms and every other block empty, so left out
  attention::TokenClassifierWeights alone;
  alone.layers.push_back({std::move(layer.attention), {}, std::move(layer.feed_forward), {}});
  double squares = 0.0;
  for (const attention::ParameterBlock& block : attention::parameter_blocks(alone)) {
    squares += Eigen::Map<const attention::Vector>(block.data, block.size).squaredNorm();
  }
  return std::sqrt(squares);
}

AtStart at_start(const Inputs& inputs, const attention::LayerLayout& layout, std::uint64_t seed) {
  attention::TokenClassifierShape shape = inputs.shape;
  shape.layout = layout;
  attention::NumpyGenerator weights_generator(weights_seed(seed));
  const attention::TokenClassifierWeights weights = attention::initial_token_classifier(shape, weights_generator);
  attention::NumpyGenerator test(test_seed(seed));  // the held-out sequences train() tests on, the first of them
  const auto layers = static_cast<std::size_t>(shape.layers);
  AtStart start{layout, seed, std::vector<double>(layers, 0.0), {}};
  // clang-format off
  // [at_start]
  const auto one_example = [&](Eigen::Index) {
    const Sequence words = random_digits(test, inputs.length, shape.vocabulary);
    const auto steps = attention::token_classifier(weights, words);
    for (std::size_t l = 0; l < layers; ++l) {  // the size of what each layer hands on
      const attention::Matrix& output = attention::layer_output(steps.layers[l], layout);
      start.sizes[l] += std::sqrt(output.array().square().mean()) / static_cast<double>(inputs.batch);
    }
    const attention::CrossEntropy error = attention::softmax_cross_entropy(steps.logits, reversed(words));
    return attention::token_classifier_backward(weights, words, steps, error.logits_gradient);
  };
  attention::TokenClassifierWeights gradient =
      attention::batch_mean_gradient(inputs.batch, one_example, attention::parameter_blocks);
  for (attention::EncoderLayerWeights& layer : gradient.layers) {
    start.gradients.push_back(sub_layers_gradient_length(std::move(layer)));
  }
  // [at_start]
  // clang-format on
  return start;
}

Norms norms_of(const std::vector<double>& row) {
  const Eigen::Index width = static_cast<Eigen::Index>(row.size());
  const attention::Matrix x = Eigen::Map<const attention::Matrix>(row.data(), 1, width);
  // clang-format off
  // [norms_of]
  const attention::LayerNormSteps layer = attention::layer_norm(x, attention::identity_layer_norm(width));
  const attention::RmsNormSteps rms = attention::rms_norm(x, attention::Vector::Ones(width));
  // [norms_of]
  // clang-format on
  Norms norms;
  norms.mean = layer.mean(0);
  norms.variance = layer.variance(0);
  norms.mean_square = rms.mean_square(0);
  norms.layer_norm.assign(layer.output.data(), layer.output.data() + width);
  norms.rms_norm.assign(rms.output.data(), rms.output.data() + width);
  return norms;
}

#ifdef __EMSCRIPTEN__
// The runs of the book's grid, trained natively: a source file the build writes (models_for_the_page.py) into
// the page's module, and only there.
const std::vector<SavedModel>& models_for_the_page();
#endif

namespace {

// The page's run: the one the build trained natively with the same settings, if it shipped one (WebAssembly
// sums in other orders and without fused multiply-adds, and 700 steps grow the difference in the last bits
// until the page would show other numbers than the book); otherwise none.
std::optional<TrainedRun> shipped_run([[maybe_unused]] const Inputs& inputs,
                                      [[maybe_unused]] const attention::LayerLayout& layout,
                                      [[maybe_unused]] long long warmup, [[maybe_unused]] double rate,
                                      [[maybe_unused]] std::uint64_t seed) {
#ifdef __EMSCRIPTEN__
  const Inputs defaults;
  if (inputs.training_steps != defaults.training_steps || inputs.shape.layers != defaults.shape.layers) return {};
  for (const SavedModel& saved : models_for_the_page()) {
    if (saved.layout != layout_name(layout) || saved.warmup != warmup || saved.learning_rate != rate ||
        saved.seed != seed) {
      continue;
    }
    TrainedRun run;
    run.layout = layout;
    run.warmup = warmup;
    run.learning_rate = rate;
    run.seed = seed;
    run.untrained_loss = saved.untrained_loss;
    run.logged_steps = saved.logged_steps;
    run.loss = saved.loss;
    run.stopped_at = saved.stopped_at;
    run.final_loss = saved.final_loss;
    run.diverged = saved.diverged;
    run.accuracy = saved.accuracy;
    run.learned = saved.learned;
    return run;
  }
#endif
  return {};
}

}  // namespace

Result compute(const Inputs& inputs, const Progress& progress) {
  if (inputs.row.empty()) throw std::invalid_argument("the worked example needs a row of at least one number");
  if (!inputs.train) {
    Result result;
    result.inputs = inputs;
    result.norms = norms_of(inputs.row);
    return result;
  }
  if (inputs.layouts.empty() || inputs.warmups.empty() || inputs.learning_rates.empty() || inputs.seeds.empty()) {
    throw std::invalid_argument("the grid needs at least one layout, warm-up, learning rate and seed");
  }
  if (inputs.training_steps < 1 || inputs.batch < 1 || inputs.length < 1 || inputs.tested < 1 || inputs.log_every < 1 ||
      inputs.final_points < 1) {
    throw std::invalid_argument("the steps, batch, length, tested sequences, log interval and final points must "
                                "each be at least 1");
  }
  for (const long long warmup : inputs.warmups) {
    if (warmup < 0) throw std::invalid_argument("a warm-up is a number of steps, at least 0");
  }
  for (const double rate : inputs.learning_rates) {
    if (!(rate > 0.0) || !std::isfinite(rate)) {
      throw std::invalid_argument("a learning rate must be a positive number");
    }
  }
  Result result;
  result.inputs = inputs;
  result.norms = norms_of(inputs.row);
  result.uniform_loss = std::log(static_cast<double>(inputs.shape.outputs));
  for (const attention::LayerLayout& layout : inputs.layouts) {
    attention::TokenClassifierShape shape = inputs.shape;
    shape.layout = layout;
    attention::NumpyGenerator generator(1);
    attention::TokenClassifierWeights weights = attention::initial_token_classifier(shape, generator);
    long long count = 0;
    for (const attention::ParameterBlock& block : attention::parameter_blocks(weights)) count += block.size;
    result.parameters.push_back(count);
  }
  using Plan = std::tuple<attention::LayerLayout, long long, double, std::uint64_t>;
  std::vector<Plan> plan;  // for each layout, warm-up, learning rate and seed
  for (const attention::LayerLayout& layout : inputs.layouts) {
    for (const long long warmup : inputs.warmups) {
      for (const double rate : inputs.learning_rates) {
        Cell cell{layout, warmup, rate, {}, 0.0, 0, 0, 0.0};
        for (const std::uint64_t seed : inputs.seeds) {
          cell.runs.push_back(plan.size());
          plan.emplace_back(layout, warmup, rate, seed);
        }
        result.cells.push_back(cell);
      }
    }
  }
  for (const attention::LayerLayout& layout : inputs.layouts) {
    for (const std::uint64_t seed : inputs.seeds) result.at_start.push_back(at_start(inputs, layout, seed));
  }
  result.runs.resize(plan.size());
  // The runs are independent: one per processor at a time (program/trainings.hpp).
  program::run_trainings(plan.size(), progress, [&](std::size_t r, const program::StepProgress& overall) {
    const auto& [layout, warmup, rate, seed] = plan[r];
    const std::optional<TrainedRun> shipped = shipped_run(inputs, layout, warmup, rate, seed);
    result.runs[r] = shipped ? *shipped : train(inputs, layout, warmup, rate, seed, overall);
  });
  for (Cell& cell : result.cells) {
    std::vector<double> losses, accuracies;
    for (const std::size_t r : cell.runs) {
      losses.push_back(result.runs[r].final_loss);
      accuracies.push_back(result.runs[r].accuracy);
      if (result.runs[r].diverged) ++cell.diverged;
      if (result.runs[r].learned) ++cell.learned;
    }
    cell.median_final_loss = attention::median(losses);
    cell.median_accuracy = attention::median(accuracies);
  }
  return result;
}

}  // namespace norm_placement
