// The token classifier's passes and starting weights (token_classifier.hpp), compiled once: every chapter that
// trains one (11, 13 to 16), the tests and the page's module link this object instead of compiling the model's
// forward and backward passes again in each of their own sources.
#include "attention/token_classifier.hpp"

namespace attention {

TokenClassifierWeights initial_token_classifier(const TokenClassifierShape& shape, NumpyGenerator& generator) {
  if (shape.vocabulary < 2 || shape.outputs < 2 || shape.layers < 1 || shape.d_ff < 1) {
    throw std::invalid_argument(
        "initial_token_classifier: the vocabulary and the outputs need 2 each, and layers and d_ff must be at least 1");
  }
  require_even_width(shape.d_model, "initial_token_classifier");
  const Eigen::Index d_k = head_width(shape.d_model, shape.heads);
  const double model_scale = 1.0 / std::sqrt(static_cast<double>(shape.d_model));
  const double inner_scale = 1.0 / std::sqrt(static_cast<double>(shape.d_ff));
  TokenClassifierWeights weights;
  weights.embedding = normal_matrix(generator, shape.vocabulary, shape.d_model);
  for (Eigen::Index l = 0; l < shape.layers; ++l) {
    EncoderLayerWeights layer;
    for (Eigen::Index h = 0; h < shape.heads; ++h) {
      HeadProjections head;
      head.query = model_scale * normal_matrix(generator, shape.d_model, d_k);
      head.key = model_scale * normal_matrix(generator, shape.d_model, d_k);
      head.value = model_scale * normal_matrix(generator, shape.d_model, d_k);
      layer.attention.heads.push_back(head);
    }
    layer.attention.output = model_scale * normal_matrix(generator, shape.heads * d_k, shape.d_model);
    layer.attention_norm = identity_norm(shape.d_model, shape.layout.norm);
    layer.feed_forward.w1 = model_scale * normal_matrix(generator, shape.d_model, shape.d_ff);
    layer.feed_forward.b1 = Vector::Zero(shape.d_ff);
    layer.feed_forward.w2 = inner_scale * normal_matrix(generator, shape.d_ff, shape.d_model);
    layer.feed_forward.b2 = Vector::Zero(shape.d_model);
    layer.feed_forward_norm = identity_norm(shape.d_model, shape.layout.norm);
    weights.layers.push_back(layer);
  }
  if (shape.layout.placement == NormPlacement::pre) {
    weights.final_norm = identity_norm(shape.d_model, shape.layout.norm);
  }
  weights.readout = model_scale * normal_matrix(generator, shape.d_model, shape.outputs);
  weights.readout_bias = Vector::Zero(shape.outputs);
  weights.layout = shape.layout;
  return weights;
}

TokenClassifierSteps laid_out_token_classifier(const TokenClassifierWeights& weights,
                                               const std::vector<Eigen::Index>& words, Visibility visibility,
                                               Positions positions) {
  if (words.empty()) {
    throw std::invalid_argument("laid_out_token_classifier: the input needs at least one word");
  }
  const LayerLayout& layout = weights.layout;
  const bool pre = layout.placement == NormPlacement::pre;
  if (!pre && (weights.final_norm.gain.size() != 0 || weights.final_norm.bias.size() != 0)) {
    throw std::invalid_argument("laid_out_token_classifier: a post-norm stack has no final norm");
  }
  TokenClassifierSteps steps;
  const auto final_norm = [&](const Matrix& input) -> const Matrix& {
    return normalize(input, weights.final_norm, layout.norm, default_layer_norm_epsilon, steps.final_norm,
                     steps.final_rms_norm);
  };
  // clang-format off
  // [laid_out_token_classifier]
  steps.input = first_layer_input(weights.embedding, words, positions);
  const AttentionOptions options = attention_options(visibility, steps.input.rows(), positions);
  steps.layers = laid_out_encoder_stack(steps.input, weights.layers, layout, options);
  const Matrix& last = layer_output(steps.layers.back(), layout);
  const Matrix& top = pre ? final_norm(last) : last;  // a pre-norm stack ends in one more norm
  steps.logits = (top * weights.readout).rowwise() + weights.readout_bias.transpose();
  // [laid_out_token_classifier]
  // clang-format on
  return steps;
}

TokenClassifierWeights laid_out_token_classifier_backward(const TokenClassifierWeights& weights,
                                                          const std::vector<Eigen::Index>& words,
                                                          const TokenClassifierSteps& steps,
                                                          const Matrix& logits_gradient, Visibility visibility,
                                                          Positions positions) {
  const LayerLayout& layout = weights.layout;
  const bool pre = layout.placement == NormPlacement::pre;
  TokenClassifierWeights gradients;
  gradients.layout = layout;
  gradients.layers.resize(weights.layers.size());
  const auto final_norm_backward = [&](const Matrix& gradient) {
    return normalize_backward(weights.final_norm, layout.norm, steps.final_norm, steps.final_rms_norm, gradient);
  };
  // clang-format off
  // [laid_out_token_classifier_backward]
  const Matrix& top = pre ? norm_output(layout.norm, steps.final_norm, steps.final_rms_norm)
                          : layer_output(steps.layers.back(), layout);
  gradients.readout = top.transpose() * logits_gradient;
  gradients.readout_bias = logits_gradient.colwise().sum().transpose();
  Matrix gradient = logits_gradient * weights.readout.transpose();
  if (pre) {  // back through the final norm
    LayerNormGradients final_norm = final_norm_backward(gradient);
    gradients.final_norm = std::move(final_norm.parameters);
    gradient = std::move(final_norm.input);
  }
  const AttentionOptions options = attention_options(visibility, steps.input.rows(), positions);
  for (std::size_t l = weights.layers.size(); l-- > 0;) {
    const Matrix& layer_input = l == 0 ? steps.input : layer_output(steps.layers[l - 1], layout);
    EncoderLayerGradients layer = laid_out_encoder_layer_backward(
        layer_input, weights.layers[l], layout, steps.layers[l], gradient, options);
    gradients.layers[l] = std::move(layer.weights);
    gradient = std::move(layer.input);
  }
  gradients.embedding = embedding_backward(weights.embedding.rows(), words, gradient);
  // [laid_out_token_classifier_backward]
  // clang-format on
  return gradients;
}

TokenClassifierSteps token_classifier(const TokenClassifierWeights& weights, const std::vector<Eigen::Index>& words,
                                      Visibility visibility, Positions positions) {
  if (words.empty()) {
    throw std::invalid_argument("token_classifier: the input needs at least one word");
  }
  if (weights.layout != LayerLayout{}) return laid_out_token_classifier(weights, words, visibility, positions);
  TokenClassifierSteps steps;
  // clang-format off
  // [token_classifier]
  steps.input = first_layer_input(weights.embedding, words, positions);  // + PE(pos), unless told
  const AttentionOptions options = attention_options(visibility, steps.input.rows(), positions);
  steps.layers = encoder_stack(steps.input, weights.layers, options);
  // x W_out + b_out: x is the last layer's output, readout W_out, readout_bias b_out
  steps.logits = (steps.layers.back().feed_forward_norm.output * weights.readout).rowwise() +
                 weights.readout_bias.transpose();
  // [token_classifier]
  // clang-format on
  return steps;
}

TokenClassifierWeights token_classifier_backward(const TokenClassifierWeights& weights,
                                                 const std::vector<Eigen::Index>& words,
                                                 const TokenClassifierSteps& steps, const Matrix& logits_gradient,
                                                 Visibility visibility, Positions positions) {
  if (weights.layout != LayerLayout{}) {
    return laid_out_token_classifier_backward(weights, words, steps, logits_gradient, visibility, positions);
  }
  TokenClassifierWeights gradients;
  gradients.layers.resize(weights.layers.size());
  // clang-format off
  // [token_classifier_backward]
  const Matrix& last = steps.layers.back().feed_forward_norm.output;
  gradients.readout = last.transpose() * logits_gradient;
  gradients.readout_bias = logits_gradient.colwise().sum().transpose();
  // ∂L/∂(the last layer's output), then walked down through the layers:
  Matrix gradient = logits_gradient * weights.readout.transpose();
  const AttentionOptions options = attention_options(visibility, steps.input.rows(), positions);
  for (std::size_t l = weights.layers.size(); l-- > 0;) {
    const Matrix& layer_input =
        l == 0 ? steps.input : steps.layers[l - 1].feed_forward_norm.output;
    EncoderLayerGradients layer =
        encoder_layer_backward(layer_input, weights.layers[l], steps.layers[l], gradient, options);
    gradients.layers[l] = std::move(layer.weights);
    gradient = std::move(layer.input);
  }
  // an added positional encoding is fixed: the whole input gradient goes to the embedding rows
  gradients.embedding = embedding_backward(weights.embedding.rows(), words, gradient);
  // [token_classifier_backward]
  // clang-format on
  return gradients;
}

}  // namespace attention
