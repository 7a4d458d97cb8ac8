// Chapter 12: attention without the n × n matrix, as one computation with its
// front ends.
//
// Two things, one at a time. Without --n, compute() traces the streaming
// kernel (src/attention/streaming_attention.hpp) on a small example, the toy
// by default: the state after every tile of keys, the running maximum, the
// running sum and the running output of every query, and the output against
// the teaching version's. With --n, it times the teaching version, each fast
// step and NumPy (a Python subprocess) at each length n, with the memory each
// needs and the machine's measured multiply-add peak. to_json() and tables()
// show the result; Flags reads the command line into Inputs. main.cpp and the
// page (program/page_program.hpp) both go through these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/streaming_attention.hpp"
#include "attention/timing_comparison.hpp"
#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"

namespace fast_attention {

/// The small example to trace.
struct TraceInputs {
  program::AttentionInputs example;  // --q, --k, --v, --tokens (the toy by default)
  Eigen::Index key_tile = 1;         // --tile
  Eigen::Index query_tile = 3;       // --query-tile (default: every query in one tile)
  attention::KeyRange range = attention::KeyRange::all;  // --mask none|causal
};

/// The lengths and settings to time.
struct BenchmarkInputs {
  std::vector<std::size_t> lengths;  // --n, increasing
  std::size_t width = 64;            // --d
  unsigned threads = 1;              // --threads
  std::size_t repeats = 5;           // --reps
  double memory_limit_bytes = 4e9;   // --memory-limit (in GB on the command line)
  std::string python;                // --python; empty with --no-numpy
};

/// What the flags say, checked: a trace, or (with --n) a benchmark.
struct Inputs {
  TraceInputs trace;
  std::optional<BenchmarkInputs> benchmark;
};

/// The state after one tile, as the library's observer saw it, for every query:
/// rows of queries whose tile has not started yet are empty (null in the JSON).
struct TraceStep {
  attention::StreamingTileState tile;                   // the tile's own rows and columns
  std::vector<std::optional<double>> maximum;           // M per query
  std::vector<std::optional<double>> sum;               // L per query
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
  std::string skipped;                   // empty when timed
  std::vector<double> samples;           // seconds per call, one per repetition
  attention::TimingSummary time;         // of the samples
  double multiply_add_flops = 0.0;       // 2 per multiply-add of the two products the method must do
  std::uint64_t peak_extra_bytes = 0;    // beyond inputs and output
  std::string memory_how;                // "counted" or "measured"
  std::optional<double> difference;      // against the teaching output, relative to its largest entry
};

/// NumPy as the peer: which Python, which NumPy, which BLAS, or why not.
struct NumpyPeer {
  bool available = false;
  std::string reason;  // when not available
  std::string python;
  std::string numpy_version;
  std::string blas;    // the BLAS library the process loaded
};

/// One of the streaming kernel's goals, judged on this run.
struct Goal {
  std::string name;
  std::string goal;
  std::optional<bool> met;  // empty when this run has no data for it
  std::string detail;
};

/// Every timed length and method.
struct Benchmark {
  BenchmarkInputs inputs;
  std::string machine;
  double peak_gflops = 0.0;             // with inputs.threads threads
  double peak_gflops_one_thread = 0.0;
  std::vector<MethodRow> rows;
  NumpyPeer numpy;
  std::vector<Goal> goals;
  std::string summary;  // who was faster than NumPy where, in one sentence
};

/// Everything the tables and the JSON show.
struct Result {
  std::optional<Trace> trace;          // without --n
  std::optional<Benchmark> benchmark;  // with --n
};

/// The trace, or (with --n) the benchmark, which takes seconds to minutes.
Result compute(const Inputs& inputs);

/// The document --json prints.
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json.
std::string tables(const Result& result);

/// The flags of the trace (--q, --k, --v, --tokens, --tile, --query-tile,
/// --mask) and of the benchmark (--n, --d, --threads, --reps, --memory-limit,
/// --python, --no-numpy); read() checks them after parsing and throws
/// program::UsageError naming the flag.
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
};

}  // namespace fast_attention
