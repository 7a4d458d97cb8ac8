// Chapter 12: attention without the n × n matrix, as one computation with its
// front ends.
//
// Two things, one at a time. Without --n, compute() traces the streaming
// kernel (src/attention/streaming_attention.hpp) on a small example, the toy
// by default: the state after every tile of keys, the running maximum, the
// running sum and the running output of every query, and the output against
// the teaching version's. With --n, it times the teaching version, each fast
// step and NumPy (a Python subprocess) at each length n (with --precision
// float: the streaming kernel in float and NumPy in float32), with the memory each
// needs, beside yardsticks measured in the same run: the processor's
// multiply-add peak and a large matrix product (dgemm) through Eigen and
// through NumPy. A long sweep reports its progress (Progress). to_json() and tables()
// show the result; Flags reads the command line into Inputs. The command line and
// the page (program/run_chapter.hpp, register_chapter) both go through these.
//
// compute() is in fast_attention.cpp, with the helpers both files use
// (machine_caches() to bytes_text(), below); what a benchmark's rows add up to
// (the rates held to the peak, the goals, the summary) and the front ends are in
// fast_attention_output.cpp; the library's kernels it times, in fast_attention_kernels.cpp (below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/multiply_add_peak.hpp"
#include "attention/streaming_attention.hpp"
#include "attention/tile_product.hpp"
#include "attention/tile_shape.hpp"
#include "attention/timing_comparison.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"

// The kernels the benchmark times, compiled once, in fast_attention_kernels.cpp: every file that includes this
// header calls them there instead of compiling them again.
namespace attention {
extern template MatrixOf<double> streaming_attention<double>(const MatrixOf<double>&, const MatrixOf<double>&,
                                                             const MatrixOf<double>&, const StreamingOptions&,
                                                             StreamingBuffers<double>&);
extern template MatrixOf<float> streaming_attention<float>(const MatrixOf<float>&, const MatrixOf<float>&,
                                                           const MatrixOf<float>&, const StreamingOptions&,
                                                           StreamingBuffers<float>&);
extern template void buffered_attention<double>(const MatrixOf<double>&, const MatrixOf<double>&,
                                                const MatrixOf<double>&, AttentionBuffers<double>&, KeyRange, bool);
extern template void tile_product<double>(const detail::ConstTileRef<double>&, const PackedColumns<double>&,
                                          detail::TileRef<double>, bool, KeysUpTo);
extern template void tile_product<float>(const detail::ConstTileRef<float>&, const PackedColumns<float>&,
                                         detail::TileRef<float>, bool, KeysUpTo);
}  // namespace attention

namespace fast_attention {

/// The small example to trace.
struct TraceInputs {
  program::AttentionInputs example;                      // --q, --k, --v, --tokens (the toy by default)
  Eigen::Index key_tile = 1;                             // --tile
  Eigen::Index query_tile = 3;                           // --query-tile (default: every query in one tile)
  attention::KeyRange range = attention::KeyRange::all;  // --mask none|causal
};

/// The lengths and settings to time.
struct BenchmarkInputs {
  std::vector<std::size_t> lengths;  // --n, increasing
  std::size_t width = 64;            // --d
  unsigned threads = 1;              // --threads
  std::size_t repeats = 5;           // --reps
  double memory_limit_bytes = 4e9;   // --memory-limit (in GB on the command line; at most the machine's memory)
  std::string python;                // --python; empty with --no-numpy
  bool in_float = false;             // --precision float: the streaming kernel in float, NumPy in float32
};

/// What the flags say, checked: a trace, or (with --n) a benchmark.
struct Inputs {
  TraceInputs trace;
  std::optional<BenchmarkInputs> benchmark;
};

/// The state after one tile, as the library's observer saw it, for every query:
/// rows of queries whose tile has not started yet are empty (null in the JSON).
struct TraceStep {
  attention::StreamingTileState tile;                     // the tile's own rows and columns
  std::vector<std::optional<double>> maximum;             // M per query
  std::vector<std::optional<double>> sum;                 // L per query
  std::vector<std::optional<Eigen::RowVectorXd>> output;  // O / L per query, the output so far
};

/// The trace of the streaming kernel on the small example.
struct Trace {
  TraceInputs inputs;
  std::vector<TraceStep> steps;
  std::vector<std::pair<Eigen::Index, Eigen::Index>> skipped;  // (query tile, key tile) never visited
  attention::Matrix output;                                    // streaming_attention()'s
  attention::Matrix teaching_output;                           // scaled_dot_product_attention()'s
  double largest_difference = 0.0;                             // relative to the largest teaching entry
};

/// One method timed at one length, or skipped with the reason.
struct MethodRow {
  std::size_t n = 0;
  std::size_t width = 0;
  unsigned threads = 1;
  std::string method;
  std::string skipped;                 // empty when timed
  std::vector<double> samples;         // seconds per call, one per repetition
  attention::TimingSummary time;       // of the samples
  double multiply_add_flops = 0.0;     // 2 per multiply-add of the two products the method must do
  std::optional<double> gflops;        // over the median time; empty if not timed, or above the peak
  bool above_peak = false;             // the rate passed the measured peak: a bug, not a result
  std::uint64_t peak_extra_bytes = 0;  // beyond inputs and output
  std::string memory_how;              // "counted" or "measured"
  std::optional<double> difference;    // against the reference output, relative to its largest entry
  std::string difference_from;         // the reference: the teaching version's output, or (float rows) the double
                                       // streaming kernel's
  bool in_float = false;               // computed in float (NumPy: float32)
};

/// NumPy as the peer: which Python, which NumPy, which BLAS, or why not.
struct NumpyPeer {
  bool available = false;
  std::string reason;  // when not available
  std::string python;
  std::string numpy_version;
  std::string blas;   // the BLAS library the process loaded
  std::string dtype;  // the number type of its attention's output, as NumPy names it: float64 or float32
};

/// One of the chapter's goals, judged on this run: met, not met, too close to call (the spreads overlap), or no
/// data.
struct Goal {
  std::string name;
  std::string goal;
  std::string verdict;  // "met", "not met", "too close to call" or "no data"
  std::string detail;
};

/// A rate that passed the measured peak: reported as a bug instead of as a rate.
struct RateAbovePeak {
  std::string what;  // the method and length, or the dgemm
  double gflops = 0.0;
  double peak_gflops = 0.0;
};

/// The yardsticks measured in the same run: the multiply-add peak (attention/multiply_add_peak.hpp), of one thread and
/// of the run's threads, and a large matrix product through Eigen (one thread) and through NumPy (the run's threads).
struct Yardsticks {
  attention::MultiplyAddPeak peak;  // with the run's threads
  attention::MultiplyAddPeak peak_one_thread;
  std::size_t dgemm_n = 0;                   // the product's matrices are dgemm_n × dgemm_n
  std::optional<double> eigen_dgemm_gflops;  // empty if above the peak
  std::optional<double> numpy_dgemm_gflops;  // empty without NumPy, or if above the peak
};

/// Every timed length and method.
struct Benchmark {
  BenchmarkInputs inputs;
  std::string machine;  // the processor's name
  Yardsticks yardsticks;
  double peak_gflops = 0.0;  // yardsticks.peak in GFLOP/s: with inputs.threads threads
  double peak_gflops_one_thread = 0.0;
  std::vector<MethodRow> rows;
  std::vector<RateAbovePeak> above_peak;  // should stay empty
  NumpyPeer numpy;
  std::vector<Goal> goals;
  std::string summary;                      // who was faster than NumPy where, in one sentence
  std::optional<double> estimated_seconds;  // the whole run, estimated before the sweep (long sweeps only)
  double wall_seconds = 0.0;                // the whole run, measured
};

/// Everything the tables and the JSON show.
struct Result {
  std::optional<Trace> trace;          // without --n
  std::optional<Benchmark> benchmark;  // with --n
};

/// Where a benchmark stands, for a progress line.
struct ProgressReport {
  std::size_t n = 0;             // the length being timed
  std::size_t length_index = 0;  // its place among the lengths, from 0
  std::size_t lengths = 0;
  std::string step;                    // "first calls", "repetition 2 of 5" or "NumPy"
  double seconds = 0.0;                // since the run started
  std::optional<double> seconds_left;  // an estimate, once there is one
};

/// What a benchmark tells its caller while it runs (both optional).
struct Progress {
  /// Called once, before the lengths are timed, with the whole run's estimated seconds, when the sweep is long
  /// enough to be worth an estimate (a length of at least long_sweep_n).
  std::function<void(double seconds, std::size_t from_n)> estimate;
  /// Called as each repetition of each length starts.
  std::function<void(const ProgressReport&)> update;
};

/// A sweep with a length of at least this is estimated before it starts.
inline constexpr std::size_t long_sweep_n = 4096;

/// Each timed repetition calls a method often enough to last at least this long, in seconds.
inline constexpr double minimum_seconds = 0.01;

/// The names MethodRow::method gives the methods of a run in float.
inline constexpr const char* float_streaming = "streaming_float";
inline constexpr const char* float_products = "tile_products_only_float";
inline constexpr const char* float_numpy = "numpy_float32";

/// The streaming kernel's, the products' and NumPy's names in a run of one precision.
struct PeerNames {
  const char* streaming;
  const char* products;
  const char* numpy;
};
PeerNames names_for(bool in_float);

/// The caches this machine reports (attention/tile_shape.hpp), found once.
const attention::CacheSizes& machine_caches();

/// The streaming kernel's tiles and register block in the benchmark: chosen for this machine's vectors and caches,
/// for d_k = d_v = --d, in the run's precision.
attention::TileShape tile_shape_for(const BenchmarkInputs& inputs);

/// Those tiles as the kernel's options: one thread, packed products.
attention::StreamingOptions tiles_for(const BenchmarkInputs& inputs);

/// A number of bytes to three significant digits, in B, KiB, MiB, GiB or TiB: the largest unit that leaves it at
/// least 0.977 (1000 B is "0.977 KiB", never "1e+03 B").
std::string bytes_text(double bytes);

/// The trace, or (with --n) the benchmark, which takes seconds to minutes.
Result compute(const Inputs& inputs, const Progress& progress = {});

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// Holds every rate of @p benchmark (each timed row's, and the two dgemms') against the multiply-add peak of its
/// threads. Where one passes it, @p measure_the_peaks_again is called, up to three times while one still does. A rate
/// that still passes it is kept out of the tables (its row's gflops left empty) and listed in Benchmark::above_peak.
void hold_rates_to_the_peak(Benchmark& benchmark, const std::function<void(Benchmark&)>& measure_the_peaks_again);

/// The chapter's goals, judged on a finished benchmark's numbers once hold_rates_to_the_peak() has held its rates
/// (before that no rate is kept, and the products' goal reads an empty rate as one above the peak). A run's verdicts
/// depend on its machine and no test asserts them; a test holds the rule to made-up timings worked by hand.
std::vector<Goal> judged(const Benchmark& benchmark);

/// Who was faster than NumPy where, in one sentence.
std::string summary_of(const Benchmark& benchmark);

/// The flags of the trace (--q, --k, --v, --tokens, --tile, --query-tile,
/// --mask) and of the benchmark (--n, --d, --threads, --reps, --memory-limit,
/// --python, --no-numpy, --precision); read() checks them after parsing and throws
/// program::UsageError naming the flag. --memory-limit is bounded by the
/// machine's physical memory, --threads by the processors this process may use.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  const program::CommandLine& command_line_;
  program::AttentionFlags attention_flags_;
  std::string key_tile_ = "1";
  std::string query_tile_;
  std::string mask_ = "none";
  std::string lengths_;
  std::string width_ = "64";
  std::string threads_ = "1";
  std::string repeats_ = "5";
  std::string memory_limit_ = "4";
  std::string python_ = "/usr/bin/python3";
  bool no_numpy_ = false;
  std::string precision_ = "double";
};

}  // namespace fast_attention
