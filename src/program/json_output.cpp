#include "program/json_output.hpp"

#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "program/usage_error.hpp"

namespace program {

nlohmann::json number_json(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

nlohmann::json matrix_json(const attention::Matrix& matrix) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index row = 0; row < matrix.rows(); ++row) {
    nlohmann::json entries = nlohmann::json::array();
    for (Eigen::Index column = 0; column < matrix.cols(); ++column) {
      entries.push_back(number_json(matrix(row, column)));
    }
    rows.push_back(std::move(entries));
  }
  return rows;
}

nlohmann::json row_json(const Eigen::RowVectorXd& row) {
  nlohmann::json entries = nlohmann::json::array();
  for (Eigen::Index column = 0; column < row.size(); ++column) {
    entries.push_back(number_json(row(column)));
  }
  return entries;
}

void write_json_file(const nlohmann::json& document, const std::string& path, std::string_view flag) {
  std::ofstream file(path);
  file << document.dump(2) << '\n';
  file.close();
  if (!file) {
    throw UsageError(fmt::format("{}: cannot write the file '{}'", flag, path));
  }
}

}  // namespace program
