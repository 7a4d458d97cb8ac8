// The streaming kernel in float (chapter 12): against the teaching version in double, to a bound that follows
// from float's rounding, and its edge cases in float.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "attention/streaming_attention.hpp"
#include "attention/tile_product.hpp"
#include "support.hpp"

namespace {

// Float's unit roundoff: a float rounds a real number to within this relative distance.
constexpr double float_roundoff = 0x1p-24;

attention::Matrix double_teaching_output(const attention::Matrix& queries, const attention::Matrix& keys,
                                         const attention::Matrix& values, attention::KeyRange range) {
  attention::AttentionOptions options;
  if (range == attention::KeyRange::causal) options.mask = attention::causal_mask(queries.rows());
  return attention::scaled_dot_product_attention(queries, keys, values, options).output;
}

// How far a float computation of attention may land from the exact one (the teaching version in double, whose own
// error is some 1e-16, far below), for every query at once, relative to the largest |value|. To first order in
// u = 2^-24:
// - a score q·k/√d, with q and k rounded to float (u each), summed over d products (d u), times a scale itself
//   rounded and the product rounded (2 u), is off by at most Δ = (d + 4) u Σ_l |q_l k_l| / √d;
// - scores off by at most Δ change every weight e^(s − M) / L by a factor within e^(±2Δ): at most 2Δ of the
//   weight, so 2Δ max|v| of the output;
// - the rest is rounding in the weights and the sums: each exponential within 4 u (the test below holds the
//   float exponential to 2 float spacings, 4 u), each tile's rescaling of L and O (u each, at most one tile per
//   key), the sums of L and of O over m keys (m u each), the values rounded to float (u), the division (u):
//   at most (3 m + 6) u max|v|.
double float_bound(const attention::Matrix& queries, const attention::Matrix& keys, const attention::Matrix& values) {
  const auto d = static_cast<double>(queries.cols()), m = static_cast<double>(keys.rows());
  const double largest_products = (queries.cwiseAbs() * keys.cwiseAbs().transpose()).maxCoeff();
  const double delta = (d + 4.0) * float_roundoff * largest_products / std::sqrt(d);
  return (2.0 * delta + (3.0 * m + 6.0) * float_roundoff) * values.cwiseAbs().maxCoeff();
}

double largest_difference(const attention::Matrix& fast, const attention::Matrix& exact) {
  return (fast - exact).cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("the float exponential: within 2 float spacings of e^x over float's range, and e^-infinity exactly 0",
          "[ch12]") {
  std::vector<float> arguments;
  for (float x = -86.9f; x <= 88.0f; x += 0.00731f) arguments.push_back(x);
  for (const float x : {0.0f, -0.0f, 1.0f, -1.0f, 0.34657359f, -0.34657359f, 1e-30f, -1e-30f, 88.0f, -87.0f}) {
    arguments.push_back(x);
  }
  std::vector<float> results = arguments;
  attention::exponential_in_place(results.data(), static_cast<Eigen::Index>(results.size()));
  double largest_error = 0.0;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const double exact = std::exp(static_cast<double>(arguments[i]));  // of the float argument, in double
    largest_error = std::max(largest_error, std::abs(static_cast<double>(results[i]) - exact) / exact);
  }
  // Float's spacing at 1 is 2^-23; relative to any result between powers of two, at most that.
  CHECK(largest_error <= 2 * static_cast<double>(std::numeric_limits<float>::epsilon()));
  std::vector<float> edges = {-std::numeric_limits<float>::infinity(), -1000.0f, -87.5f, 0.0f};
  attention::exponential_in_place(edges.data(), 4);
  CHECK(edges == std::vector<float>{0.0f, 0.0f, 0.0f, 1.0f});  // below −87, near float's smallest normal: 0
  float not_a_number = std::numeric_limits<float>::quiet_NaN();
  attention::exponential_in_place(&not_a_number, 1);
  CHECK(std::isnan(not_a_number));
}

TEST_CASE("tile_product in float: small integers give exactly Eigen's product, for every compiled block", "[ch12]") {
  std::mt19937_64 generator(6);
  std::uniform_int_distribution<int> small(-9, 9);
  const auto integer_floats = [&](Eigen::Index rows, Eigen::Index columns) {
    attention::RowMajorMatrixOf<float> m(rows, columns);
    for (float& entry : m.reshaped()) entry = static_cast<float>(small(generator));
    return m;
  };
  const Eigen::Index lanes = attention::vector_lanes<float>;
  for (const attention::ProductShape shape :
       {attention::ProductShape{4, lanes}, attention::ProductShape{8, lanes}, attention::ProductShape{4, 2 * lanes},
        attention::ProductShape{8, 2 * lanes}, attention::build_product_shape<float>()}) {
    for (const Eigen::Index rows : {1, 8, 9, 20}) {
      for (const Eigen::Index depth : {0, 3, 64}) {
        for (const Eigen::Index columns : {1, 16, 31, 32, 33, 70}) {
          INFO(rows << " × " << depth << " times " << depth << " × " << columns << ", blocks of " << shape.block_rows
                    << " × " << shape.strip_columns);
          const attention::RowMajorMatrixOf<float> left = integer_floats(rows, depth);
          const attention::MatrixOf<float> right = integer_floats(depth, columns);
          attention::PackedColumns<float> packed;
          attention::pack_columns(right, packed, shape);
          attention::RowMajorMatrixOf<float> out = integer_floats(rows, columns);
          const attention::RowMajorMatrixOf<float> expected = left * right;
          attention::tile_product(left, packed, out, false);
          CHECK(out == expected);
        }
      }
    }
  }
}

TEST_CASE("the streaming kernel in float gives the double teaching output to float's rounding bound", "[ch12]") {
  std::mt19937_64 generator(2026);
  attention::StreamingBuffers<float> kept;
  for (const auto& [n, m, d_k, d_v] :
       {std::tuple{1, 1, 1, 1}, {7, 7, 5, 3}, {130, 130, 64, 64}, {257, 257, 8, 33}, {40, 300, 64, 64}}) {
    const attention::Matrix queries = 3.0 * support::random_matrix(n, d_k, generator);
    const attention::Matrix keys = support::random_matrix(m, d_k, generator);
    const attention::Matrix values = support::random_matrix(m, d_v, generator);
    const attention::MatrixOf<float> float_queries = queries.cast<float>(), float_keys = keys.cast<float>();
    const attention::MatrixOf<float> float_values = values.cast<float>();
    const double bound = float_bound(queries, keys, values);
    for (const attention::KeyRange range : {attention::KeyRange::all, attention::KeyRange::causal}) {
      if (range == attention::KeyRange::causal && n != m) continue;
      const attention::Matrix exact = double_teaching_output(queries, keys, values, range);
      for (const bool vectorised : {false, true}) {
        attention::AttentionBuffers<float> buffers;
        attention::buffered_attention(float_queries, float_keys, float_values, buffers, range, vectorised);
        CHECK(largest_difference(buffers.output.cast<double>(), exact) <= bound);
      }
      for (const Eigen::Index query_tile : {1, 64}) {
        for (const Eigen::Index key_tile : {7, 128}) {
          for (const bool packed : {false, true}) {
            attention::StreamingOptions options;
            options.query_tile = query_tile;
            options.key_tile = key_tile;
            options.range = range;
            options.threads = 2;
            options.packed_products = packed;
            INFO("n = " << n << ", tiles " << query_tile << " × " << key_tile
                        << (packed ? ", packed products" : ", Eigen's products") << ", bound " << bound);
            const attention::MatrixOf<float> fast =
                attention::streaming_attention(float_queries, float_keys, float_values, options, kept);
            CHECK(largest_difference(fast.cast<double>(), exact) <= bound);
          }
        }
      }
    }
  }
}

TEST_CASE("in float, a masked score has weight exactly 0 and a query with every key masked a zero row", "[ch12]") {
  // Key 1 is −1e38 in every entry and every query entry is at least 1: each score against key 1 overflows float
  // to −∞. Under the causal mask query 1 sees key 1 only: every key it sees is masked.
  std::mt19937_64 generator(8);
  const attention::Matrix queries = support::random_matrix(5, 4, generator).cwiseAbs().array() + 1.0;
  attention::Matrix keys = support::random_matrix(5, 4, generator);
  const attention::Matrix values = support::random_matrix(5, 3, generator);
  keys.row(0).setConstant(-1e38);
  std::vector<attention::StreamingTileState> states;
  attention::StreamingOptions options;
  options.range = attention::KeyRange::causal;
  options.query_tile = 2;
  options.key_tile = 2;
  options.observer = [&](const attention::StreamingTileState& state) { states.push_back(state); };
  const attention::MatrixOf<float> fast =
      attention::streaming_attention(attention::MatrixOf<float>(queries.cast<float>()),
                                     attention::MatrixOf<float>(keys.cast<float>()),
                                     attention::MatrixOf<float>(values.cast<float>()), options);
  CHECK(fast.row(0).isZero(0.0f));
  REQUIRE(!states.empty());
  for (const attention::StreamingTileState& state : states) {
    for (Eigen::Index i = 0; i < state.exponentials.rows(); ++i) {
      for (Eigen::Index j = 0; j < state.exponentials.cols(); ++j) {
        const Eigen::Index query = state.first_query + i, key = state.first_key + j;
        if (key > query || key == 0) CHECK(state.exponentials(i, j) == 0.0);  // masked, or −∞: exactly 0
      }
    }
  }
  // The other queries: in double the scores against key 1 are finite but so low that their weight is 0 too.
  const attention::Matrix exact = double_teaching_output(queries, keys, values, attention::KeyRange::causal);
  CHECK(largest_difference(fast.bottomRows(4).cast<double>(), exact.bottomRows(4)) <=
        float_bound(queries.bottomRows(4), keys.bottomRows(4), values));
  attention::AttentionBuffers<float> buffers;
  attention::buffered_attention(attention::MatrixOf<float>(queries.cast<float>()),
                                attention::MatrixOf<float>(keys.cast<float>()),
                                attention::MatrixOf<float>(values.cast<float>()), buffers, attention::KeyRange::causal,
                                true);
  CHECK(buffers.output.row(0).isZero(0.0f));
}

TEST_CASE("in float, NaN and +infinity scores are refused", "[ch12]") {
  attention::MatrixOf<float> queries(2, 2), keys(2, 2), values(2, 1);
  queries << 1e38f, 0, 0, 1;
  keys << 1e38f, 0, 0, 1;  // 1e76: +∞ in float
  values << 1, 2;
  attention::AttentionBuffers<float> buffers;
  CHECK_THROWS_AS(attention::buffered_attention(queries, keys, values, buffers), std::invalid_argument);
  CHECK_THROWS_AS(attention::streaming_attention(queries, keys, values), std::invalid_argument);
  queries(0, 0) = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_AS(attention::streaming_attention(queries, keys, values), std::invalid_argument);
}
