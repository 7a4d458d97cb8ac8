#include "scaling_variance.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "attention/mulberry32.hpp"
#include "attention/variance.hpp"
#include "program/integer_list.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/usage_error.hpp"

namespace scaling_variance {
namespace {

// Limits that keep every accepted run within a couple of seconds and its memory
// small. The time goes to the products: each one draws two normals (four
// uniforms, a logarithm, a square root and two cosines), about 40–80 ns in the
// release build, so 25 million of them take one to two seconds. The cap lets
// the default widths (2, 64, 512) take ten times the default samples, 40000,
// as the book invites the reader to try. --help says so.
constexpr std::uint64_t max_seed = 4294967295;  // 2³² − 1: mulberry32's seed is 32 bits
constexpr std::uint64_t max_samples = 1'000'000;
constexpr std::uint64_t max_width = 100'000;
constexpr std::size_t max_widths = 16;
constexpr std::uint64_t max_products = 25'000'000;  // samples × (sum of the widths)

// The histogram of q·k at the largest d_k: histogram_bins bins a quarter of a
// theoretical standard deviation (√d_k) wide, from −4 to +4 standard deviations.
constexpr double histogram_reach = 4.0;  // in standard deviations
constexpr double histogram_bin_width = 2.0 * histogram_reach / histogram_bins;

// How far the measured variance of q·k / √d_k typically lands from 1, from one
// seed to the next, if footnote 4's assumption holds: its standard deviation
// over seeds, √((2 + 6/d_k) / N) for N samples (for large N). q·k is a sum of
// d_k independent products with E[(qᵢkᵢ)²] = 1 and E[(qᵢkᵢ)⁴] = 9, so
// E[(q·k)⁴] = 3d_k² + 6d_k, and the variance of the measured variance is about
// (E[(q·k)⁴] − d_k²) / N; divide its square root by d_k.
double typical_swing(std::size_t width, std::size_t samples) {
  const auto d = static_cast<double>(width);
  return std::sqrt((2.0 + 6.0 / d) / static_cast<double>(samples));
}

// Counts q·k / √d_k into bins of histogram_bin_width from −histogram_reach.
Histogram histogram_of(const std::vector<double>& dot_products, std::size_t width) {
  Histogram histogram;
  histogram.width = width;
  const double scale = std::sqrt(static_cast<double>(width));
  for (const double x : dot_products) {
    const double position = (x / scale + histogram_reach) / histogram_bin_width;
    if (position < 0.0) {
      ++histogram.below;
    } else if (position >= histogram_bins) {
      ++histogram.above;
    } else {
      ++histogram.counts[static_cast<std::size_t>(position)];
    }
  }
  return histogram;
}

// Edge i of the histogram, in standard deviations (which is q·k / √d_k).
double edge_scaled(int i) { return -histogram_reach + histogram_bin_width * i; }

std::string histogram_text(const Histogram& histogram, std::size_t samples) {
  const double scale = std::sqrt(static_cast<double>(histogram.width));
  const std::size_t most =
      std::max<std::size_t>(1, *std::max_element(histogram.counts.begin(), histogram.counts.end()));
  const auto line = [&](const std::string& raw, const std::string& scaled, std::size_t count) {
    const std::string bar((count * 40 + most - 1) / most, '#');
    return fmt::format("{:>18}  {:>14}  {:>6}{}{}\n", raw, scaled, count, bar.empty() ? "" : "  ", bar);
  };
  std::string text = fmt::format("The distribution of q·k at d_k = {} ({} samples), in bins a quarter of √{} wide.\n"
                                 "Dividing by √{} moves every value and every edge by the same factor: the counts\n"
                                 "of q·k/√d_k are the same counts; only the edges change.\n\n",
                                 histogram.width, samples, histogram.width, histogram.width);
  text += fmt::format("{:>18}  {:>14}  {:>6}\n", "q·k", "q·k/√d_k", "count");
  text += line(fmt::format("below {:.2f}", edge_scaled(0) * scale), fmt::format("below {:.2f}", edge_scaled(0)),
               histogram.below);
  for (int i = 0; i < histogram_bins; ++i) {
    text += line(fmt::format("[{:>7.2f}, {:>7.2f})", edge_scaled(i) * scale, edge_scaled(i + 1) * scale),
                 fmt::format("[{:>5.2f}, {:>5.2f})", edge_scaled(i), edge_scaled(i + 1)),
                 histogram.counts[static_cast<std::size_t>(i)]);
  }
  text += line(fmt::format("from {:.2f}", edge_scaled(histogram_bins) * scale),
               fmt::format("from {:.2f}", edge_scaled(histogram_bins)), histogram.above);
  return text;
}

// The results as two tables, one line per d_k in each: q·k, then q·k/√d_k. One
// above the other, each under 40 characters wide, so that a phone's narrow
// column shows every number without scrolling sideways.
std::string results_text(const std::vector<Row>& rows, std::uint32_t seed, std::size_t samples) {
  std::string text = fmt::format("Footnote 4, measured: seed {}, {} random pairs (q, k) for each d_k.\n"
                                 "Every entry of q and k is drawn independently with mean 0 and variance 1.\n"
                                 "Theory: Var(q·k) = d_k, and so Var(q·k/√d_k) = 1.\n\n",
                                 seed, samples);
  const auto number = [](double value) { return program::number_text(value); };
  // The format is a literal in each call, so that the compiler checks it.
  text += fmt::format("{:>6}  {:-^28}\n", "", " q·k ");
  text += fmt::format("{:>6}  {:>8}  {:>10}  {:>6}\n", "d_k", "mean", "variance", "theory");
  for (const Row& row : rows) {
    text +=
        fmt::format("{:>6}  {:>8}  {:>10}  {:>6}\n", row.width, number(row.mean_raw), number(row.var_raw), row.width);
  }
  text += fmt::format("\n{:>6}  {:-^29}\n", "", " q·k/√d_k ");
  text += fmt::format("{:>6}  {:>10}  {:>6}  {:>9}\n", "d_k", "variance", "theory", "± typical");
  for (const Row& row : rows) {
    text +=
        fmt::format("{:>6}  {:>10}  {:>6}  {:>9}\n", row.width, number(row.var_scaled), 1, number(row.var_scaled_sd));
  }
  text += fmt::format("\n± typical: how far the scaled variance typically lands from 1, from one\n"
                      "seed to the next (its standard deviation in theory, for {} samples).\n",
                      samples);
  return text;
}

nlohmann::json histogram_json(const Histogram& histogram) {
  const double scale = std::sqrt(static_cast<double>(histogram.width));
  nlohmann::json edges_raw = nlohmann::json::array();
  nlohmann::json edges_scaled = nlohmann::json::array();
  for (int i = 0; i <= histogram_bins; ++i) {
    edges_raw.push_back(edge_scaled(i) * scale);
    edges_scaled.push_back(edge_scaled(i));
  }
  return {
      {"dk", histogram.width},      {"edges_raw", edges_raw},   {"edges_scaled", edges_scaled},
      {"counts", histogram.counts}, {"below", histogram.below}, {"above", histogram.above},
  };
}

}  // namespace

Result compute(const Inputs& inputs) {
  const std::uint32_t seed = inputs.seed;
  const std::size_t samples = inputs.samples;
  const std::vector<std::size_t>& widths = inputs.widths;
  const std::size_t largest = *std::max_element(widths.begin(), widths.end());

  std::vector<Row> rows;
  Histogram histogram;
  // clang-format off
  // [experiment]
  attention::Mulberry32 generator(seed);  // one stream for every d_k
  std::vector<double> dot_products(samples);
  for (const std::size_t width : widths) {
    for (double& x : dot_products) {
      x = attention::random_dot_product(generator, width);
    }
    const double var_raw = attention::population_variance(dot_products);
    // [scaled_variance]
    // Var(q·k / √d_k) = Var(q·k) / d_k
    // var_raw is Var(q·k) and width is d_k;
    // static_cast<double>(width) is Python's float(width)
    const double var_scaled = var_raw / static_cast<double>(width);
    // [scaled_variance]
    rows.push_back({width, attention::mean(dot_products), var_raw, var_scaled,
                    typical_swing(width, samples)});
    if (width == largest && histogram.width == 0) {
      histogram = histogram_of(dot_products, width);  // for the figure
    }
  }
  // [experiment]
  // clang-format on
  return {inputs, std::move(rows), std::move(histogram)};
}

nlohmann::json to_json(const Result& result) {
  nlohmann::json json_rows = nlohmann::json::array();
  for (const Row& row : result.rows) {
    json_rows.push_back(
        {{"dk", row.width},
         {"mean_raw", row.mean_raw},
         // How far the mean of N dot products typically lands from 0: each has variance
         // d_k, so their mean has variance d_k / N, under footnote 4's assumption
         {"mean_sd_theory", std::sqrt(static_cast<double>(row.width) / static_cast<double>(result.inputs.samples))},
         {"var_raw", row.var_raw},
         {"sd_raw", std::sqrt(row.var_raw)},
         // The gap q·k₁ − q·k₂ between two scores: d_k products of variance 2
         {"sd_gap_theory", std::sqrt(2.0 * static_cast<double>(row.width))},
         {"var_theory", row.width},
         {"var_scaled", row.var_scaled},
         {"var_scaled_theory", 1},
         {"var_scaled_sd", row.var_scaled_sd},
         // Two typical swings either side of the theory, 1: the band the figures draw
         {"two_swings_low", 1.0 - 2.0 * row.var_scaled_sd},
         {"two_swings_high", 1.0 + 2.0 * row.var_scaled_sd},
         // How many typical swings the scaled variance lies from its theory, 1, either way
         {"swings_from_theory", std::abs(row.var_scaled - 1.0) / row.var_scaled_sd}});
  }
  return {
      {"seed", result.inputs.seed},
      {"samples", result.inputs.samples},
      {"dk", result.inputs.widths},
      {"rows", json_rows},
      {"histogram", histogram_json(result.histogram)},
  };
}

std::string tables(const Result& result) {
  std::string text = results_text(result.rows, result.inputs.seed, result.inputs.samples);
  if (result.inputs.histogram_table) text += '\n' + histogram_text(result.histogram, result.inputs.samples);
  return text;
}

Flags::Flags(program::CommandLine& command_line) {
  command_line.option("--seed", seed_text_,
                      fmt::format("seed of the random stream, a whole number from 0 to {}", max_seed), "INTEGER");
  command_line.option("--samples", samples_text_,
                      fmt::format("random pairs (q, k) for each d_k, from 2 (one sample's variance is always 0) to {}; "
                                  "--samples times the sum of --dk "
                                  "may be at most {} (a run of about a second or two)",
                                  max_samples, max_products),
                      "INTEGER");
  command_line.option("--dk", widths_text_,
                      fmt::format("widths d_k to measure, in order, separated by ',' (each 1 to {}, at most {})",
                                  max_width, max_widths),
                      "LIST");
  command_line.flag("--histogram", histogram_table_, "also print the distribution of q·k at the largest d_k");
}

Inputs Flags::read() const {
  Inputs inputs;
  inputs.seed = static_cast<std::uint32_t>(program::parse_whole_number(seed_text_, "--seed", 0, max_seed));
  inputs.samples = static_cast<std::size_t>(program::parse_whole_number(samples_text_, "--samples", 2, max_samples));
  inputs.widths.clear();
  std::uint64_t width_sum = 0;
  for (const std::uint64_t width : program::parse_whole_numbers(widths_text_, "--dk", 1, max_width, max_widths)) {
    inputs.widths.push_back(static_cast<std::size_t>(width));
    width_sum += width;
  }
  inputs.histogram_table = histogram_table_;
  if (inputs.samples * width_sum > max_products) {
    throw program::UsageError(fmt::format(
        "--samples and --dk: {} samples × {} (the sum of --dk) is {} products, more than the {} a run may take; "
        "lower one of them",
        inputs.samples, width_sum, inputs.samples * width_sum, max_products));
  }
  return inputs;
}

namespace {

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: footnote 4 of the paper as an experiment, run the way the
// hand-worked lesson (see the preface) runs it. For d_k = 2, 64 and 512 it draws 4000 random pairs of
// a query q and a key k (seed 1), takes each q·k, and measures the variance of
// those dot products, before and after dividing them by √d_k.
// --seed, --samples and --dk change the experiment; --histogram adds the
// distribution of q·k at the largest d_k; --json prints the values as JSON.
[[maybe_unused]] const bool registered =
    program::register_chapter<Flags>("scaling_variance",
                                     "Chapter 2 of Attention, Compiled: why the scores are divided by √d_k. Measures "
                                     "the variance of q·k for random q and k, before and after the division.",
                                     compute, to_json, tables);

}  // namespace
}  // namespace scaling_variance
