// Reporting repeated timings (chapters 7 and 9): a summary as JSON, and a
// list of lengths as the sentences that state the verdicts write it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/timing_comparison.hpp"

namespace program {

/// A timing's median and spread, and every repetition, in seconds.
inline nlohmann::json timing_summary_json(const attention::TimingSummary& summary, const std::vector<double>& samples) {
  return {{"median", summary.median},
          {"spread_low", summary.spread_low},
          {"spread_high", summary.spread_high},
          {"samples", samples}};
}

/// "n = 64", "n = 64 and 128", "n = 16, 32 and 64".
inline std::string lengths_text(const std::vector<std::size_t>& lengths) {
  std::string text = "n = ";
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (i > 0) text += i + 1 == lengths.size() ? " and " : ", ";
    text += std::to_string(lengths[i]);
  }
  return text;
}

}  // namespace program
