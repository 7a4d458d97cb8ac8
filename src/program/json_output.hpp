// Matrices as JSON: a list of rows, each a list of numbers at full precision.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"

namespace attention {
struct TokenClassifierWeights;  // attention/token_classifier.hpp
}

namespace program {

/// A number for JSON, written so that it reads back exactly. JSON has no
/// infinity and no NaN: those become the strings "inf", "-inf" and "NaN",
/// which a reader can see (a masked score is "-inf").
nlohmann::json number_json(double value);

/// [[row 1], [row 2], …], each entry as number_json() writes it.
nlohmann::json matrix_json(const attention::Matrix& matrix);

/// [entry 1, entry 2, …] for one row, each entry as number_json() writes it:
/// the same list as matrix_json(row)[0].
nlohmann::json row_json(const Eigen::RowVectorXd& row);

/// Every weight of a token classifier (attention/token_classifier.hpp), as
/// --weights prints it: the embedding, per layer the heads' projections, W^O,
/// both LayerNorms and the feed-forward network, then the read-out.
nlohmann::json token_classifier_json(const attention::TokenClassifierWeights& weights);

/// Writes @p document to the file @p path, as --json prints it. Throws
/// UsageError naming @p flag if the file cannot be written.
void write_json_file(const nlohmann::json& document, const std::string& path, std::string_view flag);

}  // namespace program
