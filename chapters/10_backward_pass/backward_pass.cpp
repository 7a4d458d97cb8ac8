#include "backward_pass.hpp"

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attention/cross_entropy.hpp"
#include "attention/embedding.hpp"
#include "attention/embedding_backward.hpp"
#include "attention/encoder_layer.hpp"
#include "attention/encoder_layer_backward.hpp"
#include "attention/feed_forward.hpp"
#include "attention/feed_forward_backward.hpp"
#include "attention/layer_norm.hpp"
#include "attention/layer_norm_backward.hpp"
#include "attention/mask.hpp"
#include "attention/mulberry32.hpp"
#include "attention/multi_head.hpp"
#include "attention/multi_head_backward.hpp"
#include "attention/random_weights.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/real_number.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace backward_pass {

namespace {

using attention::Matrix;
using attention::Vector;

// The steps of the sweep: 1e-1, 1e-2, …, 1e-10.
std::vector<double> sweep_steps() {
  std::vector<double> steps;
  for (int power = 1; power <= 10; ++power) steps.push_back(std::pow(10.0, -power));
  return steps;
}

// Σ output ⊙ R: a loss whose gradient with respect to the output is the fixed random R.
double probe(const Matrix& output, const Matrix& direction) { return output.cwiseProduct(direction).sum(); }

// ---------------------------------------------------------------------------
// The walkthrough.

Walkthrough walk_back(const Inputs& inputs) {
  const Matrix& q = inputs.tokens.queries;
  const Matrix& k = inputs.tokens.keys;
  const Matrix& v = inputs.tokens.values;
  Walkthrough walk;
  walk.allowed = inputs.causal ? attention::causal_mask(q.rows()) : attention::no_mask(q.rows(), k.rows());
  // clang-format off
  // [walkthrough]
  attention::AttentionOptions options;
  if (inputs.causal) options.mask = walk.allowed;
  walk.steps = attention::scaled_dot_product_attention(q, k, v, options);
  walk.loss = walk.steps.output(inputs.loss_row, inputs.loss_column);  // L = O[row][column]
  walk.output_gradient = Matrix::Zero(q.rows(), v.cols());             // dO = ∂L/∂O: one 1, the rest 0
  walk.output_gradient(inputs.loss_row, inputs.loss_column) = 1.0;
  walk.gradients = attention::attention_backward(q, k, v, walk.steps, walk.output_gradient, options);
  // [walkthrough]
  // clang-format on
  walk.weighted_sums = walk.steps.weights.cwiseProduct(walk.gradients.weights).rowwise().sum();
  for (Eigen::Index i = 0; i < walk.allowed.rows(); ++i) {
    for (Eigen::Index j = 0; j < walk.allowed.cols(); ++j) {
      if (!walk.allowed(i, j)) {
        ++walk.masked_entries;
        walk.largest_masked_score_gradient =
            std::max(walk.largest_masked_score_gradient, std::abs(walk.gradients.scores(i, j)));
      }
    }
  }
  // The same gradients by central differences of L itself.
  Matrix q_moved = q, k_moved = k, v_moved = v;
  const std::function<double()> loss = [&] {
    return attention::scaled_dot_product_attention(q_moved, k_moved, v_moved, options)
        .output(inputs.loss_row, inputs.loss_column);
  };
  walk.queries_error =
      attention::relative_error(walk.gradients.queries, attention::central_differences(loss, q_moved, inputs.step));
  walk.keys_error =
      attention::relative_error(walk.gradients.keys, attention::central_differences(loss, k_moved, inputs.step));
  walk.values_error =
      attention::relative_error(walk.gradients.values, attention::central_differences(loss, v_moved, inputs.step));
  return walk;
}

// ---------------------------------------------------------------------------
// The random check.

// Everything the check draws, from one Mulberry32 stream, in this order.
struct Draws {
  Matrix q, k, v, attention_direction;     // attention: length × d_model each
  Matrix x;                                // the input of the other layers, length × d_model
  attention::MultiHeadWeights multi_head;  // two heads, scaled by 1/√d_model (random_weights.hpp)
  Matrix multi_head_direction;
  attention::LayerNormParameters norm;  // γ and β, standard normal
  Matrix norm_direction;
  attention::FeedForwardWeights feed_forward;  // W by 1/√rows, b standard normal
  Matrix feed_forward_direction;
  Matrix table;                     // vocabulary × d_model
  std::vector<Eigen::Index> words;  // length words, the last a repeat of the first
  Matrix embedding_direction;
  Matrix logits;  // length × vocabulary, times 3
  std::vector<Eigen::Index> targets;
  attention::EncoderLayerWeights layer;
  Matrix layer_direction;
};

Eigen::Index random_word(attention::Mulberry32& generator) {
  return static_cast<Eigen::Index>(generator.next_uniform() * static_cast<double>(vocabulary));
}

attention::FeedForwardWeights random_feed_forward(attention::Mulberry32& generator, Eigen::Index d) {
  const Eigen::Index d_ff = d_ff_factor * d;
  attention::FeedForwardWeights w;
  w.w1 = attention::random_normal_matrix(generator, d, d_ff, 1.0 / std::sqrt(static_cast<double>(d)));
  w.b1 = attention::random_normal_matrix(generator, d_ff, 1, 1.0).col(0);
  w.w2 = attention::random_normal_matrix(generator, d_ff, d, 1.0 / std::sqrt(static_cast<double>(d_ff)));
  w.b2 = attention::random_normal_matrix(generator, d, 1, 1.0).col(0);
  return w;
}

attention::LayerNormParameters random_norm(attention::Mulberry32& generator, Eigen::Index d) {
  return {attention::random_normal_matrix(generator, d, 1, 1.0).col(0),
          attention::random_normal_matrix(generator, d, 1, 1.0).col(0)};
}

Draws draw(const Inputs& inputs) {
  attention::Mulberry32 generator(inputs.seed);
  const Eigen::Index n = inputs.length;
  const Eigen::Index d = inputs.d_model;
  const auto normal = [&](Eigen::Index rows, Eigen::Index columns) {
    return attention::random_normal_matrix(generator, rows, columns, 1.0);
  };
  Draws draws;
  draws.q = normal(n, d);
  draws.k = normal(n, d);
  draws.v = normal(n, d);
  draws.attention_direction = normal(n, d);
  draws.x = normal(n, d);
  draws.multi_head = attention::random_multi_head_weights(generator, d, heads);
  draws.multi_head_direction = normal(n, d);
  draws.norm = random_norm(generator, d);
  draws.norm_direction = normal(n, d);
  draws.feed_forward = random_feed_forward(generator, d);
  draws.feed_forward_direction = normal(n, d);
  draws.table = normal(vocabulary, d);
  for (Eigen::Index t = 0; t + 1 < n; ++t) draws.words.push_back(random_word(generator));
  draws.words.push_back(draws.words.empty() ? random_word(generator) : draws.words.front());
  draws.embedding_direction = normal(n, d);
  draws.logits = normal(n, vocabulary) * 3.0;
  for (Eigen::Index t = 0; t < n; ++t) draws.targets.push_back(random_word(generator));
  draws.layer.attention = attention::random_multi_head_weights(generator, d, heads);
  draws.layer.attention_norm = random_norm(generator, d);
  draws.layer.feed_forward = random_feed_forward(generator, d);
  draws.layer.feed_forward_norm = random_norm(generator, d);
  draws.layer_direction = normal(n, d);
  return draws;
}

// Collects the checks of one layer. With first_only, only the first gradient
// is checked (the sweep's cheaper pass).
class LayerChecker {
 public:
  LayerChecker(std::string key, std::string title, std::string short_title, double step, bool first_only)
      : step_(step), first_only_(first_only) {
    layer_.key = std::move(key);
    layer_.title = std::move(title);
    layer_.short_title = std::move(short_title);
  }

  template <class Parameter>
  void check(const std::string& name, const Matrix& analytic, const std::function<double()>& loss,
             Parameter& parameter) {
    if (first_only_ && !layer_.parameters.empty()) return;
    // clang-format off
    // [check]
    const Matrix numeric = attention::central_differences(loss, parameter, step_);
    const double error = attention::relative_error(analytic, numeric);
    // [check]
    // clang-format on
    layer_.parameters.push_back({name, analytic.size(), analytic.cwiseAbs().maxCoeff(), error});
    layer_.error = std::max(layer_.error, error);
  }

  LayerCheck done() { return std::move(layer_); }

 private:
  LayerCheck layer_;
  double step_;
  bool first_only_;
};

LayerCheck check_attention(Draws d, bool causal, double step, bool first_only) {
  LayerChecker checker(causal ? "attention_causal" : "attention", causal ? "attention, causal mask" : "attention",
                       causal ? "causal" : "attention", step, first_only);
  attention::AttentionOptions options;
  if (causal) options.mask = attention::causal_mask(d.q.rows());
  const auto steps = attention::scaled_dot_product_attention(d.q, d.k, d.v, options);
  const auto g = attention::attention_backward(d.q, d.k, d.v, steps, d.attention_direction, options);
  const std::function<double()> loss = [&] {
    return probe(attention::scaled_dot_product_attention(d.q, d.k, d.v, options).output, d.attention_direction);
  };
  checker.check("Q", g.queries, loss, d.q);
  checker.check("K", g.keys, loss, d.k);
  checker.check("V", g.values, loss, d.v);
  return checker.done();
}

// The gradient of every weight of multi-head attention, under names with a prefix.
void check_heads(LayerChecker& checker, const attention::MultiHeadWeights& gradient,
                 attention::MultiHeadWeights& weights, const std::function<double()>& loss) {
  checker.check("W^O", gradient.output, loss, weights.output);
  for (std::size_t i = 0; i < weights.heads.size(); ++i) {
    checker.check(fmt::format("W^Q_{}", i + 1), gradient.heads[i].query, loss, weights.heads[i].query);
    checker.check(fmt::format("W^K_{}", i + 1), gradient.heads[i].key, loss, weights.heads[i].key);
    checker.check(fmt::format("W^V_{}", i + 1), gradient.heads[i].value, loss, weights.heads[i].value);
  }
}

LayerCheck check_multi_head(Draws d, double step, bool first_only) {
  LayerChecker checker("multi_head", "multi-head attention", "heads", step, first_only);
  const auto steps = attention::multi_head_attention(d.x, d.x, d.x, d.multi_head);
  const auto g = attention::multi_head_backward(d.x, d.x, d.x, d.multi_head, steps, d.multi_head_direction);
  const std::function<double()> loss = [&] {
    return probe(attention::multi_head_attention(d.x, d.x, d.x, d.multi_head).output, d.multi_head_direction);
  };
  checker.check("x", g.queries + g.keys + g.values, loss, d.x);  // self-attention: x is Q, K and V
  check_heads(checker, g.weights, d.multi_head, loss);
  return checker.done();
}

LayerCheck check_layer_norm(Draws d, double step, bool first_only) {
  LayerChecker checker("layer_norm", "layer normalisation", "LayerNorm", step, first_only);
  const auto g = attention::layer_norm_backward(d.norm, attention::layer_norm(d.x, d.norm), d.norm_direction);
  const std::function<double()> loss = [&] {
    return probe(attention::layer_norm(d.x, d.norm).output, d.norm_direction);
  };
  checker.check("x", g.input, loss, d.x);
  checker.check("gamma", g.parameters.gain, loss, d.norm.gain);
  checker.check("beta", g.parameters.bias, loss, d.norm.bias);
  return checker.done();
}

void check_feed_forward_weights(LayerChecker& checker, const attention::FeedForwardWeights& gradient,
                                attention::FeedForwardWeights& weights, const std::function<double()>& loss) {
  checker.check("W_1", gradient.w1, loss, weights.w1);
  checker.check("b_1", gradient.b1, loss, weights.b1);
  checker.check("W_2", gradient.w2, loss, weights.w2);
  checker.check("b_2", gradient.b2, loss, weights.b2);
}

LayerCheck check_feed_forward(Draws d, double step, bool first_only) {
  LayerChecker checker("feed_forward", "feed-forward network", "FFN", step, first_only);
  const auto steps = attention::feed_forward(d.x, d.feed_forward);
  const auto g = attention::feed_forward_backward(d.x, d.feed_forward, steps, d.feed_forward_direction);
  const std::function<double()> loss = [&] {
    return probe(attention::feed_forward(d.x, d.feed_forward).output, d.feed_forward_direction);
  };
  checker.check("x", g.input, loss, d.x);
  check_feed_forward_weights(checker, g.weights, d.feed_forward, loss);
  return checker.done();
}

LayerCheck check_embedding(Draws d, double step, bool first_only) {
  LayerChecker checker("embedding", "embedding", "embedding", step, first_only);
  const Matrix g = attention::embedding_backward(d.table.rows(), d.words, d.embedding_direction);
  const std::function<double()> loss = [&] {
    return probe(attention::embedding_lookup(d.table, d.words), d.embedding_direction);
  };
  checker.check("table", g, loss, d.table);
  return checker.done();
}

LayerCheck check_cross_entropy(Draws d, double step, bool first_only) {
  LayerChecker checker("cross_entropy", "softmax cross-entropy", "x-entropy", step, first_only);
  const Matrix g = attention::softmax_cross_entropy(d.logits, d.targets).logits_gradient;
  const std::function<double()> loss = [&] { return attention::softmax_cross_entropy(d.logits, d.targets).loss; };
  checker.check("logits", g, loss, d.logits);
  return checker.done();
}

LayerCheck check_encoder_layer(Draws d, double step, bool first_only) {
  LayerChecker checker("encoder_layer", "encoder layer", "encoder", step, first_only);
  const auto steps = attention::encoder_layer(d.x, d.layer);
  const auto g = attention::encoder_layer_backward(d.x, d.layer, steps, d.layer_direction);
  const std::function<double()> loss = [&] {
    return probe(attention::encoder_layer(d.x, d.layer).feed_forward_norm.output, d.layer_direction);
  };
  checker.check("x", g.input, loss, d.x);
  check_heads(checker, g.weights.attention, d.layer.attention, loss);
  checker.check("gamma_1", g.weights.attention_norm.gain, loss, d.layer.attention_norm.gain);
  checker.check("beta_1", g.weights.attention_norm.bias, loss, d.layer.attention_norm.bias);
  check_feed_forward_weights(checker, g.weights.feed_forward, d.layer.feed_forward, loss);
  checker.check("gamma_2", g.weights.feed_forward_norm.gain, loss, d.layer.feed_forward_norm.gain);
  checker.check("beta_2", g.weights.feed_forward_norm.bias, loss, d.layer.feed_forward_norm.bias);
  return checker.done();
}

std::vector<LayerCheck> check_every_layer(const Draws& draws, double step, bool first_only) {
  return {check_attention(draws, false, step, first_only), check_attention(draws, true, step, first_only),
          check_multi_head(draws, step, first_only),       check_layer_norm(draws, step, first_only),
          check_feed_forward(draws, step, first_only),     check_embedding(draws, step, first_only),
          check_cross_entropy(draws, step, first_only),    check_encoder_layer(draws, step, first_only)};
}

// The attention check of dQ (loss Σ O ⊙ R, no mask) with every number a Scalar: the draws are cast to
// float or kept in double, and the forward pass, the backward pass, the central differences with step h
// and the relative error all run in that type.
template <typename Scalar>
double attention_check_in(const Draws& draws, double step) {
  // clang-format off
  // [check_in_a_format]
  attention::MatrixOf<Scalar> q = draws.q.cast<Scalar>();
  const attention::MatrixOf<Scalar> k = draws.k.cast<Scalar>();
  const attention::MatrixOf<Scalar> v = draws.v.cast<Scalar>();
  const attention::MatrixOf<Scalar> direction = draws.attention_direction.cast<Scalar>();
  const auto steps = attention::scaled_dot_product_attention(q, k, v);
  const auto gradients = attention::attention_backward(q, k, v, steps, direction);
  const std::function<Scalar()> loss = [&] {
    return attention::scaled_dot_product_attention(q, k, v).output.cwiseProduct(direction).sum();
  };
  const auto numeric = attention::central_differences(loss, q, static_cast<Scalar>(step));
  return static_cast<double>(attention::relative_error(gradients.queries, numeric));
  // [check_in_a_format]
  // clang-format on
}

template <typename Scalar>
FormatCurve format_curve(const Draws& draws, const std::vector<double>& steps, std::string format) {
  FormatCurve curve;
  curve.format = std::move(format);
  curve.spacing = static_cast<double>(std::numeric_limits<Scalar>::epsilon());
  curve.cube_root_of_spacing = std::cbrt(curve.spacing);
  curve.best_error = std::numeric_limits<double>::infinity();
  for (const double step : steps) {
    const double error = attention_check_in<Scalar>(draws, step);
    curve.errors.push_back(error);
    if (error < curve.best_error) {
      curve.best_error = error;
      curve.best_step = step;
    }
  }
  return curve;
}

double smallest_relu_input(const Draws& draws) {
  const Matrix a = attention::feed_forward(draws.x, draws.feed_forward).widened;
  const Matrix b = attention::encoder_layer(draws.x, draws.layer).feed_forward.widened;
  return std::min(a.cwiseAbs().minCoeff(), b.cwiseAbs().minCoeff());
}

void require_finite(const Walkthrough& walk) {
  const attention::AttentionGradients<>& g = walk.gradients;
  if (!walk.steps.output.allFinite()) {
    throw program::UsageError("--v: the output overflows a double; use smaller values");
  }
  if (!(g.weights.allFinite() && g.scores.allFinite() && g.queries.allFinite() && g.keys.allFinite() &&
        g.values.allFinite())) {
    throw program::UsageError("--v: a gradient overflows a double; use smaller queries, keys or values");
  }
}

// ---------------------------------------------------------------------------
// JSON and tables.

nlohmann::json mask_json(const attention::Mask& allowed) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < allowed.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < allowed.cols(); ++j) row.push_back(static_cast<bool>(allowed(i, j)));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string error_text(double error) { return error == 0.0 ? "0" : fmt::format("{:.2e}", error); }

std::string step_text(double step) { return fmt::format("{:g}", step); }

const std::string& label(const std::vector<std::string>& labels, Eigen::Index i) {
  return labels[static_cast<std::size_t>(i)];
}

std::string walkthrough_tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const Walkthrough& walk = result.walkthrough;
  const auto& g = walk.gradients;
  const std::vector<std::string>& queries = inputs.tokens.query_labels;
  const std::vector<std::string>& keys = inputs.tokens.key_labels;
  const std::vector<std::string> value_columns = program::numbered_labels("d", inputs.tokens.values.cols());
  const std::vector<std::string> width_columns = program::numbered_labels("d", inputs.tokens.queries.cols());
  const std::string entry =
      fmt::format("O[{}][{}]", label(queries, inputs.loss_row), label(value_columns, inputs.loss_column));
  std::string text = fmt::format("Attention{}, and the loss L = {}, one entry of the output\n\n",
                                 inputs.causal ? " under the causal mask" : " without a mask", entry);
  text += program::table("Weights W = softmax(QKᵀ/√d_k" + std::string(inputs.causal ? ", masked)" : ")"),
                         walk.steps.weights, queries, keys) +
          '\n';
  text += program::table("Output O = W·V", walk.steps.output, queries, value_columns) + '\n';
  text += fmt::format("L = {} = {}\n\n", entry, program::number_text(walk.loss));
  text += program::table(fmt::format("dO = ∂L/∂O: 1 at {}, 0 elsewhere", entry), walk.output_gradient, queries,
                         value_columns) +
          '\n';
  text += program::table("dV = Wᵀ·dO", g.values, keys, value_columns) + '\n';
  text += program::table("dW = dO·Vᵀ", g.weights, queries, keys) + '\n';
  text += program::table("rowsum(dW ⊙ W), one number per row", walk.weighted_sums, queries, {"sum"}) + '\n';
  text += program::table("dS = W ⊙ (dW − rowsum(dW ⊙ W))", g.scores, queries, keys) + '\n';
  text += program::table("dQ = dS·K/√d_k", g.queries, queries, width_columns) + '\n';
  text += program::table("dK = dSᵀ·Q/√d_k", g.keys, keys, width_columns) + '\n';
  if (walk.masked_entries > 0) {
    text += fmt::format("Masked entries: {}; the largest |dS| among them: {}\n", walk.masked_entries,
                        walk.largest_masked_score_gradient == 0.0 ? "0 (exactly)"
                                                                  : error_text(walk.largest_masked_score_gradient));
  }
  text += fmt::format("Central differences of L itself (h = {}): relative error of dQ {}, dK {}, dV {}\n",
                      step_text(inputs.step), error_text(walk.queries_error), error_text(walk.keys_error),
                      error_text(walk.values_error));
  return text;
}

std::string check_table(const Result& result) {
  const Inputs& inputs = result.inputs;
  std::string text =
      fmt::format("\nGradient check: every backward pass against central differences, h = {}\n"
                  "(random inputs from seed {}: {} tokens, d_model = {}, {} heads, d_ff = {}, {} words;\n"
                  " error = max |analytic − numeric| / the largest |entry|)\n",
                  step_text(inputs.step), inputs.seed, inputs.length, inputs.d_model, heads,
                  d_ff_factor * inputs.d_model, vocabulary);
  text += fmt::format("{:<24}  {:<9}  {:>7}  {:>10}  {:>9}\n", "layer", "gradient", "entries", "largest", "error");
  for (const LayerCheck& layer : result.check.layers) {
    bool first = true;
    for (const ParameterCheck& parameter : layer.parameters) {
      text += fmt::format("{:<24}  {:<9}  {:>7}  {:>10}  {:>9}\n", first ? layer.title : "", parameter.name,
                          parameter.entries,
                          parameter.largest >= 1e-3 ? program::number_text(parameter.largest)
                                                    : fmt::format("{:.2e}", parameter.largest),
                          error_text(parameter.error));
      first = false;
    }
  }
  text += fmt::format("Largest error of all: {}\n", error_text(result.check.largest_error));
  text += fmt::format("LayerNorm's input gradient, summed along each row: at most {:.1e} in size\n",
                      result.check.layer_norm_row_sum);
  text += fmt::format("Smallest |ReLU input| in the two feed-forward networks: {:.2e} (a step beyond it would "
                      "straddle the kink)\n",
                      result.check.smallest_relu_input);
  return text;
}

std::string sweep_table(const Result& result) {
  const Sweep& sweep = result.sweep;
  std::string text = "\nThe error against the step h (each layer's first gradient)\n";
  text += fmt::format("{:>7}", "h");
  for (const LayerCheck& layer : result.check.layers) text += fmt::format("  {:>9}", layer.short_title);
  text += '\n';
  for (std::size_t s = 0; s < sweep.steps.size(); ++s) {
    text += fmt::format("{:>7}", step_text(sweep.steps[s]));
    for (const auto& errors : sweep.errors) text += fmt::format("  {:>9}", error_text(errors[s]));
    text += '\n';
  }
  text += fmt::format("Truncation grows as h², rounding as u/h (u = {:.2e}); they balance near h ≈ u^(1/3) = {:.1e}.\n",
                      result.epsilon, result.cube_root_epsilon);
  return text;
}

nlohmann::json check_json(const Result& result) {
  nlohmann::json layers = nlohmann::json::array();
  nlohmann::json errors = nlohmann::json::object();
  for (const LayerCheck& layer : result.check.layers) {
    nlohmann::json parameters = nlohmann::json::array();
    for (const ParameterCheck& p : layer.parameters) {
      parameters.push_back({{"name", p.name}, {"entries", p.entries}, {"largest", p.largest}, {"error", p.error}});
    }
    layers.push_back({{"key", layer.key}, {"title", layer.title}, {"parameters", parameters}, {"error", layer.error}});
    errors[layer.key] = layer.error;
  }
  const Inputs& inputs = result.inputs;
  return {{"seed", inputs.seed},
          {"step", inputs.step},
          {"length", inputs.length},
          {"d_model", inputs.d_model},
          {"heads", heads},
          {"d_ff", d_ff_factor * inputs.d_model},
          {"vocabulary", vocabulary},
          {"words", result.check.words},
          {"targets", result.check.targets},
          {"layers", layers},
          {"errors", errors},
          {"largest_error", result.check.largest_error},
          {"smallest_relu_input", result.check.smallest_relu_input},
          {"layer_norm_row_sum", result.check.layer_norm_row_sum}};
}

nlohmann::json format_sweep_json(const Result& result) {
  nlohmann::json curves = nlohmann::json::object();
  for (const FormatCurve& curve : result.format_sweep.curves) {
    curves[curve.format] = {{"spacing", curve.spacing},
                            {"cube_root_of_spacing", curve.cube_root_of_spacing},
                            {"errors", curve.errors},
                            {"best_step", curve.best_step},
                            {"best_error", curve.best_error}};
  }
  return {{"layer", "attention"},
          {"gradient", "Q"},
          {"steps", result.format_sweep.steps},
          {"formats", curves},
          {"cube_root_of_spacing_ratio",
           result.format_sweep.curves[1].cube_root_of_spacing / result.format_sweep.curves[0].cube_root_of_spacing},
          {"best_step_ratio", result.format_sweep.curves[1].best_step / result.format_sweep.curves[0].best_step},
          {"best_error_ratio", result.format_sweep.curves[1].best_error / result.format_sweep.curves[0].best_error},
          {"inputs",
           {{"queries", program::matrix_json(result.queries)},
            {"keys", program::matrix_json(result.keys)},
            {"values", program::matrix_json(result.values)},
            {"direction", program::matrix_json(result.direction)}}}};
}

std::string format_sweep_table(const Result& result) {
  const FormatSweep& sweep = result.format_sweep;
  std::string text = "\n";
  text += program::wrapped("The attention check's dQ in double and in float, against the step h "
                           "(every number of the check in that format)",
                           78);
  text += fmt::format("{:>9}  {:>9}  {:>9}\n", "h", "double", "float");
  for (std::size_t s = 0; s < sweep.steps.size(); ++s) {
    text += fmt::format("{:>9.2e}  {:>9}  {:>9}\n", sweep.steps[s], error_text(sweep.curves[0].errors[s]),
                        error_text(sweep.curves[1].errors[s]));
  }
  for (const FormatCurve& curve : sweep.curves) {
    text += fmt::format("{}: best step {:.1e} (error {:.1e}); cube root of the spacing {:.1e}\n", curve.format,
                        curve.best_step, curve.best_error, curve.cube_root_of_spacing);
  }
  return text;
}

nlohmann::json sweep_json(const Sweep& sweep) {
  nlohmann::json errors = nlohmann::json::object();
  nlohmann::json parameters = nlohmann::json::object();
  for (std::size_t l = 0; l < sweep.layers.size(); ++l) {
    errors[sweep.layers[l]] = sweep.errors[l];
    parameters[sweep.layers[l]] = sweep.parameters[l];
  }
  return {{"steps", sweep.steps}, {"layers", sweep.layers}, {"parameters", parameters}, {"errors", errors}};
}

}  // namespace

Result compute(const Inputs& inputs) {
  Result result;
  result.inputs = inputs;
  result.walkthrough = walk_back(inputs);
  require_finite(result.walkthrough);
  result.epsilon = std::numeric_limits<double>::epsilon();
  result.cube_root_epsilon = std::cbrt(result.epsilon);
  if (!inputs.check) {
    return result;
  }

  const Draws draws = draw(inputs);
  result.check.words = draws.words;
  result.check.targets = draws.targets;
  result.check.layers = check_every_layer(draws, inputs.step, /*first_only=*/false);
  for (const LayerCheck& layer : result.check.layers) {
    result.check.largest_error = std::max(result.check.largest_error, layer.error);
  }
  result.check.smallest_relu_input = smallest_relu_input(draws);
  const Matrix norm_gradient =
      attention::layer_norm_backward(draws.norm, attention::layer_norm(draws.x, draws.norm), draws.norm_direction)
          .input;
  result.check.layer_norm_row_sum = norm_gradient.rowwise().sum().cwiseAbs().maxCoeff();

  result.sweep.steps = sweep_steps();
  for (const LayerCheck& layer : result.check.layers) {
    result.sweep.layers.push_back(layer.key);
    result.sweep.parameters.push_back(layer.parameters.front().name);
    result.sweep.errors.emplace_back();
  }
  for (const double step : result.sweep.steps) {
    const std::vector<LayerCheck> layers = check_every_layer(draws, step, /*first_only=*/true);
    for (std::size_t l = 0; l < layers.size(); ++l) result.sweep.errors[l].push_back(layers[l].error);
  }

  result.format_sweep.steps = attention::quarter_decade_steps(2, 48);
  result.format_sweep.curves = {format_curve<double>(draws, result.format_sweep.steps, "double"),
                                format_curve<float>(draws, result.format_sweep.steps, "float")};
  result.queries = draws.q;
  result.keys = draws.k;
  result.values = draws.v;
  result.direction = draws.attention_direction;
  return result;
}

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  const Walkthrough& walk = result.walkthrough;
  const attention::AttentionGradients<>& g = walk.gradients;
  nlohmann::json document = {
      {"query_tokens", inputs.tokens.query_labels},
      {"key_tokens", inputs.tokens.key_labels},
      {"queries", program::matrix_json(inputs.tokens.queries)},
      {"keys", program::matrix_json(inputs.tokens.keys)},
      {"values", program::matrix_json(inputs.tokens.values)},
      {"causal", inputs.causal},
      {"mask", mask_json(walk.allowed)},
      {"loss_row", inputs.loss_row},
      {"loss_column", inputs.loss_column},
      {"loss_token", inputs.tokens.query_labels[static_cast<std::size_t>(inputs.loss_row)]},
      {"scaled_scores", program::matrix_json(walk.steps.scaled_scores)},
      {"weights", program::matrix_json(walk.steps.weights)},
      {"output", program::matrix_json(walk.steps.output)},
      {"loss", walk.loss},
      {"gradients",
       {{"output", program::matrix_json(walk.output_gradient)},
        {"values", program::matrix_json(g.values)},
        {"weights", program::matrix_json(g.weights)},
        {"weighted_sums", program::matrix_json(walk.weighted_sums.transpose())[0]},
        {"scores", program::matrix_json(g.scores)},
        {"queries", program::matrix_json(g.queries)},
        {"keys", program::matrix_json(g.keys)}}},
      {"masked_entries", walk.masked_entries},
      {"largest_masked_score_gradient", walk.largest_masked_score_gradient},
      {"toy_check",
       {{"step", inputs.step},
        {"queries", walk.queries_error},
        {"keys", walk.keys_error},
        {"values", walk.values_error}}},
      {"epsilon", result.epsilon},
      {"cube_root_epsilon", result.cube_root_epsilon},
  };
  if (inputs.check) {
    document["check"] = check_json(result);
    document["sweep"] = sweep_json(result.sweep);
    document["format_sweep"] = format_sweep_json(result);
  }
  return document;
}

std::string tables(const Result& result) {
  if (!result.inputs.check) {
    return walkthrough_tables(result);
  }
  return walkthrough_tables(result) + check_table(result) + sweep_table(result) + format_sweep_table(result);
}

Flags::Flags(program::CommandLine& command_line) : attention_flags_(command_line, /*with_values=*/true) {
  command_line.flag("--causal", causal_, "mask the future: token i may look at tokens 1 … i");
  command_line.flag("--no-check", no_check_,
                    "the walkthrough only: skip the random gradient check and the sweep of steps");
  command_line.option("--row", row_text_,
                      "the loss is one entry of the output, O[row][column]: its row, the query counted from 1",
                      "INTEGER");
  command_line.option("--column", column_text_, "that entry's column, counted from 1", "INTEGER");
  command_line.option("--seed", seed_text_, "the seed of the random check's draws, 0 to 2^32 - 1", "INTEGER");
  command_line.option("--step", step_text_, "h, the step of the central differences: above 0, at most 1", "NUMBER");
  command_line.option("--length", length_text_, fmt::format("tokens in the random check, 1 to {}", max_length),
                      "INTEGER");
  command_line.note(fmt::format("--q, --k, --v: at most {} rows of {} entries each, so that the toy's own "
                                "finite-difference check stays quick.",
                                max_walkthrough_side, max_walkthrough_side));
  command_line.option("--d-model", d_model_text_,
                      fmt::format("their width, an even number from 2 to {} (two heads)", max_d_model), "INTEGER");
  command_line.excludes("--no-check", {"--seed", "--length", "--d-model"});  // the random check's, which is skipped
}

Inputs Flags::read() const {
  Inputs inputs;
  inputs.tokens = attention_flags_.read();
  const Eigen::Index n = inputs.tokens.queries.rows();
  const Eigen::Index m = inputs.tokens.keys.rows();
  if (n > max_walkthrough_side || m > max_walkthrough_side || inputs.tokens.queries.cols() > max_walkthrough_side ||
      inputs.tokens.values.cols() > max_walkthrough_side) {
    throw program::UsageError(fmt::format("--q, --k, --v: at most {} rows of {} entries each, so that the toy's own "
                                          "finite-difference check stays quick",
                                          max_walkthrough_side, max_walkthrough_side));
  }
  inputs.causal = causal_;
  inputs.check = !no_check_;
  if (inputs.causal && n != m) {
    throw program::UsageError(
        fmt::format("--causal compares positions, so it needs as many queries as keys, not {} (--q) and {} (--k)",
                    program::counted(n, "query", "queries"), program::counted(m, "key", "keys")));
  }
  inputs.loss_row =
      static_cast<Eigen::Index>(program::parse_whole_number(row_text_, "--row", 1, static_cast<std::uint64_t>(n))) - 1;
  inputs.loss_column =
      static_cast<Eigen::Index>(program::parse_whole_number(column_text_, "--column", 1,
                                                            static_cast<std::uint64_t>(inputs.tokens.values.cols()))) -
      1;
  inputs.seed = static_cast<std::uint32_t>(program::parse_whole_number(seed_text_, "--seed", 0, UINT32_MAX));
  inputs.step = program::parse_real_number(step_text_, "--step");
  if (!(inputs.step > 0.0) || inputs.step > 1.0) {
    throw program::UsageError(fmt::format("--step is {}; expected a number above 0 and at most 1", step_text_));
  }
  inputs.length = static_cast<Eigen::Index>(program::parse_whole_number(length_text_, "--length", 1, max_length));
  inputs.d_model = static_cast<Eigen::Index>(program::parse_whole_number(d_model_text_, "--d-model", 2, max_d_model));
  if (inputs.d_model % heads != 0) {
    throw program::UsageError(
        fmt::format("--d-model is {}; expected an even number, so that each of the two heads gets d_model / 2 columns",
                    inputs.d_model));
  }
  return inputs;
}

namespace {

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: the book's toy sentence "cat eat fish" through scaled
// dot-product attention, with the loss chosen as one entry of the output,
// L = O[cat][d1]. Its gradient dO has a single 1, and the program follows it
// back through the formula: dV = Wᵀ·dO, dW = dO·Vᵀ, the softmax's
// dS = W ⊙ (dW − rowsum(dW ⊙ W)), dQ = dS·K/√d_k and dK = dSᵀ·Q/√d_k.
// Then every backward pass of the library against central finite
// differences on random inputs, and the error against the step h.
//
// --causal masks the future; --row and --column choose the entry; --q, --k,
// --v and --tokens change the inputs; --seed, --step, --length and --d-model
// change the random check. --json prints the same values as one JSON document.
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "backward_pass",
    "Chapter 10 of Attention, Compiled: the backward pass. One entry of the output is the loss; its gradient is "
    "followed back through attention to Q, K and V, and every layer's gradient is checked against central finite "
    "differences.",
    compute, to_json, tables);

}  // namespace

}  // namespace backward_pass
