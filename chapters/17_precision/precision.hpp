// Chapter 17: the precision of a number. A number stored in bfloat16 keeps 8 significant bits, a float 24, a
// double 53. The chapter counts to 1000 by adding 1 in each, and then keeps the online softmax's running sum of
// chapter 12 in each: the sum of e^(s − M) over n scores, computed one score at a time, every product and sum
// rounded to the format it is kept in. A bfloat16 running sum stops growing; a float one, even when its terms
// are bfloat16, does not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"
#include "attention/number_formats.hpp"
#include "program/command_line.hpp"

namespace precision {

/// Where each number of the running sum is kept: the terms e^(s − M), and the running sum L itself.
struct Setup {
  attention::NumberFormat terms = attention::NumberFormat::float32;
  attention::NumberFormat sum = attention::NumberFormat::float32;
};

/// Which finite difference of f = exp the chapter takes: chapter 10's central one, (f(x + h) − f(x − h)) / 2h,
/// or the forward one, (f(x + h) − f(x)) / h.
enum class Difference { central, forward };

struct Inputs {
  long long count = 1000;  // the worked example: add 1 this many times, from 0
  std::vector<Eigen::Index> lengths{16, 64, 256, 1024, 4096, 16384, 65536};
  std::uint64_t seed = 1;  // of the scores, normal draws
  double spread = 1.0;     // their standard deviation
  double at = 1.0;         // the point x of the finite difference
  Difference difference = Difference::central;
  std::vector<Setup> setups{{attention::NumberFormat::float32, attention::NumberFormat::float32},
                            {attention::NumberFormat::bfloat16, attention::NumberFormat::float32},
                            {attention::NumberFormat::bfloat16, attention::NumberFormat::bfloat16}};
};

/// Adding 1, count times, in one format.
struct Counting {
  attention::NumberFormat format = attention::NumberFormat::float64;
  double total = 0.0;
  long long stuck_from = 0;    // the first count whose addition left the total unchanged (0: none did)
  double spacing_there = 0.0;  // the gap between the total and the next number the format holds there
};

/// The running sum of n scores in one setup.
struct RunningSum {
  double sum = 0.0;               // L, as the setup kept it
  double maximum = 0.0;           // M
  double normalizer_error = 0.0;  // |e^(M + ln L) / e^(M_ref + ln L_ref) − 1|: the softmax denominator's relative error
  double weights_sum = 0.0;       // what the softmax's weights e^(s − M) / L add up to with this M and L (1 if exact)
  double spacing = 0.0;           // the gap from L to the next number the sum's format holds above it
};

struct LengthRow {
  Eigen::Index n = 0;
  RunningSum reference;  // everything in double
  // e^(spread − M), M the largest of the n scores: the term of a score one spread (one standard deviation) above
  // the scores' mean, 0. About five scores in six lie below there, and their terms below this.
  double term_at_one_spread = 0.0;
  std::vector<RunningSum> sums;  // one per setup
};

/// A finite difference of f = exp at x (whose derivative is e^x), every number rounded to one format: its
/// relative error for each step h.
struct StepCurve {
  attention::NumberFormat format = attention::NumberFormat::float64;
  double at = 1.0;             // x as the format holds it
  std::vector<double> errors;  // one per step, against e^x at that x
  double best_step = 0.0;      // the step of the smallest error
  double best_error = 0.0;     // that error
  double root = 0.0;           // the format's spacing at 1, 2^−p, to the power 1/3 (central) or 1/2 (forward)
  // The rounding of one difference at x, relative to e^x: the spacing of e^x, plus e^x times half the spacing of
  // x for each argument x ± h rounded (two for the central difference, one for the forward one).
  double spacing = 0.0;
  // Where the formula's error and rounding's meet: (3/2 spacing)^(1/3) or (2 spacing)^(1/2)
  double predicted_step = 0.0;
};

struct Result {
  Inputs inputs;
  std::vector<Counting> counting;  // double, float, bfloat16
  std::vector<double> steps;       // h = 10^(−k/4), from 10^−0.5 down to 10^−12
  std::vector<StepCurve> curves;   // double, float, bfloat16
  std::vector<LengthRow> rows;
};

/// The online softmax's running sum of e^(s − M) over @p scores, one score at a time (chapter 12's update with
/// tiles of one key), every term rounded to setup.terms and every product and sum to setup.sum.
RunningSum running_sum(const std::vector<double>& scores, const Setup& setup);
Result compute(const Inputs& inputs);

/// The name of a difference, as --difference takes it: "central" or "forward".
std::string difference_name(Difference difference);

// Front ends (precision_output.cpp)
nlohmann::json to_json(const Result& result);
std::string tables(const Result& result);

class Flags {
 public:
  explicit Flags(program::CommandLine& command_line);
  Flags(const Flags&) = delete;
  Flags& operator=(const Flags&) = delete;
  Inputs read() const;

 private:
  std::string count_text_ = "1000";
  std::string lengths_text_ = "16,64,256,1024,4096,16384,65536";
  std::string seed_text_ = "1";
  std::string spread_text_ = "1";
  std::string at_text_ = "1";
  std::string difference_text_ = "central";
};

}  // namespace precision
