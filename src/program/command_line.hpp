// The frame around every chapter program: its flags, --help, and turning bad
// input into one line on stderr and exit status 2.
//
// CLI11 does the parsing, behind this class: it is a large header-only library,
// and compiling it once (in command_line.cpp) instead of in every program keeps
// the build fast.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace program {

/// Exit status for input the program cannot use.
inline constexpr int usage_status = 2;

/// A program's command line. Flags that take a value are read as text; the
/// program parses the text itself (program/matrix_text.hpp and friends), so
/// that a bad value gets a message naming the flag and what was expected.
class CommandLine {
 public:
  CommandLine(const std::string& name, const std::string& description);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  /// A flag that takes a value: --q "1,0;0,1". @p value holds the default,
  /// which --help shows, and receives what was typed. @p type_name is the
  /// placeholder --help shows for the value.
  void option(const std::string& flag, std::string& value, const std::string& help,
              const std::string& type_name = "TEXT");

  /// A flag without a value, such as --json.
  void flag(const std::string& flag, bool& value, const std::string& help);

  /// Marks @p flag (declared already) as one whose effect is only in the JSON
  /// document (--weights, --draw): a run that prints tables says so under
  /// them when it was typed (program/json_flags.hpp), instead of ignoring it.
  void only_in_json(const std::string& flag) { only_in_json_.push_back(flag); }

  /// The flags only_in_json() marked that were typed, in the order marked.
  std::vector<std::string> given_only_in_json() const;

  /// Refuses @p flag on the same command line as any of @p others.
  void excludes(const std::string& flag, const std::vector<std::string>& others);

  /// A line under the flags in --help: a limit that spans several flags, or
  /// one that a flag's own text leaves out. A program with a MATRIX or
  /// MATRICES flag gets the limits of every matrix (program/matrix_text.hpp)
  /// without asking. A note given twice is shown once.
  void note(const std::string& text);

  /// Each flag that takes a value, with its default as --help shows it
  /// (what option() found in its value): the page's figures start from these.
  std::map<std::string, std::string> defaults() const;

  /// After parsing: whether @p flag was typed.
  bool given(const std::string& flag) const;

  /// Adds a check that runs after parsing and before the body, such as "a
  /// path, not an empty one": it throws UsageError naming its flag.
  void add_check(std::function<void()> check);

  /// Parses the command line, then runs the checks and calls @p body. --help
  /// prints the help and returns 0. Bad input (a parse error or a UsageError)
  /// prints "<program>: <message>" as one line on stderr and returns 2; any
  /// other exception does the same and returns 1. Never lets an exception
  /// escape.
  ///
  /// Every message about the shape of the command line starts with the flag
  /// to fix: a flag the program does not have ("--qq: unknown flag ..."), a
  /// flag without its value, with a flag where its value should be, given
  /// twice, or followed by a value it does not take. A value typed before any
  /// flag is named itself.
  int run(int argc, char** argv, const std::function<void()>& body);

  /// For the page: parses @p arguments (without the program's name) as run()
  /// does, then calls @p body. Bad input throws UsageError with the one-line
  /// message run() would print after "<program>: "; --help is refused.
  void parse_for_page(const std::vector<std::string>& arguments, const std::function<void()>& body);

 private:
  /// Parses @p arguments (in the order typed); throws UsageError for a
  /// command line of the wrong shape, CLI::CallForHelp for --help.
  void parse(const std::vector<std::string>& arguments);

  std::unique_ptr<CLI::App> app_;
  std::vector<std::string> notes_;
  std::map<std::string, std::string, std::less<>> value_flags_;  // flag → the placeholder of its value
  std::set<std::string, std::less<>> bare_flags_;                // flags without a value, --help among them
  std::vector<std::function<void()>> checks_;
  std::vector<std::string> only_in_json_;
};

}  // namespace program
