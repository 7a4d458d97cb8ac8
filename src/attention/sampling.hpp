/// @file sampling.hpp
/// @brief Choosing the next word from a decoder's scores: greedily, or by drawing with a temperature and top-k.
///
/// The decoder gives a score (a logit) to every word of the vocabulary.
/// Greedy decoding takes the highest. Sampling turns the scores into
/// probabilities, softmax(logits / T), and draws one: a temperature T below 1
/// sharpens the distribution towards the highest score, above 1 flattens it.
/// Top-k sampling first keeps only the k highest scores, so that the many
/// unlikely words, whose small probabilities add up, are never drawn.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

#include "attention/matrix.hpp"
#include "attention/numpy_random.hpp"
#include "attention/softmax.hpp"

namespace attention {

/// @brief How the next word is chosen.
struct SamplingSettings {
  double temperature = 1.0;  ///< T; 0 chooses greedily (the highest score, no draw)
  Eigen::Index top_k = 0;    ///< keep only the k highest scores; 0 keeps every word
};

/// @brief The probabilities the next word is drawn with: softmax(logits / T) over the k highest scores, 0 elsewhere.
///
/// With T = 0, all of the probability is on the highest score (the first, if
/// several are equal). Among equal scores at the k-th place, the words that
/// come first in the vocabulary are kept. Any T above 0 is taken, however
/// small: the highest score is taken away from every score before they are
/// divided by T, so that none overflows.
/// @param logits the decoder's scores, one per word
/// @param settings T and k
/// @return one probability per word; they add up to 1
/// @throws std::invalid_argument if T is negative or not finite, k is negative, or there is no score;
///         with T > 0, also if a logit it keeps is NaN or +∞, or every logit is −∞ (from softmax_rows())
inline Vector sampling_probabilities(const Vector& logits, const SamplingSettings& settings) {
  if (logits.size() == 0) throw std::invalid_argument("sampling_probabilities: there is no score");
  if (!(settings.temperature >= 0.0) || !std::isfinite(settings.temperature)) {
    throw std::invalid_argument("sampling_probabilities: the temperature must be a finite number, at least 0");
  }
  if (settings.top_k < 0) throw std::invalid_argument("sampling_probabilities: top-k must be at least 0");
  Vector probabilities = Vector::Zero(logits.size());
  if (settings.temperature == 0.0) {
    Eigen::Index best = 0;
    logits.maxCoeff(&best);
    probabilities(best) = 1.0;
    return probabilities;
  }
  // clang-format off
  // [sampling_probabilities]
  // order = np.argsort(-logits, kind="stable") in NumPy:
  std::vector<Eigen::Index> order(static_cast<std::size_t>(logits.size()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});  // 0, 1, 2, …
  // Highest score first; equal scores in the vocabulary's order.
  std::stable_sort(order.begin(), order.end(),
                   [&logits](Eigen::Index a, Eigen::Index b) { return logits(a) > logits(b); });
  const Eigen::Index kept =  // k; top_k 0 keeps every word
      settings.top_k == 0 ? logits.size() : std::min(settings.top_k, logits.size());
  // The highest score is taken away before dividing by T: the same probabilities (softmax does not
  // change when every score moves by the same amount), and no score overflows to +∞ however small T is.
  const double highest = logits(order.front());
  // Every word starts at −∞, weight 0; the kept ones get (z_i − highest) / T.
  Matrix scaled = Matrix::Constant(1, logits.size(), -std::numeric_limits<double>::infinity());
  for (Eigen::Index i = 0; i < kept; ++i) {
    const Eigen::Index word = order[static_cast<std::size_t>(i)];
    scaled(0, word) = (logits(word) - highest) / settings.temperature;
  }
  probabilities = softmax_rows(scaled).row(0).transpose();  // the words left out get exactly 0
  // [sampling_probabilities]
  // clang-format on
  return probabilities;
}

/// @brief A drawn word, and the uniform number that chose it.
struct DrawnWord {
  Eigen::Index word = 0;    ///< the word
  std::optional<double> u;  ///< the uniform number in [0, 1) that chose it; none when nothing was drawn
};

/// @brief Draws a word with the given probabilities: the first word at which their running sum exceeds u.
///
/// u is one uniform number in [0, 1) from @p generator (`rng.random()` in
/// NumPy). A distribution with a probability of exactly 1 draws nothing:
/// greedy decoding, or a small T that rounds the rest away.
/// @param probabilities one per word, adding up to 1
/// @param generator the stream of draws
/// @return the word, and u if one was drawn
inline DrawnWord draw_word(const Vector& probabilities, NumpyGenerator& generator) {
  Eigen::Index only = 0;
  if (probabilities.maxCoeff(&only) == 1.0) return {only, std::nullopt};
  const double u = generator.next_double();
  double running = 0.0;
  Eigen::Index last_possible = 0;
  for (Eigen::Index word = 0; word < probabilities.size(); ++word) {
    if (probabilities(word) == 0.0) continue;
    running += probabilities(word);
    last_possible = word;
    if (u < running) return {word, u};
  }
  return {last_possible, u};  // u fell in the rounding left at the top of the running sum
}
}  // namespace attention
