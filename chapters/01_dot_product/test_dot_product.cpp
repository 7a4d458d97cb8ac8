// Chapter 1's computation, tested in-process: dot_product::compute() on the toy's
// projections worked by hand, on queries and keys typed directly, against the
// library's pair-by-pair scores, under reordering of the tokens, and the flags'
// refusals. Every expected value has a reason of its own (a hand calculation, a
// property of the dot product), not the program's output.
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "attention/scores.hpp"
#include "chapter_support.hpp"
#include "dot_product.hpp"
#include "program/command_line.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_dot_product {

namespace {

using attention::Matrix;
using chapter_support::random_matrix;

// The toy's token vectors X and projections (chapter 1), typed out again here.
dot_product::Projections toy_projections() {
  dot_product::Projections projections;
  projections.features = {"animal", "action", "food"};
  projections.embeddings.resize(3, 3);
  projections.embeddings << 1, 0, 0, 0, 1, 0, 1, 0, 1;  // cat: animal; eat: action; fish: animal and food
  projections.query_weights.resize(3, 2);
  projections.query_weights << 1, 0, 0, 1, 0, 1;
  projections.key_weights.resize(3, 2);
  projections.key_weights << 2, 0, 0, 1, -1, 1;
  projections.value_weights.resize(3, 2);
  projections.value_weights << 1, 0, 0, 1, -0.5, 0.5;
  return projections;
}

dot_product::Inputs projected(dot_product::Projections projections) {
  dot_product::Inputs inputs;
  for (Eigen::Index i = 0; i < projections.embeddings.rows(); ++i) {
    inputs.query_labels.push_back(fmt::format("x{}", i + 1));
  }
  inputs.key_labels = inputs.query_labels;
  inputs.projections = std::move(projections);
  return inputs;
}

dot_product::Inputs typed(Matrix queries, Matrix keys) {
  dot_product::Inputs inputs;
  for (Eigen::Index i = 0; i < queries.rows(); ++i) inputs.query_labels.push_back(fmt::format("q{}", i + 1));
  for (Eigen::Index j = 0; j < keys.rows(); ++j) inputs.key_labels.push_back(fmt::format("k{}", j + 1));
  inputs.queries = std::move(queries);
  inputs.keys = std::move(keys);
  return inputs;
}

dot_product::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<dot_product::Flags>("dot_product", "chapter 1", arguments);
}

}  // namespace

TEST_CASE("the toy's projections give the book's queries keys and values", "[ch01]") {
  const dot_product::Result result = dot_product::compute(projected(toy_projections()));
  // Row i of X W adds up the rows of W for token i's features: cat = animal,
  // eat = action, fish = animal + food. Small integers and halves: exact.
  Matrix queries(3, 2), keys(3, 2), values(3, 2);
  queries << 1, 0, 0, 1, 1 + 0, 0 + 1;     // fish: (1, 0) + (0, 1)
  keys << 2, 0, 0, 1, 2 - 1, 0 + 1;        // fish: (2, 0) + (−1, 1)
  values << 1, 0, 0, 1, 1 - 0.5, 0 + 0.5;  // fish: (1, 0) + (−0.5, 0.5)
  CHECK(result.queries == queries);
  CHECK(result.keys == keys);
  CHECK(result.values == values);
}

TEST_CASE("the toy's scores are the dot products worked by hand and not symmetric", "[ch01]") {
  const dot_product::Result result = dot_product::compute(projected(toy_projections()));
  // q_cat = (1, 0), q_eat = (0, 1), q_fish = (1, 1) against k_cat = (2, 0),
  // k_eat = (0, 1), k_fish = (1, 1): e.g. fish asks cat, 1×2 + 1×0 = 2.
  Matrix by_hand(3, 3);
  // The matrix row by row, as it is written by hand.
  // clang-format off
  by_hand << 2, 0, 1,
             0, 1, 1,
             2, 1, 2;
  // clang-format on
  CHECK(result.scores == by_hand);
  // Cat asks fish 1, fish asks cat 2.
  CHECK(result.scores(0, 2) == 1.0);
  CHECK(result.scores(2, 0) == 2.0);
  CHECK_FALSE(result.symmetric);
  // Cat and eat ask each other 0 both ways, so cat and fish are the first differing pair.
  REQUIRE(result.asymmetric_pair.has_value());
  CHECK(*result.asymmetric_pair == std::pair<Eigen::Index, Eigen::Index>{0, 2});
}

TEST_CASE("one query against four keys: a right angle scores 0 and the longer key more", "[ch01]") {
  Matrix query(1, 2), keys(4, 2);
  query << 1, 0;
  keys << 0, 1, -1, 0, 3, 0, 1, 0;
  const dot_product::Result result = dot_product::compute(typed(query, keys));
  CHECK(result.scores == (Matrix(1, 4) << 0, -1, 3, 1).finished());
  // Typed queries and keys: no projections, no values, the inputs passed through.
  CHECK(result.queries == query);
  CHECK(result.keys == keys);
  CHECK(result.values.size() == 0);
  // One query, four keys: not square, so not symmetric, and no entry has a mirror image.
  CHECK_FALSE(result.symmetric);
  CHECK_FALSE(result.asymmetric_pair.has_value());
  // (1, 2) · (3, 1) = 3 + 2 = 5.
  CHECK(dot_product::compute(typed((Matrix(1, 2) << 1, 2).finished(), (Matrix(1, 2) << 3, 1).finished())).scores ==
        Matrix::Constant(1, 1, 5.0));
}

TEST_CASE("keys equal to the queries make the table symmetric", "[ch01]") {
  Matrix queries(3, 2);
  queries << 1, 0, 0, 1, 1, 1;
  const dot_product::Result result = dot_product::compute(typed(queries, queries));
  CHECK(result.symmetric);
  CHECK_FALSE(result.asymmetric_pair.has_value());
  CHECK(result.scores == result.scores.transpose());
  // The diagonal holds each query's squared length: 1, 1, 2.
  CHECK(result.scores.diagonal() == Eigen::Vector3d(1, 1, 2));
  // One key moved breaks the symmetry.
  Matrix keys = queries;
  keys(2, 0) = 2;
  const dot_product::Result moved = dot_product::compute(typed(queries, keys));
  CHECK_FALSE(moved.symmetric);
  // fish's key (2, 1): cat asks fish (1, 0) · (2, 1) = 2, fish asks cat (1, 1) · (1, 0) = 1; eat asks fish 1 both
  // ways, and cat and eat 0 both ways, so (cat, fish) is the one pair that differs.
  REQUIRE(moved.asymmetric_pair.has_value());
  CHECK(*moved.asymmetric_pair == std::pair<Eigen::Index, Eigen::Index>{0, 2});
  // A 2 × 2 table whose off-diagonal pair differs: the pair is (0, 1).
  const Matrix two = (Matrix(2, 2) << 1, 0, 0, 1).finished();
  const dot_product::Result two_by_two = dot_product::compute(typed(two, (Matrix(2, 2) << 0, 1, 2, 1).finished()));
  REQUIRE(two_by_two.asymmetric_pair.has_value());
  CHECK(*two_by_two.asymmetric_pair == std::pair<Eigen::Index, Eigen::Index>{0, 1});
  // Five queries, the identity, so the scores are Kᵀ: entries (0, 3) and (1, 2) are 1 and their mirror images 0,
  // every other pair agrees. Row by row, (0, 3) comes first; column by column it would be (1, 2), and the corner
  // pair (0, 4) agrees.
  Matrix transposed_scores = Matrix::Zero(5, 5);
  transposed_scores(0, 3) = 1;
  transposed_scores(1, 2) = 1;
  const dot_product::Result five = dot_product::compute(typed(Matrix::Identity(5, 5), transposed_scores.transpose()));
  REQUIRE(five.scores == transposed_scores);
  REQUIRE(five.asymmetric_pair.has_value());
  CHECK(*five.asymmetric_pair == std::pair<Eigen::Index, Eigen::Index>{0, 3});
}

TEST_CASE("the scores agree with the library's dot products one pair at a time", "[ch01]") {
  std::mt19937_64 generator(101);
  for (const auto& [n, m, d] : {std::tuple{1, 1, 1}, std::tuple{4, 7, 3}, std::tuple{6, 2, 5}}) {
    const Matrix queries = random_matrix(n, d, generator);
    const Matrix keys = random_matrix(m, d, generator);
    const dot_product::Result result = dot_product::compute(typed(queries, keys));
    REQUIRE(result.scores.rows() == n);
    REQUIRE(result.scores.cols() == m);
    CHECK(result.scores.isApprox(attention::scores_pair_by_pair(queries, keys), 1e-14));
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < m; ++j) {
        double sum = 0;
        for (Eigen::Index k = 0; k < d; ++k) sum += queries(i, k) * keys(j, k);
        CHECK(result.scores(i, j) == Approx(sum).epsilon(1e-13).margin(1e-14));
      }
    }
  }
}

TEST_CASE("with projections the scores are X W^Q times the transpose of X W^K", "[ch01]") {
  std::mt19937_64 generator(1);
  dot_product::Projections projections;
  projections.embeddings = random_matrix(5, 4, generator);
  projections.query_weights = random_matrix(4, 3, generator);
  projections.key_weights = random_matrix(4, 3, generator);
  projections.value_weights = random_matrix(4, 2, generator);
  const dot_product::Result result = dot_product::compute(projected(projections));
  const Matrix& x = projections.embeddings;
  CHECK(result.queries.isApprox(x * projections.query_weights, 1e-15));
  CHECK(result.keys.isApprox(x * projections.key_weights, 1e-15));
  CHECK(result.values.isApprox(x * projections.value_weights, 1e-15));
  // Associativity: Q Kᵀ = X (W^Q W^Kᵀ) Xᵀ, a d_model × d_model bilinear form.
  CHECK(result.scores.isApprox(x * (projections.query_weights * projections.key_weights.transpose()) * x.transpose(),
                               1e-13));
  CHECK(result.values.cols() == 2);
  // W^Q = W^K makes every score q_i · q_j, and q_j · q_i is the same sum of the
  // same products: a symmetric table, up to the rounding of the product's
  // kernel, which may add (i, j) and (j, i) in different ways (fused
  // multiply-adds in its vector lanes, separate ones in its tail: seen on one
  // processor). Exactly symmetric when no sum rounds: whole numbers.
  projections.key_weights = projections.query_weights;
  const dot_product::Result same_weights = dot_product::compute(projected(projections));
  CHECK(same_weights.queries == same_weights.keys);
  CHECK(same_weights.scores.isApprox(same_weights.scores.transpose(), 1e-15));
  dot_product::Projections whole = projections;
  whole.embeddings = (4 * projections.embeddings).array().round().matrix();
  whole.query_weights = (4 * projections.query_weights).array().round().matrix();
  whole.key_weights = whole.query_weights;
  CHECK(dot_product::compute(projected(whole)).symmetric);
}

TEST_CASE("reordering the tokens reorders the rows and columns of the scores", "[ch01]") {
  std::mt19937_64 generator(11);
  dot_product::Projections projections;
  projections.embeddings = random_matrix(5, 3, generator);
  projections.query_weights = random_matrix(3, 2, generator);
  projections.key_weights = random_matrix(3, 2, generator);
  projections.value_weights = random_matrix(3, 2, generator);
  const dot_product::Result result = dot_product::compute(projected(projections));
  Eigen::PermutationMatrix<Eigen::Dynamic> order(5);
  order.indices() << 2, 4, 0, 1, 3;
  dot_product::Projections reordered_projections = projections;
  reordered_projections.embeddings = order * projections.embeddings;
  const dot_product::Result reordered = dot_product::compute(projected(reordered_projections));
  // Each score is the same sum of the same products; the matrix product may add
  // them in another order for another row, so equal up to rounding.
  CHECK(reordered.scores.isApprox(Matrix(order * result.scores * order.transpose()), 1e-14));
  CHECK(reordered.queries.isApprox(Matrix(order * result.queries), 1e-15));
  CHECK(reordered.values.isApprox(Matrix(order * result.values), 1e-15));
}

TEST_CASE("a score is linear in its key: doubling a key doubles its column", "[ch01]") {
  std::mt19937_64 generator(12);
  const Matrix queries = random_matrix(4, 3, generator);
  Matrix keys = random_matrix(3, 3, generator);
  const dot_product::Result result = dot_product::compute(typed(queries, keys));
  keys.row(1) *= 2;  // doubling is exact in binary: so is every product and sum with it
  const dot_product::Result doubled = dot_product::compute(typed(queries, keys));
  CHECK(doubled.scores.col(1) == 2 * result.scores.col(1));
  CHECK(doubled.scores.col(0) == result.scores.col(0));
  CHECK(doubled.scores.col(2) == result.scores.col(2));
}

TEST_CASE("no flags give the toy and the flags give typed queries and keys", "[ch01]") {
  const dot_product::Inputs defaults = read({});
  REQUIRE(defaults.projections.has_value());
  const dot_product::Projections toy = toy_projections();
  CHECK(defaults.projections->embeddings == toy.embeddings);
  CHECK(defaults.projections->query_weights == toy.query_weights);
  CHECK(defaults.projections->key_weights == toy.key_weights);
  CHECK(defaults.projections->value_weights == toy.value_weights);
  CHECK(defaults.projections->features == toy.features);
  CHECK(defaults.query_labels == std::vector<std::string>{"cat", "eat", "fish"});
  CHECK(defaults.key_labels == defaults.query_labels);
  // Typed keys only: the toy's queries stay, and no projections.
  const dot_product::Inputs keys_only = read({"--k", "1,0; 0,1; 1,1"});
  CHECK_FALSE(keys_only.projections.has_value());
  CHECK(keys_only.keys == (Matrix(3, 2) << 1, 0, 0, 1, 1, 1).finished());
  CHECK(dot_product::compute(keys_only).symmetric);
  // Own X: features numbered f1, f2 …
  const dot_product::Inputs own = read({"--x", "1,2; 3,4", "--w-q", "1;0", "--w-k", "0;1", "--w-v", "1;1"});
  REQUIRE(own.projections.has_value());
  CHECK(own.projections->features == std::vector<std::string>{"f1", "f2"});
  // x1 = (1, 2), x2 = (3, 4): queries 1 and 3, keys 2 and 4, scores their products.
  CHECK(dot_product::compute(own).scores == (Matrix(2, 2) << 2, 4, 6, 12).finished());
}

TEST_CASE("the flags refuse projections that do not fit and name the flag", "[ch01]") {
  CHECK_THROWS_WITH(read({"--x", "1,0; 0,1", "--w-q", "1,0; 0,1; 1,1"}),
                    Catch::StartsWith("--w-q: 3 rows for 2 features"));
  CHECK_THROWS_WITH(read({"--w-v", "1,0; 0,1"}), Catch::StartsWith("--w-v: 2 rows for 3 features"));
  CHECK_THROWS_WITH(read({"--w-k", "2,0,0; 0,1,0; -1,1,0"}), Catch::StartsWith("--w-k: W^K is 3 wide but W^Q"));
  CHECK_THROWS_WITH(read({"--x", "1e200", "--w-q", "1e200", "--w-k", "1", "--w-v", "1"}),
                    Catch::StartsWith("--x, --w-q, --w-k, --w-v: Q, K, V or a score QKᵀ overflows"));
  // The entries of Q and K fit but their product does not.
  CHECK_THROWS_WITH(read({"--x", "1e200", "--w-q", "1", "--w-k", "1", "--w-v", "1"}),
                    Catch::StartsWith("--x, --w-q, --w-k, --w-v"));
  CHECK_THROWS_WITH(read({"--tokens", "a,b"}), Catch::StartsWith("--tokens: 2 names for 3 rows of --x"));
  CHECK_THROWS_WITH(read({"--x", "1,0", "--q", "1,0"}), Catch::Contains("excludes"));
  CHECK_THROWS_WITH(read({"--q", "1,0", "--k", "1,0,0"}), Catch::StartsWith("--k: keys have 3 entries per row"));
}

}  // namespace test_dot_product
