// Calls a chapter's page program natively, as the book's WebAssembly module
// does in the page, so that a test can hold it to the command-line program.
//
//   page_call <program> [arguments...]   prints call_page_program()'s answer:
//                                        {"status": 0, "json": ...} or
//                                        {"status": 2, "error": "..."}
//   page_call --list                     prints the registered programs, one a line
//   page_call --defaults <program>       prints page_program_defaults()'s answer:
//                                        {"status": 0, "defaults": {flag: default}}
//   page_call --each                     reads one call a line from stdin, a JSON
//                                        array [program, arguments...], and prints
//                                        each answer on one line: one process for
//                                        many calls, as the page's module is
//
// It is linked with every chapter's computation (the object libraries
// book_chapter() lists in BOOK_COMPUTATION_TARGETS), whose registrations run
// before main().
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "program/freed_memory.hpp"
#include "program/page_program.hpp"

int main(int argc, char** argv) {
  program::keep_freed_memory();  // as every program does (program/freed_memory.hpp)
  const std::vector<std::string> words(argv + 1, argv + argc);
  if (words.empty()) {
    std::cerr << "usage: page_call <program> [arguments...] | page_call --list | page_call --defaults <program>\n";
    return 2;
  }
  if (words.front() == "--list") {
    for (const std::string& name : program::page_program_names()) std::cout << name << '\n';
    return 0;
  }
  if (words.front() == "--defaults" && words.size() == 2) {
    std::cout << program::page_program_defaults(words[1]).dump(2) << '\n';
    return 0;
  }
  if (words.front() == "--each") {
    std::string line;
    while (std::getline(std::cin, line)) {
      const auto call = nlohmann::json::parse(line).get<std::vector<std::string>>();
      if (call.empty()) {
        std::cerr << "page_call --each: an empty call\n";
        return 2;
      }
      const std::vector<std::string> arguments(call.begin() + 1, call.end());
      std::cout << program::call_page_program(call.front(), arguments).dump() << std::endl;
    }
    return 0;
  }
  const std::vector<std::string> arguments(words.begin() + 1, words.end());
  std::cout << program::call_page_program(words.front(), arguments).dump(2) << '\n';
  return 0;
}
