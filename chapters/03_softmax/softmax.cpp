#include "softmax.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attention/softmax.hpp"
#include "program/json_output.hpp"
#include "program/largest_weight.hpp"
#include "program/matrix_text.hpp"
#include "program/real_number.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace softmax {

namespace {

using attention::Matrix;

// The sweep behind the saturation figure: this many added amounts, evenly
// spaced from 0 to sweep_end (stretched to take in --add if it lies outside).
constexpr int sweep_points = 41;
constexpr double sweep_end = 2.0;

// The toy prints e^s itself while every |s| is at most this (e^20 has 9 digits).
constexpr double max_printed_exponent = 20.0;

// The toy's input tables Q, K and V go side by side when they have at most three times this many columns in all.
constexpr Eigen::Index max_columns_side_by_side = 6;

// The hand-worked lesson rounds every intermediate value to this many decimals.
constexpr int hand_decimals = 3;

// Where e^s stops being a usable double: above this it overflows to inf ...
double largest_exponent() { return std::log(std::numeric_limits<double>::max()); }
// ... and below this it rounds to exactly 0: e^s is then under half the
// smallest positive double, 2^−1075.
double smallest_exponent() { return -1075.0 * std::log(2.0); }

// e^x for every entry, one entry at a time, with the library's
// attention::exponential (std::exp). Eigen's own .exp() is faster but, where
// it vectorises, clamps its argument to about ±709.78: it never returns
// exactly 0, not even for −∞, and whether it vectorises depends on the build.
// The tables must not.
template <typename Entries>
auto exponential_of(const Entries& entries) {
  return entries.unaryExpr(&attention::exponential<double>).eval();
}

// ---------------------------------------------------------------------------
// The toy through the whole formula.

Pass pass_of(attention::AttentionSteps<> steps) {
  Pass pass;
  pass.exponentials = exponential_of(steps.masked_scores);
  pass.exponential_sums = pass.exponentials.rowwise().sum();
  pass.row_sums = steps.weights.rowwise().sum();
  pass.column_sums = steps.weights.colwise().sum();
  pass.smallest_weight = steps.weights.minCoeff(&pass.smallest_row, &pass.smallest_column);
  pass.zero_weights = (steps.weights.array() == 0.0).count();
  pass.steps = std::move(steps);
  return pass;
}

double rounded_to_hand_decimals(double x) {
  const double scale = std::pow(10.0, hand_decimals);
  return std::round(x * scale) / scale;
}

Boundaries boundaries_of(const Matrix& entries) {
  const double step = std::pow(10.0, -hand_decimals);
  Boundaries boundaries{Matrix(entries.rows(), entries.cols()), Matrix(entries.rows(), entries.cols()), {}};
  for (Eigen::Index i = 0; i < entries.rows(); ++i) {
    std::vector<std::string>& sides = boundaries.side.emplace_back();
    for (Eigen::Index j = 0; j < entries.cols(); ++j) {
      const double x = entries(i, j);
      const double at = (std::round(x / step - 0.5) + 0.5) * step;
      const double distance = std::abs(x - at);
      boundaries.nearest(i, j) = at;
      boundaries.distance(i, j) = distance;
      // A sum of numbers with three decimals lands on a boundary only up to the
      // rounding of binary fractions (0.198 + 0.2005 is 0.39849999999999997):
      // within a billionth of a step counts as on it.
      sides.push_back(distance <= 1e-9 * step ? "on" : (x < at ? "below" : "above"));
    }
  }
  return boundaries;
}

// The two hand calculations of the lesson, for every row: the sum of e^s from
// terms rounded to three decimals, and the output from weights rounded to three
// decimals (the values as given); then the full-precision results, rounded once,
// and where each result stands against the nearest rounding boundary.
HandRounded hand_rounded_of(const Pass& pass, const Matrix& values) {
  HandRounded hand;
  hand.decimals = hand_decimals;
  hand.exponentials = pass.exponentials.unaryExpr(&rounded_to_hand_decimals);
  hand.exponential_sums = hand.exponentials.rowwise().sum();
  hand.exponential_sums_rounded_once = pass.exponential_sums.unaryExpr(&rounded_to_hand_decimals);
  // How many steps of the last decimal the hand sum is off from the full sum rounded once.
  const double step = std::pow(10.0, -hand_decimals);
  hand.exponential_sum_steps_off =
      ((hand.exponential_sums_rounded_once - hand.exponential_sums) / step).array().round();
  hand.output = pass.steps.weights.unaryExpr(&rounded_to_hand_decimals) * values;
  hand.output_rounded_once = pass.steps.output.unaryExpr(&rounded_to_hand_decimals);
  hand.output_boundary = boundaries_of(hand.output);
  hand.full_output_boundary = boundaries_of(pass.steps.output);
  return hand;
}

ToyResult toy_of(const ToyInputs& inputs) {
  const Matrix& queries = inputs.tokens.queries;
  const Matrix& keys = inputs.tokens.keys;
  const Matrix& values = inputs.tokens.values;
  if (inputs.causal && queries.rows() != keys.rows()) {
    throw program::UsageError(fmt::format("--causal: a causal mask needs one query per key; got {} (--q) and {} (--k)",
                                          program::counted(queries.rows(), "query", "queries"),
                                          program::counted(keys.rows(), "key", "keys")));
  }

  // clang-format off
  // [compute]
  attention::AttentionOptions with_scale, without_scale;
  with_scale.scale = true;      // softmax(QKᵀ/√d_k)V, the paper's formula
  without_scale.scale = false;  // softmax(QKᵀ)V, for comparison
  if (inputs.causal) {          // hide the next words: −∞ above the diagonal, on both passes
    with_scale.mask = without_scale.mask = attention::causal_mask(queries.rows());
  }
  const Pass scaled = pass_of(  // the steps, and e^s and the sums for the tables
      attention::scaled_dot_product_attention(queries, keys, values, with_scale));
  const Pass unscaled = pass_of(
      attention::scaled_dot_product_attention(queries, keys, values, without_scale));
  // [compute]
  // clang-format on

  ToyResult toy{inputs, queries.cols(), std::sqrt(static_cast<double>(queries.cols())), scaled, unscaled, {}, {}};
  const Pass& main_pass = toy.main_pass();
  if (!main_pass.steps.output.allFinite()) {
    throw program::UsageError("--v: the weighted sum of the values overflows a double; use smaller values");
  }
  toy.largest_weight_on = program::largest_weight_labels(main_pass.steps.weights, inputs.tokens.key_labels);
  toy.hand_rounded = hand_rounded_of(main_pass, values);
  return toy;
}

// ---------------------------------------------------------------------------
// The saturation demo.

Eigen::RowVectorXd softmax_row(const Eigen::RowVectorXd& scores) {
  return attention::softmax_rows(Matrix(scores)).row(0);
}

// The slots (counted from 1) that share a row's largest weight. Equal scores
// give bit-for-bit equal weights, so a tie is an exact tie.
Largest largest_of(const Eigen::RowVectorXd& weights) {
  Largest largest{{}, weights.maxCoeff()};
  for (Eigen::Index j = 0; j < weights.size(); ++j) {
    if (weights(j) == largest.weight) largest.slots.push_back(j + 1);
  }
  return largest;
}

// Every value the demo computes must be a finite number; name the flag that made one overflow.
void require_finite(const Eigen::RowVectorXd& values, const std::string& flag, const std::string& what) {
  if (!values.allFinite()) {
    throw program::UsageError(fmt::format("{}: {} overflows a double; use smaller numbers", flag, what));
  }
}

SaturationResult saturation_of(const SaturationInputs& inputs) {
  SaturationResult result;
  result.inputs = inputs;
  const Eigen::RowVectorXd& scores = inputs.scores;
  const double divide = inputs.divide;
  const double add = inputs.add;

  // clang-format off
  // [saturation]
  const Eigen::RowVectorXd divided = scores / divide;
  Eigen::RowVectorXd scores_added = scores;
  Eigen::RowVectorXd divided_added = divided;
  scores_added(1) += add;   // slot two, large scores
  divided_added(1) += add;  // slot two, divided scores: the same amount, on their own scale
  // [saturation]
  // clang-format on
  require_finite(divided, "--divide", fmt::format("--scores divided by {}", inputs.divide_text));
  require_finite(scores_added, "--add", "slot two of --scores plus --add");
  require_finite(divided_added, "--add", "slot two of the divided scores plus --add");
  Eigen::RowVectorXd descending = scores;
  std::sort(descending.begin(), descending.end(), std::greater<>());
  result.lead = descending(0) - descending(1);
  result.divided = divided;
  result.scores_added = scores_added;
  result.divided_added = divided_added;

  result.weights_large = softmax_row(scores);
  result.weights_large_added = softmax_row(scores_added);
  result.weights_divided = softmax_row(divided);
  result.weights_divided_added = softmax_row(divided_added);
  result.large_change = result.weights_large_added(1) - result.weights_large(1);
  result.divided_change = result.weights_divided_added(1) - result.weights_divided(1);
  result.divided_change_over_large_change = result.divided_change / result.large_change;
  result.largest_large = largest_of(result.weights_large);
  result.largest_large_added = largest_of(result.weights_large_added);
  result.largest_divided = largest_of(result.weights_divided);
  result.largest_divided_added = largest_of(result.weights_divided_added);
  // [sensitivity]
  // How fast slot two's weight (index 1) moves with its own score: w₂ (1 − w₂).
  result.sensitivity_large = result.weights_large(1) * (1.0 - result.weights_large(1));
  result.sensitivity_divided = result.weights_divided(1) * (1.0 - result.weights_divided(1));
  // [sensitivity]
  result.sensitivity_divided_per_unit = result.sensitivity_divided / divide;
  if (!std::isfinite(result.sensitivity_divided_per_unit)) {
    throw program::UsageError(fmt::format(
        "--divide: {} is so close to 0 that slot two's sensitivity per unit of the original scores overflows a "
        "double; use a larger divisor",
        inputs.divide_text));
  }

  // The textbook formula on the large scores, evaluated as written. The
  // library's softmax_rows_unstable() is the same formula, but sums a row in
  // another order, so on rows of eight scores or more its last bit can differ.
  // clang-format off
  // [textbook]
  const Eigen::RowVectorXd exponentials = exponential_of(scores);  // e^s, as written
  const Eigen::RowVectorXd textbook = exponentials / exponentials.sum();
  // [textbook]
  // clang-format on
  result.exponentials = exponentials;
  result.textbook = textbook;
  result.shifted_exponentials = exponential_of(Eigen::RowVectorXd(scores.array() - scores.maxCoeff()));

  const double sweep_from = std::min(0.0, add);
  const double sweep_to = std::max(sweep_end, add);
  for (int point = 0; point < sweep_points; ++point) {
    const double amount =
        point == sweep_points - 1 ? sweep_to : sweep_from + (sweep_to - sweep_from) * point / (sweep_points - 1);
    Eigen::RowVectorXd large = scores, small = divided;
    large(1) += amount;
    small(1) += amount;
    require_finite(large, "--add", "slot two of --scores plus an amount in the sweep");
    require_finite(small, "--add", "slot two of the divided scores plus an amount in the sweep");
    result.sweep.push_back({amount, softmax_row(large), softmax_row(small)});
  }
  return result;
}

// ---------------------------------------------------------------------------
// JSON.

nlohmann::json pass_json(const Pass& pass) {
  return {
      {"scaled_scores", program::matrix_json(pass.steps.scaled_scores)},
      {"exponentials", program::matrix_json(pass.exponentials)},
      {"exponential_sums", program::row_json(pass.exponential_sums.transpose())},
      {"weights", program::matrix_json(pass.steps.weights)},
      {"row_sums", program::row_json(pass.row_sums.transpose())},
      {"column_sums", program::row_json(pass.column_sums)},
      {"smallest_weight", pass.smallest_weight},
      {"smallest_weight_at", {pass.smallest_row, pass.smallest_column}},
      {"zero_weights", pass.zero_weights},
      {"output", program::matrix_json(pass.steps.output)},
  };
}

nlohmann::json boundaries_json(const Boundaries& boundaries) {
  return {{"nearest", program::matrix_json(boundaries.nearest)},
          {"distance", program::matrix_json(boundaries.distance)},
          {"side", boundaries.side}};
}

nlohmann::json hand_rounded_json(const HandRounded& hand) {
  return {
      {"decimals", hand.decimals},
      {"exponentials", program::matrix_json(hand.exponentials)},
      {"exponential_sums", program::row_json(hand.exponential_sums.transpose())},
      {"exponential_sums_rounded_once", program::row_json(hand.exponential_sums_rounded_once.transpose())},
      {"exponential_sum_steps_off", program::row_json(hand.exponential_sum_steps_off.transpose())},
      {"output", program::matrix_json(hand.output)},
      {"output_rounded_once", program::matrix_json(hand.output_rounded_once)},
      {"output_boundary", boundaries_json(hand.output_boundary)},
      {"full_output_boundary", boundaries_json(hand.full_output_boundary)},
  };
}

nlohmann::json toy_json(const ToyResult& toy) {
  const program::AttentionInputs& tokens = toy.inputs.tokens;
  const Pass& main_pass = toy.main_pass();
  nlohmann::json document = {
      {"query_tokens", tokens.query_labels},
      {"key_tokens", tokens.key_labels},
      {"queries", program::matrix_json(tokens.queries)},
      {"keys", program::matrix_json(tokens.keys)},
      {"values", program::matrix_json(tokens.values)},
      {"scale", toy.inputs.scale},
      {"causal", toy.inputs.causal},
      {"d_k", toy.d_k},
      {"d_v", tokens.values.cols()},
      {"sqrt_d_k", toy.sqrt_d_k},
      {"scores", program::matrix_json(main_pass.steps.scores)},
  };
  document.update(pass_json(main_pass));
  document["largest_weight_on"] = toy.largest_weight_on;
  document["hand_rounded"] = hand_rounded_json(toy.hand_rounded);
  document["scaled"] = pass_json(toy.scaled);
  document["unscaled"] = pass_json(toy.unscaled);
  return document;
}

nlohmann::json largest_json(const Largest& largest) { return {{"slots", largest.slots}, {"weight", largest.weight}}; }

nlohmann::json saturation_json(const SaturationResult& result) {
  nlohmann::json sweep = nlohmann::json::array();
  for (const SweepPoint& point : result.sweep) {
    sweep.push_back({{"add", point.add},
                     {"weights_large", program::row_json(point.weights_large)},
                     {"weights_divided", program::row_json(point.weights_divided)}});
  }
  const auto vector = [](const Eigen::RowVectorXd& row) { return program::row_json(row); };
  return {{"saturation",
           {
               {"scores", vector(result.inputs.scores)},
               {"lead", result.lead},
               {"divide", result.inputs.divide},
               {"add", result.inputs.add},
               {"divided", vector(result.divided)},
               {"scores_added", vector(result.scores_added)},
               {"divided_added", vector(result.divided_added)},
               {"weights_large", vector(result.weights_large)},
               {"weights_large_added", vector(result.weights_large_added)},
               {"weights_divided", vector(result.weights_divided)},
               {"weights_divided_added", vector(result.weights_divided_added)},
               {"slot_two",
                {{"large_before", result.weights_large(1)},
                 {"large_after", result.weights_large_added(1)},
                 {"large_change", result.large_change},
                 {"divided_before", result.weights_divided(1)},
                 {"divided_after", result.weights_divided_added(1)},
                 {"divided_change", result.divided_change},
                 // How many times as far the divided side's weight moves ("inf" if the large side's does not move).
                 {"divided_change_over_large_change", program::number_json(result.divided_change_over_large_change)}}},
               {"largest",
                {{"large", largest_json(result.largest_large)},
                 {"large_added", largest_json(result.largest_large_added)},
                 {"divided", largest_json(result.largest_divided)},
                 {"divided_added", largest_json(result.largest_divided_added)}}},
               {"sensitivity",
                {{"large", result.sensitivity_large},
                 {"divided", result.sensitivity_divided},
                 {"divided_per_unit_of_scores", result.sensitivity_divided_per_unit},
                 // The comparisons the book draws, as ratios to the large side ("inf" when that is 0).
                 {"divided_over_large", program::number_json(result.sensitivity_divided / result.sensitivity_large)},
                 {"divided_per_unit_over_large",
                  program::number_json(result.sensitivity_divided_per_unit / result.sensitivity_large)}}},
               {"textbook",
                {{"exponentials", vector(result.exponentials)},
                 {"shifted_exponentials", vector(result.shifted_exponentials)},
                 {"weights", vector(result.textbook)},
                 {"stable_weights", vector(result.weights_large)},
                 {"largest_exponent", largest_exponent()},
                 {"smallest_exponent", smallest_exponent()}}},
               {"sweep", sweep},
           }}};
}

// ---------------------------------------------------------------------------
// Tables.

// A printed table with NaN spelled "NaN" (fmt prints inf/inf as "-nan").
std::string with_nan_spelled_out(std::string text) {
  for (const std::string nan : {"-nan", " nan"}) {
    for (std::size_t at = text.find(nan); at != std::string::npos; at = text.find(nan, at)) {
      text.replace(at, nan.size(), " NaN");
    }
  }
  return text;
}

// Printed tables next to each other, top-aligned, four spaces apart.
std::string side_by_side(const std::vector<std::string>& tables) {
  std::vector<std::vector<std::string>> lines(tables.size());
  std::vector<std::size_t> widths(tables.size(), 0);
  std::size_t height = 0;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    std::size_t start = 0;
    while (start < tables[t].size()) {
      const std::size_t end = tables[t].find('\n', start);
      lines[t].push_back(tables[t].substr(start, end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    for (const std::string& line : lines[t]) {
      widths[t] = std::max(widths[t], program::shown_width(line));
    }
    height = std::max(height, lines[t].size());
  }
  std::string text;
  for (std::size_t row = 0; row < height; ++row) {
    std::string line;
    for (std::size_t t = 0; t < tables.size(); ++t) {
      const std::string cell = row < lines[t].size() ? lines[t][row] : "";
      line += cell;
      if (t + 1 < tables.size()) line += std::string(widths[t] - program::shown_width(cell) + 4, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    text += line + '\n';
  }
  return text;
}

// Q, K and V, then steps 1 to 3 of the paper's Figure 2 (left).
std::string toy_inputs_and_scores(const ToyResult& toy) {
  const program::AttentionInputs& inputs = toy.inputs.tokens;
  const Pass& main = toy.main_pass();
  const std::vector<std::string>& askers = inputs.query_labels;
  const std::vector<std::string>& answerers = inputs.key_labels;
  const std::vector<std::string> input_tables = {
      program::table("Queries Q", inputs.queries, askers, program::numbered_labels("d", inputs.queries.cols())),
      program::table("Keys K", inputs.keys, answerers, program::numbered_labels("d", inputs.keys.cols())),
      program::table("Values V", inputs.values, answerers, program::numbered_labels("d", inputs.values.cols()))};
  std::string text = inputs.queries.cols() + inputs.keys.cols() + inputs.values.cols() <= 3 * max_columns_side_by_side
                         ? side_by_side(input_tables)
                         : input_tables[0] + '\n' + input_tables[1] + '\n' + input_tables[2];
  text += '\n';
  text += program::table("1. MatMul: scores QKᵀ (row = the token asking, column = the token answering)",
                         main.steps.scores, askers, answerers);
  text += '\n';
  if (toy.inputs.scale) {
    text += program::table(fmt::format("2. Scale: QKᵀ / √d_k, with d_k = {} and √d_k = {}",
                                       program::number_text(static_cast<double>(toy.d_k)),
                                       program::number_text(toy.sqrt_d_k)),
                           main.steps.scaled_scores, askers, answerers);
  } else {
    text += "2. Scale: off (--no-scale); the scores go into softmax unchanged\n";
  }
  if (toy.inputs.causal) {
    text += '\n';
    text += program::table("3. Mask (--causal): token i sees tokens 1 … i; the next words' scores become −∞",
                           main.steps.masked_scores, askers, answerers);
    text += '\n';
  } else {
    text += "\n3. Mask (opt.): none; every query may look at every key\n\n";
  }
  return text;
}

// Step 4, softmax: e^s (or e^(s − max s) when e^s would not print), then the weights.
std::string toy_softmax(const ToyResult& toy) {
  const Pass& main = toy.main_pass();
  const std::vector<std::string>& askers = toy.inputs.tokens.query_labels;
  const std::vector<std::string>& answerers = toy.inputs.tokens.key_labels;
  const Eigen::Index n = main.steps.weights.rows();
  const Eigen::Index m = main.steps.weights.cols();
  std::string text;
  std::vector<std::string> exponential_labels = answerers;
  exponential_labels.push_back("row sum");
  Matrix exponentials(n, m + 1);
  // A masked score (−∞) prints as e^s = 0; only the finite scores decide whether e^s prints.
  const Matrix& masked = main.steps.masked_scores;
  const double largest_finite = masked.array().isFinite().select(masked.cwiseAbs(), 0.0).maxCoeff();
  if (largest_finite <= max_printed_exponent) {
    exponentials << main.exponentials, main.exponential_sums;
    text +=
        program::table("4. SoftMax, per row: first e^s for each score s ...", exponentials, askers, exponential_labels);
  } else {
    // e^s would print with dozens of digits, or overflow: show what softmax_rows computes instead.
    const Matrix shifted =
        exponential_of(Matrix(main.steps.masked_scores.colwise() - main.steps.masked_scores.rowwise().maxCoeff()));
    exponentials << shifted, shifted.rowwise().sum();
    text += program::table("4. SoftMax, per row: first e^(s − the row's largest s) for each score s ...", exponentials,
                           askers, exponential_labels);
    text += fmt::format("   (e^s itself is too far from 1 to print here, and overflows a double above s = {};\n"
                        "   subtracting the row's largest score first changes no weight)\n",
                        program::number_text(largest_exponent()));
  }
  std::vector<std::string> weight_rows = askers;
  weight_rows.push_back("column sum");
  Matrix weights(n + 1, m + 1);
  weights << main.steps.weights, main.row_sums, main.column_sums, main.column_sums.sum();
  text += '\n';
  text += program::table("   ... then each divided by its row's sum: the weights", weights, weight_rows,
                         exponential_labels);
  text += fmt::format("   Smallest weight: {} ({} asks {}); weights exactly 0: {}\n\n",
                      main.smallest_weight == 0.0 || main.smallest_weight >= 1e-4
                          ? program::number_text(main.smallest_weight)
                          : fmt::format("{:.3e}", main.smallest_weight),
                      askers[static_cast<std::size_t>(main.smallest_row)],
                      answerers[static_cast<std::size_t>(main.smallest_column)],
                      main.zero_weights == 0 ? std::string("none") : std::to_string(main.zero_weights));
  return text;
}

// Step 5, the output; then the weights and outputs with and without the scale.
std::string toy_output_and_comparison(const ToyResult& toy) {
  const Pass& main = toy.main_pass();
  const std::vector<std::string>& askers = toy.inputs.tokens.query_labels;
  const std::vector<std::string>& answerers = toy.inputs.tokens.key_labels;
  const std::vector<std::string> output_columns = program::numbered_labels("d", main.steps.output.cols());
  std::string text = program::table("5. MatMul: output = weights · V, one row per token asking", main.steps.output,
                                    askers, output_columns);
  text += '\n';

  const std::string divided = "softmax(QKᵀ/√d_k)";
  const std::string undivided = "softmax(QKᵀ)";
  const std::vector<std::string> scaled_tables = {program::table("Weights " + divided, toy.scaled.steps.weights, askers,
                                                                 answerers),
                                                  program::table("Output " + divided + "V", toy.scaled.steps.output,
                                                                 askers, output_columns)};
  const std::vector<std::string> unscaled_tables = {program::table("Weights " + undivided, toy.unscaled.steps.weights,
                                                                   askers, answerers),
                                                    program::table("Output " + undivided + "V",
                                                                   toy.unscaled.steps.output, askers, output_columns)};
  // One above the other, each with its own title: the page lays the tables it shows side by side where its
  // column is wide enough, and one above the other on a phone (docs/_ext/book.py, the output directive).
  text += "The same vectors with and without the scale\n\n";
  text += scaled_tables[0] + '\n' + unscaled_tables[0] + '\n' + scaled_tables[1] + '\n' + unscaled_tables[1];
  return text;
}

std::string largest_text(const Largest& largest) {
  const std::vector<Eigen::Index>& slots = largest.slots;
  return fmt::format("{} {}{} ({})", slots.size() == 1 ? "slot" : "slots", program::listed(slots, "and"),
                     slots.size() == 1 ? "" : " tie", program::number_text(largest.weight));
}

std::string saturation_tables(const SaturationResult& result) {
  const SaturationInputs& inputs = result.inputs;
  const Eigen::Index slots = inputs.scores.size();
  const std::vector<std::string> slot_labels = program::numbered_labels("slot ", slots);
  const std::string plus = fmt::format("{:g}", inputs.add);  // as typed, near enough: 0.5, 1e-300
  const std::string divided_by = fmt::format("s / {:g}", inputs.divide);
  Matrix rows(8, slots);
  rows << inputs.scores, result.weights_large, result.scores_added, result.weights_large_added, result.divided,
      result.weights_divided, result.divided_added, result.weights_divided_added;
  // Short row labels: "s / 8, slot 2 + 0.5" keeps the table within a phone's narrow column.
  const std::string added_label = fmt::format(", slot 2 + {}", plus);
  std::string text = program::table(fmt::format("Saturation: scores s against {}, adding {} to slot two on both sides",
                                                divided_by, plus),
                                    rows,
                                    {"s", "  weights", "s" + added_label, "  weights", divided_by, "  weights",
                                     divided_by + added_label, "  weights"},
                                    slot_labels);
  text += '\n';
  // Each side on a line of its own under its heading, and a change of the largest weight over two lines,
  // so that the numbers stay within a phone's narrow column.
  const auto side = [](const char* name, const std::string& value) { return fmt::format("  {:<9}{}\n", name, value); };
  const auto changed = [](const std::string& before, const std::string& after) {
    return fmt::format("{}\n{:11}→ {}", before, "", after);
  };
  text += fmt::format("Slot two, adding {}:\n", plus);
  text += side("large", fmt::format("{} → {} ({:+.4f})", program::number_text(result.weights_large(1)),
                                    program::number_text(result.weights_large_added(1)), result.large_change));
  text += side("divided", fmt::format("{} → {} ({:+.4f})", program::number_text(result.weights_divided(1)),
                                      program::number_text(result.weights_divided_added(1)), result.divided_change));
  text += "Largest weight:\n";
  text += side("large", changed(largest_text(result.largest_large), largest_text(result.largest_large_added)));
  text += side("divided", changed(largest_text(result.largest_divided), largest_text(result.largest_divided_added)));
  text += "Sensitivity of slot two to its own score, w₂(1 − w₂):\n";
  text += side("large", program::number_text(result.sensitivity_large));
  text += side("divided", fmt::format("{} (per unit of s: {})", program::number_text(result.sensitivity_divided),
                                      program::number_text(result.sensitivity_divided_per_unit)));
  text += '\n';

  Matrix formulas(4, slots);
  formulas << result.exponentials, result.shifted_exponentials, result.textbook, result.weights_large;
  text += with_nan_spelled_out(program::table("The textbook formula against the stable one, on the scores s", formulas,
                                              {"e^s", "e^(s − max s)", "textbook e^s / Σ e^s", "stable softmax_rows"},
                                              slot_labels));
  if (!result.exponentials.allFinite() || result.exponentials.sum() == 0.0) {
    text += fmt::format("(e^s overflows to inf above s = {},\n"
                        " and underflows to 0 below s = {}; inf/inf and 0/0 are NaN.\n"
                        " softmax_rows exponentiates s − max s, which is never above 0,\n"
                        " and one term of its sum is exactly 1.)\n",
                        program::number_text(largest_exponent()), program::number_text(smallest_exponent()));
  }
  return text;
}

}  // namespace

Result compute(const Inputs& inputs) {
  Result result;
  result.demonstration = inputs.demonstration;
  if (inputs.demonstration == Demonstration::saturation) {
    result.saturation = saturation_of(inputs.saturation);
  } else {
    result.toy = toy_of(inputs.toy);
  }
  return result;
}

nlohmann::json to_json(const Result& result) {
  return result.demonstration == Demonstration::saturation ? saturation_json(result.saturation) : toy_json(result.toy);
}

std::string tables(const Result& result) {
  if (result.demonstration == Demonstration::saturation) {
    return saturation_tables(result.saturation);
  }
  return toy_inputs_and_scores(result.toy) + toy_softmax(result.toy) + toy_output_and_comparison(result.toy);
}

Flags::Flags(program::CommandLine& command_line)
    : command_line_(command_line), attention_flags_(command_line, /*with_values=*/true) {
  command_line.flag("--no-scale", no_scale_, "the toy: leave out the division by √d_k (softmax(QKᵀ)V)");
  command_line.flag("--causal", causal_, "the toy: hide the next words (token i sees tokens 1 … i; chapter 4)");
  command_line.option("--scores", scores_text_,
                      fmt::format("saturation demo: one row of 2 to {} scores, separated by ','",
                                  program::max_matrix_side),
                      "LIST");
  command_line.option("--divide", divide_text_, "saturation demo: divide the scores by this (finite, not 0)", "NUMBER");
  command_line.option("--add", add_text_, "saturation demo: add this to slot two on both sides (finite)", "NUMBER");
  for (const char* saturation_flag : {"--scores", "--divide", "--add"}) {
    command_line.excludes(saturation_flag, {"--q", "--k", "--v", "--tokens", "--no-scale", "--causal"});
  }
}

SaturationInputs Flags::read_saturation() const {
  const std::vector<double> typed = program::parse_numbers(scores_text_, "--scores");
  if (typed.size() < 2) {
    throw program::UsageError(
        "--scores: one number; expected at least 2, separated by ',' (the demo adds to slot two)");
  }
  SaturationInputs inputs;
  inputs.divide = program::parse_real_number(divide_text_, "--divide");
  if (inputs.divide == 0.0) {
    throw program::UsageError("--divide is 0; expected a finite number other than 0");
  }
  inputs.add = program::parse_real_number(add_text_, "--add");
  inputs.scores = Eigen::Map<const Eigen::RowVectorXd>(typed.data(), static_cast<Eigen::Index>(typed.size()));
  inputs.divide_text = divide_text_;
  return inputs;
}

Inputs Flags::read() const {
  Inputs inputs;
  if (command_line_.given("--scores") || command_line_.given("--divide") || command_line_.given("--add")) {
    inputs.demonstration = Demonstration::saturation;
    inputs.saturation = read_saturation();
  } else {
    inputs.toy.tokens = attention_flags_.read();
    inputs.toy.scale = !no_scale_;
    inputs.toy.causal = causal_;
  }
  return inputs;
}

namespace {

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// Two demonstrations; the flags choose which one runs.
//
// - The toy (no arguments, or any of --q --k --v --tokens --no-scale --causal): the
//   book's sentence "cat eat fish" (src/program/toy.hpp) through the whole
//   formula softmax(QKᵀ/√d_k)V, one table per box of the paper's Figure 2
//   (left), then the same vectors with and without the scale.
//   --no-scale makes softmax(QKᵀ)V the main result.
// - The saturation demo (any of --scores --divide --add): one row of scores s
//   against the same row divided by --divide, with --add added to slot two on
//   both sides (after the division on the divided side, as the hand-worked
//   lesson does); then the textbook formula e^s / Σ e^s against the stable one on s.
//
// --json prints the same values as one JSON document. The toy: `weights` and
// `output` at the top level (of the scaled run, or the unscaled one with
// --no-scale), every step of both runs under `scaled` and `unscaled`. The
// saturation demo: everything under `saturation`, including `sweep`, the
// weights for 41 added amounts from 0 to 2 (or to --add, if it lies outside).
// A value that is not finite (e^s that overflows, the textbook formula's NaN)
// is written as the string "inf", "-inf" or "NaN"; slots count from 1.
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "softmax",
    "Chapter 3 of Attention, Compiled: softmax and the weighted sum.\n"
    "Two demonstrations. With no arguments, or with --q --k --v --tokens --no-scale --causal: the toy through the\n"
    "whole formula softmax(QKᵀ/√d_k)V, step by step, and the same vectors with and without the scale. With any of\n"
    "--scores --divide --add: the saturation demo, one row of scores against the same row divided, with an amount\n"
    "added to slot two on both sides (default: 8,4,0 against 8,4,0 / 8, adding 0.5). The two sets of flags do not\n"
    "mix. --json prints the same values as one JSON document; the saturation demo's are under \"saturation\".",
    compute, to_json, tables);

}  // namespace

}  // namespace softmax
