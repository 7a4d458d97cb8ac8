// Chapter 6: positional encoding.
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
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/SparseCore>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attention/attention.hpp"
#include "attention/positional_encoding.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/matrix_text.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace {

using attention::AttentionSteps;
using attention::Matrix;

// The worked example (seed 004): four words, d_model = 8.
constexpr const char* default_sentence = "We are the one";
constexpr const char* default_d_model = "8";
constexpr const char* default_shift = "1";

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
    const auto bits = std::bit_cast<std::int64_t>(x);
    return bits < 0 ? std::numeric_limits<std::int64_t>::min() - bits : bits;
  };
  const std::int64_t low = std::min(ordered(a), ordered(b)), high = std::max(ordered(a), ordered(b));
  return static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
}

// ---------------------------------------------------------------------------
// The encoding.

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

// The words of --sentence, separated by spaces.
std::vector<std::string> read_sentence(std::string_view text) {
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
    throw program::UsageError(fmt::format(
        "--d-model is {}, odd; expected an even number from 2 to {}: each sine needs a cosine beside it", d_model,
        max_d_model));
  }
  return d_model;
}

// PE(pos + k) = PE(pos) · M_k, checked.
struct ShiftCheck {
  Eigen::Index offset = 0;
  Matrix map;                          // M_k
  Matrix shifted;                      // PE(pos) · M_k for each position of the table
  double table_error = 0.0;            // largest |PE(pos) · M_k − PE(pos + k)| over the table
  double grid_error = 0.0;             // the same over the grid, every k from 0 to grid_size − 1
  double transposed_grid_error = 0.0;  // the same with M_kᵀ in place of M_k: the wrong orientation
};

ShiftCheck check_shift(const Matrix& encoding, Eigen::Index offset, const Matrix& grid) {
  const Eigen::Index positions = encoding.rows(), d_model = encoding.cols();
  ShiftCheck check;
  check.offset = offset;
  check.map = attention::shift_map(offset, d_model);
  check.shifted = encoding * check.map;  // row pos: PE(pos) · M_k
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

// PE(pos) · PE(pos + k) over the grid: for each k, its value at pos = 0 and
// the smallest and largest over every pos.
struct Similarity {
  Eigen::VectorXd at_first_position, smallest, largest;
  double largest_spread = 0.0;  // the largest (largest − smallest) over every k
};

Similarity similarity_of(const Matrix& grid) {
  Similarity similarity;
  similarity.at_first_position.resize(grid_size);
  similarity.smallest.resize(grid_size);
  similarity.largest.resize(grid_size);
  const Matrix first = grid.topRows(grid_size);
  for (Eigen::Index k = 0; k < grid_size; ++k) {
    // [similarity]
    // Row pos of `first` is PE(pos); row pos of `later` is PE(pos + k).
    const auto later = grid.middleRows(k, grid_size);
    const Eigen::VectorXd dot_products = first.cwiseProduct(later).rowwise().sum();
    // [similarity]
    similarity.at_first_position(k) = dot_products(0);
    similarity.smallest(k) = dot_products.minCoeff();
    similarity.largest(k) = dot_products.maxCoeff();
    similarity.largest_spread = std::max(similarity.largest_spread, similarity.largest(k) - similarity.smallest(k));
  }
  return similarity;
}

nlohmann::json vector_json(const Eigen::VectorXd& vector) { return program::matrix_json(vector.transpose())[0]; }

void run_encoding(const std::vector<std::string>& words, Eigen::Index positions, Eigen::Index d_model,
                  Eigen::Index offset, bool print_shift, bool json) {
  const Matrix encoding = attention::positional_encoding(positions, d_model);
  const Eigen::Index pairs = d_model / 2;
  Eigen::VectorXd frequencies(pairs), wavelengths(pairs);
  for (Eigen::Index i = 0; i < pairs; ++i) {
    frequencies(i) = attention::angular_frequency(i, d_model);
    wavelengths(i) = 2.0 * std::numbers::pi / frequencies(i);
  }
  const double ratio = std::pow(attention::positional_encoding_base, 2.0 / static_cast<double>(d_model));
  const Matrix grid = attention::positional_encoding(2 * grid_size - 1, d_model);  // PE(0) … PE(2·grid_size − 2)
  const ShiftCheck shift = check_shift(encoding, offset, grid);
  const Similarity similarity = similarity_of(grid);

  if (json) {
    nlohmann::json pair_rows = nlohmann::json::array();
    for (Eigen::Index i = 0; i < pairs; ++i) {
      pair_rows.push_back({{"pair", i},
                           {"dimensions", {2 * i, 2 * i + 1}},
                           {"frequency", frequencies(i)},
                           {"wavelength", wavelengths(i)},
                           {"wavelength_over_2pi", wavelengths(i) / (2.0 * std::numbers::pi)}});
    }
    nlohmann::json offsets = nlohmann::json::array();
    for (Eigen::Index k = 0; k < grid_size; ++k) offsets.push_back(k);
    const auto largest_grid_angle = static_cast<double>(2 * grid_size - 2);
    const double largest_grid_angle_spacing =
        std::nextafter(largest_grid_angle, std::numeric_limits<double>::infinity()) - largest_grid_angle;
    const nlohmann::json document = {
        {"mode", "encoding"},
        {"d_model", d_model},
        {"positions", positions},
        {"words", words},
        {"base", attention::positional_encoding_base},
        {"pe", program::matrix_json(encoding)},
        {"pairs", pair_rows},
        {"wavelength_ratio", ratio},
        {"longest_wavelength_over_2pi", wavelengths(pairs - 1) / (2.0 * std::numbers::pi)},
        {"shift",
         {{"k", offset},
          {"map", program::matrix_json(shift.map)},
          {"shifted", program::matrix_json(shift.shifted)},
          {"table_error", shift.table_error},
          {"grid_positions", grid_size},
          {"grid_offsets", grid_size},
          {"grid_error", shift.grid_error},
          {"transposed_grid_error", shift.transposed_grid_error},
          // The scale of rounding on the grid: the largest angle it reaches,
          // (2·grid_size − 2) radians for pair 0, and the spacing of doubles there.
          {"largest_angle", largest_grid_angle},
          {"angle_spacing", largest_grid_angle_spacing},
          {"grid_error_spacings", shift.grid_error / largest_grid_angle_spacing},
          {"transposed_grid_error_spacings", shift.transposed_grid_error / largest_grid_angle_spacing}}},
        {"similarity",
         {{"offsets", offsets},
          {"at_position_0", vector_json(similarity.at_first_position)},
          {"smallest", vector_json(similarity.smallest)},
          {"largest", vector_json(similarity.largest)},
          {"grid_positions", grid_size},
          {"largest_spread", similarity.largest_spread}}},
    };
    std::cout << document.dump(2) << '\n';
    return;
  }

  const std::vector<std::string> rows = position_labels(positions, words);
  const std::vector<std::string> columns = dimension_labels(d_model);
  std::string sentence;
  for (const std::string& word : words) sentence += (sentence.empty() ? "" : " ") + word;
  std::cout << fmt::format("Positional encoding, d_model = {}, positions 0 … {}{}\n", d_model, positions - 1,
                           words.empty() ? "" : fmt::format(": \"{}\"", sentence));
  if (!print_shift) {
    std::cout << "PE(pos, 2i)   = sin(pos / 10000^(2i/d_model))\nPE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))\n\n"
              << program::table("PE: one row per position, one column per dimension", encoding, rows, columns)
              << '\n'
              << "Each pair of dimensions turns at its own rate\n"
              << fmt::format("{:>4}  {:>10}  {:>13}  {:>15}  {:>15}\n", "pair", "dimensions", "ω_i per pos",
                             "wavelength 2π/ω", "wavelength / 2π");
    for (Eigen::Index i = 0; i < pairs; ++i) {
      std::cout << fmt::format("{:>4}  {:>10}  {:>13.6g}  {:>15.6g}  {:>15.6g}\n", i,
                               fmt::format("{}, {}", 2 * i, 2 * i + 1), frequencies(i), wavelengths(i),
                               wavelengths(i) / (2.0 * std::numbers::pi));
    }
    std::cout << fmt::format("Each wavelength is {:.6g} times the one before it: 10000^(2/d_model).\n", ratio);
    return;
  }

  std::cout << fmt::format("\nPE(pos + {0}) = PE(pos) · M_{0}: one 2 × 2 block per pair, zeros elsewhere\n", offset);
  if (d_model <= max_printed_map) {
    std::cout << program::table(fmt::format("M_{}", offset), shift.map, columns, columns) << '\n';
  }
  std::cout << fmt::format("The block of pair i, rows and columns 2i and 2i + 1, with k = {}:\n", offset)
            << "[ cos kω_i  −sin kω_i ]\n[ sin kω_i   cos kω_i ]\n"
            << fmt::format("{:>4}  {:>12}  {:>12}  {:>12}\n", "pair", "k·ω_i", "cos kω_i", "sin kω_i");
  for (Eigen::Index i = 0; i < pairs; ++i) {
    std::cout << fmt::format("{:>4}  {:>12}  {:>12}  {:>12}\n", i,
                             program::number_text(static_cast<double>(offset) * frequencies(i)),
                             program::number_text(shift.map(2 * i, 2 * i)),
                             program::number_text(shift.map(2 * i + 1, 2 * i)));
  }
  std::cout << '\n'
            << program::table(fmt::format("PE(pos) · M_{}: each row should be PE(pos + {})", offset, offset),
                              shift.shifted, rows, columns)
            << fmt::format("Largest |PE(pos) · M_{} − PE(pos + {})| over positions 0 … {}: {}\n", offset, offset,
                           positions - 1, small_text(shift.table_error))
            << fmt::format("Largest over every pos and every k from 0 to {}: {}\n", grid_size - 1,
                           small_text(shift.grid_error))
            << fmt::format("The same with each M_k transposed (the blocks the other way round): {}\n\n",
                           program::number_text(shift.transposed_grid_error));

  std::cout << fmt::format("PE(pos) · PE(pos + k): the same for every pos from 0 to {}\n", grid_size - 1)
            << fmt::format("{:>3}  {:>12}  {:>17}  {:>17}\n", "k", "PE(0)·PE(k)", "smallest over pos",
                           "largest over pos");
  for (Eigen::Index k = 0; k < printed_offsets; ++k) {
    std::cout << fmt::format("{:>3}  {:>12}  {:>17}  {:>17}\n", k,
                             program::number_text(similarity.at_first_position(k)),
                             program::number_text(similarity.smallest(k)), program::number_text(similarity.largest(k)));
  }
  std::cout << fmt::format("Largest spread over pos, for any k from 0 to {}: {}\n", grid_size - 1,
                           small_text(similarity.largest_spread));
}

// ---------------------------------------------------------------------------
// The permutation.

// The rows of @p matrix in the order @p order gives (0-based): row r of the
// result is row order[r].
Matrix rows_in_order(const Matrix& matrix, const std::vector<Eigen::Index>& order) {
  Matrix result(matrix.rows(), matrix.cols());
  for (std::size_t r = 0; r < order.size(); ++r) {
    result.row(static_cast<Eigen::Index>(r)) = matrix.row(order[r]);
  }
  return result;
}

// Rows and columns both reordered: entry (r, c) is entry (order[r], order[c]).
Matrix rows_and_columns_in_order(const Matrix& matrix, const std::vector<Eigen::Index>& order) {
  return rows_in_order(rows_in_order(matrix, order).transpose(), order).transpose();
}

// Self-attention on the tokens' own queries, keys and values, with or without positions.
AttentionSteps attend(const Matrix& queries, const Matrix& keys, const Matrix& values,
                                 bool with_positions) {
  if (!with_positions) {
    return attention::scaled_dot_product_attention(queries, keys, values);
  }
  // [add_positions]
  // The token at position r gets PE(r) added to its query, its key and
  // its value: what adding PE to X does when W^Q, W^K and W^V are the
  // identity.
  return attention::scaled_dot_product_attention(
      attention::add_positional_encoding(queries),
      attention::add_positional_encoding(keys),
      attention::add_positional_encoding(values));
  // [add_positions]
}

// Every token in the old order and in the new, compared token by token.
struct Comparison {
  AttentionSteps before, after;
  Matrix expected_output;  // the old outputs, in the new order of the tokens
  bool scores_equal = false, weights_equal = false, outputs_equal = false;  // bit for bit
  double largest_score_difference = 0.0, largest_weight_difference = 0.0, largest_output_difference = 0.0;
  std::uint64_t largest_output_difference_ulps = 0;
  Eigen::Index largest_output_difference_row = 0;  // in the new order
};

Comparison compare_orders(const program::AttentionInputs& inputs, const std::vector<Eigen::Index>& order,
                          bool with_positions) {
  Comparison comparison;
  const Matrix &queries = inputs.queries, &keys = inputs.keys, &values = inputs.values;
  // [permute]
  const AttentionSteps before = attend(queries, keys, values, with_positions);
  const AttentionSteps after = attend(rows_in_order(queries, order),
                                      rows_in_order(keys, order),
                                      rows_in_order(values, order), with_positions);
  // Token order[r] now sits in row r: its old output, moved there.
  const Matrix expected = rows_in_order(before.output, order);
  const bool equal = after.output == expected;  // every bit of every entry
  // [permute]
  comparison.before = before;
  comparison.after = after;
  comparison.expected_output = expected;
  comparison.outputs_equal = equal;
  const Matrix expected_scores = rows_and_columns_in_order(comparison.before.scaled_scores, order);
  const Matrix expected_weights = rows_and_columns_in_order(comparison.before.weights, order);
  comparison.scores_equal = comparison.after.scaled_scores == expected_scores;
  comparison.weights_equal = comparison.after.weights == expected_weights;
  comparison.largest_score_difference = (comparison.after.scaled_scores - expected_scores).cwiseAbs().maxCoeff();
  comparison.largest_weight_difference = (comparison.after.weights - expected_weights).cwiseAbs().maxCoeff();
  Eigen::Index column = 0;
  comparison.largest_output_difference = (comparison.after.output - comparison.expected_output)
                                             .cwiseAbs()
                                             .maxCoeff(&comparison.largest_output_difference_row, &column);
  for (Eigen::Index r = 0; r < values.rows(); ++r) {
    for (Eigen::Index c = 0; c < values.cols(); ++c) {
      comparison.largest_output_difference_ulps =
          std::max(comparison.largest_output_difference_ulps,
                   units_in_last_place(comparison.after.output(r, c), comparison.expected_output(r, c)));
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

nlohmann::json comparison_json(const Comparison& comparison, const std::vector<std::string>& reordered) {
  return {
      {"before", {{"weights", program::matrix_json(comparison.before.weights)},
                  {"output", program::matrix_json(comparison.before.output)}}},
      {"after", {{"weights", program::matrix_json(comparison.after.weights)},
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
    throw program::UsageError(fmt::format(
        "--order has {} entries for {} tokens; expected each of 1 … {} exactly once, e.g. \"3,2,1\"", order.size(),
        count, count));
  }
  return order;
}

std::string joined(const std::vector<std::string>& labels, const std::vector<Eigen::Index>& order) {
  std::string text;
  for (const Eigen::Index r : order) text += (text.empty() ? "" : " ") + labels[as_size(r)];
  return text;
}

std::string equal_text(bool equal, double largest_difference) {
  return equal ? "bit for bit: yes"
               : fmt::format("bit for bit: no, largest difference {}", small_text(largest_difference));
}

void run_permutation(const program::AttentionInputs& inputs, const std::string& order_text, bool order_given,
                     bool json) {
  const Eigen::Index tokens = inputs.queries.rows();
  if (inputs.keys.rows() != tokens) {
    throw program::UsageError(fmt::format(
        "--k: {} keys for {} queries (--q); reordering the tokens moves each token's query, key and value together, "
        "so give one of each per token",
        inputs.keys.rows(), tokens));
  }
  if (inputs.queries.cols() % 2 != 0 || inputs.values.cols() % 2 != 0) {
    const bool queries_odd = inputs.queries.cols() % 2 != 0;
    const Eigen::Index width = queries_odd ? inputs.queries.cols() : inputs.values.cols();
    throw program::UsageError(fmt::format(
        "{}: each row has {} {}; positions are added to every query, key and value, and the encoding needs an even "
        "width (a sine and a cosine per pair)",
        queries_odd ? "--q" : "--v", width, width == 1 ? "entry" : "entries"));
  }
  const std::vector<Eigen::Index> order = read_order(order_text, order_given, tokens);
  std::vector<Eigen::Index> identity(as_size(tokens));
  for (Eigen::Index r = 0; r < tokens; ++r) identity[as_size(r)] = r;

  Comparison without_positions, with_positions;
  try {
    without_positions = compare_orders(inputs, order, false);
    with_positions = compare_orders(inputs, order, true);
  } catch (const std::invalid_argument& error) {
    throw program::UsageError(
        fmt::format("--q, --k: the scores cannot be computed in double precision ({})", error.what()));
  }
  require_finite(without_positions);
  require_finite(with_positions);
  const Matrix encoding = attention::positional_encoding(tokens, inputs.queries.cols());
  const Matrix value_encoding = attention::positional_encoding(tokens, inputs.values.cols());
  const std::vector<std::string>& labels = inputs.query_labels;
  std::vector<std::string> reordered;
  for (const Eigen::Index r : order) reordered.push_back(labels[as_size(r)]);

  if (json) {
    std::vector<std::uint64_t> places;
    for (const Eigen::Index r : order) places.push_back(static_cast<std::uint64_t>(r + 1));
    const nlohmann::json document = {
        {"mode", "permutation"},
        {"tokens", labels},
        {"order", places},
        {"reordered_tokens", reordered},
        {"queries", program::matrix_json(inputs.queries)},
        {"keys", program::matrix_json(inputs.keys)},
        {"values", program::matrix_json(inputs.values)},
        {"pe", program::matrix_json(encoding)},
        {"pe_values", program::matrix_json(value_encoding)},
        {"without_positions", comparison_json(without_positions, reordered)},
        {"with_positions", comparison_json(with_positions, reordered)},
    };
    std::cout << document.dump(2) << '\n';
    return;
  }

  const std::vector<std::string> dimensions = program::numbered_labels("d", inputs.values.cols());
  const auto at_positions = [](const std::vector<std::string>& names) {
    std::vector<std::string> placed;
    for (std::size_t r = 0; r < names.size(); ++r) placed.push_back(fmt::format("{} {}", r, names[r]));
    return placed;
  };
  const auto summary = [](const Comparison& comparison) {
    return fmt::format("  scores   {}\n  weights  {}\n  outputs  {}{}\n",
                       equal_text(comparison.scores_equal, comparison.largest_score_difference),
                       equal_text(comparison.weights_equal, comparison.largest_weight_difference),
                       equal_text(comparison.outputs_equal, comparison.largest_output_difference),
                       comparison.outputs_equal || comparison.largest_output_difference_ulps > 1000
                           ? ""
                           : fmt::format(" ({} in the last place)",
                                         comparison.largest_output_difference_ulps == 1
                                             ? std::string("1 unit")
                                             : fmt::format("{} units", comparison.largest_output_difference_ulps)));
  };

  std::vector<std::string> places;
  for (const Eigen::Index r : order) places.push_back(fmt::format("{}", r + 1));
  std::cout << fmt::format("The same tokens in two orders: \"{}\", then \"{}\" (--order {}).\n",
                           joined(labels, identity), joined(labels, order), fmt::join(places, ","))
            << "Each token keeps its own query, key and value; only the order of the rows changes.\n\n";

  std::cout << "Without positions\n\n"
            << program::table(fmt::format("Output, \"{}\"", joined(labels, identity)), without_positions.before.output,
                              labels, dimensions)
            << '\n'
            << program::table(fmt::format("Output, \"{}\"", joined(labels, order)), without_positions.after.output,
                              reordered, dimensions)
            << '\n'
            << "Each token's scores, weights and output in the new order against the old:\n"
            << summary(without_positions) << '\n';

  std::cout << "With positions: PE(pos) added to each token's query, key and value\n\n"
            << program::table(fmt::format("PE, d_model = {}: one row per position", encoding.cols()), encoding,
                              position_labels(tokens, {}), dimension_labels(encoding.cols()))
            << '\n'
            << (value_encoding.cols() == encoding.cols()
                    ? ""
                    : program::table(fmt::format("PE added to the values, d_model = {}", value_encoding.cols()),
                                     value_encoding, position_labels(tokens, {}),
                                     dimension_labels(value_encoding.cols())) +
                          "\n")
            << program::table(fmt::format("Output, \"{}\"", joined(labels, identity)), with_positions.before.output,
                              at_positions(labels), dimensions)
            << '\n'
            << program::table(fmt::format("Output, \"{}\"", joined(labels, order)), with_positions.after.output,
                              at_positions(reordered), dimensions)
            << '\n'
            << program::table("Change in each token's output when the order changes (new − old)",
                              with_positions.after.output - with_positions.expected_output, reordered, dimensions)
            << '\n'
            << "Each token's scores, weights and output in the new order against the old:\n"
            << summary(with_positions);
}

}  // namespace

int main(int argc, char** argv) {
  program::CommandLine command_line{
      "positional_encoding",
      "Chapter 6 of Attention, Compiled: positional encoding. Without positions, self-attention cannot tell one "
      "order of the tokens from another; the sinusoidal encoding of section 3.5 gives each position its own vector."};
  std::string sentence_text = default_sentence;
  std::string positions_text = "4";
  std::string d_model_text = default_d_model;
  std::string shift_text = default_shift;
  std::string order_text = "3,2,1";
  bool json = false;
  command_line.option("--sentence", sentence_text, "words separated by spaces: one position per word", "WORDS");
  command_line.option("--positions", positions_text,
                      fmt::format("how many positions, from 1 to {} (instead of --sentence)", max_positions), "N");
  command_line.option("--d-model", d_model_text,
                      fmt::format("the width of the encoding: an even number from 2 to {}", max_d_model), "D");
  command_line.option("--shift", shift_text,
                      fmt::format("print M_K, with PE(pos + K) = PE(pos) · M_K, and its checks instead of the table; K "
                                  "from 0 to {}",
                                  max_shift),
                      "K");
  command_line.option("--order", order_text,
                      "the permutation demo: each token's place in the old order (from 1), in the new order; "
                      "the default reverses the tokens",
                      "PLACES");
  program::AttentionFlags inputs_flags(command_line, /*with_values=*/true);
  command_line.flag("--json", json, "print the values as one JSON document instead of tables");
  command_line.excludes("--positions", {"--sentence"});
  for (const char* encoding_flag : {"--sentence", "--positions", "--d-model", "--shift"}) {
    command_line.excludes(encoding_flag, {"--order", "--q", "--k", "--v", "--tokens"});
  }

  return command_line.run(argc, argv, [&] {
    const bool permutation = command_line.given("--order") || command_line.given("--q") ||
                             command_line.given("--k") || command_line.given("--v") || command_line.given("--tokens");
    if (permutation) {
      run_permutation(inputs_flags.read(), order_text, command_line.given("--order"), json);
      return;
    }
    std::vector<std::string> words;
    Eigen::Index positions = 0;
    if (command_line.given("--positions")) {
      positions = as_index(program::parse_whole_number(positions_text, "--positions", 1, max_positions));
    } else {
      words = read_sentence(sentence_text);
      positions = static_cast<Eigen::Index>(words.size());
    }
    const Eigen::Index d_model = read_d_model(d_model_text);
    const auto offset = as_index(program::parse_whole_number(shift_text, "--shift", 0, max_shift));
    run_encoding(words, positions, d_model, offset, command_line.given("--shift"), json);
  });
}
