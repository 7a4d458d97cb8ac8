// The toy sentence the book uses throughout, in the command-line form the
// programs take as their defaults. Rows are tokens.
#pragma once

namespace program::toy {

// [toy]
inline constexpr const char* tokens = "cat,eat,fish";
inline constexpr const char* queries = "1,0; 0,1; 1,1";    // q_cat, q_eat, q_fish
inline constexpr const char* keys = "2,0; 0,1; 1,1";       // k_cat, k_eat, k_fish
inline constexpr const char* values = "1,0; 0,1; 0.5,0.5"; // v_cat, v_eat, v_fish
// [toy]

}  // namespace program::toy
