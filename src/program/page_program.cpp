#include "program/page_program.hpp"

#include <exception>
#include <map>

#include "program/usage_error.hpp"

namespace program {
namespace {

std::map<std::string, PageProgram>& registry() {
  static std::map<std::string, PageProgram> programs;  // built during static initialisation
  return programs;
}

}  // namespace

bool register_page_program(const std::string& name, PageProgram program) {
  registry()[name] = std::move(program);
  return true;
}

nlohmann::json call_page_program(const std::string& name, const std::vector<std::string>& arguments) {
  const auto found = registry().find(name);
  if (found == registry().end()) {
    return {{"status", usage_status}, {"error", "no program named '" + name + "' in this module"}};
  }
  try {
    return {{"status", 0}, {"json", found->second(arguments)}};
  } catch (const UsageError& error) {
    return {{"status", usage_status}, {"error", error.what()}};
  } catch (const std::exception& error) {
    return {{"status", 1}, {"error", error.what()}};
  }
}

std::vector<std::string> page_program_names() {
  std::vector<std::string> names;
  for (const auto& [name, program] : registry()) {
    names.push_back(name);
  }
  return names;
}

}  // namespace program
