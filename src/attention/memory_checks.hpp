/// @file memory_checks.hpp
/// @brief Whether this build checks every memory access (AddressSanitizer), under GCC or Clang.
///
/// In such a build `ATTENTION_CHECKS_MEMORY` is defined. The build runs many times slower,
/// and a rate it measures means nothing: the few places that size a measurement by that
/// (multiply_add_peak.hpp, chapter 12's yardsticks) and the one test that counts what the
/// allocator hands out ask it. GCC says so with `__SANITIZE_ADDRESS__`, Clang with
/// `__has_feature(address_sanitizer)`.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define ATTENTION_CHECKS_MEMORY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTENTION_CHECKS_MEMORY 1
#endif
#endif
