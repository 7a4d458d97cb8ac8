// Chapter 7: self-attention against recurrence — path length and cost.
//
// With no arguments: a sequence of n = 50 positions (the 50-word sentence of
// the book's source), vectors of width d = 512 (d_model of the paper's base
// model), convolutions of kernel width 3 and restricted attention of radius 2.
// For each layer type of the paper's Table 1 the program builds the layer's
// dependency graph, stacks layers until every output depends on every input,
// and counts by breadth-first search the maximum path length between an input
// and an output position; it also counts the multiply-adds of one layer and
// the longest chain of steps that must wait for one another. Then it times one
// self-attention layer against one recurrent layer on this machine, over a
// range of n.
// --n, --d, --kernel and --radius change what is counted; --time-n and
// --repeats what is timed; --quick times less (for the tests and the book);
// --no-timing only counts; --json prints the same values as one JSON document.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attention/attention.hpp"
#include "attention/layer_graphs.hpp"
#include "attention/mulberry32.hpp"
#include "attention/recurrent_layer.hpp"
#include "attention/standard_normal.hpp"
#include "program/command_line.hpp"
#include "program/table.hpp"
#include "program/json_output.hpp"
#include "program/integer_list.hpp"
#include "program/usage_error.hpp"

namespace {

using attention::LayerType;

// Limits that keep one run within seconds. Counting builds and searches graphs
// of up to n² edges per layer and up to n layers; timing runs attention on
// n × n matrices, four of which it keeps.
constexpr std::uint64_t max_positions = 512;
constexpr std::size_t max_lengths = 32;
constexpr std::uint64_t max_counting_work = 512ull * 512 * 512;  // Σ n³ over --n: about two seconds at most
constexpr std::uint64_t max_width = 4096;
constexpr std::uint64_t max_kernel = 511;
constexpr std::uint64_t max_radius = 255;
constexpr std::uint64_t max_timed_positions = 2048;
constexpr std::size_t max_timed_lengths = 16;
constexpr std::uint64_t max_repeats = 50;
constexpr double max_timing_work = 1.5e11;  // multiply-adds, over every timed n and repetition

// The timed lengths and repetitions, in full and in the quick mode.
constexpr const char* full_timed_lengths = "16,32,64,128,256,384,512,768,1024,1536,2048";
constexpr const char* quick_timed_lengths = "16,32,64,128,256,512,1024";
constexpr const char* full_repeats = "5";
constexpr const char* quick_repeats = "2";
// Each timed repetition calls a layer often enough to last at least this long,
// so that the clock's resolution does not matter for small n.
constexpr double full_minimum_seconds = 0.005;
constexpr double quick_minimum_seconds = 0.001;

// The seed of the random inputs and weights of the timed layers (chapter 2's generator).
constexpr std::uint32_t timing_seed = 7;

// The rows of the table, in order, with what Table 1 of the paper says of each.
struct LayerRow {
  LayerType type;
  const char* key;   // the JSON name
  const char* name;  // the printed name
  const char* table1_complexity;
  const char* table1_sequential;
  const char* table1_path;
};

const std::vector<LayerRow> layer_rows = {
    {LayerType::self_attention, "self_attention", "self-attention", "O(n²·d)", "O(1)", "O(1)"},
    {LayerType::recurrent, "recurrent", "recurrent", "O(n·d²)", "O(n)", "O(n)"},
    {LayerType::convolution, "convolutional", "convolution", "O(k·n·d²)", "O(1)", "O(log_k(n))"},
    {LayerType::dilated_convolution, "convolutional_dilated", "dilated convolution", "O(k·n·d²)", "O(1)",
     "O(log_k(n))"},
    {LayerType::restricted_self_attention, "restricted_self_attention", "restricted attention", "O(r·n·d)", "O(1)",
     "O(n/r)"},
};

// What the paper says the path length of each layer grows like. Table 1 has one
// convolutional row, O(log_k(n)); §4 gives O(n/k) for contiguous kernels.
const char* paper_path(LayerType type) {
  switch (type) {
    case LayerType::self_attention:
      return "O(1)";
    case LayerType::recurrent:
      return "O(n)";
    case LayerType::convolution:
      return "O(n/k), §4";
    case LayerType::dilated_convolution:
      return "O(log_k(n))";
    case LayerType::restricted_self_attention:
      return "O(n/r)";
  }
  return "";
}

// A duration in milliseconds with four significant digits.
std::string milliseconds_text(double seconds) { return fmt::format("{:.4g} ms", seconds * 1e3); }

// The processor's name, as Linux reports it; "unknown" elsewhere.
std::string processor_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

// Results the compiler must assume are used, so that it cannot drop the timed work.
volatile double timing_sink = 0.0;

// The best time of one call of @p layer: each of @p repeats repetitions calls it
// often enough to last at least @p minimum_seconds, and the fastest repetition
// counts (the least disturbed by whatever else the machine was doing).
// [best_time]
double best_seconds(const std::function<double()>& layer, std::size_t repeats,
                    double minimum_seconds) {
  using clock = std::chrono::steady_clock;
  const auto seconds_since = [](clock::time_point start) {
    return std::chrono::duration<double>(clock::now() - start).count();
  };
  clock::time_point start = clock::now();
  timing_sink = timing_sink + layer();  // a warm-up call, which also says how long one takes
  const double once = std::max(seconds_since(start), 1e-9);
  const auto calls = static_cast<std::size_t>(std::ceil(minimum_seconds / once));
  double best = once;
  for (std::size_t repeat = 0; repeat < repeats; ++repeat) {
    start = clock::now();
    for (std::size_t call = 0; call < calls; ++call) {
      timing_sink = timing_sink + layer();
    }
    best = std::min(best, seconds_since(start) / static_cast<double>(calls));
  }
  return best;
}
// [best_time]

struct TimingRow {
  std::size_t n;
  double attention_seconds;
  double recurrent_seconds;
  std::uint64_t attention_multiply_adds;
  std::uint64_t recurrent_multiply_adds;
};

// Where the measured curves cross: the last timed n at which self-attention was
// faster before the first at which it was not, and an estimate between the two.
struct Crossover {
  std::optional<std::size_t> attention_faster_up_to;
  std::optional<std::size_t> attention_slower_from;
  std::optional<double> estimate;  // where the ratio of the times reaches 1, on a log–log straight line
  std::size_t sign_changes = 0;    // how often the faster layer changes along n: more than 1 means noise
};

Crossover crossover_of(const std::vector<TimingRow>& rows) {
  Crossover found;
  const auto faster = [](const TimingRow& row) { return row.attention_seconds < row.recurrent_seconds; };
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (faster(rows[i]) != faster(rows[i - 1])) ++found.sign_changes;
  }
  const auto first_slower = std::find_if(rows.begin(), rows.end(), [&](const TimingRow& row) { return !faster(row); });
  if (first_slower == rows.end()) {
    if (!rows.empty()) found.attention_faster_up_to = rows.back().n;
    return found;
  }
  found.attention_slower_from = first_slower->n;
  if (first_slower == rows.begin()) return found;
  const TimingRow& before = *(first_slower - 1);
  const TimingRow& after = *first_slower;
  found.attention_faster_up_to = before.n;
  const double log_ratio_before = std::log(before.attention_seconds / before.recurrent_seconds);  // < 0
  const double log_ratio_after = std::log(after.attention_seconds / after.recurrent_seconds);     // ≥ 0
  const double share = -log_ratio_before / (log_ratio_after - log_ratio_before);
  found.estimate = std::exp(std::log(static_cast<double>(before.n)) +
                            share * (std::log(static_cast<double>(after.n)) - std::log(static_cast<double>(before.n))));
  return found;
}

// A table line without the spaces a left-aligned last column leaves at its end.
std::string line_of(std::string text) {
  const std::size_t end = text.find_last_not_of(' ');
  text.erase(end == std::string::npos ? 0 : end + 1);
  return text + '\n';
}

nlohmann::json optional_json(const std::optional<std::size_t>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace

int main(int argc, char** argv) {
  program::CommandLine command_line{
      "path_length",
      "Chapter 7 of Attention, Compiled: self-attention against recurrence. Counts, on each layer type's dependency "
      "graph, the maximum path length between an input and an output position, the multiply-adds of one layer and "
      "its sequential steps; then times one self-attention layer against one recurrent layer on this machine."};
  std::string lengths_text = "50";
  std::string width_text = "512";
  std::string kernel_text = "3";
  std::string radius_text = "2";
  std::string timed_lengths_text = full_timed_lengths;
  std::string repeats_text = full_repeats;
  bool quick = false;
  bool no_timing = false;
  bool json = false;
  std::string json_file;
  command_line.option("--n", lengths_text,
                      fmt::format("sequence lengths n to count, separated by ',' (each 1 to {}, at most {})",
                                  max_positions, max_lengths),
                      "LIST");
  command_line.option("--d", width_text,
                      fmt::format("the width d of every vector, for the multiply-adds and the timing (1 to {})",
                                  max_width),
                      "INTEGER");
  command_line.option("--kernel", kernel_text,
                      fmt::format("kernel width k of the convolutions, odd, 3 to {}", max_kernel), "INTEGER");
  command_line.option("--radius", radius_text,
                      fmt::format("radius R of restricted self-attention: output i reads inputs i-R ... i+R (1 to {})",
                                  max_radius),
                      "INTEGER");
  command_line.option("--time-n", timed_lengths_text,
                      fmt::format("sequence lengths n to time, separated by ',' (each 1 to {}, at most {})",
                                  max_timed_positions, max_timed_lengths),
                      "LIST");
  command_line.option("--repeats", repeats_text,
                      fmt::format("timed repetitions of each layer at each n; the best counts (1 to {})", max_repeats),
                      "INTEGER");
  command_line.flag("--quick", quick,
                    fmt::format("time less: n = {} and the best of {} repetitions, unless --time-n or --repeats say "
                                "otherwise",
                                quick_timed_lengths, quick_repeats));
  command_line.flag("--no-timing", no_timing, "count only; do not time the layers");
  command_line.flag("--json", json, "print the values as one JSON document instead of tables");
  command_line.option("--json-file", json_file,
                      "also write the JSON document to this file, from the same run as the tables (the timings "
                      "differ from run to run)",
                      "PATH");
  command_line.excludes("--no-timing", {"--time-n", "--repeats", "--quick"});
  command_line.excludes("--json", {"--json-file"});

  return command_line.run(argc, argv, [&] {
    std::vector<std::size_t> lengths;
    std::uint64_t counting_work = 0;
    for (const std::uint64_t n : program::parse_whole_numbers(lengths_text, "--n", 1, max_positions, max_lengths)) {
      lengths.push_back(static_cast<std::size_t>(n));
      counting_work += n * n * n;
    }
    if (counting_work > max_counting_work) {
      throw program::UsageError(fmt::format(
          "--n: the lengths need about {} steps of graph search (the sum of n³), more than the {} a run may take; "
          "count fewer or shorter lengths",
          counting_work, max_counting_work));
    }
    const std::uint64_t width = program::parse_whole_number(width_text, "--d", 1, max_width);
    const auto kernel = static_cast<std::size_t>(program::parse_whole_number(kernel_text, "--kernel", 3, max_kernel));
    if (kernel % 2 == 0) {
      throw program::UsageError(fmt::format(
          "--kernel is {}, even; expected an odd whole number from 3 to {}, so that the kernel is centred on its "
          "position",
          kernel, max_kernel));
    }
    const auto radius = static_cast<std::size_t>(program::parse_whole_number(radius_text, "--radius", 1, max_radius));

    std::vector<std::size_t> timed_lengths;
    std::size_t repeats = 0;
    double minimum_seconds = full_minimum_seconds;
    if (!no_timing) {
      if (quick) {
        if (!command_line.given("--time-n")) timed_lengths_text = quick_timed_lengths;
        if (!command_line.given("--repeats")) repeats_text = quick_repeats;
        minimum_seconds = quick_minimum_seconds;
      }
      for (const std::uint64_t n :
           program::parse_whole_numbers(timed_lengths_text, "--time-n", 1, max_timed_positions, max_timed_lengths)) {
        timed_lengths.push_back(static_cast<std::size_t>(n));
      }
      std::sort(timed_lengths.begin(), timed_lengths.end());
      timed_lengths.erase(std::unique(timed_lengths.begin(), timed_lengths.end()), timed_lengths.end());
      repeats = static_cast<std::size_t>(program::parse_whole_number(repeats_text, "--repeats", 1, max_repeats));
      double timing_work = 0.0;
      const auto d = static_cast<double>(width);
      for (const std::size_t n : timed_lengths) {
        const auto positions = static_cast<double>(n);
        timing_work += (2.0 * positions * positions * d + 2.0 * positions * d * d) * static_cast<double>(repeats + 1);
      }
      if (timing_work > max_timing_work) {
        throw program::UsageError(fmt::format(
            "--time-n, --d and --repeats: timing would take about {:.2g} multiply-adds, more than the {:.2g} a run "
            "may take; time fewer or shorter lengths, a smaller d or fewer repetitions",
            timing_work, max_timing_work));
      }
    }

    // [count]
    std::vector<attention::LayerCount> counts;
    for (const std::size_t n : lengths) {
      for (const LayerRow& row : layer_rows) {
        counts.push_back(attention::count_layer(row.type, n, width, kernel, radius));
      }
    }
    // [count]

    std::vector<TimingRow> timing_rows;
    if (!no_timing) {
      const std::size_t longest = timed_lengths.back();
      const auto d = static_cast<Eigen::Index>(width);
      attention::Mulberry32 generator(timing_seed);
      const auto random_matrix = [&](Eigen::Index rows, Eigen::Index columns, double scale) {
        attention::Matrix matrix(rows, columns);
        for (Eigen::Index i = 0; i < rows; ++i) {
          for (Eigen::Index j = 0; j < columns; ++j) matrix(i, j) = scale * attention::standard_normal(generator);
        }
        return matrix;
      };
      const attention::Matrix sequence = random_matrix(static_cast<Eigen::Index>(longest), d, 1.0);
      const double weight_scale = 1.0 / std::sqrt(static_cast<double>(width));  // keeps W h and U x of size about 1
      const attention::Matrix hidden_weights = random_matrix(d, d, weight_scale);
      const attention::Matrix input_weights = random_matrix(d, d, weight_scale);
      for (const std::size_t n : timed_lengths) {
        const attention::Matrix inputs = sequence.topRows(static_cast<Eigen::Index>(n));
        // [time_layers]
        // Q = K = V = the inputs: no projections, as counted.
        const auto self_attention = [&] {
          const attention::AttentionSteps steps =
              attention::scaled_dot_product_attention(inputs, inputs, inputs);
          return steps.output(0, 0) + steps.output(steps.output.rows() - 1, d - 1);
        };
        const auto recurrence = [&] {
          const attention::Matrix states =
              attention::recurrent_layer(inputs, hidden_weights, input_weights);
          return states(0, 0) + states(states.rows() - 1, d - 1);
        };
        const double attention_seconds =
            best_seconds(self_attention, repeats, minimum_seconds);
        const double recurrent_seconds = best_seconds(recurrence, repeats, minimum_seconds);
        // [time_layers]
        timing_rows.push_back({n, attention_seconds, recurrent_seconds,
                               attention::multiply_adds(LayerType::self_attention,
                                                        attention::self_attention_graph(n), width),
                               attention::multiply_adds(LayerType::recurrent, attention::recurrent_graph(n), width)});
      }
    }
    const Crossover crossover = crossover_of(timing_rows);
    const std::string machine = processor_name();

    if (json || !json_file.empty()) {
      nlohmann::json rows = nlohmann::json::array();
      for (const attention::LayerCount& count : counts) {
        const LayerRow& row = *std::find_if(layer_rows.begin(), layer_rows.end(),
                                            [&](const LayerRow& candidate) { return candidate.type == count.type; });
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
            {"table1", {{"complexity", row.table1_complexity},
                        {"sequential", row.table1_sequential},
                        {"path", row.table1_path}}},
        };
        if (count.type == LayerType::self_attention || count.type == LayerType::restricted_self_attention) {
          // Not in "operations": Q = X W^Q, K = X W^K, V = X W^V, n·d² multiply-adds each.
          entry["projection_operations"] = 3 * static_cast<std::uint64_t>(count.positions) * width * width;
        }
        rows.push_back(std::move(entry));
      }
      nlohmann::json timing;  // null with --no-timing
      if (!no_timing) {
        nlohmann::json timed = nlohmann::json::array();
        for (const TimingRow& row : timing_rows) {
          timed.push_back({{"n", row.n},
                           {"attention_seconds", row.attention_seconds},
                           {"recurrent_seconds", row.recurrent_seconds},
                           {"time_ratio", row.attention_seconds / row.recurrent_seconds},
                           {"score_matrix_bytes", row.n * row.n * sizeof(double)},  // one n × n matrix
                           {"attention_operations", row.attention_multiply_adds},
                           {"recurrent_operations", row.recurrent_multiply_adds},
                           {"operations_ratio", static_cast<double>(row.attention_multiply_adds) /
                                                    static_cast<double>(row.recurrent_multiply_adds)},
                           // How fast each layer got through its counted multiply-adds, in billions per second.
                           {"attention_rate", static_cast<double>(row.attention_multiply_adds) /
                                                  row.attention_seconds / 1e9},
                           {"recurrent_rate", static_cast<double>(row.recurrent_multiply_adds) /
                                                  row.recurrent_seconds / 1e9}});
        }
        timing = {
            {"machine", machine},
            {"threads", 1},
            {"clock", "std::chrono::steady_clock"},
            {"d", width},
            {"repeats", repeats},
            {"minimum_seconds_per_repeat", minimum_seconds},
            // What one recurrent step reads: the whole d × d matrix W, in doubles.
            {"hidden_weights_bytes", width * width * sizeof(double)},
            {"quick", quick},
            {"rows", timed},
            {"crossover",
             {{"attention_faster_up_to", optional_json(crossover.attention_faster_up_to)},
              {"attention_slower_from", optional_json(crossover.attention_slower_from)},
              {"estimate", crossover.estimate ? nlohmann::json(*crossover.estimate) : nlohmann::json()},
              {"sign_changes", crossover.sign_changes}}},
        };
      }
      const nlohmann::json document = {
          {"n", lengths},
          {"d", width},
          {"kernel", kernel},
          {"radius", radius},
          {"neighborhood", 2 * radius + 1},
          {"rows", rows},
          {"timing", timing},
      };
      if (json) {
        std::cout << document.dump(2) << '\n';
        return;
      }
      program::write_json_file(document, json_file, "--json-file");
    }

    std::cout << fmt::format(
        "Counted on each layer's dependency graph: width d = {}, kernel k = {},\n"
        "radius R = {} (a neighbourhood of r = {} positions).\n",
        width, kernel, radius, 2 * radius + 1);
    const char* const columns = "{:<20}  {:>6}  {:>5}  {:>10}  {:>6}  {:>6}  {:>13}";
    for (std::size_t first = 0; first < counts.size(); first += layer_rows.size()) {
      std::cout << fmt::format("\nn = {}\n", counts[first].positions);
      std::cout << line_of(fmt::format(fmt::runtime(columns), "", "", "max", "connected", "sequential", "",
                                       "multiply-adds"));
      std::cout << line_of(fmt::format(fmt::runtime(columns), "layer", "layers", "path", "pairs", "layer", "stack",
                                       "per layer"));
      for (std::size_t i = first; i < first + layer_rows.size(); ++i) {
        const attention::LayerCount& count = counts[i];
        std::cout << line_of(fmt::format(fmt::runtime(columns), layer_rows[i - first].name, count.layers,
                                         count.paths.maximum,
                                         fmt::format("{}/{}", count.paths.connected_pairs, count.paths.pairs),
                                         count.sequential_steps, count.stack_sequential_steps,
                                         program::grouped_digits(count.multiply_adds)));
      }
    }
    std::cout << "\nlayers: stacked until every output depends on every input (the recurrent\n"
                 "layer never gets there: output i depends on inputs 1 ... i only).\n"
                 "max path: the longest shortest path, in edges, from an input to an output\n"
                 "that depends on it; connected pairs: (input, output) joined by a path.\n"
                 "sequential: the longest chain of steps that wait for one another, in one\n"
                 "layer and in the whole stack.\n";

    if (no_timing) return;
    std::cout << fmt::format(
        "\nTimed on this machine ({}), one thread, d = {}: one layer each,\n"
        "the best of {} repetitions (std::chrono::steady_clock). These are this machine's\n"
        "times, not the paper's, and another run gives slightly different ones.\n\n",
        machine, width, repeats);
    const char* const timing_columns = "{:>6}  {:>14}  {:>14}  {:>12}  {:>14}\n";
    std::cout << fmt::format(fmt::runtime(timing_columns), "", "self-", "", "time ratio", "multiply-adds");
    std::cout << fmt::format(fmt::runtime(timing_columns), "n", "attention", "recurrent", "attn / rec", "ratio (n/d)");
    for (const TimingRow& row : timing_rows) {
      std::cout << fmt::format(fmt::runtime(timing_columns), row.n, milliseconds_text(row.attention_seconds),
                               milliseconds_text(row.recurrent_seconds),
                               fmt::format("{:.3g}", row.attention_seconds / row.recurrent_seconds),
                               fmt::format("{:.3g}", static_cast<double>(row.attention_multiply_adds) /
                                                         static_cast<double>(row.recurrent_multiply_adds)));
    }
    std::cout << '\n';
    if (crossover.attention_faster_up_to && crossover.attention_slower_from) {
      std::cout << fmt::format(
          "Self-attention was faster up to n = {} and slower from n = {}:\nthe curves cross near n = {:.0f}.\n",
          *crossover.attention_faster_up_to, *crossover.attention_slower_from, *crossover.estimate);
    } else if (crossover.attention_faster_up_to) {
      std::cout << fmt::format("Self-attention was faster at every timed n, up to n = {}.\n",
                               *crossover.attention_faster_up_to);
    } else if (crossover.attention_slower_from) {
      std::cout << fmt::format("Self-attention was slower at every timed n, from n = {}.\n",
                               *crossover.attention_slower_from);
    }
    if (crossover.sign_changes > 1) {
      std::cout << fmt::format("The faster layer changed {} times along n: these timings are noisy.\n",
                               crossover.sign_changes);
    }
    std::cout << fmt::format("The counted multiply-adds, 2·n²·d against 2·n·d², are equal at n = d = {}.\n",
                             width);
  });
}
