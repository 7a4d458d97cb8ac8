// program::parse_matrix, require_entries_within, typed_number, parse_names, is_utf8 and counted: an input a
// program cannot use (an empty entry, too large for what it computes, a name with a space, bytes that are not UTF-8)
// is refused, naming the flag and what was wrong, with the numbers and counts as a reader would type them.
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "program/matrix_text.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace {

// The message of the UsageError @p read throws, or @p if_accepted if it throws none.
template <typename Read>
std::string refusal(Read read, const char* if_accepted) {
  try {
    read();
  } catch (const program::UsageError& error) {
    return std::string(error.what());
  }
  return if_accepted;
}

}  // namespace

TEST_CASE("typed_number writes the fewest digits that read back, huge and tiny ones in scientific notation", "[ch08]") {
  CHECK(program::typed_number(0.5) == "0.5");
  CHECK(program::typed_number(1000) == "1000");
  CHECK(program::typed_number(-999999) == "-999999");
  CHECK(program::typed_number(1e6) == "1e6");
  CHECK(program::typed_number(-1e6) == "-1e6");
  CHECK(program::typed_number(1.000001e6) == "1.000001e6");
  CHECK(program::typed_number(1e308) == "1e308");
  CHECK(program::typed_number(-2.5e-7) == "-2.5e-7");
  CHECK(program::typed_number(0.1) == "0.1");
  CHECK(program::typed_number(0.0) == "0");
  CHECK(program::typed_number(std::numeric_limits<double>::max()) == "1.7976931348623157e308");
}

TEST_CASE("require_entries_within refuses the first entry beyond the limit, naming it", "[ch08]") {
  attention::Matrix m(2, 3);
  m << 1, -1e6, 0, 3, 1e6, -1.5e6;
  CHECK_NOTHROW(program::require_entries_within(m.topRows(1), 1e6, "--x"));
  try {
    program::require_entries_within(m, 1e6, "--x");
    FAIL("no error");
  } catch (const program::UsageError& error) {
    CHECK(std::string(error.what()) == "--x: row 2, entry 3 is -1.5e6; expected entries from -1e6 to 1e6");
  }
}

TEST_CASE("is_utf8 takes well-formed characters and refuses stray, cut, overlong and surrogate bytes", "[ch00]") {
  CHECK(program::is_utf8(""));
  CHECK(program::is_utf8("cat"));
  CHECK(program::is_utf8("caf\xc3\xa9"));             // é, two bytes
  CHECK(program::is_utf8("\xe2\x88\x9e"));            // ∞, three bytes
  CHECK(program::is_utf8("\xf0\x9f\x90\x88"));        // a cat, four bytes
  CHECK(program::is_utf8("\xf4\x8f\xbf\xbf"));        // U+10FFFF, the last code point
  CHECK_FALSE(program::is_utf8("caf\xe9"));           // Latin-1's é: a lead byte with nothing after it
  CHECK_FALSE(program::is_utf8("\xa9"));              // a continuation byte alone
  CHECK_FALSE(program::is_utf8("\xe2\x88"));          // a three-byte character cut short
  CHECK_FALSE(program::is_utf8("\xc3\x28"));          // a lead byte followed by no continuation
  CHECK_FALSE(program::is_utf8("\xc0\xaf"));          // '/' written in two bytes (overlong)
  CHECK_FALSE(program::is_utf8("\xed\xa0\x80"));      // U+D800, a surrogate
  CHECK_FALSE(program::is_utf8("\xf4\x90\x80\x80"));  // U+110000, past the last code point
  CHECK_FALSE(program::is_utf8("\xf8\x88\x80\x80\x80"));
}

TEST_CASE("parse_names refuses a name with a space, showing the names with commas", "[ch00]") {
  CHECK(program::parse_names(" cat , eat,fish ", "--tokens") == std::vector<std::string>{"cat", "eat", "fish"});
  const auto message = [](const char* text) {
    return refusal([text] { program::parse_names(text, "--tokens"); }, "accepted");
  };
  CHECK(message("I saw a saw") == "--tokens: name 1 (\"I saw a saw\") has a space or tab; names are separated by "
                                  "',', e.g. \"I,saw,a,saw\"");
  CHECK(message("I, really love,you") == "--tokens: name 2 (\"really love\") has a space or tab; names are "
                                         "separated by ',', e.g. \"I,really,love,you\"");
  CHECK(message("a,caf\xe9") == "--tokens: name 2 is not UTF-8 text");
}

TEST_CASE("parse_matrix names an empty entry, where a ',' too many would throw off the row's count", "[ch00]") {
  const auto message = [](const char* text) {
    return refusal([text] { program::parse_matrix(text, "--q"); }, "no error");
  };
  CHECK(message("1,0;0,1,") == "--q: row 2, entry 3 is empty; expected entries separated by ',', each a number");
  CHECK(message("1,,0;0,1,1") == "--q: row 1, entry 2 is empty; expected entries separated by ',', each a number");
  CHECK(message("1,0;0,1,1") ==
        "--q: row 2 has 3 entries but row 1 has 2; every row must have the same number of entries");
  CHECK(message("1,0;0") == "--q: row 2 has 1 entry but row 1 has 2; every row must have the same number of entries");
}

TEST_CASE("counted gives a count its noun, one or many", "[ch00]") {
  CHECK(program::counted(1, "row", "rows") == "1 row");
  CHECK(program::counted(0, "row", "rows") == "0 rows");
  CHECK(program::counted(std::size_t{3}, "query", "queries") == "3 queries");
}
