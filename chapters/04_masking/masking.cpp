#include "masking.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "attention/softmax.hpp"
#include "program/columns.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/matrix_text.hpp"
#include "program/real_number.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace masking {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();
constexpr std::string_view mask_kinds = "none, causal, band:R (R ≥ 0) or pad:N (0 ≤ N ≤ number of keys)";

// The fills the leak table compares, besides whatever --fill says: −∞ first, as the reference.
const std::vector<double> compared_fills = {minus_infinity, -1e9, -1000.0, -10.0};

// e^x is exactly 0 in double precision for every x below this (about −745): there
// the true value is less than half of the smallest positive double.
double underflow_exponent() { return std::log(std::numeric_limits<double>::denorm_min()) - std::log(2.0); }

// Reads --mask, "none", "causal", "band:R" or "pad:N", and checks that it fits
// this many queries and keys.
MaskSpec read_mask_spec(std::string_view text, Eigen::Index queries, Eigen::Index keys) {
  const std::string_view spec = program::trim(text);
  if (spec.empty()) {
    throw program::UsageError(fmt::format("--mask is empty; expected {}", mask_kinds));
  }
  const std::size_t colon = spec.find(':');
  const std::string kind(program::trim(spec.substr(0, colon)));
  const bool has_number = colon != std::string_view::npos;
  const bool takes_number = kind == "band" || kind == "pad";
  if (!takes_number && kind != "none" && kind != "causal") {
    throw program::UsageError(fmt::format("--mask: '{}' is not a mask; expected {}", spec, mask_kinds));
  }
  if (has_number && !takes_number) {
    throw program::UsageError(fmt::format("--mask: '{}' takes nothing after ':'; expected {}", kind, mask_kinds));
  }
  if (takes_number && !has_number) {
    throw program::UsageError(fmt::format("--mask: '{}' needs a number after a colon, as in {}; expected {}", kind,
                                          kind == "band" ? "band:2" : "pad:3", mask_kinds));
  }
  if ((kind == "causal" || kind == "band") && queries != keys) {
    throw program::UsageError(
        fmt::format("--mask: {} compares positions, so it needs as many queries as keys, not {} (--q) and {} (--k)",
                    kind, program::counted(queries, "query", "queries"), program::counted(keys, "key", "keys")));
  }
  MaskSpec chosen{kind, 0};
  const std::string_view number = has_number ? spec.substr(colon + 1) : std::string_view{};
  if (kind == "band") {
    // No sequence is longer than max_matrix_side, so that radius reaches every token.
    chosen.number =
        static_cast<Eigen::Index>(program::parse_whole_number(number, "--mask: the radius R of band:R", 0,
                                                              static_cast<std::uint64_t>(program::max_matrix_side)));
  } else if (kind == "pad") {
    chosen.number =
        static_cast<Eigen::Index>(program::parse_whole_number(number, "--mask: the number N of real keys in pad:N", 0,
                                                              static_cast<std::uint64_t>(keys)));
  }
  return chosen;
}

// "pad:3: keys 1 … 3 are real, key 4 is padding", with the edge cases said plainly.
std::string padding_description(Eigen::Index real_keys, Eigen::Index keys) {
  const std::string real = real_keys == 0   ? "no key is real"
                           : real_keys == 1 ? "key 1 is real"
                                            : fmt::format("keys 1 … {} are real", real_keys);
  const std::string padding = real_keys == keys       ? "none is padding"
                              : real_keys + 1 == keys ? fmt::format("key {} is padding", keys)
                                                      : fmt::format("keys {} … {} are padding", real_keys + 1, keys);
  return fmt::format("pad:{}: {}, {}", real_keys, real, padding);
}

// A mask, with the sentence that says what it allows.
struct ChosenMask {
  attention::Mask allowed;
  std::string description;
};

// The mask a checked MaskSpec stands for, and what it allows in words.
ChosenMask mask_for(const MaskSpec& spec, Eigen::Index queries, Eigen::Index keys) {
  const std::string& kind = spec.kind;
  const Eigen::Index number = spec.number;  // R for band:R, N for pad:N
  // clang-format off
  // [masks]
  if (kind == "none") {
    return {attention::no_mask(queries, keys),
            "none: every query may look at every key"};
  }
  if (kind == "causal") {
    return {attention::causal_mask(queries),
            "causal: token i may look at tokens 1 … i"};
  }
  if (kind == "band") {
    return {attention::band_mask(queries, number),
            fmt::format("band:{0}: token i may look at tokens i − {0} … i + {0}", number)};
  }
  return {attention::padding_mask(queries, keys, number),
          padding_description(number, keys)};
  // [masks]
  // clang-format on
}

// "-1.250e+09" as one types it: "-1.25e9" (no '+', no leading or trailing zeros).
std::string typed_exponent(const std::string& text) {
  const std::size_t e = text.find('e');
  std::string mantissa = text.substr(0, e);
  if (mantissa.find('.') != std::string::npos) {
    mantissa.erase(mantissa.find_last_not_of('0') + 1);
    if (mantissa.back() == '.') mantissa.pop_back();
  }
  std::string exponent = text.substr(e + 1);
  const bool negative = exponent.front() == '-';
  exponent.erase(0, exponent.find_first_not_of("+-0"));
  return mantissa + "e" + (negative ? "-" : "") + (exponent.empty() ? "0" : exponent);
}

// A finite number in scientific notation with as few digits as read back exactly: "-1e9".
std::string scientific_text(double value) {
  std::string text;
  for (int digits = 0; digits <= 17; ++digits) {
    text = fmt::format("{:.{}e}", value, digits);
    if (std::strtod(text.c_str(), nullptr) == value) break;
  }
  return typed_exponent(text);
}

// How a fill is written: "-inf" for −∞; below a million in size, the shortest text
// that reads back exactly ("-1000", "-0.5"); beyond, in scientific notation ("-1e9").
std::string fill_text(double fill) {
  if (fill == minus_infinity) {
    return "-inf";
  }
  return std::abs(fill) < 1e6 ? fmt::format("{}", fill) : scientific_text(fill);
}

// A gap as the leak table shows it: two decimals, or three digits when it is huge.
std::string gap_text(double gap) {
  if (std::isinf(gap)) {
    return "∞";
  }
  return std::abs(gap) < 1e6 ? program::number_text(gap, 2) : typed_exponent(fmt::format("{:.2e}", gap));
}

// A weight as the leak table shows it: exactly 0 says so; anything else in scientific notation.
std::string weight_text(double weight) { return weight == 0.0 ? "0 (exactly)" : fmt::format("{:.3e}", weight); }

// ---------------------------------------------------------------------------
// The computation.

// Attention on the same inputs and mask with another fill: the masked weights
// and the output, compared with the output under −∞.
Leak leak_of(double fill, const program::AttentionInputs& tokens, const attention::Mask& allowed,
             const attention::Matrix& exact_output) {
  Leak leak;
  leak.fill = fill;
  attention::AttentionOptions options;
  options.mask = allowed;
  options.fill = fill;
  const attention::AttentionSteps<> steps =
      attention::scaled_dot_product_attention(tokens.queries, tokens.keys, tokens.values, options);
  for (Eigen::Index i = 0; i < allowed.rows(); ++i) {
    for (Eigen::Index j = 0; j < allowed.cols(); ++j) {
      if (!allowed(i, j) && steps.weights(i, j) > leak.largest_masked_weight) {
        leak.largest_masked_weight = steps.weights(i, j);
        leak.query = i;
        leak.key = j;
      }
    }
  }
  const attention::Matrix change = steps.output - exact_output;
  // maxCoeff() of a matrix holding NaN is unspecified: say first whether every entry is a number.
  leak.output_finite = steps.output.allFinite() && change.allFinite();
  leak.largest_output_change = leak.output_finite ? change.cwiseAbs().maxCoeff() : 0.0;
  for (Eigen::Index i = 0; i < allowed.rows(); ++i) {
    if (allowed.row(i).any() && !allowed.row(i).all()) {
      double largest_allowed = minus_infinity;
      for (Eigen::Index j = 0; j < allowed.cols(); ++j) {
        if (allowed(i, j)) largest_allowed = std::max(largest_allowed, steps.scaled_scores(i, j));
      }
      const double gap = largest_allowed - fill;
      leak.smallest_gap = leak.smallest_gap ? std::min(*leak.smallest_gap, gap) : gap;
      ++leak.gap_rows;
    }
  }
  return leak;
}

// Every number the leak table prints must be a finite double, or the fill −∞'s
// infinite gap. An output that overflows is refused, naming the flag that made
// it: the values (--v), or a fill so far from the scores that the gap overflows.
void require_finite(const std::vector<Leak>& leaks, const attention::Matrix& output) {
  if (!output.allFinite()) {
    throw program::UsageError("--v: the weighted sum of the values overflows a double; use smaller values");
  }
  for (const Leak& leak : leaks) {
    if (!leak.output_finite) {
      throw program::UsageError(fmt::format(
          "--v: with the fill {}, an output or its change from the output under -inf overflows a double; use "
          "smaller values",
          fill_text(leak.fill)));
    }
    if (leak.fill != minus_infinity && leak.smallest_gap && !std::isfinite(*leak.smallest_gap)) {
      throw program::UsageError(fmt::format(
          "--fill: the gap from the scores down to the fill {} overflows a double; expected a fill nearer 0, or -inf",
          fill_text(leak.fill)));
    }
  }
}

Underflow underflow_facts() {
  const double smallest_double = std::numeric_limits<double>::denorm_min();
  const double smallest_float = static_cast<double>(std::numeric_limits<float>::denorm_min());
  return {std::exp(-1000.0),    std::exp(-10.0),          smallest_double,
          underflow_exponent(), -underflow_exponent(),    std::log(smallest_double),
          smallest_float,       std::log(smallest_float), std::log(2.0) - std::log(smallest_float)};
}

// ---------------------------------------------------------------------------
// JSON and tables.

nlohmann::json mask_json(const attention::Mask& allowed) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < allowed.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < allowed.cols(); ++j) {
      row.push_back(static_cast<bool>(allowed(i, j)));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json leak_json(const Leak& leak, const program::AttentionInputs& tokens) {
  nlohmann::json row = {
      {"fill", program::number_json(leak.fill)},
      {"largest_masked_weight", program::number_json(leak.largest_masked_weight)},
      {"query",
       leak.query < 0 ? nlohmann::json() : nlohmann::json(tokens.query_labels[static_cast<std::size_t>(leak.query)])},
      {"key", leak.key < 0 ? nlohmann::json() : nlohmann::json(tokens.key_labels[static_cast<std::size_t>(leak.key)])},
      {"largest_output_change", program::number_json(leak.largest_output_change)},
      {"gap_rows", leak.gap_rows},
  };
  // No row with both an allowed and a masked key has no gap: the key is left
  // out (gap_rows is 0), never null. The fill −∞'s gap is "inf".
  if (leak.smallest_gap) {
    row["smallest_gap"] = program::number_json(*leak.smallest_gap);
  }
  return row;
}

// A finite fill's leak can be too small for the weights table's four decimals: under the table, a
// line says that a masked weight printed as 0 may not be 0, and gives the largest, so that the table
// is not read as a mask that holds.
std::string hidden_leak_note(const Result& result) {
  const Leak& this_fill = result.this_fill();
  if (this_fill.largest_masked_weight == 0.0 || program::number_text(this_fill.largest_masked_weight) != "0") {
    return "";
  }
  const program::AttentionInputs& tokens = result.inputs.tokens;
  return fmt::format("(a masked weight shown as 0 may not be 0: the largest, {} → {}, is {})\n",
                     tokens.query_labels[static_cast<std::size_t>(this_fill.query)],
                     tokens.key_labels[static_cast<std::size_t>(this_fill.key)],
                     weight_text(this_fill.largest_masked_weight));
}

// The mask and each matrix of the pass, as tables.
std::string step_tables(const Result& result) {
  const program::AttentionInputs& tokens = result.inputs.tokens;
  const std::vector<std::string>& query_labels = tokens.query_labels;
  const std::vector<std::string>& key_labels = tokens.key_labels;
  const attention::Mask& allowed = result.allowed;
  const std::vector<std::string> value_columns = program::numbered_labels("d", tokens.values.cols());
  return fmt::format("Mask {}\n({} of {} entries allowed, {} masked; fill {})\n\n", result.mask_description,
                     result.allowed_count, allowed.size(), allowed.size() - result.allowed_count,
                     fill_text(result.inputs.fill)) +
         program::table("Mask: 1 = the query may look at the key, 0 = masked", allowed.cast<double>().matrix(),
                        query_labels, key_labels) +
         '\n' + program::table("Scaled scores QKᵀ/√d_k", result.steps.scaled_scores, query_labels, key_labels) + '\n' +
         program::table(fmt::format("Masked scores: every masked entry set to {}", fill_text(result.inputs.fill)),
                        result.steps.masked_scores, query_labels, key_labels) +
         '\n' +
         program::table("Weights: softmax of each row of the masked scores", result.steps.weights, query_labels,
                        key_labels) +
         hidden_leak_note(result) + '\n' +
         program::table("Values V, one row per key", tokens.values, key_labels, value_columns) + '\n' +
         program::table("Output = weights · V, one row per query", result.steps.output, query_labels, value_columns) +
         '\n';
}

// Checks a reader can make by eye.
std::string checks(const Result& result) {
  const program::AttentionInputs& tokens = result.inputs.tokens;
  const auto query_label = [&](Eigen::Index i) { return tokens.query_labels[static_cast<std::size_t>(i)]; };
  const auto key_label = [&](Eigen::Index j) { return tokens.key_labels[static_cast<std::size_t>(j)]; };
  std::string text;
  const Leak& this_fill = result.this_fill();
  if (result.allowed_count < result.allowed.size()) {
    text += fmt::format("Largest weight on a masked key: {}{}\n", weight_text(this_fill.largest_masked_weight),
                        this_fill.query < 0
                            ? ""
                            : fmt::format(" ({} → {})", query_label(this_fill.query), key_label(this_fill.key)));
  }
  for (const OnlyKey& only : result.only_keys) {
    text += fmt::format("{} may look at {} only: its output equals that value bit for bit: {}\n",
                        query_label(only.query), key_label(only.key), only.output_is_value ? "yes" : "no");
  }
  for (const Eigen::Index i : result.fully_masked_rows) {
    if (result.steps.weights.row(i).isZero(0.0)) {
      text += fmt::format("{} may look at no key: its weights are all exactly 0, its output the zero vector\n",
                          query_label(i));
    } else {
      text += fmt::format("{} may look at no key, yet every key gets {}: its output averages all values\n",
                          query_label(i), program::number_text(result.steps.weights(i, 0)));
    }
  }
  return text;
}

// The leak of each compared fill, or why there is none: two tables narrow
// enough for a phone's page (about 44 characters), the masked weights with
// their gaps, then the output changes.
std::string leak_table(const Result& result) {
  if (result.allowed_count == result.allowed.size()) {
    return "\nNothing is masked, so the fill changes nothing.\n";
  }
  const program::AttentionInputs& tokens = result.inputs.tokens;
  // The heading "largest masked weight" over two lines; "at" is the last column.
  program::Column fills("", "fill", 0), gaps("", "gap"), weights("largest", "masked weight"), places("", "at", 2, true);
  program::Column changes("", "largest output change");
  for (const Leak& leak : result.leaks) {
    fills.entries.push_back(fill_text(leak.fill));
    gaps.entries.push_back(leak.smallest_gap ? gap_text(*leak.smallest_gap) : "-");
    weights.entries.push_back(weight_text(leak.largest_masked_weight));
    places.entries.push_back(leak.query < 0
                                 ? "-"
                                 : fmt::format("{} → {}", tokens.query_labels[static_cast<std::size_t>(leak.query)],
                                               tokens.key_labels[static_cast<std::size_t>(leak.key)]));
    changes.entries.push_back(leak.largest_output_change == 0.0 ? "0"
                                                                : fmt::format("{:.3e}", leak.largest_output_change));
  }

  std::string text = "\nThe same inputs and mask, with other fills\nin place of −∞\n";
  text += program::columns_text({fills, gaps, weights, places});
  text += fmt::format("gap: over the rows with a masked key, the\n"
                      "least distance from the row's largest\n"
                      "allowed score down to the fill. A masked\n"
                      "weight is at most e^(−gap), and in double\n"
                      "precision e^(−gap) is exactly 0 once the\n"
                      "gap is more than about {}.\n",
                      program::number_text(result.underflow.double_underflow_gap, 0));

  text += "\nThe same fills: the largest change of an\noutput entry from its value under −∞\n";
  text += program::columns_text({fills, changes});
  return text;
}

}  // namespace

const Leak& Result::this_fill() const {
  return *std::find_if(leaks.begin(), leaks.end(), [&](const Leak& leak) { return leak.fill == inputs.fill; });
}

Result compute(const Inputs& inputs) {
  Result result;
  result.inputs = inputs;
  const attention::Matrix& queries = inputs.tokens.queries;
  const attention::Matrix& keys = inputs.tokens.keys;
  const attention::Matrix& values = inputs.tokens.values;
  const double fill = inputs.fill;
  ChosenMask mask = mask_for(inputs.mask, queries.rows(), keys.rows());
  result.allowed = std::move(mask.allowed);
  result.mask_description = std::move(mask.description);
  const attention::Mask& allowed = result.allowed;

  try {
    // clang-format off
    // [compute]
    attention::AttentionOptions options;
    options.mask = allowed;  // which keys each query may look at
    options.fill = fill;     // written into every other score before the softmax
    result.steps = attention::scaled_dot_product_attention(queries, keys, values, options);
    // [compute]
    // clang-format on
    // The reference every fill is compared with: the output under −∞.
    attention::AttentionOptions exact = options;
    exact.fill = minus_infinity;
    const attention::Matrix exact_output =
        fill == minus_infinity ? result.steps.output
                               : attention::scaled_dot_product_attention(queries, keys, values, exact).output;
    std::vector<double> fills = compared_fills;
    if (std::find(fills.begin(), fills.end(), fill) == fills.end()) {
      fills.push_back(fill);
    }
    for (const double compared : fills) {
      result.leaks.push_back(leak_of(compared, inputs.tokens, allowed, exact_output));
    }
  } catch (const std::invalid_argument& error) {
    // A score that overflowed to +∞ or became NaN: the inputs are too large to score.
    throw program::UsageError(
        fmt::format("--q, --k: the scores cannot be computed in double precision ({})", error.what()));
  }
  require_finite(result.leaks, result.steps.output);

  // Evaluated straight into a 1 × n matrix: into a vector, Eigen may add the
  // terms of a row in another order, and the last bit of a sum can differ.
  result.row_sums = result.steps.weights.rowwise().sum().transpose();
  result.allowed_count = allowed.count();
  for (Eigen::Index i = 0; i < allowed.rows(); ++i) {
    if (!allowed.row(i).any()) result.fully_masked_rows.push_back(i);
    if (allowed.row(i).count() == 1) {
      Eigen::Index only = 0;
      allowed.row(i).maxCoeff(&only);
      result.only_keys.push_back({i, only, result.steps.output.row(i) == values.row(only)});
    }
  }
  result.underflow = underflow_facts();
  return result;
}

nlohmann::json to_json(const Result& result) {
  const program::AttentionInputs& tokens = result.inputs.tokens;
  const attention::Mask& allowed = result.allowed;
  const attention::AttentionSteps<>& steps = result.steps;
  nlohmann::json leak_rows = nlohmann::json::array();
  for (const Leak& leak : result.leaks) {
    leak_rows.push_back(leak_json(leak, tokens));
  }
  const Underflow& underflow = result.underflow;
  return {
      {"query_tokens", tokens.query_labels},
      {"key_tokens", tokens.key_labels},
      {"queries", program::matrix_json(tokens.queries)},
      {"keys", program::matrix_json(tokens.keys)},
      {"values", program::matrix_json(tokens.values)},
      {"mask_spec", result.inputs.mask_text},
      {"mask_description", result.mask_description},
      {"fill", program::number_json(result.inputs.fill)},
      {"mask", mask_json(allowed)},
      {"allowed_entries", result.allowed_count},
      {"masked_entries", allowed.size() - result.allowed_count},
      {"fully_masked_rows", result.fully_masked_rows},
      {"scores", program::matrix_json(steps.scores)},
      {"scaled_scores", program::matrix_json(steps.scaled_scores)},
      {"masked_scores", program::matrix_json(steps.masked_scores)},
      {"weights", program::matrix_json(steps.weights)},
      {"row_sums", program::matrix_json(result.row_sums)[0]},
      {"output", program::matrix_json(steps.output)},
      {"leak", leak_rows},
      {"underflow",
       {{"exp_of_minus_1000", underflow.exp_of_minus_1000},
        {"exp_of_minus_10", underflow.exp_of_minus_10},
        {"double_smallest_positive", underflow.double_smallest_positive},
        {"double_exp_is_zero_below", underflow.double_exp_is_zero_below},
        {"double_underflow_gap", underflow.double_underflow_gap},
        {"double_smallest_positive_log", underflow.double_smallest_positive_log},
        {"float_smallest_positive", underflow.float_smallest_positive},
        {"float_smallest_positive_log", underflow.float_smallest_positive_log},
        {"float_underflow_gap", underflow.float_underflow_gap}}},
  };
}

std::string tables(const Result& result) { return step_tables(result) + checks(result) + leak_table(result); }

Flags::Flags(program::CommandLine& command_line) : attention_flags_(command_line, /*with_values=*/true) {
  command_line.option("--mask", mask_text_,
                      "which keys each query may look at: none, causal, band:R (|i - j| <= R) or pad:N (only the "
                      "first N keys are real)",
                      "KIND");
  command_line.option("--fill", fill_text_, "the value written into masked scores before the softmax: -inf or a number",
                      "NUMBER");
}

Inputs Flags::read() const {
  Inputs inputs;
  inputs.tokens = attention_flags_.read();
  inputs.mask = read_mask_spec(mask_text_, inputs.tokens.queries.rows(), inputs.tokens.keys.rows());
  inputs.mask_text = std::string(program::trim(mask_text_));
  inputs.fill = program::parse_real_number(fill_text_, "--fill", program::MinusInfinity::accepted);
  return inputs;
}

namespace {

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: the book's toy sentence "cat eat fish" under the decoder's
// causal mask. Each token may look at itself and the tokens before it; every
// other scaled score is set to −∞ before the softmax, so its weight is exactly 0.
// Then the same inputs with finite fills (−1e9, −1000, −10) in place of −∞, to
// show how much weight each one lets through.
// --mask chooses the mask (none, causal, band:R, pad:N), --fill the value
// written into masked scores; --q, --k, --v and --tokens change the inputs;
// --json prints the same values as one JSON document.
[[maybe_unused]] const bool registered =
    program::register_chapter<Flags>("masking",
                                     "Chapter 4 of Attention, Compiled: masking. Which keys each query may look at, "
                                     "and why the scores of the others are set to -inf before the softmax.",
                                     compute, to_json, tables);

}  // namespace

}  // namespace masking
