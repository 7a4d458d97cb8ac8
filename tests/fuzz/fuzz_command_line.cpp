// Fuzzes program::CommandLine (src/program/command_line.hpp) with the parsers
// behind it, the way a chapter program uses them.
//
// The input is the argument vector, arguments separated by NUL bytes. The
// invariants are the book's contract for every program: the exit status is 0
// or 2 (1 would be an exception other than bad input); with 2, nothing on
// stdout and exactly one line on stderr, "fuzz: <message>", with no control
// characters; the message starts with an argument that was typed (a flag, or
// a value typed before any flag), and a message from a parser starts with its
// flag; with 0, nothing on stderr.
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "program/command_line.hpp"
#include "program/integer_list.hpp"
#include "program/matrix_text.hpp"
#include "program/real_number.hpp"

namespace {

// Swaps std::cout and std::cerr for strings while it lives.
class Captured {
 public:
  Captured() : out_(std::cout.rdbuf(out_text_.rdbuf())), err_(std::cerr.rdbuf(err_text_.rdbuf())) {}
  ~Captured() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  Captured(const Captured&) = delete;
  Captured& operator=(const Captured&) = delete;
  std::string out() const { return out_text_.str(); }
  std::string err() const { return err_text_.str(); }

 private:
  std::ostringstream out_text_, err_text_;
  std::streambuf* out_;
  std::streambuf* err_;
};

constexpr std::size_t max_arguments = 64;

// An argument as the one line on stderr shows it: control characters as '?',
// an empty one as ''.
std::string as_shown(std::string text) {
  if (text.empty()) return "''";
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return text;
}

// Whether @p message starts with one of @p arguments (or with its part before
// '='), followed by ':' or a space: "--q: ...", "--json excludes --json-file".
bool starts_with_an_argument(const std::string& message, const std::vector<std::string>& arguments) {
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    for (const std::string& head : {as_shown(arguments[i]), as_shown(arguments[i].substr(0, arguments[i].find('=')))}) {
      if (!head.empty() && message.size() > head.size() && message.compare(0, head.size(), head) == 0 &&
          (message[head.size()] == ':' || message[head.size()] == ' ')) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> arguments{"fuzz"};
  std::string current;
  for (std::size_t i = 0; i < size && arguments.size() < max_arguments; ++i) {
    if (data[i] == 0) {
      arguments.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (arguments.size() < max_arguments && !current.empty()) arguments.push_back(current);
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);

  std::string queries = "1,0;0,1", fill = "-inf", seed = "1", widths = "2,64,512", positions = "4";
  bool json = false;
  std::string parser_flag;  // the flag whose parser threw, if one did
  int status = 0;
  Captured captured;
  {
    program::CommandLine command_line{"fuzz", "A chapter program's command line, fuzzed."};
    command_line.option("--q", queries, "a matrix", "MATRIX");
    command_line.option("--fill", fill, "a number or -inf", "NUMBER");
    command_line.option("--seed", seed, "a whole number", "INTEGER");
    command_line.option("--dk", widths, "whole numbers", "LIST");
    command_line.option("--positions", positions, "a whole number", "N");
    command_line.flag("--json", json, "JSON");
    command_line.excludes("--positions", {"--q"});
    status = command_line.run(static_cast<int>(arguments.size()), argv.data(), [&] {
      parser_flag = "--q";
      program::parse_matrix(queries, "--q");
      parser_flag = "--fill";
      program::parse_real_number(fill, "--fill", program::MinusInfinity::accepted);
      parser_flag = "--seed";
      program::parse_whole_number(seed, "--seed", 0, 4294967295);
      parser_flag = "--dk";
      program::parse_whole_numbers(widths, "--dk", 1, 100000, 16);
      parser_flag = "--positions";
      program::parse_whole_number(positions, "--positions", 1, 1024);
      parser_flag.clear();
    });
  }
  const std::string out = captured.out(), err = captured.err();
  fuzz::require(status == 0 || status == 2, "the exit status is 0 or 2", err);
  if (status == 0) {
    fuzz::require(err.empty(), "a run that succeeds prints nothing on stderr", err);
    return 0;
  }
  fuzz::require(out.empty(), "bad input prints nothing on stdout", out);
  fuzz::require(err.size() > 7 && err.rfind("fuzz: ", 0) == 0 && err.back() == '\n',
                "bad input prints one line on stderr, \"<program>: <message>\"", err);
  for (std::size_t i = 0; i + 1 < err.size(); ++i) {
    const auto c = static_cast<unsigned char>(err[i]);
    fuzz::require(c >= 0x20 && c != 0x7f, "the line on stderr has no control characters and no second line", err);
  }
  if (!parser_flag.empty()) {
    fuzz::require(err.rfind("fuzz: " + parser_flag, 0) == 0, "a parser's message starts with its flag", err);
  }
  // A message cut short (one_line's " ..." after about 400 bytes) may have lost the end of a long argument.
  const std::string message = err.substr(6, err.size() - 7);
  const bool cut = message.size() >= 4 && message.compare(message.size() - 4, 4, " ...") == 0;
  if (!cut) {
    fuzz::require(starts_with_an_argument(message, arguments),
                  "every error message starts with the flag it is about (or the value typed before any flag)", err);
  }
  return 0;
}
