/// @file matrix.hpp
/// @brief The two shapes the book works with: a vector and a matrix whose rows are tokens.
#pragma once

#include <Eigen/Core>

/// @brief The small library every chapter uses.
///
/// The chapters work in double precision: the teaching programs print values
/// that are exact to the digits shown. The core (softmax, attention, its
/// backward pass and the streaming kernel) also runs in float, as models are
/// trained and served in 2026 (chapters 10, 12 and 17); its functions take the
/// number type as a template parameter, `Scalar`, which their arguments decide.
namespace attention {

/// @brief A list of numbers: one token's query, key or value.
using Vector = Eigen::VectorXd;

/// @brief A sequence of vectors stacked as rows: row i is token i.
///
/// n tokens of width d make an n × d matrix, as in the paper's QKᵀ.
using Matrix = Eigen::MatrixXd;

/// @brief A Matrix whose entries are of type @p Scalar: float or double.
template <typename Scalar>
using MatrixOf = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;

/// @brief A row of entries of type @p Scalar.
template <typename Scalar>
using RowVectorOf = Eigen::Matrix<Scalar, 1, Eigen::Dynamic>;

}  // namespace attention
