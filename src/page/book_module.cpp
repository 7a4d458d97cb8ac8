// The book's WebAssembly module: the chapter programs' computations, called
// from the page. One function, JSON in and JSON out:
//
//   book_call('{"program": "dot_product", "arguments": ["--q", "1,0;0,1"]}')
//     -> '{"status": 0, "json": {...what --json prints...}}'
//     or '{"status": 2, "error": "--q: ..."}' (the program's own message)
//
//   book_call('{"program": "dot_product", "defaults": true}')
//     -> '{"status": 0, "defaults": {"--q": "1,0; 0,1; 1,1", ...}}'
//        (each flag that takes a value, with the default --help shows: a
//        figure's controls start from these, docs/_static/interactive.js)
//
// Each chapter registers its program (chapters/NN_slug/slug.cpp, through
// program::register_chapter, or program::register_page_program for a chapter
// that keeps trained models between calls), so this file lists none of them.
#include <exception>
#include <string>
#include <vector>

#include <emscripten/emscripten.h>
#include <nlohmann/json.hpp>

#include "program/page_program.hpp"

namespace {
std::string response;  // lives until the next call; the page copies it out at once
}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE const char* book_call(const char* request) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(request);
    if (parsed.value("defaults", false)) {
      response = program::page_program_defaults(parsed.at("program").get<std::string>()).dump();
      return response.c_str();
    }
    const auto arguments = parsed.at("arguments").get<std::vector<std::string>>();
    response = program::call_page_program(parsed.at("program").get<std::string>(), arguments).dump();
  } catch (const std::exception& error) {
    response = nlohmann::json{{"status", 1}, {"error", std::string("the page's request: ") + error.what()}}.dump();
  }
  return response.c_str();
}

extern "C" EMSCRIPTEN_KEEPALIVE const char* book_programs() {
  response = nlohmann::json(program::page_program_names()).dump();
  return response.c_str();
}
