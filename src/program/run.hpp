// The frame around every chapter program: parse the command line, run, and
// turn any bad input into one line on stderr and exit status 2.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace program {

/// Exit status for input the program cannot use.
inline constexpr int usage_status = 2;

/// Parses @p argc / @p argv with @p app, then calls @p body. --help prints the
/// help and returns 0. A parse error, a UsageError or any other exception
/// prints "<program>: <message>" as one line on stderr and returns 2 (bad
/// input) or 1 (anything else). Never lets an exception escape.
int run(CLI::App& app, int argc, char** argv, const std::function<void()>& body);

}  // namespace program
