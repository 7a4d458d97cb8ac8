// Chapter 16's front ends: the JSON, the tables, the flags and the page's entry. The computation they report
// is in norm_placement.cpp.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attention/layer_norm.hpp"
#include "attention/timing_comparison.hpp"
#include "norm_placement.hpp"
#include "program/integer_list.hpp"
#include "program/matrix_text.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace norm_placement {

namespace {

constexpr std::uint64_t max_training_steps = 5000;
constexpr std::uint64_t max_warmup = 5000;
constexpr std::size_t max_seeds = 10;
constexpr std::size_t max_list = 6;
constexpr std::uint64_t max_layers = 8;
constexpr double max_rate = 1.0;

std::string placement_name(const attention::LayerLayout& layout) {
  return layout.placement == attention::NormPlacement::pre ? "pre-norm" : "post-norm";
}

std::string norm_name(const attention::LayerLayout& layout) {
  return layout.norm == attention::NormKind::rms_norm ? "RMSNorm" : "LayerNorm";
}

// A layout as a table's row label names it: "post, LayerNorm", at most short_layout_width characters.
std::string short_layout_name(const attention::LayerLayout& layout) {
  return fmt::format("{}, {}", layout.placement == attention::NormPlacement::pre ? "pre" : "post", norm_name(layout));
}
constexpr std::size_t short_layout_width = 15;

// The loss as JSON: a number, or null for a run that stopped (its loss is not a number).
nlohmann::json loss_json(double loss) { return std::isfinite(loss) ? nlohmann::json(loss) : nlohmann::json(nullptr); }

// Each layer's size and gradient at the start in @p layout, the medians over the seeds.
struct AtStartMedians {
  std::vector<double> sizes, gradients;
};

AtStartMedians at_start_medians(const Result& result, const attention::LayerLayout& layout) {
  AtStartMedians medians;
  for (std::size_t l = 0; l < static_cast<std::size_t>(result.inputs.shape.layers); ++l) {
    std::vector<double> sizes, gradients;
    for (const AtStart& start : result.at_start) {
      if (start.layout == layout) sizes.push_back(start.sizes[l]), gradients.push_back(start.gradients[l]);
    }
    medians.sizes.push_back(attention::median(sizes));
    medians.gradients.push_back(attention::median(gradients));
  }
  return medians;
}

}  // namespace

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  const nlohmann::json norms = {{"row", inputs.row},
                                {"mean", result.norms.mean},
                                {"variance", result.norms.variance},
                                {"mean_square", result.norms.mean_square},
                                {"root_mean_square", std::sqrt(result.norms.mean_square)},
                                {"layer_norm", result.norms.layer_norm},
                                {"rms_norm", result.norms.rms_norm},
                                {"epsilon", attention::default_layer_norm_epsilon}};
  if (!inputs.train) return {{"norms", norms}};
  std::vector<std::string> layouts;
  for (const attention::LayerLayout& layout : inputs.layouts) layouts.push_back(layout_name(layout));
  nlohmann::json runs = nlohmann::json::array();
  double seconds = 0.0;
  for (const TrainedRun& run : result.runs) {
    runs.push_back({{"layout", layout_name(run.layout)},
                    {"warmup", run.warmup},
                    {"learning_rate", run.learning_rate},
                    {"seed", run.seed},
                    {"untrained_loss", run.untrained_loss},
                    {"logged_steps", run.logged_steps},
                    {"loss", run.loss},
                    {"stopped_at", run.stopped_at},
                    {"final_loss", loss_json(run.final_loss)},
                    {"diverged", run.diverged},
                    {"accuracy", run.accuracy},
                    {"learned", run.learned}});
    seconds += run.seconds;
  }
  nlohmann::json cells = nlohmann::json::array();
  Eigen::Index diverged = 0, learned = 0;
  for (const Cell& cell : result.cells) {
    // The run whose final loss is the cell's median, for the prose to name (an odd number of seeds has one):
    // which seed it is depends on the run, so the text reads it here rather than at a fixed index.
    nlohmann::json median_run = nullptr;
    for (const std::size_t r : cell.runs) {
      if (cell.runs.size() % 2 == 1 && result.runs[r].final_loss == cell.median_final_loss) {
        median_run = {{"run", r}, {"seed", result.runs[r].seed}, {"untrained_loss", result.runs[r].untrained_loss}};
        break;
      }
    }
    cells.push_back({{"layout", layout_name(cell.layout)},
                     {"placement", placement_name(cell.layout)},
                     {"norm", norm_name(cell.layout)},
                     {"warmup", cell.warmup},
                     {"learning_rate", cell.learning_rate},
                     {"runs", cell.runs},
                     {"median_final_loss", loss_json(cell.median_final_loss)},
                     {"median_run", median_run},
                     {"diverged", cell.diverged},
                     {"learned", cell.learned},
                     {"median_accuracy", cell.median_accuracy}});
    diverged += cell.diverged, learned += cell.learned;
  }
  nlohmann::json parameters = nlohmann::json::object();
  for (std::size_t i = 0; i < inputs.layouts.size(); ++i) parameters[layouts[i]] = result.parameters[i];
  nlohmann::json starts = nlohmann::json::object();
  for (const attention::LayerLayout& layout : inputs.layouts) {
    const AtStartMedians medians = at_start_medians(result, layout);
    nlohmann::json seeds = nlohmann::json::array();
    for (const AtStart& start : result.at_start) {
      if (start.layout == layout) {
        seeds.push_back({{"seed", start.seed}, {"sizes", start.sizes}, {"gradients", start.gradients}});
      }
    }
    starts[layout_name(layout)] = {{"seeds", seeds},
                                   {"median_sizes", medians.sizes},
                                   {"median_gradients", medians.gradients}};
  }
  return {{"norms", norms},
          {"inputs",
           {{"layouts", layouts},
            {"warmups", inputs.warmups},
            {"learning_rates", inputs.learning_rates},
            {"seeds", inputs.seeds},
            {"training_steps", inputs.training_steps},
            {"batch", inputs.batch},
            {"length", inputs.length},
            {"tested", inputs.tested},
            {"log_every", inputs.log_every},
            {"final_points", inputs.final_points},
            {"learned_accuracy", inputs.learned_accuracy},
            {"d_model", inputs.shape.d_model},
            {"heads", inputs.shape.heads},
            {"d_ff", inputs.shape.d_ff},
            {"layers", inputs.shape.layers},
            {"vocabulary", inputs.shape.vocabulary}}},
          {"uniform_loss", result.uniform_loss},
          {"parameters", parameters},
          {"at_start", starts},
          {"runs", runs},
          {"cells", cells},
          {"total_runs", result.runs.size()},
          {"total_diverged", diverged},
          {"total_learned", learned},
          {"seconds", seconds}};
}

std::string tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const Norms& norms = result.norms;
  std::string text = fmt::format("One token's vector: x = ({})\n", fmt::join(inputs.row, ", "));
  text += fmt::format("  mean {}, variance {}\n  mean square {}, root mean square {}\n",
                      program::number_text(norms.mean), program::number_text(norms.variance),
                      program::number_text(norms.mean_square), program::number_text(std::sqrt(norms.mean_square)));
  const auto listed = [](const std::vector<double>& values) {
    std::vector<std::string> texts;
    for (const double value : values) texts.push_back(program::number_text(value));
    return fmt::format("({})", fmt::join(texts, ", "));
  };
  // Each result on the line under its formula, so that a phone's narrow column shows both.
  text += fmt::format("  LayerNorm(x) = (x − mean) / √(variance + ε)\n    = {}\n", listed(norms.layer_norm));
  text += fmt::format("  RMSNorm(x) = x / √(mean square + ε)\n    = {}\n", listed(norms.rms_norm));
  if (!inputs.train) return text;
  text += '\n';
  text += program::wrapped(
      fmt::format(
          "The task: reverse {} digits (chapter 11). The model: {} layers, d_model = {}, {} heads, d_ff = {}. "
          "{} Adam steps of {} sequences; a warm-up raises the learning rate in a straight line from 0 over "
          "its steps. Seeds: {}. A run has learned the task when at least {:.0f} % of the digits of {} "
          "held-out sequences come out right; it has diverged when its loss or its gradient stops being a number, "
          "or when its final loss ends above the untrained model's (the last table). Guessing every digit "
          "evenly costs ln 10 = {} per digit.",
          inputs.length, inputs.shape.layers, inputs.shape.d_model, inputs.shape.heads, inputs.shape.d_ff,
          inputs.training_steps, inputs.batch, fmt::join(inputs.seeds, ", "), 100 * inputs.learned_accuracy,
          inputs.tested, program::number_text(result.uniform_loss, 3)),
      78, "");
  text += '\n';
  // The tables below fit a phone's narrow column (about 44 characters) with four layers and five seeds: a layout is
  // named "post, LayerNorm" in a row label, and the grid gives each layout and warm-up a heading line of its own.
  text +=
      fmt::format("At the start, before any step, on {} held-out\nsequences: medians over the seeds\n", inputs.batch);
  // Two stacked tables, the sizes and then the gradients, a column per layer, every column as wide as the widest
  // number of either.
  std::vector<std::vector<std::string>> sizes, gradients;
  std::size_t number_width = 0;
  for (const attention::LayerLayout& layout : inputs.layouts) {
    const AtStartMedians medians = at_start_medians(result, layout);
    sizes.emplace_back(), gradients.emplace_back();
    for (const double size : medians.sizes) sizes.back().push_back(fmt::format("{:.3g}", size));
    for (const double gradient : medians.gradients) gradients.back().push_back(fmt::format("{:.3g}", gradient));
    for (const std::string& number : sizes.back()) number_width = std::max(number_width, number.size());
    for (const std::string& number : gradients.back()) number_width = std::max(number_width, number.size());
  }
  const std::string which_layers =
      inputs.shape.layers == 1 ? std::string("layer 1") : fmt::format("layers 1 to {}", inputs.shape.layers);
  const auto numbers_table = [&](const std::string& what, const std::vector<std::vector<std::string>>& rows) {
    std::string table = fmt::format("{}, {}\n", what, which_layers);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      table += fmt::format("  {:<{}} ", short_layout_name(inputs.layouts[r]), short_layout_width);
      for (const std::string& number : rows[r]) table += fmt::format(" {:>{}}", number, number_width);
      table += '\n';
    }
    return table;
  };
  text += numbers_table("Each layer's output size", sizes);
  text += numbers_table("Its sub-layers' gradient", gradients);
  text += '\n';
  text += "The grid: learned and diverged count seeds;\nfinal loss and accuracy are their medians\n";
  // A heading line for each layout and warm-up, then a row for each rate, in the columns of the line under the title.
  std::size_t rate_width = 4, learned_width = 7;  // "rate", "learned"
  for (const Cell& cell : result.cells) {
    rate_width = std::max(rate_width, program::typed_number(cell.learning_rate).size());
    learned_width = std::max(learned_width, fmt::format("{} of {}", cell.learned, cell.runs.size()).size());
  }
  text += fmt::format("  {:>{}} {:>{}} {:>8} {:>10} {:>8}\n", "rate", rate_width, "learned", learned_width, "diverged",
                      "final loss", "accuracy");
  for (std::size_t c = 0; c < result.cells.size(); ++c) {
    const Cell& cell = result.cells[c];
    if (c == 0 || cell.layout != result.cells[c - 1].layout || cell.warmup != result.cells[c - 1].warmup) {
      text += fmt::format("{}, {}, {}\n", placement_name(cell.layout), norm_name(cell.layout),
                          cell.warmup == 0 ? std::string("no warm-up") : fmt::format("warm-up {}", cell.warmup));
    }
    const std::string loss =
        std::isfinite(cell.median_final_loss) ? fmt::format("{:.3g}", cell.median_final_loss) : "-";
    text += fmt::format("  {:>{}} {:>{}} {:>8} {:>10} {:>7.1f}%\n", program::typed_number(cell.learning_rate),
                        rate_width, fmt::format("{} of {}", cell.learned, cell.runs.size()), learned_width,
                        cell.diverged, loss, 100 * cell.median_accuracy);
  }
  // What "diverged" compares each final loss with: the untrained model's loss. A seed draws the same weights and
  // held-out sequences whatever the warm-up and the rate, so one loss per layout and seed: taken from the
  // layout's first cell, whose runs are one per seed, in the order of the seeds.
  text += '\n';
  text += fmt::format("The untrained model's loss on the {}\nheld-out sequences, seed by seed\n", inputs.tested);
  std::size_t seed_width = 4;  // "2.81": a loss to three digits
  for (const std::uint64_t seed : inputs.seeds) seed_width = std::max(seed_width, std::to_string(seed).size());
  text += fmt::format("  {:<{}} ", "seed", short_layout_width);
  for (const std::uint64_t seed : inputs.seeds) text += fmt::format(" {:>{}}", seed, seed_width);
  text += '\n';
  for (const attention::LayerLayout& layout : inputs.layouts) {
    const auto first =
        std::find_if(result.cells.begin(), result.cells.end(), [&](const Cell& cell) { return cell.layout == layout; });
    text += fmt::format("  {:<{}} ", short_layout_name(layout), short_layout_width);
    for (const std::size_t run : first->runs) {  // "#": three digits even where the last is 0 (2.80)
      text += fmt::format(" {:>{}}", fmt::format("{:#.3g}", result.runs[run].untrained_loss), seed_width);
    }
    text += '\n';
  }
  return text;
}

Flags::Flags(program::CommandLine& command_line) : command_line_(command_line) {
  command_line.option("--layouts", layouts_text_,
                      "the layouts to train, among post_layer_norm (the paper's), post_rms_norm, pre_layer_norm and "
                      "pre_rms_norm (default all four)",
                      "LIST");
  command_line.option("--warmups", warmups_text_,
                      fmt::format("steps of linear warm-up of the learning rate, at most {} values, each 0 (none) to "
                                  "{} and at most --training-steps (default 0,150)",
                                  max_list, max_warmup),
                      "LIST");
  command_line.option("--rates", rates_text_,
                      fmt::format("learning rates, at most {}, each above 0 and at most {} (default 0.01)", max_list,
                                  program::typed_number(max_rate)),
                      "LIST");
  command_line.option("--seeds", seeds_text_, fmt::format("one run per seed, at most {} (default 1)", max_seeds),
                      "LIST");
  command_line.option("--training-steps", training_steps_text_,
                      fmt::format("Adam updates of 8 sequences per run, 1 to {} (default 700)", max_training_steps),
                      "INTEGER");
  command_line.option("--row", row_text_,
                      "the worked example: one token's vector of 1 to 64 entries within ±1e6, normalised both ways "
                      "(default 2,4,6,8)",
                      "VECTOR");
  command_line.flag("--no-training", no_training_, "only normalise the row; train nothing");
  command_line.option("--layers", layers_text_, fmt::format("layers in the stack, 1 to {} (default 4)", max_layers),
                      "INTEGER");
  command_line.excludes("--no-training",
                        {"--layouts", "--warmups", "--rates", "--seeds", "--training-steps", "--layers"});
}

Inputs Flags::read() const {
  Inputs inputs;
  inputs.row = program::parse_numbers(row_text_, "--row");
  if (inputs.row.empty() || inputs.row.size() > 64) {
    throw program::UsageError(fmt::format("--row: expected 1 to 64 numbers, got {}", inputs.row.size()));
  }
  for (const double value : inputs.row) {
    if (std::abs(value) > 1e6) throw program::UsageError("--row: entries must lie within ±1e6");
  }
  inputs.train = !no_training_;
  inputs.layouts.clear();
  const std::vector<std::string> names = program::parse_names(layouts_text_, "--layouts");
  if (names.size() > 4) throw program::UsageError("--layouts: at most the four layouts, each once");
  for (const std::string& name : names) {
    bool found = false;
    for (const attention::LayerLayout& layout : Inputs::every_layout()) {
      if (name != layout_name(layout)) continue;
      for (const attention::LayerLayout& earlier : inputs.layouts) {
        if (layout_name(earlier) == name) throw program::UsageError(fmt::format("--layouts: {} is listed twice", name));
      }
      inputs.layouts.push_back(layout);
      found = true;
    }
    if (!found) {
      throw program::UsageError(
          fmt::format("--layouts: expected post_layer_norm, post_rms_norm, pre_layer_norm or pre_rms_norm, got \"{}\"",
                      name));
    }
  }
  inputs.warmups.clear();
  for (const std::uint64_t warmup : program::parse_whole_numbers(warmups_text_, "--warmups", 0, max_warmup, max_list)) {
    inputs.warmups.push_back(static_cast<long long>(warmup));
  }
  inputs.learning_rates = program::parse_numbers(rates_text_, "--rates");
  if (inputs.learning_rates.empty() || inputs.learning_rates.size() > max_list) {
    throw program::UsageError(fmt::format("--rates: expected 1 to {} learning rates", max_list));
  }
  for (std::size_t i = 0; i < inputs.learning_rates.size(); ++i) {
    const double rate = inputs.learning_rates[i];
    if (!(rate > 0.0) || rate > max_rate) {
      throw program::UsageError(fmt::format("--rates: each rate must be above 0 and at most {}, got {}",
                                            program::typed_number(max_rate), program::typed_number(rate)));
    }
    if (std::find(inputs.learning_rates.begin(), inputs.learning_rates.begin() + static_cast<std::ptrdiff_t>(i),
                  rate) != inputs.learning_rates.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw program::UsageError(fmt::format("--rates: {} is listed twice", program::typed_number(rate)));
    }
  }
  inputs.seeds = program::parse_whole_numbers(seeds_text_, "--seeds", 0, UINT64_MAX, max_seeds);
  inputs.training_steps = static_cast<long long>(
      program::parse_whole_number(training_steps_text_, "--training-steps", 1, max_training_steps));
  for (std::size_t i = 0; i < inputs.warmups.size(); ++i) {
    const long long warmup = inputs.warmups[i];
    if (std::count(inputs.warmups.begin(), inputs.warmups.begin() + static_cast<std::ptrdiff_t>(i), warmup) > 0) {
      throw program::UsageError(fmt::format("--warmups: {} is listed twice", warmup));
    }
    // A warm-up that has not ended when training stops is not the experiment its row names. The message names
    // the flag the reader typed: --training-steps alone meets the default warm-ups.
    if (inputs.train && warmup > inputs.training_steps) {
      throw program::UsageError(
          command_line_.given("--warmups")
              ? fmt::format("--warmups: a warm-up of {} does not end within the {} of --training-steps; "
                            "give fewer warm-up steps or more training steps",
                            program::counted(warmup, "step", "steps"),
                            program::counted(inputs.training_steps, "step", "steps"))
              : fmt::format("--training-steps is {}, fewer than the default warm-up of {} steps (--warmups {}); "
                            "give more steps, or --warmups",
                            inputs.training_steps, warmup, warmups_text_));
    }
  }
  inputs.shape.layers = static_cast<Eigen::Index>(program::parse_whole_number(layers_text_, "--layers", 1, max_layers));
  return inputs;
}

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: trains the book's small Transformer, four layers deep, to reverse eight digits, in each of
// four layouts (the norm after each residual sum, as the paper, or before each sub-layer; LayerNorm or
// RMSNorm), without and with a warm-up of the learning rate, at one learning rate and one seed, and prints
// which runs learned the task. --layouts, --warmups, --rates and --seeds make the grid (every combination);
// --training-steps and --layers change each run; --json prints it all as one JSON document, every run's loss
// along the way included.
//
// While it trains, a progress line goes to stderr when stderr is a terminal, and nowhere otherwise.
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "norm_placement",
    "Chapter 16 of Attention, Compiled: a stack of layers trained with the norm after each residual sum "
    "(post-norm, the paper's) or before each sub-layer (pre-norm), LayerNorm or RMSNorm, with and without a "
    "warm-up of the learning rate, over learning rates and seeds.",
    compute, [](const Result& result) { return to_json(result); }, tables, program::step_progress);

}  // namespace norm_placement
