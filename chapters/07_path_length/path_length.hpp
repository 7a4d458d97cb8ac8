// Chapter 7: self-attention against recurrence — path length and cost, as one
// computation with its front ends.
//
// compute() builds, for each layer type of the paper's Table 1, the layer's
// dependency graph, stacks layers until every output depends on every input,
// and counts by breadth-first search the maximum path length between an input
// and an output position, the multiply-adds of one layer and the longest chain
// of steps that must wait for one another (src/attention/layer_graphs.hpp).
// Unless told not to, it then times one self-attention layer against one
// recurrent layer on this machine at a few lengths n and says at which n each
// was faster (src/attention/timing_comparison.hpp). to_json() and tables()
// show the result; Flags reads the command line into Inputs. The command line and
// the page (program/run_chapter.hpp, register_chapter) both go through these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "attention/layer_graphs.hpp"
#include "attention/timing_comparison.hpp"
#include "program/command_line.hpp"

namespace path_length {

/// What the flags say, checked.
struct Inputs {
  std::vector<std::size_t> lengths{50};    // --n: the lengths counted
  std::uint64_t width = 512;               // --d
  std::size_t kernel = 3;                  // --kernel
  std::size_t radius = 2;                  // --radius
  bool timed = true;                       // false with --no-timing
  std::string sweep = "short";             // "short", "full", or "custom" for --time-n
  std::vector<std::size_t> timed_lengths;  // increasing
  std::size_t repeats = 7;
  bool drawn = false;  // --draw: each layer's graph at the first length, for a figure
};

/// The two layers timed at one length n.
struct TimingRow {
  std::size_t n = 0;
  std::vector<double> attention_samples;  // seconds per call, one per repetition
  std::vector<double> recurrent_samples;
  attention::TimingSummary attention;
  attention::TimingSummary recurrent;
  std::uint64_t attention_multiply_adds = 0;
  std::uint64_t recurrent_multiply_adds = 0;
};

/// Every timed length, and which layer was faster where.
struct Timing {
  std::string machine;
  std::vector<TimingRow> rows;
  attention::TimingComparison comparison;  // compare_timings(): self-attention first, recurrent second
  std::string summary;                     // the comparison in one sentence, as printed and as the
                                           // book says it
};

/// One layer's graph, as a figure draws it: which input feeds which output.
struct DrawnLayer {
  attention::LayerType type;
  std::size_t dilation = 1;  // the dilated convolution's second layer: taps k apart
  attention::DependencyGraph graph;
};

/// Everything the tables and the JSON show.
struct Result {
  Inputs inputs;
  std::vector<attention::LayerCount> counts;  // for each counted n, one per layer row
  std::optional<Timing> timing;               // empty when inputs.timed is false
  std::vector<DrawnLayer> drawn;              // with --draw, one per layer of Table 1, at the first n
};

/// Counts every layer type at each length of @p inputs and, if inputs.timed,
/// times self-attention against recurrence (which takes seconds).
Result compute(const Inputs& inputs);

/// The document --json prints ("timing" is null when nothing was timed;
/// "drawn" is there with --draw only).
nlohmann::json to_json(const Result& result);

/// The text the program prints without --json: the counts, then the timings.
std::string tables(const Result& result);

/// --n, --d, --kernel, --radius, --sweep, --time-n, --repeats, --no-timing
/// and --draw, with their help and defaults; read() checks them after
/// parsing and throws program::UsageError naming the flag.
class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;  // the command line holds references to the texts below
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  const program::CommandLine& command_line_;  // to ask whether --time-n was typed
  std::string lengths_ = "50";
  std::string width_ = "512";
  std::string kernel_ = "3";
  std::string radius_ = "2";
  std::string sweep_ = "short";
  std::string timed_lengths_;
  std::string repeats_ = "7";
  bool no_timing_ = false;
  bool draw_ = false;
};

}  // namespace path_length
