#include "positional_encoding.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/SparseCore>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "attention/positional_encoding.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/matrix_text.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace positional_encoding {
namespace {

using attention::AttentionSteps;
using attention::Matrix;

// The largest sizes the program takes. 1024 positions is as long as any
// matrix a flag accepts; 512 is the paper's d_model for its base model.
constexpr std::uint64_t max_positions = static_cast<std::uint64_t>(program::max_matrix_side);
constexpr std::uint64_t max_d_model = 512;
constexpr std::uint64_t max_shift = static_cast<std::uint64_t>(program::max_matrix_side);

// The grid of the checks: every position pos from 0 to grid_size − 1 against
// every offset k from 0 to grid_size − 1.
constexpr Eigen::Index grid_size = 128;
// The dot-product table prints k = 0 … printed_offsets − 1.
constexpr Eigen::Index printed_offsets = 11;
// M_k is printed in full up to this width; wider, only its blocks.
constexpr Eigen::Index max_printed_map = 16;

// ---------------------------------------------------------------------------
// Small helpers.

Eigen::Index as_index(std::uint64_t value) { return static_cast<Eigen::Index>(value); }
std::size_t as_size(Eigen::Index value) { return static_cast<std::size_t>(value); }

// A difference as the summaries print it: exactly 0 said plainly, a tiny one
// in scientific notation, any other rounded like the tables.
std::string small_text(double value) {
  if (value == 0.0) return "0 (exactly)";
  return value < 1e-3 ? fmt::format("{:.1e}", value) : program::number_text(value);
}

// How many representable doubles lie between a and b: 0 when equal, 1 for
// neighbours. (The bit patterns of doubles, read as integers, are in order
// for each sign; negative ones are flipped so that the order runs through 0.)
std::uint64_t units_in_last_place(double a, double b) {
  const auto ordered = [](double x) {
    std::int64_t bits = 0;  // std::memcpy, not std::bit_cast: emscripten's C++ library has no bit_cast
    std::memcpy(&bits, &x, sizeof bits);
    return bits < 0 ? std::numeric_limits<std::int64_t>::min() - bits : bits;
  };
  const std::int64_t low = std::min(ordered(a), ordered(b)), high = std::max(ordered(a), ordered(b));
  return static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
}

// Column labels "0 sin", "1 cos", "2 sin", …: dimension 2i holds a sine, 2i + 1 a cosine.
std::vector<std::string> dimension_labels(Eigen::Index d_model) {
  std::vector<std::string> labels;
  for (Eigen::Index j = 0; j < d_model; ++j) {
    labels.push_back(fmt::format("{} {}", j, j % 2 == 0 ? "sin" : "cos"));
  }
  return labels;
}

// Row labels: "0 We", "1 are", … with a sentence; "0", "1", … without.
std::vector<std::string> position_labels(Eigen::Index positions, const std::vector<std::string>& words) {
  std::vector<std::string> labels;
  for (Eigen::Index pos = 0; pos < positions; ++pos) {
    labels.push_back(words.empty() ? fmt::format("{}", pos) : fmt::format("{} {}", pos, words[as_size(pos)]));
  }
  return labels;
}

nlohmann::json vector_json(const Eigen::VectorXd& vector) { return program::matrix_json(vector.transpose())[0]; }

// ---------------------------------------------------------------------------
// The encoding.

ShiftCheck check_shift(const Matrix& encoding, Eigen::Index offset, const Matrix& grid) {
  const Eigen::Index positions = encoding.rows(), d_model = encoding.cols();
  ShiftCheck check;
  check.offset = offset;
  check.map = attention::shift_map(offset, d_model);
  check.shifted = encoding * check.map;                                                // row pos: PE(pos) · M_k
  const Matrix expected = attention::positional_encoding(positions, d_model, offset);  // row pos: PE(pos + k)
  check.table_error = (check.shifted - expected).cwiseAbs().maxCoeff();
  // The grid multiplies by the same matrices stored without their zeros (all
  // but two entries per row and column are exactly 0): the same products,
  // 2·d_model multiplications per row instead of d_model², so that
  // d_model = 512 takes a moment even in a debugging build.
  const Matrix first = grid.topRows(grid_size);
  for (Eigen::Index k = 0; k < grid_size; ++k) {
    const Eigen::SparseMatrix<double> map = attention::shift_map(k, d_model).sparseView();
    const auto later = grid.middleRows(k, grid_size);
    check.grid_error = std::max(check.grid_error, (first * map - later).cwiseAbs().maxCoeff());
    const Eigen::SparseMatrix<double> transposed = map.transpose();
    check.transposed_grid_error =
        std::max(check.transposed_grid_error, (first * transposed - later).cwiseAbs().maxCoeff());
  }
  return check;
}

Similarity similarity_of(const Matrix& grid) {
  Similarity similarity;
  similarity.at_first_position.resize(grid_size);
  similarity.smallest.resize(grid_size);
  similarity.largest.resize(grid_size);
  const Matrix first = grid.topRows(grid_size);
  for (Eigen::Index k = 0; k < grid_size; ++k) {
    // clang-format off
    // [similarity]
    // Row pos of `first` is PE(pos); row pos of `later` is PE(pos + k).
    const auto later = grid.middleRows(k, grid_size);
    const Eigen::VectorXd dot_products = first.cwiseProduct(later).rowwise().sum();
    // [similarity]
    // clang-format on
    similarity.at_first_position(k) = dot_products(0);
    similarity.smallest(k) = dot_products.minCoeff();
    similarity.largest(k) = dot_products.maxCoeff();
    similarity.largest_spread = std::max(similarity.largest_spread, similarity.largest(k) - similarity.smallest(k));
  }
  return similarity;
}

EncodingResult compute_encoding(const EncodingInputs& inputs) {
  EncodingResult result;
  result.inputs = inputs;
  const Eigen::Index d_model = inputs.d_model, pairs = d_model / 2;
  result.encoding = attention::positional_encoding(inputs.positions, d_model);
  result.frequencies.resize(pairs);
  result.wavelengths.resize(pairs);
  for (Eigen::Index i = 0; i < pairs; ++i) {
    result.frequencies(i) = attention::angular_frequency(i, d_model);
    result.wavelengths(i) = 2.0 * std::numbers::pi / result.frequencies(i);
  }
  result.ratio = std::pow(attention::positional_encoding_base, 2.0 / static_cast<double>(d_model));
  const Matrix grid = attention::positional_encoding(2 * grid_size - 1, d_model);  // PE(0) … PE(2·grid_size − 2)
  result.shift = check_shift(result.encoding, inputs.offset, grid);
  result.similarity = similarity_of(grid);
  return result;
}

nlohmann::json shift_json(const ShiftCheck& shift) {
  // The scale of rounding on the grid: the largest angle it reaches,
  // (2·grid_size − 2) radians for pair 0, and the spacing of doubles there.
  const auto largest_grid_angle = static_cast<double>(2 * grid_size - 2);
  const double largest_grid_angle_spacing =
      std::nextafter(largest_grid_angle, std::numeric_limits<double>::infinity()) - largest_grid_angle;
  return {{"k", shift.offset},
          {"map", program::matrix_json(shift.map)},
          {"shifted", program::matrix_json(shift.shifted)},
          {"table_error", shift.table_error},
          {"grid_positions", grid_size},
          {"grid_offsets", grid_size},
          {"grid_error", shift.grid_error},
          {"transposed_grid_error", shift.transposed_grid_error},
          {"largest_angle", largest_grid_angle},
          {"angle_spacing", largest_grid_angle_spacing},
          {"grid_error_spacings", shift.grid_error / largest_grid_angle_spacing},
          {"transposed_grid_error_spacings", shift.transposed_grid_error / largest_grid_angle_spacing}};
}

nlohmann::json encoding_json(const EncodingResult& result) {
  const Eigen::Index pairs = result.inputs.d_model / 2;
  nlohmann::json pair_rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < pairs; ++i) {
    pair_rows.push_back({{"pair", i},
                         {"dimensions", {2 * i, 2 * i + 1}},
                         {"frequency", result.frequencies(i)},
                         {"wavelength", result.wavelengths(i)},
                         {"wavelength_over_2pi", result.wavelengths(i) / (2.0 * std::numbers::pi)}});
  }
  nlohmann::json offsets = nlohmann::json::array();
  for (Eigen::Index k = 0; k < grid_size; ++k) offsets.push_back(k);
  const Similarity& similarity = result.similarity;
  return {
      {"mode", "encoding"},
      {"d_model", result.inputs.d_model},
      {"positions", result.inputs.positions},
      {"words", result.inputs.words},
      {"base", attention::positional_encoding_base},
      {"pe", program::matrix_json(result.encoding)},
      {"pairs", pair_rows},
      {"wavelength_ratio", result.ratio},
      {"longest_wavelength_over_2pi", result.wavelengths(pairs - 1) / (2.0 * std::numbers::pi)},
      {"shift", shift_json(result.shift)},
      {"similarity",
       {{"offsets", offsets},
        {"at_position_0", vector_json(similarity.at_first_position)},
        {"smallest", vector_json(similarity.smallest)},
        {"largest", vector_json(similarity.largest)},
        {"grid_positions", grid_size},
        {"largest_spread", similarity.largest_spread}}},
  };
}

// The table of PE and the wavelength of each pair (without --shift).
std::string encoding_text(const EncodingResult& result) {
  const Eigen::Index d_model = result.inputs.d_model;
  std::string text =
      "PE(pos, 2i)   = sin(pos / 10000^(2i/d_model))\nPE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))\n\n" +
      program::table("PE: one row per position, one column per dimension", result.encoding,
                     position_labels(result.inputs.positions, result.inputs.words), dimension_labels(d_model)) +
      '\n' + "Each pair of dimensions turns at its own rate\n" +
      fmt::format("{:>4}  {:>10}  {:>13}  {:>15}  {:>15}\n", "pair", "dimensions", "ω_i per pos", "wavelength 2π/ω",
                  "wavelength / 2π");
  for (Eigen::Index i = 0; 2 * i < d_model; ++i) {
    text += fmt::format("{:>4}  {:>10}  {:>13.6g}  {:>15.6g}  {:>15.6g}\n", i, fmt::format("{}, {}", 2 * i, 2 * i + 1),
                        result.frequencies(i), result.wavelengths(i), result.wavelengths(i) / (2.0 * std::numbers::pi));
  }
  return text + fmt::format("Each wavelength is {:.6g} times the one before it: 10000^(2/d_model).\n", result.ratio);
}

// M_k, its blocks, and how well PE(pos) · M_k matches PE(pos + k) (with --shift).
std::string shift_text(const EncodingResult& result) {
  const ShiftCheck& shift = result.shift;
  const Eigen::Index offset = shift.offset, d_model = result.inputs.d_model;
  const std::vector<std::string> columns = dimension_labels(d_model);
  std::string text =
      fmt::format("\nPE(pos + {0}) = PE(pos) · M_{0}: one 2 × 2 block per pair, zeros elsewhere\n", offset);
  if (d_model <= max_printed_map) {
    text += program::table(fmt::format("M_{}", offset), shift.map, columns, columns) + '\n';
  }
  text += fmt::format("The block of pair i, rows and columns 2i and 2i + 1, with k = {}:\n", offset) +
          "[ cos kω_i  −sin kω_i ]\n[ sin kω_i   cos kω_i ]\n" +
          fmt::format("{:>4}  {:>12}  {:>12}  {:>12}\n", "pair", "k·ω_i", "cos kω_i", "sin kω_i");
  for (Eigen::Index i = 0; 2 * i < d_model; ++i) {
    text +=
        fmt::format("{:>4}  {:>12}  {:>12}  {:>12}\n", i,
                    program::number_text(static_cast<double>(offset) * result.frequencies(i)),
                    program::number_text(shift.map(2 * i, 2 * i)), program::number_text(shift.map(2 * i + 1, 2 * i)));
  }
  const Eigen::Index positions = result.inputs.positions;
  return text + '\n' +
         program::table(fmt::format("PE(pos) · M_{}: each row should be PE(pos + {})", offset, offset), shift.shifted,
                        position_labels(positions, result.inputs.words), columns) +
         fmt::format("Largest |PE(pos) · M_{} − PE(pos + {})| over positions 0 … {}: {}\n", offset, offset,
                     positions - 1, small_text(shift.table_error)) +
         fmt::format("Largest over every pos and every k from 0 to {}: {}\n", grid_size - 1,
                     small_text(shift.grid_error)) +
         fmt::format("The same with each M_k transposed (the blocks the other way round): {}\n\n",
                     program::number_text(shift.transposed_grid_error));
}

// PE(pos) · PE(pos + k) for the first offsets (with --shift).
std::string similarity_text(const Similarity& similarity) {
  std::string text =
      fmt::format("PE(pos) · PE(pos + k): the same for every pos from 0 to {}\n", grid_size - 1) +
      fmt::format("{:>3}  {:>12}  {:>17}  {:>17}\n", "k", "PE(0)·PE(k)", "smallest over pos", "largest over pos");
  for (Eigen::Index k = 0; k < printed_offsets; ++k) {
    text += fmt::format("{:>3}  {:>12}  {:>17}  {:>17}\n", k, program::number_text(similarity.at_first_position(k)),
                        program::number_text(similarity.smallest(k)), program::number_text(similarity.largest(k)));
  }
  return text + fmt::format("Largest spread over pos, for any k from 0 to {}: {}\n", grid_size - 1,
                            small_text(similarity.largest_spread));
}

std::string encoding_tables(const EncodingResult& result) {
  const EncodingInputs& inputs = result.inputs;
  const std::string heading =
      fmt::format("Positional encoding, d_model = {}, positions 0 … {}{}\n", inputs.d_model, inputs.positions - 1,
                  inputs.words.empty() ? "" : fmt::format(": \"{}\"", fmt::join(inputs.words, " ")));
  if (!inputs.print_shift) return heading + encoding_text(result);
  return heading + shift_text(result) + similarity_text(result.similarity);
}

// ---------------------------------------------------------------------------
// The permutation.

// P, the permutation matrix of @p order: row r of P · M is row order[r] of M,
// and P · M · Pᵀ has entry (order[r], order[c]) of M at (r, c).
Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, Eigen::Index> permutation_matrix(
    const std::vector<Eigen::Index>& order) {
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, Eigen::Index> permutation(
      static_cast<Eigen::Index>(order.size()));
  // Eigen's P · M puts row i of M in row indices(i): the inverse of order.
  for (std::size_t r = 0; r < order.size(); ++r) permutation.indices()(order[r]) = static_cast<Eigen::Index>(r);
  return permutation;
}

// Self-attention on the tokens' own queries, keys and values, with or without positions.
AttentionSteps<> attend(const Matrix& queries, const Matrix& keys, const Matrix& values, bool with_positions) {
  if (!with_positions) {
    return attention::scaled_dot_product_attention(queries, keys, values);
  }
  // clang-format off
  // [add_positions]
  // The token at position r gets PE(r) added to its query, its key and
  // its value: what adding PE to X does when W^Q, W^K and W^V are the
  // identity.
  return attention::scaled_dot_product_attention(
      attention::add_positional_encoding(queries),
      attention::add_positional_encoding(keys),
      attention::add_positional_encoding(values));
  // [add_positions]
  // clang-format on
}

Comparison compare_orders(const program::AttentionInputs& inputs, const std::vector<Eigen::Index>& order,
                          bool with_positions) {
  Comparison comparison;
  const Matrix &queries = inputs.queries, &keys = inputs.keys, &values = inputs.values;
  const auto P = permutation_matrix(order);
  // clang-format off
  // [permute]
  // with_positions false: the formula beside; true: the toy with PE added
  const AttentionSteps<> before = attend(queries, keys, values, with_positions);
  const AttentionSteps<> after = attend(P * queries, P * keys,
                                      P * values, with_positions);
  // Token order[r] now sits in row r: its old output, moved there.
  const Matrix expected = P * before.output;
  const bool equal = after.output == expected;  // every bit of every entry
  // [permute]
  // clang-format on
  comparison.before = before;
  comparison.after = after;
  comparison.expected_output = expected;
  comparison.outputs_equal = equal;
  const Matrix expected_scores = P * before.scaled_scores * P.transpose();
  const Matrix expected_weights = P * before.weights * P.transpose();
  comparison.scores_equal = after.scaled_scores == expected_scores;
  comparison.weights_equal = after.weights == expected_weights;
  comparison.largest_score_difference = (after.scaled_scores - expected_scores).cwiseAbs().maxCoeff();
  comparison.largest_weight_difference = (after.weights - expected_weights).cwiseAbs().maxCoeff();
  Eigen::Index column = 0;
  comparison.largest_output_difference =
      (after.output - expected).cwiseAbs().maxCoeff(&comparison.largest_output_difference_row, &column);
  for (Eigen::Index r = 0; r < values.rows(); ++r) {
    for (Eigen::Index c = 0; c < values.cols(); ++c) {
      comparison.largest_output_difference_ulps =
          std::max(comparison.largest_output_difference_ulps, units_in_last_place(after.output(r, c), expected(r, c)));
    }
  }
  return comparison;
}

// Every number the tables print must be a finite double. Inputs near the
// largest double can make a weighted sum, or a change between the two orders,
// overflow to inf: refused, naming the flag whose numbers are too large.
void require_finite(const Comparison& comparison) {
  if (!std::isfinite(comparison.largest_score_difference)) {
    throw program::UsageError(
        "--q, --k: a score changes by more than the largest double when the order changes; use smaller numbers");
  }
  if (!comparison.before.output.allFinite() || !comparison.after.output.allFinite()) {
    throw program::UsageError("--v: the weighted sum of the values overflows a double; use smaller values");
  }
  if (!(comparison.after.output - comparison.expected_output).allFinite()) {
    throw program::UsageError(
        "--v: a token's output changes by more than the largest double when the order changes; use smaller values");
  }
}

PermutationResult compute_permutation(const PermutationInputs& inputs) {
  PermutationResult result;
  result.inputs = inputs;
  const program::AttentionInputs& tokens = inputs.tokens;
  try {
    result.without_positions = compare_orders(tokens, inputs.order, false);
    result.with_positions = compare_orders(tokens, inputs.order, true);
  } catch (const std::invalid_argument& error) {
    throw program::UsageError(
        fmt::format("--q, --k: the scores cannot be computed in double precision ({})", error.what()));
  }
  require_finite(result.without_positions);
  require_finite(result.with_positions);
  result.encoding = attention::positional_encoding(tokens.queries.rows(), tokens.queries.cols());
  result.value_encoding = attention::positional_encoding(tokens.queries.rows(), tokens.values.cols());
  result.queries_with_positions = attention::add_positional_encoding(tokens.queries);
  for (const Eigen::Index r : inputs.order) result.reordered.push_back(tokens.query_labels[as_size(r)]);
  return result;
}

nlohmann::json comparison_json(const Comparison& comparison, const std::vector<std::string>& reordered) {
  return {
      {"before",
       {{"weights", program::matrix_json(comparison.before.weights)},
        {"output", program::matrix_json(comparison.before.output)}}},
      {"after",
       {{"weights", program::matrix_json(comparison.after.weights)},
        {"output", program::matrix_json(comparison.after.output)}}},
      {"output_change", program::matrix_json(comparison.after.output - comparison.expected_output)},
      {"scores_equal", comparison.scores_equal},
      {"weights_equal", comparison.weights_equal},
      {"outputs_equal", comparison.outputs_equal},
      {"largest_score_difference", comparison.largest_score_difference},
      {"largest_weight_difference", comparison.largest_weight_difference},
      {"largest_output_difference", comparison.largest_output_difference},
      {"largest_output_difference_ulps", comparison.largest_output_difference_ulps},
      {"largest_output_difference_token", reordered[as_size(comparison.largest_output_difference_row)]},
  };
}

nlohmann::json permutation_json(const PermutationResult& result) {
  const program::AttentionInputs& tokens = result.inputs.tokens;
  std::vector<std::uint64_t> places;
  for (const Eigen::Index r : result.inputs.order) places.push_back(static_cast<std::uint64_t>(r + 1));
  return {
      {"mode", "permutation"},
      {"tokens", tokens.query_labels},
      {"order", places},
      {"reordered_tokens", result.reordered},
      {"queries", program::matrix_json(tokens.queries)},
      {"keys", program::matrix_json(tokens.keys)},
      {"values", program::matrix_json(tokens.values)},
      {"pe", program::matrix_json(result.encoding)},
      {"pe_values", program::matrix_json(result.value_encoding)},
      {"queries_with_positions", program::matrix_json(result.queries_with_positions)},
      {"without_positions", comparison_json(result.without_positions, result.reordered)},
      {"with_positions", comparison_json(result.with_positions, result.reordered)},
  };
}

std::string equal_text(bool equal, double largest_difference) {
  return equal ? "bit for bit: yes"
               : fmt::format("bit for bit: no, largest difference {}", small_text(largest_difference));
}

// Scores, weights and outputs in the new order against the old, one line each.
std::string summary_text(const Comparison& comparison) {
  const std::uint64_t ulps = comparison.largest_output_difference_ulps;
  return fmt::format("  scores   {}\n  weights  {}\n  outputs  {}{}\n",
                     equal_text(comparison.scores_equal, comparison.largest_score_difference),
                     equal_text(comparison.weights_equal, comparison.largest_weight_difference),
                     equal_text(comparison.outputs_equal, comparison.largest_output_difference),
                     comparison.outputs_equal || ulps > 1000
                         ? ""
                         : fmt::format(" ({} in the last place)",
                                       ulps == 1 ? std::string("1 unit") : fmt::format("{} units", ulps)));
}

// "0 cat", "1 eat", …: each name with its position.
std::vector<std::string> at_positions(const std::vector<std::string>& names) {
  std::vector<std::string> placed;
  for (std::size_t r = 0; r < names.size(); ++r) placed.push_back(fmt::format("{} {}", r, names[r]));
  return placed;
}

// The weight each token gives itself, in each order: the diagonal of each
// order's weights, the new order's rows put back in the old order.
std::string table_of_self_weights(const Comparison& comparison, const std::vector<Eigen::Index>& order,
                                  const std::vector<std::string>& labels, const std::string& old_order,
                                  const std::string& new_order) {
  Matrix self_weights(comparison.before.weights.rows(), 2);
  for (Eigen::Index place = 0; place < self_weights.rows(); ++place) {
    const Eigen::Index token = order[as_size(place)];
    self_weights(token, 0) = comparison.before.weights(token, token);
    self_weights(token, 1) = comparison.after.weights(place, place);
  }
  return program::table("Weight on itself, with positions", self_weights, labels,
                        {fmt::format("\"{}\"", old_order), fmt::format("\"{}\"", new_order)});
}

std::string permutation_tables(const PermutationResult& result) {
  const program::AttentionInputs& tokens = result.inputs.tokens;
  const std::vector<std::string>& labels = tokens.query_labels;
  const std::vector<std::string>& reordered = result.reordered;
  const std::string old_order = fmt::format("{}", fmt::join(labels, " "));
  const std::string new_order = fmt::format("{}", fmt::join(reordered, " "));
  const std::vector<std::string> dimensions = program::numbered_labels("d", tokens.values.cols());
  const Eigen::Index n = tokens.queries.rows();
  std::vector<std::string> places;
  for (const Eigen::Index r : result.inputs.order) places.push_back(fmt::format("{}", r + 1));
  const Comparison &without = result.without_positions, &with = result.with_positions;
  const Matrix &encoding = result.encoding, &value_encoding = result.value_encoding;
  return fmt::format("The same tokens in two orders: \"{}\", then \"{}\" (--order {}).\n", old_order, new_order,
                     fmt::join(places, ",")) +
         "Each token keeps its own query, key and value; only the order of the rows changes.\n\n" +
         "Without positions\n\n" +
         program::table(fmt::format("Output without positions, \"{}\"", old_order), without.before.output, labels,
                        dimensions) +
         '\n' +
         program::table(fmt::format("Output without positions, \"{}\"", new_order), without.after.output, reordered,
                        dimensions) +
         '\n' + "Without positions: each token's scores, weights and output, new order against old\n" +
         summary_text(without) + '\n' + "With positions: PE(pos) added to each token's query, key and value\n\n" +
         program::table(fmt::format("PE, width {} (the queries'), by position", encoding.cols()), encoding,
                        position_labels(n, {}), dimension_labels(encoding.cols())) +
         '\n' +
         (value_encoding.cols() == encoding.cols()
              ? ""
              : program::table(fmt::format("PE added to the values, width {}", value_encoding.cols()), value_encoding,
                               position_labels(n, {}), dimension_labels(value_encoding.cols())) +
                    "\n") +
         program::table(fmt::format("Output with positions, \"{}\"", old_order), with.before.output,
                        at_positions(labels), dimensions) +
         '\n' +
         program::table(fmt::format("Output with positions, \"{}\"", new_order), with.after.output,
                        at_positions(reordered), dimensions) +
         '\n' +
         program::table("Change in each token's output when the order changes (new − old)",
                        with.after.output - with.expected_output, reordered, dimensions) +
         '\n' + table_of_self_weights(with, result.inputs.order, labels, old_order, new_order) + '\n' +
         "With positions: each token's scores, weights and output, new order against old\n" + summary_text(with);
}

// ---------------------------------------------------------------------------
// Reading the flags.

// The words of --sentence, separated by spaces.
std::vector<std::string> read_sentence(std::string_view text) {
  if (!program::is_utf8(text)) throw program::UsageError("--sentence: not UTF-8 text");
  const std::string_view trimmed = program::trim(text);
  if (trimmed.find(',') != std::string_view::npos && trimmed.find(' ') == std::string_view::npos) {  // "the,cat,sat"
    throw program::UsageError(
        "--sentence: its words are separated by spaces, not ',', e.g. \"We are the one\" (--tokens takes ',')");
  }
  std::vector<std::string> words;
  for (const std::string_view piece : program::split(text, ' ')) {
    if (!program::trim(piece).empty()) {
      words.emplace_back(program::trim(piece));
    }
  }
  if (words.empty()) {
    throw program::UsageError("--sentence is empty; expected words separated by spaces, e.g. \"We are the one\"");
  }
  if (words.size() > max_positions) {
    throw program::UsageError(
        fmt::format("--sentence has {} words, too many; expected at most {}", words.size(), max_positions));
  }
  return words;
}

Eigen::Index read_d_model(std::string_view text) {
  const auto d_model = as_index(program::parse_whole_number(text, "--d-model", 2, max_d_model));
  if (d_model % 2 != 0) {
    throw program::UsageError(
        fmt::format("--d-model is {}, odd; expected an even number from 2 to {}: each sine needs a cosine beside it",
                    d_model, max_d_model));
  }
  return d_model;
}

// --order: each token's place in the old order (from 1), in the new order; by
// default the tokens in reverse.
std::vector<Eigen::Index> read_order(const std::string& text, bool given, Eigen::Index tokens) {
  std::vector<Eigen::Index> order;
  if (!given) {
    for (Eigen::Index r = tokens - 1; r >= 0; --r) order.push_back(r);
    return order;
  }
  const auto count = static_cast<std::uint64_t>(tokens);
  for (const std::uint64_t place : program::parse_whole_numbers(text, "--order", 1, count, as_size(tokens))) {
    const auto index = as_index(place) - 1;
    if (std::find(order.begin(), order.end(), index) != order.end()) {
      throw program::UsageError(
          fmt::format("--order: {} appears twice; expected each of 1 … {} exactly once, e.g. \"3,2,1\"", place, count));
    }
    order.push_back(index);
  }
  if (order.size() != as_size(tokens)) {
    throw program::UsageError(fmt::format("--order has {} for {}; expected each of 1 … {} exactly once, e.g. \"3,2,1\"",
                                          program::counted(order.size(), "entry", "entries"),
                                          program::counted(count, "token", "tokens"), count));
  }
  return order;
}

}  // namespace

Result compute(const Inputs& inputs) {
  Result result;
  result.demonstration = inputs.demonstration;
  if (inputs.demonstration == Demonstration::permutation) {
    result.permutation = compute_permutation(inputs.permutation);
  } else {
    result.encoding = compute_encoding(inputs.encoding);
  }
  return result;
}

nlohmann::json to_json(const Result& result) {
  return result.demonstration == Demonstration::permutation ? permutation_json(result.permutation)
                                                            : encoding_json(result.encoding);
}

std::string tables(const Result& result) {
  return result.demonstration == Demonstration::permutation ? permutation_tables(result.permutation)
                                                            : encoding_tables(result.encoding);
}

Flags::Flags(program::CommandLine& command_line) : command_line_(command_line) {
  command_line.option("--sentence", sentence_text_,
                      fmt::format("words separated by spaces: one position per word, at most {} words", max_positions),
                      "WORDS");
  command_line.option("--positions", positions_text_,
                      fmt::format("how many positions, from 1 to {} (instead of --sentence)", max_positions), "N");
  command_line.option("--d-model", d_model_text_,
                      fmt::format("the width of the encoding: an even number from 2 to {}", max_d_model), "D");
  command_line.option("--shift", shift_text_,
                      fmt::format("print M_K, with PE(pos + K) = PE(pos) · M_K, and its checks instead of the table; K "
                                  "from 0 to {}",
                                  max_shift),
                      "K");
  command_line.option("--order", order_text_,
                      "the permutation demo: each token's place in the old order (from 1), in the new order; "
                      "the default reverses the tokens",
                      "PLACES");
  attention_flags_.emplace(command_line, /*with_values=*/true);
  command_line.excludes("--positions", {"--sentence"});
  for (const char* encoding_flag : {"--sentence", "--positions", "--d-model", "--shift"}) {
    command_line.excludes(encoding_flag, {"--order", "--q", "--k", "--v", "--tokens"});
  }
}

Inputs Flags::read() const {
  Inputs inputs;
  const bool permutation = command_line_.given("--order") || command_line_.given("--q") || command_line_.given("--k") ||
                           command_line_.given("--v") || command_line_.given("--tokens");
  if (permutation) {
    inputs.demonstration = Demonstration::permutation;
    inputs.permutation = read_permutation();
  } else {
    inputs.demonstration = Demonstration::encoding;
    inputs.encoding = read_encoding();
  }
  return inputs;
}

EncodingInputs Flags::read_encoding() const {
  EncodingInputs inputs;
  inputs.words.clear();
  if (command_line_.given("--positions")) {
    inputs.positions = as_index(program::parse_whole_number(positions_text_, "--positions", 1, max_positions));
  } else {
    inputs.words = read_sentence(sentence_text_);
    inputs.positions = static_cast<Eigen::Index>(inputs.words.size());
  }
  inputs.d_model = read_d_model(d_model_text_);
  inputs.offset = as_index(program::parse_whole_number(shift_text_, "--shift", 0, max_shift));
  inputs.print_shift = command_line_.given("--shift");
  return inputs;
}

PermutationInputs Flags::read_permutation() const {
  PermutationInputs inputs;
  inputs.tokens = attention_flags_->read();
  const program::AttentionInputs& tokens = inputs.tokens;
  const Eigen::Index count = tokens.queries.rows();
  if (tokens.keys.rows() != count) {
    throw program::UsageError(
        fmt::format("--k: {} for {} (--q); reordering the tokens moves each token's query, key and value together, "
                    "so give one of each per token",
                    program::counted(tokens.keys.rows(), "key", "keys"), program::counted(count, "query", "queries")));
  }
  if (tokens.queries.cols() % 2 != 0 || tokens.values.cols() % 2 != 0) {
    const bool queries_odd = tokens.queries.cols() % 2 != 0;
    const Eigen::Index width = queries_odd ? tokens.queries.cols() : tokens.values.cols();
    throw program::UsageError(fmt::format(
        "{}: each row has {} {}; positions are added to every query, key and value, and the encoding needs an even "
        "width (a sine and a cosine per pair)",
        queries_odd ? "--q" : "--v", width, width == 1 ? "entry" : "entries"));
  }
  inputs.order = read_order(order_text_, command_line_.given("--order"), count);
  return inputs;
}

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// Two demonstrations; the flags choose which one runs.
//
// - The encoding (no arguments, or any of --sentence --positions --d-model
//   --shift): the sinusoidal encoding of §3.5, one row per position, for the
//   book's worked sentence "We are the one" with d_model = 8, and the
//   wavelength of each pair of dimensions. --shift K prints instead M_K, the fixed
//   matrix with PE(pos + K) = PE(pos) · M_K, checked on the table's positions
//   and on a grid, and the dot product PE(pos) · PE(pos + k) for small k,
//   which depends on k only.
// - The permutation (any of --order --q --k --v --tokens): the toy "cat eat
//   fish" (src/program/toy.hpp) and the same tokens in another order, each
//   keeping its own query, key and value. Without positions every token gets
//   the same output in both orders; with the encoding added to each token's
//   query, key and value (what adding it to X does when every projection is
//   the identity), it does not.
//
// --json prints the same values as one JSON document. The encoding: `pe` (one
// row per position), `pairs` (frequency and wavelength of each pair), `shift`
// (M_k for --shift, 1 unless given, with the largest errors) and `similarity`,
// always, whether or not --shift was given. The permutation: `pe` (the
// encoding added), `without_positions` and `with_positions`. Positions and
// dimensions count from 0, as in the paper's formula; --order counts tokens
// from 1, as the other chapters do.
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "positional_encoding",
    "Chapter 6 of Attention, Compiled: positional encoding. Without positions, self-attention cannot tell one "
    "order of the tokens from another; the sinusoidal encoding of section 3.5 gives each position its own vector.",
    compute, to_json, tables);

}  // namespace positional_encoding
