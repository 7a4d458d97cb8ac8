#include "program/command_line.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <iostream>
#include <optional>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "program/freed_memory.hpp"
#include "program/matrix_text.hpp"
#include "program/usage_error.hpp"
#ifdef BOOK_RUN_SERVER
#include "program/run_server.hpp"
#endif

namespace program {
namespace {

// One readable line, whatever the message holds: control characters typed in
// the input become '?', and a message that quotes a huge argument is cut short.
std::string one_line(std::string message) {
  constexpr std::size_t longest = 400;
  for (char& c : message) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      c = '?';
    }
  }
  if (message.size() > longest) {
    message.resize(longest);
    // Do not end inside a UTF-8 character: drop its continuation bytes and its lead byte.
    while (!message.empty() && (static_cast<unsigned char>(message.back()) & 0xC0) == 0x80) {
      message.pop_back();
    }
    if (!message.empty() && static_cast<unsigned char>(message.back()) >= 0xC0) {
      message.pop_back();
    }
    message += " ...";
  }
  return message;
}

// An argument typed where a flag may stand: a dash, then anything but a digit
// or a point ("-1" and "-.5" are numbers; "-" alone and "--" alone are values).
bool typed_as_flag(std::string_view argument) {
  if (argument.size() < 2 || argument[0] != '-' || argument == "--") return false;
  const auto next = static_cast<unsigned char>(argument[1]);
  return !std::isdigit(next) && next != '.';
}

// A value that is a flag in all likelihood: "--" and a letter. CLI11 would take
// it as the value ("--json-file --json" wrote a file named --json).
bool looks_like_a_flag(std::string_view value) {
  return value.size() > 2 && value[0] == '-' && value[1] == '-' && std::isalpha(static_cast<unsigned char>(value[2]));
}

// The first thing wrong with the shape of @p arguments (in the order typed),
// as a message that starts with the argument to fix; nothing if the shape is
// right (then --help, if typed, prints the help).
// CLI11 reports these too, but in its words, which name no flag ("The
// following argument was not expected: 5") or not as typed ("json was given
// a disallowed flag override").
std::optional<std::string> misshapen(const std::vector<std::string>& arguments,
                                     const std::map<std::string, std::string, std::less<>>& value_flags,
                                     const std::set<std::string, std::less<>>& bare_flags) {
  std::set<std::string, std::less<>> given;  // flags with a value, typed so far
  std::string_view previous;                 // the flag of the argument before, if any
  bool previous_took_value = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string_view argument = arguments[i];
    if (!typed_as_flag(argument)) {
      if (previous.empty()) {
        return fmt::format("{}: a value with no flag before it; each value follows the flag it is for (see --help)",
                           argument.empty() ? "''" : argument);
      }
      if (previous_took_value) {
        return fmt::format("{}: takes one value; '{}' after it is one too many (quote a value that has spaces)",
                           previous, argument);
      }
      return fmt::format("{}: takes no value, but '{}' follows it", previous, argument);
    }
    const std::size_t equals = argument.find('=');
    const std::string_view flag = argument.substr(0, equals);
    const bool has_value = equals != std::string_view::npos;
    if (const auto declared = value_flags.find(flag); declared != value_flags.end()) {
      const std::string& placeholder = declared->second;
      if (!given.insert(std::string(flag)).second) {
        return fmt::format("{}: given twice; give it once", flag);
      }
      std::string_view value;
      if (has_value) {
        value = argument.substr(equals + 1);
        // CLI11 would take the next argument as the value.
        if (value.empty()) return fmt::format("{}: expected a {} after '=', got nothing", flag, placeholder);
      } else {
        if (i + 1 == arguments.size()) return fmt::format("{}: expected a {} after it", flag, placeholder);
        value = arguments[++i];
      }
      if (looks_like_a_flag(value)) {
        return fmt::format("{}: expected a {} after it, not the flag {}", flag, placeholder,
                           value.substr(0, value.find('=')));
      }
      previous = flag;
      previous_took_value = true;
    } else if (bare_flags.count(flag) > 0) {
      if (has_value) return fmt::format("{}: takes no value; remove '{}'", flag, argument.substr(equals));
      previous = flag;
      previous_took_value = false;
    } else {
      return fmt::format("{}: unknown flag; see --help for the flags this program takes", flag);
    }
  }
  return std::nullopt;
}

}  // namespace

CommandLine::CommandLine(const std::string& name, const std::string& description)
    : app_(std::make_unique<CLI::App>(description, name)), bare_flags_{"--help", "-h"} {}

CommandLine::~CommandLine() = default;

void CommandLine::option(const std::string& flag, std::string& value, const std::string& help,
                         const std::string& type_name) {
  app_->add_option(flag, value, help)->capture_default_str()->type_name(type_name);
  value_flags_.emplace(flag, type_name);
  if (type_name == "MATRIX" || type_name == "MATRICES") {
    note(fmt::format("A MATRIX is rows separated by ';', entries by ',', each a finite number: at most {} rows "
                     "and {} entries per row, fewer where a flag says so.",
                     max_matrix_side, max_matrix_side));
  }
}

void CommandLine::note(const std::string& text) {
  if (std::find(notes_.begin(), notes_.end(), text) != notes_.end()) return;
  notes_.push_back(text);
  std::string footer;
  for (const std::string& line : notes_) footer += (footer.empty() ? "" : "\n") + line;
  app_->footer(footer);
}

void CommandLine::flag(const std::string& flag, bool& value, const std::string& help) {
  app_->add_flag(flag, value, help)->disable_flag_override();  // --json=0 is refused, not read as "no"
  bare_flags_.insert(flag);
}

void CommandLine::excludes(const std::string& flag, const std::vector<std::string>& others) {
  for (const std::string& other : others) {
    app_->get_option(flag)->excludes(app_->get_option(other));
  }
}

std::map<std::string, std::string> CommandLine::defaults() const {
  std::map<std::string, std::string> found;
  for (const auto& entry : value_flags_) found.emplace(entry.first, app_->get_option(entry.first)->get_default_str());
  return found;
}

bool CommandLine::given(const std::string& flag) const { return app_->get_option(flag)->count() > 0; }

std::vector<std::string> CommandLine::given_only_in_json() const {
  std::vector<std::string> typed;
  for (const std::string& flag : only_in_json_) {
    if (given(flag)) typed.push_back(flag);
  }
  return typed;
}

void CommandLine::add_check(std::function<void()> check) { checks_.push_back(std::move(check)); }

void CommandLine::parse(const std::vector<std::string>& arguments) {
  if (const std::optional<std::string> problem = misshapen(arguments, value_flags_, bare_flags_)) {
    throw UsageError(*problem);
  }
  // CLI11 takes the arguments last to first.
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());
  try {
    app_->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw;
  } catch (const CLI::ParseError& error) {
    // What is left to CLI11 once the shape is right: two flags that exclude each
    // other, "--json excludes --json-file", which starts with a flag typed.
    throw UsageError(error.what());
  }
  for (const std::function<void()>& check : checks_) check();
}

int CommandLine::run(int argc, char** argv, const std::function<void()>& body) {
  keep_freed_memory();  // program/freed_memory.hpp: large temporaries reused, not fetched afresh
#ifdef BOOK_RUN_SERVER
  serve_runs_if_asked(argc, argv);  // the sanitizer build only: see program/run_server.hpp
#endif
  const auto fail = [&](const std::string& message, int status) {
    std::cerr << app_->get_name() << ": " << one_line(message) << '\n';
    return status;
  };
  try {
    parse(std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
  } catch (const CLI::CallForHelp&) {
    std::cout << app_->help();
    return 0;
  } catch (const UsageError& error) {
    return fail(error.what(), usage_status);
  } catch (const std::exception& error) {
    return fail(error.what(), 1);
  }
  try {
    body();
  } catch (const UsageError& error) {
    return fail(error.what(), usage_status);
  } catch (const std::exception& error) {
    return fail(error.what(), 1);
  }
  return 0;
}

void CommandLine::parse_for_page(const std::vector<std::string>& arguments, const std::function<void()>& body) {
  try {
    parse(arguments);
  } catch (const CLI::CallForHelp&) {
    throw UsageError("--help: the page shows no help; see the program's --help");
  } catch (const UsageError& error) {
    throw UsageError(one_line(error.what()));
  }
  try {
    body();
  } catch (const UsageError& error) {
    throw UsageError(one_line(error.what()));
  }
}

}  // namespace program
