// How chapters 7 and 9 print a machine's timings (program/timing_report.hpp):
// the processor's name and the times are this machine's own, and the printed
// report must keep the book's width whatever they are.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "program/timing_report.hpp"

namespace timing_report_tests {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

TEST_CASE("a time and its spread never outgrow their column", "[ch07]") {
  // From a nanosecond to a day per call, in seconds: every exponent the format
  // can print, and mantissas that round up (9.9995 → "10").
  for (const double seconds : {1e-9, 9.9995e-6, 1.23456e-3, 0.0999949, 1.0, 99.995, 12345.6789, 86400.0}) {
    const attention::TimingSummary summary{seconds, seconds * 0.99, seconds * 1.01};
    const std::string text = program::milliseconds_text(summary);
    INFO(text);
    CHECK(text.size() <= static_cast<std::size_t>(program::timing_column_width));
  }
  // The widest case the column is sized for is reached.
  const attention::TimingSummary widest{123.456, 123.4, 123.6};  // seconds: 1.23e+05 ms
  CHECK(program::milliseconds_text(widest) == "1.23e+05 [1.23e+05-1.24e+05]");
  CHECK(program::milliseconds_text(widest).size() == static_cast<std::size_t>(program::timing_column_width));
}

TEST_CASE("the median printed lies within the spread printed", "[ch07]") {
  // Chapter 7 says the spread leaves out the fastest and slowest quarters, so the median lies inside it: the
  // printed numbers must show that too. Medians just below a spread's end, at every scale, where a digit more
  // for the median than for the ends put it outside ("1.442 [1.43-1.44]").
  for (double scale = 1e-7; scale < 1e3; scale *= 10) {
    for (const double gap : {1e-6, 1e-4, 2.4e-3, 1e-2}) {
      const double low = 1.43 * scale, high = 1.4424 * scale;
      for (const double median : {low, high - gap * scale, high}) {  // each at or above low
        const attention::TimingSummary summary{median, low, high};
        const std::string text = program::milliseconds_text(summary);
        INFO(text);
        const std::size_t open = text.find(" ["), close = text.find(']');
        REQUIRE(open != std::string::npos);
        REQUIRE(close != std::string::npos);
        // The dash between the ends, not an exponent's minus ("1.43e-07-1.44e-07").
        std::size_t dash = text.find('-', open + 2);
        while (dash != std::string::npos && text[dash - 1] == 'e') dash = text.find('-', dash + 1);
        REQUIRE(dash != std::string::npos);
        const double shown_median = std::stod(text.substr(0, open));
        const double shown_low = std::stod(text.substr(open + 2, dash - open - 2));
        const double shown_high = std::stod(text.substr(dash + 1, close - dash - 1));
        CHECK(shown_low <= shown_median);
        CHECK(shown_median <= shown_high);
      }
    }
  }
}

TEST_CASE("a processor's name is broken into lines of at most 78 characters", "[ch07]") {
  CHECK(program::processor_lines("AMD EPYC 9B14") == "Processor: AMD EPYC 9B14\n");
  CHECK(program::processor_lines("") == "Processor:\n");
  CHECK(program::processor_lines("A B") == "Processor: A B\n");
  const std::string long_word(200, 'X');
  const std::string name = "Intel(R) Xeon(R) Platinum 8488C Processor, a name as long as any maker might write it, " +
                           long_word + " and more words after it";
  const std::vector<std::string> lines = lines_of(program::processor_lines(name));
  REQUIRE(lines.size() >= 3);
  CHECK(lines.front().rfind("Processor: Intel(R) Xeon(R)", 0) == 0);
  for (const std::string& line : lines) {
    INFO(line);
    CHECK(line.size() <= 78);
  }
  // Nothing is lost: the lines, their breaks taken out, are the text.
  std::string joined;
  for (const std::string& line : lines) joined += line;
  std::string expected = "Processor: " + name;
  std::erase(expected, ' ');
  std::erase(joined, ' ');
  CHECK(joined == expected);
}

}  // namespace timing_report_tests

namespace timing_report_tests {

TEST_CASE("text is wrapped at spaces, and a word longer than a line is cut", "[ch07]") {
  CHECK(program::wrapped("aaaa bb", 4) == "aaaa\nbb\n");
  CHECK(program::wrapped("aa bb", 5) == "aa bb\n");
  CHECK(program::wrapped("abcdefghij", 4) == "abcd\nefgh\nij\n");
  CHECK(program::wrapped("a bcdefg", 4, "  ") == "a\n  bc\n  de\n  fg\n");
  // Widths in characters, not bytes: "≥" and "∞" are three bytes each, one character.
  CHECK(program::shown_width("eat → fish, ∞") == 13);
  CHECK(program::wrapped("a ≥ b", 3) == "a ≥\nb\n");
  CHECK(program::wrapped("∞∞∞∞∞", 2) == "∞∞\n∞∞\n∞\n");
  CHECK(program::wrapped("", 4) == "\n");
}

TEST_CASE("lines are indented, the first by its own prefix", "[ch13]") {
  CHECK(program::indented("a\nb\nc\n", "| ", "  ") == "| a\n  b\n  c\n");
  CHECK(program::indented(program::wrapped("aa bb cc", 5, "  "), "> ", "> ") == "> aa bb\n>   cc\n");
  CHECK(program::indented("a\nb", "1 ", "2 ") == "1 a\n2 b");  // a last line without its newline keeps none
  CHECK(program::indented("", "1 ", "2 ").empty());
}

TEST_CASE("a list is joined as a sentence lists it: commas, then the last word before the last item", "[ch07]") {
  CHECK(program::listed({}, "and").empty());
  CHECK(program::listed({"a"}, "and") == "a");
  CHECK(program::listed({"a", "b"}, "or") == "a or b");
  CHECK(program::listed({"a", "b", "c"}, "or") == "a, b or c");
  CHECK(program::listed({"16", "32", "64", "128"}, "and") == "16, 32, 64 and 128");
  CHECK(program::listed(std::vector<long>{-1, 2, 30}, "or") == "-1, 2 or 30");
  CHECK(program::lengths_text({16, 32, 64}) == "n = 16, 32 and 64");
}

}  // namespace timing_report_tests
