/// @file matrix.hpp
/// @brief The two shapes the book works with: a vector and a matrix whose rows are tokens.
#pragma once

#include <Eigen/Core>

/// @brief The small library every chapter uses.
///
/// Everything is in double precision: the teaching programs print values that
/// are exact to the digits shown.
namespace attention {

/// @brief A list of numbers: one token's query, key or value.
using Vector = Eigen::VectorXd;

/// @brief A sequence of vectors stacked as rows: row i is token i.
///
/// n tokens of width d make an n × d matrix, as in the paper's QKᵀ.
using Matrix = Eigen::MatrixXd;

}  // namespace attention
