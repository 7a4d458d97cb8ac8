// The multiply-add peak (chapter 12): its loops compute what they claim, its
// report names the widths, and a rate above it is reported as a bug.
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

#include <catch2/catch.hpp>

#include "attention/multiply_add_peak.hpp"

namespace peak_tests {

// The total the loops return, from the closed form of x ← x·f + t after r rounds,
// x_r = f^r·x_0 + t·(1 − f^r)/(1 − f), summed over the chains (x_0 = t·chain) and
// over the doubles of each vector.
double closed_form(std::size_t rounds, double factor, double term, int doubles) {
  const double power = std::pow(factor, static_cast<double>(rounds));
  double total = 0.0;
  for (int chain = 0; chain < attention::peak_chains; ++chain) {
    total += power * term * chain + term * (1.0 - power) / (1.0 - factor);
  }
  return total * doubles;
}

}  // namespace peak_tests

TEST_CASE("the peak loop on Eigen's packets computes the closed form of its recurrence", "[ch12]") {
  // With f = 1/2 and t = 1 every step is exact in binary.
  const int doubles = Eigen::internal::packet_traits<double>::size;
  for (const std::size_t rounds : {0u, 1u, 3u, 10u}) {
    CHECK(attention::packet_multiply_adds(rounds, 0.5, 1.0) == peak_tests::closed_form(rounds, 0.5, 1.0, doubles));
  }
}

#ifdef ATTENTION_PEAK_X86_AT_RUN_TIME
TEST_CASE("the peak loops chosen at run time compute the same closed form, where the processor has them", "[ch12]") {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    CHECK(attention::detail::avx512_multiply_adds(10, 0.5, 1.0) == peak_tests::closed_form(10, 0.5, 1.0, 8));
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    CHECK(attention::detail::avx2_multiply_adds(10, 0.5, 1.0) == peak_tests::closed_form(10, 0.5, 1.0, 4));
  }
}
#endif

TEST_CASE("the measured peak names its width and is never below this build's own", "[ch12]") {
  const attention::MultiplyAddPeak peak = attention::measure_multiply_add_peak(1);
  CHECK(peak.build_doubles == Eigen::internal::packet_traits<double>::size);
  CHECK(peak.doubles >= peak.build_doubles);
  CHECK(peak.build_flops > 0.0);
  CHECK(peak.flops >= peak.build_flops);
  CHECK_FALSE(peak.instructions.empty());
}

TEST_CASE("a rate above the peak is reported as above it, not as a share above 1", "[ch12]") {
  const attention::RateAgainstPeak above = attention::against_peak(129.0, 100.0);
  CHECK(above.above_peak);
  const attention::RateAgainstPeak at = attention::against_peak(100.0, 100.0);
  CHECK_FALSE(at.above_peak);
  CHECK(at.share == 1.0);
  const attention::RateAgainstPeak below = attention::against_peak(25.0, 100.0);
  CHECK_FALSE(below.above_peak);
  CHECK(below.share == 0.25);
  CHECK_THROWS_AS(attention::against_peak(1.0, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(attention::against_peak(std::numeric_limits<double>::quiet_NaN(), 1.0), std::invalid_argument);
}
