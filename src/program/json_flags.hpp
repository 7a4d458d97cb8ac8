// The output flags of a program whose run cannot simply be repeated (its
// timings differ from run to run, or it trains): --json prints the JSON
// document instead of the tables; --json-file writes it to a file from the same
// run that prints the tables, so the book captures one run, not two.
#pragma once

#include <functional>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "program/command_line.hpp"
#include "program/json_output.hpp"
#include "program/usage_error.hpp"

namespace program {

class JsonFlags {
 public:
  /// Declares --json and --json-file (excluding each other) with these help
  /// texts. --json-file '' is refused before the program computes anything, as
  /// the command line refuses --json-file --json (a flag where the path should be).
  JsonFlags(CommandLine& command_line, const std::string& json_help, const std::string& json_file_help)
      : command_line_(command_line) {
    command_line.flag("--json", json_, json_help);
    command_line.option("--json-file", json_file_, json_file_help, "PATH");
    command_line.excludes("--json", {"--json-file"});
    command_line.add_check([this, &command_line] {
      if (command_line.given("--json-file") && json_file_.empty()) {
        throw UsageError("--json-file: expected the PATH of a file to write, got an empty one");
      }
    });
  }
  JsonFlags(const JsonFlags&) = delete;  // the command line holds references to the members
  JsonFlags& operator=(const JsonFlags&) = delete;

  /// Prints the document (--json), or writes it to the file (--json-file) and prints the tables. Tables
  /// with no JSON beside them end by naming each flag typed whose effect is only in the JSON
  /// (CommandLine::only_in_json()), so that it is not silently lost.
  void print(const std::function<nlohmann::json()>& document, const std::function<std::string()>& tables) const {
    if (json_) {
      std::cout << document().dump(2) << '\n';
      return;
    }
    if (!json_file_.empty()) write_json_file(document(), json_file_, "--json-file");
    std::cout << tables();
    if (json_file_.empty()) {
      for (const std::string& flag : command_line_.given_only_in_json()) {
        std::cout << "\n" << flag << " adds to the JSON only: add --json, or --json-file PATH\n";
      }
    }
  }

 private:
  const CommandLine& command_line_;
  bool json_ = false;
  std::string json_file_;
};

}  // namespace program
