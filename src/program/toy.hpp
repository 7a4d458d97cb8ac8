// The toy sentence the book uses throughout, in the command-line form the
// programs take as their defaults. Rows are tokens.
//
// Where its queries, keys and values come from (chapter 1): each token is a
// vector of three features, and three stated projection matrices, one row
// per feature, turn those into Q = X W^Q, K = X W^K and V = X W^V, exactly
// the matrices below. A trained model learns its projections; these are
// chosen so that the products are the book's small vectors.
#pragma once

namespace program::toy {

// clang-format off
// [toy]
// Text constants: in each matrix ";" separates rows (words), "," entries.
inline constexpr const char* tokens = "cat,eat,fish";
inline constexpr const char* queries = "1,0; 0,1; 1,1";    // q_cat, q_eat, q_fish
inline constexpr const char* keys = "2,0; 0,1; 1,1";       // k_cat, k_eat, k_fish
inline constexpr const char* values = "1,0; 0,1; 0.5,0.5"; // v_cat, v_eat, v_fish
// [toy]
// clang-format on

// clang-format off
// [toy_projections]
inline constexpr const char* features = "animal,action,food";
inline constexpr const char* embeddings = "1,0,0; 0,1,0; 1,0,1";       // x_cat, x_eat, x_fish
inline constexpr const char* query_weights = "1,0; 0,1; 0,1";          // W^Q: one row per feature
inline constexpr const char* key_weights = "2,0; 0,1; -1,1";           // W^K
inline constexpr const char* value_weights = "1,0; 0,1; -0.5,0.5";     // W^V
// [toy_projections]
// clang-format on

}  // namespace program::toy
