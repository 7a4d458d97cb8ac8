#include "program/run.hpp"

#include <exception>
#include <iostream>
#include <string>

#include "program/usage_error.hpp"

namespace program {
namespace {

// One line, whatever the message holds.
std::string one_line(std::string message) {
  for (char& c : message) {
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  return message;
}

int fail(const CLI::App& app, const std::string& message, int status) {
  std::cerr << app.get_name() << ": " << one_line(message) << '\n';
  return status;
}

}  // namespace

int run(CLI::App& app, int argc, char** argv, const std::function<void()>& body) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& error) {
    return fail(app, error.what(), usage_status);
  }
  try {
    body();
  } catch (const CLI::ParseError& error) {
    return fail(app, error.what(), usage_status);
  } catch (const UsageError& error) {
    return fail(app, error.what(), usage_status);
  } catch (const std::exception& error) {
    return fail(app, error.what(), 1);
  }
  return 0;
}

}  // namespace program
