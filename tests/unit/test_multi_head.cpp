// Multi-head attention and its seeded weights (chapter 5).
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Eigen/LU>
#include <Eigen/SVD>
#include <catch2/catch.hpp>

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "attention/mulberry32.hpp"
#include "attention/multi_head.hpp"
#include "attention/random_weights.hpp"
#include "attention/standard_normal.hpp"
#include "support.hpp"

using attention::Matrix;
using attention::MultiHeadWeights;

namespace multi_head_tests {

// Weights with standard normal entries from std::mt19937_64 (not the book's
// generator, so that these tests do not lean on random_weights.hpp).
MultiHeadWeights normal_weights(Eigen::Index d_model, Eigen::Index heads, Eigen::Index d_k, Eigen::Index d_v,
                                std::mt19937_64& generator) {
  MultiHeadWeights weights;
  for (Eigen::Index i = 0; i < heads; ++i) {
    weights.heads.push_back({support::random_matrix(d_model, d_k, generator),
                             support::random_matrix(d_model, d_k, generator),
                             support::random_matrix(d_model, d_v, generator)});
  }
  weights.output = support::random_matrix(heads * d_v, d_model, generator);
  return weights;
}

double largest_difference(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

// Head i by its definition: chapter 3's attention on its own projections, the queries made from @p queries_from,
// the keys and values from @p keys_from.
attention::AttentionSteps<double> head_alone(const Matrix& queries_from, const Matrix& keys_from,
                                             const MultiHeadWeights& weights, std::size_t i) {
  return attention::scaled_dot_product_attention(Matrix(queries_from * weights.heads[i].query),
                                                 Matrix(keys_from * weights.heads[i].key),
                                                 Matrix(keys_from * weights.heads[i].value));
}

}  // namespace multi_head_tests

TEST_CASE("one head with W^O = I is chapter 3's attention on the projections", "[ch05]") {
  std::mt19937_64 generator(51);
  for (const auto& [n, d_model] : {std::pair<Eigen::Index, Eigen::Index>{3, 4}, {1, 1}, {7, 5}, {12, 16}}) {
    const Matrix x = support::random_matrix(n, d_model, generator);
    MultiHeadWeights weights = multi_head_tests::normal_weights(d_model, 1, d_model, d_model, generator);
    weights.output = Matrix::Identity(d_model, d_model);
    const auto steps = attention::multi_head_attention(x, x, x, weights);
    const auto single =
        attention::scaled_dot_product_attention(Matrix(x * weights.heads[0].query), Matrix(x * weights.heads[0].key),
                                                Matrix(x * weights.heads[0].value));
    CHECK(steps.output == single.output);  // multiplying by I changes no bit
    CHECK(steps.heads[0].attention.weights == single.weights);
  }
}

TEST_CASE("one head with identity projections on the toy gives the hand-worked outputs", "[ch05]") {
  // The hand-worked lesson works the toy through by hand, to 3 decimals (as in the chapter 3 tests).
  const support::Toy toy;
  MultiHeadWeights weights;
  weights.heads.push_back({Matrix::Identity(2, 2), Matrix::Identity(2, 2), Matrix::Identity(2, 2)});
  weights.output = Matrix::Identity(2, 2);
  const auto steps = attention::multi_head_attention(toy.queries, toy.keys, toy.values, weights);
  Matrix hand(3, 2);
  hand << 0.718, 0.282,  //
      0.398, 0.602,      //
      0.602, 0.398;
  CHECK(multi_head_tests::largest_difference(steps.output, hand) < 0.0005);
}

TEST_CASE("each head is scaled dot-product attention on its own projections", "[ch05]") {
  std::mt19937_64 generator(52);
  const Matrix x = support::random_matrix(5, 6, generator);
  const MultiHeadWeights weights = multi_head_tests::normal_weights(6, 3, 2, 2, generator);
  const auto steps = attention::multi_head_attention(x, x, x, weights);
  REQUIRE(steps.heads.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& head = steps.heads[i];
    CHECK(head.queries == Matrix(x * weights.heads[i].query));
    CHECK(head.keys == Matrix(x * weights.heads[i].key));
    CHECK(head.values == Matrix(x * weights.heads[i].value));
    const auto alone = attention::scaled_dot_product_attention(head.queries, head.keys, head.values);
    CHECK(head.attention.output == alone.output);
    // The concatenation holds head i's output in columns 2i, 2i + 1, unchanged.
    CHECK(steps.concatenation.middleCols(static_cast<Eigen::Index>(2 * i), 2) == alone.output);
  }
  CHECK(steps.concatenation.rows() == 5);
  CHECK(steps.concatenation.cols() == 6);
  CHECK(steps.output.rows() == 5);
  CHECK(steps.output.cols() == 6);
}

TEST_CASE("concatenating and multiplying by W^O is the sum of each head through its own rows of W^O", "[ch05]") {
  // Concat(head_1, …, head_h) W^O = Σ_i head_i W^O_i: no average, no vote.
  std::mt19937_64 generator(53);
  const Matrix x = support::random_matrix(4, 8, generator);
  const MultiHeadWeights weights = multi_head_tests::normal_weights(8, 4, 2, 2, generator);
  const auto steps = attention::multi_head_attention(x, x, x, weights);
  Matrix sum = Matrix::Zero(4, 8);
  for (Eigen::Index i = 0; i < 4; ++i) {
    sum += steps.heads[static_cast<std::size_t>(i)].attention.output * weights.output.middleRows(2 * i, 2);
  }
  CHECK(multi_head_tests::largest_difference(steps.output, sum) < 1e-12);
}

TEST_CASE("the order in which the heads are computed does not matter", "[ch05]") {
  // Permute the heads and the matching row blocks of W^O: the same output.
  std::mt19937_64 generator(54);
  for (const auto& [heads, width] : {std::pair<Eigen::Index, Eigen::Index>{2, 2}, {4, 3}, {8, 1}}) {
    const Eigen::Index d_model = heads * width;
    const Matrix x = support::random_matrix(6, d_model, generator);
    const MultiHeadWeights weights = multi_head_tests::normal_weights(d_model, heads, width, width, generator);
    std::vector<Eigen::Index> order(static_cast<std::size_t>(heads));
    for (Eigen::Index i = 0; i < heads; ++i) order[static_cast<std::size_t>(i)] = (i * 3 + 1) % heads;  // a shuffle
    if (heads == 2) order = {1, 0};
    MultiHeadWeights permuted;
    permuted.output = Matrix(weights.output.rows(), weights.output.cols());
    for (std::size_t slot = 0; slot < order.size(); ++slot) {
      const Eigen::Index from = order[slot];
      permuted.heads.push_back(weights.heads[static_cast<std::size_t>(from)]);
      permuted.output.middleRows(static_cast<Eigen::Index>(slot) * width, width) =
          weights.output.middleRows(from * width, width);
    }
    const auto original = attention::multi_head_attention(x, x, x, weights);
    const auto reordered = attention::multi_head_attention(x, x, x, permuted);
    CHECK(multi_head_tests::largest_difference(original.output, reordered.output) < 1e-12);
    for (std::size_t slot = 0; slot < order.size(); ++slot) {
      CHECK(reordered.heads[slot].attention.weights ==
            original.heads[static_cast<std::size_t>(order[slot])].attention.weights);
    }
  }
}

TEST_CASE("a projection in two stages is one per-head matrix", "[ch05]") {
  // The lecture notes project X by W first, then each head by its own A_i: (X W) A_i = X (W A_i).
  std::mt19937_64 generator(55);
  const Matrix x = support::random_matrix(5, 4, generator);
  const Matrix shared_query = support::random_matrix(4, 4, generator);
  const Matrix shared_key = support::random_matrix(4, 4, generator);
  const Matrix shared_value = support::random_matrix(4, 4, generator);
  const MultiHeadWeights stage_two = multi_head_tests::normal_weights(4, 2, 2, 2, generator);
  MultiHeadWeights combined = stage_two;
  for (auto& head : combined.heads) {
    head.query = shared_query * head.query;
    head.key = shared_key * head.key;
    head.value = shared_value * head.value;
  }
  const auto two_stages =
      attention::multi_head_attention(x * shared_query, x * shared_key, x * shared_value, stage_two);
  const auto one_stage = attention::multi_head_attention(x, x, x, combined);
  CHECK(multi_head_tests::largest_difference(two_stages.output, one_stage.output) < 1e-12);
}

TEST_CASE("a one-stage head splits into two stages through an invertible shared matrix", "[ch05]") {
  // Chapter 5: "any one-stage head splits in two: take A_i = B⁻¹ W^Q_i, so B A_i = W^Q_i", and "the tests run
  // both ways". The other way is the test above.
  std::mt19937_64 generator(57);
  const Matrix x = support::random_matrix(5, 4, generator);
  const MultiHeadWeights one_stage = multi_head_tests::normal_weights(4, 2, 2, 2, generator);
  const Matrix shared = support::random_matrix(4, 4, generator);
  const Eigen::VectorXd singular_values = shared.jacobiSvd().singularValues();
  REQUIRE(singular_values(0) / singular_values(3) < 1e3);  // invertible, and far from singular
  MultiHeadWeights stage_two = one_stage;
  const auto solver = shared.partialPivLu();
  for (auto& head : stage_two.heads) {
    head.query = solver.solve(head.query);
    head.key = solver.solve(head.key);
    head.value = solver.solve(head.value);
  }
  const auto two_stages = attention::multi_head_attention(x * shared, x * shared, x * shared, stage_two);
  const auto one = attention::multi_head_attention(x, x, x, one_stage);
  CHECK(multi_head_tests::largest_difference(two_stages.output, one.output) < 1e-10);
}

TEST_CASE("queries from one sequence, keys and values from another: each head is attention across them", "[ch05]") {
  // Chapter 5: the library "can compute encoder-decoder attention, with queries from the decoder and keys and
  // values from the encoder". Three decoder rows against five encoder rows: by the definition, each head is
  // chapter 3's attention on the projections, its weights 3 × 5 with rows summing to 1, and an output row
  // depends on its own query alone.
  std::mt19937_64 generator(58);
  Matrix decoder = support::random_matrix(3, 6, generator);
  const Matrix encoder = support::random_matrix(5, 6, generator);
  const MultiHeadWeights weights = multi_head_tests::normal_weights(6, 3, 2, 2, generator);
  const auto across = attention::multi_head_attention(decoder, encoder, encoder, weights);
  REQUIRE(across.heads.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(across.heads[i].attention.output == multi_head_tests::head_alone(decoder, encoder, weights, i).output);
    CHECK(across.heads[i].attention.weights.rows() == 3);
    CHECK(across.heads[i].attention.weights.cols() == 5);
    CHECK((across.heads[i].attention.weights.rowwise().sum().array() - 1.0).abs().maxCoeff() < 1e-14);
  }
  CHECK(across.output.rows() == 3);
  CHECK(across.output.cols() == 6);
  decoder.row(1) = support::random_matrix(1, 6, generator);
  const auto changed = attention::multi_head_attention(decoder, encoder, encoder, weights);
  CHECK(changed.output.row(0) == across.output.row(0));
  CHECK(changed.output.row(2) == across.output.row(2));
  CHECK(changed.output.row(1) != across.output.row(1));
}

TEST_CASE("heads of different widths: the library needs only the shapes to fit", "[ch05]") {
  // Chapter 5: multi_head_attention "needs only the shapes of the matrices to fit together; the even split is
  // the paper's choice". d_model = 5; head 1 has d_k = 3, d_v = 1, head 2 d_k = 2, d_v = 4: W^O is 5 × 5.
  std::mt19937_64 generator(59);
  const Matrix x = support::random_matrix(4, 5, generator);
  MultiHeadWeights weights;
  weights.heads.push_back({support::random_matrix(5, 3, generator), support::random_matrix(5, 3, generator),
                           support::random_matrix(5, 1, generator)});
  weights.heads.push_back({support::random_matrix(5, 2, generator), support::random_matrix(5, 2, generator),
                           support::random_matrix(5, 4, generator)});
  weights.output = support::random_matrix(5, 5, generator);
  const auto steps = attention::multi_head_attention(x, x, x, weights);
  REQUIRE(steps.heads.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(steps.heads[i].attention.output == multi_head_tests::head_alone(x, x, weights, i).output);
  }
  CHECK(steps.concatenation.cols() == 5);
  const Matrix sum = steps.heads[0].attention.output * weights.output.topRows(1) +
                     steps.heads[1].attention.output * weights.output.bottomRows(4);
  CHECK(multi_head_tests::largest_difference(steps.output, sum) < 1e-13);
}

TEST_CASE("a mask applies to every head", "[ch05]") {
  std::mt19937_64 generator(56);
  const Matrix x = support::random_matrix(4, 6, generator);
  const MultiHeadWeights weights = multi_head_tests::normal_weights(6, 3, 2, 2, generator);
  attention::AttentionOptions causal;
  causal.mask = attention::causal_mask(4);
  const auto steps = attention::multi_head_attention(x, x, x, weights, causal);
  for (const auto& head : steps.heads) {
    CHECK(head.attention.weights(0, 0) == 1.0);
    CHECK(head.attention.weights.row(0).tail(3).isZero(0.0));  // exactly 0
    CHECK(head.attention.output.row(0) == head.values.row(0));
  }
}

// Chapter 0: without positions the two saws of "I saw a saw" are one input, and attention over the whole sentence
// does not tell them apart: equal rows give equal queries, the same scores against every key, the same weights
// and the same output. (Equal to rounding: a product may add the two rows' terms in different orders.)
TEST_CASE("two equal rows of the input get equal outputs: attention alone cannot tell the two saws apart", "[ch00]") {
  std::mt19937_64 generator(20);
  Matrix words = support::random_matrix(4, 8, generator);
  words.row(3) = words.row(1);
  const MultiHeadWeights weights = multi_head_tests::normal_weights(8, 2, 4, 4, generator);
  const Matrix output = attention::multi_head_attention(words, words, words, weights).output;
  const double scale = output.cwiseAbs().maxCoeff();
  CHECK(multi_head_tests::largest_difference(output.row(1), output.row(3)) <= 1e-14 * scale);
  CHECK(multi_head_tests::largest_difference(output.row(1), output.row(2)) > 1e-3 * scale);  // other words differ
}

TEST_CASE("head_width is d_model divided by h, and refuses what does not divide", "[ch05]") {
  CHECK(attention::head_width(512, 8) == 64);    // the paper's base model, §3.2.2
  CHECK(attention::head_width(1024, 16) == 64);  // its big model, Table 3
  CHECK(attention::head_width(4, 2) == 2);       // the Korean walkthrough's shapes
  CHECK(attention::head_width(4, 4) == 1);
  CHECK(attention::head_width(7, 1) == 7);
  CHECK_THROWS_AS(attention::head_width(4, 3), std::invalid_argument);
  CHECK_THROWS_AS(attention::head_width(512, 5), std::invalid_argument);
  CHECK_THROWS_AS(attention::head_width(4, 0), std::invalid_argument);
  CHECK_THROWS_AS(attention::head_width(0, 1), std::invalid_argument);
  CHECK_THROWS_AS(attention::head_width(-4, 2), std::invalid_argument);
  CHECK_THROWS_AS(attention::head_width(2, 4), std::invalid_argument);
}

TEST_CASE("multi_head_attention refuses matrices that do not fit", "[ch05]") {
  std::mt19937_64 generator(57);
  const Matrix x = support::random_matrix(3, 4, generator);
  const MultiHeadWeights good = multi_head_tests::normal_weights(4, 2, 2, 2, generator);
  CHECK_NOTHROW(attention::multi_head_attention(x, x, x, good));

  MultiHeadWeights no_heads;
  no_heads.output = Matrix::Identity(4, 4);
  CHECK_THROWS_AS(attention::multi_head_attention(x, x, x, no_heads), std::invalid_argument);

  MultiHeadWeights wrong_rows = good;
  wrong_rows.heads[1].query = Matrix::Zero(3, 2);  // X has 4 columns
  CHECK_THROWS_AS(attention::multi_head_attention(x, x, x, wrong_rows), std::invalid_argument);

  MultiHeadWeights unequal_query_key = good;
  unequal_query_key.heads[0].key = Matrix::Zero(4, 3);
  CHECK_THROWS_AS(attention::multi_head_attention(x, x, x, unequal_query_key), std::invalid_argument);

  MultiHeadWeights wrong_output = good;
  wrong_output.output = Matrix::Zero(3, 4);  // the heads concatenate to 4 columns
  CHECK_THROWS_AS(attention::multi_head_attention(x, x, x, wrong_output), std::invalid_argument);

  // One value per key is still required, by scaled_dot_product_attention.
  CHECK_THROWS_AS(attention::multi_head_attention(x, x, Matrix::Zero(2, 4), good), std::invalid_argument);
}

TEST_CASE("random_normal_matrix draws row by row, each draw times the scale", "[ch05]") {
  attention::Mulberry32 drawn(7);
  const Matrix matrix = attention::random_normal_matrix(drawn, 3, 2, 0.25);
  attention::Mulberry32 by_hand(7);
  for (Eigen::Index r = 0; r < 3; ++r) {
    for (Eigen::Index c = 0; c < 2; ++c) {
      CHECK(matrix(r, c) == attention::standard_normal(by_hand) * 0.25);
    }
  }
  CHECK(drawn.next_uint32() == by_hand.next_uint32());  // both streams advanced by 12 numbers
  CHECK_THROWS_AS(attention::random_normal_matrix(drawn, -1, 2, 1.0), std::invalid_argument);
}

TEST_CASE(
    "random_multi_head_weights draws W^Q_1, W^K_1, W^V_1, …, then W^O, scaled by 1 over the square root of d_model",
    "[ch05]") {
  const Eigen::Index d_model = 6, heads = 3, width = 2;
  attention::Mulberry32 drawn(2017);
  const MultiHeadWeights weights = attention::random_multi_head_weights(drawn, d_model, heads);
  // The same stream, one normal at a time, in the documented order.
  attention::Mulberry32 by_hand(2017);
  const double scale = 1.0 / std::sqrt(6.0);
  const auto next_matrix = [&](Eigen::Index rows, Eigen::Index columns) {
    Matrix m(rows, columns);
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index c = 0; c < columns; ++c) m(r, c) = attention::standard_normal(by_hand) * scale;
    return m;
  };
  REQUIRE(weights.heads.size() == 3);
  for (const auto& head : weights.heads) {
    CHECK(head.query == next_matrix(d_model, width));
    CHECK(head.key == next_matrix(d_model, width));
    CHECK(head.value == next_matrix(d_model, width));
  }
  CHECK(weights.output == next_matrix(heads * width, d_model));
  // 4 × d_model² normals, two uniforms each: all three streams are level again.
  attention::Mulberry32 counted(2017);
  for (int i = 0; i < 8 * 36; ++i) counted.next_uint32();
  const std::uint32_t next = counted.next_uint32();
  CHECK(drawn.next_uint32() == next);
  CHECK(by_hand.next_uint32() == next);
  CHECK_THROWS_AS(attention::random_multi_head_weights(drawn, 6, 4), std::invalid_argument);
}

TEST_CASE("with weights scaled by 1 over the square root of d_model the projections have variance near 1", "[ch05]") {
  // Entries of X with variance 1, times W^Q_i with entries of variance 1/d_model:
  // each entry of Q_i sums d_model products of variance 1/d_model.
  const Eigen::Index d_model = 256, heads = 4, tokens = 64;
  attention::Mulberry32 generator(3);
  const MultiHeadWeights weights = attention::random_multi_head_weights(generator, d_model, heads);
  const Matrix x = attention::random_normal_matrix(generator, tokens, d_model, 1.0);
  for (const auto& head : weights.heads) {
    for (const Matrix& projection : {Matrix(x * head.query), Matrix(x * head.key), Matrix(x * head.value)}) {
      const double mean_square = projection.squaredNorm() / static_cast<double>(projection.size());
      CHECK(mean_square == Approx(1.0).margin(0.15));
    }
    // Chapter 5: "The division by √d_k then brings the scores back to variance about 1". A score sums d_k
    // products of two entries of variance about 1, so about d_k before the division and about 1 after it.
    const double d_k = static_cast<double>(head.query.cols());
    const Matrix scores = (x * head.query) * (x * head.key).transpose() / std::sqrt(d_k);
    CHECK(scores.squaredNorm() / static_cast<double>(scores.size()) == Approx(1.0).margin(0.25));
  }
}
