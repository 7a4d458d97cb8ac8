#include "program/json_output.hpp"

#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "attention/token_classifier.hpp"
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

nlohmann::json token_classifier_json(const attention::TokenClassifierWeights& weights) {
  const auto norm = [](const attention::LayerNormParameters& p) {
    return nlohmann::json{{"gain", matrix_json(p.gain)}, {"bias", matrix_json(p.bias)}};
  };
  nlohmann::json layers = nlohmann::json::array();
  for (const attention::EncoderLayerWeights& layer : weights.layers) {
    nlohmann::json heads = nlohmann::json::array();
    for (const attention::HeadProjections& head : layer.attention.heads) {
      heads.push_back(
          {{"query", matrix_json(head.query)}, {"key", matrix_json(head.key)}, {"value", matrix_json(head.value)}});
    }
    layers.push_back({{"heads", heads},
                      {"output", matrix_json(layer.attention.output)},
                      {"attention_norm", norm(layer.attention_norm)},
                      {"feed_forward",
                       {{"w1", matrix_json(layer.feed_forward.w1)},
                        {"b1", matrix_json(layer.feed_forward.b1)},
                        {"w2", matrix_json(layer.feed_forward.w2)},
                        {"b2", matrix_json(layer.feed_forward.b2)}}},
                      {"feed_forward_norm", norm(layer.feed_forward_norm)}});
  }
  return {{"embedding", matrix_json(weights.embedding)},
          {"layers", layers},
          {"readout", matrix_json(weights.readout)},
          {"readout_bias", matrix_json(weights.readout_bias)}};
}

}  // namespace program
