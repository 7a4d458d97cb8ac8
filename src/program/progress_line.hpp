// One line of progress on stderr, rewritten in place while a long run works,
// and only when stderr is a terminal: a log file or a pipe (the book's build,
// the tests) gets nothing. Durations as a reader says them: "40 s",
// "3 min 10 s", "1 h 5 min".
#pragma once

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include <fmt/format.h>

namespace program {

/// A duration in words, to the second below a minute, to ten seconds below ten minutes, to the minute above.
inline std::string duration_text(double seconds) {
  if (!(seconds >= 0.0)) seconds = 0.0;
  if (seconds < 59.5) return fmt::format("{:.0f} s", seconds);
  if (seconds < 595.0) {
    const long tens = std::lround(seconds / 10.0);
    return tens % 6 == 0 ? fmt::format("{} min", tens / 6) : fmt::format("{} min {} s", tens / 6, 10 * (tens % 6));
  }
  const long minutes = std::lround(seconds / 60.0);
  return minutes < 60        ? fmt::format("{} min", minutes)
         : minutes % 60 == 0 ? fmt::format("{} h", minutes / 60)
                             : fmt::format("{} h {} min", minutes / 60, minutes % 60);
}

/// The progress line of a run, shown only where stderr is a terminal.
class ProgressLine {
 public:
  ProgressLine() : shown_(isatty(fileno(stderr)) != 0) {}

  /// Whether the line is shown at all.
  bool shown() const { return shown_; }

  /// Replaces the line with @p text (nothing happens where it is not shown).
  void update(const std::string& text) {
    if (!shown_) return;
    const std::size_t blanks = text.size() < width_ ? width_ - text.size() : 0;
    std::cerr << '\r' << text << std::string(blanks, ' ') << std::flush;
    width_ = text.size();
  }

  /// Clears the line, so that what the program prints next starts on a clean one.
  void clear() {
    if (!shown_ || width_ == 0) return;
    std::cerr << '\r' << std::string(width_, ' ') << '\r' << std::flush;
    width_ = 0;
  }

 private:
  bool shown_;
  std::size_t width_ = 0;
};

}  // namespace program
