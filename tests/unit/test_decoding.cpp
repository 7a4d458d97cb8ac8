// Chapter 14's library pieces: decoding with a cache of keys and values against recomputing the whole prefix,
// grouped keys and values (their gradient against central differences), the cache's memory against the
// allocator, and the choice of the next word.
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/cross_entropy.hpp"
#include "attention/gradient_check.hpp"
#include "attention/grouped_query.hpp"
#include "attention/kv_cache.hpp"
#include "attention/memory_checks.hpp"
#include "attention/numpy_random.hpp"
#include "attention/sampling.hpp"
#include "attention/token_classifier.hpp"

namespace {

attention::TokenClassifierShape decoder_shape(Eigen::Index d_model, Eigen::Index heads, Eigen::Index layers) {
  attention::TokenClassifierShape shape;
  shape.vocabulary = shape.outputs = 9;
  shape.d_model = d_model;
  shape.heads = heads;
  shape.d_ff = 2 * d_model;
  shape.layers = layers;
  return shape;
}

attention::TokenClassifierWeights grouped_decoder(const attention::TokenClassifierShape& shape, Eigen::Index groups,
                                                  std::uint64_t seed) {
  attention::NumpyGenerator generator(seed);
  attention::TokenClassifierWeights weights = attention::initial_token_classifier(shape, generator);
  attention::share_key_value_heads(weights.layers, groups);
  return weights;
}

}  // namespace

TEST_CASE("decode_step gives the last row of the causal forward pass, for every shape and grouping", "[ch14]") {
  struct Case {
    Eigen::Index d_model, heads, layers;
  };
  for (const Case shape_case : {Case{8, 2, 1}, Case{12, 4, 2}, Case{16, 4, 3}, Case{6, 1, 2}}) {
    const attention::TokenClassifierShape shape =
        decoder_shape(shape_case.d_model, shape_case.heads, shape_case.layers);
    std::vector<Eigen::Index> groupings{shape.heads};
    if (shape.heads % 2 == 0) groupings.push_back(shape.heads / 2);
    groupings.push_back(1);
    for (const Eigen::Index groups : groupings) {
      const attention::TokenClassifierWeights weights =
          grouped_decoder(shape, groups, 40 + static_cast<std::uint64_t>(groups));
      const std::vector<Eigen::Index> words{3, 0, 8, 8, 1, 5, 2, 7, 4, 6, 0};
      const attention::TokenClassifierSteps whole =
          attention::token_classifier(weights, words, attention::Visibility::causal);
      attention::KeyValueCache cache =
          attention::empty_key_value_cache(weights, groups, static_cast<Eigen::Index>(words.size()));
      for (std::size_t t = 0; t < words.size(); ++t) {
        CAPTURE(shape.d_model, shape.heads, shape.layers, groups, t);
        const attention::DecodingStep step = attention::decode_step(weights, cache, words[t]);
        const auto row = static_cast<Eigen::Index>(t);
        // Rounding only: the whole pass multiplies matrices, the step a row by a matrix, in other orders.
        CHECK((step.logits - whole.logits.row(row).transpose()).cwiseAbs().maxCoeff() < 1e-12);
        for (std::size_t l = 0; l < weights.layers.size(); ++l) {
          for (std::size_t h = 0; h < step.weights[l].size(); ++h) {
            const attention::Matrix& full = whole.layers[l].attention.heads[h].attention.weights;
            CHECK(step.weights[l][h].size() == row + 1);
            CHECK((step.weights[l][h] - full.row(row).head(row + 1).transpose()).cwiseAbs().maxCoeff() < 1e-12);
            if (row + 1 < full.cols()) {  // the later positions: masked, exactly 0
              CHECK(full.row(row).tail(full.cols() - row - 1).cwiseAbs().maxCoeff() == 0.0);
            }
          }
        }
      }
      CHECK(cache.length == static_cast<Eigen::Index>(words.size()));
      CHECK_THROWS_AS(attention::decode_step(weights, cache, 0), std::invalid_argument);  // full
    }
  }
}

TEST_CASE("decoding with a cache changes nothing the earlier positions computed: a later word moves no earlier row",
          "[ch14]") {
  const attention::TokenClassifierShape shape = decoder_shape(8, 2, 2);
  const attention::TokenClassifierWeights weights = grouped_decoder(shape, 2, 5);
  const attention::Matrix first = attention::token_classifier(weights, {1, 2, 3}, attention::Visibility::causal).logits;
  const attention::Matrix longer =
      attention::token_classifier(weights, {1, 2, 3, 7}, attention::Visibility::causal).logits;
  CHECK((longer.topRows(3) - first).cwiseAbs().maxCoeff() < 1e-13);
  // Without the mask the earlier rows do move: the property is the mask's, not the model's.
  const attention::Matrix open = attention::token_classifier(weights, {1, 2, 3}).logits;
  const attention::Matrix open_longer = attention::token_classifier(weights, {1, 2, 3, 7}).logits;
  CHECK((open_longer.topRows(3) - open).cwiseAbs().maxCoeff() > 1e-3);
}

TEST_CASE("a grouped model's gradient is the sum over the group: central differences through the shared W^K and W^V",
          "[ch14]") {
  const attention::TokenClassifierShape shape = decoder_shape(8, 4, 1);
  attention::TokenClassifierWeights weights = grouped_decoder(shape, 2, 9);
  const std::vector<Eigen::Index> words{4, 1, 1, 6, 2};
  const std::vector<Eigen::Index> targets{1, 1, 6, 2, 0};
  // The loss as a function of the grouped parameters: every change to a group's first W^K reaches its group.
  const auto loss = [&] {
    attention::TokenClassifierWeights tied = weights;
    attention::share_key_value_heads(tied.layers, 2);
    return attention::softmax_cross_entropy(
               attention::token_classifier(tied, words, attention::Visibility::causal).logits, targets)
        .loss;
  };
  const attention::TokenClassifierSteps steps =
      attention::token_classifier(weights, words, attention::Visibility::causal);
  const attention::CrossEntropy error = attention::softmax_cross_entropy(steps.logits, targets);
  attention::TokenClassifierWeights gradients =
      attention::token_classifier_backward(weights, words, steps, error.logits_gradient, attention::Visibility::causal);
  attention::sum_key_value_gradients(gradients.layers, 2);
  const std::vector<attention::ParameterBlock> parameters = attention::grouped_parameter_blocks(weights, 2);
  const std::vector<attention::ParameterBlock> analytic = attention::grouped_parameter_blocks(gradients, 2);
  // Four heads in two groups: two W^K and two W^V fewer than parameter_blocks() lists.
  CHECK(parameters.size() == attention::parameter_blocks(weights).size() - 4);
  double worst = 0.0;
  for (std::size_t b = 0; b < parameters.size(); ++b) {
    Eigen::Map<attention::Matrix> parameter(parameters[b].data, parameters[b].size, 1);
    const attention::Matrix numeric = attention::central_differences(loss, parameter);
    const attention::Matrix exact = Eigen::Map<const attention::Matrix>(analytic[b].data, analytic[b].size, 1);
    worst = std::max(worst, attention::relative_error(exact, numeric));
  }
  INFO("worst relative error " << worst);
  CHECK(worst < 1e-7);
  // Without the sum, the first head's own gradient alone is not the shared matrix's.
  attention::TokenClassifierWeights unsummed =
      attention::token_classifier_backward(weights, words, steps, error.logits_gradient, attention::Visibility::causal);
  Eigen::Map<attention::Matrix> shared_key(weights.layers[0].attention.heads[0].key.data(),
                                           weights.layers[0].attention.heads[0].key.size(), 1);
  const attention::Matrix numeric_key = attention::central_differences(loss, shared_key);
  const attention::Matrix own =
      Eigen::Map<const attention::Matrix>(unsummed.layers[0].attention.heads[0].key.data(),
                                          unsummed.layers[0].attention.heads[0].key.size(), 1);
  CHECK(attention::relative_error(own, numeric_key) > 1e-3);
}

TEST_CASE("with as many key/value heads as heads, sharing and summing change nothing", "[ch14]") {
  // Chapter 14: "With the default four key/value heads these two lines change nothing": every head leads its own
  // group of one, so no matrix is copied, no gradient added, and every parameter stays a parameter.
  attention::NumpyGenerator generator(3);
  attention::TokenClassifierWeights weights = attention::initial_token_classifier(decoder_shape(8, 4, 2), generator);
  const attention::TokenClassifierWeights before = weights;
  attention::share_key_value_heads(weights.layers, 4);
  attention::TokenClassifierWeights gradients = before;  // any numbers of the gradient's shape
  attention::sum_key_value_gradients(gradients.layers, 4);
  for (std::size_t l = 0; l < 2; ++l) {
    for (std::size_t h = 0; h < 4; ++h) {
      for (const auto* changed : {&weights, &gradients}) {
        CHECK(changed->layers[l].attention.heads[h].key == before.layers[l].attention.heads[h].key);
        CHECK(changed->layers[l].attention.heads[h].value == before.layers[l].attention.heads[h].value);
        CHECK(changed->layers[l].attention.heads[h].query == before.layers[l].attention.heads[h].query);
      }
    }
  }
  CHECK(attention::grouped_parameter_blocks(weights, 4).size() == attention::parameter_blocks(weights).size());
}

TEST_CASE("key_value_group refuses a grouping that does not divide the heads", "[ch14]") {
  CHECK(attention::key_value_group(3, 4, 2) == 1);
  CHECK(attention::key_value_group(3, 4, 1) == 0);
  CHECK(attention::key_value_group(3, 4, 4) == 3);
  CHECK_THROWS_AS(attention::key_value_group(0, 4, 3), std::invalid_argument);
  CHECK_THROWS_AS(attention::key_value_group(0, 4, 0), std::invalid_argument);
  CHECK_THROWS_AS(attention::key_value_group(0, 0, 1), std::invalid_argument);  // h = 0 would divide by 0
  CHECK_THROWS_AS(attention::key_value_group(4, 4, 2), std::invalid_argument);  // no head 4 among 0 … 3
  CHECK_THROWS_AS(attention::key_value_group(-1, 4, 2), std::invalid_argument);
}

TEST_CASE("decode_step refuses a cache made for another model, and a decoder with no layer", "[ch14]") {
  // Each cache would have been written past its rows' ends, or read from an empty list, had it been used.
  const attention::TokenClassifierWeights narrow = grouped_decoder(decoder_shape(8, 2, 1), 1, 5);  // d_k 4
  const attention::TokenClassifierWeights wide = grouped_decoder(decoder_shape(16, 2, 1), 1, 5);   // d_k 8
  attention::KeyValueCache cache = attention::empty_key_value_cache(narrow, 1, 4);
  CHECK_THROWS_WITH(attention::decode_step(wide, cache, 0), Catch::Contains("made for another model"));
  CHECK(cache.length == 0);
  const attention::TokenClassifierWeights two_layers = grouped_decoder(decoder_shape(8, 2, 2), 1, 5);
  CHECK_THROWS_AS(attention::decode_step(two_layers, cache, 0), std::invalid_argument);  // other layers
  attention::TokenClassifierWeights no_layer = narrow;
  no_layer.layers.clear();
  CHECK_THROWS_WITH(attention::decode_step(no_layer, cache, 0), Catch::Contains("no layer"));
  CHECK_NOTHROW(attention::decode_step(narrow, cache, 0));  // the model it was made for
  CHECK(cache.length == 1);
}

#ifndef ATTENTION_CHECKS_MEMORY
TEST_CASE("the cache's memory, 2 · layers · n · h_kv · d_k numbers, is what the allocator hands out", "[ch14]") {
  for (const Eigen::Index groups : {4, 2, 1}) {
    const attention::TokenClassifierShape shape = decoder_shape(32, 4, 2);
    const attention::TokenClassifierWeights weights = grouped_decoder(shape, groups, 3);
    constexpr Eigen::Index positions = 1000;
    // Measured first, checked after: the test framework's own records allocate too.
    const auto before = static_cast<long long>(mallinfo2().uordblks);
    long long during = 0;
    {
      const attention::KeyValueCache cache = attention::empty_key_value_cache(weights, groups, positions);
      during = static_cast<long long>(mallinfo2().uordblks);
    }
    const auto after = static_cast<long long>(mallinfo2().uordblks);
    const long long counted = attention::key_value_cache_numbers(2, positions, groups, 8) * 8;  // doubles
    CAPTURE(groups, counted, during - before, after - before);
    CHECK(counted == 2 * 2 * 1000 * groups * 8 * 8);
    // Each matrix is one block with a little bookkeeping (Eigen's alignment, malloc's header, the vectors).
    CHECK(during - before >= counted);
    CHECK(during - before <= counted + 4096);
    // All of it given back, but for the small blocks of the vectors, which glibc keeps in its thread cache
    // and still counts as in use.
    CHECK(after - before < 1024);
  }
}
#endif

TEST_CASE("sampling_probabilities: greedy, temperature and top-k", "[ch14]") {
  const attention::Vector logits = (attention::Vector(5) << 1.0, 3.0, 2.0, 3.0, -1.0).finished();
  // Greedy: all on the highest score, the first of equal ones.
  CHECK(attention::sampling_probabilities(logits, {0.0, 0}) == (attention::Vector(5) << 0, 1, 0, 0, 0).finished());
  // T = 1, every word: softmax itself.
  const attention::Vector plain = attention::sampling_probabilities(logits, {1.0, 0});
  attention::Vector expected(5);  // written out: Eigen's vectorised exp trips a false warning of GCC 12 under AVX-512
  for (Eigen::Index w = 0; w < 5; ++w) expected(w) = std::exp(logits(w));
  expected /= expected.sum();
  CHECK((plain - expected).cwiseAbs().maxCoeff() < 1e-15);
  // A lower temperature moves probability to the highest scores; a higher one spreads it.
  CHECK(attention::sampling_probabilities(logits, {0.5, 0})(1) > plain(1));
  CHECK(attention::sampling_probabilities(logits, {2.0, 0})(4) > plain(4));
  // By how much (the chapter's "twice as likely becomes four times as likely at T = 0.5, √2 times at T = 2"):
  // softmax of z/T puts e^(Δz/T) between two words, the ratio at T = 1 raised to the power 1/T.
  for (const double temperature : {0.5, 1.0, 2.0}) {
    const attention::Vector tempered = attention::sampling_probabilities(logits, {temperature, 0});
    CHECK(tempered(1) / tempered(2) == Approx(std::pow(plain(1) / plain(2), 1.0 / temperature)).epsilon(1e-13));
  }
  // Top-2 keeps the two highest (the tie at 3.0), renormalised; the rest exactly 0.
  const attention::Vector top_two = attention::sampling_probabilities(logits, {1.0, 2});
  CHECK(top_two(1) == Approx(0.5));
  CHECK(top_two(3) == Approx(0.5));
  CHECK(top_two(0) == 0.0);
  CHECK(top_two(2) == 0.0);
  CHECK(top_two(4) == 0.0);
  CHECK(attention::sampling_probabilities(logits, {1.0, 3})(2) > 0.0);  // top-3: the 2.0 joins
  // Top-1 cuts through the tie at 3.0: it keeps the first in the vocabulary's order, the word greedy picks.
  CHECK(attention::sampling_probabilities(logits, {1.0, 1}) == (attention::Vector(5) << 0, 1, 0, 0, 0).finished());
  CHECK_THROWS_AS(attention::sampling_probabilities(logits, {-1.0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(attention::sampling_probabilities(logits, {1.0, -1}), std::invalid_argument);
}

TEST_CASE("draw_word follows its probabilities: counted over many draws, and with NumPy's uniform", "[ch14]") {
  const attention::Vector probabilities = (attention::Vector(4) << 0.1, 0.0, 0.6, 0.3).finished();
  attention::NumpyGenerator generator(2024);
  std::vector<double> counts(4, 0.0);
  constexpr int draws = 20000;
  for (int d = 0; d < draws; ++d)
    counts[static_cast<std::size_t>(attention::draw_word(probabilities, generator).word)] += 1.0;
  CHECK(counts[1] == 0.0);  // a word of probability 0 is never drawn
  // Binomial standard deviations: √(0.6 · 0.4 / 20000) ≈ 0.0035; six of them.
  CHECK(counts[0] / draws == Approx(0.1).margin(0.021));
  CHECK(counts[2] / draws == Approx(0.6).margin(0.021));
  CHECK(counts[3] / draws == Approx(0.3).margin(0.021));
  // The rule, with u from np.random.default_rng(7).random() = 0.6250955...: running sums 0.1, 0.7 → word 2.
  attention::NumpyGenerator seven(7);
  const attention::DrawnWord drawn = attention::draw_word(probabilities, seven);
  CHECK(drawn.word == 2);
  REQUIRE(drawn.u.has_value());
  CHECK(*drawn.u == 0.625095466604667);  // NumPy's number, printed to the digits that give it back
  // A one-hot distribution draws nothing from the generator.
  attention::NumpyGenerator untouched(7), reference(7);
  const attention::DrawnWord only = attention::draw_word((attention::Vector(3) << 0, 1, 0).finished(), untouched);
  CHECK(only.word == 1);
  CHECK_FALSE(only.u.has_value());
  CHECK(untouched.next_uint64() == reference.next_uint64());
}
