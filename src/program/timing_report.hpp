// Reporting repeated timings (chapters 7 and 9): a summary as JSON, and a
// list of lengths as the sentences that state the verdicts write it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "attention/timing_comparison.hpp"
#include "program/text.hpp"

namespace program {

/// A timing's median and spread, and every repetition, in seconds.
inline nlohmann::json timing_summary_json(const attention::TimingSummary& summary, const std::vector<double>& samples) {
  return {{"median", summary.median},
          {"spread_low", summary.spread_low},
          {"spread_high", summary.spread_high},
          {"samples", samples}};
}

/// A median and its spread in milliseconds: "12.3 [12.1-12.6]". All three to
/// the same 3 significant digits: rounding to one precision keeps their order, so
/// the median printed never lies outside the spread printed (at 4 digits against
/// 3 it could: "1.442 [1.43-1.44]").
inline std::string milliseconds_text(const attention::TimingSummary& summary) {
  return fmt::format("{:.3g} [{:.3g}-{:.3g}]", summary.median * 1e3, summary.spread_low * 1e3,
                     summary.spread_high * 1e3);
}

/// The widest milliseconds_text() can be: 8 + 2 + 8 + 1 + 8 + 1 characters
/// ("1.23e+05 [1.23e+05-1.24e+05]") whatever the times, so a table of them in
/// columns this wide is as wide on a fast machine as on a slow one.
inline constexpr int timing_column_width = 28;

/// "Processor: <name>", broken at spaces into lines of at most 78 characters
/// (a word longer than that is cut across lines): the name is the machine's
/// own text, as long as its maker wrote it, and the book's pages show the
/// lines whole at any width.
inline std::string processor_lines(const std::string& name) { return wrapped("Processor: " + name, 78, " "); }

/// "n = 64", "n = 64 and 128", "n = 16, 32 and 64".
inline std::string lengths_text(const std::vector<std::size_t>& lengths) { return "n = " + listed(lengths, "and"); }

}  // namespace program
