// Chapter 3: softmax and the weighted sum.
//
// Two demonstrations; the flags choose which one runs.
//
// - The toy (no arguments, or any of --q --k --v --tokens --no-scale): the
//   book's sentence "cat eat fish" (src/program/toy.hpp) through the whole
//   formula softmax(QKᵀ/√d_k)V, one table per box of the paper's Figure 2
//   (left), then the same vectors with and without the scale, side by side.
//   --no-scale makes softmax(QKᵀ)V the main result.
// - The saturation demo (any of --scores --divide --add): one row of scores s
//   against the same row divided by --divide, with --add added to slot two on
//   both sides (after the division on the divided side, as the book's source
//   does); then the textbook formula e^s / Σ e^s against the stable one on s.
//
// --json prints the same values as one JSON document. The toy: `weights` and
// `output` at the top level (of the scaled run, or the unscaled one with
// --no-scale), every step of both runs under `scaled` and `unscaled`. The
// saturation demo: everything under `saturation`, including `sweep`, the
// weights for 41 added amounts from 0 to 2 (or to --add, if it lies outside).
// A value that is not finite (e^s that overflows, the textbook formula's NaN)
// is written as the string "inf", "-inf" or "NaN"; slots count from 1.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attention/attention.hpp"
#include "attention/softmax.hpp"
#include "program/attention_inputs.hpp"
#include "program/json_output.hpp"
#include "program/matrix_text.hpp"
#include "program/real_number.hpp"
#include "program/command_line.hpp"
#include "program/table.hpp"
#include "program/usage_error.hpp"

namespace {

using attention::Matrix;

// The saturation demo's defaults: the book's source (seed 000, Figure 2).
constexpr const char* default_scores = "8,4,0";
constexpr const char* default_divide = "8";
constexpr const char* default_add = "0.5";

// The sweep behind the saturation figure: this many added amounts, evenly
// spaced from 0 to sweep_end (stretched to take in --add if it lies outside).
constexpr int sweep_points = 41;
constexpr double sweep_end = 2.0;

// The toy prints e^s itself while every |s| is at most this (e^20 has 9 digits).
constexpr double max_printed_exponent = 20.0;

// Two tables go side by side when each has at most this many columns.
constexpr Eigen::Index max_columns_side_by_side = 6;

// A row for JSON: non-finite entries as program::number_json() writes them.
nlohmann::json row_json(const Eigen::RowVectorXd& row) { return program::matrix_json(row)[0]; }

// Where e^s stops being a usable double: above this it overflows to inf ...
double largest_exponent() { return std::log(std::numeric_limits<double>::max()); }
// ... and below this it rounds to exactly 0: e^s is then under half the
// smallest positive double, 2^−1075.
double smallest_exponent() { return -1075.0 * std::log(2.0); }

// e^x for every entry, with the C library's std::exp, one entry at a time.
// Eigen's own .exp() is faster but, where it vectorises, clamps its argument
// to about ±709.78: it never returns exactly 0, not even for −∞, and whether
// it vectorises depends on the build. The tables must not.
template <typename Entries>
auto exponential_of(const Entries& entries) {
  return entries.unaryExpr([](double x) { return std::exp(x); }).eval();
}

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
      // Width in characters on screen: count UTF-8 lead bytes only.
      const auto shown = static_cast<std::size_t>(
          std::count_if(line.begin(), line.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
      widths[t] = std::max(widths[t], shown);
    }
    height = std::max(height, lines[t].size());
  }
  std::string text;
  for (std::size_t row = 0; row < height; ++row) {
    std::string line;
    for (std::size_t t = 0; t < tables.size(); ++t) {
      const std::string cell = row < lines[t].size() ? lines[t][row] : "";
      const auto shown = static_cast<std::size_t>(
          std::count_if(cell.begin(), cell.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
      line += cell;
      if (t + 1 < tables.size()) line += std::string(widths[t] - shown + 4, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    text += line + '\n';
  }
  return text;
}

// ---------------------------------------------------------------------------
// The toy through the whole formula.

// What one pass through the formula shows besides AttentionSteps: the
// textbook numerators e^s of the scores going into softmax, and the sums.
struct Pass {
  attention::AttentionSteps steps;
  Matrix exponentials;                // e^s for each score s that enters softmax
  Eigen::VectorXd exponential_sums;   // one per row
  Eigen::VectorXd row_sums;           // of the weights: 1 each
  Eigen::RowVectorXd column_sums;     // of the weights: need not be 1
  double smallest_weight = 0.0;
  Eigen::Index smallest_row = 0, smallest_column = 0;
  Eigen::Index zero_weights = 0;      // weights that are exactly 0.0
};

Pass pass_of(attention::AttentionSteps steps) {
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

nlohmann::json pass_json(const Pass& pass) {
  return {
      {"scaled_scores", program::matrix_json(pass.steps.scaled_scores)},
      {"exponentials", program::matrix_json(pass.exponentials)},
      {"exponential_sums", row_json(pass.exponential_sums.transpose())},
      {"weights", program::matrix_json(pass.steps.weights)},
      {"row_sums", program::matrix_json(pass.row_sums.transpose())[0]},
      {"column_sums", program::matrix_json(pass.column_sums)[0]},
      {"smallest_weight", pass.smallest_weight},
      {"smallest_weight_at", {pass.smallest_row, pass.smallest_column}},
      {"zero_weights", pass.zero_weights},
      {"output", program::matrix_json(pass.steps.output)},
  };
}

// The key each row gives its largest weight, by name (the first, if several tie).
std::vector<std::string> largest_weight_on(const Matrix& weights, const std::vector<std::string>& answerers) {
  std::vector<std::string> names;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    Eigen::Index j = 0;
    weights.row(i).maxCoeff(&j);
    names.push_back(answerers[static_cast<std::size_t>(j)]);
  }
  return names;
}

// The hand-worked lesson's trap, computed rather than asserted: round every
// intermediate value to three decimals, as a hand calculation does, and see
// where the results land against the full-precision ones rounded once.
constexpr int hand_decimals = 3;

double rounded_to_hand_decimals(double x) {
  const double scale = std::pow(10.0, hand_decimals);
  return std::round(x * scale) / scale;
}

// Where x stands against the nearest rounding boundary at hand_decimals, the
// midpoint between two neighbouring roundings (0.3985 between 0.398 and 0.399).
struct Boundary {
  double at = 0.0;        // the nearest boundary
  double distance = 0.0;  // |x − boundary|
  std::string side;       // "below", "above", or "on" it
};

Boundary boundary_of(double x) {
  const double step = std::pow(10.0, -hand_decimals);
  Boundary boundary;
  boundary.at = (std::round(x / step - 0.5) + 0.5) * step;
  boundary.distance = std::abs(x - boundary.at);
  // A sum of numbers with three decimals lands on a boundary only up to the
  // rounding of binary fractions (0.198 + 0.2005 is 0.39849999999999997):
  // within a billionth of a step counts as on it.
  if (boundary.distance <= 1e-9 * step) {
    boundary.side = "on";
  } else {
    boundary.side = x < boundary.at ? "below" : "above";
  }
  return boundary;
}

nlohmann::json boundaries_json(const Matrix& entries) {
  nlohmann::json at = nlohmann::json::array(), distance = nlohmann::json::array(), side = nlohmann::json::array();
  for (Eigen::Index i = 0; i < entries.rows(); ++i) {
    nlohmann::json at_row = nlohmann::json::array(), distance_row = nlohmann::json::array(),
                   side_row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < entries.cols(); ++j) {
      const Boundary boundary = boundary_of(entries(i, j));
      at_row.push_back(program::number_json(boundary.at));
      distance_row.push_back(program::number_json(boundary.distance));
      side_row.push_back(boundary.side);
    }
    at.push_back(at_row);
    distance.push_back(distance_row);
    side.push_back(side_row);
  }
  return {{"nearest", at}, {"distance", distance}, {"side", side}};
}

// The two hand calculations of the lesson, for every row: the sum of e^s from
// terms rounded to three decimals, and the output from weights rounded to three
// decimals (the values as given); then the full-precision results, rounded once,
// and where each result stands against the nearest rounding boundary.
nlohmann::json hand_rounded_json(const Pass& pass, const Matrix& values) {
  const Matrix exponentials = pass.exponentials.unaryExpr(&rounded_to_hand_decimals);
  const Eigen::VectorXd exponential_sums = exponentials.rowwise().sum();
  const Matrix output = pass.steps.weights.unaryExpr(&rounded_to_hand_decimals) * values;
  const Eigen::VectorXd full_sums = pass.exponential_sums.unaryExpr(&rounded_to_hand_decimals);
  // How many steps of the last decimal the hand sum is off from the full sum rounded once.
  const double step = std::pow(10.0, -hand_decimals);
  const Eigen::VectorXd steps_off = ((full_sums - exponential_sums) / step).array().round();
  return {
      {"decimals", hand_decimals},
      {"exponentials", program::matrix_json(exponentials)},
      {"exponential_sums", row_json(exponential_sums.transpose())},
      {"exponential_sums_rounded_once", row_json(full_sums.transpose())},
      {"exponential_sum_steps_off", row_json(steps_off.transpose())},
      {"output", program::matrix_json(output)},
      {"output_rounded_once", program::matrix_json(pass.steps.output.unaryExpr(&rounded_to_hand_decimals))},
      {"output_boundary", boundaries_json(output)},
      {"full_output_boundary", boundaries_json(pass.steps.output)},
  };
}

// The first score that is not finite, named for the reader.
void print_toy(const program::AttentionInputs& inputs, const Pass& main, const Pass& scaled, const Pass& unscaled,
               bool scale) {
  const std::vector<std::string>& askers = inputs.query_labels;
  const std::vector<std::string>& answerers = inputs.key_labels;
  const Eigen::Index n = main.steps.weights.rows();
  const Eigen::Index m = main.steps.weights.cols();
  const double d_k = static_cast<double>(inputs.queries.cols());

  std::vector<std::string> input_tables = {
      program::table("Queries Q", inputs.queries, askers, program::numbered_labels("d", inputs.queries.cols())),
      program::table("Keys K", inputs.keys, answerers, program::numbered_labels("d", inputs.keys.cols())),
      program::table("Values V", inputs.values, answerers, program::numbered_labels("d", inputs.values.cols()))};
  std::cout << (inputs.queries.cols() + inputs.keys.cols() + inputs.values.cols() <= 3 * max_columns_side_by_side
                    ? side_by_side(input_tables)
                    : input_tables[0] + '\n' + input_tables[1] + '\n' + input_tables[2])
            << '\n';

  std::cout << program::table("1. MatMul: scores QKᵀ (row = the token asking, column = the token answering)",
                              main.steps.scores, askers, answerers)
            << '\n';
  if (scale) {
    std::cout << program::table(fmt::format("2. Scale: QKᵀ / √d_k, with d_k = {} and √d_k = {}",
                                            program::number_text(d_k), program::number_text(std::sqrt(d_k))),
                                main.steps.scaled_scores, askers, answerers);
  } else {
    std::cout << "2. Scale: off (--no-scale); the scores go into softmax unchanged\n";
  }
  std::cout << "\n3. Mask (opt.): none; every query may look at every key\n\n";

  std::vector<std::string> exponential_labels = answerers;
  exponential_labels.push_back("row sum");
  Matrix exponentials(n, m + 1);
  if (main.steps.masked_scores.cwiseAbs().maxCoeff() <= max_printed_exponent) {
    exponentials << main.exponentials, main.exponential_sums;
    std::cout << program::table("4. SoftMax, per row: first e^s for each score s ...", exponentials, askers,
                                exponential_labels);
  } else {
    // e^s would print with dozens of digits, or overflow: show what softmax_rows computes instead.
    const Matrix shifted =
        exponential_of(Matrix(main.steps.masked_scores.colwise() - main.steps.masked_scores.rowwise().maxCoeff()));
    exponentials << shifted, shifted.rowwise().sum();
    std::cout << program::table("4. SoftMax, per row: first e^(s − the row's largest s) for each score s ...",
                                exponentials, askers, exponential_labels)
              << fmt::format("   (e^s itself is too far from 1 to print here, and overflows a double above s = {};\n"
                             "   subtracting the row's largest score first changes no weight)\n",
                             program::number_text(largest_exponent()));
  }
  std::vector<std::string> weight_rows = askers;
  weight_rows.push_back("column sum");
  Matrix weights(n + 1, m + 1);
  weights << main.steps.weights, main.row_sums, main.column_sums, main.column_sums.sum();
  std::cout << '\n'
            << program::table("   ... then each divided by its row's sum: the weights", weights, weight_rows,
                              exponential_labels);
  std::cout << fmt::format("   Smallest weight: {} ({} asks {}); weights exactly 0: {}\n\n",
                           main.smallest_weight == 0.0 || main.smallest_weight >= 1e-4
                               ? program::number_text(main.smallest_weight)
                               : fmt::format("{:.3e}", main.smallest_weight),
                           askers[static_cast<std::size_t>(main.smallest_row)],
                           answerers[static_cast<std::size_t>(main.smallest_column)],
                           main.zero_weights == 0 ? std::string("none") : std::to_string(main.zero_weights));

  std::cout << program::table("5. MatMul: output = weights · V, one row per token asking", main.steps.output, askers,
                              program::numbered_labels("d", main.steps.output.cols()))
            << '\n';

  const std::string divided = "softmax(QKᵀ/√d_k)";
  const std::string undivided = "softmax(QKᵀ)";
  const std::vector<std::string> output_columns = program::numbered_labels("d", main.steps.output.cols());
  const std::vector<std::string> scaled_tables = {
      program::table("Weights " + divided, scaled.steps.weights, askers, answerers),
      program::table("Output " + divided + "V", scaled.steps.output, askers, output_columns)};
  const std::vector<std::string> unscaled_tables = {
      program::table("Weights " + undivided, unscaled.steps.weights, askers, answerers),
      program::table("Output " + undivided + "V", unscaled.steps.output, askers, output_columns)};
  std::cout << "The same vectors with and without the scale, side by side\n\n";
  if (m <= max_columns_side_by_side && main.steps.output.cols() <= max_columns_side_by_side) {
    std::cout << side_by_side({scaled_tables[0], unscaled_tables[0]}) << '\n'
              << side_by_side({scaled_tables[1], unscaled_tables[1]});
  } else {
    std::cout << scaled_tables[0] << '\n' << unscaled_tables[0] << '\n' << scaled_tables[1] << '\n'
              << unscaled_tables[1];
  }
}

// ---------------------------------------------------------------------------
// The saturation demo.

// The slots (counted from 1) that share a row's largest weight. Equal scores
// give bit-for-bit equal weights, so a tie is an exact tie.
std::vector<Eigen::Index> largest_slots(const Eigen::RowVectorXd& weights) {
  const double largest = weights.maxCoeff();
  std::vector<Eigen::Index> slots;
  for (Eigen::Index j = 0; j < weights.size(); ++j) {
    if (weights(j) == largest) slots.push_back(j + 1);
  }
  return slots;
}

nlohmann::json largest_json(const Eigen::RowVectorXd& weights) {
  return {{"slots", largest_slots(weights)}, {"weight", weights.maxCoeff()}};
}

std::string largest_text(const Eigen::RowVectorXd& weights) {
  const std::vector<Eigen::Index> slots = largest_slots(weights);
  std::string names;
  for (std::size_t s = 0; s < slots.size(); ++s) {
    names += fmt::format("{}{}", s == 0 ? "" : (s + 1 == slots.size() ? " and " : ", "), slots[s]);
  }
  return fmt::format("{} {}{} ({})", slots.size() == 1 ? "slot" : "slots", names, slots.size() == 1 ? "" : " tie",
                     program::number_text(weights.maxCoeff()));
}

Eigen::RowVectorXd softmax_row(const Eigen::RowVectorXd& scores) {
  return attention::softmax_rows(Matrix(scores)).row(0);
}

// Every value the demo computes must be a finite number; name the flag that made one overflow.
void require_finite(const Eigen::RowVectorXd& values, const std::string& flag, const std::string& what) {
  if (!values.allFinite()) {
    throw program::UsageError(fmt::format("{}: {} overflows a double; use smaller numbers", flag, what));
  }
}

void saturation(const std::string& scores_text, const std::string& divide_text, const std::string& add_text,
                bool json) {
  const std::vector<double> typed = program::parse_numbers(scores_text, "--scores");
  if (typed.size() < 2) {
    throw program::UsageError("--scores: one number; expected at least 2, separated by ',' (the demo adds to slot two)");
  }
  const double divide = program::parse_real_number(divide_text, "--divide");
  if (divide == 0.0) {
    throw program::UsageError("--divide is 0; expected a finite number other than 0");
  }
  const double add = program::parse_real_number(add_text, "--add");
  const auto slots = static_cast<Eigen::Index>(typed.size());
  const Eigen::RowVectorXd scores = Eigen::Map<const Eigen::RowVectorXd>(typed.data(), slots);

  // [saturation]
  const Eigen::RowVectorXd divided = scores / divide;
  Eigen::RowVectorXd scores_added = scores;
  Eigen::RowVectorXd divided_added = divided;
  scores_added(1) += add;   // slot two, large scores
  divided_added(1) += add;  // slot two, divided scores: the same amount, on their own scale
  // [saturation]
  require_finite(divided, "--divide", fmt::format("--scores divided by {}", divide_text));
  require_finite(scores_added, "--add", "slot two of --scores plus --add");
  require_finite(divided_added, "--add", "slot two of the divided scores plus --add");

  const Eigen::RowVectorXd weights_large = softmax_row(scores);
  const Eigen::RowVectorXd weights_large_added = softmax_row(scores_added);
  const Eigen::RowVectorXd weights_divided = softmax_row(divided);
  const Eigen::RowVectorXd weights_divided_added = softmax_row(divided_added);
  // ∂w₂/∂s₂ = w₂(1 − w₂): how fast slot two's weight moves with its own score.
  const double sensitivity_large = weights_large(1) * (1.0 - weights_large(1));
  const double sensitivity_divided = weights_divided(1) * (1.0 - weights_divided(1));
  if (!std::isfinite(sensitivity_divided / divide)) {
    throw program::UsageError(fmt::format(
        "--divide: {} is so close to 0 that slot two's sensitivity per unit of the original scores overflows a "
        "double; use a larger divisor",
        divide_text));
  }

  // The textbook formula on the large scores, against the stable one.
  // [textbook]
  const Eigen::RowVectorXd exponentials = exponential_of(scores);  // e^s, as written
  const Eigen::RowVectorXd textbook = exponentials / exponentials.sum();
  // [textbook]
  const Eigen::RowVectorXd shifted_exponentials = exponential_of(Eigen::RowVectorXd(scores.array() - scores.maxCoeff()));

  const double sweep_from = std::min(0.0, add);
  const double sweep_to = std::max(sweep_end, add);
  nlohmann::json sweep = nlohmann::json::array();
  for (int point = 0; point < sweep_points; ++point) {
    const double amount = point == sweep_points - 1
                              ? sweep_to
                              : sweep_from + (sweep_to - sweep_from) * point / (sweep_points - 1);
    Eigen::RowVectorXd large = scores, small = divided;
    large(1) += amount;
    small(1) += amount;
    require_finite(large, "--add", "slot two of --scores plus an amount in the sweep");
    require_finite(small, "--add", "slot two of the divided scores plus an amount in the sweep");
    sweep.push_back({{"add", amount},
                     {"weights_large", program::matrix_json(softmax_row(large))[0]},
                     {"weights_divided", program::matrix_json(softmax_row(small))[0]}});
  }

  if (json) {
    const auto vector = [](const Eigen::RowVectorXd& row) { return program::matrix_json(row)[0]; };
    const nlohmann::json document = {
        {"saturation",
         {
             {"scores", vector(scores)},
             {"divide", divide},
             {"add", add},
             {"divided", vector(divided)},
             {"scores_added", vector(scores_added)},
             {"divided_added", vector(divided_added)},
             {"weights_large", vector(weights_large)},
             {"weights_large_added", vector(weights_large_added)},
             {"weights_divided", vector(weights_divided)},
             {"weights_divided_added", vector(weights_divided_added)},
             {"slot_two",
              {{"large_before", weights_large(1)},
               {"large_after", weights_large_added(1)},
               {"large_change", weights_large_added(1) - weights_large(1)},
               {"divided_before", weights_divided(1)},
               {"divided_after", weights_divided_added(1)},
               {"divided_change", weights_divided_added(1) - weights_divided(1)},
               // How many times as far the divided side's weight moves ("inf" if the large side's does not move).
               {"divided_change_over_large_change",
                program::number_json((weights_divided_added(1) - weights_divided(1)) /
                                     (weights_large_added(1) - weights_large(1)))}}},
             {"largest",
              {{"large", largest_json(weights_large)},
               {"large_added", largest_json(weights_large_added)},
               {"divided", largest_json(weights_divided)},
               {"divided_added", largest_json(weights_divided_added)}}},
             {"sensitivity",
              {{"large", sensitivity_large},
               {"divided", sensitivity_divided},
               {"divided_per_unit_of_scores", sensitivity_divided / divide},
               // The comparisons the book draws, as ratios to the large side ("inf" when that is 0).
               {"divided_over_large", program::number_json(sensitivity_divided / sensitivity_large)},
               {"divided_per_unit_over_large",
                program::number_json(sensitivity_divided / divide / sensitivity_large)}}},
             {"textbook",
              {{"exponentials", row_json(exponentials)},
               {"shifted_exponentials", vector(shifted_exponentials)},
               {"weights", row_json(textbook)},
               {"stable_weights", vector(weights_large)},
               {"largest_exponent", largest_exponent()},
               {"smallest_exponent", smallest_exponent()}}},
             {"sweep", sweep},
         }}};
    std::cout << document.dump(2) << '\n';
    return;
  }

  const std::vector<std::string> slot_labels = program::numbered_labels("slot ", slots);
  const std::string plus = fmt::format("{:g}", add);  // as typed, near enough: 0.5, 1e-300
  const std::string divided_by = fmt::format("s / {:g}", divide);
  Matrix rows(8, slots);
  rows << scores, weights_large, scores_added, weights_large_added, divided, weights_divided, divided_added,
      weights_divided_added;
  const std::string added_label = fmt::format(" + {} at slot 2", plus);
  std::cout << program::table(fmt::format("Saturation: scores s against {}, adding {} to slot two on both sides",
                                          divided_by, plus),
                              rows,
                              {"s", "  weights", "s" + added_label, "  weights", divided_by, "  weights",
                               divided_by + added_label, "  weights"},
                              slot_labels)
            << '\n';
  const std::string indent(24, ' ');
  std::cout << fmt::format("{:<24}large {} → {} ({:+.4f})\n{}divided {} → {} ({:+.4f})\n",
                           fmt::format("Slot two, adding {}:", plus), program::number_text(weights_large(1)),
                           program::number_text(weights_large_added(1)), weights_large_added(1) - weights_large(1),
                           indent, program::number_text(weights_divided(1)),
                           program::number_text(weights_divided_added(1)), weights_divided_added(1) - weights_divided(1));
  std::cout << fmt::format("{:<24}large {} → {}\n{}divided {} → {}\n", "Largest weight:", largest_text(weights_large),
                           largest_text(weights_large_added), indent, largest_text(weights_divided),
                           largest_text(weights_divided_added));
  std::cout << fmt::format("Sensitivity of slot two to its own score, w₂(1 − w₂):\n"
                           "{}large {}; divided {} (per unit of s: {})\n\n",
                           indent, program::number_text(sensitivity_large), program::number_text(sensitivity_divided),
                           program::number_text(sensitivity_divided / divide));

  Matrix formulas(4, slots);
  formulas << exponentials, shifted_exponentials, textbook, weights_large;
  std::cout << with_nan_spelled_out(program::table(
      "The textbook formula against the stable one, on the scores s", formulas,
      {"e^s", "e^(s − max s)", "textbook e^s / Σ e^s", "stable softmax_rows"}, slot_labels));
  if (!exponentials.allFinite() || exponentials.sum() == 0.0) {
    std::cout << fmt::format(
        "(e^s overflows to inf above s = {},\n"
        " and underflows to 0 below s = {}; inf/inf and 0/0 are NaN.\n"
        " softmax_rows exponentiates s − max s, which is never above 0,\n"
        " and one term of its sum is exactly 1.)\n",
        program::number_text(largest_exponent()), program::number_text(smallest_exponent()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  program::CommandLine command_line{
      "softmax",
      "Chapter 3 of Attention, Compiled: softmax and the weighted sum.\n"
      "Two demonstrations. With no arguments, or with --q --k --v --tokens --no-scale: the toy through the whole\n"
      "formula softmax(QKᵀ/√d_k)V, step by step, and the same vectors with and without the scale. With any of\n"
      "--scores --divide --add: the saturation demo, one row of scores against the same row divided, with an amount\n"
      "added to slot two on both sides (default: 8,4,0 against 8,4,0 / 8, adding 0.5). The two sets of flags do not\n"
      "mix. --json prints the same values as one JSON document; the saturation demo's are under \"saturation\"."};
  program::AttentionFlags inputs_flags(command_line, /*with_values=*/true);
  bool no_scale = false;
  command_line.flag("--no-scale", no_scale, "the toy: leave out the division by √d_k (softmax(QKᵀ)V)");
  std::string scores_text = default_scores, divide_text = default_divide, add_text = default_add;
  command_line.option("--scores", scores_text, "saturation demo: one row of scores, separated by ','", "LIST");
  command_line.option("--divide", divide_text, "saturation demo: divide the scores by this (finite, not 0)",
                      "NUMBER");
  command_line.option("--add", add_text, "saturation demo: add this to slot two on both sides (finite)", "NUMBER");
  for (const char* saturation_flag : {"--scores", "--divide", "--add"}) {
    command_line.excludes(saturation_flag, {"--q", "--k", "--v", "--tokens", "--no-scale"});
  }
  bool json = false;
  command_line.flag("--json", json, "print the values as one JSON document instead of tables");

  return command_line.run(argc, argv, [&] {
    if (command_line.given("--scores") || command_line.given("--divide") || command_line.given("--add")) {
      saturation(scores_text, divide_text, add_text, json);
      return;
    }

    const program::AttentionInputs inputs = inputs_flags.read();
    const Matrix& queries = inputs.queries;
    const Matrix& keys = inputs.keys;
    const Matrix& values = inputs.values;

    // [compute]
    attention::AttentionOptions with_scale, without_scale;
    with_scale.scale = true;      // softmax(QKᵀ/√d_k)V, the paper's formula
    without_scale.scale = false;  // softmax(QKᵀ)V, for comparison
    const Pass scaled = pass_of(  // the steps, and e^s and the sums for the tables
        attention::scaled_dot_product_attention(queries, keys, values, with_scale));
    const Pass unscaled = pass_of(
        attention::scaled_dot_product_attention(queries, keys, values, without_scale));
    // [compute]
    const Pass& main_pass = no_scale ? unscaled : scaled;
    if (!main_pass.steps.output.allFinite()) {
      throw program::UsageError("--v: the weighted sum of the values overflows a double; use smaller values");
    }

    if (json) {
      nlohmann::json document = {
          {"query_tokens", inputs.query_labels},
          {"key_tokens", inputs.key_labels},
          {"queries", program::matrix_json(queries)},
          {"keys", program::matrix_json(keys)},
          {"values", program::matrix_json(values)},
          {"scale", !no_scale},
          {"d_k", queries.cols()},
          {"sqrt_d_k", std::sqrt(static_cast<double>(queries.cols()))},
          {"scores", program::matrix_json(main_pass.steps.scores)},
      };
      document.update(pass_json(main_pass));
      document["largest_weight_on"] = largest_weight_on(main_pass.steps.weights, inputs.key_labels);
      document["hand_rounded"] = hand_rounded_json(main_pass, values);
      document["scaled"] = pass_json(scaled);
      document["unscaled"] = pass_json(unscaled);
      std::cout << document.dump(2) << '\n';
      return;
    }
    print_toy(inputs, main_pass, scaled, unscaled, !no_scale);
  });
}
