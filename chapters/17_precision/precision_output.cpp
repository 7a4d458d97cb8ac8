// Chapter 17's front ends: the JSON, the tables, the flags and the page's entry.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "precision.hpp"
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
constexpr double max_spread = 100.0;
constexpr double max_at = 20.0;  // e^20 is about 5 · 10^8, far inside float's and bfloat16's range

// A step to two significant digits (0.0032, 3.2e-06) and an error in scientific notation, as the table prints
// them; the page writes the JSON's numbers with the same formats (".2g", ".1e").
std::string two_digits(double value) { return fmt::format("{:.2g}", value); }
std::string error_text(double value) { return fmt::format("{:.1e}", value); }

std::string setup_name(const Setup& setup) {
  return fmt::format("{} terms, {} sum", attention::format_name(setup.terms), attention::format_name(setup.sum));
}

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
  text += "  format     fraction bits   total        stuck from   spacing there\n";
  for (const Counting& c : result.counting) {
    text += fmt::format("  {:<9}  {:>13}   {:<11}  {:>10}   {}\n", attention::format_name(c.format),
                        attention::fraction_bits(c.format), program::number_text(c.total),
                        c.stuck_from == 0 ? std::string("-") : std::to_string(c.stuck_from),
                        fmt::format("{:.3g}", c.spacing_there));
  }
  const bool central = inputs.difference == Difference::central;
  text += fmt::format("\nThe {} difference of e^x at x = {}, every number in the format: the best step h\n",
                      difference_name(inputs.difference), program::number_text(inputs.at));
  text += fmt::format("  format     best step   its relative error   (spacing at 1)^(1/{})\n", central ? 3 : 2);
  for (const StepCurve& curve : result.curves) {
    text += fmt::format("  {:<9}  {:>9}   {:>18}   {:>20}\n", attention::format_name(curve.format),
                        two_digits(curve.best_step), error_text(curve.best_error), two_digits(curve.root));
  }
  text += '\n';
  text += program::wrapped(fmt::format("The running sum of e^(s - M) over n scores (normal, spread {}, seed {}): "
                                       "the relative error of the softmax's denominator against double, with the "
                                       "terms and the sum kept in",
                                       program::number_text(inputs.spread), inputs.seed),
                           78, "");
  text += fmt::format("  {:>7}  {:>10}", "n", "L (double)");
  for (const Setup& setup : inputs.setups) {
    text += fmt::format("  {:>18}",
                        fmt::format("{}, {}", attention::format_name(setup.terms), attention::format_name(setup.sum)));
  }
  text += '\n';
  for (const LengthRow& row : result.rows) {
    text += fmt::format("  {:>7}  {:>10}", row.n, program::number_text(row.reference.sum, 2));
    for (const RunningSum& sum : row.sums) text += fmt::format("  {:>18}", fmt::format("{:.1e}", sum.normalizer_error));
    text += '\n';
  }
  return text;
}

Flags::Flags(program::CommandLine& command_line) {
  command_line.option("--count", count_text_, fmt::format("add 1 this many times, 0 to {} (default 1000)", max_count),
                      "INTEGER");
  command_line.option("--n", lengths_text_,
                      fmt::format("the numbers of scores, 1 to {} (default 16,64,256,1024,4096,16384,65536)",
                                  max_length),
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
  for (const std::uint64_t n : program::parse_whole_numbers(lengths_text_, "--n", 1, max_length, 12)) {
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
