#include "encoder_layer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "attention/mask.hpp"
#include "attention/numpy_random.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/matrix_text.hpp"
#include "program/real_number.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/toy.hpp"
#include "program/usage_error.hpp"

namespace encoder_layer {
namespace {

using attention::Matrix;

// Limits that keep a run, and the page's, to milliseconds and its JSON small.
constexpr std::uint64_t max_tokens = 16;
constexpr std::uint64_t max_d_model = 32;
constexpr std::uint64_t max_d_ff = 256;
constexpr std::uint64_t max_layers = 12;
constexpr double max_scale = 10.0;
// The largest entry of --x in size. An entry e becomes, through weights of at
// most 10 × a normal draw (|draw| < 10) over at most 32 channels, a query, key
// or value of at most 3.2e3 · e; a score of at most 32 · (3.2e3 · e)² ≈ 3.3e8 · e²,
// and LayerNorm squares the sub-layer's output, at most about 1e7 · e, on its
// way. At 1e6 all of these stay below 1e30, far inside a double; beyond about
// 1e146 they overflow to inf and NaN.
constexpr double max_entry = 1e6;

// Tables are printed while d_ff is at most this wide; --json has every entry.
constexpr Eigen::Index max_printed_hidden = 12;

// ---------------------------------------------------------------------------
// The inputs of the two examples.

// The graph chapter's x = np.arange(T * C).reshape(T, C) / 10.0 with T = 4, C = 6.
Matrix walkthrough_x() {
  // clang-format off
  // [walkthrough_x]
  const Eigen::Index tokens = 4, channels = 6;
  Matrix x(tokens, channels);
  for (Eigen::Index t = 0; t < tokens; ++t) {
    for (Eigen::Index c = 0; c < channels; ++c) {
      x(t, c) = static_cast<double>(t * channels + c) / 10.0;
    }
  }
  // [walkthrough_x]
  // clang-format on
  return x;
}

// ---------------------------------------------------------------------------
// The draws.

// Every weight of every layer from one stream, np.random.default_rng(seed), in
// the order draws_json() states.
std::vector<attention::EncoderLayerWeights> draw_weights(const Inputs& inputs, Eigen::Index d_k) {
  const Eigen::Index d_model = inputs.x.cols(), h = inputs.heads, d_ff = inputs.d_ff;
  const double s = inputs.scale;
  std::vector<attention::EncoderLayerWeights> layers;
  // clang-format off
  // [draw]
  attention::NumpyGenerator rng(inputs.seed);
  for (Eigen::Index l = 0; l < inputs.layers; ++l) {
    attention::EncoderLayerWeights w;
    for (Eigen::Index i = 0; i < h; ++i) {
      attention::HeadProjections head;
      head.query = s * attention::normal_matrix(rng, d_model, d_k);
      head.key = s * attention::normal_matrix(rng, d_model, d_k);
      head.value = s * attention::normal_matrix(rng, d_model, d_k);
      w.attention.heads.push_back(std::move(head));
    }
    w.attention.output = s * attention::normal_matrix(rng, h * d_k, d_model);
    w.feed_forward.w1 = s * attention::normal_matrix(rng, d_model, d_ff);
    w.feed_forward.b1 = attention::Vector::Zero(d_ff);
    w.feed_forward.w2 = s * attention::normal_matrix(rng, d_ff, d_model);
    w.feed_forward.b2 = attention::Vector::Zero(d_model);
    w.attention_norm = attention::identity_layer_norm(d_model);
    w.feed_forward_norm = attention::identity_layer_norm(d_model);
    layers.push_back(std::move(w));
  }
  // [draw]
  // clang-format on
  return layers;
}

double max_abs(const Matrix& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

// Rows in reverse order: the permutation the per-token check applies.
Matrix reversed_rows(const Matrix& m) { return m.colwise().reverse(); }

PerToken per_token_check(const Inputs& inputs, const attention::EncoderLayerWeights& w, const Matrix& y) {
  PerToken check;
  // clang-format off
  // [per_token]
  const attention::FeedForwardWeights& ffn = w.feed_forward;
  const Matrix out = attention::feed_forward(y, ffn).output;
  const Matrix permuted = attention::feed_forward(reversed_rows(y), ffn).output;
  check.permuted_difference = max_abs(permuted - reversed_rows(out));
  for (Eigen::Index t = 0; t < y.rows(); ++t) {
    const Matrix alone = attention::feed_forward(y.row(t), ffn).output;
    check.alone_difference = std::max(check.alone_difference, max_abs(alone - out.row(t)));
  }
  // [per_token]
  // clang-format on
  // clang-format off
  // [nudge]
  const Matrix& x = inputs.x;
  Matrix nudged = x;
  nudged.row(x.rows() - 1).array() += 1.0;  // the last token only
  attention::AttentionOptions options;
  if (inputs.causal) options.mask = attention::causal_mask(x.rows());
  const Matrix attention_before = attention::multi_head_attention(x, x, x, w.attention, options).output;
  const Matrix attention_after =
      attention::multi_head_attention(nudged, nudged, nudged, w.attention, options).output;
  const Matrix ffn_before = attention::feed_forward(x, ffn).output;
  const Matrix ffn_after = attention::feed_forward(nudged, ffn).output;
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    check.attention_change.push_back(max_abs(attention_after.row(t) - attention_before.row(t)));
    check.feed_forward_change.push_back(max_abs(ffn_after.row(t) - ffn_before.row(t)));
  }
  // [nudge]
  // clang-format on
  return check;
}

// np.allclose(a, b): |a − b| ≤ 1e-8 + 1e-5 · |b| entry by entry.
bool all_close(const Matrix& a, const Matrix& b) {
  return ((a - b).cwiseAbs().array() <= 1e-8 + 1e-5 * b.cwiseAbs().array()).all();
}

// ---------------------------------------------------------------------------
// JSON.

nlohmann::json vector_json(const attention::Vector& v) { return program::row_json(v.transpose()); }

nlohmann::json norm_json(const attention::LayerNormSteps& norm, const attention::LayerNormParameters& p) {
  return {{"mean", vector_json(norm.mean)},
          {"variance", vector_json(norm.variance)},
          {"normalized", program::matrix_json(norm.normalized)},
          {"gain", vector_json(p.gain)},
          {"bias", vector_json(p.bias)},
          {"output", program::matrix_json(norm.output)}};
}

// Mean and variance of each row of the normalised matrix: 0 and about 1.
nlohmann::json normalized_moments_json(const Matrix& normalized) {
  const auto d = static_cast<double>(normalized.cols());
  const attention::Vector mean = normalized.rowwise().sum() / d;
  const attention::Vector variance = (normalized.colwise() - mean).array().square().rowwise().sum() / d;
  return {{"mean", vector_json(mean)}, {"variance", vector_json(variance)}};
}

nlohmann::json layer_json(const attention::EncoderLayerSteps& steps, const attention::EncoderLayerWeights& w) {
  nlohmann::json heads = nlohmann::json::array();
  for (std::size_t i = 0; i < steps.attention.heads.size(); ++i) {
    const attention::HeadSteps& head = steps.attention.heads[i];
    heads.push_back({{"W_q", program::matrix_json(w.attention.heads[i].query)},
                     {"W_k", program::matrix_json(w.attention.heads[i].key)},
                     {"W_v", program::matrix_json(w.attention.heads[i].value)},
                     {"weights", program::matrix_json(head.attention.weights)},
                     {"output", program::matrix_json(head.attention.output)}});
  }
  const Eigen::Index d_ff = steps.feed_forward.hidden.cols();
  nlohmann::json active = nlohmann::json::array();
  for (Eigen::Index t = 0; t < steps.feed_forward.hidden.rows(); ++t) {
    active.push_back((steps.feed_forward.hidden.row(t).array() > 0.0).count());
  }
  return {{"heads", heads},
          {"W_o", program::matrix_json(w.attention.output)},
          {"attention", program::matrix_json(steps.attention.output)},
          {"attention_residual", program::matrix_json(steps.attention_residual)},
          {"attention_norm", norm_json(steps.attention_norm, w.attention_norm)},
          {"attention_normalized_moments", normalized_moments_json(steps.attention_norm.normalized)},
          {"W_1", program::matrix_json(w.feed_forward.w1)},
          {"b_1", vector_json(w.feed_forward.b1)},
          {"W_2", program::matrix_json(w.feed_forward.w2)},
          {"b_2", vector_json(w.feed_forward.b2)},
          {"widened", program::matrix_json(steps.feed_forward.widened)},
          {"hidden", program::matrix_json(steps.feed_forward.hidden)},
          {"active_hidden_units", active},
          {"d_ff", d_ff},
          {"feed_forward", program::matrix_json(steps.feed_forward.output)},
          {"feed_forward_residual", program::matrix_json(steps.feed_forward_residual)},
          {"feed_forward_norm", norm_json(steps.feed_forward_norm, w.feed_forward_norm)},
          {"feed_forward_normalized_moments", normalized_moments_json(steps.feed_forward_norm.normalized)},
          {"output", program::matrix_json(steps.feed_forward_norm.output)}};
}

nlohmann::json draws_json(const Inputs& inputs) {
  return {{"generator", "numpy.random.default_rng(seed): SeedSequence, PCG64, ziggurat normals (a C++ port)"},
          {"order", "for each layer: for each head W_q, W_k, W_v (d_model x d_k), then W_o (h*d_k x d_model), "
                    "W_1 (d_model x d_ff), W_2 (d_ff x d_model)"},
          {"each_matrix", "scale * rng.normal(size=(rows, columns)), row by row"},
          {"scale", inputs.scale},
          {"biases", "b_1 = 0, b_2 = 0"},
          {"layer_norms", "gain = 1, bias = 0"}};
}

// ---------------------------------------------------------------------------
// Tables.

std::vector<std::string> dims(Eigen::Index count) { return program::numbered_labels("d", count); }

Matrix column(const attention::Vector& v) { return v; }

Matrix two_columns(const attention::Vector& a, const attention::Vector& b) {
  Matrix m(a.size(), 2);
  m << a, b;
  return m;
}

std::string layer_text(const Result& result, std::size_t l) {
  const attention::EncoderLayerSteps& s = result.layers[l];
  const std::vector<std::string>& tokens = result.inputs.tokens;
  const Eigen::Index d = result.d_model;
  const std::size_t n = l + 1;
  std::string text = fmt::format("── Layer {} ──\n\n", n);
  text += program::table(fmt::format("Layer {} input", n),
                         l == 0 ? result.inputs.x : result.layers[l - 1].feed_forward_norm.output, tokens, dims(d)) +
          '\n';
  for (std::size_t i = 0; i < s.attention.heads.size(); ++i) {
    text += program::table(fmt::format("Layer {} head {} weights (row: the token asking)", n, i + 1),
                           s.attention.heads[i].attention.weights, tokens, tokens) +
            '\n';
  }
  text +=
      program::table(fmt::format("Layer {} communicate: MultiHead(x, x, x)", n), s.attention.output, tokens, dims(d)) +
      '\n' +
      program::table(fmt::format("Layer {} residual: x + MultiHead(x, x, x)", n), s.attention_residual, tokens,
                     dims(d)) +
      '\n' +
      program::table(fmt::format("Layer {} mean and variance of each row, before LayerNorm", n),
                     two_columns(s.attention_norm.mean, s.attention_norm.variance), tokens, {"mean", "variance"}) +
      '\n' +
      program::table(fmt::format("Layer {} y = LayerNorm(x + MultiHead(x, x, x))", n), s.attention_norm.output, tokens,
                     dims(d)) +
      '\n';
  const Eigen::Index d_ff = s.feed_forward.hidden.cols();
  if (d_ff <= max_printed_hidden) {
    text += program::table(fmt::format("Layer {} think, hidden: max(0, y W1 + b1), d_ff = {}", n, d_ff),
                           s.feed_forward.hidden, tokens, program::numbered_labels("f", d_ff)) +
            '\n';
  } else {
    attention::Vector active(s.feed_forward.hidden.rows());
    for (Eigen::Index t = 0; t < active.size(); ++t) {
      active(t) = static_cast<double>((s.feed_forward.hidden.row(t).array() > 0.0).count());
    }
    text +=
        program::table(fmt::format("Layer {} think, hidden: units of max(0, y W1 + b1) above 0, of d_ff = {}", n, d_ff),
                       column(active), tokens, {"active"}) +
        '\n';
  }
  text += program::table(fmt::format("Layer {} think: FFN(y) = max(0, y W1 + b1) W2 + b2", n), s.feed_forward.output,
                         tokens, dims(d)) +
          '\n' +
          program::table(fmt::format("Layer {} residual: y + FFN(y)", n), s.feed_forward_residual, tokens, dims(d)) +
          '\n' +
          program::table(fmt::format("Layer {} output: LayerNorm(y + FFN(y))", n), s.feed_forward_norm.output, tokens,
                         dims(d)) +
          '\n';
  return text;
}

// One NumPy entry split at its point: "-0.14" → ("-0", "14"), 1.0 → ("1", "").
std::pair<std::string, std::string> numpy_parts(double value) {
  std::string text = fmt::format("{:.2f}", value);
  const std::size_t point = text.find('.');
  std::string fraction = text.substr(point + 1);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return {text.substr(0, point), fraction};
}

std::string numpy_row(const Matrix& m, Eigen::Index i, std::size_t left, std::size_t right) {
  std::vector<std::string> entries;
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    const double v = m(i, j);
    if (std::isfinite(v)) {
      const auto [whole, fraction] = numpy_parts(v);
      entries.push_back(fmt::format("{:>{}}.{:<{}}", whole, left, fraction, right));
    } else {
      entries.push_back(fmt::format("{:>{}}", std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"), left + right + 1));
    }
  }
  return fmt::format("{}", fmt::join(entries, " "));
}

}  // namespace

std::string numpy_text(const Matrix& m) {
  // NumPy pads every entry to the widest whole part and the widest fraction.
  std::size_t left = 1, right = 0;
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      if (!std::isfinite(m(i, j))) continue;
      const auto [whole, fraction] = numpy_parts(m(i, j));
      left = std::max(left, whole.size());
      right = std::max(right, fraction.size());
    }
  }
  // Room for "nan", "inf" or "-inf" across the whole entry (NumPy's FloatingFormat.fillFormat).
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const double v = m(i, j);
      if (std::isfinite(v)) continue;
      const std::size_t word = (v < 0 ? 4 : 3);
      if (word > right + 1) left = std::max(left, word - (right + 1));
    }
  }
  if (m.rows() == 1) return fmt::format("[{}]", numpy_row(m, 0, left, right));
  std::vector<std::string> rows;
  for (Eigen::Index i = 0; i < m.rows(); ++i) rows.push_back(fmt::format("[{}]", numpy_row(m, i, left, right)));
  return fmt::format("[{}]", fmt::join(rows, "\n "));
}

Result compute(const Inputs& inputs) {
  Result result;
  result.inputs = inputs;
  const Matrix& x = inputs.x;
  result.d_model = x.cols();
  result.d_k = attention::head_width(result.d_model, inputs.heads);
  result.weights = draw_weights(inputs, result.d_k);

  // clang-format off
  // [walkthrough]
  const attention::HeadProjections& head = result.weights[0].attention.heads[0];
  const Matrix q = x * head.query, k = x * head.key, v = x * head.value;
  attention::AttentionOptions causal;
  causal.mask = attention::causal_mask(x.rows());
  result.walkthrough = attention::scaled_dot_product_attention(q, k, v, causal);
  result.out0_equals_v0 = all_close(result.walkthrough.output.row(0), v.row(0));
  // [walkthrough]
  // clang-format on

  attention::AttentionOptions options;
  if (inputs.causal) options.mask = attention::causal_mask(x.rows());
  // clang-format off
  // [stack]
  result.layers = attention::encoder_stack(x, result.weights, options);
  // [stack]
  // clang-format on
  for (const attention::EncoderLayerSteps& layer : result.layers) {
    const Matrix& output = layer.feed_forward_norm.output;
    // In each column, the largest difference between two rows is the column's largest entry minus its smallest.
    result.rows_apart.push_back((output.colwise().maxCoeff() - output.colwise().minCoeff()).maxCoeff());
  }
  result.per_token = per_token_check(inputs, result.weights[0], result.layers[0].attention_norm.output);
  return result;
}

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  const attention::AttentionSteps<>& walk = result.walkthrough;
  nlohmann::json row_sums = nlohmann::json::array();
  for (Eigen::Index i = 0; i < walk.weights.rows(); ++i) row_sums.push_back(walk.weights.row(i).sum());
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t l = 0; l < result.layers.size(); ++l)
    layers.push_back(layer_json(result.layers[l], result.weights[l]));
  const PerToken& check = result.per_token;
  return {{"example", inputs.example},
          {"tokens", inputs.tokens},
          {"n", inputs.x.rows()},
          {"d_model", result.d_model},
          {"h", inputs.heads},
          {"d_k", result.d_k},
          {"d_ff", inputs.d_ff},
          {"layers_count", inputs.layers},
          {"causal", inputs.causal},
          {"seed", inputs.seed},
          {"epsilon", attention::default_layer_norm_epsilon},
          {"draws", draws_json(inputs)},
          {"x", program::matrix_json(inputs.x)},
          {"walkthrough",
           {{"head_size", result.d_k},
            {"scores", program::matrix_json(walk.scaled_scores)},
            {"masked_scores", program::matrix_json(walk.masked_scores)},
            {"weights", program::matrix_json(walk.weights)},
            {"row_sums", row_sums},
            {"out", program::matrix_json(walk.output)},
            {"out0_equals_v0", result.out0_equals_v0},
            {"scores_text", numpy_text(walk.scaled_scores)},
            {"weights_text", numpy_text(walk.weights)}}},
          {"layers", layers},
          {"rows_apart",
           {{"by_layer", result.rows_apart}, {"first", result.rows_apart.front()}, {"last", result.rows_apart.back()}}},
          {"output", program::matrix_json(result.layers.back().feed_forward_norm.output)},
          {"per_token",
           {{"permuted_difference", check.permuted_difference},
            {"alone_difference", check.alone_difference},
            {"nudged_token", inputs.tokens.back()},
            {"attention_change", check.attention_change},
            {"feed_forward_change", check.feed_forward_change}}}};
}

std::string tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const attention::AttentionSteps<>& walk = result.walkthrough;
  const Eigen::Index n = inputs.x.rows(), d = result.d_model;
  Matrix sums(1, n);
  for (Eigen::Index i = 0; i < n; ++i) sums(0, i) = walk.weights.row(i).sum();
  std::string text =
      fmt::format("One encoder layer on \"{}\": n = {} tokens, d_model = {}, h = {} heads of d_k = {}, d_ff = {}, {} "
                  "layer{}{}\n"
                  "Weights: {} × rng.normal(...) from np.random.default_rng({}), in the order of the chapter.\n\n",
                  fmt::join(inputs.tokens, " "), n, d, inputs.heads, result.d_k, inputs.d_ff, inputs.layers,
                  inputs.layers == 1 ? "" : "s", inputs.causal ? ", causal" : "", program::number_text(inputs.scale),
                  inputs.seed) +
      program::table(fmt::format("Input x ({} × {})", n, d), inputs.x, inputs.tokens, dims(d)) + '\n' +
      (inputs.example == "walkthrough"
           ? "── The graph chapter's head: head 1 of layer 1 under a causal mask, as NumPy prints it ──\n\n"
           : "── Head 1 of layer 1 under a causal mask, as in the graph chapter, as NumPy prints it ──\n\n") +
      "scores (raw) =\n " + numpy_text(walk.scaled_scores) + "\n\n" + "scores (after causal mask) =\n " +
      numpy_text(walk.masked_scores) + "\n\n" + "weights (after softmax) =\n " + numpy_text(walk.weights) + "\n" +
      "row sums = " + numpy_text(sums) + "\n\n" + "out[0] == v[0] ? " + (result.out0_equals_v0 ? "True" : "False") +
      "\n\n";
  for (std::size_t l = 0; l < result.layers.size(); ++l) text += layer_text(result, l);
  const PerToken& check = result.per_token;
  Matrix changes(n, 2);
  for (Eigen::Index t = 0; t < n; ++t) {
    changes(t, 0) = check.attention_change[static_cast<std::size_t>(t)];
    changes(t, 1) = check.feed_forward_change[static_cast<std::size_t>(t)];
  }
  text += "── Communicate or think? (layer 1's weights) ──\n\n" +
          program::table(fmt::format("Add 1 to every entry of {}'s row of x: the largest change in each row",
                                     inputs.tokens.back()),
                         changes, inputs.tokens, {"MultiHead", "FFN"}) +
          '\n' +
          fmt::format("FFN on the tokens in reverse order, against FFN's rows reversed: largest difference {}\n"
                      "FFN on each token alone, against its row of FFN on all: largest difference {}\n",
                      fmt::format("{:.3g}", check.permuted_difference), fmt::format("{:.3g}", check.alone_difference));
  return text;
}

Flags::Flags(program::CommandLine& command_line) : command_line_(command_line) {
  command_line.option("--example", example_text_,
                      "the input: walkthrough (the graph chapter's x = arange(24)/10 as 4 tokens of 6 channels) or toy "
                      "(cat eat fish, the toy's query vectors as inputs)",
                      "NAME");
  command_line.option("--x", x_text_,
                      fmt::format("the input vectors instead of the example's, one row per token: rows separated by "
                                  "';', entries by ',' (at most {} rows of {} entries, each from {} to {})",
                                  max_tokens, max_d_model, program::typed_number(-max_entry),
                                  program::typed_number(max_entry)),
                      "MATRIX");
  command_line.option("--tokens", tokens_text_,
                      "names of the tokens, separated by ','; one per row of x (default: cat,eat,fish for the toy, "
                      "otherwise t0, t1, …)",
                      "NAMES");
  command_line.option("--seed", seed_text_, "the seed of np.random.default_rng(seed), 0 to 2^64 - 1", "INTEGER");
  command_line.option("--heads", heads_text_,
                      "h, the number of heads: it must divide d_model (default: 1 for --example toy, otherwise 2, with "
                      "--x too)",
                      "INTEGER");
  command_line.option("--d-ff", d_ff_text_,
                      fmt::format("the feed-forward network's hidden width, 1 to {} (default 4 * d_model)", max_d_ff),
                      "INTEGER");
  command_line.option("--layers", layers_text_,
                      fmt::format("N, the number of layers in the stack, 1 to {}", max_layers), "INTEGER");
  command_line.option("--scale", scale_text_,
                      fmt::format("every weight is this times a standard normal draw, above 0 and at most {}",
                                  max_scale),
                      "NUMBER");
  command_line.flag("--causal", causal_, "mask the future inside the layers' attention (a decoder's self-attention)");
  command_line.excludes("--x", {"--example"});  // --x replaces the example's input; its heads would be the example's
}

Inputs Flags::read() const {
  Inputs inputs;
  if (example_text_ != "walkthrough" && example_text_ != "toy") {
    throw program::UsageError(fmt::format("--example: expected walkthrough or toy, not '{}'", example_text_));
  }
  inputs.example = example_text_;
  const bool toy = inputs.example == "toy";
  inputs.x = command_line_.given("--x") ? program::parse_matrix(x_text_, "--x")
             : toy                      ? program::parse_matrix(program::toy::queries, "--x")
                                        : walkthrough_x();
  if (static_cast<std::uint64_t>(inputs.x.rows()) > max_tokens ||
      static_cast<std::uint64_t>(inputs.x.cols()) > max_d_model) {
    throw program::UsageError(fmt::format("--x is {} × {}; expected at most {} rows (tokens) of {} entries",
                                          inputs.x.rows(), inputs.x.cols(), max_tokens, max_d_model));
  }
  program::require_entries_within(inputs.x, max_entry, "--x");
  if (command_line_.given("--tokens")) {
    inputs.tokens = program::parse_names(tokens_text_, "--tokens");
  } else if (toy && !command_line_.given("--x")) {
    inputs.tokens = program::parse_names(program::toy::tokens, "--tokens");
  } else {
    for (Eigen::Index t = 0; t < inputs.x.rows(); ++t) inputs.tokens.push_back(fmt::format("t{}", t));
  }
  if (inputs.tokens.size() != static_cast<std::size_t>(inputs.x.rows())) {
    throw program::UsageError(fmt::format("--tokens names {}, but x has {}; give one name per row",
                                          program::counted(inputs.tokens.size(), "token", "tokens"),
                                          program::counted(inputs.x.rows(), "row", "rows")));
  }
  inputs.seed = program::parse_whole_number(seed_text_, "--seed", 0, UINT64_MAX);
  const auto d_model = static_cast<std::uint64_t>(inputs.x.cols());
  inputs.heads = command_line_.given("--heads")
                     ? static_cast<Eigen::Index>(program::parse_whole_number(heads_text_, "--heads", 1, max_d_model))
                     : (toy ? 1 : 2);
  if (!command_line_.given("--heads") && inputs.x.cols() % inputs.heads != 0) {
    throw program::UsageError(fmt::format("--x: its rows have d_model = {}, which the default {} heads do not "
                                          "divide; give an even width, or --heads (a divisor of {})",
                                          program::counted(d_model, "entry", "entries"), inputs.heads, d_model));
  }
  if (inputs.heads > inputs.x.cols() || inputs.x.cols() % inputs.heads != 0) {
    throw program::UsageError(
        fmt::format("--heads: {} heads do not divide d_model = {}; each head gets d_model / h columns", inputs.heads,
                    d_model));
  }
  inputs.d_ff = command_line_.given("--d-ff")
                    ? static_cast<Eigen::Index>(program::parse_whole_number(d_ff_text_, "--d-ff", 1, max_d_ff))
                    : 4 * inputs.x.cols();
  inputs.layers = static_cast<Eigen::Index>(program::parse_whole_number(layers_text_, "--layers", 1, max_layers));
  inputs.scale = program::parse_real_number(scale_text_, "--scale");
  if (!(inputs.scale > 0.0) || inputs.scale > max_scale) {
    throw program::UsageError(
        fmt::format("--scale is {}; expected a number above 0 and at most {}", scale_text_, max_scale));
  }
  inputs.causal = causal_;
  return inputs;
}

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: the NumPy walkthrough of the graph chapter (a chapter of a
// Thai-language book; see the preface), reproduced digit for digit: x = arange(24)/10 as 4 tokens of 6 channels, and W_q, W_k, W_v =
// 0.5 × normal draws (6 × 3 each) from np.random.default_rng(1337), through a
// C++ port of NumPy's generator. Head 1 of layer 1 under a causal mask is
// printed as NumPy prints it; then the whole encoder layer on the same x:
// multi-head self-attention (communicate), the position-wise feed-forward
// network (think), each with a residual connection and LayerNorm (§3.1).
//
// --example toy takes "cat eat fish"; --x and --tokens any input; --seed,
// --heads, --d-ff, --layers, --scale and --causal change the layer. --json
// prints every intermediate as one JSON document.
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "encoder_layer",
    "Chapter 8 of Attention, Compiled: one encoder layer. Tokens communicate (multi-head self-attention), then "
    "each thinks alone (a feed-forward network); each sub-layer is wrapped as LayerNorm(x + Sublayer(x)). Weights "
    "are NumPy's draws from np.random.default_rng(--seed).",
    compute, to_json, tables);

}  // namespace encoder_layer
