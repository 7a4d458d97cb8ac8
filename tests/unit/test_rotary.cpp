// Chapter 15's library pieces: rotary positions (attention/rotary.hpp) held to chapter 6's shift map and to the
// property they are for, a score that depends on the offset between a query and a key and not on where they
// stand; multi-head attention that turns its queries and keys (the queries at the last of the keys' positions);
// and the backward passes that turn the gradients back, against central differences.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/cross_entropy.hpp"
#include "attention/embedding.hpp"
#include "attention/gradient_check.hpp"
#include "attention/mask.hpp"
#include "attention/multi_head.hpp"
#include "attention/multi_head_backward.hpp"
#include "attention/numpy_random.hpp"
#include "attention/positional_encoding.hpp"
#include "attention/rotary.hpp"
#include "attention/token_classifier.hpp"
#include "support.hpp"

using attention::Matrix;

namespace rotary_tests {

// Rounding only, for scores of turned vectors at positions up to 2000: an angle p·ω is rounded to within
// 2000 · 2⁻⁵³ ≈ 2.2e-13 radians, and the score moves by at most that times |q||k| for each of the two turns.
constexpr double score_tolerance = 1e-12;
// The bound of chapter 10's gradient checks: the largest difference from central differences (h = 1e-5), over
// the largest gradient entry.
constexpr double gradient_tolerance = 1e-7;

Eigen::Index uniform_index(std::mt19937_64& generator, Eigen::Index low, Eigen::Index high) {
  return std::uniform_int_distribution<Eigen::Index>(low, high)(generator);
}

// h heads of width d_k on inputs of width d_model, standard normal entries, scaled so that the scores stay
// moderate (softmax far from one-hot: every entry of every gradient is exercised).
attention::MultiHeadWeights random_weights(Eigen::Index d_model, Eigen::Index heads, Eigen::Index d_k,
                                           std::mt19937_64& generator) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(d_model));
  attention::MultiHeadWeights weights;
  for (Eigen::Index i = 0; i < heads; ++i) {
    weights.heads.push_back({scale * support::random_matrix(d_model, d_k, generator),
                             scale * support::random_matrix(d_model, d_k, generator),
                             scale * support::random_matrix(d_model, d_k, generator)});
  }
  weights.output = scale * support::random_matrix(heads * d_k, d_model, generator);
  return weights;
}

double probe(const Matrix& output, const Matrix& direction) { return output.cwiseProduct(direction).sum(); }

double largest_difference(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

// Row r of the result is row order[r] of m.
Matrix reordered(const Matrix& m, const std::vector<Eigen::Index>& order) {
  Matrix result(m.rows(), m.cols());
  for (std::size_t r = 0; r < order.size(); ++r) result.row(static_cast<Eigen::Index>(r)) = m.row(order[r]);
  return result;
}

std::vector<Eigen::Index> shuffled(Eigen::Index n, std::mt19937_64& generator) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  while (std::is_sorted(order.begin(), order.end())) std::shuffle(order.begin(), order.end(), generator);
  return order;
}

attention::TokenClassifierShape small_shape() {
  attention::TokenClassifierShape shape;
  shape.vocabulary = 6;
  shape.outputs = 6;
  shape.d_model = 8;
  shape.heads = 2;  // d_k = 4: two pairs per head, turning at different speeds
  shape.d_ff = 10;
  shape.layers = 2;
  return shape;
}

}  // namespace rotary_tests

TEST_CASE("turned queries and keys score by their offset alone: q at m with k at n is q at m + s with k at n + s, "
          "and q times M of m minus n times k",
          "[ch15]") {
  std::mt19937_64 generator(1515);
  double worst_shifted = 0.0, worst_relative = 0.0, smallest_turn = 1e300;
  for (const Eigen::Index d : {2, 4, 6, 8, 16, 32, 64}) {
    for (int trial = 0; trial < 40; ++trial) {
      const Matrix q = support::random_matrix(1, d, generator);
      const Matrix k = support::random_matrix(1, d, generator);
      const Eigen::Index m = rotary_tests::uniform_index(generator, 0, 1000);
      const Eigen::Index n = rotary_tests::uniform_index(generator, 0, 1000);
      const Eigen::Index s = rotary_tests::uniform_index(generator, -std::min(m, n), 1000);  // both stay ≥ 0
      const auto score = [&](Eigen::Index query_position, Eigen::Index key_position) {
        return attention::rotated_by_position(q, query_position)
            .row(0)
            .dot(attention::rotated_by_position(k, key_position).row(0));
      };
      const double scale = q.norm() * k.norm();
      const double here = score(m, n);
      const double relative = (q * attention::shift_map(m - n, d) * k.transpose())(0, 0);
      CAPTURE(d, m, n, s);
      worst_shifted = std::max(worst_shifted, std::abs(here - score(m + s, n + s)) / scale);
      worst_relative = std::max(worst_relative, std::abs(here - relative) / scale);
      if (m != n) smallest_turn = std::min(smallest_turn, std::abs(here - q.row(0).dot(k.row(0))) / scale);
    }
  }
  CHECK(worst_shifted < rotary_tests::score_tolerance);
  CHECK(worst_relative < rotary_tests::score_tolerance);
  // Not because nothing turned: away from the offset 0 the score is not chapter 1's q · k.
  CHECK(smallest_turn > 1e-9);
}

TEST_CASE("rotated_by_position turns row r by chapter 6's M of first plus r, keeps its length, and rotated_back turns "
          "it back",
          "[ch15]") {
  std::mt19937_64 generator(1516);
  for (const Eigen::Index d : {2, 4, 10, 64}) {
    for (const Eigen::Index first : {0, 1, 7, 999}) {
      const Matrix x = support::random_matrix(5, d, generator);
      const Matrix turned = attention::rotated_by_position(x, first);
      const Matrix back = attention::rotated_back(x, first);
      REQUIRE(turned.rows() == 5);
      REQUIRE(turned.cols() == d);
      for (Eigen::Index r = 0; r < 5; ++r) {
        CAPTURE(d, first, r);
        const double length = x.row(r).norm();
        // Chapter 6's map, a d × d matrix; the rotation works pair by pair: rounding apart, the same numbers.
        CHECK(rotary_tests::largest_difference(turned.row(r), x.row(r) * attention::shift_map(first + r, d)) <
              1e-15 * length);
        // Back is the transpose, M_pᵀ = M_(−p).
        CHECK(rotary_tests::largest_difference(back.row(r), x.row(r) * attention::shift_map(first + r, d).transpose()) <
              1e-15 * length);
        CHECK(std::abs(turned.row(r).norm() - length) < 1e-15 * length);
      }
      CHECK(rotary_tests::largest_difference(attention::rotated_back(turned, first), x) < 1e-14);
      CHECK(rotary_tests::largest_difference(attention::rotated_by_position(back, first), x) < 1e-14);
      // A row's turn depends on its position, not on the table it is in: bit for bit.
      CHECK(attention::rotated_by_position(x.bottomRows(2), first + 3) == turned.bottomRows(2));
    }
  }
}

TEST_CASE("turning chapter 6's PE of a by b gives PE of a plus b, and position 0 turns nothing, exactly", "[ch15]") {
  std::mt19937_64 generator(1517);
  for (const Eigen::Index d : {2, 8, 32}) {
    for (const Eigen::Index a : {0, 3, 250}) {
      for (const Eigen::Index b : {0, 1, 17, 600}) {
        CAPTURE(d, a, b);
        // The sines and cosines of (a + b)·ω_i against those of a·ω_i turned by b·ω_i: the angle addition formulas.
        CHECK(
            rotary_tests::largest_difference(attention::rotated_by_position(attention::positional_encoding(1, d, a), b),
                                             attention::positional_encoding(1, d, a + b)) < 1e-12);
      }
    }
    // cos 0 = 1 and sin 0 = 0: every bit of the row stays.
    const Matrix x = support::random_matrix(1, d, generator);
    CHECK(attention::rotated_by_position(x, 0) == x);
    CHECK(attention::rotated_back(x, 0) == x);
    const Matrix rows = support::random_matrix(4, d, generator);
    CHECK(attention::rotated_by_position(rows).row(0) == rows.row(0));
    CHECK(attention::rotated_by_position(rows).row(1) != rows.row(1));
  }
}

TEST_CASE("rotated_at_position turns between whole positions: at whole ones as rotated_by_position, bit for bit, "
          "twice by p as once by 2p, the fastest pair half round at pi, and the score by the offset alone",
          "[ch15]") {
  std::mt19937_64 generator(1518);
  for (const Eigen::Index d : {2, 8, 64}) {
    const Matrix rows = support::random_matrix(3, d, generator);
    for (const Eigen::Index whole : {0, 1, 7, 999}) {
      CAPTURE(d, whole);
      CHECK(attention::rotated_at_position(rows, static_cast<double>(whole)) ==
            attention::rotated_by_position(rows, whole));
    }
    const Matrix row = rows.topRows(1);
    for (const double p : {0.5, 2.25, 10.125, 333.3}) {
      CAPTURE(d, p);
      const Matrix once = attention::rotated_at_position(row, p);
      CHECK(std::abs(once.norm() - row.norm()) < 1e-15 * row.norm());
      // Pair i turned by p·ω_i, then by p·ω_i again: by 2p·ω_i, rounding apart.
      CHECK(rotary_tests::largest_difference(attention::rotated_at_position(once, p),
                                             attention::rotated_at_position(row, 2 * p)) < 1e-12 * row.norm());
      // Row r stands at p + r.
      CHECK(attention::rotated_at_position(rows, p).row(2) == attention::rotated_at_position(rows.row(2), p + 2));
    }
    // Between whole positions too, the score of the turned pair depends on m − n alone.
    const Matrix q = support::random_matrix(1, d, generator), k = support::random_matrix(1, d, generator);
    const auto score = [&](double m, double n) {
      return attention::rotated_at_position(q, m).row(0).dot(attention::rotated_at_position(k, n).row(0));
    };
    for (const double shift : {0.375, 5.5, 120.25}) {
      CAPTURE(d, shift);
      CHECK(std::abs(score(2.5 + shift, 0.75 + shift) - score(2.5, 0.75)) < rotary_tests::score_tolerance);
    }
  }
  // Pair 0 turns by one radian per place: at π it has gone half round, (x, y) to (−x, −y).
  const Matrix pair{{0.6, -0.8}};
  CHECK(rotary_tests::largest_difference(attention::rotated_at_position(pair, std::acos(-1.0)), -pair) < 1e-15);
  CHECK_THROWS_AS(attention::rotated_at_position(pair, -0.5), std::invalid_argument);
  CHECK_THROWS_AS(attention::rotated_at_position(pair, std::nan("")), std::invalid_argument);
}

TEST_CASE("rotary positions refuse an odd or empty width and a negative position", "[ch15]") {
  for (const Eigen::Index d : {0, 1, 3, 7}) {
    CAPTURE(d);
    CHECK_THROWS_AS(attention::rotated_by_position(Matrix::Ones(2, d)), std::invalid_argument);
    CHECK_THROWS_AS(attention::rotated_back(Matrix::Ones(2, d)), std::invalid_argument);
  }
  CHECK_THROWS_AS(attention::rotated_by_position(Matrix::Ones(2, 4), -1), std::invalid_argument);
  CHECK_THROWS_AS(attention::rotated_back(Matrix::Ones(2, 4), -1), std::invalid_argument);
  CHECK_NOTHROW(attention::rotated_by_position(Matrix::Ones(0, 4), 0));  // no rows: nothing to turn
}

TEST_CASE("multi_head_attention with rotary positions refuses fewer keys than queries, and an odd head width",
          "[ch15]") {
  std::mt19937_64 generator(1518);
  const attention::MultiHeadWeights weights = rotary_tests::random_weights(8, 2, 4, generator);
  const Matrix queries = support::random_matrix(4, 8, generator);
  const Matrix keys = support::random_matrix(3, 8, generator);
  attention::AttentionOptions rotary;
  rotary.rotary = true;
  // Three keys stand at positions 0, 1, 2: four queries cannot be the last of them.
  CHECK_THROWS_AS(attention::multi_head_attention(queries, keys, keys, weights, rotary), std::invalid_argument);
  CHECK_NOTHROW(attention::multi_head_attention(queries, keys, keys, weights));  // without positions it is fine
  CHECK_NOTHROW(attention::multi_head_attention(keys, queries, queries, weights, rotary));
  // Heads of width 3 leave a coordinate without its pair.
  const attention::MultiHeadWeights odd = rotary_tests::random_weights(8, 2, 3, generator);
  CHECK_THROWS_AS(attention::multi_head_attention(queries, queries, queries, odd, rotary), std::invalid_argument);
  CHECK_NOTHROW(attention::multi_head_attention(queries, queries, queries, odd));
}

TEST_CASE("with rotary positions each head is chapter 3's attention on its turned projections", "[ch15]") {
  std::mt19937_64 generator(1523);
  const Matrix queries = support::random_matrix(3, 8, generator);
  const Matrix keys = support::random_matrix(7, 8, generator);
  const Matrix values = support::random_matrix(7, 8, generator);
  const attention::MultiHeadWeights weights = rotary_tests::random_weights(8, 2, 4, generator);
  attention::AttentionOptions options;
  options.rotary = true;
  const attention::MultiHeadSteps steps = attention::multi_head_attention(queries, keys, values, weights, options);
  for (std::size_t h = 0; h < weights.heads.size(); ++h) {
    CAPTURE(h);
    // The keys stand at 0 … 6, the three queries at 4, 5, 6.
    const Matrix q = attention::rotated_by_position(queries * weights.heads[h].query, 4);
    const Matrix k = attention::rotated_by_position(keys * weights.heads[h].key);
    const attention::AttentionSteps alone =
        attention::scaled_dot_product_attention(q, k, Matrix(values * weights.heads[h].value));
    CHECK(steps.heads[h].queries == q);
    CHECK(steps.heads[h].keys == k);
    CHECK(rotary_tests::largest_difference(steps.heads[h].attention.output, alone.output) < 1e-14);
  }
}

TEST_CASE("with rotary positions one word repeated scores by the offset alone: each head's scores are constant along "
          "every diagonal",
          "[ch15]") {
  std::mt19937_64 generator(1524);
  const Eigen::Index m = 8;
  const Matrix word = support::random_matrix(1, 8, generator);
  const Matrix x = word.replicate(m, 1);
  const attention::MultiHeadWeights weights = rotary_tests::random_weights(8, 2, 4, generator);
  attention::AttentionOptions options;
  options.rotary = true;
  for (const Eigen::Index n : {m, Eigen::Index{3}}) {  // every position asks, or only the last three
    const attention::MultiHeadSteps steps = attention::multi_head_attention(x.bottomRows(n), x, x, weights, options);
    for (std::size_t h = 0; h < weights.heads.size(); ++h) {
      const Matrix& scores = steps.heads[h].attention.scores;
      double worst = 0.0, diagonal = 0.0, spread = 0.0;
      for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index j = 0; j < m; ++j) {
          // Query i stands at m − n + i: its score with key j is the relative form at the offset m − n + i − j.
          const Eigen::Index offset = m - n + i - j;
          if (i > 0 && j > 0) diagonal = std::max(diagonal, std::abs(scores(i, j) - scores(i - 1, j - 1)));
          const double expected = (word * weights.heads[h].query * attention::shift_map(offset, 4) *
                                   (word * weights.heads[h].key).transpose())(0, 0);
          worst = std::max(worst, std::abs(scores(i, j) - expected));
          spread = std::max(spread, std::abs(scores(i, j) - scores(0, 0)));
        }
      }
      CAPTURE(n, h);
      CHECK(diagonal < 1e-12);
      CHECK(worst < 1e-12);
      CHECK(spread > 1e-3);  // the same word, yet not the same score everywhere: the offsets differ
    }
  }
}

TEST_CASE("with rotary positions the last n queries against all m keys give the last n rows of causal "
          "self-attention",
          "[ch15]") {
  std::mt19937_64 generator(1519);
  const Eigen::Index m = 9, d = 8;
  const Matrix x = support::random_matrix(m, d, generator);
  const attention::MultiHeadWeights weights = rotary_tests::random_weights(d, 2, 4, generator);
  attention::AttentionOptions whole;
  whole.mask = attention::causal_mask(m);
  whole.rotary = true;
  const attention::MultiHeadSteps full = attention::multi_head_attention(x, x, x, weights, whole);
  for (Eigen::Index n = 1; n <= m; ++n) {
    CAPTURE(n);
    attention::AttentionOptions block;
    block.mask = attention::Mask(whole.mask->bottomRows(n));  // query i stands at position m − n + i
    block.rotary = true;
    const attention::MultiHeadSteps last = attention::multi_head_attention(x.bottomRows(n), x, x, weights, block);
    // Rounding only: the same sums, from products of other shapes.
    CHECK(rotary_tests::largest_difference(last.output, full.output.bottomRows(n)) < 1e-13);
    for (std::size_t h = 0; h < weights.heads.size(); ++h) {
      CHECK(rotary_tests::largest_difference(last.heads[h].queries, full.heads[h].queries.bottomRows(n)) < 1e-14);
      CHECK(last.heads[h].keys == full.heads[h].keys);
    }
  }
  // The turn is felt: without it the same rows come out otherwise.
  attention::AttentionOptions unturned = whole;
  unturned.rotary = false;
  CHECK(rotary_tests::largest_difference(attention::multi_head_attention(x, x, x, weights, unturned).output,
                                         full.output) > 1e-3);
}

TEST_CASE("with rotary positions reordering the tokens no longer only reorders the outputs", "[ch15]") {
  std::mt19937_64 generator(1520);
  for (const Eigen::Index n : {3, 6, 11}) {
    const Matrix x = support::random_matrix(n, 8, generator);
    const attention::MultiHeadWeights weights = rotary_tests::random_weights(8, 2, 4, generator);
    const std::vector<Eigen::Index> order = rotary_tests::shuffled(n, generator);
    const Matrix y = rotary_tests::reordered(x, order);
    CAPTURE(n);
    // Without positions (chapter 6's argument): the outputs move with their tokens, up to rounding.
    const Matrix before = attention::multi_head_attention(x, x, x, weights).output;
    const Matrix after = attention::multi_head_attention(y, y, y, weights).output;
    CHECK(rotary_tests::largest_difference(after, rotary_tests::reordered(before, order)) < 1e-13);
    // With rotary positions a token's output depends on where it stands.
    attention::AttentionOptions rotary;
    rotary.rotary = true;
    const Matrix turned_before = attention::multi_head_attention(x, x, x, weights, rotary).output;
    const Matrix turned_after = attention::multi_head_attention(y, y, y, weights, rotary).output;
    CHECK(rotary_tests::largest_difference(turned_after, rotary_tests::reordered(turned_before, order)) > 1e-3);
  }
}

TEST_CASE("multi_head_backward with rotary positions agrees with central differences, with and without the causal "
          "mask",
          "[ch15]") {
  std::mt19937_64 generator(1521);
  for (const bool masked : {false, true}) {
    CAPTURE(masked);
    Matrix x = support::random_matrix(6, 8, generator);
    attention::MultiHeadWeights w = rotary_tests::random_weights(8, 2, 4, generator);
    const Matrix direction = support::random_matrix(6, 8, generator);
    attention::AttentionOptions options;
    if (masked) options.mask = attention::causal_mask(6);
    options.rotary = true;
    const auto loss = [&] {
      return rotary_tests::probe(attention::multi_head_attention(x, x, x, w, options).output, direction);
    };
    const auto steps = attention::multi_head_attention(x, x, x, w, options);
    const auto gradients = attention::multi_head_backward(x, x, x, w, steps, direction, options);
    const Matrix input = gradients.queries + gradients.keys + gradients.values;
    CHECK(attention::relative_error(input, attention::central_differences(loss, x)) < rotary_tests::gradient_tolerance);
    CHECK(attention::relative_error(gradients.weights.output, attention::central_differences(loss, w.output)) <
          rotary_tests::gradient_tolerance);
    for (std::size_t i = 0; i < 2; ++i) {
      CAPTURE(i);
      CHECK(attention::relative_error(gradients.weights.heads[i].query,
                                      attention::central_differences(loss, w.heads[i].query)) <
            rotary_tests::gradient_tolerance);
      CHECK(attention::relative_error(gradients.weights.heads[i].key,
                                      attention::central_differences(loss, w.heads[i].key)) <
            rotary_tests::gradient_tolerance);
      CHECK(attention::relative_error(gradients.weights.heads[i].value,
                                      attention::central_differences(loss, w.heads[i].value)) <
            rotary_tests::gradient_tolerance);
    }
  }
}

TEST_CASE("multi_head_backward with rotary positions turns the queries' gradient back from the last of the keys' "
          "positions",
          "[ch15]") {
  // Three queries of their own at positions 3, 4, 5 against six keys and values at 0 … 5, each query seeing the
  // keys up to its own position: every gradient apart, against central differences.
  std::mt19937_64 generator(1522);
  Matrix queries = support::random_matrix(3, 8, generator);
  Matrix keys = support::random_matrix(6, 8, generator);
  Matrix values = support::random_matrix(6, 8, generator);
  attention::MultiHeadWeights w = rotary_tests::random_weights(8, 2, 4, generator);
  const Matrix direction = support::random_matrix(3, 8, generator);
  attention::AttentionOptions options;
  options.mask = attention::Mask(attention::causal_mask(6).bottomRows(3));
  options.rotary = true;
  const auto loss = [&] {
    return rotary_tests::probe(attention::multi_head_attention(queries, keys, values, w, options).output, direction);
  };
  const auto steps = attention::multi_head_attention(queries, keys, values, w, options);
  const auto gradients = attention::multi_head_backward(queries, keys, values, w, steps, direction, options);
  CHECK(attention::relative_error(gradients.queries, attention::central_differences(loss, queries)) <
        rotary_tests::gradient_tolerance);
  CHECK(attention::relative_error(gradients.keys, attention::central_differences(loss, keys)) <
        rotary_tests::gradient_tolerance);
  CHECK(attention::relative_error(gradients.values, attention::central_differences(loss, values)) <
        rotary_tests::gradient_tolerance);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    CHECK(attention::relative_error(gradients.weights.heads[i].query,
                                    attention::central_differences(loss, w.heads[i].query)) <
          rotary_tests::gradient_tolerance);
    CHECK(attention::relative_error(gradients.weights.heads[i].key,
                                    attention::central_differences(loss, w.heads[i].key)) <
          rotary_tests::gradient_tolerance);
  }
}

TEST_CASE("token_classifier_backward with rotary or no positions agrees with central differences, every weight",
          "[ch15]") {
  const std::vector<Eigen::Index> words{4, 0, 2, 5, 2};
  const std::vector<Eigen::Index> targets{2, 0, 1, 3, 5};
  for (const attention::Positions positions : {attention::Positions::rotary, attention::Positions::none}) {
    for (const attention::Visibility visibility : {attention::Visibility::everything, attention::Visibility::causal}) {
      CAPTURE(static_cast<int>(positions), static_cast<int>(visibility));
      attention::NumpyGenerator generator(15);
      attention::TokenClassifierWeights weights =
          attention::initial_token_classifier(rotary_tests::small_shape(), generator);
      const auto loss = [&] {
        return attention::softmax_cross_entropy(
                   attention::token_classifier(weights, words, visibility, positions).logits, targets)
            .loss;
      };
      const attention::TokenClassifierSteps steps = attention::token_classifier(weights, words, visibility, positions);
      for (const auto& layer : steps.layers) REQUIRE(layer.feed_forward.widened.cwiseAbs().minCoeff() > 1e-3);
      const auto error = attention::softmax_cross_entropy(steps.logits, targets);
      attention::TokenClassifierWeights gradients =
          attention::token_classifier_backward(weights, words, steps, error.logits_gradient, visibility, positions);
      const std::vector<attention::ParameterBlock> parameters = attention::parameter_blocks(weights);
      const std::vector<attention::ParameterBlock> analytic = attention::parameter_blocks(gradients);
      REQUIRE(parameters.size() == analytic.size());
      double worst = 0.0;
      for (std::size_t b = 0; b < parameters.size(); ++b) {
        Eigen::Map<Matrix> parameter(parameters[b].data, parameters[b].size, 1);
        const Matrix numeric = attention::central_differences(loss, parameter);
        const Matrix exact = Eigen::Map<const Matrix>(analytic[b].data, analytic[b].size, 1);
        worst = std::max(worst, attention::relative_error(exact, numeric));
      }
      CHECK(worst < 1e-7);
      // The embedding and the first W^Q on their own, the two the positions pass through.
      CHECK(attention::relative_error(gradients.embedding, attention::central_differences(loss, weights.embedding)) <
            1e-7);
      Matrix& first_query = weights.layers[0].attention.heads[0].query;
      CHECK(attention::relative_error(gradients.layers[0].attention.heads[0].query,
                                      attention::central_differences(loss, first_query)) < 1e-7);
    }
  }
}

TEST_CASE("the token classifier's positions: added to the first layer's input, or turned in every head, or none",
          "[ch15]") {
  attention::NumpyGenerator generator(16);
  const attention::TokenClassifierWeights weights =
      attention::initial_token_classifier(rotary_tests::small_shape(), generator);
  const std::vector<Eigen::Index> words{1, 3, 0, 5, 3, 2};
  const Matrix rows = attention::embedding_lookup(weights.embedding, words);
  CHECK(attention::first_layer_input(weights.embedding, words, attention::Positions::none) == rows);
  CHECK(attention::first_layer_input(weights.embedding, words, attention::Positions::rotary) == rows);
  CHECK(attention::first_layer_input(weights.embedding, words, attention::Positions::added) ==
        rows + attention::positional_encoding(6, 8));
  CHECK(attention::first_layer_input(weights.embedding, words) == rows + attention::positional_encoding(6, 8));
  CHECK(attention::token_classifier(weights, words, attention::Visibility::causal, attention::Positions::added).input ==
        attention::token_classifier(weights, words, attention::Visibility::causal).input);
  // Without positions and without the mask the model reads a set of words: reordered words, reordered logits.
  // With rotary positions it does not.
  const std::vector<Eigen::Index> order{4, 0, 5, 2, 1, 3};
  std::vector<Eigen::Index> moved;
  for (const Eigen::Index r : order) moved.push_back(words[static_cast<std::size_t>(r)]);
  const auto logits = [&](const std::vector<Eigen::Index>& input, attention::Positions positions) {
    return attention::token_classifier(weights, input, attention::Visibility::everything, positions).logits;
  };
  CHECK(rotary_tests::largest_difference(logits(moved, attention::Positions::none),
                                         rotary_tests::reordered(logits(words, attention::Positions::none), order)) <
        1e-13);
  CHECK(rotary_tests::largest_difference(logits(moved, attention::Positions::rotary),
                                         rotary_tests::reordered(logits(words, attention::Positions::rotary), order)) >
        1e-3);
}
