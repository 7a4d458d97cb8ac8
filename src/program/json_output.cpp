#include "program/json_output.hpp"

namespace program {

nlohmann::json matrix_json(const attention::Matrix& matrix) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index row = 0; row < matrix.rows(); ++row) {
    nlohmann::json entries = nlohmann::json::array();
    for (Eigen::Index column = 0; column < matrix.cols(); ++column) {
      entries.push_back(matrix(row, column));
    }
    rows.push_back(std::move(entries));
  }
  return rows;
}

}  // namespace program
