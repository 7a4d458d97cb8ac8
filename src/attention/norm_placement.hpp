/// @file norm_placement.hpp
/// @brief Where an encoder layer's norms go, after each residual sum or before each sub-layer, and which norm they are, LayerNorm or RMSNorm.
///
/// The paper wraps each sub-layer as LayerNorm(x + Sublayer(x)) (§3.1):
/// post-norm. Xiong et al. (2020), "On Layer Normalization in the Transformer
/// Architecture", study the other place, x + Sublayer(Norm(x)): pre-norm.
/// There the residual path runs from the layer's input to its output with no
/// norm on it, and they show that the gradients near the output are then
/// well-behaved at the start of training, so that the warm-up of the learning
/// rate the post-norm Transformer needs can be left out. A pre-norm stack adds
/// up the sub-layers' outputs without ever normalising the sum, so it is
/// conventionally closed by one more norm before the read-out (Xiong et al.'s
/// Figure 1; GPT-2 does the same); the token classifier does so
/// (TokenClassifierWeights::final_norm).
///
/// Either place can hold either norm: layer_norm() or rms_norm() (Zhang and
/// Sennrich 2019). A layer's weights keep their shape: its two
/// LayerNormParameters hold γ and β for LayerNorm, and for RMSNorm the gain g
/// and an empty bias.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "attention/encoder_layer.hpp"
#include "attention/feed_forward.hpp"
#include "attention/layer_norm.hpp"
#include "attention/matrix.hpp"
#include "attention/multi_head.hpp"
#include "attention/rms_norm.hpp"

namespace attention {

/// @brief Where a layer's norms go.
enum class NormPlacement {
  post,  ///< Norm(x + Sublayer(x)), after each residual sum: the paper's (§3.1)
  pre,   ///< x + Sublayer(Norm(x)), before each sub-layer, the residual path left alone (Xiong et al. 2020)
};

/// @brief Which normalisation a layer uses.
enum class NormKind {
  layer_norm,  ///< layer_norm(): subtract the row's mean, divide by its standard deviation, then gain and bias
  rms_norm,    ///< rms_norm(): divide by the row's root mean square, then gain; no mean, no bias
};

/// @brief How an encoder layer is laid out: where its norms go and which norm they are.
///
/// The default, post-norm LayerNorm, is the paper's layer, encoder_layer().
struct LayerLayout {
  NormPlacement placement = NormPlacement::post;  ///< after the residual sums, or before the sub-layers
  NormKind norm = NormKind::layer_norm;           ///< LayerNorm or RMSNorm

  /// @brief Two layouts are equal when their placement and norm are.
  /// @param other the layout to compare with
  /// @return whether both fields agree
  bool operator==(const LayerLayout& other) const = default;
};

/// @brief The parameters training usually starts from: a gain of ones, and for LayerNorm a bias of zeros.
/// @param width d_model, at least 0
/// @param kind the norm; RMSNorm gets an empty bias, since it has none
/// @return the parameters
inline LayerNormParameters identity_norm(Eigen::Index width, NormKind kind) {
  if (kind == NormKind::rms_norm) return {Vector::Ones(width), Vector::Zero(0)};
  return identity_layer_norm(width);
}

/// @brief Norm(x) of the given kind, its intermediates kept in the steps of that kind.
///
/// @param x n × d_model
/// @param parameters γ and β for LayerNorm; for RMSNorm the gain, with an empty bias
/// @param kind LayerNorm or RMSNorm
/// @param epsilon ε of the norm
/// @param layer_norm_steps filled with layer_norm()'s steps when @p kind is LayerNorm, else left as it was
/// @param rms_norm_steps filled with rms_norm()'s steps when @p kind is RMSNorm, else left as it was
/// @return the norm's output, a reference into the steps it filled
/// @throws std::invalid_argument if RMSNorm is given a bias, or for anything the norm refuses
inline const Matrix& normalize(const Matrix& x, const LayerNormParameters& parameters, NormKind kind, double epsilon,
                               LayerNormSteps& layer_norm_steps, RmsNormSteps& rms_norm_steps) {
  if (kind == NormKind::rms_norm) {
    if (parameters.bias.size() != 0) {
      throw std::invalid_argument("normalize: RMSNorm has no bias, but one of " +
                                  std::to_string(parameters.bias.size()) + " entries was given");
    }
    rms_norm_steps = rms_norm(x, parameters.gain, epsilon);
    return rms_norm_steps.output;
  }
  layer_norm_steps = layer_norm(x, parameters, epsilon);
  return layer_norm_steps.output;
}

/// @brief The output of a norm that normalize() computed.
/// @param kind the norm's kind
/// @param layer_norm_steps its steps, if it was LayerNorm
/// @param rms_norm_steps its steps, if it was RMSNorm
/// @return the output of the steps of @p kind
inline const Matrix& norm_output(NormKind kind, const LayerNormSteps& layer_norm_steps,
                                 const RmsNormSteps& rms_norm_steps) {
  return kind == NormKind::rms_norm ? rms_norm_steps.output : layer_norm_steps.output;
}

/// @brief The output of one layer that laid_out_encoder_layer() ran in @p layout.
/// @param steps the layer's steps
/// @param layout the layout it ran in
/// @return post-norm: the second norm's output; pre-norm: the second residual sum, which no norm follows
inline const Matrix& layer_output(const EncoderLayerSteps& steps, const LayerLayout& layout) {
  if (layout.placement == NormPlacement::pre) return steps.feed_forward_residual;
  return norm_output(layout.norm, steps.feed_forward_norm, steps.feed_forward_rms_norm);
}

/// @brief One encoder layer in any layout: post-norm as in the paper, or pre-norm; LayerNorm or RMSNorm.
///
/// Post-norm: y = Norm(x + MultiHead(x, x, x)), then Norm(y + FFN(y)); with
/// LayerNorm this is encoder_layer(), number for number. Pre-norm:
/// h = x + MultiHead(a, a, a) with a = Norm(x), then h + FFN(Norm(h)).
///
/// @param x n × d_model, one row per token
/// @param weights the layer's learned numbers; with RMSNorm each norm's bias is empty
/// @param layout where the norms go and which norm they are
/// @param options scaling and mask of the attention
/// @param epsilon ε of both norms
/// @return every intermediate; the layer's output is layer_output(steps, layout)
/// @throws std::invalid_argument if a shape does not fit, or for anything the parts refuse
inline EncoderLayerSteps laid_out_encoder_layer(const Matrix& x, const EncoderLayerWeights& weights,
                                                const LayerLayout& layout, const AttentionOptions& options = {},
                                                double epsilon = default_layer_norm_epsilon) {
  if (weights.attention.output.cols() != x.cols() || weights.feed_forward.w2.cols() != x.cols()) {
    throw std::invalid_argument("laid_out_encoder_layer: W^O and W2 must bring the width back to d_model = " +
                                std::to_string(x.cols()) + " for the residual connections");
  }
  EncoderLayerSteps steps;
  const auto attention_norm = [&](const Matrix& input) -> const Matrix& {
    return normalize(input, weights.attention_norm, layout.norm, epsilon, steps.attention_norm,
                     steps.attention_rms_norm);
  };
  const auto feed_forward_norm = [&](const Matrix& input) -> const Matrix& {
    return normalize(input, weights.feed_forward_norm, layout.norm, epsilon, steps.feed_forward_norm,
                     steps.feed_forward_rms_norm);
  };
  if (layout.placement == NormPlacement::post) {
    // clang-format off
    // [post_norm_encoder_layer]
    steps.attention = multi_head_attention(x, x, x, weights.attention, options);
    steps.attention_residual = x + steps.attention.output;
    const Matrix& y = attention_norm(steps.attention_residual);  // Norm(x + MultiHead(x, x, x))
    steps.feed_forward = attention::feed_forward(y, weights.feed_forward);
    steps.feed_forward_residual = y + steps.feed_forward.output;
    feed_forward_norm(steps.feed_forward_residual);  // the layer's output: Norm(y + FFN(y))
    // [post_norm_encoder_layer]
    // clang-format on
    return steps;
  }
  // clang-format off
  // [pre_norm_encoder_layer]
  // Communicate, reading the normalised input; the residual path carries x itself.
  const Matrix& a = attention_norm(x);
  steps.attention = multi_head_attention(a, a, a, weights.attention, options);
  steps.attention_residual = x + steps.attention.output;
  const Matrix& h = steps.attention_residual;  // x + MultiHead(a, a, a)
  // Think, likewise: normalised on the way in, and no norm on the way out.
  const Matrix& b = feed_forward_norm(h);
  steps.feed_forward = attention::feed_forward(b, weights.feed_forward);
  steps.feed_forward_residual = h + steps.feed_forward.output;  // the layer's output
  // [pre_norm_encoder_layer]
  // clang-format on
  return steps;
}

/// @brief A stack of encoder layers, each in @p layout: the output of layer l is the input of layer l + 1.
///
/// @param x n × d_model, the input of the first layer
/// @param layers the weights of each layer, first layer first; at least one
/// @param layout where every layer's norms go and which norm they are
/// @param options the attention options of every layer
/// @param epsilon ε of every norm
/// @return each layer's steps; the stack's output is layer_output(steps.back(), layout)
/// @throws std::invalid_argument if there is no layer, or for anything laid_out_encoder_layer() refuses
inline std::vector<EncoderLayerSteps> laid_out_encoder_stack(const Matrix& x,
                                                             const std::vector<EncoderLayerWeights>& layers,
                                                             const LayerLayout& layout,
                                                             const AttentionOptions& options = {},
                                                             double epsilon = default_layer_norm_epsilon) {
  if (layers.empty()) {
    throw std::invalid_argument("laid_out_encoder_stack: there must be at least one layer");
  }
  std::vector<EncoderLayerSteps> steps;
  steps.reserve(layers.size());  // so that `input` never points into a moved element
  const Matrix* input = &x;
  for (const EncoderLayerWeights& layer : layers) {
    steps.push_back(laid_out_encoder_layer(*input, layer, layout, options, epsilon));
    input = &layer_output(steps.back(), layout);  // the next layer's input
  }
  return steps;
}

}  // namespace attention
