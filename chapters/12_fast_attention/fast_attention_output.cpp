// Chapter 12's front ends: what a benchmark's rows add up to (the rates held to the peak, the goals, the verdicts,
// the summary), the JSON, the tables, the flags and the page's entry. The computation they report is in
// fast_attention.cpp.
#include "fast_attention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "attention/multiply_add_peak.hpp"
#include "attention/tile_product.hpp"
#include "attention/tile_shape.hpp"
#include "attention/timing_comparison.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/processors.hpp"
#include "program/progress_line.hpp"
#include "program/real_number.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/timing_report.hpp"
#include "program/usage_error.hpp"

namespace fast_attention {
namespace {

// Limits that keep a trace small enough to read and to draw.
constexpr std::uint64_t max_trace_tokens = 12;
constexpr std::uint64_t max_tile = 12;
// Limits of the benchmark.
constexpr std::uint64_t max_length = 65536;
constexpr std::size_t max_lengths = 12;
constexpr std::uint64_t max_width = 1024;
constexpr std::uint64_t max_repeats = 50;
constexpr double max_memory_limit_gb = 1024.0;

const char* range_name(attention::KeyRange range) { return range == attention::KeyRange::causal ? "causal" : "none"; }

// The multiply-add peak a row's rate is held against: of its threads, and in float twice the doubles' (the same
// instructions on vectors of twice as many numbers).
double row_peak_gflops(const Benchmark& benchmark, const MethodRow& row) {
  const double peak = row.threads == 1 ? benchmark.peak_gflops_one_thread : benchmark.peak_gflops;
  return row.in_float ? 2.0 * peak : peak;
}

const MethodRow* find_row(const std::vector<MethodRow>& rows, std::size_t n, const std::string& method) {
  for (const MethodRow& row : rows) {
    if (row.n == n && row.method == method && row.skipped.empty() && !row.samples.empty()) return &row;
  }
  return nullptr;
}

// The memory goal's numbers, counted at n = 16384 whether or not that length was timed.
constexpr std::uint64_t memory_n = 16384;

double teaching_bytes_at(std::uint64_t n) { return 4.0 * static_cast<double>(n * n) * sizeof(double); }

// The streaming kernel's extra memory at n = memory_n: with its own products (the keys and values packed), or with
// Eigen's.
double streaming_bytes_for(const BenchmarkInputs& inputs, bool packed_products = true) {
  attention::StreamingOptions streaming = tiles_for(inputs);
  streaming.threads = inputs.threads;
  streaming.packed_products = packed_products;
  const auto n = static_cast<Eigen::Index>(memory_n), d = static_cast<Eigen::Index>(inputs.width);
  return static_cast<double>(attention::streaming_extra_bytes(n, d, d, streaming));
}

// ---------------------------------------------------------------------------
// The verdicts: chapter 7's rule (attention::faster_at) wherever a speed is judged

// The first of two timings against the second, in words.
std::string verdict_text(attention::Faster faster) {
  return faster == attention::Faster::first    ? "faster"
         : faster == attention::Faster::second ? "slower"
                                               : "too close to call";
}

// @p first against @p second at length n, or empty where either was not timed.
std::optional<attention::Faster> verdict_at(const std::vector<MethodRow>& rows, std::size_t n, const std::string& first,
                                            const std::string& second) {
  const MethodRow* a = find_row(rows, n, first);
  const MethodRow* b = find_row(rows, n, second);
  if (a == nullptr || b == nullptr) return std::nullopt;
  return attention::faster_at({n, a->time, b->time});
}

// The causal goal: the causal kernel's whole spread below this share of the unmasked kernel's.
constexpr double causal_goal_share = 0.6;

// A timing with every time multiplied by `factor`: "at most 0.6 times as long" is "faster than 0.6 times the other".
attention::TimingSummary scaled(attention::TimingSummary time, double factor) {
  time.median *= factor;
  time.spread_low *= factor;
  time.spread_high *= factor;
  return time;
}

// Each step against the step before it, and the kernel against the teaching version and NumPy: (key, first, second).
struct StepPair {
  const char* key;
  const char* first;
  const char* second;
};
const std::vector<StepPair> step_pairs = {
    {"buffered_vs_teaching", "buffered", "teaching"},
    {"vectorised_exp_vs_buffered", "buffered_vectorised_exp", "buffered"},
    {"eigen_products_vs_vectorised_exp", "streaming_eigen_products", "buffered_vectorised_exp"},
    {"streaming_vs_eigen_products", "streaming", "streaming_eigen_products"},
    {"streaming_vs_teaching", "streaming", "teaching"},
    {"streaming_vs_numpy", "streaming", "numpy"},
    {"causal_vs_streaming", "streaming_causal", "streaming"},
};

// @p first against @p second at every timed length, in words, so that a sentence quoting it reads true whatever the
// run found: "slower at n = 256 and 512, and faster at n = 1024". The lengths are grouped by verdict, each group in
// the order of its first length; a length where either method was not timed is left out.
std::string verdicts_over_lengths(const Benchmark& benchmark, const std::string& first, const std::string& second) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;  // a verdict and its lengths
  for (const std::size_t n : benchmark.inputs.lengths) {
    const std::optional<attention::Faster> verdict = verdict_at(benchmark.rows, n, first, second);
    if (!verdict) continue;
    const std::string text = verdict_text(*verdict);
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& entry) { return entry.first == text; });
    if (group == groups.end()) group = groups.insert(groups.end(), {text, {}});
    group->second.push_back(n);
  }
  if (groups.empty()) return "not timed beside it at any length";
  std::string text;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i > 0) text += i + 1 == groups.size() ? ", and " : ", ";
    text += groups[i].first + " at " + program::lengths_text(groups[i].second);
  }
  return text;
}

// The dgemm yardsticks' names where a rate above the peak is listed.
constexpr const char* eigen_dgemm_name = "dgemm through Eigen";
constexpr const char* numpy_dgemm_name = "dgemm through NumPy";

// One rate of the run, the peak of its threads it is held against, and where the rate is kept (left empty if it
// passes the peak).
struct HeldRate {
  std::string what;
  double gflops;
  double peak;
  std::optional<double>* kept;
};

// Every rate of the run: each timed row's, then the two dgemms' (Eigen's on one thread, NumPy's on the run's).
std::vector<HeldRate> rates_of(Benchmark& benchmark) {
  std::vector<HeldRate> rates;
  for (MethodRow& row : benchmark.rows) {
    if (row.samples.empty()) continue;
    rates.push_back({fmt::format("{} at n = {}", row.method, row.n), row.multiply_add_flops / row.time.median / 1e9,
                     row_peak_gflops(benchmark, row), &row.gflops});
  }
  Yardsticks& yardsticks = benchmark.yardsticks;
  if (yardsticks.eigen_dgemm_gflops) {
    rates.push_back({eigen_dgemm_name, *yardsticks.eigen_dgemm_gflops, benchmark.peak_gflops_one_thread,
                     &yardsticks.eigen_dgemm_gflops});
  }
  if (yardsticks.numpy_dgemm_gflops) {
    rates.push_back(
        {numpy_dgemm_name, *yardsticks.numpy_dgemm_gflops, benchmark.peak_gflops, &yardsticks.numpy_dgemm_gflops});
  }
  return rates;
}

bool passes_its_peak(const HeldRate& rate) { return attention::against_peak(rate.gflops, rate.peak).above_peak; }

}  // namespace

std::vector<Goal> judged(const Benchmark& benchmark) {
  const std::vector<MethodRow>& rows = benchmark.rows;
  const std::vector<std::size_t>& lengths = benchmark.inputs.lengths;
  std::vector<Goal> goals;

  const bool in_float = benchmark.inputs.in_float;
  const PeerNames names = names_for(in_float);
  const std::string threads =
      fmt::format("{} thread{}", benchmark.inputs.threads, benchmark.inputs.threads == 1 ? "" : "s");
  // The kernel against NumPy at every n ≥ 1024 (d = 64): met where its time, times `factor`, is faster by the
  // spread rule at every such n; not met where it is slower at one.
  const auto against_numpy = [&](const char* name, const std::string& text, double factor) {
    Goal goal{name, text, "no data", ""};
    std::vector<std::string> verdicts;
    bool any_slower = false, all_faster = true;
    for (const std::size_t n : lengths) {
      const MethodRow* ours = find_row(rows, n, names.streaming);
      const MethodRow* theirs = find_row(rows, n, names.numpy);
      if (n < 1024 || benchmark.inputs.width != 64 || ours == nullptr || theirs == nullptr) continue;
      const attention::Faster faster = attention::faster_at({n, scaled(ours->time, factor), theirs->time});
      any_slower = any_slower || faster == attention::Faster::second;
      all_faster = all_faster && faster == attention::Faster::first;
      verdicts.push_back(fmt::format("n = {}: {} ({:.2f} times NumPy's median time)", n,
                                     factor == 1.0                         ? verdict_text(faster)
                                     : faster == attention::Faster::first  ? fmt::format("at least {}x faster", factor)
                                     : faster == attention::Faster::second ? fmt::format("not {}x faster", factor)
                                                                           : std::string("too close to call"),
                                     ours->time.median / theirs->time.median));
    }
    if (!verdicts.empty()) goal.verdict = any_slower ? "not met" : all_faster ? "met" : "too close to call";
    goal.detail = !verdicts.empty() ? fmt::format("{}", fmt::join(verdicts, "; "))
                                    : "no length of at least 1024 at d = 64 timed against NumPy in this run";
    return goal;
  };
  if (in_float) {
    goals.push_back(against_numpy(
        "float_streaming_vs_numpy_float32",
        "the float streaming kernel at least as fast as NumPy in float32 for n ≥ 1024, d = 64, " + threads, 1.0));
    goals.push_back(against_numpy(
        "float_streaming_1_5x_numpy_float32",
        "a stricter bar: the float streaming kernel at least 1.5 times NumPy float32's speed for n ≥ 1024, d = 64, " +
            threads,
        1.5));
  } else {
    goals.push_back(against_numpy("streaming_vs_numpy",
                                  "the streaming kernel at least as fast as NumPy for n ≥ 1024, d = 64, " + threads,
                                  1.0));
    goals.push_back(against_numpy(
        "streaming_1_5x_numpy",
        "a stricter bar: the streaming kernel at least 1.5 times NumPy's speed for n ≥ 1024, d = 64, " + threads, 1.5));
  }

  Goal peak{"products_at_half_peak", "at least 50 % of the measured multiply-add peak in the kernel's matrix products",
            "no data", "the tiles' products were not timed in this run"};
  for (auto n = lengths.rbegin(); n != lengths.rend(); ++n) {
    const MethodRow* products = find_row(rows, *n, names.products);
    const MethodRow* streaming = find_row(rows, *n, names.streaming);
    if (products == nullptr) continue;
    if (!products->gflops) {
      peak.detail = fmt::format("n = {}: the tiles' products passed the measured peak, which is a bug", *n);
      break;
    }
    // Its rate's spread against half the peak, as chapter 7 holds one spread against another.
    const double half = row_peak_gflops(benchmark, *products) / 2.0;
    const double slowest = products->multiply_add_flops / products->time.spread_high / 1e9;
    const double fastest = products->multiply_add_flops / products->time.spread_low / 1e9;
    peak.verdict = slowest >= half ? "met" : fastest < half ? "not met" : "too close to call";
    peak.detail = fmt::format("n = {}: the tiles' products alone at {:.0f} % of one thread's peak", *n,
                              100 * *products->gflops / row_peak_gflops(benchmark, *products));
    if (streaming != nullptr && streaming->gflops) {
      peak.detail += fmt::format(", the whole streaming kernel at {:.0f} % of the peak of its {} thread{}",
                                 100 * *streaming->gflops / row_peak_gflops(benchmark, *streaming), streaming->threads,
                                 streaming->threads == 1 ? "" : "s");
    }
    break;
  }
  goals.push_back(peak);

  // Counted, not measured, so it can be stated for n = 16384 whether or not it was timed.
  const double streaming_bytes = streaming_bytes_for(benchmark.inputs);
  const double teaching_bytes = teaching_bytes_at(memory_n);
  goals.push_back(
      {"memory_at_16384", "extra memory at n = 16384 at most 2 % of the teaching version's",
       streaming_bytes / teaching_bytes <= 0.02 ? "met" : "not met",
       fmt::format("counted from the sizes, not measured: {} against {}, {:.2g} %", bytes_text(streaming_bytes),
                   bytes_text(teaching_bytes), 100 * streaming_bytes / teaching_bytes)});

  Goal causal{"causal_half", "the causal variant close to half the unmasked time", "no data",
              "the causal variant was not timed in this run"};
  for (auto n = lengths.rbegin(); n != lengths.rend(); ++n) {
    const MethodRow* masked = find_row(rows, *n, "streaming_causal");
    const MethodRow* unmasked = find_row(rows, *n, "streaming");
    if (masked == nullptr || unmasked == nullptr) continue;
    const attention::Faster faster =
        attention::faster_at({*n, masked->time, scaled(unmasked->time, causal_goal_share)});
    causal.verdict = faster == attention::Faster::first    ? "met"
                     : faster == attention::Faster::second ? "not met"
                                                           : "too close to call";
    causal.detail = fmt::format("n = {}: {:.2f} times the unmasked median time (met where its spread lies below {} "
                                "times the unmasked one's)",
                                *n, masked->time.median / unmasked->time.median, causal_goal_share);
    break;
  }
  goals.push_back(causal);
  return goals;
}

std::string summary_of(const Benchmark& benchmark) {
  if (!benchmark.numpy.available) return "NumPy was not timed in this run: " + benchmark.numpy.reason + ".";
  const PeerNames names = names_for(benchmark.inputs.in_float);
  std::vector<std::size_t> faster, slower, too_close;
  for (const std::size_t n : benchmark.inputs.lengths) {
    const std::optional<attention::Faster> verdict = verdict_at(benchmark.rows, n, names.streaming, names.numpy);
    if (!verdict) continue;
    (*verdict == attention::Faster::first    ? faster
     : *verdict == attention::Faster::second ? slower
                                             : too_close)
        .push_back(n);
  }
  std::vector<std::string> parts;
  if (!faster.empty()) parts.push_back("faster than NumPy at " + program::lengths_text(faster));
  if (!slower.empty()) parts.push_back("slower than NumPy at " + program::lengths_text(slower));
  if (!too_close.empty()) parts.push_back("too close to NumPy to call at " + program::lengths_text(too_close));
  if (parts.empty()) return "The streaming kernel and NumPy were not both timed at any length.";
  std::string text = benchmark.inputs.in_float ? "In float (NumPy in float32), the streaming kernel was "
                                               : "The streaming kernel was ";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) text += i + 1 == parts.size() ? ", and " : ", ";
    text += parts[i];
  }
  return text + fmt::format(" ({} thread{}, d = {}).", benchmark.inputs.threads,
                            benchmark.inputs.threads == 1 ? "" : "s", benchmark.inputs.width);
}

// Another program that shares the processor can only make the peak look lower than it is, never higher: so where
// a rate passes it, the peak is measured again, up to three times, before the rate is called a bug.
void hold_rates_to_the_peak(Benchmark& benchmark, const std::function<void(Benchmark&)>& measure_the_peaks_again) {
  const auto a_rate_passes = [&] {
    const std::vector<HeldRate> rates = rates_of(benchmark);
    return std::any_of(rates.begin(), rates.end(), passes_its_peak);
  };
  for (int again = 0; again < 3 && a_rate_passes(); ++again) measure_the_peaks_again(benchmark);
  for (const HeldRate& rate : rates_of(benchmark)) {
    if (!passes_its_peak(rate)) {
      *rate.kept = rate.gflops;
      continue;
    }
    rate.kept->reset();
    benchmark.above_peak.push_back({rate.what, rate.gflops, rate.peak});
  }
  for (MethodRow& row : benchmark.rows) row.above_peak = !row.samples.empty() && !row.gflops;
}

namespace {

// ---------------------------------------------------------------------------
// JSON

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? program::number_json(*value) : nlohmann::json();
}

nlohmann::json trace_json(const Trace& trace) {
  const TraceInputs& inputs = trace.inputs;
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    const TraceStep& step = trace.steps[s];
    nlohmann::json maximum = nlohmann::json::array(), sum = nlohmann::json::array(), output = nlohmann::json::array();
    for (std::size_t i = 0; i < step.maximum.size(); ++i) {
      maximum.push_back(optional_json(step.maximum[i]));
      sum.push_back(optional_json(step.sum[i]));
      output.push_back(step.output[i] ? program::row_json(*step.output[i]) : nlohmann::json());
    }
    const attention::StreamingTileState& tile = step.tile;
    steps.push_back({{"step", s + 1},
                     {"query_tile", tile.first_query / inputs.query_tile},
                     {"key_tile", tile.first_key / inputs.key_tile},
                     {"first_query", tile.first_query},
                     {"first_key", tile.first_key},
                     {"scores", program::matrix_json(tile.scores)},
                     {"exponentials", program::matrix_json(tile.exponentials)},
                     {"rescale", program::row_json(tile.rescale.transpose())},
                     {"maximum", maximum},
                     {"sum", sum},
                     {"output", output}});
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& [query_tile, key_tile] : trace.skipped) skipped.push_back({query_tile, key_tile});
  const Eigen::Index n = inputs.example.queries.rows(), m = inputs.example.keys.rows();
  return {{"query_tokens", inputs.example.query_labels},
          {"key_tokens", inputs.example.key_labels},
          {"queries", program::matrix_json(inputs.example.queries)},
          {"keys", program::matrix_json(inputs.example.keys)},
          {"values", program::matrix_json(inputs.example.values)},
          {"scale", 1.0 / std::sqrt(static_cast<double>(inputs.example.queries.cols()))},
          {"mask", range_name(inputs.range)},
          {"query_tile", inputs.query_tile},
          {"key_tile", inputs.key_tile},
          {"query_tiles", (n + inputs.query_tile - 1) / inputs.query_tile},
          {"key_tiles", (m + inputs.key_tile - 1) / inputs.key_tile},
          {"tiles", ((n + inputs.query_tile - 1) / inputs.query_tile) * ((m + inputs.key_tile - 1) / inputs.key_tile)},
          {"visited", trace.steps.size()},
          {"skipped_count", trace.skipped.size()},
          {"skipped", skipped},
          {"steps", steps},
          {"output", program::matrix_json(trace.output)},
          {"teaching_output", program::matrix_json(trace.teaching_output)},
          {"largest_difference", trace.largest_difference}};
}

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

nlohmann::json row_json(const MethodRow& row, const Benchmark& benchmark) {
  nlohmann::json entry = {{"n", row.n},
                          {"d", row.width},
                          {"threads", row.threads},
                          {"method", row.method},
                          {"seconds_median", nullptr},
                          {"seconds_spread", nullptr},
                          {"seconds_samples", row.samples},
                          {"gflops", optional_number(row.gflops)},
                          {"peak_fraction", nullptr},
                          {"above_peak", row.above_peak},
                          {"peak_extra_bytes", row.peak_extra_bytes},
                          {"peak_extra_bytes_how", row.memory_how},
                          {"difference_from_teaching", optional_number(row.difference)},
                          {"difference_from", row.difference ? nlohmann::json(row.difference_from) : nlohmann::json()},
                          {"precision", row.in_float ? "float" : "double"},
                          {"skipped", row.skipped.empty() ? nlohmann::json() : nlohmann::json(row.skipped)}};
  if (!row.samples.empty()) {
    entry["seconds_median"] = row.time.median;
    entry["seconds_spread"] = {row.time.spread_low, row.time.spread_high};
  }
  if (row.gflops) {
    entry["peak_fraction"] = *row.gflops / row_peak_gflops(benchmark, row);
  }
  return entry;
}

// Ratios and verdicts the prose reads, one entry per length: each method's
// median over the streaming kernel's (null where either was not timed), and
// each step against the one before by chapter 7's rule.
nlohmann::json ratios_json(const Benchmark& benchmark) {
  nlohmann::json lengths = nlohmann::json::array();
  for (const std::size_t n : benchmark.inputs.lengths) {
    const MethodRow* streaming = find_row(benchmark.rows, n, "streaming");
    nlohmann::json entry = {{"n", n}};
    for (const char* method :
         {"teaching", "buffered", "buffered_vectorised_exp", "streaming_eigen_products", "streaming_causal", "numpy"}) {
      const MethodRow* row = find_row(benchmark.rows, n, method);
      entry[fmt::format("{}_over_streaming", method)] = row != nullptr && streaming != nullptr
                                                            ? nlohmann::json(row->time.median / streaming->time.median)
                                                            : nlohmann::json();
    }
    const MethodRow* teaching = find_row(benchmark.rows, n, "teaching");
    const MethodRow* buffered = find_row(benchmark.rows, n, "buffered");
    const MethodRow* exp = find_row(benchmark.rows, n, "buffered_vectorised_exp");
    entry["teaching_over_buffered"] = teaching != nullptr && buffered != nullptr
                                          ? nlohmann::json(teaching->time.median / buffered->time.median)
                                          : nlohmann::json();
    const MethodRow* float_kernel = find_row(benchmark.rows, n, float_streaming);
    const MethodRow* float32_numpy = find_row(benchmark.rows, n, float_numpy);
    entry["numpy_float32_over_streaming_float"] =
        float_kernel != nullptr && float32_numpy != nullptr
            ? nlohmann::json(float32_numpy->time.median / float_kernel->time.median)
            : nlohmann::json();
    entry["buffered_over_vectorised_exp"] = buffered != nullptr && exp != nullptr
                                                ? nlohmann::json(buffered->time.median / exp->time.median)
                                                : nlohmann::json();
    const MethodRow* eigen_products = find_row(benchmark.rows, n, "streaming_eigen_products");
    entry["eigen_products_over_vectorised_exp"] = exp != nullptr && eigen_products != nullptr
                                                      ? nlohmann::json(eigen_products->time.median / exp->time.median)
                                                      : nlohmann::json();
    nlohmann::json verdicts = nlohmann::json::object();
    for (const StepPair& pair : step_pairs) {
      const std::optional<attention::Faster> verdict = verdict_at(benchmark.rows, n, pair.first, pair.second);
      verdicts[pair.key] = verdict ? nlohmann::json(verdict_text(*verdict)) : nlohmann::json("not timed");
    }
    const std::optional<attention::Faster> float_verdict = verdict_at(benchmark.rows, n, float_streaming, float_numpy);
    verdicts["streaming_float_vs_numpy_float32"] =
        float_verdict ? nlohmann::json(verdict_text(*float_verdict)) : nlohmann::json("not timed");
    entry["verdicts"] = verdicts;
    const MethodRow* products = find_row(benchmark.rows, n, "tile_products_only");
    const MethodRow* numpy = find_row(benchmark.rows, n, "numpy");
    const auto percent = [](const MethodRow* row, double peak) {
      return row != nullptr && row->gflops ? nlohmann::json(100 * *row->gflops / peak) : nlohmann::json();
    };
    entry["streaming_gflops"] = streaming != nullptr ? optional_number(streaming->gflops) : nlohmann::json();
    entry["streaming_peak_percent"] = percent(streaming, benchmark.peak_gflops);
    entry["products_peak_percent"] = percent(products, benchmark.peak_gflops_one_thread);
    const MethodRow* float_products_row = find_row(benchmark.rows, n, float_products);
    entry["streaming_float_peak_percent"] =
        float_kernel != nullptr ? percent(float_kernel, row_peak_gflops(benchmark, *float_kernel)) : nlohmann::json();
    entry["products_float_peak_percent"] =
        float_products_row != nullptr ? percent(float_products_row, row_peak_gflops(benchmark, *float_products_row))
                                      : nlohmann::json();
    entry["numpy_gflops"] = numpy != nullptr ? optional_number(numpy->gflops) : nlohmann::json();
    entry["products_gflops"] = products != nullptr ? optional_number(products->gflops) : nlohmann::json();
    // Counted, whether or not the method ran.
    for (const MethodRow& row : benchmark.rows) {
      if (row.n == n && (row.method == "teaching" || row.method == "streaming")) {
        entry[row.method + "_extra_bytes"] = row.peak_extra_bytes;
      }
    }
    lengths.push_back(entry);
  }
  return lengths;
}

nlohmann::json memory_json(const Benchmark& benchmark) {
  const double teaching = teaching_bytes_at(memory_n), streaming = streaming_bytes_for(benchmark.inputs);
  return {{"n", memory_n},
          {"teaching_bytes", teaching},
          {"teaching_gib", teaching / (1024.0 * 1024.0 * 1024.0)},
          {"streaming_bytes", streaming},
          {"streaming_kib", streaming / 1024.0},
          {"streaming_mib", streaming / (1024.0 * 1024.0)},
          {"eigen_products_kib", streaming_bytes_for(benchmark.inputs, false) / 1024.0},
          {"percent", 100 * streaming / teaching}};
}

// The tiles and register block this machine chose, and what they were chosen from.
nlohmann::json tiles_json(const BenchmarkInputs& inputs) {
  const attention::TileShape shape = tile_shape_for(inputs);
  const attention::CacheSizes& caches = machine_caches();
  return {{"query_tile", shape.query_tile},
          {"key_tile", shape.key_tile},
          {"product_block_rows", shape.product.block_rows},
          {"product_strip_columns", shape.product.strip_columns},
          {"precision", inputs.in_float ? "float" : "double"},
          {"vector_bytes", inputs.in_float ? attention::vector_lanes<float> * 4 : attention::vector_lanes<double> * 8},
          {"vector_numbers", inputs.in_float ? attention::vector_lanes<float> : attention::vector_lanes<double>},
          {"level1_bytes", caches.level1_bytes},
          {"level2_bytes", caches.level2_bytes},
          {"level1_kib", caches.level1_bytes / 1024},
          {"level2_kib", caches.level2_bytes / 1024},
          {"caches_from", caches.source}};
}

// The same in words, for the tables.
std::string tiles_text(const BenchmarkInputs& inputs) {
  const attention::TileShape shape = tile_shape_for(inputs);
  const attention::CacheSizes& caches = machine_caches();
  return fmt::format("Tiles chosen for this machine: {} queries by {} keys, register block {} rows by {} columns "
                     "(vectors of {} {}s; caches of {} KiB and {} KiB, from {}).",
                     shape.query_tile, shape.key_tile, shape.product.block_rows, shape.product.strip_columns,
                     inputs.in_float ? attention::vector_lanes<float> : attention::vector_lanes<double>,
                     inputs.in_float ? "float" : "double", caches.level1_bytes / 1024, caches.level2_bytes / 1024,
                     caches.source);
}

nlohmann::json benchmark_json(const Benchmark& benchmark) {
  const BenchmarkInputs& inputs = benchmark.inputs;
  nlohmann::json rows = nlohmann::json::array();
  for (const MethodRow& row : benchmark.rows) rows.push_back(row_json(row, benchmark));
  nlohmann::json skipped = nlohmann::json::array();
  for (const MethodRow& row : benchmark.rows) {
    if (!row.skipped.empty()) skipped.push_back({{"n", row.n}, {"method", row.method}, {"reason", row.skipped}});
  }
  nlohmann::json goals = nlohmann::json::array();
  for (const Goal& goal : benchmark.goals) {
    goals.push_back({{"name", goal.name},
                     {"goal", goal.goal},
                     {"met", goal.verdict == "met"       ? nlohmann::json(true)
                             : goal.verdict == "not met" ? nlohmann::json(false)
                                                         : nlohmann::json()},
                     {"verdict", goal.verdict},
                     {"detail", goal.detail}});
  }
  const nlohmann::json ratios = ratios_json(benchmark);
  nlohmann::json verdicts_by_length = nlohmann::json::object();
  for (const StepPair& pair : step_pairs) {
    verdicts_by_length[pair.key] = verdicts_over_lengths(benchmark, pair.first, pair.second);
  }
  const NumpyPeer& numpy = benchmark.numpy;
  nlohmann::json peer = {{"available", numpy.available}};
  peer["description"] =
      numpy.available ? fmt::format("NumPy {} on {}", numpy.numpy_version, numpy.blas) : "not timed: " + numpy.reason;
  if (numpy.available) {
    peer["python"] = numpy.python;
    peer["numpy_version"] = numpy.numpy_version;
    peer["blas"] = numpy.blas;
    peer["dtype"] = numpy.dtype;
    peer["threads_variables"] = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"};
  } else {
    peer["reason"] = numpy.reason;
  }
  const Yardsticks& yardsticks = benchmark.yardsticks;
  const auto peak_json = [](const attention::MultiplyAddPeak& peak) {
    return nlohmann::json{{"gflops", peak.flops / 1e9},
                          {"instructions", peak.instructions},
                          {"doubles", peak.doubles},
                          {"build_gflops", peak.build_flops / 1e9},
                          {"build_doubles", peak.build_doubles}};
  };
  nlohmann::json above_peak = nlohmann::json::array();
  for (const RateAbovePeak& rate : benchmark.above_peak) {
    above_peak.push_back({{"what", rate.what}, {"gflops", rate.gflops}, {"peak_gflops", rate.peak_gflops}});
  }
  return {{"machine", benchmark.machine},
          {"clock", "std::chrono::steady_clock; NumPy: time.perf_counter"},
          {"n", inputs.lengths},
          {"d", inputs.width},
          {"threads", inputs.threads},
          {"reps", inputs.repeats},
          {"precision", inputs.in_float ? "float" : "double"},
          {"minimum_seconds_per_rep", minimum_seconds},
          {"memory_limit_bytes", inputs.memory_limit_bytes},
          {"peak_gflops", benchmark.peak_gflops},
          {"peak_gflops_one_thread", benchmark.peak_gflops_one_thread},
          {"yardsticks",
           {{"peak", peak_json(yardsticks.peak)},
            {"peak_one_thread", peak_json(yardsticks.peak_one_thread)},
            {"chains", attention::peak_chains},
            {"dgemm_n", yardsticks.dgemm_n},
            {"eigen_dgemm_gflops", optional_number(yardsticks.eigen_dgemm_gflops)},
            {"eigen_dgemm_threads", 1},
            {"numpy_dgemm_gflops", optional_number(yardsticks.numpy_dgemm_gflops)},
            {"numpy_dgemm_threads", inputs.threads}}},
          {"rates_above_peak", above_peak},
          {"estimated_seconds", optional_number(benchmark.estimated_seconds)},
          {"wall_seconds", benchmark.wall_seconds},
          {"tiles", tiles_json(inputs)},
          {"peak_extra_bytes_note",
           "counted from the buffers each method allocates (not measured from the allocator); NumPy's measured with "
           "Python's tracemalloc"},
          {"rows", rows},
          {"skipped", skipped},
          {"ratios", ratios},
          {"at_largest_n", ratios.back()},
          {"verdicts_by_length", verdicts_by_length},
          {"memory_at_16384", memory_json(benchmark)},
          {"numpy", peer},
          {"goals", goals},
          {"causal_goal_share", causal_goal_share},
          {"summary", benchmark.summary}};
}

}  // namespace

nlohmann::json to_json(const Result& result) {
  if (result.benchmark) return benchmark_json(*result.benchmark);
  return {{"trace", trace_json(*result.trace)}};
}

namespace {

// ---------------------------------------------------------------------------
// Printing

std::string optional_text(const std::optional<double>& value) {
  return value ? program::number_text(*value) : std::string("—");
}

// A tile's words, as the trace names them: "queries cat to eat, key fish".
std::string tile_words(const std::vector<std::string>& queries, const std::vector<std::string>& keys,
                       Eigen::Index first_query, Eigen::Index query_count, Eigen::Index first_key,
                       Eigen::Index key_count) {
  const std::string& first = queries[static_cast<std::size_t>(first_query)];
  const std::string& last = queries[static_cast<std::size_t>(first_query + query_count - 1)];
  const std::vector<std::string> key_names(keys.begin() + first_key, keys.begin() + first_key + key_count);
  return fmt::format("{}, {} {}", query_count == 1 ? "query " + first : fmt::format("queries {} to {}", first, last),
                     key_count == 1 ? "key" : "keys", fmt::join(key_names, ", "));
}

// One query's row in a tile of the trace, each entry as printed.
struct TraceRow {
  std::string query, scores, maximum, rescale, sum, output;
};

TraceRow trace_row(const TraceStep& step, const std::vector<std::string>& queries, Eigen::Index i) {
  const attention::StreamingTileState& tile = step.tile;
  const auto query = static_cast<std::size_t>(tile.first_query + i);
  std::vector<std::string> scores, output;
  for (Eigen::Index j = 0; j < tile.scores.cols(); ++j) scores.push_back(program::number_text(tile.scores(i, j)));
  for (Eigen::Index j = 0; j < step.output[query]->size(); ++j) {
    output.push_back(program::number_text((*step.output[query])(j)));
  }
  return {queries[query],
          fmt::format("{}", fmt::join(scores, "  ")),
          optional_text(step.maximum[query]),
          program::number_text(tile.rescale(i)),
          optional_text(step.sum[query]),
          fmt::format("({})", fmt::join(output, ", "))};
}

std::string trace_text(const Trace& trace) {
  const TraceInputs& inputs = trace.inputs;
  const auto& queries = inputs.example.query_labels;
  const auto& keys = inputs.example.key_labels;
  std::string text =
      fmt::format("Streaming attention, traced: keys in tiles of {}, queries in tiles of {},\n"
                  "mask {}; scores scaled by 1/sqrt(d_k) = {}.\n",
                  inputs.key_tile, inputs.query_tile, range_name(inputs.range),
                  program::number_text(1.0 / std::sqrt(static_cast<double>(inputs.example.queries.cols()))));
  std::vector<std::vector<TraceRow>> rows(trace.steps.size());
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    for (Eigen::Index i = 0; i < trace.steps[s].tile.scores.rows(); ++i) {
      rows[s].push_back(trace_row(trace.steps[s], queries, i));
    }
  }
  // Each column of query, scores, M, rescale and L as wide as its widest entry in any tile, so that the columns
  // line up from tile to tile and, on the toy, fit a phone's 44 characters. O / L, a vector, would take a row past
  // that: it is a second table under them.
  const TraceRow heading{"query", "scores", "M", "rescale", "L", "O / L"};
  std::size_t query_width = 0, scores_width = 0, maximum_width = 0, rescale_width = 0, sum_width = 0;
  const auto widen = [&](const TraceRow& row) {
    query_width = std::max(query_width, program::shown_width(row.query));
    scores_width = std::max(scores_width, program::shown_width(row.scores));
    maximum_width = std::max(maximum_width, program::shown_width(row.maximum));
    rescale_width = std::max(rescale_width, program::shown_width(row.rescale));
    sum_width = std::max(sum_width, program::shown_width(row.sum));
  };
  widen(heading);
  for (const std::vector<TraceRow>& tile_rows : rows) {
    for (const TraceRow& row : tile_rows) widen(row);
  }
  const auto state_line = [&](const TraceRow& row) {
    return fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}\n", row.query, query_width, row.scores, scores_width,
                       row.maximum, maximum_width, row.rescale, rescale_width, row.sum, sum_width);
  };
  const auto output_line = [&](const TraceRow& row) {
    return fmt::format("{:<{}}  {}\n", row.query, query_width, row.output);
  };
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    const attention::StreamingTileState& tile = trace.steps[s].tile;
    text += fmt::format("\nTile {}: {}\n", s + 1,
                        tile_words(queries, keys, tile.first_query, tile.scores.rows(), tile.first_key,
                                   tile.scores.cols()));
    text += state_line(heading);
    for (const TraceRow& row : rows[s]) text += state_line(row);
    text += output_line(heading);
    for (const TraceRow& row : rows[s]) text += output_line(row);
  }
  // A skipped tile is named by its words, as a visited one is (its tile numbers are in the JSON).
  const auto count = [](Eigen::Index first, Eigen::Index tile, std::size_t all) {
    return std::min(tile, static_cast<Eigen::Index>(all) - first);
  };
  for (const auto& [query_tile, key_tile] : trace.skipped) {
    const Eigen::Index first_query = query_tile * inputs.query_tile;
    const Eigen::Index first_key = key_tile * inputs.key_tile;
    text += fmt::format("\nSkipped, every score masked: {}\n",
                        tile_words(queries, keys, first_query, count(first_query, inputs.query_tile, queries.size()),
                                   first_key, count(first_key, inputs.key_tile, keys.size())));
  }
  text += "\n" + program::table("Output, streaming (O / L after the last tile)", trace.output, queries,
                                program::numbered_labels("d", trace.output.cols()));
  text += "\n" + program::table("Output, teaching version (softmax(QK^T / sqrt(d_k)) V)", trace.teaching_output,
                                queries, program::numbered_labels("d", trace.output.cols()));
  text += fmt::format("\nLargest difference, relative to the largest output entry: {:.3g}\n"
                      "M: running maximum of the scores seen; L: running sum of e^(s - M);\n"
                      "rescale: e^(M before - M after), applied to L and O before the tile is added.\n",
                      trace.largest_difference);
  return text;
}

// Text the benchmark wraps is at most this wide (its table rows, 80), whatever the machine's
// name, paths and timings: the book shows them in a code column that fits
// about 100 characters at 1280 px.
constexpr std::size_t line_width = 78;

// A time in milliseconds in at most 7 characters: 3 significant digits below
// 100 ms, whole milliseconds above.
std::string milliseconds_text(double seconds) {
  const double ms = seconds * 1e3;
  if (ms >= 99.95) return fmt::format("{:.0f}", ms);
  if (ms >= 0.001) return fmt::format("{:.3g}", ms);
  return fmt::format("{:.0e}", ms);
}

std::string milliseconds_text(const attention::TimingSummary& time) {
  return fmt::format("{} [{}-{}]", milliseconds_text(time.median), milliseconds_text(time.spread_low),
                     milliseconds_text(time.spread_high));
}

// @p text cut to at most @p width characters (bytes), its middle replaced by "...": the end of a path stays.
std::string clipped(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  const std::size_t head = (width - 3) / 2, tail = width - 3 - head;
  return text.substr(0, head) + "..." + text.substr(text.size() - tail);
}

// @p text as lines of at most line_width characters (program::wrapped).
std::string wrapped(const std::string& text, const std::string& indent = "") {
  return program::wrapped(text, line_width, indent);
}

// The short names the table prints.
std::string method_label(const std::string& method) {
  if (method == "buffered_vectorised_exp") return "buffered, vec. exp";
  if (method == "streaming_eigen_products") return "streaming, Eigen";
  if (method == "streaming_causal") return "streaming, causal";
  if (method == "tile_products_only") return "products only";
  if (method == "numpy") return "NumPy";
  if (method == float_streaming) return "streaming, float";
  if (method == float_products) return "products, float";
  if (method == float_numpy) return "NumPy float32";
  return method;
}

std::string threads_text(unsigned threads) { return fmt::format("{} thread{}", threads, threads == 1 ? "" : "s"); }

// The yardsticks' block: the peak of one thread and of the run's threads, and the two dgemms.
std::string yardsticks_text(const Benchmark& benchmark) {
  const Yardsticks& yardsticks = benchmark.yardsticks;
  const unsigned threads = benchmark.inputs.threads;
  const auto row = [&](const std::string& what, const std::optional<double>& gflops, const char* name = "") {
    const bool above = std::any_of(benchmark.above_peak.begin(), benchmark.above_peak.end(),
                                   [&](const RateAbovePeak& rate) { return rate.what == name; });
    return fmt::format("  {:<39}  {}\n", what,
                       gflops  ? fmt::format("{:7.1f}", *gflops)
                       : above ? std::string("above the peak: see below")
                               : std::string("not measured"));
  };
  const attention::MultiplyAddPeak& one = yardsticks.peak_one_thread;
  std::string text = "Yardsticks in GFLOP/s (a multiply-add counts 2), measured in this run\n";
  // A run in float holds its rates against twice this peak (row_peak_gflops): the line says it is the doubles'.
  const std::string peak = benchmark.inputs.in_float ? "multiply-add peak in doubles, " : "multiply-add peak, ";
  text += row(peak + "1 thread", benchmark.peak_gflops_one_thread);
  if (threads > 1) text += row(peak + threads_text(threads), benchmark.peak_gflops);
  text += row(fmt::format("dgemm {0} x {0}, Eigen, 1 thread", yardsticks.dgemm_n), yardsticks.eigen_dgemm_gflops,
              eigen_dgemm_name);
  if (benchmark.numpy.available) {
    text += row(fmt::format("dgemm {0} x {0}, NumPy, {1}", yardsticks.dgemm_n, threads_text(threads)),
                yardsticks.numpy_dgemm_gflops, numpy_dgemm_name);
  }
  const std::string how =
      one.instructions == "this build's packets"
          ? fmt::format("The peak: {} running sums of fused multiply-adds on Eigen's packets of {} doubles, this "
                        "build's vectors.",
                        attention::peak_chains, one.doubles)
          : fmt::format("The peak: {} running sums of fused multiply-adds with {} on {} doubles, chosen as the "
                        "program runs; this build's own vectors hold {} and reach {:.1f} on one thread.",
                        attention::peak_chains, one.instructions, one.doubles, one.build_doubles,
                        one.build_flops / 1e9);
  return text + wrapped(how);
}

std::string benchmark_text(const Benchmark& benchmark) {
  const BenchmarkInputs& inputs = benchmark.inputs;
  std::string text = program::processor_lines(benchmark.machine);
  text += wrapped(fmt::format("{}d = {}; {} for the streaming kernel and NumPy, one for the others; median of {} "
                              "repetitions [spread], in milliseconds.",
                              inputs.in_float ? "In float: the streaming kernel in float, NumPy in float32. " : "",
                              inputs.width, threads_text(inputs.threads), inputs.repeats));
  text += wrapped(tiles_text(inputs));
  text += "\n" + yardsticks_text(benchmark);
  text += fmt::format("\n{:>6}  {:<18}  {:<25}  {:>7}  {:>5}  {:>9}\n", "n", "method", "median [spread]", "GFLOP/s",
                      "%peak", "extra mem");
  for (const MethodRow& row : benchmark.rows) {
    const std::string memory = bytes_text(static_cast<double>(row.peak_extra_bytes));
    if (!row.skipped.empty()) {
      text += fmt::format("{:>6}  {:<18}  {:<25}  {:>7}  {:>5}  {:>9}\n", row.n, method_label(row.method), "skipped",
                          "", "", memory);
      continue;
    }
    const double peak = row_peak_gflops(benchmark, row);
    const std::string rate = row.gflops ? fmt::format("{:.1f}", *row.gflops) : std::string("> peak");
    const std::string share = row.gflops ? fmt::format("{:.0f}", 100 * *row.gflops / peak) : std::string("-");
    text += fmt::format("{:>6}  {:<18}  {:<25}  {:>7}  {:>5}  {:>9}\n", row.n, method_label(row.method),
                        milliseconds_text(row.time), rate, share, memory);
  }
  text += "\nGFLOP/s: the two products' multiply-adds (2 operations each; the causal\n"
          "variant counts only the unmasked half) over the median time; %peak: of\n"
          "the measured peak for the method's threads. Extra memory: beyond the\n"
          "inputs and the output, counted from the buffers each method allocates;\n"
          "NumPy's measured with tracemalloc. products only: not attention, the\n"
          "streaming kernel's two products alone on one thread: its one-thread\n"
          "ceiling.\n";
  if (inputs.in_float) {
    text += "In float the peak is twice the doubles' (the same instructions on\n"
            "twice as many numbers).\n";
  }
  if (!benchmark.above_peak.empty()) {
    text += "\n" + wrapped("Rates above the measured peak, not shown: a bug in the peak or in the count of "
                           "operations, not a result.");
    for (const RateAbovePeak& rate : benchmark.above_peak) {
      text += wrapped(fmt::format("  {}: {:.1f} GFLOP/s against a peak of {:.1f}", rate.what, rate.gflops,
                                  rate.peak_gflops),
                      "    ");
    }
  }
  for (const MethodRow& row : benchmark.rows) {
    if (!row.skipped.empty())
      text += wrapped(fmt::format("Skipped {} at n = {}: {}.", row.method, row.n, row.skipped), "  ");
  }
  const NumpyPeer& numpy = benchmark.numpy;
  text += numpy.available ? fmt::format("NumPy {} ({}), BLAS:\n  {}\n", clipped(numpy.numpy_version, 12),
                                        clipped(numpy.python, 40), clipped(numpy.blas, line_width - 2))
                          : wrapped(fmt::format("NumPy: not timed ({}).", numpy.reason), "  ");
  text += "\nGoals (reported, not asserted):\n";
  for (const Goal& goal : benchmark.goals) {
    text += wrapped(fmt::format("[{}] {}: {}.", goal.verdict, goal.goal, goal.detail), "    ");
  }
  text += "\n" + wrapped(benchmark.summary);
  return text;
}

}  // namespace

std::string tables(const Result& result) {
  return result.benchmark ? benchmark_text(*result.benchmark) : trace_text(*result.trace);
}

// ---------------------------------------------------------------------------
// The command line

namespace {
const std::vector<std::string> benchmark_flags = {"--d",      "--threads",  "--reps",     "--memory-limit",
                                                  "--python", "--no-numpy", "--precision"};

// The machine's physical memory in GB (10^9 bytes), the most --memory-limit allows.
double physical_memory_gb() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_bytes <= 0) return max_memory_limit_gb;
  return std::min(max_memory_limit_gb, static_cast<double>(pages) * static_cast<double>(page_bytes) / 1e9);
}

}  // namespace

Flags::Flags(program::CommandLine& command_line) : command_line_(command_line), attention_flags_(command_line, true) {
  command_line.option("--tile", key_tile_, fmt::format("trace: keys per tile (1 to {})", max_tile), "INTEGER");
  command_line.option("--query-tile", query_tile_,
                      fmt::format("trace: queries per tile (1 to {}; default: every query in one tile)", max_tile),
                      "INTEGER");
  command_line.option("--mask", mask_, "trace: none, or causal (each query sees the keys up to its own position)",
                      "none|causal");
  command_line.option(
      "--n", lengths_,
      fmt::format("benchmark instead of trace: the lengths n to time, separated by ',' (each 1 to {}, at most {})",
                  max_length, max_lengths),
      "LIST");
  command_line.option("--d", width_,
                      fmt::format("benchmark: the width d of queries, keys and values (1 to {})", max_width),
                      "INTEGER");
  command_line.option("--threads", threads_,
                      "benchmark: threads for the streaming kernel and for NumPy (1 to the number of processors this "
                      "process may run on)",
                      "INTEGER");
  command_line.option("--reps", repeats_,
                      fmt::format("benchmark: timed repetitions of each method at each n (1 to {})", max_repeats),
                      "INTEGER");
  command_line.option("--memory-limit", memory_limit_,
                      fmt::format("benchmark: skip, and say so, a method whose extra memory would exceed this many GB "
                                  "(10^9 bytes); above 0 and at most this machine's memory, {:.3g} GB (the default, "
                                  "4, is lowered to it)",
                                  physical_memory_gb()),
                      "GB");
  command_line.option("--python", python_, "benchmark: the Python with NumPy to time as the peer", "PATH");
  command_line.flag("--no-numpy", no_numpy_, "benchmark: do not time NumPy");
  command_line.option("--precision", precision_,
                      "benchmark: double (every method, NumPy in float64), or float (the streaming kernel in float, "
                      "NumPy in float32)",
                      "double|float");
  command_line.excludes("--no-numpy", {"--python"});
  for (const char* trace_flag : {"--q", "--k", "--v", "--tokens", "--tile", "--query-tile", "--mask"}) {
    command_line.excludes("--n", {trace_flag});
  }
}

// The flags as Inputs, or a UsageError naming the flag and what was expected.
Inputs Flags::read() const {
  Inputs inputs;
  if (!command_line_.given("--n")) {
    for (const std::string& flag : benchmark_flags) {
      if (command_line_.given(flag)) throw program::UsageError(flag + ": only with --n, which asks for the benchmark");
    }
    TraceInputs& trace = inputs.trace;
    trace.example = attention_flags_.read();
    // The streaming kernel sums e^(s - M) v over the keys (each factor at most 1) before it divides by L: the sum of
    // a column's magnitudes bounds that running sum, and must stay finite.
    const Eigen::RowVectorXd column_sums = trace.example.values.cwiseAbs().colwise().sum();
    for (Eigen::Index column = 0; column < column_sums.size(); ++column) {
      if (!std::isfinite(column_sums(column))) {
        throw program::UsageError(fmt::format(
            "--v: the entries of column {} add up past the largest double; the streaming kernel sums the values "
            "before it divides, so use smaller values",
            column + 1));
      }
    }
    const auto n = static_cast<std::uint64_t>(trace.example.queries.rows());
    const auto m = static_cast<std::uint64_t>(trace.example.keys.rows());
    if (n > max_trace_tokens || m > max_trace_tokens) {
      throw program::UsageError(
          fmt::format("--q, --k: {} queries and {} keys; the trace takes at most {} of each", n, m, max_trace_tokens));
    }
    if (mask_ != "none" && mask_ != "causal") {
      throw program::UsageError(fmt::format("--mask: '{}' is not a mask here; expected none or causal", mask_));
    }
    trace.range = mask_ == "causal" ? attention::KeyRange::causal : attention::KeyRange::all;
    if (trace.range == attention::KeyRange::causal && n != m) {
      throw program::UsageError(fmt::format("--mask: causal needs one query per key; --q has {} and --k {}",
                                            program::counted(n, "row", "rows"), program::counted(m, "row", "rows")));
    }
    trace.key_tile = static_cast<Eigen::Index>(program::parse_whole_number(key_tile_, "--tile", 1, max_tile));
    trace.query_tile =
        query_tile_.empty()
            ? static_cast<Eigen::Index>(n)
            : static_cast<Eigen::Index>(program::parse_whole_number(query_tile_, "--query-tile", 1, max_tile));
    return inputs;
  }

  BenchmarkInputs benchmark;
  for (const std::uint64_t n : program::parse_whole_numbers(lengths_, "--n", 1, max_length, max_lengths)) {
    benchmark.lengths.push_back(static_cast<std::size_t>(n));
  }
  std::sort(benchmark.lengths.begin(), benchmark.lengths.end());
  benchmark.lengths.erase(std::unique(benchmark.lengths.begin(), benchmark.lengths.end()), benchmark.lengths.end());
  benchmark.width = static_cast<std::size_t>(program::parse_whole_number(width_, "--d", 1, max_width));
  if (precision_ != "double" && precision_ != "float") {
    throw program::UsageError(
        fmt::format("--precision: '{}' is not a precision here; expected double or float", precision_));
  }
  benchmark.in_float = precision_ == "float";
#ifdef __EMSCRIPTEN__
  const unsigned hardware = 1;  // the page's WebAssembly module has no threads
  const char* why = "the page's WebAssembly module has no threads";
#else
  const unsigned hardware = program::usable_processors();
  const char* why = "the processors this process may run on";
#endif
  const std::uint64_t threads =
      program::parse_whole_number(threads_, "--threads", 1, std::numeric_limits<unsigned>::max());
  if (threads > hardware) {
    throw program::UsageError(fmt::format("--threads is {}; expected 1 to {} ({})", threads, hardware, why));
  }
  benchmark.threads = static_cast<unsigned>(threads);
  benchmark.repeats = static_cast<std::size_t>(program::parse_whole_number(repeats_, "--reps", 1, max_repeats));
  const double gigabytes = program::parse_real_number(memory_limit_, "--memory-limit");
  const double machine_gb = physical_memory_gb();
  if (!command_line_.given("--memory-limit")) {
    benchmark.memory_limit_bytes = std::min(gigabytes, machine_gb) * 1e9;
  } else if (!(gigabytes > 0.0) || gigabytes > machine_gb) {
    throw program::UsageError(
        fmt::format("--memory-limit is {}; expected a number of GB above 0 and at most {:.3g}, this machine's memory",
                    memory_limit_, machine_gb));
  } else {
    benchmark.memory_limit_bytes = gigabytes * 1e9;
  }
  if (!no_numpy_) {
    // The path goes onto a shell's command line: plain characters only.
    const bool plain = !python_.empty() && std::all_of(python_.begin(), python_.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-';
    });
    if (!plain) {
      throw program::UsageError("--python: expected a path of letters, digits, '/', '.', '_' and '-'");
    }
    // A path the reader typed that cannot run is refused before the timing, not reported after it as a peer not
    // timed (a name without '/' is looked up on PATH by the shell, when the peer starts).
    if (command_line_.given("--python") && python_.find('/') != std::string::npos &&
        access(python_.c_str(), X_OK) != 0) {
      throw program::UsageError(fmt::format("--python: {} is not a program that can be run", python_));
    }
    benchmark.python = python_;
  }
  inputs.benchmark = benchmark;
  return inputs;
}

namespace {

// What compute() reports on the progress line: the sweep's estimate before it starts and the progress line while it
// runs, where stderr is a terminal (nothing otherwise).
Progress progress_on(program::ProgressLine& line) {
  Progress progress;
  if (!line.shown()) return progress;
  progress.estimate = [](double seconds, std::size_t from_n) {
    std::cerr << fmt::format("This sweep will take about {} on this machine (estimated from one call of each "
                             "method at n = {}).\n",
                             program::duration_text(seconds), from_n);
  };
  progress.update = [&line](const ProgressReport& report) {
    line.update(fmt::format("n = {} ({} of {}), {}: {} so far{}", report.n, report.length_index + 1, report.lengths,
                            report.step, program::duration_text(report.seconds),
                            report.seconds_left ? ", about " + program::duration_text(*report.seconds_left) + " left"
                                                : std::string()));
  };
  return progress;
}

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: the toy sentence (cat, eat, fish) through the streaming
// kernel one key at a time, with the running maximum, the running sum and the
// output so far after every tile, and the output against the teaching
// version's. --q, --k, --v, --tokens, --tile, --query-tile and --mask change
// the example. With --n, a benchmark instead: the teaching version, each fast
// step and NumPy timed at each length n (--d, --threads, --reps,
// --memory-limit, --python, --no-numpy), with the memory each needs and the
// yardsticks measured in the same run. --json prints the same values as one
// JSON document.
//
// When stderr is a terminal, and nowhere otherwise: a sweep with a length of
// 4096 or more first says there about how long it will take, and while a
// benchmark runs a progress line shows the length, the repetition, the time so
// far and the time left (progress_on(), above). The page's entry shows neither.
// (The JSON holds the estimate either way.)
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "fast_attention",
    fmt::format("Chapter 12 of Attention, Compiled: attention without the n x n matrix. Traces the streaming kernel "
                "(tiles of keys, an online softmax) on a small example (--q and --k: at most {} rows each), or with "
                "--n times the teaching version, each fast step and NumPy on this machine. The full sweep of the book "
                "(--n 256,...,16384 --reps 5) takes several minutes; on a terminal it says how long before it starts.",
                max_trace_tokens),
    compute, to_json, tables, progress_on);

}  // namespace
}  // namespace fast_attention
