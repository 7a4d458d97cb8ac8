// The page's way into a chapter program: the same flags, the same checks and
// the same computation as the command line, with the JSON that --json prints
// handed back instead of printed. The book's WebAssembly module (src/page/)
// calls it; a chapter registers its program once, beside its compute().
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "program/command_line.hpp"

namespace program {

/// What a chapter gives the page: from the arguments a reader would type
/// (without the program's name) to the document --json prints.
using PageProgram = std::function<nlohmann::json(const std::vector<std::string>& arguments)>;

/// What a chapter gives the page besides: each of its flags that takes a
/// value, with its default (CommandLine::defaults()). A figure's control
/// starts from these, so that the page never types a default of its own.
using PageDefaults = std::function<std::map<std::string, std::string>()>;

/// The defaults of @p Flags (a class constructed from a CommandLine) on a
/// command line named @p name, for register_page_program().
template <class Flags>
PageDefaults flag_defaults(const std::string& name) {
  return [name] {
    CommandLine command_line{name, ""};
    const Flags flags(command_line);
    return command_line.defaults();
  };
}

/// Adds @p program to the programs the page can call, under @p name (the
/// chapter program's name, e.g. "dot_product"), with its flags' @p defaults.
/// Returns true.
bool register_page_program(const std::string& name, PageProgram program, PageDefaults defaults);

/// Calls the program registered as @p name with @p arguments. Returns
/// {"status": 0, "json": <document>} or {"status": 2, "error": "<message>"}
/// with the one-line message the command line would print after
/// "<name>: " (status 1 for an error that is not the input's fault). Never throws.
nlohmann::json call_page_program(const std::string& name, const std::vector<std::string>& arguments);

/// The defaults of the flags of the program registered as @p name:
/// {"status": 0, "defaults": {"--q": "1,0; 0,1; 1,1", ...}}, or {"status": 2,
/// "error": "..."} for a name no program is registered under. Never throws.
nlohmann::json page_program_defaults(const std::string& name);

/// The names of the registered programs, sorted.
std::vector<std::string> page_program_names();

/// Registers a chapter in the book's usual shape under @p name (the chapter
/// program's name): its Flags (a class constructed from a CommandLine, whose
/// read() gives the inputs), @p compute and @p to_json. The page then gets
/// what --json prints, from the same flags and the same checks. Returns true,
/// so that it can be called at namespace scope. A chapter calls it through
/// program::register_chapter() (program/run_chapter.hpp), which registers its
/// command line with it.
template <class Flags, class Compute, class ToJson>
bool register_chapter_for_page(const std::string& name, Compute compute, ToJson to_json) {
  return register_page_program(
      name,
      [name, compute, to_json](const std::vector<std::string>& arguments) {
        CommandLine command_line{name, ""};
        Flags flags(command_line);
        nlohmann::json result;
        command_line.parse_for_page(arguments, [&] { result = to_json(compute(flags.read())); });
        return result;
      },
      flag_defaults<Flags>(name));
}

}  // namespace program
