// Chapter 17's front ends: the JSON, the tables, the flags and the page's entry.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "precision.hpp"
#include "program/columns.hpp"
#include "program/integer_list.hpp"
#include "program/real_number.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace precision {

namespace {

constexpr std::uint64_t max_count = 10'000'000;
constexpr std::uint64_t max_length = 1 << 20;
constexpr std::size_t max_lengths = 12;  // --n: a table a reader can read
constexpr double max_spread = 100.0;
constexpr double max_at = 20.0;  // e^20 is about 5 · 10^8, far inside float's and bfloat16's range

// A step to two significant digits (0.0032, 3.2e-06) and an error in scientific notation, as the table prints
// them; the page writes the JSON's numbers with the same formats (".2g", ".1e").
std::string two_digits(double value) { return fmt::format("{:.2g}", value); }
std::string error_text(double value) { return fmt::format("{:.1e}", value); }

std::string setup_name(const Setup& setup) {
  return fmt::format("{} terms, {} sum", attention::format_name(setup.terms), attention::format_name(setup.sum));
}

// The tables' lines are at most 44 characters where they can be, a phone's column: a heading takes two lines, and
// a column is only as wide as its widest entry or heading line.
constexpr std::size_t phone_width = 44;

}  // namespace

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  nlohmann::json counting = nlohmann::json::array();
  for (const Counting& c : result.counting) {
    counting.push_back({{"format", attention::format_name(c.format)},
                        {"fraction_bits", attention::fraction_bits(c.format)},
                        {"epsilon", std::ldexp(1.0, -attention::fraction_bits(c.format))},
                        {"total", c.total},
                        {"stuck_from", c.stuck_from},
                        {"spacing_there", c.spacing_there}});
  }
  nlohmann::json setups = nlohmann::json::array();
  for (const Setup& setup : inputs.setups) {
    setups.push_back({{"terms", attention::format_name(setup.terms)},
                      {"sum", attention::format_name(setup.sum)},
                      {"name", setup_name(setup)}});
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const LengthRow& row : result.rows) {
    nlohmann::json sums = nlohmann::json::array();
    for (const RunningSum& sum : row.sums) {
      sums.push_back({{"sum", sum.sum},
                      {"maximum", sum.maximum},
                      {"normalizer_error", sum.normalizer_error},
                      {"weights_sum", sum.weights_sum},
                      {"spacing", sum.spacing}});
    }
    rows.push_back({{"n", row.n},
                    {"reference_sum", row.reference.sum},
                    {"reference_maximum", row.reference.maximum},
                    {"term_at_one_spread", row.term_at_one_spread},
                    {"sums", sums}});
  }
  nlohmann::json curves = nlohmann::json::array();
  for (const StepCurve& curve : result.curves) {
    curves.push_back({{"format", attention::format_name(curve.format)},
                      {"at", curve.at},
                      {"errors", curve.errors},
                      {"best_step", curve.best_step},
                      {"best_error", curve.best_error},
                      {"root", curve.root},
                      {"spacing", curve.spacing},
                      {"predicted_step", curve.predicted_step}});
  }
  return {{"finite_difference",
           {{"difference", difference_name(inputs.difference)}, {"steps", result.steps}, {"curves", curves}}},
          {"inputs",
           {{"count", inputs.count},
            {"lengths", inputs.lengths},
            {"seed", inputs.seed},
            {"spread", inputs.spread},
            {"at", inputs.at},
            {"difference", difference_name(inputs.difference)}}},
          {"counting", counting},
          {"setups", setups},
          {"rows", rows}};
}

std::string tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  std::string text = fmt::format("Adding 1, {} times, from 0\n", inputs.count);
  std::vector<program::Column> counting{
      {"", "format", 2, true}, {"fraction", "bits"}, {"", "total"}, {"stuck", "from"}, {"spacing", "there"}};
  for (const Counting& c : result.counting) {
    counting[0].entries.push_back(attention::format_name(c.format));
    counting[1].entries.push_back(std::to_string(attention::fraction_bits(c.format)));
    counting[2].entries.push_back(program::number_text(c.total));
    counting[3].entries.push_back(c.stuck_from == 0 ? std::string("-") : std::to_string(c.stuck_from));
    counting[4].entries.push_back(fmt::format("{:.3g}", c.spacing_there));
  }
  text += program::columns_text(counting);
  const bool central = inputs.difference == Difference::central;
  text += '\n';
  text +=
      program::wrapped(fmt::format("The {} difference of e^x at x = {}, every number in the format: the best step h",
                                   difference_name(inputs.difference), program::number_text(inputs.at)),
                       phone_width);
  std::vector<program::Column> steps{{"", "format", 2, true},
                                     {"best", "step"},
                                     {"relative", "error"},
                                     {"(spacing", fmt::format("at 1)^(1/{})", central ? 3 : 2)}};
  for (const StepCurve& curve : result.curves) {
    steps[0].entries.push_back(attention::format_name(curve.format));
    steps[1].entries.push_back(two_digits(curve.best_step));
    steps[2].entries.push_back(error_text(curve.best_error));
    steps[3].entries.push_back(two_digits(curve.root));
  }
  text += program::columns_text(steps);
  text += '\n';
  text += program::wrapped(fmt::format("The running sum of e^(s - M) over n scores (normal, spread {}, seed {}): "
                                       "the relative error of the softmax's denominator against double, with the "
                                       "terms and the sum kept in",
                                       program::number_text(inputs.spread), inputs.seed),
                           phone_width);
  // Each way of keeping the sum headed by its terms' format over its sum's. Between two of them one space is
  // enough, as their entries are narrower than "bfloat16".
  std::vector<program::Column> sums{{"", "n"}, {"L", "(double)"}};
  for (const Setup& setup : inputs.setups) {
    const std::size_t gap = sums.size() == 2 ? 2 : 1;  // two after L's column
    sums.emplace_back(attention::format_name(setup.terms), attention::format_name(setup.sum), gap);
  }
  for (const LengthRow& row : result.rows) {
    sums[0].entries.push_back(std::to_string(row.n));
    sums[1].entries.push_back(program::number_text(row.reference.sum, 2));
    for (std::size_t s = 0; s < row.sums.size(); ++s) {
      sums[2 + s].entries.push_back(fmt::format("{:.1e}", row.sums[s].normalizer_error));
    }
  }
  text += program::columns_text(sums);
  return text;
}

Flags::Flags(program::CommandLine& command_line) {
  command_line.option("--count", count_text_, fmt::format("add 1 this many times, 0 to {} (default 1000)", max_count),
                      "INTEGER");
  command_line.option("--n", lengths_text_,
                      fmt::format("the numbers of scores, at most {} of them, each 1 to {} (default "
                                  "16,64,256,1024,4096,16384,65536)",
                                  max_lengths, max_length),
                      "LIST");
  command_line.option("--seed", seed_text_, "seed of the scores (default 1)", "INTEGER");
  command_line.option("--spread", spread_text_,
                      fmt::format("the scores' standard deviation, above 0 and at most {} (default 1)",
                                  program::number_text(max_spread)),
                      "NUMBER");
  command_line.option("--at", at_text_,
                      fmt::format("the point x of the finite difference of e^x, from -{0} to {0} (default 1)",
                                  program::number_text(max_at)),
                      "NUMBER");
  command_line.option("--difference", difference_text_,
                      "the finite difference: central, (f(x+h) - f(x-h))/2h, or forward, (f(x+h) - f(x))/h "
                      "(default central)",
                      "NAME");
}

Inputs Flags::read() const {
  Inputs inputs;
  inputs.count = static_cast<long long>(program::parse_whole_number(count_text_, "--count", 0, max_count));
  inputs.lengths.clear();
  for (const std::uint64_t n : program::parse_whole_numbers(lengths_text_, "--n", 1, max_length, max_lengths)) {
    inputs.lengths.push_back(static_cast<Eigen::Index>(n));
  }
  inputs.seed = program::parse_whole_number(seed_text_, "--seed", 0, UINT64_MAX);
  inputs.spread = program::parse_real_number(spread_text_, "--spread");
  if (!(inputs.spread > 0.0) || inputs.spread > max_spread) {
    throw program::UsageError(fmt::format("--spread: expected a number above 0 and at most {}, got {}",
                                          program::number_text(max_spread), spread_text_));
  }
  inputs.at = program::parse_real_number(at_text_, "--at");
  if (!(std::abs(inputs.at) <= max_at)) {
    throw program::UsageError(
        fmt::format("--at: expected a number from -{0} to {0}, got {1}", program::number_text(max_at), at_text_));
  }
  if (difference_text_ == "central") {
    inputs.difference = Difference::central;
  } else if (difference_text_ == "forward") {
    inputs.difference = Difference::forward;
  } else {
    throw program::UsageError(fmt::format("--difference: expected central or forward, got \"{}\"", difference_text_));
  }
  return inputs;
}

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: adds 1 a thousand times, from 0, in double, float and bfloat16, and prints where each
// total stops growing; then keeps the online softmax's running sum (chapter 12) of 16 to 65536 normal scores
// with its terms and its sum in float or bfloat16, and prints the relative error of the softmax's denominator
// against double. --count, --n, --seed and --spread change them; --json prints it all as one JSON document.
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "precision",
    "Chapter 17 of Attention, Compiled: adding in double, float and bfloat16, and the online softmax's running sum "
    "kept in each: where a sum kept in too few bits stops growing.",
    compute, to_json, tables);

}  // namespace precision
