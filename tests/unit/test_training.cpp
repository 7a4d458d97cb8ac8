// Chapter 11's library pieces: the token classifier's backward pass against
// central differences, Adam's first step by hand, and a model that must be
// able to learn one fixed batch by heart.
#include <cmath>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/adam.hpp"
#include "attention/batch_gradient.hpp"
#include "attention/cross_entropy.hpp"
#include "attention/gradient_check.hpp"
#include "attention/numpy_random.hpp"
#include "attention/token_classifier.hpp"
#include "support.hpp"

using attention::Matrix;

namespace {

attention::TokenClassifierShape small_shape() {
  attention::TokenClassifierShape shape;
  shape.vocabulary = 5;
  shape.outputs = 3;  // fewer scores than words, as for a tagger
  shape.d_model = 4;
  shape.heads = 2;
  shape.d_ff = 6;
  shape.layers = 2;
  return shape;
}

}  // namespace

TEST_CASE("token_classifier_backward agrees with central differences of the cross-entropy, every weight", "[ch11]") {
  attention::NumpyGenerator generator(3);
  attention::TokenClassifierWeights weights = attention::initial_token_classifier(small_shape(), generator);
  const std::vector<Eigen::Index> words{4, 0, 2};
  const std::vector<Eigen::Index> targets{2, 0, 1};  // of the C = 3 outputs
  const auto loss = [&] {
    return attention::softmax_cross_entropy(attention::token_classifier(weights, words).logits, targets).loss;
  };
  const attention::TokenClassifierSteps steps = attention::token_classifier(weights, words);
  for (const auto& layer : steps.layers) REQUIRE(layer.feed_forward.widened.cwiseAbs().minCoeff() > 1e-3);
  const auto error = attention::softmax_cross_entropy(steps.logits, targets);
  attention::TokenClassifierWeights gradients =
      attention::token_classifier_backward(weights, words, steps, error.logits_gradient);
  // Every block, in parameter_blocks() order: each is viewed as a column and differenced in place.
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
  // Words 1 and 3 do not occur: their embedding rows get no gradient at all.
  CHECK(gradients.embedding.row(1).cwiseAbs().maxCoeff() == 0.0);
  CHECK(gradients.embedding.row(3).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("fresh weights: the embedding as drawn, every other matrix by 1/sqrt(fan-in), gains 1, biases 0", "[ch11]") {
  // Chapter 11: "The embedding table is used as drawn. Every other matrix is scaled by 1/√fan-in … The LayerNorm
  // gains start at 1, and every bias starts at 0." Standard normal draws have mean square 1; scaled by 1/√rows,
  // fan-in times their mean square is 1 again. The margins are about five standard errors of a mean square of k
  // draws, √(2/k): 12,800 draws for the embedding, 2,048 to 16,384 for the layers' matrices, 640 for the read-out.
  attention::TokenClassifierShape shape;
  shape.vocabulary = 200;
  shape.d_model = 64;
  shape.d_ff = 256;
  attention::NumpyGenerator generator(5);
  const attention::TokenClassifierWeights weights = attention::initial_token_classifier(shape, generator);
  const auto fan_in_times_mean_square = [](const Matrix& m) {
    return static_cast<double>(m.rows()) * m.squaredNorm() / static_cast<double>(m.size());
  };
  CHECK(weights.embedding.squaredNorm() / static_cast<double>(weights.embedding.size()) == Approx(1).margin(0.07));
  const auto& layer = weights.layers.at(0);
  for (const auto& head : layer.attention.heads) {
    for (const Matrix* projection : {&head.query, &head.key, &head.value}) {
      CHECK(fan_in_times_mean_square(*projection) == Approx(1).margin(0.16));
    }
  }
  CHECK(fan_in_times_mean_square(layer.attention.output) == Approx(1).margin(0.12));
  CHECK(fan_in_times_mean_square(layer.feed_forward.w1) == Approx(1).margin(0.06));
  CHECK(fan_in_times_mean_square(layer.feed_forward.w2) == Approx(1).margin(0.06));
  CHECK(fan_in_times_mean_square(weights.readout) == Approx(1).margin(0.28));
  for (const auto* norm : {&layer.attention_norm, &layer.feed_forward_norm}) {
    CHECK(norm->gain == attention::Vector::Ones(64));
    CHECK(norm->bias == attention::Vector::Zero(64));
  }
  CHECK(layer.feed_forward.b1 == attention::Vector::Zero(256));
  CHECK(layer.feed_forward.b2 == attention::Vector::Zero(64));
  CHECK(weights.readout_bias == attention::Vector::Zero(10));
}

TEST_CASE("every layout starts from the same draws: only the norms differ", "[ch16]") {
  // Chapter 16: "Each run draws its own weights from its seed, the same weights for every layout and warm-up".
  const auto fresh = [](attention::NormPlacement placement, attention::NormKind norm) {
    attention::TokenClassifierShape shape;
    shape.layers = 2;
    shape.layout = {placement, norm};
    attention::NumpyGenerator generator(7);
    return attention::initial_token_classifier(shape, generator);
  };
  const attention::TokenClassifierWeights paper =
      fresh(attention::NormPlacement::post, attention::NormKind::layer_norm);
  for (const auto placement : {attention::NormPlacement::post, attention::NormPlacement::pre}) {
    for (const auto norm : {attention::NormKind::layer_norm, attention::NormKind::rms_norm}) {
      const attention::TokenClassifierWeights other = fresh(placement, norm);
      CHECK(other.embedding == paper.embedding);
      CHECK(other.readout == paper.readout);
      CHECK(other.readout_bias == paper.readout_bias);
      for (std::size_t l = 0; l < 2; ++l) {
        const auto &a = other.layers.at(l), &b = paper.layers.at(l);
        for (std::size_t h = 0; h < 2; ++h) {
          CHECK(a.attention.heads.at(h).query == b.attention.heads.at(h).query);
          CHECK(a.attention.heads.at(h).key == b.attention.heads.at(h).key);
          CHECK(a.attention.heads.at(h).value == b.attention.heads.at(h).value);
        }
        CHECK(a.attention.output == b.attention.output);
        CHECK(a.feed_forward.w1 == b.feed_forward.w1);
        CHECK(a.feed_forward.b1 == b.feed_forward.b1);
        CHECK(a.feed_forward.w2 == b.feed_forward.w2);
        CHECK(a.feed_forward.b2 == b.feed_forward.b2);
        // The norms start as nothing: gains of 1, and for LayerNorm biases of 0 (RMSNorm has none).
        CHECK(a.attention_norm.gain == attention::Vector::Ones(32));
        CHECK(a.attention_norm.bias.size() == (norm == attention::NormKind::layer_norm ? 32 : 0));
      }
    }
  }
}

TEST_CASE("parameter_blocks lists every learned number once", "[ch11]") {
  attention::NumpyGenerator generator(1);
  const attention::TokenClassifierShape shape = small_shape();
  attention::TokenClassifierWeights weights = attention::initial_token_classifier(shape, generator);
  Eigen::Index total = 0;
  for (const attention::ParameterBlock& block : attention::parameter_blocks(weights)) total += block.size;
  // Counted from the shape by hand: V·d embedding; per layer 3·h·d·(d/h) projections, d·d W^O, 2·d per
  // LayerNorm (two of them), d·d_ff + d_ff + d_ff·d + d for the FFN; d·C + C read-out.
  const Eigen::Index d = 4, V = 5, C = 3, d_ff = 6;
  const Eigen::Index per_layer = 3 * d * d + d * d + 2 * 2 * d + d * d_ff + d_ff + d_ff * d + d;
  CHECK(total == V * d + 2 * per_layer + d * C + C);
}

TEST_CASE("Adam's first step moves each parameter by about the learning rate, against its gradient's sign", "[ch11]") {
  support::OneBlock block({1.0, -2.0, 0.0}, {0.5, -40.0, 0.0});
  attention::AdamSettings settings;
  settings.learning_rate = 0.1;
  attention::Adam adam(block.parameters, settings);
  adam.step(block.parameters, block.gradients);
  // m̂ = g and v̂ = g² after one step (the bias corrections undo the 0.1 and 0.02), so the step is
  // α·g/(|g| + ε): α·sign(g), whatever the gradient's size; a zero gradient does not move.
  CHECK(block.theta(0) == Approx(0.9).margin(1e-8));  // ε = 1e-9 in |g| + ε shortens the step by 2e-10
  CHECK(block.theta(1) == Approx(-1.9).margin(1e-8));
  CHECK(block.theta(2) == 0.0);
  CHECK(adam.steps() == 1);
  settings.learning_rate = 0.0;
  CHECK_THROWS_AS(attention::Adam(block.parameters, settings), std::invalid_argument);
  settings.learning_rate = std::nan("");
  CHECK_THROWS_AS(attention::Adam(block.parameters, settings), std::invalid_argument);
  Eigen::VectorXd other(2);
  CHECK_THROWS_AS(adam.step({{other.data(), 2}}, block.gradients), std::invalid_argument);
}

TEST_CASE("Adam's later steps: its running means and their bias corrections, step by step as the paper writes them",
          "[ch11]") {
  attention::AdamSettings settings;  // β₁ = 0.9, β₂ = 0.98, ε = 1e-9
  settings.learning_rate = 0.1;
  // The same gradient at every step: m_t = (1 − β₁ᵗ) g and v_t = (1 − β₂ᵗ) g², so the corrections give back
  // m̂ = g and v̂ = g² at every t, and each step is α·sign(g) again: three steps, three times α.
  support::OneBlock same({1.0, -2.0}, {0.5, -40.0});
  attention::Adam adam(same.parameters, settings);
  for (int step = 0; step < 3; ++step) adam.step(same.parameters, same.gradients);
  CHECK(same.theta(0) == Approx(0.7).margin(1e-8));
  CHECK(same.theta(1) == Approx(-1.7).margin(1e-8));
  // Two different gradients, 1 then 3, worked by hand from Kingma and Ba's Algorithm 1:
  // m₂ = 0.9 · 0.1 · 1 + 0.1 · 3, v₂ = 0.98 · 0.02 · 1 + 0.02 · 9, divided by 1 − 0.9² and 1 − 0.98².
  support::OneBlock changing({1.0}, {1.0});
  attention::Adam second(changing.parameters, settings);
  second.step(changing.parameters, changing.gradients);
  changing.gradient(0) = 3.0;
  second.step(changing.parameters, changing.gradients);
  const double mean_hat = (0.9 * 0.1 * 1.0 + 0.1 * 3.0) / (1.0 - 0.9 * 0.9);
  const double square_hat = (0.98 * 0.02 * 1.0 + 0.02 * 9.0) / (1.0 - 0.98 * 0.98);
  const double expected = 1.0 - 0.1 * 1.0 / (1.0 + 1e-9) - 0.1 * mean_hat / (std::sqrt(square_hat) + 1e-9);
  CHECK(changing.theta(0) == Approx(expected).epsilon(1e-12));
  CHECK(second.steps() == 2);
}

TEST_CASE("batch_mean_gradient runs the examples in order and gives the mean of their gradients", "[ch11]") {
  const auto pair = [](double first, double second) {
    Eigen::VectorXd entries(2);
    entries << first, second;
    return entries;
  };
  const std::vector<Eigen::VectorXd> gradients{pair(1.0, 2.0), pair(3.0, 4.0), pair(5.0, 9.0)};
  std::vector<Eigen::Index> asked;
  const auto example = [&](Eigen::Index b) {
    asked.push_back(b);
    return gradients[static_cast<std::size_t>(b)];
  };
  const auto blocks = [](Eigen::VectorXd& gradient) {
    return std::vector<attention::ParameterBlock>{{gradient.data(), gradient.size()}};
  };
  const Eigen::VectorXd mean = attention::batch_mean_gradient(3, example, blocks);
  CHECK(asked == std::vector<Eigen::Index>{0, 1, 2});
  CHECK(mean == pair(3.0, 5.0));  // (1 + 3 + 5) / 3 and (2 + 4 + 9) / 3, exact in binary
  asked.clear();
  CHECK(attention::batch_mean_gradient(1, example, blocks) == gradients[0]);
  CHECK(asked == std::vector<Eigen::Index>{0});
  CHECK_THROWS_AS(attention::batch_mean_gradient(0, example, blocks), std::invalid_argument);
}

TEST_CASE("the token classifier learns one fixed batch by heart", "[ch11]") {
  attention::NumpyGenerator generator(5);
  attention::TokenClassifierShape shape;
  shape.vocabulary = 6;
  shape.outputs = 6;
  shape.d_model = 8;
  shape.d_ff = 16;
  attention::TokenClassifierWeights weights = attention::initial_token_classifier(shape, generator);
  const std::vector<std::vector<Eigen::Index>> batch{{0, 1, 2, 3}, {5, 5, 4, 1}, {2, 0, 3, 3}, {4, 2, 5, 0}};
  attention::AdamSettings settings;
  settings.learning_rate = 0.01;
  attention::Adam adam(attention::parameter_blocks(weights), settings);
  const auto reversed = [](std::vector<Eigen::Index> words) {
    return std::vector<Eigen::Index>(words.rbegin(), words.rend());
  };
  const auto batch_loss = [&] {
    double total = 0.0;
    for (const auto& words : batch) {
      total +=
          attention::softmax_cross_entropy(attention::token_classifier(weights, words).logits, reversed(words)).loss;
    }
    return total / static_cast<double>(batch.size());
  };
  const double before = batch_loss();
  for (int step = 0; step < 300; ++step) {
    attention::TokenClassifierWeights sum;
    std::vector<attention::ParameterBlock> sum_blocks;
    for (const auto& words : batch) {
      const auto steps = attention::token_classifier(weights, words);
      const auto error = attention::softmax_cross_entropy(steps.logits, reversed(words));
      attention::TokenClassifierWeights gradient =
          attention::token_classifier_backward(weights, words, steps, error.logits_gradient);
      if (sum_blocks.empty()) {
        sum = gradient;
        sum_blocks = attention::parameter_blocks(sum);
      } else {
        const auto blocks = attention::parameter_blocks(gradient);
        for (std::size_t b = 0; b < blocks.size(); ++b)
          Eigen::Map<Eigen::ArrayXd>(sum_blocks[b].data, sum_blocks[b].size) +=
              Eigen::Map<Eigen::ArrayXd>(blocks[b].data, blocks[b].size);
      }
    }
    adam.step(attention::parameter_blocks(weights), sum_blocks);
  }
  // Chance is log 6 ≈ 1.79 per digit; four sequences learned by heart cost almost nothing.
  CHECK(before > 1.0);
  CHECK(batch_loss() < 0.01);
}
