// The rule chapter 7 states its timings by: medians and spreads of repeated
// timings, which layer was faster at each n, and where the curves cross.
//
// The timings here are synthetic: a layer that takes a·n² seconds against one
// that takes b·n, whose curves cross at exactly n = b/a, with a fixed jitter
// on each repetition; then the same with outliers injected. Every expected
// verdict follows from the model, not from a run.
#include <catch2/catch.hpp>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "attention/timing_comparison.hpp"

using attention::Crossing;
using attention::Faster;
using attention::TimedLength;

namespace timing_tests {

// Seven repetitions around @p seconds, within ±3 %: the jitter of a quiet
// machine.
std::vector<double> repetitions(double seconds) {
  std::vector<double> times;
  for (const double factor : {1.00, 0.98, 1.03, 0.99, 1.01, 1.02, 0.97}) times.push_back(seconds * factor);
  return times;
}

// Seven repetitions of each of two layers at one length n.
struct Sample {
  std::size_t n;
  std::vector<double> first;
  std::vector<double> second;
};

// The model's two layers: a quadratic one (first) and a linear one (second),
// whose times are equal at n = 300.
std::vector<Sample> model(const std::vector<std::size_t>& lengths) {
  std::vector<Sample> samples;
  for (const std::size_t n : lengths) {
    const auto length = static_cast<double>(n);
    samples.push_back({n, repetitions(1e-6 * length * length), repetitions(300e-6 * length)});
  }
  return samples;
}

std::vector<TimedLength> summarized(const std::vector<Sample>& samples) {
  std::vector<TimedLength> timed;
  for (const Sample& sample : samples) {
    timed.push_back(
        {sample.n, attention::summarize_timings(sample.first), attention::summarize_timings(sample.second)});
  }
  return timed;
}

std::vector<std::pair<std::size_t, std::size_t>> brackets(const std::vector<Crossing>& crossings) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (const Crossing& crossing : crossings) pairs.emplace_back(crossing.below_n, crossing.above_n);
  return pairs;
}

const std::vector<std::size_t> lengths = {16, 32, 64, 128, 256, 512, 1024};

}  // namespace timing_tests

TEST_CASE("the median and spread of seven repetitions: the 4th, the 2nd and "
          "the 6th fastest",
          "[ch07]") {
  const attention::TimingSummary summary = attention::summarize_timings({7.0, 1.0, 6.0, 2.0, 5.0, 3.0, 4.0});
  CHECK(summary.median == 4.0);
  CHECK(summary.spread_low == 2.0);
  CHECK(summary.spread_high == 6.0);
  // One disturbed repetition, however slow or fast, moves neither.
  CHECK(attention::summarize_timings({1000.0, 1.0, 6.0, 2.0, 5.0, 3.0, 4.0}).spread_high == 6.0);
  CHECK(attention::summarize_timings({7.0, 1e-9, 6.0, 2.0, 5.0, 3.0, 4.0}).median == 4.0);
  // An even count: the mean of the two middle ones; 8 / 4 = 2 left out at each
  // end.
  const attention::TimingSummary eight = attention::summarize_timings({8, 1, 7, 2, 6, 3, 5, 4});
  CHECK(eight.median == 4.5);
  CHECK(eight.spread_low == 3.0);
  CHECK(eight.spread_high == 6.0);
  CHECK(attention::summarize_timings({2.5}).spread_low == 2.5);
  CHECK_THROWS_AS(attention::summarize_timings({}), std::invalid_argument);
}

TEST_CASE("timings that cross once: one crossing, between the two timed "
          "lengths around it",
          "[ch07]") {
  const attention::TimingComparison comparison =
      attention::compare_timings(timing_tests::summarized(timing_tests::model(timing_tests::lengths)));
  // The quadratic layer is faster below n = 300, the linear one above.
  CHECK(comparison.faster == std::vector<Faster>{Faster::first, Faster::first, Faster::first, Faster::first,
                                                 Faster::first, Faster::second, Faster::second});
  REQUIRE(comparison.crossings.size() == 1);
  CHECK(timing_tests::brackets(comparison.crossings) == std::vector<std::pair<std::size_t, std::size_t>>{{256, 512}});
  CHECK(comparison.crossings[0].faster_below == Faster::first);
  CHECK(comparison.crossings[0].faster_above == Faster::second);
}

TEST_CASE("an outlier repetition changes no verdict: the median and spread "
          "leave it out",
          "[ch07]") {
  std::vector<timing_tests::Sample> samples = timing_tests::model(timing_tests::lengths);
  samples[2].first[3] *= 100.0;     // n = 64: one repetition of the first layer interrupted
  samples[4].second[0] *= 0.01;     // n = 256: one impossibly fast repetition of the second
  samples[5].first.back() *= 1e-3;  // n = 512: and of the first
  const attention::TimingComparison comparison = attention::compare_timings(timing_tests::summarized(samples));
  CHECK(comparison.faster ==
        attention::compare_timings(timing_tests::summarized(timing_tests::model(timing_tests::lengths))).faster);
  CHECK(timing_tests::brackets(comparison.crossings) == std::vector<std::pair<std::size_t, std::size_t>>{{256, 512}});
}

TEST_CASE("an outlier length is reported as two crossings around it, never as "
          "one false crossing",
          "[ch07]") {
  // The book's old mistake: one busy stretch slows every repetition at n = 64,
  // and "faster up to n = 32, slower from n = 64" was read as the crossing.
  std::vector<timing_tests::Sample> samples = timing_tests::model(timing_tests::lengths);
  for (double& seconds : samples[2].first) seconds *= 100.0;
  const attention::TimingComparison comparison = attention::compare_timings(timing_tests::summarized(samples));
  CHECK(comparison.faster[2] == Faster::second);
  CHECK(timing_tests::brackets(comparison.crossings) ==
        std::vector<std::pair<std::size_t, std::size_t>>{{32, 64}, {64, 128}, {256, 512}});
}

TEST_CASE("a slow first or last timed length is reported as one crossing, like a real one", "[ch07]") {
  // Chapter 7: "At the first or last timed length, such a slow length appears as one crossing, like a real
  // crossing." Below n = 300 the quadratic layer is faster at every length, so the model alone has no crossing.
  const std::vector<std::size_t> short_lengths = {16, 32, 64, 128, 256};
  REQUIRE(attention::compare_timings(timing_tests::summarized(timing_tests::model(short_lengths))).crossings.empty());
  std::vector<timing_tests::Sample> slow_last = timing_tests::model(short_lengths);
  for (double& seconds : slow_last.back().first) seconds *= 100.0;
  const attention::TimingComparison last = attention::compare_timings(timing_tests::summarized(slow_last));
  CHECK(last.faster.back() == Faster::second);
  CHECK(timing_tests::brackets(last.crossings) == std::vector<std::pair<std::size_t, std::size_t>>{{128, 256}});
  std::vector<timing_tests::Sample> slow_first = timing_tests::model(short_lengths);
  for (double& seconds : slow_first.front().first) seconds *= 100.0;
  const attention::TimingComparison first = attention::compare_timings(timing_tests::summarized(slow_first));
  CHECK(first.faster.front() == Faster::second);
  CHECK(timing_tests::brackets(first.crossings) == std::vector<std::pair<std::size_t, std::size_t>>{{16, 32}});
}

TEST_CASE("overlapping spreads are too close to call, and a crossing spans them", "[ch07]") {
  // At n = 300 the two layers take the same time: their spreads overlap.
  const std::vector<std::size_t> around = {128, 256, 300, 512};
  const attention::TimingComparison comparison =
      attention::compare_timings(timing_tests::summarized(timing_tests::model(around)));
  CHECK(comparison.faster == std::vector<Faster>{Faster::first, Faster::first, Faster::too_close, Faster::second});
  CHECK(timing_tests::brackets(comparison.crossings) == std::vector<std::pair<std::size_t, std::size_t>>{{256, 512}});

  // Spreads that touch are too close to call; a hair apart, they are not.
  const TimedLength touching{8, {1.0, 0.9, 1.1}, {1.2, 1.1, 1.3}};
  CHECK(attention::faster_at(touching) == Faster::too_close);
  const TimedLength apart{8, {1.0, 0.9, 1.09}, {1.2, 1.1, 1.3}};
  CHECK(attention::faster_at(apart) == Faster::first);
  const TimedLength reversed{8, apart.second, apart.first};
  CHECK(attention::faster_at(reversed) == Faster::second);
}

TEST_CASE("a disturbed run: a median a third higher, its spread reaching into the other's, is too close to call",
          "[ch12]") {
  // Summaries are {median, spread_low, spread_high}. Chapter 12 judges every speed by this rule: the medians alone
  // would call the second faster.
  const TimedLength disturbed{1024, {10.84, 7.4, 11.9}, {7.93, 7.89, 9.46}};
  CHECK(attention::faster_at(disturbed) == Faster::too_close);
}

TEST_CASE("curves too close to call everywhere: no verdict and no crossing", "[ch07]") {
  std::vector<timing_tests::Sample> samples;
  for (const std::size_t n : timing_tests::lengths)
    samples.push_back({n, timing_tests::repetitions(1.0), timing_tests::repetitions(1.01)});
  const attention::TimingComparison comparison = attention::compare_timings(timing_tests::summarized(samples));
  CHECK(comparison.faster == std::vector<Faster>(timing_tests::lengths.size(), Faster::too_close));
  CHECK(comparison.crossings.empty());
  CHECK(attention::compare_timings({}).faster.empty());
}

TEST_CASE("the lengths must increase", "[ch07]") {
  std::vector<TimedLength> timed = timing_tests::summarized(timing_tests::model({16, 32}));
  timed[1].n = 16;
  CHECK_THROWS_AS(attention::compare_timings(timed), std::invalid_argument);
}
