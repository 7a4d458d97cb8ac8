#include "program/registered_chapters.hpp"

#include <iostream>
#include <map>

namespace program {
namespace {

std::map<std::string, ChapterMain>& registry() {
  static std::map<std::string, ChapterMain> mains;  // built during static initialisation
  return mains;
}

}  // namespace

bool register_chapter_main(const std::string& name, ChapterMain main) {
  registry()[name] = std::move(main);
  return true;
}

int run_registered_chapter(const std::string& name, int argc, char** argv) {
  const auto found = registry().find(name);
  if (found == registry().end()) {
    std::cerr << name << ": no chapter registered its command line under this name (program::register_chapter)\n";
    return 1;
  }
  return found->second(argc, argv);
}

}  // namespace program
