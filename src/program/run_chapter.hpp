// A chapter program's command line and its page entry, registered in one call,
// register_chapter() (at the end). The command line (run_chapter()) gets the
// program's name and description, the chapter's flags and the output flags of
// program/json_flags.hpp; the run reads the flags, computes the chapter once
// and prints its tables, or its JSON document with --json (with --json-file,
// both, from that one run). Bad input gets one line on stderr and exit status 2
// (CommandLine::run). The page reaches the same flags and the same computation
// through register_chapter_for_page() (program/page_program.hpp). The
// program's main() (src/program/chapter_main.cpp) runs the command line the
// chapter registered (program/registered_chapters.hpp).
#pragma once

#include <string>

#include "program/command_line.hpp"
#include "program/json_flags.hpp"
#include "program/page_program.hpp"
#include "program/progress_line.hpp"
#include "program/registered_chapters.hpp"

namespace program {

/// The whole main() of a chapter program whose flags choose among results of
/// different types (chapter 13: the language alone, one training, or several
/// seeds): the command line of run_chapter(), below, and @p run(flags, output)
/// computes what the flags ask for and prints it with output.print().
/// register_chapter_with_modes(), below, registers it as the program's command
/// line.
template <class Flags, class Run>
int run_chapter_with_modes(int argc, char** argv, const std::string& name, const std::string& description, Run run) {
  CommandLine command_line{name, description};
  Flags flags(command_line);
  const JsonFlags output(command_line, "print the values as one JSON document instead of tables",
                         "also write the JSON document to this file, from the same run as the tables");
  return command_line.run(argc, argv, [&] { run(flags, output); });
}

/// The whole main() of the chapter program @p name, described by
/// @p description in --help: its Flags (a class constructed from a
/// CommandLine, whose read() gives the inputs), then --json and --json-file;
/// the run calls @p compute on the inputs, then prints @p tables of the result,
/// or @p to_json of it. Returns main()'s exit status. register_chapter(),
/// below, registers it as the program's command line.
template <class Flags, class Compute, class ToJson, class Tables>
int run_chapter(int argc, char** argv, const std::string& name, const std::string& description, Compute compute,
                ToJson to_json, Tables tables) {
  return run_chapter_with_modes<Flags>(argc, argv, name, description, [&](Flags& flags, const JsonFlags& output) {
    const auto result = compute(flags.read());
    output.print([&] { return to_json(result); }, [&] { return tables(result); });
  });
}

/// A computation that trains, compute(inputs, progress), as run_chapter()
/// calls it, compute(inputs): with the progress line of @p make_progress(line)
/// (e.g. step_progress, program/trainings.hpp) on stderr while it runs, where
/// stderr is a terminal, and cleared once it has run (a line that a last
/// '\n' left on the terminal stays):
///   program::showing_progress(norm_placement::compute, program::step_progress)
template <class Compute, class MakeProgress>
auto showing_progress(Compute compute, MakeProgress make_progress) {
  return [compute, make_progress](const auto& inputs) {
    ProgressLine line;
    auto result = compute(inputs, make_progress(line));
    line.clear();
    return result;
  };
}

/// A chapter in the book's usual shape, registered once, beside its
/// compute(), for both its front ends: the command line of run_chapter(),
/// which the program's main() runs (src/program/chapter_main.cpp), and the
/// page's entry of register_chapter_for_page(). The arguments are
/// run_chapter()'s. Returns true, so that a chapter registers at namespace
/// scope:
///   const bool registered = program::register_chapter<Flags>(
///       "dot_product", "Chapter 1 of ...", compute, to_json, tables);
/// The page's module registers only the page's entry: it has no command line.
template <class Flags, class Compute, class ToJson, class Tables>
bool register_chapter(const std::string& name, [[maybe_unused]] const std::string& description, Compute compute,
                      ToJson to_json, [[maybe_unused]] Tables tables) {
  register_chapter_for_page<Flags>(name, compute, to_json);
#ifndef __EMSCRIPTEN__
  register_chapter_main(name, [=](int argc, char** argv) {
    return run_chapter<Flags>(argc, argv, name, description, compute, to_json, tables);
  });
#endif
  return true;
}

/// The same for a computation that trains, compute(inputs, progress): the
/// command line shows the progress line of @p make_progress(line) while it
/// runs (showing_progress(), above), and the page calls compute(inputs, {}),
/// with no progress:
///   const bool registered = program::register_chapter<Flags>(
///       "norm_placement", "Chapter 16 of ...", compute, to_json, tables, program::step_progress);
template <class Flags, class Compute, class ToJson, class Tables, class MakeProgress>
bool register_chapter(const std::string& name, [[maybe_unused]] const std::string& description, Compute compute,
                      ToJson to_json, [[maybe_unused]] Tables tables, [[maybe_unused]] MakeProgress make_progress) {
  register_chapter_for_page<Flags>(
      name, [compute](const auto& inputs) { return compute(inputs, {}); }, to_json);
#ifndef __EMSCRIPTEN__
  register_chapter_main(name, [=](int argc, char** argv) {
    return run_chapter<Flags>(argc, argv, name, description, showing_progress(compute, make_progress), to_json, tables);
  });
#endif
  return true;
}

/// A chapter whose flags choose among results of different types, registered
/// once, beside its compute(): the command line of run_chapter_with_modes(),
/// which the program's main() runs (src/program/chapter_main.cpp). Such a
/// chapter registers its page entry itself (register_page_program()), since
/// the page keeps its trained models between calls. Returns true:
///   const bool registered = program::register_chapter_with_modes<Flags>(
///       "training", "Chapter 11 of ...", [](Flags& flags, const program::JsonFlags& output) { ... });
template <class Flags, class Run>
bool register_chapter_with_modes([[maybe_unused]] const std::string& name,
                                 [[maybe_unused]] const std::string& description, [[maybe_unused]] Run run) {
#ifndef __EMSCRIPTEN__
  register_chapter_main(name, [=](int argc, char** argv) {
    return run_chapter_with_modes<Flags>(argc, argv, name, description, run);
  });
#endif
  return true;
}

}  // namespace program
