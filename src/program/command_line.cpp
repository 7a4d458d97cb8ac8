#include "program/command_line.hpp"

#include <algorithm>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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

}  // namespace

CommandLine::CommandLine(const std::string& name, const std::string& description)
    : app_(std::make_unique<CLI::App>(description, name)) {}

CommandLine::~CommandLine() = default;

void CommandLine::option(const std::string& flag, std::string& value, const std::string& help,
                         const std::string& type_name) {
  app_->add_option(flag, value, help)->capture_default_str()->type_name(type_name);
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
}

void CommandLine::excludes(const std::string& flag, const std::vector<std::string>& others) {
  for (const std::string& other : others) {
    app_->get_option(flag)->excludes(app_->get_option(other));
  }
}

bool CommandLine::given(const std::string& flag) const { return app_->get_option(flag)->count() > 0; }

int CommandLine::run(int argc, char** argv, const std::function<void()>& body) {
#ifdef BOOK_RUN_SERVER
  serve_runs_if_asked(argc, argv);  // the sanitizer build only: see program/run_server.hpp
#endif
  const auto fail = [&](const std::string& message, int status) {
    std::cerr << app_->get_name() << ": " << one_line(message) << '\n';
    return status;
  };
  try {
    app_->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app_->help();
    return 0;
  } catch (const CLI::ParseError& error) {
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
  // CLI11 takes the arguments last to first.
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());
  try {
    app_->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw UsageError("--help: the page shows no help; see the program's --help");
  } catch (const CLI::ParseError& error) {
    throw UsageError(one_line(error.what()));
  }
  try {
    body();
  } catch (const UsageError& error) {
    throw UsageError(one_line(error.what()));
  }
}

}  // namespace program
