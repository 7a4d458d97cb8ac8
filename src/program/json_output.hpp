// Matrices as JSON: a list of rows, each a list of numbers at full precision.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"

namespace program {

/// [[row 1], [row 2], …], every double written so that it reads back exactly.
nlohmann::json matrix_json(const attention::Matrix& matrix);

/// Writes @p document to the file @p path, as --json prints it. Throws
/// UsageError naming @p flag if the file cannot be written.
void write_json_file(const nlohmann::json& document, const std::string& path, std::string_view flag);

}  // namespace program
