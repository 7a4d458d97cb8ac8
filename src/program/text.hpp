// Cutting command-line text into pieces.
#pragma once

#include <string_view>
#include <vector>

namespace program {

/// The pieces of @p text between @p separator characters, empty pieces kept:
/// split("1,,2", ',') is {"1", "", "2"}.
std::vector<std::string_view> split(std::string_view text, char separator);

/// @p text without the spaces and tabs around it.
std::string_view trim(std::string_view text);

}  // namespace program
