// The backward pass of chapter 7's recurrent layer and of the recurrent classifier chapter 13 trains,
// against central differences: a gradient derived by hand is believed only when it agrees with one measured.
#include <algorithm>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/cross_entropy.hpp"
#include "attention/gradient_check.hpp"
#include "attention/numpy_random.hpp"
#include "attention/recurrent_classifier.hpp"
#include "attention/recurrent_layer.hpp"
#include "attention/recurrent_layer_backward.hpp"

TEST_CASE("recurrent_layer_backward agrees with central differences, for W, U and the inputs", "[ch13]") {
  attention::NumpyGenerator generator(11);
  attention::Matrix inputs = attention::normal_matrix(generator, 5, 3);
  attention::Matrix hidden_weights = 0.6 * attention::normal_matrix(generator, 4, 4);
  attention::Matrix input_weights = 0.6 * attention::normal_matrix(generator, 4, 3);
  // A loss that reads every state: L = Σ H ⊙ R, so ∂L/∂H = R.
  const attention::Matrix reading = attention::normal_matrix(generator, 5, 4);
  const auto loss = [&] {
    return (attention::recurrent_layer(inputs, hidden_weights, input_weights).array() * reading.array()).sum();
  };
  const attention::Matrix states = attention::recurrent_layer(inputs, hidden_weights, input_weights);
  const attention::RecurrentLayerGradients gradients =
      attention::recurrent_layer_backward(inputs, hidden_weights, input_weights, states, reading);
  CHECK(attention::relative_error(gradients.hidden_weights, attention::central_differences(loss, hidden_weights)) <
        1e-8);
  CHECK(attention::relative_error(gradients.input_weights, attention::central_differences(loss, input_weights)) < 1e-8);
  CHECK(attention::relative_error(gradients.inputs, attention::central_differences(loss, inputs)) < 1e-8);
  // The last input reaches only the last state: with a loss on the first state alone, it gets no gradient.
  attention::Matrix first_only = attention::Matrix::Zero(5, 4);
  first_only.row(0) = reading.row(0);
  const attention::RecurrentLayerGradients early =
      attention::recurrent_layer_backward(inputs, hidden_weights, input_weights, states, first_only);
  CHECK(early.inputs.bottomRows(4).cwiseAbs().maxCoeff() == 0.0);
  CHECK(early.hidden_weights.cwiseAbs().maxCoeff() == 0.0);  // h_0 = 0: W never acted before h_1
}

TEST_CASE("recurrent_classifier_backward agrees with central differences of the cross-entropy, every weight",
          "[ch13]") {
  attention::NumpyGenerator generator(12);
  attention::RecurrentClassifierWeights weights = attention::initial_recurrent_classifier(6, 4, 3, generator);
  const std::vector<Eigen::Index> words{5, 0, 2, 2};
  const std::vector<Eigen::Index> targets{1, 0, 2, 1};
  const auto loss = [&] {
    return attention::softmax_cross_entropy(attention::recurrent_classifier(weights, words).logits, targets).loss;
  };
  const attention::RecurrentClassifierSteps steps = attention::recurrent_classifier(weights, words);
  const attention::CrossEntropy error = attention::softmax_cross_entropy(steps.logits, targets);
  attention::RecurrentClassifierWeights gradients =
      attention::recurrent_classifier_backward(weights, words, steps, error.logits_gradient);
  const std::vector<attention::ParameterBlock> parameters = attention::recurrent_parameter_blocks(weights);
  const std::vector<attention::ParameterBlock> analytic = attention::recurrent_parameter_blocks(gradients);
  REQUIRE(parameters.size() == 5);
  double worst = 0.0;
  for (std::size_t b = 0; b < parameters.size(); ++b) {
    Eigen::Map<attention::Matrix> parameter(parameters[b].data, parameters[b].size, 1);
    const attention::Matrix numeric = attention::central_differences(loss, parameter);
    const attention::Matrix exact = Eigen::Map<const attention::Matrix>(analytic[b].data, analytic[b].size, 1);
    worst = std::max(worst, attention::relative_error(exact, numeric));
  }
  CHECK(worst < 1e-7);
  // Words 1, 3 and 4 do not occur: their embedding rows get no gradient.
  for (const Eigen::Index absent : {1, 3, 4}) CHECK(gradients.embedding.row(absent).cwiseAbs().maxCoeff() == 0.0);
}
