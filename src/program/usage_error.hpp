// Bad input from the command line: the message names the flag and what was expected.
#pragma once

#include <stdexcept>
#include <string>

namespace program {

/// Thrown for input the program cannot use. run() prints the message as one
/// line on stderr and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace program
