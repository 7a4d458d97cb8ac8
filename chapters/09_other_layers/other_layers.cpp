#include "other_layers.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "attention/mulberry32.hpp"
#include "attention/random_weights.hpp"
#include "attention/scores.hpp"
#include "attention/stopwatch.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/largest_weight.hpp"
#include "program/matrix_text.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/timing_report.hpp"
#include "program/usage_error.hpp"

namespace other_layers {

namespace {

using attention::Matrix;

// The benchmark: queries, keys and weights drawn from chapter 2's generator
// with this seed, d_k = d_a = timing_width, each repetition at least
// minimum_seconds long, timing_repeats repetitions per length.
constexpr std::uint32_t timing_seed = 9;
constexpr std::size_t timing_width = 64;
constexpr std::size_t timing_repeats = 7;
constexpr double minimum_seconds = 0.002;
constexpr std::uint64_t max_timed_length = 512;
constexpr std::size_t max_timed_lengths = 6;

// The flags that belong to each demonstration; any other demonstration refuses them.
const std::vector<std::pair<std::string, Demonstration>> demo_flags = {
    {"--q", Demonstration::additive},          {"--k", Demonstration::additive},
    {"--v", Demonstration::additive},          {"--tokens", Demonstration::additive},
    {"--wq", Demonstration::additive},         {"--wk", Demonstration::additive},
    {"--va", Demonstration::additive},         {"--no-timing", Demonstration::additive},
    {"--time-n", Demonstration::additive},     {"--source", Demonstration::cross},
    {"--source-tokens", Demonstration::cross}, {"--target", Demonstration::cross},
    {"--target-tokens", Demonstration::cross}, {"--x", Demonstration::convolution},
    {"--kernel", Demonstration::convolution},
};

std::string demo_name(Demonstration demonstration) {
  switch (demonstration) {
    case Demonstration::additive:
      return "additive";
    case Demonstration::cross:
      return "cross";
    case Demonstration::convolution:
      return "convolution";
  }
  return "";
}

// ---------------------------------------------------------------------------
// Additive attention, and the benchmark.

// The rule's verdicts in one sentence: where each scoring was faster, where
// the two were too close to call. The book prints this sentence and types no
// verdict of its own.
std::string timing_summary(const std::vector<TimingRow>& rows, const attention::TimingComparison& comparison) {
  std::vector<std::size_t> dot_faster, additive_faster, too_close;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const attention::Faster faster = comparison.faster[i];
    (faster == attention::Faster::first    ? dot_faster
     : faster == attention::Faster::second ? additive_faster
                                           : too_close)
        .push_back(rows[i].n);
  }
  std::vector<std::string> parts;
  if (!dot_faster.empty())
    parts.push_back(fmt::format("dot-product scoring was faster at {}", program::lengths_text(dot_faster)));
  if (!additive_faster.empty()) {
    parts.push_back(fmt::format("additive scoring was faster at {}", program::lengths_text(additive_faster)));
  }
  if (!too_close.empty())
    parts.push_back(fmt::format("the two were too close to call at {}", program::lengths_text(too_close)));
  std::string text = program::listed(parts, "and");
  text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text + ".";
}

// n × n scores of each kind on random queries and keys, timed in turns.
Timing timed(const std::vector<std::size_t>& lengths) {
  const auto width = static_cast<Eigen::Index>(timing_width);
  attention::Mulberry32 generator(timing_seed);
  const auto longest = static_cast<Eigen::Index>(lengths.back());
  const Matrix queries = attention::random_normal_matrix(generator, longest, width, 1.0);
  const Matrix keys = attention::random_normal_matrix(generator, longest, width, 1.0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(width));  // 1 / √rows, as random_weights.hpp does
  attention::AdditiveWeights weights;
  weights.query = attention::random_normal_matrix(generator, width, width, scale);
  weights.key = attention::random_normal_matrix(generator, width, width, scale);
  weights.v = attention::random_normal_matrix(generator, width, 1, scale).col(0);

  Timing timing;
  timing.machine = attention::processor_name();
  timing.width = timing_width;
  timing.repeats = timing_repeats;
  std::vector<attention::TimedLength> compared;
  for (const std::size_t n : lengths) {
    const Matrix q = queries.topRows(static_cast<Eigen::Index>(n));
    const Matrix k = keys.topRows(static_cast<Eigen::Index>(n));
    // clang-format off
    // [timed_scorings]
    const auto dot_product = [&] {
      const Matrix scores = attention::scores(q, k) / std::sqrt(static_cast<double>(timing_width));
      return scores(0, 0) + scores(scores.rows() - 1, scores.cols() - 1);
    };
    const auto additive = [&] {
      const Matrix scores = attention::additive_scores(q, k, weights).scores;
      return scores(0, 0) + scores(scores.rows() - 1, scores.cols() - 1);
    };
    auto [dot_seconds, additive_seconds] =
        attention::timed_in_turns(dot_product, additive, timing_repeats, minimum_seconds);
    // [timed_scorings]
    // clang-format on
    TimingRow row;
    row.n = n;
    row.dot_product = attention::summarize_timings(dot_seconds);
    row.additive = attention::summarize_timings(additive_seconds);
    row.dot_product_samples = std::move(dot_seconds);
    row.additive_samples = std::move(additive_seconds);
    compared.push_back({n, row.dot_product, row.additive});
    timing.rows.push_back(std::move(row));
  }
  timing.comparison = attention::compare_timings(compared);
  timing.summary = timing_summary(timing.rows, timing.comparison);
  return timing;
}

AdditiveResult additive_of(const AdditiveInputs& inputs) {
  AdditiveResult result;
  result.inputs = inputs;
  const program::AttentionInputs& tokens = inputs.tokens;
  try {
    // clang-format off
    // [additive_beside_dot]
    result.additive = attention::additive_attention(tokens.queries, tokens.keys, tokens.values, inputs.weights);
    result.dot_product = attention::scaled_dot_product_attention(tokens.queries, tokens.keys, tokens.values);
    // [additive_beside_dot]
    // clang-format on
  } catch (const std::invalid_argument& error) {
    throw program::UsageError(
        fmt::format("--q, --k, --wq, --wk: a projection overflows a double, so a score is not a number ({})",
                    error.what()));
  }
  if (!result.additive.output.allFinite() || !result.dot_product.output.allFinite()) {
    throw program::UsageError("--v: the weighted sum of the values overflows a double; use smaller values");
  }
  result.score_bound = inputs.weights.v.cwiseAbs().sum();
  result.largest_score = result.additive.scores.cwiseAbs().maxCoeff();
  result.additive_favourite = program::largest_weight_labels(result.additive.weights, tokens.key_labels);
  result.dot_product_favourite = program::largest_weight_labels(result.dot_product.weights, tokens.key_labels);
  result.additive_ties = program::tied_with_largest(result.additive.weights, tokens.key_labels);
  result.dot_product_ties = program::tied_with_largest(result.dot_product.weights, tokens.key_labels);
  if (inputs.timed) result.timing = timed(inputs.timed_lengths);
  return result;
}

// ---------------------------------------------------------------------------
// Cross attention.

CrossResult cross_of(const CrossInputs& inputs) {
  CrossResult result;
  result.inputs = inputs;
  try {
    // clang-format off
    // [cross]
    const Matrix& queries = inputs.target;  // n × d: from the decoder
    const Matrix& keys = inputs.source;     // m × d: from the encoder
    const Matrix& values = inputs.source;   // m × d: the same encoder output
    result.steps = attention::scaled_dot_product_attention(queries, keys, values);
    // [cross]
    // clang-format on
  } catch (const std::invalid_argument& error) {
    throw program::UsageError(
        fmt::format("--source, --target: a score overflows a double; use smaller entries ({})", error.what()));
  }
  if (!result.steps.output.allFinite()) {
    throw program::UsageError(
        "--source: the weighted sum of the source vectors overflows a double; use smaller entries");
  }
  result.row_sums = result.steps.weights.rowwise().sum().transpose();
  result.column_sums = result.steps.weights.colwise().sum();
  result.favourite = program::largest_weight_labels(result.steps.weights, inputs.source_tokens);
  return result;
}

// ---------------------------------------------------------------------------
// Convolution as attention.

ConvolutionResult convolution_of(const ConvolutionInputs& inputs) {
  ConvolutionResult result;
  result.inputs = inputs;
  // clang-format off
  // [convolution_compared]
  result.convolution = attention::convolution_1d(inputs.inputs, inputs.kernel);
  result.attention = attention::convolution_as_attention(inputs.inputs, inputs.kernel);
  result.equal = (result.attention.output.array() == result.convolution.array()).all();
  // [convolution_compared]
  // clang-format on
  if (!result.convolution.allFinite() || !result.attention.output.allFinite()) {
    throw program::UsageError("--x, --kernel: the convolution overflows a double; use smaller entries");
  }
  result.largest_difference = (result.attention.output - result.convolution).cwiseAbs().maxCoeff();
  result.single_product = result.attention.concatenation * result.attention.output_projection;
  result.single_product_difference = (result.single_product - result.convolution).cwiseAbs().maxCoeff();
  return result;
}

// ---------------------------------------------------------------------------
// JSON.

std::string faster_name(attention::Faster faster) {
  return faster == attention::Faster::first    ? "dot_product"
         : faster == attention::Faster::second ? "additive"
                                               : "too_close";
}

nlohmann::json timing_json(const Timing& timing) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < timing.rows.size(); ++i) {
    const TimingRow& row = timing.rows[i];
    rows.push_back({{"n", row.n},
                    {"dot_product", program::timing_summary_json(row.dot_product, row.dot_product_samples)},
                    {"additive", program::timing_summary_json(row.additive, row.additive_samples)},
                    {"time_ratio", row.additive.median / row.dot_product.median},
                    {"faster", faster_name(timing.comparison.faster[i])}});
  }
  return {{"machine", timing.machine},
          {"clock", "std::chrono::steady_clock"},
          {"threads", 1},
          {"d_k", timing.width},
          {"d_a", timing.width},
          {"repeats", timing.repeats},
          {"seed", timing_seed},
          {"rows", rows},
          {"summary", timing.summary}};
}

nlohmann::json additive_json(const AdditiveResult& result) {
  const program::AttentionInputs& tokens = result.inputs.tokens;
  const attention::AdditiveSteps& additive = result.additive;
  const attention::AttentionSteps<>& dot = result.dot_product;
  return {{"demo", "additive"},
          {"query_tokens", tokens.query_labels},
          {"key_tokens", tokens.key_labels},
          {"queries", program::matrix_json(tokens.queries)},
          {"keys", program::matrix_json(tokens.keys)},
          {"values", program::matrix_json(tokens.values)},
          {"W_q", program::matrix_json(result.inputs.weights.query)},
          {"W_k", program::matrix_json(result.inputs.weights.key)},
          {"v", program::row_json(result.inputs.weights.v.transpose())},
          {"additive",
           {{"projected_queries", program::matrix_json(additive.projected_queries)},
            {"projected_keys", program::matrix_json(additive.projected_keys)},
            {"scores", program::matrix_json(additive.scores)},
            {"weights", program::matrix_json(additive.weights)},
            {"row_sums", program::row_json(additive.weights.rowwise().sum().transpose())},
            {"output", program::matrix_json(additive.output)},
            {"largest_weight_on", result.additive_favourite},
            {"tied_with_largest", result.additive_ties}}},
          {"dot_product",
           {{"scores", program::matrix_json(dot.scores)},
            {"scaled_scores", program::matrix_json(dot.scaled_scores)},
            {"weights", program::matrix_json(dot.weights)},
            {"output", program::matrix_json(dot.output)},
            {"largest_weight_on", result.dot_product_favourite},
            {"tied_with_largest", result.dot_product_ties}}},
          {"score_bound", result.score_bound},
          {"largest_abs_score", result.largest_score},
          {"timing", result.timing ? timing_json(*result.timing) : nlohmann::json()}};
}

nlohmann::json cross_json(const CrossResult& result) {
  const attention::AttentionSteps<>& steps = result.steps;
  return {{"demo", "cross"},
          {"source_tokens", result.inputs.source_tokens},
          {"target_tokens", result.inputs.target_tokens},
          {"source", program::matrix_json(result.inputs.source)},
          {"target", program::matrix_json(result.inputs.target)},
          {"n", steps.weights.rows()},
          {"m", steps.weights.cols()},
          {"scores", program::matrix_json(steps.scores)},
          {"scaled_scores", program::matrix_json(steps.scaled_scores)},
          {"weights", program::matrix_json(steps.weights)},
          {"row_sums", program::matrix_json(result.row_sums)[0]},
          {"column_sums", program::matrix_json(result.column_sums)[0]},
          {"output", program::matrix_json(steps.output)},
          {"largest_weight_on", result.favourite}};
}

nlohmann::json convolution_json(const ConvolutionResult& result) {
  const attention::ConvolutionAttentionSteps& steps = result.attention;
  nlohmann::json taps = nlohmann::json::array();
  nlohmann::json offsets = nlohmann::json::array();
  for (std::size_t t = 0; t < result.inputs.kernel.taps.size(); ++t) {
    taps.push_back(program::matrix_json(result.inputs.kernel.taps[t]));
    offsets.push_back(result.inputs.kernel.offset(t));
  }
  nlohmann::json heads = nlohmann::json::array();
  for (const attention::OffsetHead& head : steps.heads) {
    heads.push_back({{"offset", head.offset},
                     {"weights", program::matrix_json(head.attention.weights)},
                     {"output", program::matrix_json(head.attention.output)}});
  }
  return {{"demo", "convolution"},
          {"inputs", program::matrix_json(result.inputs.inputs)},
          {"n", result.inputs.inputs.rows()},
          {"d_in", result.inputs.inputs.cols()},
          {"d_out", result.convolution.cols()},
          {"radius", result.inputs.kernel.radius()},
          {"offsets", offsets},
          {"taps", taps},
          {"convolution", program::matrix_json(result.convolution)},
          {"heads", heads},
          {"concatenation", program::matrix_json(steps.concatenation)},
          {"output_projection", program::matrix_json(steps.output_projection)},
          {"attention_output", program::matrix_json(steps.output)},
          {"equal", result.equal},
          {"largest_difference", result.largest_difference},
          {"single_product_difference", result.single_product_difference}};
}

// ---------------------------------------------------------------------------
// Tables.

std::string additive_tables(const AdditiveResult& result) {
  const program::AttentionInputs& tokens = result.inputs.tokens;
  const std::vector<std::string>& rows = tokens.query_labels;
  const std::vector<std::string>& columns = tokens.key_labels;
  const std::vector<std::string> hidden = program::numbered_labels("h", result.inputs.weights.v.size());
  const std::vector<std::string> value_columns = program::numbered_labels("d", tokens.values.cols());
  std::string text = "Additive attention: s_ij = v · tanh(q_i W_q + k_j W_k)\n\n";
  text += program::table("W_q (d_k × d_a)", result.inputs.weights.query,
                         program::numbered_labels("q", tokens.queries.cols()), hidden) +
          '\n';
  text += program::table("W_k (d_k × d_a)", result.inputs.weights.key,
                         program::numbered_labels("k", tokens.keys.cols()), hidden) +
          '\n';
  text += program::table("v", result.inputs.weights.v.transpose(), {"v"}, hidden) + '\n';
  text += program::table("Additive scores", result.additive.scores, rows, columns) + '\n';
  text += program::table("Additive weights: softmax of each row", result.additive.weights, rows, columns) + '\n';
  text += program::table("Scaled dot-product scores QKᵀ/√d_k", result.dot_product.scaled_scores, rows, columns) + '\n';
  text += program::table("Dot-product weights", result.dot_product.weights, rows, columns) + '\n';
  text += program::table("Additive output = weights · V", result.additive.output, rows, value_columns) + '\n';
  text += program::table("Dot-product output = weights · V", result.dot_product.output, rows, value_columns) + '\n';
  // Short lines, here and below: a phone's narrow column shows them whole.
  text += "Largest weight, per query\n(additive / dot product):\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    text += fmt::format("  {}: {} / {}\n", rows[i], result.additive_favourite[i], result.dot_product_favourite[i]);
  }
  // Four significant digits, not four decimals: a small v gives small scores, which four decimals write as 0.
  text += fmt::format("Largest |additive score|: {:.4g}\nNo additive score passes ‖v‖₁ = {:.4g}\n",
                      result.largest_score, result.score_bound);
  if (!result.timing) return text;
  const Timing& timing = *result.timing;
  text += '\n' + program::wrapped(fmt::format("Timed on this machine, one thread: n × n scores, d_k = d_a = {}, "
                                              "milliseconds per call, median [spread] of {} repetitions, the two "
                                              "taken in turns",
                                              timing.width, timing.repeats),
                                  44, "  ");
  text += program::processor_lines(timing.machine);
  // One scoring a row, and their ratio under them: side by side, two times of up to 28 characters and the ratio
  // were 87 characters wide, and a phone showed none of the ratios the prose reads.
  text += fmt::format("{:>5}\n", "n");
  for (const TimingRow& row : timing.rows) {
    text += fmt::format("{:>5}  {:<8}  {}\n", row.n, "dot", program::milliseconds_text(row.dot_product));
    text += fmt::format("{:>5}  {:<8}  {}\n", "", "additive", program::milliseconds_text(row.additive));
    text += fmt::format("{:>5}  {:<8}  {:.3g}\n", "", "ratio", row.additive.median / row.dot_product.median);
  }
  text += "dot: the dot product; ratio: additive median /\ndot-product median. These are this machine's\ntimes; "
          "another run gives others.\n";
  text += timing.summary + '\n';
  return text;
}

std::string cross_tables(const CrossResult& result) {
  const std::vector<std::string>& target = result.inputs.target_tokens;
  const std::vector<std::string>& source = result.inputs.source_tokens;
  const std::vector<std::string> dims = program::numbered_labels("d", result.inputs.source.cols());
  std::string text = fmt::format("Cross attention: {} target {}, {} source {} (queries from the target,\n"
                                 "keys and values from the source)\n\n",
                                 target.size(), target.size() == 1 ? "word asks" : "words ask", source.size(),
                                 source.size() == 1 ? "word answers" : "words answer");
  text += program::table("Source vectors (keys and values)", result.inputs.source, source, dims) + '\n';
  text += program::table("Target vectors (queries)", result.inputs.target, target, dims) + '\n';
  text += program::table("Scaled scores QKᵀ/√d_k (target × source)", result.steps.scaled_scores, target, source) + '\n';
  text += program::table("Weights: softmax of each row", result.steps.weights, target, source) + '\n';
  text += program::table("Output = weights · V, one row per target word", result.steps.output, target, dims) + '\n';
  text += program::table("Row sums of the weights", result.row_sums, {"sum"}, target) + '\n';
  text += program::table("Column sums of the weights (need not be 1)", result.column_sums, {"sum"}, source) + '\n';
  text += "Largest weight, per target word:\n";
  for (std::size_t i = 0; i < target.size(); ++i) text += fmt::format("  {} → {}\n", target[i], result.favourite[i]);
  return text;
}

std::string convolution_tables(const ConvolutionResult& result) {
  const Eigen::Index n = result.inputs.inputs.rows();
  const std::vector<std::string> positions = program::numbered_labels("x", n);
  const std::vector<std::string> in = program::numbered_labels("c", result.inputs.inputs.cols());
  const std::vector<std::string> out = program::numbered_labels("o", result.convolution.cols());
  std::string text = fmt::format("A 1-D convolution of width {}, and the same as multi-head self-attention\n\n",
                                 result.inputs.kernel.taps.size());
  text += program::table("Inputs X, one row per position", result.inputs.inputs, positions, in) + '\n';
  for (std::size_t t = 0; t < result.inputs.kernel.taps.size(); ++t) {
    text +=
        program::table(fmt::format("W_{:+d}", result.inputs.kernel.offset(t)), result.inputs.kernel.taps[t], in, out) +
        '\n';
  }
  text += program::table("Convolution y_i = Σ_δ x_{i+δ} W_δ", result.convolution, positions, out) + '\n';
  for (const attention::OffsetHead& head : result.attention.heads) {
    text += program::table(fmt::format("Head {:+d}: weights (mask: key i{:+d} only)", head.offset, head.offset),
                           head.attention.weights, positions, positions, 0) +
            '\n';
  }
  text += program::table("Attention output Σ_δ head_δ · W^O_δ", result.attention.output, positions, out) + '\n';
  // Short lines: a phone's narrow column shows them whole. == compares the doubles entry by entry.
  text += fmt::format("Equal to the convolution (==): {}\n  largest difference: {}\n", result.equal ? "yes" : "no",
                      result.largest_difference);
  text += fmt::format("Concat · W^O as one product:\n  largest difference from the convolution: {}\n",
                      result.single_product_difference);
  return text;
}

// ---------------------------------------------------------------------------
// Reading the flags.

Matrix read_matrix_of(const std::string& text, std::string_view flag, Eigen::Index rows, Eigen::Index columns,
                      std::string_view expected) {
  const Matrix matrix = program::parse_matrix(text, flag);
  if (matrix.rows() != rows || matrix.cols() != columns) {
    throw program::UsageError(fmt::format("{}: a {} × {} matrix; expected {} × {} ({})", flag, matrix.rows(),
                                          matrix.cols(), rows, columns, expected));
  }
  return matrix;
}

// The names of a matrix's rows. Names the reader gives must be one per row;
// the default names are used when they fit, as in chapters 1 to 8, and
// otherwise the rows are numbered (prefix1, prefix2, …).
std::vector<std::string> names_for(const std::string& text, std::string_view flag, bool given, Eigen::Index rows,
                                   std::string_view matrix_flag, const std::string& prefix) {
  std::vector<std::string> names = program::parse_names(text, flag);
  if (static_cast<Eigen::Index>(names.size()) == rows) return names;
  if (!given) return program::numbered_labels(prefix, rows);
  throw program::UsageError(fmt::format("{}: {} for {} of {}; give one name per row", flag,
                                        program::counted(names.size(), "name", "names"),
                                        program::counted(rows, "row", "rows"), matrix_flag));
}

}  // namespace

Result compute(const Inputs& inputs) {
  Result result;
  result.demonstration = inputs.demonstration;
  switch (inputs.demonstration) {
    case Demonstration::additive:
      result.additive = additive_of(inputs.additive);
      break;
    case Demonstration::cross:
      result.cross = cross_of(inputs.cross);
      break;
    case Demonstration::convolution:
      result.convolution = convolution_of(inputs.convolution);
      break;
  }
  return result;
}

nlohmann::json to_json(const Result& result) {
  switch (result.demonstration) {
    case Demonstration::cross:
      return cross_json(result.cross);
    case Demonstration::convolution:
      return convolution_json(result.convolution);
    case Demonstration::additive:
      break;
  }
  return additive_json(result.additive);
}

std::string tables(const Result& result) {
  switch (result.demonstration) {
    case Demonstration::cross:
      return cross_tables(result.cross);
    case Demonstration::convolution:
      return convolution_tables(result.convolution);
    case Demonstration::additive:
      break;
  }
  return additive_tables(result.additive);
}

Flags::Flags(program::CommandLine& command_line)
    : command_line_(command_line), attention_flags_(command_line, /*with_values=*/true) {
  command_line.option("--demo", demo_, "which demonstration: additive, cross or convolution", "NAME");
  command_line.option("--wq", wq_, "additive: W_q, d_k × d_a (rows by ';', entries by ',')", "MATRIX");
  command_line.option("--wk", wk_, "additive: W_k, d_k × d_a", "MATRIX");
  command_line.option("--va", va_,
                      fmt::format("additive: v, d_a numbers separated by ',' (at most {})", program::max_matrix_side),
                      "LIST");
  command_line.flag("--no-timing", no_timing_, "additive: do not time the two scorings");
  command_line.option("--time-n", time_n_,
                      fmt::format("additive: the lengths n to time, increasing, each 1 to {}, at most {}",
                                  max_timed_length, max_timed_lengths),
                      "LIST");
  command_line.excludes("--no-timing", {"--time-n"});
  command_line.option("--source", source_, "cross: the source sentence's vectors (keys and values), one row per word",
                      "MATRIX");
  command_line.option("--source-tokens", source_tokens_,
                      "cross: the source words, separated by ',', one per row of --source (without this flag, "
                      "s1, s2, … when --source has not 4 rows)",
                      "NAMES");
  command_line.option("--target", target_, "cross: the target sentence's vectors (queries), as wide as the source's",
                      "MATRIX");
  command_line.option("--target-tokens", target_tokens_,
                      "cross: the target words, separated by ',', one per row of --target (without this flag, "
                      "t1, t2, … when --target has not 3 rows)",
                      "NAMES");
  command_line.option("--x", x_, "convolution: the inputs, one row per position", "MATRIX");
  command_line.option("--kernel", kernel_,
                      fmt::format("convolution: the taps W_-R | … | W_R, each d_in × d_out, separated by '|' (an odd "
                                  "number, at most {})",
                                  2 * program::max_matrix_side + 1),
                      "MATRICES");
}

AdditiveInputs Flags::read_additive() const {
  AdditiveInputs inputs;
  inputs.tokens = attention_flags_.read();
  const Eigen::Index d_k = inputs.tokens.queries.cols();
  inputs.weights.query = program::parse_matrix(wq_, "--wq");
  if (inputs.weights.query.rows() != d_k) {
    throw program::UsageError(fmt::format("--wq: {}; expected one per entry of a query (d_k = {})",
                                          program::counted(inputs.weights.query.rows(), "row", "rows"), d_k));
  }
  const Eigen::Index d_a = inputs.weights.query.cols();
  inputs.weights.key = read_matrix_of(wk_, "--wk", d_k, d_a, "d_k × d_a, the shape of --wq");
  const std::vector<double> v = program::parse_numbers(va_, "--va");
  if (static_cast<Eigen::Index>(v.size()) != d_a) {
    throw program::UsageError(fmt::format("--va: {}; expected one per column of --wq (d_a = {})",
                                          program::counted(v.size(), "number", "numbers"), d_a));
  }
  inputs.weights.v = Eigen::Map<const attention::Vector>(v.data(), d_a);
  if (!std::isfinite(inputs.weights.v.cwiseAbs().sum())) {
    throw program::UsageError("--va: the sum of |v| overflows a double; use smaller entries");
  }
  inputs.timed = !no_timing_;
  inputs.timed_lengths.clear();
  for (const std::uint64_t n :
       program::parse_whole_numbers(time_n_, "--time-n", 1, max_timed_length, max_timed_lengths)) {
    if (!inputs.timed_lengths.empty() && n <= inputs.timed_lengths.back()) {
      throw program::UsageError(
          fmt::format("--time-n: {} after {}; expected increasing lengths", n, inputs.timed_lengths.back()));
    }
    inputs.timed_lengths.push_back(static_cast<std::size_t>(n));
  }
  return inputs;
}

CrossInputs Flags::read_cross() const {
  CrossInputs inputs;
  inputs.source = program::parse_matrix(source_, "--source");
  inputs.target = program::parse_matrix(target_, "--target");
  if (inputs.target.cols() != inputs.source.cols()) {
    throw program::UsageError(
        fmt::format("--target: {} per row but the source (--source) has {}; a query and a key must be equally wide",
                    program::counted(inputs.target.cols(), "entry", "entries"), inputs.source.cols()));
  }
  inputs.source_tokens = names_for(source_tokens_, "--source-tokens", command_line_.given("--source-tokens"),
                                   inputs.source.rows(), "--source", "s");
  inputs.target_tokens = names_for(target_tokens_, "--target-tokens", command_line_.given("--target-tokens"),
                                   inputs.target.rows(), "--target", "t");
  return inputs;
}

ConvolutionInputs Flags::read_convolution() const {
  ConvolutionInputs inputs;
  inputs.inputs = program::parse_matrix(x_, "--x");
  std::string_view rest = kernel_;
  while (true) {
    const std::size_t bar = rest.find('|');
    const Matrix tap = program::parse_matrix(rest.substr(0, bar), "--kernel");
    if (tap.rows() != inputs.inputs.cols()) {
      throw program::UsageError(fmt::format("--kernel: tap {} has {}; expected one per column of --x (d_in = {})",
                                            inputs.kernel.taps.size() + 1, program::counted(tap.rows(), "row", "rows"),
                                            inputs.inputs.cols()));
    }
    if (!inputs.kernel.taps.empty() && tap.cols() != inputs.kernel.taps.front().cols()) {
      throw program::UsageError(
          fmt::format("--kernel: tap {} has {}, tap 1 has {}; every tap is d_in × d_out", inputs.kernel.taps.size() + 1,
                      program::counted(tap.cols(), "column", "columns"), inputs.kernel.taps.front().cols()));
    }
    inputs.kernel.taps.push_back(tap);
    if (bar == std::string_view::npos) break;
    rest = rest.substr(bar + 1);
  }
  if (inputs.kernel.taps.size() % 2 == 0) {
    throw program::UsageError(
        fmt::format("--kernel: {} taps; expected an odd number, one per offset -R … R, separated by '|'",
                    inputs.kernel.taps.size()));
  }
  if (static_cast<Eigen::Index>(inputs.kernel.taps.size()) > 2 * program::max_matrix_side + 1) {
    throw program::UsageError("--kernel: too many taps");
  }
  return inputs;
}

Inputs Flags::read() const {
  Inputs inputs;
  const std::string demo(program::trim(demo_));
  if (demo == "additive") {
    inputs.demonstration = Demonstration::additive;
  } else if (demo == "cross") {
    inputs.demonstration = Demonstration::cross;
  } else if (demo == "convolution") {
    inputs.demonstration = Demonstration::convolution;
  } else {
    throw program::UsageError(
        fmt::format("--demo: '{}' is not a demonstration; expected additive, cross or convolution", demo));
  }
  for (const auto& [flag, owner] : demo_flags) {
    if (owner != inputs.demonstration && command_line_.given(flag)) {
      throw program::UsageError(fmt::format("{} belongs to --demo {}, not --demo {}", flag, demo_name(owner), demo));
    }
  }
  switch (inputs.demonstration) {
    case Demonstration::additive:
      inputs.additive = read_additive();
      break;
    case Demonstration::cross:
      inputs.cross = read_cross();
      break;
    case Demonstration::convolution:
      inputs.convolution = read_convolution();
      break;
  }
  return inputs;
}

namespace {

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: the toy sentence "cat eat fish" scored by additive
// attention, vᵀ tanh(q W_q + k W_k), beside scaled dot-product attention on the
// same vectors, then the two scorings timed against each other on this
// machine (--no-timing skips that). --demo cross: encoder–decoder attention,
// a 3-word target asking a 4-word source. --demo convolution: a 1-D
// convolution, and the same numbers from multi-head self-attention with one
// head per kernel offset. --json prints the same values as one JSON document.
[[maybe_unused]] const bool registered =
    program::register_chapter<Flags>("other_layers",
                                     "Chapter 9 of Attention, Compiled: other scores and other layers. Additive "
                                     "attention, encoder-decoder (cross) attention, and a convolution computed as "
                                     "multi-head self-attention.",
                                     compute, to_json, tables);

}  // namespace

}  // namespace other_layers
