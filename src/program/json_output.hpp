// Matrices as JSON: a list of rows, each a list of numbers at full precision.
#pragma once

#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"

namespace program {

/// [[row 1], [row 2], …], every double written so that it reads back exactly.
nlohmann::json matrix_json(const attention::Matrix& matrix);

}  // namespace program
