/// @file encoder_layer_backward.hpp
/// @brief The backward pass of one encoder layer: LayerNorm(x + MultiHead(x, x, x)), then LayerNorm(y + FFN(y)), walked in reverse.
///
/// Each residual connection x + Sublayer(x) sends its gradient two ways: on
/// through the sub-layer, and straight past it to x; in this post-norm layer that
/// path still crosses both LayerNorms (norm_placement_backward.hpp, pre-norm, avoids it).
#pragma once

#include "attention/encoder_layer.hpp"
#include "attention/feed_forward_backward.hpp"
#include "attention/layer_norm_backward.hpp"
#include "attention/matrix.hpp"
#include "attention/multi_head_backward.hpp"

namespace attention {

/// @brief The gradients of one encoder layer: of its input and of every weight.
struct EncoderLayerGradients {
  Matrix input;                 ///< ∂L/∂x, n × d_model
  EncoderLayerWeights weights;  ///< the gradient of every weight, shaped like the weights
};

/// @brief The backward pass of encoder_layer().
///
/// @param x the input of the forward pass, n × d_model
/// @param weights the weights of the forward pass
/// @param steps what encoder_layer(x, weights, options, epsilon) returned
/// @param output_gradient ∂L/∂output, n × d_model
/// @param options the attention options of the forward pass
/// @param epsilon the LayerNorm ε of the forward pass
/// @return ∂L/∂x and the gradients of all weights
/// @throws std::invalid_argument if @p output_gradient does not have the output's shape
inline EncoderLayerGradients encoder_layer_backward(const Matrix& x, const EncoderLayerWeights& weights,
                                                    const EncoderLayerSteps& steps, const Matrix& output_gradient,
                                                    const AttentionOptions& options = {},
                                                    double epsilon = default_layer_norm_epsilon) {
  EncoderLayerGradients gradients;
  // clang-format off
  // [encoder_layer_backward]
  const LayerNormGradients second_norm =
      layer_norm_backward(weights.feed_forward_norm, steps.feed_forward_norm, output_gradient, epsilon);
  const Matrix& y = steps.attention_norm.output;
  const FeedForwardGradients feed_forward =
      feed_forward_backward(y, weights.feed_forward, steps.feed_forward, second_norm.input);
  const Matrix y_gradient = second_norm.input + feed_forward.input;  // the residual path and the FFN path
  const LayerNormGradients first_norm =
      layer_norm_backward(weights.attention_norm, steps.attention_norm, y_gradient, epsilon);
  const MultiHeadGradients attention =
      multi_head_backward(x, x, x, weights.attention, steps.attention, first_norm.input, options);
  gradients.input = first_norm.input + attention.queries + attention.keys + attention.values;
  // [encoder_layer_backward]
  // clang-format on
  gradients.weights = {attention.weights, first_norm.parameters, feed_forward.weights, second_norm.parameters};
  return gradients;
}

}  // namespace attention
