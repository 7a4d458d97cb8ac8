// program::number_text and program::table, which print every chapter's tables:
// a number is rounded to a few decimals, and a huge one is written in
// scientific notation instead of as hundreds of digits that a double does not
// even hold (entries near 1e308 printed as 309-digit integers). The book's cases
// (tests/number_text_cases.json) hold number_text to the rules the page's numberText and the
// prose's format_value are held to as well.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "attention/mulberry32.hpp"
#include "program/table.hpp"

namespace table_tests {

// A case's value: a number, or the JSON's "inf", "-inf", "NaN".
double case_value(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  const std::string name = value.get<std::string>();
  if (name == "inf") return std::numeric_limits<double>::infinity();
  if (name == "-inf") return -std::numeric_limits<double>::infinity();
  REQUIRE(name == "NaN");
  return std::numeric_limits<double>::quiet_NaN();
}

// The page's and the prose's text as the programs print it: ASCII '-' for U+2212.
std::string ascii_minus(const std::string& text) {
  const std::string minus = "\u2212";
  std::string ascii;
  for (std::size_t at = 0; at < text.size();) {
    if (text.compare(at, minus.size(), minus) == 0) {
      ascii.push_back('-');
      at += minus.size();
    } else {
      ascii.push_back(text[at++]);
    }
  }
  return ascii;
}

}  // namespace table_tests

TEST_CASE("number_text writes the book's cases as the page and the prose write them", "[ch01]") {
  const nlohmann::json cases = nlohmann::json::parse(
#include "number_text_cases.inc"
  );
  REQUIRE(cases.at("tables").size() > 20);
  for (const nlohmann::json& one : cases.at("tables")) {
    const double value = table_tests::case_value(one.at("value"));
    const int decimals = one.value("decimals", 4);
    const std::string expected = one.contains("program") ? one.at("program").get<std::string>()
                                                         : table_tests::ascii_minus(one.at("text").get<std::string>());
    INFO(one.at("value").dump() << " to " << decimals << " decimals: " << one.at("why").get<std::string>());
    CHECK(program::number_text(value, decimals) == expected);
  }
}

TEST_CASE("number_text rounds to its decimals and drops trailing zeros", "[ch01]") {
  CHECK(program::number_text(2.0) == "2");
  CHECK(program::number_text(0.70710678) == "0.7071");
  CHECK(program::number_text(-0.00001) == "0");
  CHECK(program::number_text(123456.5, 2) == "123456.5");
  CHECK(program::number_text(-1e9) == "-1000000000");
  CHECK(program::number_text(999999999999999.0) == "999999999999999");
}

TEST_CASE("number_text writes numbers from 1e15 up in size in scientific notation", "[ch01]") {
  CHECK(program::number_text(1e15) == "1e15");
  CHECK(program::number_text(1e308) == "1e308");
  CHECK(program::number_text(-1e308) == "-1e308");
  CHECK(program::number_text(std::numeric_limits<double>::max()) == "1.7977e308");
  CHECK(program::number_text(1.23456789e20) == "1.2346e20");
  CHECK(program::number_text(1.23456789e20, 2) == "1.23e20");
  CHECK(program::number_text(-2.5e17, 3) == "-2.5e17");
  CHECK(program::number_text(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(program::number_text(-std::numeric_limits<double>::infinity()) == "-inf");
}

TEST_CASE("number_text of a huge number is short and reads back to within its rounding", "[ch01]") {
  attention::Mulberry32 random(20261201);
  for (int i = 0; i < 2000; ++i) {
    const double exponent = 15.0 + 293.0 * random.next_uniform();
    const double value = (random.next_uniform() < 0.5 ? -1.0 : 1.0) * std::pow(10.0, exponent);
    if (!std::isfinite(value)) continue;
    const std::string text = program::number_text(value);
    INFO(value << " printed as " << text);
    CHECK(text.size() <= 12);  // "-1.2345e308"
    CHECK(text.find('e') != std::string::npos);
    CHECK(std::abs(std::strtod(text.c_str(), nullptr) - value) <= 0.5e-4 * std::abs(value) * (1.0 + 1e-12));
  }
}

TEST_CASE("a table with entries near the largest double stays narrow", "[ch01]") {
  attention::Matrix m(2, 2);
  m << 1e308, -1.7e308, 0.5, 3.0;
  const std::string text = program::table("huge", m, {"a", "b"}, {"x", "y"});
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    INFO(line);
    CHECK(line.size() <= 40);
  }
  CHECK(text.find("1e308") != std::string::npos);
  CHECK(text.find("-1.7e308") != std::string::npos);
}
