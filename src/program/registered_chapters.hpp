// The command lines a program's sources registered, by name: how a chapter
// whose folder has no main.cpp gets its main(). A chapter registers its
// command line and its page entry in one call, program::register_chapter()
// (program/run_chapter.hpp); the build compiles src/program/chapter_main.cpp
// as the chapter program's main(), which runs the command line registered
// under the program's name.
#pragma once

#include <functional>
#include <string>

namespace program {

/// A chapter program's whole main(): from argc and argv to the exit status.
using ChapterMain = std::function<int(int argc, char** argv)>;

/// Adds @p main to the command lines of this program, under @p name (the
/// chapter program's name, e.g. "dot_product"). Returns true.
bool register_chapter_main(const std::string& name, ChapterMain main);

/// Runs the command line registered as @p name with @p argc and @p argv, and
/// returns its exit status. A name nothing registered is the build's fault,
/// not the reader's: one line on stderr and exit status 1.
int run_registered_chapter(const std::string& name, int argc, char** argv);

}  // namespace program
