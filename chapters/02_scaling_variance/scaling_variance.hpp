// Chapter 2: scaling and variance, as one computation with its front ends.
//
// compute() runs footnote 4 of the paper as an experiment: for each d_k it
// draws random pairs (q, k) from the library's mulberry32 stream and measures
// the variance of q·k before and after dividing by √d_k; to_json() and
// tables() show the result; Flags reads the command line into Inputs.
// The command line and the page (program/run_chapter.hpp, register_chapter) both go through these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "program/command_line.hpp"

namespace scaling_variance {

/// What the flags say, checked: the seed, the samples per d_k and the widths,
/// and whether the tables show the histogram.
struct Inputs {
  std::uint32_t seed = 1;
  std::size_t samples = 4000;
  std::vector<std::size_t> widths{2, 64, 512};  // d_k, in the order they are drawn
  bool histogram_table = false;  // --histogram: the tables end with the histogram (the JSON always holds it)
};

/// One line of the results: the dot products at one d_k, measured.
struct Row {
  std::size_t width;     // d_k
  double mean_raw;       // mean of q·k
  double var_raw;        // population variance of q·k
  double var_scaled;     // var_raw / d_k, the variance of q·k / √d_k
  double var_scaled_sd;  // how far var_scaled typically lands from 1, seed to seed (see typical_swing)
};

/// The histogram's bins: a quarter of a theoretical standard deviation (√d_k)
/// wide, from −4 to +4 standard deviations.
inline constexpr int histogram_bins = 32;

/// The distribution of q·k at the largest d_k.
struct Histogram {
  std::size_t width = 0;  // d_k
  std::vector<std::size_t> counts = std::vector<std::size_t>(histogram_bins, 0);
  std::size_t below = 0;  // q·k below the first edge
  std::size_t above = 0;  // q·k at or above the last edge
};

/// Everything the tables and the JSON show.
struct Result {
  Inputs inputs;
  std::vector<Row> rows;  // one per d_k, in the order of inputs.widths
  Histogram histogram;    // at the largest d_k (its first occurrence)
};

/// The experiment: one mulberry32 stream seeded with inputs.seed for every
/// d_k, inputs.samples dot products of random q and k at each.
Result compute(const Inputs& inputs);

/// The document --json prints (the histogram included).
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json; with --histogram
/// (inputs.histogram_table) the distribution of q·k at the largest d_k follows.
std::string tables(const Result& result);

/// --seed, --samples, --dk and --histogram, with their help and defaults; read() checks
/// them (each in range, and the number of products within what a run may
/// take) after parsing and throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  std::string seed_text_ = "1";
  std::string samples_text_ = "4000";
  std::string widths_text_ = "2,64,512";
  bool histogram_table_ = false;
};

}  // namespace scaling_variance
