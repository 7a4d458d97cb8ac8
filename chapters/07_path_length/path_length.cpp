// Chapter 7: self-attention against recurrence, as one computation with its
// front ends. See path_length.hpp for what each part does.
#include "path_length.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "attention/attention.hpp"
#include "attention/mulberry32.hpp"
#include "attention/random_weights.hpp"
#include "attention/recurrent_layer.hpp"
#include "attention/stopwatch.hpp"
#include "program/integer_list.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/timing_report.hpp"
#include "program/usage_error.hpp"

namespace path_length {
namespace {

using attention::Faster;
using attention::LayerType;

// Limits that keep one run within seconds. Counting builds and searches graphs
// of up to n² edges per layer and up to n layers; timing runs attention on
// n × n matrices, four of which it keeps.
constexpr std::uint64_t max_positions = 512;
constexpr std::size_t max_lengths = 32;
// Σ n³ over --n: n = 512 with shorter lengths beside it (8, 64, 512 as the book
// invites), about two seconds at most.
constexpr std::uint64_t max_counting_work = 150'000'000;
constexpr std::uint64_t max_width = 4096;
constexpr std::uint64_t max_kernel = 511;
constexpr std::uint64_t max_radius = 255;
// A drawn graph stays legible: at most this many positions.
constexpr std::size_t max_drawn_positions = 16;
constexpr std::uint64_t max_timed_positions = 2048;
constexpr std::size_t max_timed_lengths = 12;
// A median needs enough repetitions that a few disturbed ones cannot move it.
constexpr std::uint64_t min_repeats = 7;
constexpr std::uint64_t max_repeats = 15;
// Multiply-adds over every timed n and call, the warm-up included, and the
// random draws of the inputs and weights at about this many multiply-adds each.
// The full sweep at d = 512 needs about 3.2e10: a few seconds of one core on
// the machine that builds the book, ten or more when it is busy.
constexpr double max_timing_work = 3.3e10;
constexpr double multiply_adds_per_draw = 30.0;

// The timed lengths: a short sweep by default, a longer one on request.
constexpr const char* short_sweep = "64,128,256,512";
constexpr const char* full_sweep = "16,32,64,128,192,256,384,512,768,1024";
// Each timed repetition calls a layer often enough to last at least this long,
// so that the clock's resolution does not matter for small n. Short enough
// that most repetitions run without another program taking the processor.
constexpr double minimum_seconds = 0.002;

// The seed of the random inputs and weights of the timed layers (chapter 2's
// generator).
constexpr std::uint32_t timing_seed = 7;

// The rows of the table, in order, with what Table 1 of the paper says of each.
struct LayerRow {
  LayerType type;
  const char* key;    // the JSON name
  const char* name;   // the layer's name, in the JSON
  const char* label;  // its row label in the printed table, short enough for a phone's page
  const char* table1_complexity;
  const char* table1_sequential;
  const char* table1_path;
};

const std::vector<LayerRow> layer_rows = {
    {LayerType::self_attention, "self_attention", "self-attention", "self-attention", "O(n²·d)", "O(1)", "O(1)"},
    {LayerType::recurrent, "recurrent", "recurrent", "recurrent", "O(n·d²)", "O(n)", "O(n)"},
    {LayerType::bidirectional_recurrent, "bidirectional_recurrent", "recurrent, both ways", "recurrent, 2 ways", "—",
     "—", "—"},
    {LayerType::convolution, "convolutional", "convolution", "convolution", "O(k·n·d²)", "O(1)", "O(logₖ(n))"},
    {LayerType::dilated_convolution, "convolutional_dilated", "dilated convolution", "dilated conv.", "O(k·n·d²)",
     "O(1)", "O(logₖ(n))"},
    {LayerType::restricted_self_attention, "restricted_self_attention", "restricted attention", "restricted attn.",
     "O(r·n·d)", "O(1)", "O(n/r)"},
};

const LayerRow& row_of(LayerType type) {
  return *std::find_if(layer_rows.begin(), layer_rows.end(), [&](const LayerRow& row) { return row.type == type; });
}

// What the paper says the path length of each layer grows like. Table 1 has one
// convolutional row, O(logₖ(n)); §4 gives O(n/k) for contiguous kernels.
const char* paper_path(LayerType type) {
  switch (type) {
    case LayerType::self_attention:
      return "O(1)";
    case LayerType::recurrent:
      return "O(n)";
    case LayerType::bidirectional_recurrent:
      return "not in Table 1";
    case LayerType::convolution:
      return "O(n/k), §4";
    case LayerType::dilated_convolution:
      return "O(logₖ(n))";
    case LayerType::restricted_self_attention:
      return "O(n/r)";
  }
  return "";
}

// The comparison in one or two sentences: which layer was faster where, where
// the two were too close to call, and every crossing. The book prints this
// sentence; it types no verdict of its own.
std::string comparison_summary(const std::vector<TimingRow>& rows, const attention::TimingComparison& comparison) {
  std::vector<std::size_t> attention_faster;
  std::vector<std::size_t> recurrent_faster;
  std::vector<std::size_t> too_close;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Faster faster = comparison.faster[i];
    (faster == Faster::first    ? attention_faster
     : faster == Faster::second ? recurrent_faster
                                : too_close)
        .push_back(rows[i].n);
  }
  const std::string too_close_text =
      too_close.empty() ? "" : fmt::format("; the two were too close to call at {}", program::lengths_text(too_close));
  if (attention_faster.empty() && recurrent_faster.empty()) {
    return fmt::format("The two layers were too close to call at every timed n ({}): their spreads overlap.",
                       program::lengths_text(too_close));
  }
  if (recurrent_faster.empty() || attention_faster.empty()) {
    const bool attention = recurrent_faster.empty();
    // Where the spreads overlap, the curves may cross unseen: the run shows no crossing, and proves none absent.
    return fmt::format("{} was faster at {}{}: {} between the timed lengths.",
                       attention ? "Self-attention" : "The recurrent layer",
                       program::lengths_text(attention ? attention_faster : recurrent_faster), too_close_text,
                       too_close.empty() ? "the curves do not cross" : "no crossing is established");
  }
  std::vector<std::string> crossings;
  for (const attention::Crossing& crossing : comparison.crossings) {
    crossings.push_back(fmt::format("between n = {} and {}", crossing.below_n, crossing.above_n));
  }
  const std::size_t count = comparison.crossings.size();
  return fmt::format("Self-attention was faster at {}, the recurrent layer at {}{}: the curves cross {}, {}.",
                     program::lengths_text(attention_faster), program::lengths_text(recurrent_faster), too_close_text,
                     count == 1   ? "once"
                     : count == 2 ? "twice"
                                  : fmt::format("{} times", count),
                     program::listed(crossings, "and"));
}

// One self-attention layer and one recurrent layer, timed at each length of
// the inputs, on random inputs and weights drawn from a fixed seed.
Timing timed(const Inputs& inputs) {
  const auto d = static_cast<Eigen::Index>(inputs.width);
  attention::Mulberry32 generator(timing_seed);
  const attention::Matrix sequence =
      attention::random_normal_matrix(generator, static_cast<Eigen::Index>(inputs.timed_lengths.back()), d, 1.0);
  const double weight_scale = 1.0 / std::sqrt(static_cast<double>(inputs.width));  // keeps W h and U x of size about 1
  const attention::Matrix hidden_weights = attention::random_normal_matrix(generator, d, d, weight_scale);
  const attention::Matrix input_weights = attention::random_normal_matrix(generator, d, d, weight_scale);

  Timing timing;
  timing.machine = attention::processor_name();
  std::vector<attention::TimedLength> compared;
  for (const std::size_t n : inputs.timed_lengths) {
    const attention::Matrix layer_inputs = sequence.topRows(static_cast<Eigen::Index>(n));
    // Q = K = V = the inputs: no projections, as counted.
    const auto self_attention = [&] {
      const attention::AttentionSteps<> steps =
          attention::scaled_dot_product_attention(layer_inputs, layer_inputs, layer_inputs);
      return steps.output(0, 0) + steps.output(steps.output.rows() - 1, d - 1);
    };
    const auto recurrence = [&] {
      const attention::Matrix states = attention::recurrent_layer(layer_inputs, hidden_weights, input_weights);
      return states(0, 0) + states(states.rows() - 1, d - 1);
    };
    auto [attention_seconds, recurrent_seconds] =
        attention::timed_in_turns(self_attention, recurrence, inputs.repeats, minimum_seconds);
    TimingRow row;
    row.n = n;
    row.attention = attention::summarize_timings(attention_seconds);
    row.recurrent = attention::summarize_timings(recurrent_seconds);
    row.attention_samples = std::move(attention_seconds);
    row.recurrent_samples = std::move(recurrent_seconds);
    row.attention_multiply_adds =
        attention::multiply_adds(LayerType::self_attention, attention::self_attention_graph(n), inputs.width);
    row.recurrent_multiply_adds =
        attention::multiply_adds(LayerType::recurrent, attention::recurrent_graph(n), inputs.width);
    compared.push_back({n, row.attention, row.recurrent});
    timing.rows.push_back(std::move(row));
  }
  timing.comparison = attention::compare_timings(compared);
  timing.summary = comparison_summary(timing.rows, timing.comparison);
  return timing;
}

}  // namespace

Result compute(const Inputs& inputs) {
  Result result;
  result.inputs = inputs;
  for (const std::size_t n : inputs.lengths) {
    for (const LayerRow& row : layer_rows) {
      result.counts.push_back(attention::count_layer(row.type, n, inputs.width, inputs.kernel, inputs.radius));
    }
  }
  if (inputs.timed) result.timing = timed(inputs);
  if (inputs.drawn) {
    const std::size_t n = inputs.lengths.front();
    // The rows of the table that are in Table 1, one layer each; the dilated
    // convolution's second layer, whose taps are k apart (its first is the
    // contiguous one).
    for (const LayerRow& row : layer_rows) {
      if (row.type == LayerType::bidirectional_recurrent) continue;  // not in Table 1
      const std::size_t level = row.type == LayerType::dilated_convolution ? 1 : 0;
      result.drawn.push_back({row.type, attention::dilation_at(inputs.kernel, level, n),
                              attention::layer_graph(row.type, n, inputs.kernel, inputs.radius, level)});
    }
  }
  return result;
}

namespace {

// ---------------------------------------------------------------------------
// JSON

const char* faster_key(Faster faster) {
  switch (faster) {
    case Faster::first:
      return "self_attention";
    case Faster::second:
      return "recurrent";
    case Faster::too_close:
      return "too_close";
  }
  return "";
}

nlohmann::json count_json(const attention::LayerCount& count, std::uint64_t width, std::size_t kernel) {
  const LayerRow& row = row_of(count.type);
  nlohmann::json to_last_output = nlohmann::json::array();  // null where no path leads
  for (const std::size_t distance : count.paths.to_last_output) {
    to_last_output.push_back(distance == attention::unreachable ? nlohmann::json() : nlohmann::json(distance));
  }
  nlohmann::json entry = {
      {"layer", row.key},
      {"name", row.name},
      {"n", count.positions},
      {"layers", count.layers},
      {"max_path_length", count.paths.maximum},
      {"connected_pairs", count.paths.connected_pairs},
      {"pairs", count.paths.pairs},
      {"paths_to_last_output", to_last_output},
      {"sequential_steps", count.sequential_steps},
      {"stack_sequential_steps", count.stack_sequential_steps},
      {"edges", count.edges},
      {"operations_per_edge", attention::multiply_adds_per_edge(count.type, width)},
      {"operations", count.multiply_adds},
      {"stack_operations", count.stack_multiply_adds},
      {"paper_path", paper_path(count.type)},
      {"table1",
       {{"complexity", row.table1_complexity}, {"sequential", row.table1_sequential}, {"path", row.table1_path}}},
  };
  if (count.type == LayerType::dilated_convolution) {
    // The gap between neighbouring taps in each layer of the stack, from the bottom, and how far an output
    // away from the sentence's ends reaches each way after each layer: each adds (k − 1)/2 gaps.
    std::vector<std::size_t> dilations, reach;
    for (std::size_t level = 0; level < count.layers; ++level) {
      dilations.push_back(attention::dilation_at(kernel, level, count.positions));
      reach.push_back((reach.empty() ? 0 : reach.back()) + (kernel - 1) / 2 * dilations.back());
    }
    entry["dilations"] = dilations;
    entry["reach"] = reach;
  }
  if (count.type == LayerType::self_attention || count.type == LayerType::restricted_self_attention) {
    // Not in "operations": Q = X W^Q, K = X W^K, V = X W^V, n·d² multiply-adds
    // each.
    entry["projection_operations"] = 3 * static_cast<std::uint64_t>(count.positions) * width * width;
  }
  return entry;
}

nlohmann::json timing_row_json(const TimingRow& row, Faster faster) {
  const auto attention_operations = static_cast<double>(row.attention_multiply_adds);
  const auto recurrent_operations = static_cast<double>(row.recurrent_multiply_adds);
  // How fast each layer got through its counted multiply-adds, in billions per
  // second.
  const double attention_rate = attention_operations / row.attention.median / 1e9;
  const double recurrent_rate = recurrent_operations / row.recurrent.median / 1e9;
  return {{"n", row.n},
          {"attention", program::timing_summary_json(row.attention, row.attention_samples)},
          {"recurrent", program::timing_summary_json(row.recurrent, row.recurrent_samples)},
          {"attention_seconds", row.attention.median},
          {"recurrent_seconds", row.recurrent.median},
          {"time_ratio", row.attention.median / row.recurrent.median},
          {"faster", faster_key(faster)},
          {"score_matrix_bytes", row.n * row.n * sizeof(double)},  // one n × n matrix
          {"attention_operations", row.attention_multiply_adds},
          {"recurrent_operations", row.recurrent_multiply_adds},
          {"operations_ratio", attention_operations / recurrent_operations},
          {"attention_rate", attention_rate},
          {"recurrent_rate", recurrent_rate},
          {"rate_ratio", attention_rate / recurrent_rate}};
}

nlohmann::json comparison_json(const Timing& timing) {
  const attention::TimingComparison& comparison = timing.comparison;
  nlohmann::json crossings = nlohmann::json::array();
  for (const attention::Crossing& crossing : comparison.crossings) {
    crossings.push_back({{"below_n", crossing.below_n},
                         {"above_n", crossing.above_n},
                         {"faster_below", faster_key(crossing.faster_below)},
                         {"faster_above", faster_key(crossing.faster_above)}});
  }
  std::vector<std::size_t> too_close_at;
  bool attention_faster = false;
  bool recurrent_faster = false;
  for (std::size_t i = 0; i < timing.rows.size(); ++i) {
    if (comparison.faster[i] == Faster::too_close) too_close_at.push_back(timing.rows[i].n);
    attention_faster = attention_faster || comparison.faster[i] == Faster::first;
    recurrent_faster = recurrent_faster || comparison.faster[i] == Faster::second;
  }
  const char* verdict = !comparison.crossings.empty() ? "crosses"
                        : attention_faster            ? "self_attention_faster"
                        : recurrent_faster            ? "recurrent_faster"
                                                      : "too_close_to_call";
  return {{"rule",
           "at each n, a layer is faster when its spread lies wholly below the other's; where the spreads overlap, too "
           "close to call. A crossing lies between two timed lengths at which different layers were faster."},
          {"verdict", verdict},
          {"crossings", crossings},
          {"crossing_count", comparison.crossings.size()},
          {"too_close_at", too_close_at},
          {"summary", timing.summary}};
}

nlohmann::json timing_json(const Inputs& inputs, const Timing& timing) {
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json at_width;  // the row at n = d, where the counts are equal; null
                            // if d was not timed
  for (std::size_t i = 0; i < timing.rows.size(); ++i) {
    rows.push_back(timing_row_json(timing.rows[i], timing.comparison.faster[i]));
    if (timing.rows[i].n == inputs.width) at_width = rows.back();
  }
  return {{"machine", timing.machine},
          {"threads", 1},
          {"clock", "std::chrono::steady_clock"},
          {"d", inputs.width},
          {"sweep", inputs.sweep},
          {"repeats", inputs.repeats},
          {"minimum_seconds_per_repeat", minimum_seconds},
          // What one recurrent step reads: the whole d × d matrix W, in doubles.
          {"hidden_weights_bytes", inputs.width * inputs.width * sizeof(double)},
          {"rows", rows},
          {"at_width", at_width},
          {"comparison", comparison_json(timing)}};
}

// A drawn layer: its nodes, which of them hold the input and the output
// positions (counted from 0), and its edges as [from, to] pairs of nodes.
nlohmann::json drawn_json(const DrawnLayer& drawn) {
  const attention::DependencyGraph& graph = drawn.graph;
  nlohmann::json edges = nlohmann::json::array();
  for (std::size_t from = 0; from < graph.node_count(); ++from) {
    for (const std::size_t to : graph.readers[from]) edges.push_back({from, to});
  }
  const LayerRow& row = row_of(drawn.type);
  return {{"layer", row.key},
          {"name", row.name},
          {"dilation", drawn.dilation},
          {"edges", edges},
          {"nodes", graph.node_count()},
          {"inputs", graph.inputs},
          {"outputs", graph.outputs}};
}

}  // namespace

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  nlohmann::json rows = nlohmann::json::array();
  for (const attention::LayerCount& count : result.counts)
    rows.push_back(count_json(count, inputs.width, inputs.kernel));
  nlohmann::json document = {{"n", inputs.lengths},
                             {"d", inputs.width},
                             {"kernel", inputs.kernel},
                             {"radius", inputs.radius},
                             {"neighborhood", 2 * inputs.radius + 1},
                             {"rows", rows},
                             {"timing", result.timing ? timing_json(inputs, *result.timing)
                                                      : nlohmann::json()}};  // null with --no-timing
  if (!result.drawn.empty()) {
    nlohmann::json& drawn = document["drawn"] = {{"n", inputs.lengths.front()}, {"layers", nlohmann::json::array()}};
    for (const DrawnLayer& layer : result.drawn) drawn["layers"].push_back(drawn_json(layer));
  }
  return document;
}

namespace {

// ---------------------------------------------------------------------------
// Printing

// A table line without the spaces a left-aligned last column leaves at its end.
std::string line_of(std::string text) {
  const std::size_t end = text.find_last_not_of(' ');
  text.erase(end == std::string::npos ? 0 : end + 1);
  return text + '\n';
}

// @p text broken into lines of at most 78 characters, at spaces, never next to
// an '=' (so that "n = 256" stays on one line).
std::string wrapped(const std::string& text) {
  std::vector<std::string> units;  // words, with "n", "=" and "256" joined into one
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    const bool joins = !units.empty() && (word == "=" || units.back().ends_with(" ="));
    if (joins) {
      units.back() += ' ' + word;
    } else if (!word.empty()) {
      units.push_back(word);
    }
    start = end + 1;
  }
  std::string lines;
  std::size_t line_length = 0;
  for (const std::string& unit : units) {
    if (line_length > 0 && line_length + 1 + unit.size() > 78) {
      lines += '\n';
      line_length = 0;
    } else if (line_length > 0) {
      lines += ' ';
      ++line_length;
    }
    lines += unit;
    line_length += unit.size();
  }
  return lines + '\n';
}

std::string counts_text(const Result& result) {
  const Inputs& inputs = result.inputs;
  std::string text = fmt::format("Counted on each layer's dependency graph: width d = {}, kernel k = {},\n"
                                 "radius R = {} (a neighbourhood of r = {} positions).\n",
                                 inputs.width, inputs.kernel, inputs.radius, 2 * inputs.radius + 1);
  for (std::size_t first = 0; first < result.counts.size(); first += layer_rows.size()) {
    text += fmt::format("\nn = {}\n", result.counts[first].positions);
    // The columns the chapter reads first, max path and connected pairs, come
    // right after the layer, so that they fit a phone's page (about 44 characters).
    // "connected/pairs" grows with n²: the column is as wide as its widest entry.
    std::vector<std::string> pairs;
    std::size_t pairs_width = 9;  // "connected"
    for (std::size_t i = first; i < first + layer_rows.size(); ++i) {
      pairs.push_back(fmt::format("{}/{}", result.counts[i].paths.connected_pairs, result.counts[i].paths.pairs));
      pairs_width = std::max(pairs_width, pairs.back().size());
    }
    constexpr int label_width = 17;  // "recurrent, 2 ways", the longest row label
    // "sequential" heads two columns, its steps in one layer and in the stack.
    text += line_of(fmt::format("{:<{}}  {:>4}  {:>{}}  {:>6}  {:>14}  {:>13}", "", label_width, "max", "connected",
                                pairs_width, "", "sequential", "multiply-adds"));
    text += line_of(fmt::format("{:<{}}  {:>4}  {:>{}}  {:>6}  {:>6}  {:>6}  {:>13}", "layer", label_width, "path",
                                "pairs", pairs_width, "layers", "layer", "stack", "per layer"));
    for (std::size_t i = first; i < first + layer_rows.size(); ++i) {
      const attention::LayerCount& count = result.counts[i];
      text += line_of(fmt::format("{:<{}}  {:>4}  {:>{}}  {:>6}  {:>6}  {:>6}  {:>13}", layer_rows[i - first].label,
                                  label_width, count.paths.maximum, pairs[i - first], pairs_width, count.layers,
                                  count.sequential_steps, count.stack_sequential_steps,
                                  program::grouped_digits(count.multiply_adds)));
    }
  }
  text += "\nlayers: stacked until every output depends on every input (the recurrent\n"
          "layer never gets there: output i depends on inputs 1 ... i only).\n"
          "recurrent, 2 ways: a recurrent chain each way, read together at each\n"
          "position (not in the paper's Table 1).\n"
          "max path: the longest shortest path, in edges, from an input to an output\n"
          "that depends on it; connected pairs: (input, output) joined by a path.\n"
          "sequential: the longest chain of steps that wait for one another, in one\n"
          "layer and in the whole stack.\n";
  return text;
}

std::string timing_text(const Inputs& inputs, const Timing& timing) {
  std::string text = fmt::format("\nTimed on this machine, one thread, d = {}:\n"
                                 "one layer of each, median of {} repetitions, [spread] in milliseconds\n",
                                 inputs.width, inputs.repeats);
  text += program::processor_lines(timing.machine);
  constexpr int column = program::timing_column_width;
  text += line_of(fmt::format("{:>6}  {:<{}}  {:<{}}  {:>8}  {}", "n", "self-attention", column, "recurrent", column,
                              "ratio", "faster"));
  for (std::size_t i = 0; i < timing.rows.size(); ++i) {
    const TimingRow& row = timing.rows[i];
    const Faster faster = timing.comparison.faster[i];
    const char* verdict = faster == Faster::first    ? "self-attention"
                          : faster == Faster::second ? "recurrent"
                                                     : "too close to call";
    text += line_of(fmt::format("{:>6}  {:<{}}  {:<{}}  {:>8.3g}  {}", row.n, program::milliseconds_text(row.attention),
                                column, program::milliseconds_text(row.recurrent), column,
                                row.attention.median / row.recurrent.median, verdict));
  }
  text += "\nratio: self-attention's median over the recurrent layer's. [spread]: the\n"
          "fastest to the slowest repetition once the fastest and slowest quarter are\n"
          "left out. A layer is faster at n only when its spread lies wholly below the\n"
          "other's. The layers take turns, repetition by repetition. These are this\n"
          "machine's times, not the paper's; another run gives other ones.\n\n";
  text += wrapped(timing.summary);
  text += fmt::format("The counted multiply-adds, 2·n²·d against 2·n·d², are equal at n = d = {}.\n", inputs.width);
  return text;
}

}  // namespace

std::string tables(const Result& result) {
  return counts_text(result) + (result.timing ? timing_text(result.inputs, *result.timing) : "");
}

// ---------------------------------------------------------------------------
// The command line

Flags::Flags(program::CommandLine& command_line) : command_line_(command_line) {
  command_line.option("--n", lengths_,
                      fmt::format("sequence lengths n to count, separated by ',' (each 1 to {}, at most {}); the "
                                  "sum of n³ over them may be at most {} (the graph search; about two seconds)",
                                  max_positions, max_lengths, max_counting_work),
                      "LIST");
  command_line.option("--d", width_,
                      fmt::format("the width d of every vector, for the multiply-adds and the timing (1 to {})",
                                  max_width),
                      "INTEGER");
  command_line.option("--kernel", kernel_, fmt::format("kernel width k of the convolutions, odd, 3 to {}", max_kernel),
                      "INTEGER");
  command_line.option("--radius", radius_,
                      fmt::format("radius R of restricted self-attention: output i reads inputs i-R ... i+R (1 to {})",
                                  max_radius),
                      "INTEGER");
  command_line.option(
      "--sweep", sweep_,
      fmt::format(
          "the lengths to time: short, n = {} (a couple of seconds at d = 512), or full, n = {} (several times longer)",
          short_sweep, full_sweep),
      "short|full");
  command_line.option(
      "--time-n", timed_lengths_,
      fmt::format("instead of a sweep, the lengths n to time, separated by ',' (each 1 to {}, at most {})",
                  max_timed_positions, max_timed_lengths),
      "LIST");
  command_line.option("--repeats", repeats_,
                      fmt::format("timed repetitions of each layer at each n, summed up by their median and "
                                  "spread ({} to {}); with the timed lengths and --d, at most about {:.2g} "
                                  "multiply-adds in all",
                                  min_repeats, max_repeats, max_timing_work),
                      "INTEGER");
  command_line.flag("--no-timing", no_timing_, "count only; do not time the layers");
  command_line.flag("--draw", draw_,
                    fmt::format("also write to the JSON one layer of each type of Table 1 as a graph, at the first "
                                "length of --n (at most {}): which input feeds which output",
                                max_drawn_positions));
  command_line.only_in_json("--draw");
  command_line.excludes("--no-timing", {"--sweep", "--time-n", "--repeats"});
  command_line.excludes("--time-n", {"--sweep"});
}

// The flags as Inputs, or a UsageError naming the flag and what was expected.
Inputs Flags::read() const {
  Inputs inputs;
  inputs.lengths.clear();
  std::uint64_t counting_work = 0;
  for (const std::uint64_t n : program::parse_whole_numbers(lengths_, "--n", 1, max_positions, max_lengths)) {
    inputs.lengths.push_back(static_cast<std::size_t>(n));
    counting_work += n * n * n;
  }
  if (counting_work > max_counting_work) {
    throw program::UsageError(
        fmt::format("--n: the lengths need about {} steps of graph search (the sum of n³), more than the {} a run may "
                    "take; count fewer or shorter lengths",
                    counting_work, max_counting_work));
  }
  inputs.width = program::parse_whole_number(width_, "--d", 1, max_width);
  inputs.kernel = static_cast<std::size_t>(program::parse_whole_number(kernel_, "--kernel", 3, max_kernel));
  if (inputs.kernel % 2 == 0) {
    throw program::UsageError(
        fmt::format("--kernel is {}, even; expected an odd whole number from 3 to {}, so that the kernel is centred on "
                    "its position",
                    inputs.kernel, max_kernel));
  }
  inputs.radius = static_cast<std::size_t>(program::parse_whole_number(radius_, "--radius", 1, max_radius));
  inputs.drawn = draw_;
  if (inputs.drawn && inputs.lengths.front() > max_drawn_positions) {
    throw program::UsageError(
        fmt::format("--draw: the first length of --n is {}; a drawn graph has at most {} positions",
                    inputs.lengths.front(), max_drawn_positions));
  }
  inputs.timed = !no_timing_;
  if (!inputs.timed) return inputs;

  if (sweep_ != "short" && sweep_ != "full") {
    throw program::UsageError(fmt::format("--sweep is '{}'; expected short or full", sweep_));
  }
  const bool custom = command_line_.given("--time-n");
  inputs.sweep = custom ? "custom" : sweep_;
  const std::string& timed_text = custom ? timed_lengths_ : sweep_ == "full" ? full_sweep : short_sweep;
  for (const std::uint64_t n :
       program::parse_whole_numbers(timed_text, "--time-n", 1, max_timed_positions, max_timed_lengths)) {
    inputs.timed_lengths.push_back(static_cast<std::size_t>(n));
  }
  std::sort(inputs.timed_lengths.begin(), inputs.timed_lengths.end());
  inputs.timed_lengths.erase(std::unique(inputs.timed_lengths.begin(), inputs.timed_lengths.end()),
                             inputs.timed_lengths.end());
  inputs.repeats =
      static_cast<std::size_t>(program::parse_whole_number(repeats_, "--repeats", min_repeats, max_repeats));
  double timing_work = 0.0;
  const auto d = static_cast<double>(inputs.width);
  for (const std::size_t n : inputs.timed_lengths) {
    const auto positions = static_cast<double>(n);
    timing_work +=
        (2.0 * positions * positions * d + 2.0 * positions * d * d) * static_cast<double>(inputs.repeats + 1);
  }
  const double draws = 2.0 * d * d + static_cast<double>(inputs.timed_lengths.back()) * d;
  timing_work += multiply_adds_per_draw * draws;
  if (timing_work > max_timing_work) {
    throw program::UsageError(
        fmt::format("--time-n, --d and --repeats: timing would take about {:.2g} multiply-adds, more than the {:.2g} a "
                    "run may take; time fewer or shorter lengths, a smaller d or fewer repetitions",
                    timing_work, max_timing_work));
  }
  return inputs;
}

namespace {

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: a sequence of n = 50 positions (the 50-word sentence of
// the hand-worked lesson), vectors of width d = 512 (d_model of the paper's base
// model), convolutions of kernel width 3 and restricted attention of radius 2.
// For each layer type of the paper's Table 1 the program builds the layer's
// dependency graph, stacks layers until every output depends on every input,
// and counts by breadth-first search the maximum path length between an input
// and an output position; it also counts the multiply-adds of one layer and
// the longest chain of steps that must wait for one another. Then it times one
// self-attention layer against one recurrent layer on this machine at a few
// lengths n (a couple of seconds), and says at which n each was faster.
// --n, --d, --kernel and --radius change what is counted; --sweep, --time-n
// and --repeats what is timed; --no-timing only counts; --json prints the same
// values as one JSON document.
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "path_length",
    "Chapter 7 of Attention, Compiled: self-attention against recurrence. Counts, on each layer type's dependency "
    "graph, the maximum path length between an input and an output position, the multiply-adds of one layer and its "
    "sequential steps; then times one self-attention layer against one recurrent layer on this machine and says at "
    "which n each was faster, or that the two were too close to call.",
    compute, to_json, tables);

}  // namespace
}  // namespace path_length
