// Chapter 12: attention without the n × n matrix, as one computation with its
// front ends. See fast_attention.hpp for what each part does.
#include "fast_attention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#ifndef __EMSCRIPTEN__
#include <sys/wait.h>  // WIFEXITED and friends, for the Python child
#endif

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "attention/mulberry32.hpp"
#include "attention/random_weights.hpp"
#include "attention/stopwatch.hpp"
#include "attention/worker_threads.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/page_program.hpp"
#include "program/processors.hpp"
#include "program/real_number.hpp"
#include "program/table.hpp"
#include "program/timing_report.hpp"
#include "program/usage_error.hpp"

namespace fast_attention {
namespace {

using attention::Matrix;
using attention::RowMajorMatrix;

// Limits that keep a trace small enough to read and to draw.
constexpr std::uint64_t max_trace_tokens = 12;
constexpr std::uint64_t max_tile = 12;
// Limits of the benchmark.
constexpr std::uint64_t max_length = 65536;
constexpr std::size_t max_lengths = 12;
constexpr std::uint64_t max_width = 1024;
constexpr std::uint64_t max_repeats = 50;
constexpr double max_memory_limit_gb = 1024.0;
// Each timed repetition calls a method often enough to last at least this long.
constexpr double minimum_seconds = 0.01;
// The seed of the random queries, keys and values (chapter 2's generator).
constexpr std::uint32_t benchmark_seed = 12;
// The streaming kernel's tiles in the benchmark: the library's defaults.
const attention::StreamingOptions default_tiles{};

const char* range_name(attention::KeyRange range) { return range == attention::KeyRange::causal ? "causal" : "none"; }

// ---------------------------------------------------------------------------
// The trace

Trace traced(const TraceInputs& inputs) {
  const program::AttentionInputs& example = inputs.example;
  const Eigen::Index n = example.queries.rows();
  Trace trace;
  trace.inputs = inputs;
  std::vector<std::optional<double>> maximum(static_cast<std::size_t>(n)), sum(static_cast<std::size_t>(n));
  std::vector<std::optional<Eigen::RowVectorXd>> output(static_cast<std::size_t>(n));
  // [trace_observer]
  attention::StreamingOptions options;
  options.query_tile = inputs.query_tile;
  options.key_tile = inputs.key_tile;
  options.range = inputs.range;
  options.observer = [&](const attention::StreamingTileState& tile) {
    for (Eigen::Index i = 0; i < tile.maximum.size(); ++i) {
      const auto query = static_cast<std::size_t>(tile.first_query + i);
      maximum[query] = tile.maximum(i);
      sum[query] = tile.sum(i);
      output[query] = tile.sum(i) > 0.0 ? Eigen::RowVectorXd(tile.output.row(i) / tile.sum(i))
                                        : Eigen::RowVectorXd::Zero(tile.output.cols());
    }
    trace.steps.push_back({tile, maximum, sum, output});
  };
  trace.output = attention::streaming_attention(example.queries, example.keys, example.values, options);
  // [trace_observer]
  attention::AttentionOptions teaching;
  if (inputs.range == attention::KeyRange::causal) teaching.mask = attention::causal_mask(n);
  trace.teaching_output =
      attention::scaled_dot_product_attention(example.queries, example.keys, example.values, teaching).output;
  const double largest = std::max(trace.teaching_output.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  trace.largest_difference = (trace.output - trace.teaching_output).cwiseAbs().maxCoeff() / largest;

  // The tiles the kernel never visited: those wholly after every query of their query tile.
  const Eigen::Index m = example.keys.rows();
  for (Eigen::Index q0 = 0; q0 < n; q0 += inputs.query_tile) {
    for (Eigen::Index k0 = 0; k0 < m; k0 += inputs.key_tile) {
      const bool visited = std::any_of(trace.steps.begin(), trace.steps.end(), [&](const TraceStep& step) {
        return step.tile.first_query == q0 && step.tile.first_key == k0;
      });
      if (!visited) trace.skipped.emplace_back(q0 / inputs.query_tile, k0 / inputs.key_tile);
    }
  }
  return trace;
}

// ---------------------------------------------------------------------------
// The machine's peak

// [fma_peak]
// a·x + b as one fused instruction where the build may use one (the book's
// build, with -march=native, may); otherwise as a multiply and an add, the
// best such a build can do, since std::fma would be a slow library call there.
inline double multiply_add(double a, double x, double b) {
#if defined(__FMA__) || defined(__aarch64__)
  return std::fma(a, x, b);
#else
  return a * x + b;
#endif
}

// Many independent chains of a·x + b, so that every multiply-add unit has
// work on every cycle while each chain waits for its previous result. The
// compiler turns the inner loop into vector instructions.
constexpr std::size_t fma_chain_count = 128;

double fma_chains(std::size_t rounds, double factor, double term) {
  double accumulators[fma_chain_count];
  for (std::size_t j = 0; j < fma_chain_count; ++j) accumulators[j] = term * static_cast<double>(j);
  for (std::size_t round = 0; round < rounds; ++round) {
    for (double& accumulator : accumulators) accumulator = multiply_add(accumulator, factor, term);
  }
  double total = 0.0;
  for (const double accumulator : accumulators) total += accumulator;
  return total;
}
// [fma_peak]

// Floating-point operations per second (a multiply-add counts 2) with
// `threads` threads running the chains at once: the best of many short tries
// (a few milliseconds each), so that a moment when another program has the
// processor lowers some tries and not the result. Twenty tries, or fewer (five
// at least) once they have taken half a second: a build that checks every
// memory access (the sanitizer tests) runs each try 25 times slower, and its
// peak means nothing anyway.
double measured_peak(unsigned threads) {
  static volatile double factor = 0.999999, term = 1e-6;  // unknown to the compiler
  constexpr std::size_t rounds = 1000000;
  constexpr int most_tries = 20;
  constexpr int fewest_tries = 5;
  constexpr double budget_seconds = 0.5;
  double best = 0.0;
  double spent_seconds = 0.0;
  for (int attempt = 0; attempt < most_tries && (attempt < fewest_tries || spent_seconds < budget_seconds); ++attempt) {
    std::vector<double> results(threads);
    const auto start = std::chrono::steady_clock::now();
    attention::run_shares(threads, [&results](unsigned share) { results[share] = fma_chains(rounds, factor, term); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spent_seconds += seconds;
    static volatile double sink = 0.0;
    for (const double result : results) sink = sink + result;
    best = std::max(best, 2.0 * static_cast<double>(fma_chain_count * rounds * threads) / seconds);
  }
  return best;
}

// ---------------------------------------------------------------------------
// NumPy, in a Python subprocess

// The same formula in NumPy, as a NumPy user would write it, kept lean: one
// n × n matrix, worked on in place. It prints one line of JSON. (No single
// quote in it: it travels inside single quotes on the shell's command line.)
[[maybe_unused]] constexpr const char* numpy_script = R"(
import json, math, sys, time, tracemalloc
n, d, reps, minimum = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
import numpy as np
blas = sorted({line.split()[-1] for line in open("/proc/self/maps") if "blas" in line.lower() and len(line.split()) >= 6})
rng = np.random.default_rng(12)
q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
scale = 1.0 / math.sqrt(d)
def attention():
    s = (q * scale) @ k.T
    s -= s.max(axis=1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=1, keepdims=True)
    return s @ v
start = time.perf_counter(); attention(); once = max(time.perf_counter() - start, 1e-9)
tracemalloc.start(); out = attention(); peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
calls = max(1, math.ceil(minimum / once))
seconds = []
for _ in range(reps):
    start = time.perf_counter()
    for _ in range(calls):
        attention()
    seconds.append((time.perf_counter() - start) / calls)
print(json.dumps({"numpy": np.__version__, "blas": blas, "seconds": seconds, "peak_extra_bytes": peak - out.nbytes}))
)";

struct NumpyRun {
  std::vector<double> seconds;
  std::uint64_t peak_extra_bytes = 0;
};

// Runs the script for one length; fills `peer` the first time, or says why not.
std::optional<NumpyRun> run_numpy(const BenchmarkInputs& inputs, std::size_t n, NumpyPeer& peer) {
#ifdef __EMSCRIPTEN__
  (void)inputs;
  (void)n;
  peer.available = false;
  peer.reason = "the WebAssembly page cannot start a Python process";
  return std::nullopt;
#else
  const std::string threads = std::to_string(inputs.threads);
  const std::string command =
      fmt::format("OPENBLAS_NUM_THREADS={0} OMP_NUM_THREADS={0} MKL_NUM_THREADS={0} {1} -c '{2}' {3} {4} {5} {6} 2>&1",
                  threads, inputs.python, numpy_script, n, inputs.width, inputs.repeats, minimum_seconds);
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    peer.reason = "could not start " + inputs.python;
    return std::nullopt;
  }
  std::string text;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) text += buffer;
  const int status = pclose(pipe);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const std::size_t line_start = text.rfind('\n');
  const std::string last_line = line_start == std::string::npos ? text : text.substr(line_start + 1);
  if (status != 0) {
    // pclose() gives a wait status: the exit status is in its high byte, or a signal ended the process.
    const std::string ended = status == -1          ? "could not be waited for"
                              : WIFEXITED(status)   ? fmt::format("exited with status {}", WEXITSTATUS(status))
                              : WIFSIGNALED(status) ? fmt::format("was ended by signal {}", WTERMSIG(status))
                                                    : fmt::format("ended with wait status {}", status);
    peer.reason = fmt::format("{} {}: {}", inputs.python, ended, last_line);
    return std::nullopt;
  }
  try {
    const nlohmann::json answer = nlohmann::json::parse(last_line);
    NumpyRun run{answer.at("seconds").get<std::vector<double>>(), answer.at("peak_extra_bytes").get<std::uint64_t>()};
    peer.available = true;
    peer.python = inputs.python;
    peer.numpy_version = answer.at("numpy").get<std::string>();
    const auto blas = answer.at("blas").get<std::vector<std::string>>();
    peer.blas = blas.empty() ? "none found in the process's memory map" : blas.front();
    return run;
  } catch (const std::exception&) {
    peer.reason = fmt::format("{} printed no timings: {}", inputs.python, last_line);
    return std::nullopt;
  }
#endif
}

// ---------------------------------------------------------------------------
// The benchmark

// The streaming kernel's two products, tile by tile, and nothing else (no
// softmax): not attention, but the ceiling of the kernel's product rate. The
// keys and values are packed as the kernel packs them, into buffers kept
// between calls.
// [tile_products]
void tile_products(const Matrix& queries, const Matrix& keys, const Matrix& values, attention::StreamingBuffers& buffers,
                   RowMajorMatrix& query_rows, RowMajorMatrix& scores, RowMajorMatrix& output) {
  const Eigen::Index n = queries.rows(), m = keys.rows();
  const Eigen::Index query_tile = default_tiles.query_tile, key_tile = default_tiles.key_tile;
  attention::pack_key_tiles(keys, values, key_tile, buffers);
  for (Eigen::Index q0 = 0; q0 < n; q0 += query_tile) {
    const Eigen::Index rows = std::min(query_tile, n - q0);
    query_rows.topRows(rows) = queries.middleRows(q0, rows);
    output.middleRows(q0, rows).setZero();
    for (Eigen::Index k0 = 0; k0 < m; k0 += key_tile) {
      const Eigen::Index columns = std::min(key_tile, m - k0);
      const auto tile = static_cast<std::size_t>(k0 / key_tile);
      attention::tile_product(query_rows.topRows(rows), buffers.keys[tile], scores.topLeftCorner(rows, columns), false);
      attention::tile_product(scores.topLeftCorner(rows, columns), buffers.values[tile], output.middleRows(q0, rows), true);
    }
  }
}
// [tile_products]

struct Method {
  std::string name;
  unsigned threads;
  std::uint64_t extra_bytes;  // counted from the buffers it allocates
  double flops;
  std::function<const Matrix&()> run;  // returns its output
  bool compared;                       // its output should equal the teaching output
};

double difference_from(const Matrix& output, const Matrix& teaching) {
  const double largest = std::max(teaching.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  return (output - teaching).cwiseAbs().maxCoeff() / largest;
}

std::string bytes_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.3g} {}", bytes, units[unit]);
}

// The methods at one length, timed in turns, then NumPy.
std::vector<MethodRow> timed_at(const BenchmarkInputs& inputs, std::size_t length, NumpyPeer& peer) {
  const auto n = static_cast<Eigen::Index>(length), d = static_cast<Eigen::Index>(inputs.width);
  attention::Mulberry32 generator(benchmark_seed);
  const Matrix queries = attention::random_normal_matrix(generator, n, d, 1.0);
  const Matrix keys = attention::random_normal_matrix(generator, n, d, 1.0);
  const Matrix values = attention::random_normal_matrix(generator, n, d, 1.0);
  const auto nn = static_cast<std::uint64_t>(length) * length, nd = static_cast<std::uint64_t>(length) * inputs.width;
  const double products = 4.0 * static_cast<double>(nn) * static_cast<double>(inputs.width);
  const double causal_products = 4.0 * static_cast<double>(length) * static_cast<double>(length + 1) / 2.0 *
                                 static_cast<double>(inputs.width);

  attention::AttentionBuffers buffers;
  attention::StreamingBuffers streaming_buffers, products_buffers;
  Matrix teaching_output, streaming_output, eigen_products_output, causal_output;
  RowMajorMatrix products_queries(default_tiles.query_tile, d), products_scores(default_tiles.query_tile, default_tiles.key_tile);
  RowMajorMatrix products_output(n, d);
  Matrix products_first(1, 1);  // the products' first entry, which the timing reads as it reads every method's output
  attention::StreamingOptions streaming = default_tiles;
  streaming.threads = inputs.threads;
  attention::StreamingOptions eigen_products = streaming;
  eigen_products.packed_products = false;
  attention::StreamingOptions causal = streaming;
  causal.range = attention::KeyRange::causal;
  attention::StreamingOptions one_thread = default_tiles;
  const auto tiles_bytes = static_cast<std::uint64_t>(attention::streaming_extra_bytes(n, d, d, streaming));
  const auto eigen_tiles_bytes = static_cast<std::uint64_t>(attention::streaming_extra_bytes(n, d, d, eigen_products));
  const auto one_thread_tiles = static_cast<std::uint64_t>(attention::streaming_extra_bytes(n, d, d, one_thread));
  // [methods]
  const std::vector<Method> methods = {
      {"teaching", 1, 4 * nn * sizeof(double), products,  // scores, scaled, masked, weights: four n × n
       [&]() -> const Matrix& { return teaching_output = attention::scaled_dot_product_attention(queries, keys, values).output; },
       false},
      {"buffered", 1, nn * sizeof(double), products,  // one n × n buffer, reused
       [&]() -> const Matrix& {
         attention::buffered_attention(queries, keys, values, buffers, attention::KeyRange::all, false);
         return buffers.output;
       },
       true},
      {"buffered_vectorised_exp", 1, nn * sizeof(double), products,
       [&]() -> const Matrix& {
         attention::buffered_attention(queries, keys, values, buffers, attention::KeyRange::all, true);
         return buffers.output;
       },
       true},
      {"streaming_eigen_products", inputs.threads, eigen_tiles_bytes, products,  // a few tiles per thread
       [&]() -> const Matrix& {
         return eigen_products_output = attention::streaming_attention(queries, keys, values, eigen_products);
       },
       true},
      {"streaming", inputs.threads, tiles_bytes, products,  // and the keys and values packed, kept between calls
       [&]() -> const Matrix& {
         return streaming_output = attention::streaming_attention(queries, keys, values, streaming, streaming_buffers);
       },
       true},
      {"streaming_causal", inputs.threads, tiles_bytes, causal_products,
       [&]() -> const Matrix& {
         return causal_output = attention::streaming_attention(queries, keys, values, causal, streaming_buffers);
       },
       false},
      {"tile_products_only", 1, one_thread_tiles, products,
       [&]() -> const Matrix& {
         tile_products(queries, keys, values, products_buffers, products_queries, products_scores, products_output);
         products_first(0, 0) = products_output(0, 0);
         return products_first;  // not attention: nothing to compare
       },
       false},
  };
  // [methods]

  std::vector<MethodRow> rows;
  std::vector<std::size_t> calls;
  std::vector<std::size_t> timed;  // indices into methods
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const Method& method = methods[i];
    MethodRow row;
    row.n = length;
    row.width = inputs.width;
    row.threads = method.threads;
    row.method = method.name;
    row.multiply_add_flops = method.flops;
    row.peak_extra_bytes = method.extra_bytes;
    row.memory_how = "counted";
    if (static_cast<double>(method.extra_bytes) > inputs.memory_limit_bytes) {
      row.skipped = fmt::format("needs {} of extra memory, more than the limit of {} (--memory-limit)",
                                bytes_text(static_cast<double>(method.extra_bytes)), bytes_text(inputs.memory_limit_bytes));
    } else {
      // The untimed first call warms the caches and says how many calls make a repetition.
      const auto start = std::chrono::steady_clock::now();
      const Matrix& output = method.run();
      const double once = std::max(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1e-9);
      if (method.compared && teaching_output.size() > 0) row.difference = difference_from(output, teaching_output);
      calls.push_back(static_cast<std::size_t>(std::ceil(minimum_seconds / once)));
      timed.push_back(i);
    }
    rows.push_back(std::move(row));
  }
  // [timed_in_turns]
  for (std::size_t repeat = 0; repeat < inputs.repeats; ++repeat) {
    for (std::size_t t = 0; t < timed.size(); ++t) {
      const Method& method = methods[timed[t]];
      rows[timed[t]].samples.push_back(attention::seconds_per_call([&] { return method.run()(0, 0); }, calls[t]));
    }
  }
  // [timed_in_turns]
  for (const std::size_t i : timed) rows[i].time = attention::summarize_timings(rows[i].samples);

  MethodRow numpy;
  numpy.n = length;
  numpy.width = inputs.width;
  numpy.threads = inputs.threads;
  numpy.method = "numpy";
  numpy.multiply_add_flops = products;
  numpy.peak_extra_bytes = nn * sizeof(double) + 2 * static_cast<std::uint64_t>(length) * sizeof(double) + nd * sizeof(double);
  numpy.memory_how = "counted";
  if (!inputs.python.empty()) {
    if (static_cast<double>(numpy.peak_extra_bytes) > inputs.memory_limit_bytes) {
      numpy.skipped = fmt::format("needs about {} of extra memory, more than the limit of {} (--memory-limit)",
                                  bytes_text(static_cast<double>(numpy.peak_extra_bytes)),
                                  bytes_text(inputs.memory_limit_bytes));
      rows.push_back(std::move(numpy));
    } else if (const std::optional<NumpyRun> run = run_numpy(inputs, length, peer)) {
      numpy.samples = run->seconds;
      numpy.time = attention::summarize_timings(numpy.samples);
      numpy.peak_extra_bytes = run->peak_extra_bytes;
      numpy.memory_how = "measured (tracemalloc)";
      rows.push_back(std::move(numpy));
    }
  }
  return rows;
}

const MethodRow* find_row(const std::vector<MethodRow>& rows, std::size_t n, const std::string& method) {
  for (const MethodRow& row : rows) {
    if (row.n == n && row.method == method && row.skipped.empty() && !row.samples.empty()) return &row;
  }
  return nullptr;
}

double gflops(const MethodRow& row) { return row.multiply_add_flops / row.time.median / 1e9; }

// The memory goal's numbers, counted at n = 16384 whether or not that length was timed.
constexpr std::uint64_t memory_n = 16384;

double teaching_bytes_at(std::uint64_t n) { return 4.0 * static_cast<double>(n * n) * sizeof(double); }

// The streaming kernel's extra memory at n = memory_n: with its own products (the keys and values packed), or with
// Eigen's.
double streaming_bytes_for(const BenchmarkInputs& inputs, bool packed_products = true) {
  attention::StreamingOptions streaming = default_tiles;
  streaming.threads = inputs.threads;
  streaming.packed_products = packed_products;
  const auto n = static_cast<Eigen::Index>(memory_n), d = static_cast<Eigen::Index>(inputs.width);
  return static_cast<double>(attention::streaming_extra_bytes(n, d, d, streaming));
}

// The streaming kernel's four goals, judged on this run's numbers; none is asserted by a test.
std::vector<Goal> judged(const Benchmark& benchmark) {
  const std::vector<MethodRow>& rows = benchmark.rows;
  const std::vector<std::size_t>& lengths = benchmark.inputs.lengths;
  std::vector<Goal> goals;

  Goal numpy{"streaming_vs_numpy",
             fmt::format("the streaming kernel at least as fast as NumPy for n ≥ 1024, d = 64, {} thread{}",
                         benchmark.inputs.threads, benchmark.inputs.threads == 1 ? "" : "s"),
             std::nullopt, ""};
  std::vector<std::string> verdicts;
  bool all = true, any = false;
  for (const std::size_t n : lengths) {
    const MethodRow* ours = find_row(rows, n, "streaming");
    const MethodRow* theirs = find_row(rows, n, "numpy");
    if (n < 1024 || benchmark.inputs.width != 64 || ours == nullptr || theirs == nullptr) continue;
    any = true;
    const attention::TimedLength timed{n, ours->time, theirs->time};
    const attention::Faster faster = attention::faster_at(timed);
    all = all && attention::at_least_as_fast(timed);
    const double ratio = ours->time.median / theirs->time.median;
    verdicts.push_back(fmt::format("n = {}: {:.2f} times NumPy's time ({})", n, ratio,
                                   faster == attention::Faster::first    ? "faster"
                                   : faster == attention::Faster::second ? "slower"
                                   : ratio <= 1.0 ? "too close to call; the median no higher"
                                                  : "too close to call, but the median higher"));
  }
  if (any) numpy.met = all;
  numpy.detail = any ? fmt::format("{}", fmt::join(verdicts, "; "))
                     : "no length of at least 1024 at d = 64 timed against NumPy in this run";
  goals.push_back(numpy);

  Goal peak{"products_at_half_peak", "at least 50 % of the measured multiply-add peak in the kernel's matrix products",
            std::nullopt, ""};
  for (auto n = lengths.rbegin(); n != lengths.rend(); ++n) {
    const MethodRow* products = find_row(rows, *n, "tile_products_only");
    const MethodRow* streaming = find_row(rows, *n, "streaming");
    if (products == nullptr) continue;
    const double fraction = gflops(*products) / benchmark.peak_gflops_one_thread;
    peak.met = fraction >= 0.5;
    peak.detail = fmt::format("n = {}: the tiles' products alone at {:.0f} % of one thread's peak", *n, 100 * fraction);
    if (streaming != nullptr) {
      peak.detail += fmt::format(", the whole streaming kernel at {:.0f} % of the peak of its {} thread{}",
                                 100 * gflops(*streaming) / benchmark.peak_gflops, streaming->threads,
                                 streaming->threads == 1 ? "" : "s");
    }
    break;
  }
  if (!peak.met) peak.detail = "the tiles' products were not timed in this run";
  goals.push_back(peak);

  // Counted, not measured, so it can be stated for n = 16384 whether or not it was timed.
  const double streaming_bytes = streaming_bytes_for(benchmark.inputs);
  const double teaching_bytes = teaching_bytes_at(memory_n);
  goals.push_back({"memory_at_16384", "extra memory at n = 16384 at most 2 % of the teaching version's",
                   streaming_bytes / teaching_bytes <= 0.02,
                   fmt::format("counted: {} against {}, {:.2g} %", bytes_text(streaming_bytes), bytes_text(teaching_bytes),
                               100 * streaming_bytes / teaching_bytes)});

  Goal causal{"causal_half", "the causal variant close to half the unmasked time", std::nullopt, ""};
  for (auto n = lengths.rbegin(); n != lengths.rend(); ++n) {
    const MethodRow* masked = find_row(rows, *n, "streaming_causal");
    const MethodRow* unmasked = find_row(rows, *n, "streaming");
    if (masked == nullptr || unmasked == nullptr) continue;
    const double ratio = masked->time.median / unmasked->time.median;
    causal.met = ratio <= 0.6;
    causal.detail = fmt::format("n = {}: {:.2f} times the unmasked time (met at 0.6 or less)", *n, ratio);
    break;
  }
  if (!causal.met) causal.detail = "the causal variant was not timed in this run";
  goals.push_back(causal);
  return goals;
}

std::string summary_of(const Benchmark& benchmark) {
  if (!benchmark.numpy.available) return "NumPy was not timed in this run: " + benchmark.numpy.reason + ".";
  std::vector<std::size_t> faster, slower, too_close;
  for (const std::size_t n : benchmark.inputs.lengths) {
    const MethodRow* ours = find_row(benchmark.rows, n, "streaming");
    const MethodRow* theirs = find_row(benchmark.rows, n, "numpy");
    if (ours == nullptr || theirs == nullptr) continue;
    const attention::Faster verdict = attention::faster_at({n, ours->time, theirs->time});
    (verdict == attention::Faster::first ? faster : verdict == attention::Faster::second ? slower : too_close).push_back(n);
  }
  std::vector<std::string> parts;
  if (!faster.empty()) parts.push_back("faster than NumPy at " + program::lengths_text(faster));
  if (!slower.empty()) parts.push_back("slower than NumPy at " + program::lengths_text(slower));
  if (!too_close.empty()) parts.push_back("too close to NumPy to call at " + program::lengths_text(too_close));
  if (parts.empty()) return "The streaming kernel and NumPy were not both timed at any length.";
  std::string text = "The streaming kernel was ";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) text += i + 1 == parts.size() ? ", and " : ", ";
    text += parts[i];
  }
  return text + fmt::format(" ({} thread{}, d = {}).", benchmark.inputs.threads,
                            benchmark.inputs.threads == 1 ? "" : "s", benchmark.inputs.width);
}

Benchmark benchmarked(const BenchmarkInputs& inputs) {
  Benchmark benchmark;
  benchmark.inputs = inputs;
  benchmark.machine = attention::processor_name();
  benchmark.peak_gflops_one_thread = measured_peak(1) / 1e9;
  benchmark.peak_gflops = inputs.threads == 1 ? benchmark.peak_gflops_one_thread : measured_peak(inputs.threads) / 1e9;
  if (inputs.python.empty()) benchmark.numpy.reason = "--no-numpy was given";
  for (const std::size_t n : inputs.lengths) {
    for (MethodRow& row : timed_at(inputs, n, benchmark.numpy)) benchmark.rows.push_back(std::move(row));
  }
  if (!benchmark.numpy.available) {  // no NumPy row says anything, then
    std::erase_if(benchmark.rows, [](const MethodRow& row) { return row.method == "numpy" && row.samples.empty() && row.skipped.empty(); });
  }
  benchmark.goals = judged(benchmark);
  benchmark.summary = summary_of(benchmark);
  return benchmark;
}

}  // namespace

Result compute(const Inputs& inputs) {
  Result result;
  if (inputs.benchmark) {
    result.benchmark = benchmarked(*inputs.benchmark);
  } else {
    result.trace = traced(inputs.trace);
  }
  return result;
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

nlohmann::json row_json(const MethodRow& row, const Benchmark& benchmark) {
  nlohmann::json entry = {{"n", row.n},
                          {"d", row.width},
                          {"threads", row.threads},
                          {"method", row.method},
                          {"seconds_median", nullptr},
                          {"seconds_spread", nullptr},
                          {"seconds_samples", row.samples},
                          {"gflops", nullptr},
                          {"peak_fraction", nullptr},
                          {"peak_extra_bytes", row.peak_extra_bytes},
                          {"peak_extra_bytes_how", row.memory_how},
                          {"difference_from_teaching", row.difference ? nlohmann::json(*row.difference) : nlohmann::json()},
                          {"skipped", row.skipped.empty() ? nlohmann::json() : nlohmann::json(row.skipped)}};
  if (!row.samples.empty()) {
    const double rate = gflops(row);
    entry["seconds_median"] = row.time.median;
    entry["seconds_spread"] = {row.time.spread_low, row.time.spread_high};
    entry["gflops"] = rate;
    entry["peak_fraction"] = rate / (row.threads == 1 ? benchmark.peak_gflops_one_thread : benchmark.peak_gflops);
  }
  return entry;
}

// Ratios the prose reads, one entry per length: each method's median over
// the streaming kernel's (null where either was not timed).
nlohmann::json ratios_json(const Benchmark& benchmark) {
  nlohmann::json lengths = nlohmann::json::array();
  for (const std::size_t n : benchmark.inputs.lengths) {
    const MethodRow* streaming = find_row(benchmark.rows, n, "streaming");
    nlohmann::json entry = {{"n", n}};
    for (const char* method :
         {"teaching", "buffered", "buffered_vectorised_exp", "streaming_eigen_products", "streaming_causal", "numpy"}) {
      const MethodRow* row = find_row(benchmark.rows, n, method);
      entry[fmt::format("{}_over_streaming", method)] =
          row != nullptr && streaming != nullptr ? nlohmann::json(row->time.median / streaming->time.median)
                                                 : nlohmann::json();
    }
    const MethodRow* teaching = find_row(benchmark.rows, n, "teaching");
    const MethodRow* buffered = find_row(benchmark.rows, n, "buffered");
    const MethodRow* exp = find_row(benchmark.rows, n, "buffered_vectorised_exp");
    entry["teaching_over_buffered"] =
        teaching != nullptr && buffered != nullptr ? nlohmann::json(teaching->time.median / buffered->time.median)
                                                   : nlohmann::json();
    entry["buffered_over_vectorised_exp"] =
        buffered != nullptr && exp != nullptr ? nlohmann::json(buffered->time.median / exp->time.median) : nlohmann::json();
    const MethodRow* eigen_products = find_row(benchmark.rows, n, "streaming_eigen_products");
    entry["vectorised_exp_over_eigen_products"] =
        exp != nullptr && eigen_products != nullptr ? nlohmann::json(exp->time.median / eigen_products->time.median)
                                                    : nlohmann::json();
    const MethodRow* products = find_row(benchmark.rows, n, "tile_products_only");
    const MethodRow* numpy = find_row(benchmark.rows, n, "numpy");
    entry["streaming_gflops"] = streaming != nullptr ? nlohmann::json(gflops(*streaming)) : nlohmann::json();
    entry["streaming_peak_percent"] =
        streaming != nullptr ? nlohmann::json(100 * gflops(*streaming) / benchmark.peak_gflops) : nlohmann::json();
    entry["products_peak_percent"] =
        products != nullptr ? nlohmann::json(100 * gflops(*products) / benchmark.peak_gflops_one_thread)
                            : nlohmann::json();
    entry["numpy_gflops"] = numpy != nullptr ? nlohmann::json(gflops(*numpy)) : nlohmann::json();
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
                     {"met", goal.met ? nlohmann::json(*goal.met) : nlohmann::json()},
                     {"verdict", !goal.met ? "no data" : *goal.met ? "met" : "not met"},
                     {"detail", goal.detail}});
  }
  const nlohmann::json ratios = ratios_json(benchmark);
  const NumpyPeer& numpy = benchmark.numpy;
  nlohmann::json peer = {{"available", numpy.available}};
  peer["description"] = numpy.available ? fmt::format("NumPy {} on {}", numpy.numpy_version, numpy.blas)
                                         : "not timed: " + numpy.reason;
  if (numpy.available) {
    peer["python"] = numpy.python;
    peer["numpy_version"] = numpy.numpy_version;
    peer["blas"] = numpy.blas;
    peer["threads_variables"] = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"};
  } else {
    peer["reason"] = numpy.reason;
  }
  return {{"machine", benchmark.machine},
          {"clock", "std::chrono::steady_clock; NumPy: time.perf_counter"},
          {"n", inputs.lengths},
          {"d", inputs.width},
          {"threads", inputs.threads},
          {"reps", inputs.repeats},
          {"minimum_seconds_per_rep", minimum_seconds},
          {"memory_limit_bytes", inputs.memory_limit_bytes},
          {"peak_gflops", benchmark.peak_gflops},
          {"peak_gflops_one_thread", benchmark.peak_gflops_one_thread},
          {"tiles",
           {{"query_tile", default_tiles.query_tile},
            {"key_tile", default_tiles.key_tile},
            {"product_block_rows", attention::product_block_rows},
            {"product_strip_columns", attention::product_strip_columns}}},
          {"peak_extra_bytes_note",
           "counted from the buffers each method allocates (not measured from the allocator); NumPy's measured with "
           "Python's tracemalloc"},
          {"rows", rows},
          {"skipped", skipped},
          {"ratios", ratios},
          {"at_largest_n", ratios.back()},
          {"memory_at_16384", memory_json(benchmark)},
          {"numpy", peer},
          {"goals", goals},
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

std::string trace_text(const Trace& trace) {
  const TraceInputs& inputs = trace.inputs;
  const auto& queries = inputs.example.query_labels;
  const auto& keys = inputs.example.key_labels;
  std::string text = fmt::format(
      "Streaming attention, traced: keys in tiles of {}, queries in tiles of {},\n"
      "mask {}; scores scaled by 1/sqrt(d_k) = {}.\n",
      inputs.key_tile, inputs.query_tile, range_name(inputs.range),
      program::number_text(1.0 / std::sqrt(static_cast<double>(inputs.example.queries.cols()))));
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    const TraceStep& step = trace.steps[s];
    const attention::StreamingTileState& tile = step.tile;
    std::vector<std::string> key_names(keys.begin() + tile.first_key,
                                       keys.begin() + tile.first_key + tile.scores.cols());
    const std::string& first = queries[static_cast<std::size_t>(tile.first_query)];
    const std::string& last = queries[static_cast<std::size_t>(tile.first_query + tile.scores.rows() - 1)];
    text += fmt::format("\nTile {}: {}, {} {}\n", s + 1,
                        tile.scores.rows() == 1 ? "query " + first : fmt::format("queries {} to {}", first, last),
                        key_names.size() == 1 ? "key" : "keys", fmt::join(key_names, ", "));
    text += fmt::format("{:<8}  {:<24}  {:>8}  {:>8}  {:>8}  {}\n", "query", "scores", "M", "rescale", "L", "O / L");
    for (Eigen::Index i = 0; i < tile.scores.rows(); ++i) {
      const auto query = static_cast<std::size_t>(tile.first_query + i);
      std::vector<std::string> scores, output;
      for (Eigen::Index j = 0; j < tile.scores.cols(); ++j) scores.push_back(program::number_text(tile.scores(i, j)));
      for (Eigen::Index j = 0; j < step.output[query]->size(); ++j) {
        output.push_back(program::number_text((*step.output[query])(j)));
      }
      std::string line = fmt::format("{:<8}  {:<24}  {:>8}  {:>8}  {:>8}  ({})", queries[query],
                                     fmt::format("{}", fmt::join(scores, "  ")), optional_text(step.maximum[query]),
                                     program::number_text(tile.rescale(i)), optional_text(step.sum[query]),
                                     fmt::join(output, ", "));
      text += line + "\n";
    }
  }
  if (!trace.skipped.empty()) {
    std::vector<std::string> pairs;
    for (const auto& [q, k] : trace.skipped) pairs.push_back(fmt::format("({}, {})", q + 1, k + 1));
    text += fmt::format("\nSkipped (query tile, key tile), wholly masked: {}\n", fmt::join(pairs, ", "));
  }
  text += "\n" + program::table("Output, streaming (O / L after the last tile)", trace.output, queries,
                                program::numbered_labels("d", trace.output.cols()));
  text += "\n" + program::table("Output, teaching version (softmax(QK^T / sqrt(d_k)) V)", trace.teaching_output, queries,
                                program::numbered_labels("d", trace.output.cols()));
  text += fmt::format(
      "\nLargest difference, relative to the largest output entry: {:.3g}\n"
      "M: running maximum of the scores seen; L: running sum of e^(s - M);\n"
      "rescale: e^(M before - M after), applied to L and O before the tile is added.\n",
      trace.largest_difference);
  return text;
}

std::string milliseconds_text(const attention::TimingSummary& time) {
  return fmt::format("{:.4g} [{:.3g}-{:.3g}]", time.median * 1e3, time.spread_low * 1e3, time.spread_high * 1e3);
}

// @p text as lines of at most 78 characters, broken at spaces; lines after
// the first start with @p indent.
std::string wrapped(const std::string& text, const std::string& indent = "") {
  std::string lines, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > 78) {
      lines += line + '\n';
      line = indent;
    }
    line += (line.empty() || line == indent ? "" : " ") + word;
    start = end + 1;
  }
  return lines + line + '\n';
}

// The short names the table prints.
std::string method_label(const std::string& method) {
  if (method == "buffered_vectorised_exp") return "buffered, vec. exp";
  if (method == "streaming_eigen_products") return "streaming, Eigen";
  if (method == "streaming_causal") return "streaming, causal";
  if (method == "tile_products_only") return "products only";
  if (method == "numpy") return "NumPy";
  return method;
}

std::string benchmark_text(const Benchmark& benchmark) {
  const BenchmarkInputs& inputs = benchmark.inputs;
  std::string text = wrapped(fmt::format(
      "Timed on this machine ({}), d = {}, {} thread{} for the streaming kernel and NumPy, one for the others; "
      "median of {} repetitions [spread], in milliseconds.",
      benchmark.machine, inputs.width, inputs.threads, inputs.threads == 1 ? "" : "s", inputs.repeats));
  text += wrapped(fmt::format("Measured multiply-add peak: {:.1f} GFLOP/s with {} thread{}, {:.1f} with one.",
                              benchmark.peak_gflops, inputs.threads, inputs.threads == 1 ? "" : "s",
                              benchmark.peak_gflops_one_thread));
  text += fmt::format("\n{:>6}  {:<18}  {:<20}  {:>7}  {:>5}  {:>9}\n", "n", "method", "median [spread]", "GFLOP/s",
                      "%peak", "extra mem");
  for (const MethodRow& row : benchmark.rows) {
    const std::string memory = bytes_text(static_cast<double>(row.peak_extra_bytes));
    if (!row.skipped.empty()) {
      text += fmt::format("{:>6}  {:<18}  {:<20}  {:>7}  {:>5}  {:>9}\n", row.n, method_label(row.method), "skipped",
                          "", "", memory);
      continue;
    }
    const double rate = gflops(row);
    const double peak = row.threads == 1 ? benchmark.peak_gflops_one_thread : benchmark.peak_gflops;
    text += fmt::format("{:>6}  {:<18}  {:<20}  {:>7.1f}  {:>5.0f}  {:>9}\n", row.n, method_label(row.method),
                        milliseconds_text(row.time), rate, 100 * rate / peak, memory);
  }
  text += "\nGFLOP/s: the two products' multiply-adds (2 operations each; the causal\n"
          "variant counts only the unmasked half) over the median time; %peak: of\n"
          "the measured peak for the method's threads. Extra memory: beyond the\n"
          "inputs and the output, counted from the buffers each method allocates;\n"
          "NumPy's measured with tracemalloc. products only: not attention, the\n"
          "streaming kernel's two products alone, its ceiling.\n";
  for (const MethodRow& row : benchmark.rows) {
    if (!row.skipped.empty()) text += wrapped(fmt::format("Skipped {} at n = {}: {}.", row.method, row.n, row.skipped), "  ");
  }
  const NumpyPeer& numpy = benchmark.numpy;
  text += numpy.available
              ? fmt::format("NumPy {} ({}), BLAS:\n  {}\n", numpy.numpy_version, numpy.python, numpy.blas)
              : wrapped(fmt::format("NumPy: not timed ({}).", numpy.reason), "  ");
  text += "\nGoals (reported, not asserted):\n";
  for (const Goal& goal : benchmark.goals) {
    text += wrapped(fmt::format("[{}] {}: {}.", goal.met ? (*goal.met ? "met" : "not met") : "no data", goal.goal,
                                goal.detail),
                    "    ");
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
const std::vector<std::string> benchmark_flags = {"--d", "--threads", "--reps", "--memory-limit", "--python",
                                                  "--no-numpy"};
}  // namespace

Flags::Flags(program::CommandLine& command_line)
    : command_line_(command_line), attention_flags_(command_line, true) {
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
  command_line.option("--d", width_, fmt::format("benchmark: the width d of queries, keys and values (1 to {})", max_width),
                      "INTEGER");
  command_line.option("--threads", threads_,
                      "benchmark: threads for the streaming kernel and for NumPy (1 to the number of processors it may run on)",
                      "INTEGER");
  command_line.option("--reps", repeats_,
                      fmt::format("benchmark: timed repetitions of each method at each n (1 to {})", max_repeats),
                      "INTEGER");
  command_line.option("--memory-limit", memory_limit_,
                      "benchmark: skip, and say so, a method whose extra memory would exceed this many GB (10^9 bytes)",
                      "GB");
  command_line.option("--python", python_, "benchmark: the Python with NumPy to time as the peer", "PATH");
  command_line.flag("--no-numpy", no_numpy_, "benchmark: do not time NumPy");
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
    const auto n = static_cast<std::uint64_t>(trace.example.queries.rows());
    const auto m = static_cast<std::uint64_t>(trace.example.keys.rows());
    if (n > max_trace_tokens || m > max_trace_tokens) {
      throw program::UsageError(fmt::format("--q, --k: {} queries and {} keys; the trace takes at most {} of each",
                                            n, m, max_trace_tokens));
    }
    if (mask_ != "none" && mask_ != "causal") {
      throw program::UsageError(fmt::format("--mask: '{}' is not a mask here; expected none or causal", mask_));
    }
    trace.range = mask_ == "causal" ? attention::KeyRange::causal : attention::KeyRange::all;
    if (trace.range == attention::KeyRange::causal && n != m) {
      throw program::UsageError(
          fmt::format("--mask: causal needs one query per key; --q has {} rows and --k {}", n, m));
    }
    trace.key_tile = static_cast<Eigen::Index>(program::parse_whole_number(key_tile_, "--tile", 1, max_tile));
    trace.query_tile =
        query_tile_.empty() ? static_cast<Eigen::Index>(n)
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
#ifdef __EMSCRIPTEN__
  const unsigned hardware = 1;  // the page's WebAssembly module has no threads
  const char* why = "the page's WebAssembly module has no threads";
#else
  const unsigned hardware = program::usable_processors();
  const char* why = "the processors this program may run on";
#endif
  const std::uint64_t threads = program::parse_whole_number(threads_, "--threads", 1, std::numeric_limits<unsigned>::max());
  if (threads > hardware) {
    throw program::UsageError(fmt::format("--threads is {}; expected 1 to {} ({})", threads, hardware, why));
  }
  benchmark.threads = static_cast<unsigned>(threads);
  benchmark.repeats = static_cast<std::size_t>(program::parse_whole_number(repeats_, "--reps", 1, max_repeats));
  const double gigabytes = program::parse_real_number(memory_limit_, "--memory-limit");
  if (!(gigabytes > 0.0) || gigabytes > max_memory_limit_gb) {
    throw program::UsageError(
        fmt::format("--memory-limit is {}; expected a number of GB above 0 and at most {}", memory_limit_, max_memory_limit_gb));
  }
  benchmark.memory_limit_bytes = gigabytes * 1e9;
  if (!no_numpy_) {
    // The path goes onto a shell's command line: plain characters only.
    const bool plain = !python_.empty() && std::all_of(python_.begin(), python_.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-';
    });
    if (!plain) {
      throw program::UsageError("--python: expected a path of letters, digits, '/', '.', '_' and '-'");
    }
    benchmark.python = python_;
  }
  inputs.benchmark = benchmark;
  return inputs;
}

namespace {

// The page's way in: the same flags and checks, the JSON --json prints.
[[maybe_unused]] const bool registered_for_the_page =
    program::register_chapter_for_page<Flags>("fast_attention", compute, to_json);

}  // namespace
}  // namespace fast_attention
