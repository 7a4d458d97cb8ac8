// program::register_chapter_main and run_registered_chapter: the main() that
// src/program/chapter_main.cpp gives a chapter without main.cpp runs the
// command line registered under the program's name, with the program's own
// argc and argv, and returns its exit status; a name nothing registered is
// one line on stderr and exit status 1.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "program/registered_chapters.hpp"

TEST_CASE("run_registered_chapter runs the command line registered under the name", "[ch01]") {
  std::vector<std::string> seen;
  program::register_chapter_main("registry_test_one", [&seen](int argc, char** argv) {
    for (int i = 0; i < argc; ++i) seen.emplace_back(argv[i]);
    return 2;
  });
  program::register_chapter_main("registry_test_other", [](int, char**) { return 0; });
  std::string name = "registry_test_one";
  std::string flag = "--q";
  std::vector<char*> arguments{name.data(), flag.data(), nullptr};
  CHECK(program::run_registered_chapter("registry_test_one", 2, arguments.data()) == 2);
  CHECK(seen == std::vector<std::string>{"registry_test_one", "--q"});
  CHECK(program::run_registered_chapter("registry_test_other", 2, arguments.data()) == 0);
}

TEST_CASE("run_registered_chapter names a program nothing registered and returns 1", "[ch01]") {
  std::ostringstream captured;
  std::streambuf* const kept = std::cerr.rdbuf(captured.rdbuf());
  std::string name = "no_such_chapter";
  std::vector<char*> arguments{name.data(), nullptr};
  const int status = program::run_registered_chapter("no_such_chapter", 1, arguments.data());
  std::cerr.rdbuf(kept);
  CHECK(status == 1);
  CHECK(captured.str() ==
        "no_such_chapter: no chapter registered its command line under this name (program::register_chapter)\n");
}
