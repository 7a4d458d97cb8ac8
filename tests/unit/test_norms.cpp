// Chapter 16's library pieces: RMSNorm and its backward pass, the encoder layer with its norms before or
// after the sub-layers (norm_placement.hpp), and the token classifier in every layout. Backward passes are
// checked against central differences of their own forward passes; the paper's layout against the paper's
// code, number for number.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <random>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/adam.hpp"
#include "attention/cross_entropy.hpp"
#include "attention/encoder_layer.hpp"
#include "attention/encoder_layer_backward.hpp"
#include "attention/gradient_check.hpp"
#include "attention/kv_cache.hpp"
#include "attention/layer_norm.hpp"
#include "attention/norm_placement.hpp"
#include "attention/norm_placement_backward.hpp"
#include "attention/numpy_random.hpp"
#include "attention/rms_norm.hpp"
#include "attention/rms_norm_backward.hpp"
#include "attention/token_classifier.hpp"
#include "support.hpp"

using attention::Matrix;
using attention::Vector;

namespace {

using attention::LayerLayout;
using attention::NormKind;
using attention::NormPlacement;

// The bound of chapter 10's checks: the largest difference from central differences (h = 1e-5), over the
// largest gradient entry.
constexpr double norms_gradient_tolerance = 1e-7;

const std::vector<LayerLayout> norms_every_layout{{NormPlacement::post, NormKind::layer_norm},
                                                  {NormPlacement::post, NormKind::rms_norm},
                                                  {NormPlacement::pre, NormKind::layer_norm},
                                                  {NormPlacement::pre, NormKind::rms_norm}};

double norms_probe(const Matrix& output, const Matrix& direction) { return output.cwiseProduct(direction).sum(); }

Vector norms_random_vector(Eigen::Index n, std::mt19937_64& generator) {
  return support::random_matrix(n, 1, generator).col(0);
}

// A layer of standard normal weights; the norms' gains (and LayerNorm's biases) are random too, so that a
// gradient that forgot a gain or a bias shows.
attention::EncoderLayerWeights norms_random_layer(Eigen::Index d, Eigen::Index h, Eigen::Index d_ff, NormKind kind,
                                                  std::mt19937_64& generator) {
  attention::EncoderLayerWeights w;
  const Eigen::Index d_k = d / h;
  for (Eigen::Index i = 0; i < h; ++i) {
    w.attention.heads.push_back({support::random_matrix(d, d_k, generator), support::random_matrix(d, d_k, generator),
                                 support::random_matrix(d, d_k, generator)});
  }
  w.attention.output = support::random_matrix(h * d_k, d, generator);
  const auto norm = [&] {
    attention::LayerNormParameters p{norms_random_vector(d, generator), Vector::Zero(0)};
    if (kind == NormKind::layer_norm) p.bias = norms_random_vector(d, generator);
    return p;
  };
  w.attention_norm = norm();
  w.feed_forward = {support::random_matrix(d, d_ff, generator), norms_random_vector(d_ff, generator),
                    support::random_matrix(d_ff, d, generator), norms_random_vector(d, generator)};
  w.feed_forward_norm = norm();
  return w;
}

// Every matrix and vector of one layer's weights that holds a number, in a fixed order.
std::vector<attention::ParameterBlock> norms_layer_blocks(attention::EncoderLayerWeights& w) {
  std::vector<attention::ParameterBlock> blocks;
  const auto add = [&blocks](auto& m) {
    if (m.size() > 0) blocks.push_back({m.data(), m.size()});
  };
  for (attention::HeadProjections& head : w.attention.heads) {
    add(head.query);
    add(head.key);
    add(head.value);
  }
  add(w.attention.output);
  add(w.attention_norm.gain);
  add(w.attention_norm.bias);
  add(w.feed_forward.w1);
  add(w.feed_forward.b1);
  add(w.feed_forward.w2);
  add(w.feed_forward.b2);
  add(w.feed_forward_norm.gain);
  add(w.feed_forward_norm.bias);
  return blocks;
}

// The worst relative error, over the blocks, of the analytic gradients against central differences of `loss`.
double norms_worst_block_error(const std::function<double()>& loss,
                               const std::vector<attention::ParameterBlock>& parameters,
                               const std::vector<attention::ParameterBlock>& analytic) {
  REQUIRE(parameters.size() == analytic.size());
  double worst = 0.0;
  for (std::size_t b = 0; b < parameters.size(); ++b) {
    REQUIRE(parameters[b].size == analytic[b].size);
    Eigen::Map<Matrix> parameter(parameters[b].data, parameters[b].size, 1);
    const Matrix numeric = attention::central_differences(loss, parameter);
    const Matrix exact = Eigen::Map<const Matrix>(analytic[b].data, analytic[b].size, 1);
    worst = std::max(worst, attention::relative_error(exact, numeric));
  }
  return worst;
}

attention::TokenClassifierShape norms_small_shape(LayerLayout layout) {
  attention::TokenClassifierShape shape;
  shape.vocabulary = 5;
  shape.outputs = 3;
  shape.d_model = 4;
  shape.heads = 2;
  shape.d_ff = 6;
  shape.layers = 2;
  shape.layout = layout;
  return shape;
}

}  // namespace

TEST_CASE("rms_norm divides each row by its root mean square, then multiplies by the gain, by hand", "[ch16]") {
  Matrix x(2, 2);
  x << 3.0, 4.0,  //  mean square (9 + 16) / 2 = 12.5, root 5/√2
      1.0, -1.0;  //  mean square 1
  const Vector gain{{2.0, 0.5}};
  const attention::RmsNormSteps steps = attention::rms_norm(x, gain, 0.0);
  CHECK(steps.mean_square(0) == Approx(12.5).epsilon(1e-15));
  CHECK(steps.mean_square(1) == Approx(1.0).epsilon(1e-15));
  // 3 / (5/√2) = 3√2/5 and 4√2/5; the second row is unchanged by a root mean square of 1.
  CHECK(steps.normalized(0, 0) == Approx(3.0 * std::sqrt(2.0) / 5.0).epsilon(1e-15));
  CHECK(steps.normalized(0, 1) == Approx(4.0 * std::sqrt(2.0) / 5.0).epsilon(1e-15));
  CHECK(steps.output(0, 0) == Approx(2.0 * 3.0 * std::sqrt(2.0) / 5.0).epsilon(1e-15));
  CHECK(steps.output(0, 1) == Approx(0.5 * 4.0 * std::sqrt(2.0) / 5.0).epsilon(1e-15));
  CHECK(steps.output(1, 0) == Approx(2.0).epsilon(1e-15));
  CHECK(steps.output(1, 1) == Approx(-0.5).epsilon(1e-15));
  // With ε the mean square of a normalised row is ms / (ms + ε), and a row of zeros stays zeros.
  Matrix with_zeros(2, 2);
  with_zeros << 3.0, 4.0, 0.0, 0.0;
  const attention::RmsNormSteps damped = attention::rms_norm(with_zeros, Vector::Ones(2), 0.5);
  CHECK(damped.normalized.row(0).squaredNorm() / 2.0 == Approx(12.5 / 13.0).epsilon(1e-14));
  CHECK(damped.output.row(1).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("rms_norm keeps the mean it is given, and is LayerNorm's normalisation on a row whose mean is 0", "[ch16]") {
  std::mt19937_64 generator(16);
  Matrix x = support::random_matrix(3, 6, generator);
  const Vector gain = norms_random_vector(6, generator);
  // Shifting a row changes RMSNorm's output (LayerNorm's would not move).
  const Matrix shifted = (x.array() + 2.0).matrix();
  CHECK((attention::rms_norm(shifted, gain).output - attention::rms_norm(x, gain).output).cwiseAbs().maxCoeff() > 0.1);
  CHECK((attention::layer_norm(shifted, {gain, Vector::Zero(6)}).output -
         attention::layer_norm(x, {gain, Vector::Zero(6)}).output)
            .cwiseAbs()
            .maxCoeff() < 1e-12);
  // Scaling a row does not change it (ε = 0).
  CHECK((attention::rms_norm(7.0 * x, gain, 0.0).output - attention::rms_norm(x, gain, 0.0).output)
            .cwiseAbs()
            .maxCoeff() < 1e-13);
  // Centred rows: mean 0, so the mean square is the variance and the two norms agree.
  const Matrix centred = x.colwise() - x.rowwise().mean();
  const Matrix rms = attention::rms_norm(centred, gain).output;
  const Matrix layer = attention::layer_norm(centred, {gain, Vector::Zero(6)}).output;
  CHECK((rms - layer).cwiseAbs().maxCoeff() < 1e-13);
}

TEST_CASE("rms_norm refuses bad parameters", "[ch16]") {
  const Matrix x = Matrix::Ones(2, 3);
  CHECK_THROWS_AS(attention::rms_norm(x, Vector::Ones(2)), std::invalid_argument);
  CHECK_THROWS_AS(attention::rms_norm(x, Vector::Ones(3), -1e-5), std::invalid_argument);
  CHECK_THROWS_AS(attention::rms_norm(Matrix(2, 0), Vector::Ones(0)), std::invalid_argument);
  CHECK_THROWS_AS(attention::rms_norm_backward(Vector::Ones(3), attention::rms_norm(x, Vector::Ones(3)),
                                               Matrix::Zero(2, 2)),
                  std::invalid_argument);
  // normalize() refuses a bias for RMSNorm, which has none.
  attention::LayerNormSteps layer_steps;
  attention::RmsNormSteps rms_steps;
  CHECK_THROWS_AS(attention::normalize(x, attention::identity_layer_norm(3), NormKind::rms_norm, 1e-5, layer_steps,
                                       rms_steps),
                  std::invalid_argument);
}

TEST_CASE("rms_norm_backward agrees with central differences, and its input gradient is orthogonal to the row",
          "[ch16]") {
  std::mt19937_64 generator(17);
  Matrix x = support::random_matrix(3, 5, generator);
  Vector gain = norms_random_vector(5, generator);
  const Matrix direction = support::random_matrix(3, 5, generator);
  for (const double epsilon : {attention::default_layer_norm_epsilon, 0.0}) {
    const auto loss = [&] { return norms_probe(attention::rms_norm(x, gain, epsilon).output, direction); };
    const attention::RmsNormGradients g =
        attention::rms_norm_backward(gain, attention::rms_norm(x, gain, epsilon), direction, epsilon);
    CHECK(attention::relative_error(g.input, attention::central_differences(loss, x)) < norms_gradient_tolerance);
    CHECK(attention::relative_error(g.gain, attention::central_differences(loss, gain)) < norms_gradient_tolerance);
    if (epsilon == 0.0) {
      // With ε = 0, RMSNorm ignores a row's scale, so moving a row along itself changes nothing: x · dx = 0.
      for (Eigen::Index t = 0; t < x.rows(); ++t) CHECK(std::abs(x.row(t).dot(g.input.row(t))) < 1e-12);
    }
  }
}

TEST_CASE("the paper's layout of laid_out_encoder_layer is encoder_layer, number for number, both ways", "[ch16]") {
  std::mt19937_64 generator(18);
  const Matrix x = support::random_matrix(3, 4, generator);
  const attention::EncoderLayerWeights w = norms_random_layer(4, 2, 8, NormKind::layer_norm, generator);
  const Matrix direction = support::random_matrix(3, 4, generator);
  const auto paper = attention::encoder_layer(x, w);
  const auto laid_out = attention::laid_out_encoder_layer(x, w, LayerLayout{});
  CHECK(laid_out.attention_residual == paper.attention_residual);
  CHECK(laid_out.attention_norm.output == paper.attention_norm.output);
  CHECK(laid_out.feed_forward_residual == paper.feed_forward_residual);
  CHECK(attention::layer_output(laid_out, LayerLayout{}) == paper.feed_forward_norm.output);
  const auto paper_gradients = attention::encoder_layer_backward(x, w, paper, direction);
  const auto laid_out_gradients = attention::laid_out_encoder_layer_backward(x, w, LayerLayout{}, laid_out, direction);
  CHECK(laid_out_gradients.input == paper_gradients.input);
  CHECK(laid_out_gradients.weights.attention.heads[1].key == paper_gradients.weights.attention.heads[1].key);
  CHECK(laid_out_gradients.weights.attention_norm.bias == paper_gradients.weights.attention_norm.bias);
  CHECK(laid_out_gradients.weights.feed_forward.w1 == paper_gradients.weights.feed_forward.w1);
  CHECK(laid_out_gradients.weights.feed_forward_norm.gain == paper_gradients.weights.feed_forward_norm.gain);
}

TEST_CASE("each layout's layer computes its formula from the parts", "[ch16]") {
  std::mt19937_64 generator(19);
  const Matrix x = support::random_matrix(3, 4, generator);
  for (const NormKind kind : {NormKind::layer_norm, NormKind::rms_norm}) {
    const attention::EncoderLayerWeights w = norms_random_layer(4, 2, 8, kind, generator);
    const auto norm = [&](const Matrix& input, const attention::LayerNormParameters& p) -> Matrix {
      if (kind == NormKind::rms_norm) return attention::rms_norm(input, p.gain).output;
      return attention::layer_norm(input, p).output;
    };
    const auto attend = [&](const Matrix& input) -> Matrix {
      return attention::multi_head_attention(input, input, input, w.attention).output;
    };
    const auto think = [&](const Matrix& input) -> Matrix {
      return attention::feed_forward(input, w.feed_forward).output;
    };
    // Post-norm: Norm(y + FFN(y)), y = Norm(x + MultiHead(x)).
    const Matrix y = norm(x + attend(x), w.attention_norm);
    const Matrix post = norm(y + think(y), w.feed_forward_norm);
    const LayerLayout post_layout{NormPlacement::post, kind};
    CHECK((attention::layer_output(attention::laid_out_encoder_layer(x, w, post_layout), post_layout) - post)
              .cwiseAbs()
              .maxCoeff() < 1e-12);
    // Pre-norm: h + FFN(Norm(h)), h = x + MultiHead(Norm(x)).
    const Matrix h = x + attend(norm(x, w.attention_norm));
    const Matrix pre = h + think(norm(h, w.feed_forward_norm));
    const LayerLayout pre_layout{NormPlacement::pre, kind};
    CHECK((attention::layer_output(attention::laid_out_encoder_layer(x, w, pre_layout), pre_layout) - pre)
              .cwiseAbs()
              .maxCoeff() < 1e-12);
  }
}

TEST_CASE("laid_out_encoder_layer_backward agrees with central differences in every layout, input and every weight",
          "[ch16]") {
  for (const LayerLayout& layout : norms_every_layout) {
    std::mt19937_64 generator(20);
    const Eigen::Index d = 4;
    Matrix x = support::random_matrix(3, d, generator);
    attention::EncoderLayerWeights w = norms_random_layer(d, 2, 8, layout.norm, generator);
    const Matrix direction = support::random_matrix(3, d, generator);
    const auto loss = [&] {
      return norms_probe(attention::layer_output(attention::laid_out_encoder_layer(x, w, layout), layout), direction);
    };
    const auto steps = attention::laid_out_encoder_layer(x, w, layout);
    REQUIRE(steps.feed_forward.widened.cwiseAbs().minCoeff() > 1e-3);  // no ReLU at its kink
    attention::EncoderLayerGradients g = attention::laid_out_encoder_layer_backward(x, w, layout, steps, direction);
    CHECK(attention::relative_error(g.input, attention::central_differences(loss, x)) < norms_gradient_tolerance);
    CHECK(norms_worst_block_error(loss, norms_layer_blocks(w), norms_layer_blocks(g.weights)) <
          norms_gradient_tolerance);
    CHECK(g.weights.attention_norm.bias.size() == (layout.norm == NormKind::rms_norm ? 0 : d));
  }
}

TEST_CASE("a pre-norm layer whose sub-layers add nothing passes its input and its gradient through unchanged",
          "[ch16]") {
  std::mt19937_64 generator(21);
  const Matrix x = support::random_matrix(3, 4, generator);
  attention::EncoderLayerWeights w = norms_random_layer(4, 2, 8, NormKind::layer_norm, generator);
  w.attention.output.setZero();  // MultiHead(...) = 0
  w.feed_forward.w2.setZero();   // FFN(...) = 0
  w.feed_forward.b2.setZero();
  const Matrix direction = support::random_matrix(3, 4, generator);
  const LayerLayout pre{NormPlacement::pre, NormKind::layer_norm};
  const auto steps = attention::laid_out_encoder_layer(x, w, pre);
  CHECK(attention::layer_output(steps, pre) == x);
  CHECK(attention::laid_out_encoder_layer_backward(x, w, pre, steps, direction).input == direction);
  // Post-norm, the same layer still normalises twice: its output is not its input.
  const auto post = attention::encoder_layer(x, w);
  CHECK((post.feed_forward_norm.output - x).cwiseAbs().maxCoeff() > 0.1);
}

TEST_CASE("the token classifier's backward pass agrees with central differences in every layout, every weight",
          "[ch16]") {
  for (const LayerLayout& layout : norms_every_layout) {
    attention::NumpyGenerator generator(3);
    attention::TokenClassifierWeights weights =
        attention::initial_token_classifier(norms_small_shape(layout), generator);
    CHECK(weights.final_norm.gain.size() == (layout.placement == NormPlacement::pre ? 4 : 0));
    const std::vector<Eigen::Index> words{4, 0, 2};
    const std::vector<Eigen::Index> targets{2, 0, 1};
    const auto loss = [&] {
      return attention::softmax_cross_entropy(attention::token_classifier(weights, words).logits, targets).loss;
    };
    const attention::TokenClassifierSteps steps = attention::token_classifier(weights, words);
    for (const auto& layer : steps.layers) REQUIRE(layer.feed_forward.widened.cwiseAbs().minCoeff() > 1e-3);
    const auto error = attention::softmax_cross_entropy(steps.logits, targets);
    attention::TokenClassifierWeights gradients =
        attention::token_classifier_backward(weights, words, steps, error.logits_gradient);
    CHECK(gradients.layout == layout);
    CHECK(norms_worst_block_error(loss, attention::parameter_blocks(weights), attention::parameter_blocks(gradients)) <
          norms_gradient_tolerance);
  }
}

TEST_CASE("parameter_blocks counts each layout's learned numbers, RMSNorm without a bias, pre-norm with one more norm",
          "[ch16]") {
  const Eigen::Index d = 4, V = 5, C = 3, d_ff = 6, layers = 2;
  const Eigen::Index without_norms = 3 * d * d + d * d + d * d_ff + d_ff + d_ff * d + d;  // per layer
  for (const LayerLayout& layout : norms_every_layout) {
    attention::NumpyGenerator generator(1);
    attention::TokenClassifierWeights weights =
        attention::initial_token_classifier(norms_small_shape(layout), generator);
    Eigen::Index total = 0;
    for (const attention::ParameterBlock& block : attention::parameter_blocks(weights)) total += block.size;
    const Eigen::Index per_norm = layout.norm == NormKind::layer_norm ? 2 * d : d;  // γ and β, or g alone
    const Eigen::Index final_norms = layout.placement == NormPlacement::pre ? 1 : 0;
    CHECK(total == V * d + layers * (without_norms + 2 * per_norm) + final_norms * per_norm + d * C + C);
  }
}

TEST_CASE("the paper's layout of the token classifier is the paper's pieces, number for number", "[ch16]") {
  attention::NumpyGenerator generator(4);
  attention::TokenClassifierWeights weights = attention::initial_token_classifier(norms_small_shape({}), generator);
  const std::vector<Eigen::Index> words{1, 4, 4, 0};
  const auto causal = attention::Visibility::causal;
  const attention::TokenClassifierSteps steps = attention::token_classifier(weights, words, causal);
  // The forward pass as it was written before layouts: input, encoder_stack(), read-out.
  const Matrix input = attention::first_layer_input(weights.embedding, words);
  const auto layers = attention::encoder_stack(input, weights.layers, attention::attention_options(causal, 4));
  const Matrix logits =
      (layers.back().feed_forward_norm.output * weights.readout).rowwise() + weights.readout_bias.transpose();
  CHECK(steps.logits == logits);
  // The general forward and backward passes, in the paper's layout, give the same numbers.
  const attention::TokenClassifierSteps laid_out = attention::laid_out_token_classifier(weights, words, causal);
  CHECK(laid_out.logits == steps.logits);
  const Matrix gradient = attention::softmax_cross_entropy(steps.logits, {0, 1, 2, 0}).logits_gradient;
  attention::TokenClassifierWeights paper =
      attention::token_classifier_backward(weights, words, steps, gradient, causal);
  attention::TokenClassifierWeights general =
      attention::laid_out_token_classifier_backward(weights, words, laid_out, gradient, causal);
  const auto paper_blocks = attention::parameter_blocks(paper);
  const auto general_blocks = attention::parameter_blocks(general);
  REQUIRE(paper_blocks.size() == general_blocks.size());
  for (std::size_t b = 0; b < paper_blocks.size(); ++b) {
    REQUIRE(paper_blocks[b].size == general_blocks[b].size);
    CHECK(std::equal(paper_blocks[b].data, paper_blocks[b].data + paper_blocks[b].size, general_blocks[b].data));
  }
  // The layout draws nothing: a pre-norm RMSNorm model starts from the same draws.
  attention::NumpyGenerator again(4);
  const attention::TokenClassifierWeights pre =
      attention::initial_token_classifier(norms_small_shape({NormPlacement::pre, NormKind::rms_norm}), again);
  CHECK(pre.embedding == weights.embedding);
  CHECK(pre.layers.back().feed_forward.w2 == weights.layers.back().feed_forward.w2);
  CHECK(pre.readout == weights.readout);
}

TEST_CASE("a post-norm model with a final norm, or a pre-norm one decoded step by step, is refused", "[ch16]") {
  attention::NumpyGenerator generator(5);
  attention::TokenClassifierWeights weights =
      attention::initial_token_classifier(norms_small_shape({NormPlacement::post, NormKind::rms_norm}), generator);
  weights.final_norm = attention::identity_norm(4, NormKind::rms_norm);
  CHECK_THROWS_AS(attention::token_classifier(weights, {1, 2}), std::invalid_argument);
  attention::NumpyGenerator again(5);
  const attention::TokenClassifierWeights pre =
      attention::initial_token_classifier(norms_small_shape({NormPlacement::pre, NormKind::layer_norm}), again);
  attention::KeyValueCache cache = attention::empty_key_value_cache(pre, 2, 4);
  CHECK_THROWS_AS(attention::decode_step(pre, cache, 1), std::invalid_argument);
}

TEST_CASE("Adam's learning rate can change between steps, as a warm-up changes it", "[ch16]") {
  support::OneBlock block({1.0, -2.0}, {0.5, -40.0});
  attention::AdamSettings settings;
  settings.learning_rate = 0.1;
  attention::Adam adam(block.parameters, settings);
  adam.set_learning_rate(0.025);
  CHECK(adam.learning_rate() == 0.025);
  // The first step moves each parameter by α against its gradient's sign (chapter 11's test), now α = 0.025.
  adam.step(block.parameters, block.gradients);
  CHECK(block.theta(0) == Approx(0.975).margin(1e-8));
  CHECK(block.theta(1) == Approx(-1.975).margin(1e-8));
  CHECK_THROWS_AS(adam.set_learning_rate(0.0), std::invalid_argument);
  CHECK_THROWS_AS(adam.set_learning_rate(std::nan("")), std::invalid_argument);
  CHECK(adam.learning_rate() == 0.025);
}
