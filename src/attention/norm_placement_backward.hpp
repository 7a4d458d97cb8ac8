/// @file norm_placement_backward.hpp
/// @brief The backward pass of an encoder layer in any layout: post-norm or pre-norm, LayerNorm or RMSNorm.
///
/// In a pre-norm layer, out = h + FFN(Norm(h)) with h = x + MultiHead(Norm(x)),
/// the gradient of the output reaches h unchanged along the residual path, and
/// h's reaches x unchanged: from the top of the stack (below its final norm) down
/// to the first layer's input there is a path with no norm and no sub-layer on it. In a post-norm layer
/// every path, the residual one too, passes through both norms.
#pragma once

#include <utility>

#include "attention/encoder_layer.hpp"
#include "attention/encoder_layer_backward.hpp"
#include "attention/feed_forward_backward.hpp"
#include "attention/layer_norm.hpp"
#include "attention/layer_norm_backward.hpp"
#include "attention/matrix.hpp"
#include "attention/multi_head_backward.hpp"
#include "attention/norm_placement.hpp"
#include "attention/rms_norm.hpp"
#include "attention/rms_norm_backward.hpp"

namespace attention {

/// @brief The backward pass of normalize(): layer_norm_backward() or rms_norm_backward(), as @p kind says.
///
/// @param parameters the norm's parameters (for RMSNorm, the gain and an empty bias)
/// @param kind LayerNorm or RMSNorm
/// @param layer_norm_steps the forward pass's steps, if it was LayerNorm
/// @param rms_norm_steps the forward pass's steps, if it was RMSNorm
/// @param output_gradient ∂L/∂(the norm's output)
/// @param epsilon the forward pass's ε
/// @return ∂L/∂x and the parameters' gradients; for RMSNorm the bias's is empty, like the bias
/// @throws std::invalid_argument if @p output_gradient does not have the output's shape
inline LayerNormGradients normalize_backward(const LayerNormParameters& parameters, NormKind kind,
                                             const LayerNormSteps& layer_norm_steps, const RmsNormSteps& rms_norm_steps,
                                             const Matrix& output_gradient,
                                             double epsilon = default_layer_norm_epsilon) {
  if (kind == NormKind::rms_norm) {
    RmsNormGradients rms = rms_norm_backward(parameters.gain, rms_norm_steps, output_gradient, epsilon);
    return {std::move(rms.input), {std::move(rms.gain), Vector::Zero(0)}};
  }
  return layer_norm_backward(parameters, layer_norm_steps, output_gradient, epsilon);
}

/// @brief The backward pass of laid_out_encoder_layer().
///
/// @param x the input of the forward pass, n × d_model
/// @param weights the weights of the forward pass
/// @param layout the layout of the forward pass
/// @param steps what laid_out_encoder_layer(x, weights, layout, options, epsilon) returned
/// @param output_gradient ∂L/∂output, n × d_model
/// @param options the attention options of the forward pass
/// @param epsilon the norms' ε of the forward pass
/// @return ∂L/∂x and the gradients of all weights (with RMSNorm, the norms' bias gradients are empty)
/// @throws std::invalid_argument if @p output_gradient does not have the output's shape
inline EncoderLayerGradients laid_out_encoder_layer_backward(const Matrix& x, const EncoderLayerWeights& weights,
                                                             const LayerLayout& layout, const EncoderLayerSteps& steps,
                                                             const Matrix& output_gradient,
                                                             const AttentionOptions& options = {},
                                                             double epsilon = default_layer_norm_epsilon) {
  EncoderLayerGradients gradients;
  const auto attention_norm_backward = [&](const Matrix& gradient) {
    return normalize_backward(weights.attention_norm, layout.norm, steps.attention_norm, steps.attention_rms_norm,
                              gradient, epsilon);
  };
  const auto feed_forward_norm_backward = [&](const Matrix& gradient) {
    return normalize_backward(weights.feed_forward_norm, layout.norm, steps.feed_forward_norm,
                              steps.feed_forward_rms_norm, gradient, epsilon);
  };
  const Matrix& attention_norm = norm_output(layout.norm, steps.attention_norm, steps.attention_rms_norm);
  if (layout.placement == NormPlacement::post) {  // encoder_layer_backward()'s steps, with the layout's norm
    const LayerNormGradients second_norm = feed_forward_norm_backward(output_gradient);
    const Matrix& y = attention_norm;
    const FeedForwardGradients feed_forward =
        feed_forward_backward(y, weights.feed_forward, steps.feed_forward, second_norm.input);
    const Matrix y_gradient = second_norm.input + feed_forward.input;
    const LayerNormGradients first_norm = attention_norm_backward(y_gradient);
    const MultiHeadGradients attention =
        multi_head_backward(x, x, x, weights.attention, steps.attention, first_norm.input, options);
    gradients.input = first_norm.input + attention.queries + attention.keys + attention.values;
    gradients.weights = {attention.weights, first_norm.parameters, feed_forward.weights, second_norm.parameters};
    return gradients;
  }
  // clang-format off
  // [pre_norm_encoder_layer_backward]
  const Matrix& b = norm_output(layout.norm, steps.feed_forward_norm, steps.feed_forward_rms_norm);
  const FeedForwardGradients feed_forward =
      feed_forward_backward(b, weights.feed_forward, steps.feed_forward, output_gradient);
  const LayerNormGradients second_norm = feed_forward_norm_backward(feed_forward.input);
  const Matrix h_gradient = output_gradient + second_norm.input;  // the residual path, the FFN path
  const Matrix& a = attention_norm;
  const MultiHeadGradients attention =
      multi_head_backward(a, a, a, weights.attention, steps.attention, h_gradient, options);
  const Matrix a_gradient = attention.queries + attention.keys + attention.values;  // a was Q, K, V
  const LayerNormGradients first_norm = attention_norm_backward(a_gradient);
  gradients.input = h_gradient + first_norm.input;  // the residual path and the attention path
  // [pre_norm_encoder_layer_backward]
  // clang-format on
  gradients.weights = {attention.weights, first_norm.parameters, feed_forward.weights, second_norm.parameters};
  return gradients;
}

}  // namespace attention
