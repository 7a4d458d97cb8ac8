// The sinusoidal positional encoding, the shift map M_k, and what positions
// change about self-attention (chapter 6).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/attention.hpp"
#include "attention/positional_encoding.hpp"
#include "support.hpp"

using attention::Matrix;

namespace positional_encoding_tests {

// §3.5 written out for one entry, straight from the paper's formula, without
// the library's angular_frequency().
double paper_entry(Eigen::Index position, Eigen::Index dimension, Eigen::Index d_model) {
  const auto i = static_cast<double>(dimension / 2);
  const double angle = static_cast<double>(position) / std::pow(10000.0, 2.0 * i / static_cast<double>(d_model));
  return dimension % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

// The rows of `matrix` in the order `order` gives: row r is row order[r].
Matrix reordered_rows(const Matrix& matrix, const std::vector<Eigen::Index>& order) {
  Matrix result(matrix.rows(), matrix.cols());
  for (std::size_t r = 0; r < order.size(); ++r) result.row(static_cast<Eigen::Index>(r)) = matrix.row(order[r]);
  return result;
}

double largest_gap(const Matrix& a, const Matrix& b) { return (a - b).cwiseAbs().maxCoeff(); }

}  // namespace positional_encoding_tests

using positional_encoding_tests::largest_gap;
using positional_encoding_tests::reordered_rows;

TEST_CASE("position 0 is 0 in every sine and 1 in every cosine", "[ch06]") {
  for (const Eigen::Index d_model : {2, 8, 64, 512}) {
    const Matrix encoding = attention::positional_encoding(1, d_model);
    for (Eigen::Index j = 0; j < d_model; ++j) {
      CHECK(encoding(0, j) == (j % 2 == 0 ? 0.0 : 1.0));  // sin 0 and cos 0, exactly
    }
  }
}

TEST_CASE("the first pair turns by one radian per position: PE of pos and 0 is sin pos", "[ch06]") {
  // ω_0 = 1 / 10000^0 = 1 exactly, so the angle is pos itself.
  CHECK(attention::angular_frequency(0, 8) == 1.0);
  const Matrix encoding = attention::positional_encoding(200, 16);
  for (Eigen::Index pos = 0; pos < 200; ++pos) {
    CHECK(encoding(pos, 0) == std::sin(static_cast<double>(pos)));
    CHECK(encoding(pos, 1) == std::cos(static_cast<double>(pos)));
  }
}

TEST_CASE("with d_model 2 each row is sin pos and cos pos", "[ch06]") {
  const Matrix encoding = attention::positional_encoding(50, 2);
  REQUIRE(encoding.cols() == 2);
  for (Eigen::Index pos = 0; pos < 50; ++pos) {
    CHECK(encoding(pos, 0) == std::sin(static_cast<double>(pos)));
    CHECK(encoding(pos, 1) == std::cos(static_cast<double>(pos)));
  }
}

TEST_CASE("We are the one with d_model 8: the frequencies are 1, 0.1, 0.01 and 0.001", "[ch06]") {
  // 10000^(2i/8) = 10^i, so PE(pos) = (sin pos, cos pos, sin pos/10, cos pos/10, sin pos/100, …).
  const Matrix encoding = attention::positional_encoding(4, 8);
  for (Eigen::Index pos = 0; pos < 4; ++pos) {
    const auto p = static_cast<double>(pos);
    const double by_hand[8] = {std::sin(p),       std::cos(p),       std::sin(p / 10),   std::cos(p / 10),
                               std::sin(p / 100), std::cos(p / 100), std::sin(p / 1000), std::cos(p / 1000)};
    for (Eigen::Index j = 0; j < 8; ++j) CHECK(encoding(pos, j) == Approx(by_hand[j]).margin(1e-15));
  }
  // The seed-digest's table, rounded to four places: row "the" (pos 2).
  CHECK(encoding(2, 0) == Approx(0.9093).margin(5e-5));
  CHECK(encoding(2, 1) == Approx(-0.4161).margin(5e-5));
  CHECK(encoding(2, 2) == Approx(0.1987).margin(5e-5));
  CHECK(encoding(3, 3) == Approx(0.9553).margin(5e-5));
}

TEST_CASE("every entry agrees with the paper's formula written out separately", "[ch06]") {
  for (const Eigen::Index d_model : {2, 4, 6, 10, 64, 512}) {
    const Matrix encoding = attention::positional_encoding(300, d_model);
    double worst = 0.0;
    for (Eigen::Index pos = 0; pos < 300; ++pos) {
      for (Eigen::Index j = 0; j < d_model; ++j) {
        worst = std::max(worst, std::abs(encoding(pos, j) - positional_encoding_tests::paper_entry(pos, j, d_model)));
      }
    }
    // The two compute the angle by a different route (pos · ω against pos / 10000^x);
    // they differ by rounding of angles up to 300 only.
    CHECK(worst < 1e-13);
  }
}

TEST_CASE("a row does not depend on the table it is computed in", "[ch06]") {
  const Matrix long_table = attention::positional_encoding(120, 10);
  const Matrix later_rows = attention::positional_encoding(20, 10, 100);
  CHECK(later_rows == long_table.bottomRows(20));  // bit for bit
}

TEST_CASE("the wavelengths form a geometric progression from 2 pi", "[ch06]") {
  for (const Eigen::Index d_model : {2, 8, 64, 512}) {
    const double ratio = std::pow(10000.0, 2.0 / static_cast<double>(d_model));
    CHECK(2 * std::numbers::pi / attention::angular_frequency(0, d_model) == 2 * std::numbers::pi);
    for (Eigen::Index i = 1; 2 * i < d_model; ++i) {
      CHECK(attention::angular_frequency(i - 1, d_model) / attention::angular_frequency(i, d_model) ==
            Approx(ratio).epsilon(1e-13));
    }
    // The last pair stops one step short of 10000 · 2π.
    const double longest = 2 * std::numbers::pi / attention::angular_frequency(d_model / 2 - 1, d_model);
    CHECK(longest == Approx(10000.0 * 2 * std::numbers::pi / ratio).epsilon(1e-13));
  }
}

TEST_CASE("an odd or empty width and negative positions are refused", "[ch06]") {
  CHECK_THROWS_AS(attention::positional_encoding(4, 7), std::invalid_argument);
  CHECK_THROWS_AS(attention::positional_encoding(4, 1), std::invalid_argument);
  CHECK_THROWS_AS(attention::positional_encoding(4, 0), std::invalid_argument);
  CHECK_THROWS_AS(attention::positional_encoding(4, -2), std::invalid_argument);
  CHECK_THROWS_AS(attention::positional_encoding(-1, 8), std::invalid_argument);
  CHECK_THROWS_AS(attention::positional_encoding(4, 8, -1), std::invalid_argument);
  CHECK_THROWS_AS(attention::shift_map(1, 5), std::invalid_argument);
  CHECK_THROWS_AS(attention::angular_frequency(4, 8), std::invalid_argument);  // pairs are 0 … 3
  CHECK_THROWS_AS(attention::angular_frequency(-1, 8), std::invalid_argument);
  CHECK_THROWS_AS(attention::add_positional_encoding(Matrix::Zero(3, 3)), std::invalid_argument);
  CHECK(attention::positional_encoding(0, 8).rows() == 0);
}

TEST_CASE("adding positions adds PE of each row's position", "[ch06]") {
  std::mt19937_64 generator(6);
  const Matrix embeddings = support::random_matrix(5, 6, generator);
  const Matrix sum = attention::add_positional_encoding(embeddings);
  for (Eigen::Index pos = 0; pos < 5; ++pos) {
    for (Eigen::Index j = 0; j < 6; ++j) {
      CHECK(sum(pos, j) == embeddings(pos, j) + positional_encoding_tests::paper_entry(pos, j, 6));
    }
  }
}

TEST_CASE("PE of pos plus k is PE of pos times M_k for every pos and k", "[ch06]") {
  for (const Eigen::Index d_model : {2, 8, 16, 64}) {
    const Matrix table = attention::positional_encoding(201, d_model);
    const Matrix first = table.topRows(101);
    double worst = 0.0;
    for (Eigen::Index k = 0; k <= 100; ++k) {
      worst = std::max(worst, largest_gap(first * attention::shift_map(k, d_model), table.middleRows(k, 101)));
    }
    // Angles up to 200 radians carry rounding of about 200 · 2⁻⁵³ ≈ 2e-14.
    CHECK(worst < 1e-12);
  }
}

TEST_CASE("the map works far from the start of the sentence", "[ch06]") {
  const Matrix later = attention::positional_encoding(10, 32, 5000);
  const Matrix shifted = attention::positional_encoding(10, 32, 5777);
  CHECK(largest_gap(later * attention::shift_map(777, 32), shifted) < 1e-10);
}

TEST_CASE("the orientation matters: the transpose of M_k shifts backwards", "[ch06]") {
  const Eigen::Index d_model = 8;
  const Matrix table = attention::positional_encoding(60, d_model);
  for (const Eigen::Index k : {1, 2, 5, 17}) {
    const Matrix map = attention::shift_map(k, d_model);
    // Rows k … 59 times M_kᵀ give rows 0 … 59 − k: PE(pos − k).
    CHECK(largest_gap(table.bottomRows(60 - k) * map.transpose(), table.topRows(60 - k)) < 1e-13);
    // And forwards the transpose is wrong by far more than rounding.
    CHECK(largest_gap(table.topRows(40) * map.transpose(), table.middleRows(k, 40)) > 0.1);
    CHECK(map.transpose() == attention::shift_map(-k, d_model));
  }
}

TEST_CASE("M_k is block-diagonal with one rotation per pair", "[ch06]") {
  const Eigen::Index d_model = 10, k = 3;
  const Matrix map = attention::shift_map(k, d_model);
  for (Eigen::Index r = 0; r < d_model; ++r) {
    for (Eigen::Index c = 0; c < d_model; ++c) {
      if (r / 2 != c / 2) CHECK(map(r, c) == 0.0);
    }
  }
  for (Eigen::Index i = 0; i < d_model / 2; ++i) {
    const double turn = static_cast<double>(k) / std::pow(10000.0, 2.0 * static_cast<double>(i) / 10.0);
    CHECK(map(2 * i, 2 * i) == Approx(std::cos(turn)).margin(1e-15));
    CHECK(map(2 * i, 2 * i + 1) == Approx(-std::sin(turn)).margin(1e-15));
    CHECK(map(2 * i + 1, 2 * i) == Approx(std::sin(turn)).margin(1e-15));
    CHECK(map(2 * i + 1, 2 * i + 1) == Approx(std::cos(turn)).margin(1e-15));
  }
  CHECK(attention::shift_map(0, d_model) == Matrix::Identity(d_model, d_model));
  // A rotation: M_kᵀ M_k = I, and two shifts make one: M_j M_k = M_(j+k).
  CHECK(largest_gap(map.transpose() * map, Matrix::Identity(d_model, d_model)) < 1e-15);
  CHECK(largest_gap(attention::shift_map(4, d_model) * map, attention::shift_map(7, d_model)) < 1e-14);
}

TEST_CASE("the dot product of PE at pos and at pos plus k depends on k only", "[ch06]") {
  // Each pair contributes sin a sin b + cos a cos b = cos(b − a) = cos(k ω_i).
  for (const Eigen::Index d_model : {2, 8, 64}) {
    const Matrix table = attention::positional_encoding(300, d_model);
    for (const Eigen::Index k : {0, 1, 2, 7, 50, 149}) {
      double closed_form = 0.0;
      for (Eigen::Index i = 0; 2 * i < d_model; ++i) {
        closed_form += std::cos(static_cast<double>(k) * attention::angular_frequency(i, d_model));
      }
      for (const Eigen::Index pos : {0, 1, 13, 100, 150}) {
        CHECK(table.row(pos).dot(table.row(pos + k)) == Approx(closed_form).margin(1e-12));
      }
    }
    CHECK(table.row(42).squaredNorm() == Approx(static_cast<double>(d_model) / 2));  // sin² + cos² per pair
  }
}

TEST_CASE("without positions reordering the toy only reorders its outputs, up to rounding", "[ch06]") {
  const support::Toy toy;
  const std::vector<Eigen::Index> fish_eat_cat = {2, 1, 0};
  const auto before = attention::scaled_dot_product_attention(toy.queries, toy.keys, toy.values);
  const auto after = attention::scaled_dot_product_attention(reordered_rows(toy.queries, fish_eat_cat),
                                                             reordered_rows(toy.keys, fish_eat_cat),
                                                             reordered_rows(toy.values, fish_eat_cat));
  // The toy's scores are small integers: every one is exact, so each lands in its new place bit for bit.
  const Matrix scores_moved = reordered_rows(reordered_rows(before.scores, fish_eat_cat).transpose(), fish_eat_cat);
  CHECK(after.scores == scores_moved.transpose());
  // The softmax and the weighted sum add the same terms in another order: equal up to rounding.
  CHECK(largest_gap(after.output, reordered_rows(before.output, fish_eat_cat)) <= 4 * 3 * 0x1p-52);
  // The hand-worked lesson prints cat's output (0.718, 0.282) and fish's (0.602, 0.398); now fish is first and cat last.
  CHECK(after.output(0, 0) == Approx(0.602).margin(5e-4));
  CHECK(after.output(2, 0) == Approx(0.718).margin(5e-4));
}

TEST_CASE("without positions any reordering of random tokens reorders the outputs", "[ch06]") {
  std::mt19937_64 generator(1706);
  for (const Eigen::Index n : {2, 5, 9, 16}) {
    const Matrix queries = support::random_matrix(n, 4, generator);
    const Matrix keys = support::random_matrix(n, 4, generator);
    const Matrix values = support::random_matrix(n, 2, generator);
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    for (Eigen::Index r = 0; r < n; ++r) order[static_cast<std::size_t>(r)] = r;
    std::shuffle(order.begin(), order.end(), generator);
    const Matrix before = attention::scaled_dot_product_attention(queries, keys, values).output;
    const Matrix after =
        attention::scaled_dot_product_attention(reordered_rows(queries, order), reordered_rows(keys, order),
                                                reordered_rows(values, order))
            .output;
    // Rounding only: sums of n terms in another order (weights ≤ 1, values of size a few).
    CHECK(largest_gap(after, reordered_rows(before, order)) < 1e-13);
    // With positions added to the input first, a token's output depends on where it stands.
    const auto placed = [](const Matrix& m) { return attention::add_positional_encoding(m); };
    const Matrix before_placed =
        attention::scaled_dot_product_attention(placed(queries), placed(keys), placed(values)).output;
    const Matrix after_placed = attention::scaled_dot_product_attention(placed(reordered_rows(queries, order)),
                                                                        placed(reordered_rows(keys, order)),
                                                                        placed(reordered_rows(values, order)))
                                    .output;
    CHECK(largest_gap(after_placed, reordered_rows(before_placed, order)) > 1e-3);
  }
}

TEST_CASE("with positions reordering the toy changes its outputs", "[ch06]") {
  const support::Toy toy;
  const std::vector<Eigen::Index> fish_eat_cat = {2, 1, 0};
  const auto placed = [](const Matrix& m) { return attention::add_positional_encoding(m); };
  const Matrix before =
      attention::scaled_dot_product_attention(placed(toy.queries), placed(toy.keys), placed(toy.values)).output;
  const Matrix after = attention::scaled_dot_product_attention(placed(reordered_rows(toy.queries, fish_eat_cat)),
                                                               placed(reordered_rows(toy.keys, fish_eat_cat)),
                                                               placed(reordered_rows(toy.values, fish_eat_cat)))
                           .output;
  CHECK(largest_gap(after, reordered_rows(before, fish_eat_cat)) > 0.1);
  // eat stays in the middle, yet its neighbours moved: its output changes too.
  CHECK((after.row(1) - before.row(1)).cwiseAbs().maxCoeff() > 0.01);
}
