// What the fuzz targets share: the invariants they check, beyond "does not crash".
//
// A broken invariant prints what broke and the input, then aborts: libFuzzer
// saves the input as a crash file (crash-<hash>) and stops with a failure.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "program/usage_error.hpp"

namespace fuzz {

[[noreturn]] inline void broken(std::string_view invariant, std::string_view detail) {
  std::fprintf(stderr, "invariant broken: %.*s\n%.*s\n", static_cast<int>(invariant.size()), invariant.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline void require(bool holds, std::string_view invariant, std::string_view detail = {}) {
  if (!holds) broken(invariant, detail);
}

// The book's rule for bad input: the message starts with the flag it was given,
// so that the reader sees which flag to fix.
inline void require_names_flag(const program::UsageError& error, std::string_view flag) {
  const std::string_view message = error.what();
  require(message.substr(0, flag.size()) == flag, "an error message starts with the flag it was given",
          std::string(flag) + " | " + std::string(message));
}

// The flags a target passes to a parser, chosen by the input: plain ones, and
// the longer names the programs build ("--mask: the radius R of band:R").
inline constexpr std::string_view flags[] = {
    "--q", "--k", "--v", "--fill", "--seed", "--dk", "--mask: the radius R of band:R", "--scores"};

}  // namespace fuzz
