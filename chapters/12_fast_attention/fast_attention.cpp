// Chapter 12: attention without the n × n matrix: the trace of the streaming kernel and the benchmark. What a
// benchmark's rows add up to and the front ends (the JSON, the tables, the flags, the page's entry) are in
// fast_attention_output.cpp; fast_attention.hpp says what each part does.
#include "fast_attention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>
#ifndef __EMSCRIPTEN__
#include <sys/socket.h>
#include <sys/wait.h>
#endif

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "attention/memory_checks.hpp"
#include "attention/mulberry32.hpp"
#include "attention/multiply_add_peak.hpp"
#include "attention/product_workspace.hpp"
#include "attention/random_weights.hpp"
#include "attention/stopwatch.hpp"
#include "attention/tile_product.hpp"
#include "attention/tile_shape.hpp"
#include "attention/timing_comparison.hpp"
#include "program/usage_error.hpp"

namespace fast_attention {

// Shared with the front ends (fast_attention.hpp says what each is).

const attention::CacheSizes& machine_caches() {
  static const attention::CacheSizes caches = attention::find_cache_sizes();
  return caches;
}

attention::TileShape tile_shape_for(const BenchmarkInputs& inputs) {
  const auto d = static_cast<Eigen::Index>(inputs.width);
  return inputs.in_float ? attention::tile_shape_for_this_machine<float>(machine_caches(), d, d)
                         : attention::tile_shape_for_this_machine<double>(machine_caches(), d, d);
}

attention::StreamingOptions tiles_for(const BenchmarkInputs& inputs) {
  const attention::TileShape shape = tile_shape_for(inputs);
  attention::StreamingOptions options;
  options.query_tile = shape.query_tile;
  options.key_tile = shape.key_tile;
  options.product = shape.product;
  return options;
}

PeerNames names_for(bool in_float) {
  return in_float ? PeerNames{float_streaming, float_products, float_numpy}
                  : PeerNames{"streaming", "tile_products_only", "numpy"};
}

std::string bytes_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  // 999.5 or more would print as 1e+03 to three significant digits: the next unit up says it as 0.977 or more.
  while (bytes >= 999.5 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.3g} {}", bytes, units[unit]);
}

namespace {

using attention::Matrix;
using attention::RowMajorMatrix;

// The seed of the random queries, keys and values (chapter 2's generator).
constexpr std::uint32_t benchmark_seed = 12;

// ---------------------------------------------------------------------------
// The trace

Trace traced(const TraceInputs& inputs) {
  const program::AttentionInputs& example = inputs.example;
  const Eigen::Index n = example.queries.rows();
  Trace trace;
  trace.inputs = inputs;
  std::vector<std::optional<double>> maximum(static_cast<std::size_t>(n)), sum(static_cast<std::size_t>(n));
  std::vector<std::optional<Eigen::RowVectorXd>> output(static_cast<std::size_t>(n));
  // clang-format off
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
  // clang-format on
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
// The yardsticks

// The side of the square matrices of the dgemm yardstick: large enough for a
// good matrix library to come close to its best rate, small enough to take a
// few tens of milliseconds. (A build that checks every memory access, the
// sanitizer tests', runs it a hundred times slower and its rate means
// nothing: there, a small one.)
#ifdef ATTENTION_CHECKS_MEMORY
constexpr Eigen::Index dgemm_n = 128;
#else
constexpr Eigen::Index dgemm_n = 1024;
#endif

// The best rate of tries of a dgemm_n × dgemm_n product through Eigen (one
// thread: this build does not give Eigen threads of its own): five tries, or
// fewer (two at least) once they have taken 0.15 s.
double eigen_dgemm_gflops() {
  attention::Mulberry32 generator(benchmark_seed);
  const Matrix a = attention::random_normal_matrix(generator, dgemm_n, dgemm_n, 1.0);
  const Matrix b = attention::random_normal_matrix(generator, dgemm_n, dgemm_n, 1.0);
  Matrix c(dgemm_n, dgemm_n);
  c.noalias() = a * b;  // untimed: warms the caches
  double best = 0.0, spent = 0.0;
  for (int attempt = 0; attempt < 5 && (attempt < 2 || spent < 0.15); ++attempt) {
    const double seconds = attention::seconds_per_call(
        [&] {
          c.noalias() = a * b;
          return c(0, 0);
        },
        1);
    spent += seconds;
    best = std::max(best, 2.0 * std::pow(static_cast<double>(dgemm_n), 3) / seconds / 1e9);
  }
  return best;
}

// The peak of `threads` threads. BOOK_PEAK_GFLOPS, if set, replaces the
// measured rate: the tests set it low to see a rate above the peak reported.
attention::MultiplyAddPeak peak_of(unsigned threads) {
  attention::MultiplyAddPeak peak = attention::measure_multiply_add_peak(threads);
  if (const char* fake = std::getenv("BOOK_PEAK_GFLOPS"); fake != nullptr && *fake != '\0') {
    peak.flops = std::strtod(fake, nullptr) * 1e9;
  }
  return peak;
}

// ---------------------------------------------------------------------------
// NumPy, in a Python subprocess

// The same formula in NumPy, as a NumPy user would write it, kept lean: one
// n × n matrix, worked on in place (none for n = 0). First, where dgemm_n is
// not 0, the best of a few tries of a dgemm_n × dgemm_n matrix product: the
// dgemm yardstick, in the same process. It prints one line of JSON when it is
// ready, then times one repetition for each line it reads and prints its
// seconds per call, so that NumPy takes its turns with the other methods.
// In float32 (--precision float) every array is float32, the scale too, so
// that no step widens to float64; the script prints the dtype of the result.
// (No single quote in it: it travels inside single quotes on a shell's
// command line.)
[[maybe_unused]] constexpr const char* numpy_script = R"(
import json, math, sys, time, tracemalloc
n, d, minimum, dgemm_n = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
import numpy as np
dtype = np.dtype(sys.argv[5])
blas = sorted({line.split()[-1] for line in open("/proc/self/maps") if "blas" in line.lower() and len(line.split()) >= 6})
answer = {"numpy": np.__version__, "blas": blas}
rng = np.random.default_rng(12)
if dgemm_n > 0:
    a, b = rng.standard_normal((dgemm_n, dgemm_n)), rng.standard_normal((dgemm_n, dgemm_n))
    c = a @ b
    best, spent, tries = math.inf, 0.0, 0
    while tries < 5 and (tries < 2 or spent < 0.15):
        start = time.perf_counter(); np.matmul(a, b, out=c); seconds = time.perf_counter() - start
        best, spent, tries = min(best, seconds), spent + seconds, tries + 1
    answer["dgemm_seconds"] = best
    del a, b, c
if n > 0:
    q, k, v = (rng.standard_normal((n, d), dtype=dtype) for _ in range(3))
    scale = dtype.type(1.0 / math.sqrt(d))
    def attention():
        s = (q * scale) @ k.T
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        return s @ v
    start = time.perf_counter(); attention(); once = max(time.perf_counter() - start, 1e-9)
    tracemalloc.start(); out = attention(); peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
    calls = max(1, math.ceil(minimum / once))
    answer["peak_extra_bytes"] = peak - out.nbytes
    answer["dtype"] = str(out.dtype)
print(json.dumps(answer), flush=True)
for _ in sys.stdin:
    start = time.perf_counter()
    for _ in range(calls):
        attention()
    print((time.perf_counter() - start) / calls, flush=True)
)";

#ifdef __EMSCRIPTEN__
// The page cannot start a process: there NumPy never runs, and says why.
class NumpyProcess {
 public:
  NumpyProcess(const BenchmarkInputs&, std::size_t, bool) {}
  const std::string& reason() const { return reason_; }
  const nlohmann::json& ready() const { return ready_; }
  std::optional<double> repetition() { return std::nullopt; }

 private:
  std::string reason_ = "the WebAssembly page cannot start a Python process";
  nlohmann::json ready_;
};
#else
// NumPy in a Python process of its own for one length: started and ready
// (warmed up, its memory measured, the dgemm yardstick timed where asked for),
// then asked for one repetition at a time. Where it cannot run, reason() says
// why.
class NumpyProcess {
 public:
  NumpyProcess(const BenchmarkInputs& inputs, std::size_t n, bool dgemm) : python_(inputs.python) {
    const std::string command = fmt::format(
        "OPENBLAS_NUM_THREADS={0} OMP_NUM_THREADS={0} MKL_NUM_THREADS={0} exec {1} -c '{2}' {3} {4} {5} {6} {7}",
        inputs.threads, inputs.python, numpy_script, n, inputs.width, minimum_seconds, dgemm ? dgemm_n : 0,
        inputs.in_float ? "float32" : "float64");
    // Its input is a socket, not a pipe: a write to it after it died fails (MSG_NOSIGNAL) instead of ending this
    // program with SIGPIPE. Its output and its errors come back through one pipe.
    int to_child[2], from_child[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, to_child) != 0) {
      reason_ = "could not start " + python_;
      return;
    }
    if (pipe(from_child) != 0) {
      close(to_child[0]);
      close(to_child[1]);
      reason_ = "could not start " + python_;
      return;
    }
    child_ = fork();
    if (child_ == 0) {  // the child: a shell that starts Python
      dup2(to_child[0], STDIN_FILENO);
      dup2(from_child[1], STDOUT_FILENO);
      dup2(from_child[1], STDERR_FILENO);
      for (const int end : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(end);
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    if (child_ < 0) {
      close(to_child[1]);
      close(from_child[0]);
      reason_ = "could not start " + python_;
      return;
    }
    to_ = to_child[1];
    from_ = fdopen(from_child[0], "r");
    if (from_ == nullptr) {
      close(from_child[0]);
      failed("could not be read");
      return;
    }
    // The first line that is a JSON object says it is ready; anything before it is a warning.
    std::string line;
    while (read_line(line)) {
      try {
        ready_ = nlohmann::json::parse(line);
        if (ready_.is_object() && ready_.contains("numpy")) return;
      } catch (const nlohmann::json::exception&) {
      }
      last_line_ = line;
    }
    failed("printed no timings");
  }
  NumpyProcess(const NumpyProcess&) = delete;
  NumpyProcess& operator=(const NumpyProcess&) = delete;
  ~NumpyProcess() { finish(); }

  // Empty while it runs; otherwise why it does not.
  const std::string& reason() const { return reason_; }
  // Its first line: the NumPy version, the BLAS library, the memory, the dgemm's seconds.
  const nlohmann::json& ready() const { return ready_; }

  // One repetition: seconds per call, or empty if the process failed (then reason() says why).
  std::optional<double> repetition() {
    std::string line;
    if (reason_.empty() && send(to_, "\n", 1, MSG_NOSIGNAL) == 1 && read_line(line)) {
      try {
        return std::stod(line);
      } catch (const std::exception&) {
        last_line_ = line;
      }
    }
    failed("stopped while it was timed");
    return std::nullopt;
  }

 private:
  bool read_line(std::string& line) {
    line.clear();
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, from_) != nullptr) {
      line += buffer;
      if (line.back() == '\n') break;
    }
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    return !line.empty() || !std::feof(from_);
  }

  // Ends the process and says why it failed: its exit status or signal, and the last line it printed.
  void failed(const char* what) {
    if (!reason_.empty()) return;
    const int status = finish();
    if (status != -1 && WIFSIGNALED(status)) {
      reason_ = fmt::format("{} was ended by signal {}: {}", python_, WTERMSIG(status), last_line_);
    } else if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      reason_ = fmt::format("{} exited with status {}: {}", python_, WEXITSTATUS(status), last_line_);
    } else {
      reason_ = fmt::format("{} {}: {}", python_, what, last_line_);
    }
  }

  // Closes its input (it then exits) and waits for it; returns its wait status, or -1.
  int finish() {
    int status = -1;
    if (to_ >= 0) close(to_);
    to_ = -1;
    if (from_ != nullptr) {
      std::string rest;
      while (read_line(rest)) {
        if (!rest.empty()) last_line_ = rest;
      }
      std::fclose(from_);
    }
    from_ = nullptr;
    if (child_ > 0 && waitpid(child_, &status, 0) != child_) status = -1;
    child_ = -1;
    return status;
  }

  std::string python_;
  std::string reason_;
  std::string last_line_;
  nlohmann::json ready_;
  int child_ = -1;
  int to_ = -1;  // its input
  std::FILE* from_ = nullptr;
};
#endif

// What NumPy's process says when it is ready, into `peer`; the dgemm yardstick in GFLOP/s where it was timed.
std::optional<double> describe_numpy(const NumpyProcess& process, const std::string& python, NumpyPeer& peer) {
  if (!process.reason().empty()) {
    peer.reason = process.reason();
    return std::nullopt;
  }
  const nlohmann::json& ready = process.ready();
  peer.available = true;
  peer.python = python;
  peer.numpy_version = ready.value("numpy", std::string("unknown"));
  const auto blas = ready.value("blas", std::vector<std::string>{});
  peer.blas = blas.empty() ? "none found in the process's memory map" : blas.front();
  if (ready.contains("dtype")) peer.dtype = ready.at("dtype").get<std::string>();
  if (!ready.contains("dgemm_seconds")) return std::nullopt;
  return 2.0 * std::pow(static_cast<double>(dgemm_n), 3) / ready.at("dgemm_seconds").get<double>() / 1e9;
}

// ---------------------------------------------------------------------------
// The benchmark

// The streaming kernel's two products, tile by tile, and nothing else (no
// softmax), on one thread: not attention, but the one-thread ceiling of the kernel's product rate. The
// keys and values are packed as the kernel packs them, into buffers kept
// between calls.
// clang-format off
// [tile_products]
template <typename Scalar>
void tile_products(const attention::MatrixOf<Scalar>& queries, const attention::MatrixOf<Scalar>& keys,
                   const attention::MatrixOf<Scalar>& values, const attention::StreamingOptions& tiles,
                   attention::StreamingBuffers<Scalar>& buffers, attention::RowMajorMatrixOf<Scalar>& query_rows,
                   attention::RowMajorMatrixOf<Scalar>& scores, attention::RowMajorMatrixOf<Scalar>& output) {
  const Eigen::Index n = queries.rows(), m = keys.rows();
  const Eigen::Index query_tile = tiles.query_tile, key_tile = tiles.key_tile;
  attention::pack_key_tiles(keys, values, key_tile, buffers, *tiles.product);
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
// clang-format on

struct Method {
  std::string name;
  unsigned threads;
  std::uint64_t extra_bytes;  // counted from the buffers it allocates
  double flops;
  std::function<const Matrix&()> run;         // returns its output (a method in float: its first entry)
  bool compared;                              // its output should equal the reference output
  std::function<Matrix()> float_output = {};  // a method in float: its last output, in double
};

double difference_from(const Matrix& output, const Matrix& teaching) {
  const double largest = std::max(teaching.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  return (output - teaching).cwiseAbs().maxCoeff() / largest;
}

// Each method's extra memory at length n, counted from the buffers it allocates (Eigen's products' packing buffers
// included: attention::product_workspace_bytes()), in the order MethodsAt times them
// (teaching, buffered, buffered with the vectorised exponential, streaming with Eigen's products, streaming, causal,
// the products alone; in float: streaming, the products alone); then NumPy's, estimated (its n × n matrix, the row
// maxima and sums, and the output's temporary).
std::vector<std::uint64_t> extra_bytes_at(const BenchmarkInputs& inputs, std::size_t length) {
  const auto n = static_cast<Eigen::Index>(length), d = static_cast<Eigen::Index>(inputs.width);
  const auto nn = static_cast<std::uint64_t>(length) * length, nd = static_cast<std::uint64_t>(length) * inputs.width;
  const attention::StreamingOptions tiles = tiles_for(inputs);
  attention::StreamingOptions streaming = tiles;
  streaming.threads = inputs.threads;
  if (inputs.in_float) {
    return {static_cast<std::uint64_t>(attention::streaming_extra_bytes<float>(n, d, d, streaming)),
            static_cast<std::uint64_t>(attention::streaming_extra_bytes<float>(n, d, d, tiles)),
            (nn + 2 * static_cast<std::uint64_t>(length) + nd) * sizeof(float)};
  }
  attention::StreamingOptions eigen_products = streaming;
  eigen_products.packed_products = false;
  const auto streaming_bytes = static_cast<std::uint64_t>(attention::streaming_extra_bytes(n, d, d, streaming));
  // Eigen's products take packing buffers while they run: the weights times V while the four steps are kept; the
  // larger of the two products for the buffered kernel (its scores are row-major, so their product is transposed).
  const auto last_product = static_cast<std::uint64_t>(attention::product_workspace_bytes(n, n, d));
  const auto larger_product =
      std::max(static_cast<std::uint64_t>(attention::product_workspace_bytes(n, d, n)), last_product);
  return {4 * nn * sizeof(double) + last_product,  // scores, scaled, masked, weights: four n × n
          nn * sizeof(double) + larger_product,    // one n × n buffer, reused
          nn * sizeof(double) + larger_product,
          // A few tiles per thread
          static_cast<std::uint64_t>(attention::streaming_extra_bytes(n, d, d, eigen_products)),
          streaming_bytes,  // and the keys and values packed, kept between calls
          streaming_bytes, static_cast<std::uint64_t>(attention::streaming_extra_bytes(n, d, d, tiles)),
          nn * sizeof(double) + 2 * static_cast<std::uint64_t>(length) * sizeof(double) + nd * sizeof(double)};
}

// The methods at one length, with their inputs, buffers and outputs, which live as long as it does.
class MethodsAt {
 public:
  MethodsAt(const BenchmarkInputs& inputs, std::size_t length) {
    const auto n = static_cast<Eigen::Index>(length), d = static_cast<Eigen::Index>(inputs.width);
    attention::Mulberry32 generator(benchmark_seed);
    queries_ = attention::random_normal_matrix(generator, n, d, 1.0);
    keys_ = attention::random_normal_matrix(generator, n, d, 1.0);
    values_ = attention::random_normal_matrix(generator, n, d, 1.0);
    const double products = 4.0 * static_cast<double>(length) * static_cast<double>(length) * static_cast<double>(d);
    const double causal_products =
        4.0 * static_cast<double>(length) * static_cast<double>(length + 1) / 2.0 * static_cast<double>(d);
    tiles_ = tiles_for(inputs);
    streaming_ = tiles_;
    streaming_.threads = inputs.threads;
    eigen_products_ = streaming_;
    eigen_products_.packed_products = false;
    causal_ = streaming_;
    causal_.range = attention::KeyRange::causal;
    const std::vector<std::uint64_t> bytes = extra_bytes_at(inputs, length);
    if (inputs.in_float) {
      in_float(inputs, bytes, products);
      return;
    }
    products_queries_.resize(tiles_.query_tile, d);
    products_scores_.resize(tiles_.query_tile, tiles_.key_tile);
    products_output_.resize(n, d);
    // clang-format off
    // [methods]
    methods_ = {
        {"teaching", 1, bytes[0], products,
         [this]() -> const Matrix& {
           return teaching_output_ = attention::scaled_dot_product_attention(queries_, keys_, values_).output;
         },
         false},
        {"buffered", 1, bytes[1], products,
         [this]() -> const Matrix& {
           attention::buffered_attention(queries_, keys_, values_, buffers_, attention::KeyRange::all, false);
           return buffers_.output;
         },
         true},
        {"buffered_vectorised_exp", 1, bytes[2], products,
         [this]() -> const Matrix& {
           attention::buffered_attention(queries_, keys_, values_, buffers_, attention::KeyRange::all, true);
           return buffers_.output;
         },
         true},
        {"streaming_eigen_products", inputs.threads, bytes[3], products,
         [this]() -> const Matrix& {
           return eigen_products_output_ = attention::streaming_attention(queries_, keys_, values_, eigen_products_);
         },
         true},
        {"streaming", inputs.threads, bytes[4], products,
         [this]() -> const Matrix& {
           return streaming_output_ =
                      attention::streaming_attention(queries_, keys_, values_, streaming_, streaming_buffers_);
         },
         true},
        {"streaming_causal", inputs.threads, bytes[5], causal_products,
         [this]() -> const Matrix& {
           return causal_output_ = attention::streaming_attention(queries_, keys_, values_, causal_, streaming_buffers_);
         },
         false},
        {"tile_products_only", 1, bytes[6], products,
         [this]() -> const Matrix& {
           tile_products(queries_, keys_, values_, tiles_, products_buffers_, products_queries_, products_scores_,
                         products_output_);
           products_first_(0, 0) = products_output_(0, 0);
           return products_first_;  // not attention: nothing to compare
         },
         false},
    };
    // [methods]
    // clang-format on
  }
  MethodsAt(const MethodsAt&) = delete;
  MethodsAt& operator=(const MethodsAt&) = delete;

  const std::vector<Method>& methods() const { return methods_; }
  // What the methods' outputs are held against: the teaching version's output, or in float the double streaming
  // kernel's (itself within 1e-12 of the teaching one: the library's tests).
  const Matrix& reference_output() const { return in_float_ ? reference_output_ : teaching_output_; }
  const char* reference_name() const { return in_float_ ? "the double streaming kernel" : "teaching"; }

 private:
  // The methods of a run in float: the streaming kernel and its products alone, on the same numbers rounded to
  // float. The reference is computed once, untimed, in double.
  void in_float(const BenchmarkInputs& inputs, const std::vector<std::uint64_t>& bytes, double products) {
    in_float_ = true;
    float_queries_ = queries_.cast<float>();
    float_keys_ = keys_.cast<float>();
    float_values_ = values_.cast<float>();
    reference_output_ = attention::streaming_attention(queries_, keys_, values_, streaming_, streaming_buffers_);
    const Eigen::Index n = queries_.rows(), d = queries_.cols();
    float_products_queries_.resize(tiles_.query_tile, d);
    float_products_scores_.resize(tiles_.query_tile, tiles_.key_tile);
    float_products_output_.resize(n, d);
    methods_ = {
        {float_streaming, inputs.threads, bytes[0], products,
         [this]() -> const Matrix& {
           float_output_ =
               attention::streaming_attention(float_queries_, float_keys_, float_values_, streaming_, float_buffers_);
           products_first_(0, 0) = float_output_(0, 0);
           return products_first_;
         },
         true, [this] { return Matrix(float_output_.cast<double>()); }},
        {float_products, 1, bytes[1], products,
         [this]() -> const Matrix& {
           tile_products(float_queries_, float_keys_, float_values_, tiles_, float_products_buffers_,
                         float_products_queries_, float_products_scores_, float_products_output_);
           products_first_(0, 0) = float_products_output_(0, 0);
           return products_first_;
         },
         false},
    };
  }

  bool in_float_ = false;
  Matrix reference_output_;
  attention::MatrixOf<float> float_queries_, float_keys_, float_values_, float_output_;
  attention::StreamingBuffers<float> float_buffers_, float_products_buffers_;
  attention::RowMajorMatrixOf<float> float_products_queries_, float_products_scores_, float_products_output_;
  Matrix queries_, keys_, values_;
  attention::AttentionBuffers<double> buffers_;
  attention::StreamingBuffers<double> streaming_buffers_, products_buffers_;
  Matrix teaching_output_, eigen_products_output_, streaming_output_, causal_output_;
  RowMajorMatrix products_queries_, products_scores_, products_output_;
  Matrix products_first_ = Matrix::Zero(1, 1);  // the products' first entry, read as every method's output is
  attention::StreamingOptions tiles_, streaming_, eigen_products_, causal_;
  std::vector<Method> methods_;
};

// How long the run takes, and where it stands. Its model: one call of each
// method at the longest length timed so far (or, before a long sweep, at
// n = 1024), scaled to any other n as the work, n². NumPy's call is taken to
// last as long as the buffered version's (the same three steps over one n × n
// matrix), and starting Python about a third of a second.
class SweepClock {
 public:
  SweepClock(const BenchmarkInputs& inputs, const Progress& progress)
      : inputs_(inputs), progress_(progress), start_(std::chrono::steady_clock::now()) {}

  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

  // One call of each method (in the order MethodsAt times them; empty where it was skipped) at length n; kept if n
  // is the longest so far, whose times say most about longer ones.
  void learned(std::size_t n, std::vector<std::optional<double>> call_seconds) {
    if (n < model_n_) return;
    model_n_ = n;
    model_ = std::move(call_seconds);
  }

  // The seconds still to go from `stage` of the length at `index` on: stage 0 is its first calls (and NumPy's
  // start), stage r its repetition r. Empty until something was learned.
  std::optional<double> seconds_left(std::size_t index, std::size_t stage) const {
    if (model_n_ == 0) return std::nullopt;
    double left = 0.0;
    for (std::size_t i = index; i < inputs_.lengths.size(); ++i) {
      const Cost cost = cost_at(inputs_.lengths[i]);
      const std::size_t from = i == index ? stage : 0;
      if (from == 0) left += cost.first;
      left += cost.repetition * static_cast<double>(inputs_.repeats - (from == 0 ? 0 : from - 1));
    }
    return left;
  }

  void report(std::size_t index, std::size_t stage) const {
    if (!progress_.update) return;
    ProgressReport report;
    report.n = inputs_.lengths[index];
    report.length_index = index;
    report.lengths = inputs_.lengths.size();
    report.step = stage == 0 ? std::string("first calls") : fmt::format("repetition {} of {}", stage, inputs_.repeats);
    report.seconds = elapsed();
    report.seconds_left = seconds_left(index, stage);
    progress_.update(report);
  }

 private:
  struct Cost {
    double first = 0.0, repetition = 0.0;
  };

  Cost cost_at(std::size_t n) const {
    const double scale = std::pow(static_cast<double>(n) / static_cast<double>(model_n_), 2);
    const std::vector<std::uint64_t> bytes = extra_bytes_at(inputs_, n);
    Cost cost;
    for (std::size_t m = 0; m < model_.size(); ++m) {
      if (!model_[m] || static_cast<double>(bytes[m]) > inputs_.memory_limit_bytes) continue;
      const double call = *model_[m] * scale;
      cost.first += call;
      cost.repetition += std::max(call, minimum_seconds);
    }
    constexpr std::size_t buffered = 1;  // its place in the model
    if (!inputs_.python.empty() && model_.size() > buffered && model_[buffered] &&
        static_cast<double>(bytes.back()) <= inputs_.memory_limit_bytes) {
      const double call = *model_[buffered] * scale;
      cost.first += 0.3 + 2.0 * call;  // Python's start, a first call and one under tracemalloc
      cost.repetition += std::max(call, minimum_seconds);
    }
    return cost;
  }

  const BenchmarkInputs& inputs_;
  const Progress& progress_;
  std::chrono::steady_clock::time_point start_;
  std::size_t model_n_ = 0;
  std::vector<std::optional<double>> model_;
};

// The length before a long sweep at which one call of each method gives the estimate.
constexpr std::size_t estimate_n = 1024;

// One call of each method at estimate_n, for the clock's model.
void calibrate(const BenchmarkInputs& inputs, SweepClock& clock) {
  MethodsAt at(inputs, estimate_n);
  std::vector<std::optional<double>> seconds;
  for (const Method& method : at.methods()) {
    if (static_cast<double>(method.extra_bytes) > inputs.memory_limit_bytes) {
      seconds.emplace_back();
      continue;
    }
    seconds.emplace_back(attention::seconds_per_call([&] { return method.run()(0, 0); }, 1));
  }
  clock.learned(estimate_n, std::move(seconds));
}

// A method's row before it is timed: what it is, and its memory; skipped, and why, if that passes the limit.
MethodRow row_for(const BenchmarkInputs& inputs, std::size_t length, const std::string& method, unsigned threads,
                  double flops, std::uint64_t extra_bytes, const char* about = "") {
  MethodRow row;
  row.n = length;
  row.width = inputs.width;
  row.threads = threads;
  row.method = method;
  row.multiply_add_flops = flops;
  row.peak_extra_bytes = extra_bytes;
  row.memory_how = "counted";
  if (static_cast<double>(extra_bytes) > inputs.memory_limit_bytes) {
    row.skipped = fmt::format("needs {}{} of extra memory, more than the limit of {} (--memory-limit)", about,
                              bytes_text(static_cast<double>(extra_bytes)), bytes_text(inputs.memory_limit_bytes));
  }
  return row;
}

// What NumPy's processes share over the lengths: whether its dgemm yardstick was timed yet, and its rate.
struct NumpyDgemm {
  bool tried = false;
  std::optional<double> gflops;
};

// The methods at the length at `index`, and NumPy in a process of its own, timed in turns.
std::vector<MethodRow> timed_at(const BenchmarkInputs& inputs, std::size_t index, NumpyPeer& peer,
                                NumpyDgemm& numpy_dgemm, SweepClock& clock) {
  const std::size_t length = inputs.lengths[index];
  clock.report(index, 0);
  const MethodsAt at(inputs, length);
  const std::vector<Method>& methods = at.methods();
  std::vector<MethodRow> rows;
  std::vector<std::size_t> calls;
  std::vector<std::size_t> timed;  // indices into methods
  std::vector<std::optional<double>> once_seconds(methods.size());
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const Method& method = methods[i];
    rows.push_back(row_for(inputs, length, method.name, method.threads, method.flops, method.extra_bytes));
    if (!rows.back().skipped.empty()) continue;
    // The untimed first call warms the caches and says how many calls make a repetition.
    const auto start = std::chrono::steady_clock::now();
    const Matrix& output = method.run();
    const double once = std::max(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1e-9);
    rows.back().in_float = inputs.in_float;
    if (method.compared && at.reference_output().size() > 0) {
      rows.back().difference =
          difference_from(method.float_output ? method.float_output() : output, at.reference_output());
      rows.back().difference_from = at.reference_name();
    }
    calls.push_back(static_cast<std::size_t>(std::ceil(minimum_seconds / once)));
    timed.push_back(i);
    once_seconds[i] = once;
  }
  clock.learned(length, once_seconds);

  // NumPy, started and warmed up (and its dgemm timed, the first time) before the turns.
  MethodRow numpy = row_for(inputs, length, names_for(inputs.in_float).numpy, inputs.threads, methods.front().flops,
                            extra_bytes_at(inputs, length).back(), "about ");
  numpy.in_float = inputs.in_float;
  std::optional<NumpyProcess> python;
  if (!inputs.python.empty() && numpy.skipped.empty()) {
    const bool with_dgemm = !numpy_dgemm.tried;
    python.emplace(inputs, length, with_dgemm);
    const std::optional<double> dgemm = describe_numpy(*python, inputs.python, peer);
    if (python->reason().empty()) {
      if (with_dgemm) numpy_dgemm = {true, dgemm};
      numpy.peak_extra_bytes = python->ready().value("peak_extra_bytes", numpy.peak_extra_bytes);
      numpy.memory_how = "measured (tracemalloc)";
    } else {
      python.reset();
    }
  }
  const auto numpy_turn = [&] {
    if (!python) return;
    if (const std::optional<double> seconds = python->repetition()) {
      numpy.samples.push_back(*seconds);
      return;
    }
    peer.reason = python->reason();
    numpy.samples.clear();
    python.reset();
  };
  // clang-format off
  // [timed_in_turns]
  std::vector<attention::TimedWork> works;
  for (const std::size_t i : timed) works.push_back([&methods, i] { return methods[i].run()(0, 0); });
  clock.report(index, 1);  // the progress line, on a terminal
  const std::vector<std::vector<double>> samples =
      attention::timed_in_turns(works, calls, inputs.repeats, [&](std::size_t repeat) {
        numpy_turn();  // one repetition in NumPy's process, after the methods'
        if (repeat + 1 < inputs.repeats) clock.report(index, repeat + 2);
      });
  // [timed_in_turns]
  // clang-format on
  for (std::size_t t = 0; t < timed.size(); ++t) {
    rows[timed[t]].samples = samples[t];
    rows[timed[t]].time = attention::summarize_timings(samples[t]);
  }
  if (!numpy.samples.empty()) numpy.time = attention::summarize_timings(numpy.samples);
  if (!inputs.python.empty() && (!numpy.skipped.empty() || !numpy.samples.empty())) rows.push_back(std::move(numpy));
  return rows;
}

// The peaks of one thread and of the run's threads, measured (again), each kept where it is higher than before.
void measure_the_peaks(Benchmark& benchmark) {
  Yardsticks& yardsticks = benchmark.yardsticks;
  const unsigned threads = benchmark.inputs.threads;
  const attention::MultiplyAddPeak one_thread = peak_of(1);
  if (one_thread.flops > yardsticks.peak_one_thread.flops) yardsticks.peak_one_thread = one_thread;
  const attention::MultiplyAddPeak all_threads = threads == 1 ? yardsticks.peak_one_thread : peak_of(threads);
  if (all_threads.flops > yardsticks.peak.flops) yardsticks.peak = all_threads;
  // More threads can do no less than one; on a busy machine their tries rarely all find a free processor at once.
  if (yardsticks.peak.flops < yardsticks.peak_one_thread.flops) yardsticks.peak = yardsticks.peak_one_thread;
  benchmark.peak_gflops_one_thread = yardsticks.peak_one_thread.flops / 1e9;
  benchmark.peak_gflops = yardsticks.peak.flops / 1e9;
}

Benchmark benchmarked(const BenchmarkInputs& inputs, const Progress& progress) {
  SweepClock clock(inputs, progress);
  Benchmark benchmark;
  benchmark.inputs = inputs;
  benchmark.machine = attention::processor_name();
  Yardsticks& yardsticks = benchmark.yardsticks;
  measure_the_peaks(benchmark);
  yardsticks.dgemm_n = static_cast<std::size_t>(dgemm_n);
  yardsticks.eigen_dgemm_gflops = eigen_dgemm_gflops();
  if (inputs.python.empty()) benchmark.numpy.reason = "--no-numpy was given";
  NumpyDgemm numpy_dgemm{inputs.python.empty(), std::nullopt};  // timed in the Python of the first length
  std::size_t n = estimate_n;
  try {
    if (inputs.lengths.back() >= long_sweep_n) {
      calibrate(inputs, clock);
      benchmark.estimated_seconds = clock.elapsed() + clock.seconds_left(0, 0).value_or(0.0);
      if (progress.estimate) progress.estimate(*benchmark.estimated_seconds, estimate_n);
    }
    for (std::size_t i = 0; i < inputs.lengths.size(); ++i) {
      n = inputs.lengths[i];
      for (MethodRow& row : timed_at(inputs, i, benchmark.numpy, numpy_dgemm, clock)) {
        benchmark.rows.push_back(std::move(row));
      }
    }
  } catch (const std::bad_alloc&) {
    throw program::UsageError(fmt::format(
        "--memory-limit: at n = {} this machine did not give the memory a method asked for (each may take up to the "
        "limit, {}); give a lower --memory-limit or smaller --n",
        n, bytes_text(inputs.memory_limit_bytes)));
  }
  if (!numpy_dgemm.tried) {  // NumPy ran at no length (each over the memory limit): its dgemm alone
    const NumpyProcess python(inputs, 0, true);
    numpy_dgemm.gflops = describe_numpy(python, inputs.python, benchmark.numpy);
  }
  yardsticks.numpy_dgemm_gflops = numpy_dgemm.gflops;
  hold_rates_to_the_peak(benchmark, measure_the_peaks);
  benchmark.goals = judged(benchmark);
  benchmark.summary = summary_of(benchmark);
  benchmark.wall_seconds = clock.elapsed();
  return benchmark;
}

}  // namespace

Result compute(const Inputs& inputs, const Progress& progress) {
  Result result;
  if (inputs.benchmark) {
    result.benchmark = benchmarked(*inputs.benchmark, progress);
  } else {
    result.trace = traced(inputs.trace);
  }
  return result;
}

}  // namespace fast_attention
