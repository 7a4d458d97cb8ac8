// The page's way into a chapter program: the same flags, the same checks and
// the same computation as the command line, with the JSON that --json prints
// handed back instead of printed. The book's WebAssembly module (src/page/)
// calls it; a chapter registers its program once, beside its compute().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "program/command_line.hpp"

namespace program {

/// What a chapter gives the page: from the arguments a reader would type
/// (without the program's name) to the document --json prints.
using PageProgram = std::function<nlohmann::json(const std::vector<std::string>& arguments)>;

/// Adds @p program to the programs the page can call, under @p name (the
/// chapter program's name, e.g. "dot_product"). Returns true, so that a
/// chapter can register at namespace scope:
///   const bool registered = program::register_page_program("dot_product", ...);
bool register_page_program(const std::string& name, PageProgram program);

/// Calls the program registered as @p name with @p arguments. Returns
/// {"status": 0, "json": <document>} or {"status": 2, "error": "<message>"}
/// with the one-line message the command line would print after
/// "<name>: " (status 1 for an error that is not the input's fault). Never throws.
nlohmann::json call_page_program(const std::string& name, const std::vector<std::string>& arguments);

/// The names of the registered programs, sorted.
std::vector<std::string> page_program_names();

/// The usual PageProgram: declares the chapter's flags (a class constructed
/// from a CommandLine, with read() giving the inputs) on a command line named
/// @p name, parses @p arguments, and returns @p document(flags.read()).
template <class Flags, class Document>
nlohmann::json run_for_page(const std::string& name, const std::vector<std::string>& arguments, Document document) {
  CommandLine command_line{name, ""};
  Flags flags(command_line);
  nlohmann::json result;
  command_line.parse_for_page(arguments, [&] { result = document(flags.read()); });
  return result;
}

}  // namespace program
