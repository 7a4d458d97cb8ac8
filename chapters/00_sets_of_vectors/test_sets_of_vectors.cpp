// Chapter 0's computation, tested in-process: sets_of_vectors::compute()'s
// dot products and distances against the chapter's vectors worked by hand, the
// frame count against floor((D − W) / H) + 1 done by hand, the two layers
// against x W + b written out here ("I saw a saw": the same word, the same
// output, unless the layer reads its neighbours), the window layer's weight
// count against (2r + 1) d c + c, the flags' refusals, and the page fold's claim
// that a fused multiply-add can leave a dot product of perpendicular vectors
// other than 0. Every expected value
// has a reason of its own, not the program's output.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "chapter_support.hpp"
#include "sets_of_vectors.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_sets_of_vectors {

namespace {

using attention::Matrix;

sets_of_vectors::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<sets_of_vectors::Flags>("sets_of_vectors", "chapter 0", arguments);
}

sets_of_vectors::Result run(const std::vector<std::string>& arguments) {
  return sets_of_vectors::compute(read(arguments));
}

}  // namespace

TEST_CASE("one-hot words are all equally far apart and orthogonal", "[ch00]") {
  const sets_of_vectors::Result result = run({});
  const sets_of_vectors::Encoding& one_hot = result.one_hot;
  REQUIRE(one_hot.vectors.rows() == 4);
  CHECK(one_hot.vectors == Matrix::Identity(4, 4));
  // e_i · e_j is 1 on the diagonal and 0 elsewhere; |e_i − e_j| = √(1 + 1) = √2 for i ≠ j.
  CHECK(one_hot.dot_products == Matrix::Identity(4, 4));
  for (Eigen::Index i = 0; i < 4; ++i) {
    for (Eigen::Index j = 0; j < 4; ++j) {
      if (i == j)
        CHECK(one_hot.distances(i, j) == 0.0);
      else
        CHECK(one_hot.distances(i, j) == Approx(std::sqrt(2.0)).epsilon(1e-15));
    }
  }
  // cat is as far from dog as from apple.
  CHECK(one_hot.nearer == "neither");
}

TEST_CASE("the embeddings put cat near dog and far from apple", "[ch00]") {
  const sets_of_vectors::Result result = run({});
  const sets_of_vectors::Encoding& e = result.embedding;
  // cat (0.9 0.2), dog (0.8 0.3), apple (0.2 0.9), pear (0.3 0.7).
  CHECK(e.dot_products(0, 1) == Approx(0.9 * 0.8 + 0.2 * 0.3).epsilon(1e-15));  // 0.78
  CHECK(e.dot_products(0, 2) == Approx(0.9 * 0.2 + 0.2 * 0.9).epsilon(1e-15));  // 0.36
  CHECK(e.distances(0, 1) == Approx(std::sqrt(0.02)).epsilon(1e-12));           // 0.1² + 0.1²
  CHECK(e.distances(0, 2) == Approx(std::sqrt(0.98)).epsilon(1e-12));           // 0.7² + 0.7²
  CHECK(e.nearer == "dog");
  // Distances are symmetric, zero on the diagonal, and obey the triangle inequality; dot products are symmetric.
  for (Eigen::Index i = 0; i < 4; ++i) {
    CHECK(e.distances(i, i) == Approx(0.0).margin(1e-15));
    for (Eigen::Index j = 0; j < 4; ++j) {
      CHECK(e.distances(i, j) == Approx(e.distances(j, i)).epsilon(1e-15));
      CHECK(e.dot_products(i, j) == e.dot_products(j, i));
      CHECK(e.distances(i, j) == Approx((e.vectors.row(i) - e.vectors.row(j)).norm()).epsilon(1e-12));
      for (Eigen::Index k = 0; k < 4; ++k) CHECK(e.distances(i, k) <= e.distances(i, j) + e.distances(j, k) + 1e-12);
    }
  }
  // Swapping the second and third words' rows swaps the answer.
  CHECK(run({"--words", "cat,apple,dog,pear", "--embeddings", "0.9,0.2; 0.2,0.9; 0.8,0.3; 0.3,0.7"}).embedding.nearer ==
        "dog");
}

TEST_CASE("frames are counted by floor of duration minus window over hop plus one", "[ch00]") {
  // 1000 ms, window 25, hop 10: floor(975 / 10) + 1 = 98 frames; the last covers 970 to 995 ms,
  // the last 5 ms are in no frame, and padding the end adds one frame.
  const sets_of_vectors::Frames frames = run({}).frames;
  CHECK(frames.count == 98);
  CHECK(frames.per_second == 100.0);
  CHECK(frames.last_start_us == 970000);
  CHECK(frames.last_end_us == 995000);
  CHECK(frames.uncovered_us == 5000);
  CHECK(frames.count_if_end_padded == 99);
  // 45 ms fits windows at 0, 10 and 20 ms exactly: nothing uncovered, nothing to pad.
  const sets_of_vectors::Frames exact = run({"--seconds", "0.045"}).frames;
  CHECK(exact.count == 3);
  CHECK(exact.last_end_us == 45000);
  CHECK(exact.uncovered_us == 0);
  CHECK(exact.count_if_end_padded == 3);
  // 20 ms is shorter than one window: no frame, and one if padded.
  const sets_of_vectors::Frames short_one = run({"--seconds", "0.02"}).frames;
  CHECK(short_one.count == 0);
  CHECK(short_one.uncovered_us == 20000);
  CHECK(short_one.count_if_end_padded == 1);
  // A hop as long as the window: frames side by side, 1000 / 25 = 40.
  CHECK(run({"--hop-ms", "25"}).frames.count == 40);
}

TEST_CASE("I saw a saw gives both saws one output unless the layer reads neighbours", "[ch00]") {
  const sets_of_vectors::Result result = run({});
  CHECK(result.distinct_words == std::vector<std::string>{"I", "saw", "a"});
  const Matrix& x = result.sentence_vectors;
  REQUIRE(x.rows() == 4);
  REQUIRE(x.cols() == 4);
  // The same word, the same row of the word vectors.
  CHECK(x.row(0) == result.word_vectors.row(0));
  CHECK(x.row(1) == result.word_vectors.row(1));
  CHECK(x.row(2) == result.word_vectors.row(2));
  CHECK(x.row(3) == result.word_vectors.row(1));
  // y_t = x_t W + b, one row at a time.
  for (Eigen::Index t = 0; t < 4; ++t) {
    const Eigen::RowVectorXd y = x.row(t) * result.one_weights + result.one_bias;
    CHECK(result.one_outputs.row(t).isApprox(y, 1e-14));
  }
  // The window of radius 1 lays x_{t−1}, x_t, x_{t+1} side by side, zeros beyond the ends.
  REQUIRE(result.window_inputs.cols() == 12);
  CHECK(result.window_inputs.row(0).head(4).isZero());
  CHECK(result.window_inputs.row(0).segment(4, 4) == x.row(0));
  CHECK(result.window_inputs.row(0).tail(4) == x.row(1));
  CHECK(result.window_inputs.row(3).head(4) == x.row(2));
  CHECK(result.window_inputs.row(3).tail(4).isZero());
  CHECK(result.window_outputs.isApprox((result.window_inputs * result.window_weights).rowwise() + result.window_bias,
                                       1e-14));
  // "saw" at positions 1 and 3: equal inputs, equal one-vector outputs, different windows (I … a, a … end).
  REQUIRE(result.repeats.size() == 1);
  const sets_of_vectors::Repeat& saw = result.repeats[0];
  CHECK(saw.word == "saw");
  CHECK(saw.positions == std::vector<Eigen::Index>{1, 3});
  CHECK(saw.inputs_identical);
  CHECK(saw.each_vector_identical);
  CHECK_FALSE(saw.window_identical);
  CHECK(result.window_outputs.row(1) != result.window_outputs.row(3));
  // A window of radius 0 is one vector: the saws agree again.
  CHECK(run({"--radius", "0"}).repeats[0].window_identical);
}

TEST_CASE("the window layer's weights grow with the window and attention's do not", "[ch00]") {
  const sets_of_vectors::Result result = run({});
  // d = c = 4, n = 4: (2r + 1) · 16 + 4 for r = 0 … 3, and only r = 3 = n − 1 reaches every word.
  REQUIRE(result.sizes.size() == 4);
  const long long expected[] = {20, 52, 84, 116};
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(result.sizes[r].radius == static_cast<long long>(r));
    CHECK(result.sizes[r].window == 2 * static_cast<long long>(r) + 1);
    CHECK(result.sizes[r].parameters == expected[r]);
    CHECK(result.sizes[r].covers_sentence == (r == 3));
  }
  // 1000 words: radius 999, window 1999, 1999 · 16 + 4 = 31988 weights; attention 3 · 4² = 48.
  CHECK(result.longest.radius == 999);
  CHECK(result.longest.window == 1999);
  CHECK(result.longest.parameters == 31988);
  CHECK(result.attention_parameters == 48);
  CHECK(run({"--width", "8"}).attention_parameters == 192);
  // With the layer that reads one vector of 4 numbers into 4 tags: 4 · 4 weights and 4 biases more.
  CHECK(result.attention_and_layer_parameters == 48 + 4 * 4 + 4);
}

TEST_CASE("the seed decides the draws and nothing else does", "[ch00]") {
  const sets_of_vectors::Result one = run({});
  CHECK(run({}).one_outputs == one.one_outputs);
  CHECK(run({"--seed", "2"}).word_vectors != one.word_vectors);
  // Each word's vector comes from its own stream (the seed XOR the word's FNV-1a hash): another sentence with the
  // same words gets the same vectors.
  const sets_of_vectors::Result other = run({"--sentence", "I,saw,a"});
  CHECK(other.word_vectors == one.word_vectors);
  CHECK(other.one_weights == one.one_weights);
  CHECK(other.repeats.empty());
}

// The fold on the page's numbers says the dot product of two perpendicular vectors can be exactly 0 in one build
// and about 1e-17 in the other, since the native program may fuse a product with the sum after it (FMA) and the
// WebAssembly build does not. (0.6, 0.8) and (-0.8, 0.6) are perpendicular.
TEST_CASE("a fused multiply-add can leave perpendicular vectors' dot product other than 0", "[ch00]") {
  // Each product rounded on its own, as without FMA: 0.6 x -0.8 rounds to exactly minus 0.8 x 0.6, and they cancel.
  volatile double first = 0.6 * -0.8;
  volatile double second = 0.8 * 0.6;
  CHECK(first + second == 0.0);
  // The second product fused with the sum, unrounded: what is left is the rounding of the first product,
  // 2.6645352591003756e-17 in exact rational arithmetic (Python's fractions.Fraction of the two doubles).
  const double fused = std::fma(0.8, 0.6, first);
  CHECK(fused == Approx(2.6645352591003756e-17).epsilon(1e-12));
}

TEST_CASE("the flags refuse what chapter 0 cannot use", "[ch00]") {
  const sets_of_vectors::Inputs defaults = read({});
  CHECK(defaults.words == std::vector<std::string>{"cat", "dog", "apple", "pear"});
  CHECK(defaults.duration_us == 1000000);
  CHECK(read({"--seconds", "0.0000014"}).duration_us == 1);  // rounded to the nearest microsecond
  CHECK_THROWS_WITH(read({"--words", "a,b", "--embeddings", "1;2"}), Catch::StartsWith("--words: 2 words"));
  CHECK_THROWS_WITH(read({"--words", "a,b,a", "--embeddings", "1;2;3"}),
                    Catch::StartsWith("--words: 'a' is listed twice"));
  CHECK_THROWS_WITH(read({"--embeddings", "1;2;3"}), Catch::StartsWith("--embeddings: 3 rows for 4 words"));
  CHECK_THROWS_WITH(read({"--embeddings", "1"}), Catch::StartsWith("--embeddings: 1 row for 4 words"));
  CHECK_THROWS_WITH(read({"--seconds", "0"}), Catch::StartsWith("--seconds: 0; expected more than 0"));
  CHECK_THROWS_WITH(read({"--seconds", "4000"}), Catch::StartsWith("--seconds"));
  CHECK_THROWS_WITH(read({"--seconds", "0.0000001"}), Catch::StartsWith("--seconds: 0.0000001 is less than"));
  CHECK_THROWS_WITH(read({"--window-ms", "0"}), Catch::StartsWith("--window-ms"));
  CHECK_THROWS_WITH(read({"--sentence", "a,b,c,d,e,f,g,h,i,j,k,l,m"}), Catch::StartsWith("--sentence: 13 words"));
  CHECK_THROWS_WITH(read({"--radius", "17"}), Catch::StartsWith("--radius"));
}

}  // namespace test_sets_of_vectors
