// Chapter 6's computation, tested in-process: positional_encoding::compute()'s
// sinusoidal table against the formula of §3.5 worked by hand, its wavelengths,
// the shift map M_k as a rotation that carries PE(pos) to PE(pos + k), the dot
// products PE(pos) · PE(pos + k) against the sum of cosines they reduce to, and
// the permutation demonstration: reordering the tokens reorders the outputs
// without positions and changes them with. Every expected value has a reason of
// its own (a hand calculation, a trigonometric identity), not the program's output.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/LU>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "chapter_support.hpp"
#include "positional_encoding.hpp"
#include "program/command_line.hpp"
#include "program/usage_error.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_positional_encoding {

namespace {

using attention::Matrix;
using chapter_support::random_matrix;
namespace pe = positional_encoding;

pe::EncodingResult encoding_of(Eigen::Index positions, Eigen::Index d_model, Eigen::Index offset = 1) {
  pe::Inputs inputs;
  inputs.encoding.words.clear();
  inputs.encoding.positions = positions;
  inputs.encoding.d_model = d_model;
  inputs.encoding.offset = offset;
  return pe::compute(inputs).encoding;
}

program::AttentionInputs tokens_of(Matrix queries, Matrix keys, Matrix values) {
  program::AttentionInputs tokens{std::move(queries), std::move(keys), std::move(values), {}, {}};
  for (Eigen::Index i = 0; i < tokens.queries.rows(); ++i) tokens.query_labels.push_back(fmt::format("t{}", i + 1));
  tokens.key_labels = tokens.query_labels;
  return tokens;
}

// The book's toy sentence "cat eat fish" (chapter 1), typed out again here.
program::AttentionInputs toy() {
  Matrix queries(3, 2), keys(3, 2), values(3, 2);
  queries << 1, 0, 0, 1, 1, 1;
  keys << 2, 0, 0, 1, 1, 1;
  values << 1, 0, 0, 1, 0.5, 0.5;
  program::AttentionInputs tokens = tokens_of(queries, keys, values);
  tokens.query_labels = tokens.key_labels = {"cat", "eat", "fish"};
  return tokens;
}

pe::Inputs permutation_inputs(program::AttentionInputs tokens, std::vector<Eigen::Index> order) {
  pe::Inputs inputs;
  inputs.demonstration = pe::Demonstration::permutation;
  inputs.permutation.tokens = std::move(tokens);
  inputs.permutation.order = std::move(order);
  return inputs;
}

pe::PermutationResult permuted(program::AttentionInputs tokens, std::vector<Eigen::Index> order) {
  return pe::compute(permutation_inputs(std::move(tokens), std::move(order))).permutation;
}

// softmax(Q Kᵀ / √d) V, from its definition.
Matrix attention_output(const Matrix& queries, const Matrix& keys, const Matrix& values) {
  const Matrix scaled = queries * keys.transpose() / std::sqrt(static_cast<double>(queries.cols()));
  Matrix weights(scaled.rows(), scaled.cols());
  for (Eigen::Index i = 0; i < scaled.rows(); ++i) {
    const Eigen::RowVectorXd exponentials = (scaled.row(i).array() - scaled.row(i).maxCoeff()).exp().matrix();
    weights.row(i) = exponentials / exponentials.sum();
  }
  return weights * values;
}

// The toy's encoding, d_model = 2: one pair of frequency 1, PE(pos) = (sin pos, cos pos).
Matrix two_wide_encoding(Eigen::Index positions) {
  Matrix encoding(positions, 2);
  for (Eigen::Index pos = 0; pos < positions; ++pos) {
    encoding(pos, 0) = std::sin(static_cast<double>(pos));
    encoding(pos, 1) = std::cos(static_cast<double>(pos));
  }
  return encoding;
}

std::string refusal(const pe::Inputs& inputs) {
  try {
    pe::compute(inputs);
  } catch (const program::UsageError& error) {
    return error.what();
  }
  return "";
}

pe::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<pe::Flags>("positional_encoding", "chapter 6", arguments);
}

}  // namespace

TEST_CASE("the table is sin and cos of pos over 10000 to the 2i over d_model", "[ch06]") {
  const pe::EncodingResult result = encoding_of(5, 4);
  const Matrix& encoding = result.encoding;
  REQUIRE(encoding.rows() == 5);
  REQUIRE(encoding.cols() == 4);
  // Position 0: every sine is sin 0 = 0 and every cosine cos 0 = 1, exactly.
  CHECK(encoding.row(0) == Eigen::RowVector4d(0, 1, 0, 1));
  // d_model = 4: pair 0 has ω = 1/10000⁰ = 1, pair 1 has ω = 1/10000^(2/4) = 1/100.
  for (Eigen::Index pos = 0; pos < 5; ++pos) {
    const auto p = static_cast<double>(pos);
    CHECK(encoding(pos, 0) == Approx(std::sin(p)).margin(1e-15));
    CHECK(encoding(pos, 1) == Approx(std::cos(p)).margin(1e-15));
    CHECK(encoding(pos, 2) == Approx(std::sin(p / 100)).margin(1e-15));
    CHECK(encoding(pos, 3) == Approx(std::cos(p / 100)).margin(1e-15));
    // Each pair is a point on the unit circle: the squared length is d_model / 2.
    CHECK(encoding.row(pos).squaredNorm() == Approx(2.0).epsilon(1e-15));
  }
}

TEST_CASE("the wavelengths run from 2 pi in a geometric progression", "[ch06]") {
  const pe::EncodingResult result = encoding_of(4, 8);
  REQUIRE(result.frequencies.size() == 4);
  // d_model = 8: ω_i = 10000^(−2i/8) = 10^(−i), so the ratio is 10.
  CHECK(result.frequencies(0) == 1.0);
  CHECK(result.wavelengths(0) == 2 * std::numbers::pi);
  CHECK(result.ratio == Approx(10.0).epsilon(1e-14));
  for (Eigen::Index i = 0; i < 4; ++i) {
    CHECK(result.frequencies(i) == Approx(std::pow(10.0, -static_cast<double>(i))).epsilon(1e-14));
    const double wavelength = 2 * std::numbers::pi * std::pow(10.0, static_cast<double>(i));
    CHECK(result.wavelengths(i) == Approx(wavelength).epsilon(1e-14));
  }
  for (Eigen::Index i = 1; i < 4; ++i) {
    CHECK(result.wavelengths(i) / result.wavelengths(i - 1) == Approx(result.ratio).epsilon(1e-13));
  }
  // The last wavelength falls one step short of 10000 · 2π: 1000 · 2π for d_model = 8.
  CHECK(result.wavelengths(3) < 10000 * 2 * std::numbers::pi);
}

TEST_CASE("M_k is a block rotation and PE(pos) M_k is PE(pos + k)", "[ch06]") {
  for (const auto& [d_model, k] : {std::pair{2, 1}, std::pair{8, 1}, std::pair{8, 3}, std::pair{16, 40}}) {
    const pe::EncodingResult result = encoding_of(6, d_model, k);
    const Matrix& map = result.shift.map;
    REQUIRE(map.rows() == d_model);
    REQUIRE(result.shift.offset == k);
    // A rotation: orthogonal, determinant 1.
    CHECK((map.transpose() * map).isApprox(Matrix::Identity(d_model, d_model), 1e-14));
    CHECK(map.determinant() == Approx(1.0).epsilon(1e-13));
    for (Eigen::Index i = 0; 2 * i < d_model; ++i) {
      // Pair i turns by k ω_i: cos on the diagonal, −sin above it, sin below.
      const double turn = static_cast<double>(k) * std::pow(10000.0, -2.0 * static_cast<double>(i) / d_model);
      CHECK(map(2 * i, 2 * i) == Approx(std::cos(turn)).margin(1e-14));
      CHECK(map(2 * i, 2 * i + 1) == Approx(-std::sin(turn)).margin(1e-14));
      CHECK(map(2 * i + 1, 2 * i) == Approx(std::sin(turn)).margin(1e-14));
      CHECK(map(2 * i + 1, 2 * i + 1) == Approx(std::cos(turn)).margin(1e-14));
    }
    // Off the 2 × 2 blocks, exactly 0.
    for (Eigen::Index r = 0; r < d_model; ++r)
      for (Eigen::Index c = 0; c < d_model; ++c)
        if (r / 2 != c / 2) CHECK(map(r, c) == 0.0);
    // PE(pos) M_k = PE(pos + k): rows k … k + 5 of a longer table, made anew.
    const Matrix later = encoding_of(6 + k, d_model).encoding.bottomRows(6);
    CHECK((result.shift.shifted - later).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(result.shift.table_error < 1e-12);
    // The transpose turns the other way: PE(pos + k) M_kᵀ = PE(pos).
    CHECK((later * map.transpose() - result.encoding).cwiseAbs().maxCoeff() < 1e-12);
    // Over the grid too; with M_kᵀ in place of M_k the answer is wrong, not rounded.
    CHECK(result.shift.grid_error < 1e-10);
    CHECK(result.shift.transposed_grid_error > 0.1);
  }
  // M_0 turns nothing: the identity, exactly.
  const pe::EncodingResult still = encoding_of(3, 6, 0);
  CHECK(still.shift.map == Matrix::Identity(6, 6));
  CHECK(still.shift.shifted == still.encoding);
}

TEST_CASE("PE(pos) dot PE(pos + k) is the sum of cos k omega_i whatever pos is", "[ch06]") {
  const pe::EncodingResult result = encoding_of(4, 8);
  const pe::Similarity& similarity = result.similarity;
  REQUIRE(similarity.at_first_position.size() == 128);  // the grid of the checks
  // Pair i gives sin a sin(a + b) + cos a cos(a + b) = cos b, with b = k ω_i and ω_i = 10^(−i).
  for (const Eigen::Index k : {0, 1, 2, 5, 50, 127}) {
    double sum = 0;
    for (int i = 0; i < 4; ++i) sum += std::cos(static_cast<double>(k) * std::pow(10.0, -i));
    CHECK(similarity.at_first_position(k) == Approx(sum).margin(1e-12));
    CHECK(similarity.smallest(k) == Approx(sum).margin(1e-12));
    CHECK(similarity.largest(k) == Approx(sum).margin(1e-12));
    CHECK(similarity.smallest(k) <= similarity.largest(k));
  }
  // k = 0: each position against itself, d_model / 2.
  CHECK(similarity.at_first_position(0) == Approx(4.0).epsilon(1e-15));
  CHECK(similarity.largest_spread < 1e-12);
  CHECK(similarity.largest_spread >= 0.0);
}

TEST_CASE("reordering the toy without positions reorders the outputs and with positions changes them", "[ch06]") {
  // The default order: the tokens in reverse, fish eat cat.
  const pe::PermutationResult result = permuted(toy(), {2, 1, 0});
  CHECK(result.reordered == std::vector<std::string>{"fish", "eat", "cat"});
  const pe::Comparison& without = result.without_positions;
  // The toy's scores are sums of products of small whole numbers, over √2 in both orders: the same bits.
  CHECK(without.scores_equal);
  CHECK(without.largest_score_difference == 0.0);
  // Token order[r] now sits in row r: row r of the expected output is its old output, moved.
  for (Eigen::Index r = 0; r < 3; ++r) {
    CHECK(without.expected_output.row(r) == without.before.output.row(2 - r));
  }
  CHECK(without.after.output.isApprox(without.expected_output, 1e-14));
  CHECK(without.largest_output_difference < 1e-14);
  CHECK(without.largest_output_difference_ulps <= 4);
  // With positions, each token gets the encoding of the place it stands in: cat moves from 0 to 2.
  const pe::Comparison& with = result.with_positions;
  CHECK(with.largest_output_difference > 1e-3);
  CHECK_FALSE(with.outputs_equal);
  CHECK(result.encoding.isApprox(two_wide_encoding(3), 1e-15));
  CHECK(result.value_encoding.isApprox(two_wide_encoding(3), 1e-15));
  // Worked from the definitions: PE(pos) = (sin pos, cos pos) added to query, key and value.
  const program::AttentionInputs tokens = toy();
  const Matrix pe = two_wide_encoding(3);
  CHECK(
      with.before.output.isApprox(attention_output(tokens.queries + pe, tokens.keys + pe, tokens.values + pe), 1e-14));
  const Eigen::PermutationMatrix<Eigen::Dynamic> reverse(Eigen::Vector3i(2, 1, 0));
  CHECK(with.after.output.isApprox(attention_output(reverse * tokens.queries + pe, reverse * tokens.keys + pe,
                                                    reverse * tokens.values + pe),
                                   1e-14));
}

TEST_CASE("random tokens in random orders: outputs move within rounding unless positions are added", "[ch06]") {
  std::mt19937_64 generator(606);
  for (int trial = 0; trial < 5; ++trial) {
    const Matrix queries = random_matrix(6, 4, generator);
    const Matrix keys = random_matrix(6, 4, generator);
    const Matrix values = random_matrix(6, 2, generator);
    std::vector<Eigen::Index> order{0, 1, 2, 3, 4, 5};
    do std::shuffle(order.begin(), order.end(), generator);
    while (order[0] == 0);  // not the identity
    const pe::PermutationResult result = permuted(tokens_of(queries, keys, values), order);
    for (Eigen::Index r = 0; r < 6; ++r) {
      const Eigen::Index old_row = order[static_cast<std::size_t>(r)];
      CHECK(result.reordered[static_cast<std::size_t>(r)] == fmt::format("t{}", old_row + 1));
      CHECK(Matrix(result.without_positions.after.output.row(r))
                .isApprox(Matrix(result.without_positions.before.output.row(old_row)), 1e-13));
      // Scores and weights move as rows and columns.
      CHECK(result.without_positions.after.weights(r, 0) ==
            Approx(result.without_positions.before.weights(old_row, order[0])).epsilon(1e-13));
    }
    CHECK(result.without_positions.largest_output_difference < 1e-13);
    CHECK(result.without_positions.largest_weight_difference < 1e-13);
    CHECK(result.with_positions.largest_output_difference > 1e-3);
    // Both orders' weights: every row sums to 1.
    for (Eigen::Index r = 0; r < 6; ++r) {
      CHECK(result.with_positions.after.weights.row(r).sum() == Approx(1.0).epsilon(1e-14));
    }
  }
}

TEST_CASE("the flags choose the demonstration and refuse what does not fit", "[ch06]") {
  const pe::Inputs defaults = read({});
  CHECK(defaults.demonstration == pe::Demonstration::encoding);
  CHECK(defaults.encoding.words == std::vector<std::string>{"We", "are", "the", "one"});
  CHECK(defaults.encoding.positions == 4);
  CHECK(defaults.encoding.d_model == 8);
  CHECK_FALSE(defaults.encoding.print_shift);
  const pe::Inputs shift = read({"--shift", "3", "--positions", "10"});
  CHECK(shift.encoding.offset == 3);
  CHECK(shift.encoding.print_shift);
  CHECK(shift.encoding.words.empty());
  CHECK(shift.encoding.positions == 10);
  const pe::Inputs order = read({"--order", "2,3,1"});
  CHECK(order.demonstration == pe::Demonstration::permutation);
  CHECK(order.permutation.order == std::vector<Eigen::Index>{1, 2, 0});
  CHECK(order.permutation.tokens.values == toy().values);
  CHECK(read({"--tokens", "a,b,c"}).permutation.order == std::vector<Eigen::Index>{2, 1, 0});  // reversed
  CHECK_THROWS_WITH(read({"--d-model", "7"}), Catch::StartsWith("--d-model is 7, odd"));
  CHECK_THROWS_WITH(read({"--sentence", "  "}), Catch::StartsWith("--sentence is empty"));
  CHECK_THROWS_WITH(read({"--sentence", "the,cat,sat"}),
                    Catch::StartsWith("--sentence: its words are separated by spaces, not ','"));
  CHECK_THROWS_WITH(read({"--sentence", "the,cat,sat "}), Catch::StartsWith("--sentence: its words are separated"));
  CHECK(read({"--sentence", "We are, the one"}).encoding.words ==
        std::vector<std::string>{"We", "are,", "the", "one"});  // a comma in a sentence is a word's
  CHECK_THROWS_WITH(read({"--sentence", "caf\xe9 x"}), "--sentence: not UTF-8 text");
  CHECK_THROWS_WITH(read({"--positions", "3", "--sentence", "a b"}), Catch::Contains("excludes"));
  CHECK_THROWS_WITH(read({"--shift", "2", "--order", "1,2,3"}), Catch::Contains("excludes"));
  CHECK_THROWS_WITH(read({"--order", "1,1,2"}), Catch::StartsWith("--order: 1 appears twice"));
  CHECK_THROWS_WITH(read({"--order", "1,2"}), Catch::StartsWith("--order has 2 entries for 3 tokens"));
  CHECK_THROWS_WITH(read({"--order", "1,2,4"}), Catch::StartsWith("--order"));
  CHECK_THROWS_WITH(read({"--q", "1,0,0", "--k", "1,0,0", "--v", "1,0"}),
                    Catch::StartsWith("--q: each row has 3 entries"));
  CHECK_THROWS_WITH(read({"--v", "1;0;1"}), Catch::StartsWith("--v: each row has 1 entry;"));
  CHECK_THROWS_WITH(read({"--k", "1,0;0,1", "--v", "1,0;0,1"}), Catch::StartsWith("--k: 2 keys for 3 queries"));
}

TEST_CASE("the permutation refuses values whose weighted sum overflows", "[ch06]") {
  constexpr double largest = std::numeric_limits<double>::max();
  // Eleven equal scores: weights of 1/11 each, rounded up, times the largest double: the sum rounds past it.
  std::vector<Eigen::Index> order(11);
  for (Eigen::Index r = 0; r < 11; ++r) order[static_cast<std::size_t>(r)] = 10 - r;
  CHECK_THAT(refusal(permutation_inputs(
                 tokens_of(Matrix::Zero(11, 2), Matrix::Zero(11, 2), Matrix::Constant(11, 2, largest)), order)),
             Catch::StartsWith("--v: the weighted sum of the values overflows"));
  CHECK(refusal(permutation_inputs(toy(), {2, 1, 0})).empty());
}

}  // namespace test_positional_encoding
