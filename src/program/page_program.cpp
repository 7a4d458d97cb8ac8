#include "program/page_program.hpp"

#include <exception>
#include <map>

#include "program/usage_error.hpp"

namespace program {
namespace {

struct Registered {
  PageProgram program;
  PageDefaults defaults;
};

std::map<std::string, Registered>& registry() {
  static std::map<std::string, Registered> programs;  // built during static initialisation
  return programs;
}

}  // namespace

bool register_page_program(const std::string& name, PageProgram program, PageDefaults defaults) {
  registry()[name] = Registered{std::move(program), std::move(defaults)};
  return true;
}

nlohmann::json call_page_program(const std::string& name, const std::vector<std::string>& arguments) {
  const auto found = registry().find(name);
  if (found == registry().end()) {
    return {{"status", usage_status}, {"error", "no program named '" + name + "' in this module"}};
  }
  try {
    return {{"status", 0}, {"json", found->second.program(arguments)}};
  } catch (const UsageError& error) {
    return {{"status", usage_status}, {"error", error.what()}};
  } catch (const std::exception& error) {
    return {{"status", 1}, {"error", error.what()}};
  }
}

nlohmann::json page_program_defaults(const std::string& name) {
  const auto found = registry().find(name);
  if (found == registry().end()) {
    return {{"status", usage_status}, {"error", "no program named '" + name + "' in this module"}};
  }
  try {
    return {{"status", 0}, {"defaults", found->second.defaults()}};
  } catch (const std::exception& error) {
    return {{"status", 1}, {"error", error.what()}};
  }
}

std::vector<std::string> page_program_names() {
  std::vector<std::string> names;
  for (const auto& [name, registered] : registry()) {
    names.push_back(name);
  }
  return names;
}

}  // namespace program
