// What the chapters' in-process tests (chapters/NN_slug/test_*.cpp) share,
// beside the library tests' support.hpp: the toy and random matrices as a
// chapter's inputs, with labels.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "program/attention_inputs.hpp"
#include "program/command_line.hpp"
#include "support.hpp"

namespace chapter_support {

using support::random_matrix;

/// Queries, keys and values as a chapter's inputs, labelled q1, q2, … and k1, k2, ….
inline program::AttentionInputs tokens_of(attention::Matrix queries, attention::Matrix keys, attention::Matrix values) {
  program::AttentionInputs tokens{std::move(queries), std::move(keys), std::move(values), {}, {}};
  for (Eigen::Index i = 0; i < tokens.queries.rows(); ++i) tokens.query_labels.push_back(fmt::format("q{}", i + 1));
  for (Eigen::Index j = 0; j < tokens.keys.rows(); ++j) tokens.key_labels.push_back(fmt::format("k{}", j + 1));
  return tokens;
}

/// The book's toy sentence "cat eat fish" (chapter 1), typed out again here (support::Toy).
inline program::AttentionInputs toy() {
  const support::Toy toy;
  return tokens_of(toy.queries, toy.keys, toy.values);
}

/// A chapter's inputs from command-line arguments, read by its Flags as the page reads them (a refusal throws).
template <class Flags>
auto read_flags(const std::string& name, const std::string& description, const std::vector<std::string>& arguments) {
  program::CommandLine command_line{name, description};
  Flags flags(command_line);
  decltype(flags.read()) inputs;
  command_line.parse_for_page(arguments, [&] { inputs = flags.read(); });
  return inputs;
}

}  // namespace chapter_support
