// program::require_entries_within and program::typed_number: an input too
// large for what a program computes from it is refused, naming the flag, the
// entry and the range, with the numbers as a reader would type them.
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include "program/matrix_text.hpp"
#include "program/usage_error.hpp"

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
