/// @file multiply_add_peak.hpp
/// @brief The processor's multiply-add peak, measured, and the rule that no measured rate may pass it.
///
/// A count of operations per second means little without a ceiling. The
/// ceiling measured here is a loop that does nothing but fused multiply-adds
/// on whole vector registers: sixteen independent running sums, each in a register with AVX-512's 32 (with the 16
/// of AVX2 or SSE2 a few are spilled), so that the processor's multiply-add units always have one
/// whose previous result is ready. (On the book's processor a multiply-add takes about four cycles and two start
/// per cycle, so eight sums in flight suffice; other cores differ, five cycles on Haswell and Zen 2, four units on
/// Apple M cores; sixteen cover most.)
///
/// The loop is measured up to twice. Once with Eigen's packet, the vector
/// width this build's kernels use (tile_product.hpp): eight doubles with
/// AVX-512, four with AVX2, two with the SSE2 every x86-64 processor has.
/// And, on x86-64, once with the widest multiply-add the processor offers
/// (AVX-512F, or else AVX2 with FMA), chosen when the program runs, if it is
/// wider than the build's packet: a library such as OpenBLAS chooses its
/// kernels that way, so a build for processors in general would otherwise
/// report a peak that NumPy passes. The peak is the better of the two.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "attention/memory_checks.hpp"
#include "attention/worker_threads.hpp"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#include <immintrin.h>
#define ATTENTION_PEAK_X86_AT_RUN_TIME 1
#endif

namespace attention {

/// @brief Independent running sums in the peak's loop: enough to cover the multiply-add's latency on two units.
inline constexpr int peak_chains = 16;

/// @cond INTERNAL
namespace detail {
// The sum of every entry of the running sums, read through memory (a vector of any width).
template <typename Vector>
double total_of(const Vector (&sums)[peak_chains]) {
  constexpr std::size_t entries = sizeof(Vector) / sizeof(double);
  double total = 0.0;
  for (const Vector& sum : sums) {
    double each[entries];
    std::memcpy(each, &sum, sizeof each);
    for (const double entry : each) total += entry;
  }
  return total;
}
}  // namespace detail
/// @endcond

/// @brief Runs @p rounds rounds of one multiply-add on each of peak_chains running sums of Eigen's packets.
///
/// Each round computes sum = sum · factor + term for every sum, with Eigen's
/// pmadd(): one fused instruction where the build may use one (the book's,
/// with -march=native), otherwise a multiply and an add, the best such a build
/// can do. The sums are independent, so the processor may start one while
/// others wait for their results.
/// @param rounds how many rounds
/// @param factor the factor; below 1 keeps the sums bounded
/// @param term the term added
/// @return the sum of every entry of every running sum, so that no work can be left out
inline double packet_multiply_adds(std::size_t rounds, double factor, double term) {
  // clang-format off
  // [fma_peak]
  using namespace Eigen::internal;
  using Packet = packet_traits<double>::type;  // the width tile_product() uses
  const Packet times = pset1<Packet>(factor), plus = pset1<Packet>(term);
  Packet sums[peak_chains];
  for (int chain = 0; chain < peak_chains; ++chain) sums[chain] = pset1<Packet>(term * chain);
  for (std::size_t round = 0; round < rounds; ++round) {
    for (int chain = 0; chain < peak_chains; ++chain) {  // unrolled: each sum in a register (AVX-512)
      sums[chain] = pmadd(sums[chain], times, plus);
    }
  }
  // [fma_peak]
  // clang-format on
  return detail::total_of(sums);
}

/// @cond INTERNAL
namespace detail {

#ifdef ATTENTION_PEAK_X86_AT_RUN_TIME
// The same loop with AVX-512's fused multiply-add on eight doubles, compiled
// for it whatever the build's own flags; called only where the processor has it.
__attribute__((target("avx512f"))) inline double avx512_multiply_adds(std::size_t rounds, double factor, double term) {
  const __m512d times = _mm512_set1_pd(factor), plus = _mm512_set1_pd(term);
  __m512d sums[peak_chains];
  for (int chain = 0; chain < peak_chains; ++chain) sums[chain] = _mm512_set1_pd(term * chain);
  for (std::size_t round = 0; round < rounds; ++round) {
    for (int chain = 0; chain < peak_chains; ++chain) sums[chain] = _mm512_fmadd_pd(sums[chain], times, plus);
  }
  return total_of(sums);
}

// And with AVX2's, on four doubles.
__attribute__((target("avx2,fma"))) inline double avx2_multiply_adds(std::size_t rounds, double factor, double term) {
  const __m256d times = _mm256_set1_pd(factor), plus = _mm256_set1_pd(term);
  __m256d sums[peak_chains];
  for (int chain = 0; chain < peak_chains; ++chain) sums[chain] = _mm256_set1_pd(term * chain);
  for (std::size_t round = 0; round < rounds; ++round) {
    for (int chain = 0; chain < peak_chains; ++chain) sums[chain] = _mm256_fmadd_pd(sums[chain], times, plus);
  }
  return total_of(sums);
}
#endif

// Floating-point operations per second of `loop` (doubles per instruction: `width`) on `threads` threads at once:
// the best of many short tries (a few milliseconds each), so that a moment when another program has the processor
// lowers some tries and not the result. Twenty tries, or fewer (five at least) once they have taken half a second:
// a build that checks every memory access (the sanitizer tests) runs each try many times slower.
inline double best_rate(double (*loop)(std::size_t, double, double), int width, unsigned threads) {
  static volatile double factor = 0.999999, term = 1e-6;  // unknown to the compiler
  static volatile double sink = 0.0;
#ifdef ATTENTION_CHECKS_MEMORY
  const std::size_t rounds = 80000 / static_cast<std::size_t>(width);  // every access checked: a number, no peak
#else
  // 2.56e8 operations at any width: a few ms with AVX-512 on a fast core, longer at narrower widths
  const std::size_t rounds = 8000000 / static_cast<std::size_t>(width);
#endif
  constexpr int most_tries = 20, fewest_tries = 5;
  constexpr double budget_seconds = 0.5;
  threads = std::max(1u, threads);
  double best = 0.0, spent_seconds = 0.0;
  for (int attempt = 0; attempt < most_tries && (attempt < fewest_tries || spent_seconds < budget_seconds); ++attempt) {
    std::vector<double> results(threads);
    const double f = factor, t = term;
    const auto start = std::chrono::steady_clock::now();
    run_shares(threads, [&](unsigned share) { results[share] = loop(rounds, f, t); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spent_seconds += seconds;
    for (const double result : results) sink = sink + result;
    const double operations = 2.0 * static_cast<double>(rounds) * peak_chains * width * threads;
    best = std::max(best, operations / seconds);
  }
  return best;
}

}  // namespace detail
/// @endcond

/// @brief What measure_multiply_add_peak() found.
struct MultiplyAddPeak {
  /// The peak: floating-point operations per second (a multiply-add counts 2), the best of the loops measured.
  double flops = 0.0;
  int doubles = 1;           ///< doubles per instruction of the loop that reached it
  std::string instructions;  ///< what that loop used: "AVX-512F", "AVX2 and FMA", or "this build's packets"
  double build_flops = 0.0;  ///< the loop on Eigen's packets, the width this build's kernels use
  int build_doubles = 1;     ///< doubles in one of Eigen's packets in this build
};

/// @brief Measures the multiply-add peak of @p threads threads running at once.
///
/// The loop on Eigen's packets always runs. On x86-64 the AVX-512 loop runs
/// too where the processor has AVX-512F and this build's packets are
/// narrower, and the AVX2 loop where it has AVX2 and FMA but not AVX-512F
/// and this build's packets are narrower than four doubles.
/// @param threads the number of threads, each running the loop; 0 is taken as 1
/// @return the peak, and the packets' own
inline MultiplyAddPeak measure_multiply_add_peak(unsigned threads) {
  MultiplyAddPeak peak;
  peak.build_doubles = Eigen::internal::packet_traits<double>::size;
  peak.build_flops = detail::best_rate(packet_multiply_adds, peak.build_doubles, threads);
  peak.flops = peak.build_flops;
  peak.doubles = peak.build_doubles;
  peak.instructions = "this build's packets";
#ifdef ATTENTION_PEAK_X86_AT_RUN_TIME
  const auto try_wider = [&](double (*loop)(std::size_t, double, double), int width, const char* name) {
    if (width <= peak.build_doubles) return;
    const double flops = detail::best_rate(loop, width, threads);
    if (flops > peak.flops) {
      peak.flops = flops;
      peak.doubles = width;
      peak.instructions = name;
    }
  };
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    try_wider(detail::avx512_multiply_adds, 8, "AVX-512F");
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    try_wider(detail::avx2_multiply_adds, 4, "AVX2 and FMA");
  }
#endif
  return peak;
}

/// @brief A measured rate held against the measured peak.
struct RateAgainstPeak {
  double share = 0.0;       ///< the rate over the peak
  bool above_peak = false;  ///< the rate passed the peak: the peak or the count of operations is wrong
};

/// @brief Holds a measured rate against the peak: a rate above the peak is not a result but a bug, in the peak or in
/// the count of operations, and is reported as such.
/// @param flops the measured rate
/// @param peak_flops the measured peak, in the same unit
/// @return its share of the peak, and whether it passed the peak
/// @throws std::invalid_argument if the peak is not above 0 or either number is not finite
inline RateAgainstPeak against_peak(double flops, double peak_flops) {
  if (!(peak_flops > 0.0) || !std::isfinite(peak_flops) || !std::isfinite(flops)) {
    throw std::invalid_argument("against_peak: a finite rate and a finite peak above 0");
  }
  return {flops / peak_flops, flops > peak_flops};
}

}  // namespace attention
