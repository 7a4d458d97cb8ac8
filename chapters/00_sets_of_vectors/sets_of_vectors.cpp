#include "sets_of_vectors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "attention/distance.hpp"
#include "attention/embedding.hpp"
#include "attention/mulberry32.hpp"
#include "attention/position_wise.hpp"
#include "attention/random_weights.hpp"
#include "attention/scores.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/matrix_text.hpp"
#include "program/real_number.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace sets_of_vectors {

namespace {

constexpr std::size_t max_words = 12;     // vocabulary and sentence: tables a reader can read
constexpr Eigen::Index max_width = 64;    // --width and --tags
constexpr std::uint64_t max_radius = 16;  // --radius
constexpr std::uint64_t max_longest = 1000000;
constexpr double max_seconds = 3600.0;  // an hour of speech
constexpr std::uint64_t max_milliseconds = 60000;
constexpr std::uint64_t max_seed = 4294967295;  // 2³² − 1: mulberry32's seed is 32 bits

// ---------------------------------------------------------------------------
// The computation.

// One encoding's vectors, their dot products and distances, and which of the
// second and third words the first is nearer to: "neither" when the two
// distances agree to 12 significant digits, so that two distances equal but for
// their last rounding (cat dragged onto the line between dog and apple) do not
// name a winner.
Encoding encoding_of(const attention::Matrix& vectors, const std::vector<std::string>& words) {
  Encoding encoding;
  encoding.vectors = vectors;
  // clang-format off
  // [tables]
  encoding.dot_products = attention::scores(vectors, vectors);            // entry (i, j): word i · word j
  encoding.distances = attention::euclidean_distances(vectors, vectors);  // entry (i, j): |word i − word j|
  // [tables]
  // clang-format on
  const double to_second = encoding.distances(0, 1), to_third = encoding.distances(0, 2);
  const bool tied = std::abs(to_second - to_third) <= 1e-12 * std::max(to_second, to_third);
  encoding.nearer = tied ? "neither" : to_second < to_third ? words[1] : words[2];
  return encoding;
}

// floor((D − W) / H) + 1 frames, all in whole microseconds so that the floor is exact.
Frames frames_of(std::int64_t duration_us, std::int64_t window_ms, std::int64_t hop_ms) {
  const std::int64_t window_us = window_ms * 1000, hop_us = hop_ms * 1000;
  Frames frames;
  frames.per_second = 1000.0 / static_cast<double>(hop_ms);
  if (duration_us < window_us) {
    frames.uncovered_us = duration_us;  // not even one window fits: no frame at all
    frames.count_if_end_padded = duration_us > 0 ? 1 : 0;
    return frames;
  }
  // clang-format off
  // [frame_count]
  frames.count = (duration_us - window_us) / hop_us + 1;  // integer division is the floor here
  // [frame_count]
  // clang-format on
  frames.last_start_us = (frames.count - 1) * hop_us;
  frames.last_end_us = frames.last_start_us + window_us;
  frames.uncovered_us = duration_us - frames.last_end_us;
  frames.count_if_end_padded = frames.count + (frames.uncovered_us > 0 ? 1 : 0);
  return frames;
}

// The sentence's words, each as a row number into the list of distinct words.
std::vector<Eigen::Index> number_the_words(const std::vector<std::string>& sentence,
                                           std::vector<std::string>& distinct) {
  std::vector<Eigen::Index> numbers;
  for (const std::string& word : sentence) {
    const auto found = std::find(distinct.begin(), distinct.end(), word);
    numbers.push_back(static_cast<Eigen::Index>(found - distinct.begin()));
    if (found == distinct.end()) distinct.push_back(word);
  }
  return numbers;
}

// FNV-1a: a 32-bit number from a word's bytes, the same for the same word.
std::uint32_t word_hash(const std::string& word) {
  std::uint32_t hash = 2166136261u;
  for (const char byte : word) hash = (hash ^ static_cast<unsigned char>(byte)) * 16777619u;
  return hash;
}

void draw_and_run_the_layers(const Inputs& inputs, Result& result) {
  const std::vector<Eigen::Index> numbers = number_the_words(inputs.sentence, result.distinct_words);
  const Eigen::Index d = inputs.width, c = inputs.tags, window = 2 * inputs.radius + 1;
  // W and b of the layer that reads one vector, then W and b of the window layer (scale 1/√rows
  // of W), in this order from the stream of the seed; each word's vector (scale 1) from a stream of
  // its own, seeded by the seed and the word: the same word gets the same vector whatever the
  // sentence, so changing one word changes only the outputs that read it.
  attention::Mulberry32 generator(inputs.seed);
  const double one_scale = 1.0 / std::sqrt(static_cast<double>(d));
  result.one_weights = attention::random_normal_matrix(generator, d, c, one_scale);
  result.one_bias = attention::random_normal_matrix(generator, 1, c, one_scale);
  const double window_scale = 1.0 / std::sqrt(static_cast<double>(window * d));
  result.window_weights = attention::random_normal_matrix(generator, window * d, c, window_scale);
  result.window_bias = attention::random_normal_matrix(generator, 1, c, window_scale);
  result.word_vectors.resize(static_cast<Eigen::Index>(result.distinct_words.size()), d);
  for (std::size_t w = 0; w < result.distinct_words.size(); ++w) {
    attention::Mulberry32 own(inputs.seed ^ word_hash(result.distinct_words[w]));
    result.word_vectors.row(static_cast<Eigen::Index>(w)) = attention::random_normal_matrix(own, 1, d, 1.0);
  }

  // clang-format off
  // [one_vector_layer]
  // E is word_vectors and word(t) is numbers[t]; each_row_through_layer gives y_t = x_t W + b.
  result.sentence_vectors = attention::embedding_lookup(result.word_vectors, numbers);  // same word, same row
  result.one_outputs =                                                                // reads one vector
      attention::each_row_through_layer(result.sentence_vectors, result.one_weights, result.one_bias);
  // [one_vector_layer]
  // [window_layer]
  result.window_inputs = attention::windows(result.sentence_vectors, inputs.radius);  // neighbours side by side
  result.window_outputs =                                                             // reads the window
      attention::each_row_through_layer(result.window_inputs, result.window_weights, result.window_bias);
  // [window_layer]
  // clang-format on

  for (std::size_t w = 0; w < result.distinct_words.size(); ++w) {
    Repeat repeat{result.distinct_words[w], {}, true, true, true};
    for (std::size_t t = 0; t < numbers.size(); ++t) {
      if (numbers[t] == static_cast<Eigen::Index>(w)) repeat.positions.push_back(static_cast<Eigen::Index>(t));
    }
    if (repeat.positions.size() < 2) continue;
    const Eigen::Index first = repeat.positions.front();
    for (const Eigen::Index t : repeat.positions) {
      repeat.inputs_identical &= result.sentence_vectors.row(t) == result.sentence_vectors.row(first);
      repeat.each_vector_identical &= result.one_outputs.row(t) == result.one_outputs.row(first);
      repeat.window_identical &= result.window_outputs.row(t) == result.window_outputs.row(first);
    }
    result.repeats.push_back(repeat);
  }
}

void count_the_weights(const Inputs& inputs, Result& result) {
  const long long n = static_cast<long long>(inputs.sentence.size()), d = inputs.width, c = inputs.tags;
  // Position 1 sees position n only with n − 1 neighbours on its right: radius n − 1, window 2n − 1.
  for (long long radius = 0; radius <= n - 1; ++radius) {
    result.sizes.push_back({radius, 2 * radius + 1, attention::window_layer_parameters(radius, d, c), radius >= n - 1});
  }
  const long long radius = inputs.longest - 1;
  result.longest = {radius, 2 * radius + 1, attention::window_layer_parameters(radius, d, c), true};
  result.attention_parameters = 3 * d * d;
  result.attention_and_layer_parameters = result.attention_parameters + attention::window_layer_parameters(0, d, c);
}

// ---------------------------------------------------------------------------
// JSON and tables.

nlohmann::json encoding_json(const Encoding& encoding) {
  return {{"vectors", program::matrix_json(encoding.vectors)},
          {"dot_products", program::matrix_json(encoding.dot_products)},
          {"distances", program::matrix_json(encoding.distances)},
          {"nearer", encoding.nearer}};
}

nlohmann::json size_json(const WindowSize& size) {
  return {{"radius", size.radius},
          {"window", size.window},
          {"parameters", size.parameters},
          {"covers_sentence", size.covers_sentence}};
}

std::string microseconds_text(std::int64_t microseconds) {
  return program::number_text(static_cast<double>(microseconds) / 1000.0, 3) + " ms";
}

std::string yes_no(bool value) { return value ? "yes" : "no"; }

std::string words_tables(const Result& result) {
  const std::vector<std::string>& words = result.inputs.words;
  const auto encoding_tables = [&](const std::string& name, const Encoding& encoding) {
    return program::table(name + ": one vector per word", encoding.vectors, words,
                          program::numbered_labels("d", encoding.vectors.cols())) +
           '\n' + program::table(name + ": dot products", encoding.dot_products, words, words) + '\n' +
           program::table(name + ": distances", encoding.distances, words, words) +
           fmt::format("Is {} nearer to {} or to {}? {}\n\n", words[0], words[1], words[2],
                       encoding.nearer == "neither" ? "neither: the two distances are equal" : encoding.nearer);
  };
  return "Words as vectors\n\n" + encoding_tables("One-hot", result.one_hot) +
         encoding_tables("Embeddings (illustrative values, not trained)", result.embedding);
}

std::string frames_table(const Result& result) {
  const Inputs& inputs = result.inputs;
  const Frames& frames = result.frames;
  // Lines of at most about 42 characters, so that a phone's column shows them whole; D, W and H
  // are the duration, the window and the hop, as the chapter's formula names them.
  std::string text = fmt::format("Speech as frames\n\n"
                                 "recording {}, window {} ms, hop {} ms\n"
                                 "frames per second (1000 / hop): {}\n",
                                 microseconds_text(inputs.duration_us), inputs.window_ms, inputs.hop_ms,
                                 program::number_text(frames.per_second));
  if (frames.count > 0) {
    text += fmt::format("frames = floor((D - W) / H) + 1 = {}\n", frames.count);
    text += fmt::format("the last frame covers {} to {};\n  the last {} are in no frame\n",
                        microseconds_text(frames.last_start_us), microseconds_text(frames.last_end_us),
                        microseconds_text(frames.uncovered_us));
  } else {
    text += "frames = 0: shorter than one window\n";
  }
  text += fmt::format("frames if the end is padded with silence\n  so every moment is in a frame: {}\n\n",
                      frames.count_if_end_padded);
  return text;
}

std::string layer_tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const std::vector<std::string>& sentence = inputs.sentence;
  std::vector<std::string> positions;
  for (std::size_t t = 0; t < sentence.size(); ++t) positions.push_back(fmt::format("{} {}", t + 1, sentence[t]));
  const std::vector<std::string> outputs = program::numbered_labels("y", inputs.tags);
  std::string text =
      fmt::format("One label per word: \"{}\"\n"
                  "word vectors of width {}, {} outputs per word, drawn from mulberry32 with seed {}\n\n",
                  fmt::join(sentence, " "), inputs.width, inputs.tags, inputs.seed);
  text += program::table("Word vectors, one row per position (the same word, the same row)", result.sentence_vectors,
                         positions, program::numbered_labels("d", inputs.width)) +
          '\n' +
          program::table("A layer that reads one vector: y_t = x_t W + b", result.one_outputs, positions, outputs) +
          '\n' +
          program::table(fmt::format("A layer that reads a window of {} (radius {}, zeros beyond the ends)",
                                     program::counted(2 * inputs.radius + 1, "vector", "vectors"), inputs.radius),
                         result.window_outputs, positions, outputs) +
          '\n';
  for (const Repeat& repeat : result.repeats) {
    std::vector<std::string> where;
    for (const Eigen::Index t : repeat.positions) where.push_back(std::to_string(t + 1));
    text += fmt::format("\"{}\" at positions {}, compared bit for bit:\n"
                        "  the same input vector: {}\n"
                        "  the same output from the layer that reads one vector: {}\n"
                        "  the same output from the window layer: {}\n",
                        repeat.word, program::listed(where, "and"), yes_no(repeat.inputs_identical),
                        yes_no(repeat.each_vector_identical), yes_no(repeat.window_identical));
  }
  // Lines of at most about 42 characters, so that a phone's column shows them whole.
  text += fmt::format("\nWeights of a window layer ({} per vector,\n  {} outputs): (2r + 1) * d * c + c\n",
                      inputs.width, inputs.tags);
  text += fmt::format("{:>8}  {:>6}  {:>10}  {}\n", "radius r", "window", "parameters", "sees all");
  for (const WindowSize& size : result.sizes) {
    text +=
        fmt::format("{:>8}  {:>6}  {:>10}  {}\n", size.radius, size.window,
                    program::grouped_digits(static_cast<std::uint64_t>(size.parameters)), yes_no(size.covers_sentence));
  }
  text +=
      fmt::format("To cover a sentence of {} words\n  from every position: radius {},\n  window {}, {} parameters.\n"
                  "Self-attention's W^Q, W^K, W^V at width {}\n  (one head): 3 * d * d = {} parameters,\n"
                  "  for any length;\n  with the one-vector layer after it, {}.\n",
                  inputs.longest, result.longest.radius, result.longest.window,
                  program::grouped_digits(static_cast<std::uint64_t>(result.longest.parameters)), inputs.width,
                  result.attention_parameters, result.attention_and_layer_parameters);
  return text;
}

// --words: at least three names (the nearer-or-farther question needs three), at most max_words, no repeats.
std::vector<std::string> read_words(const std::string& text) {
  std::vector<std::string> words = program::parse_names(text, "--words");
  if (words.size() < 3 || words.size() > max_words) {
    throw program::UsageError(
        fmt::format("--words: {}; expected 3 to {}", program::counted(words.size(), "word", "words"), max_words));
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (std::find(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(i), words[i]) !=
        words.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw program::UsageError(fmt::format("--words: '{}' is listed twice; expected each word once", words[i]));
    }
  }
  return words;
}

Eigen::Index read_size(const std::string& text, const char* flag, std::uint64_t maximum) {
  return static_cast<Eigen::Index>(program::parse_whole_number(text, flag, 1, maximum));
}

}  // namespace

Result compute(const Inputs& inputs) {
  Result result;
  result.inputs = inputs;
  // clang-format off
  // [encodings]
  result.one_hot = encoding_of(attention::one_hot(static_cast<Eigen::Index>(inputs.words.size())), inputs.words);
  result.embedding = encoding_of(inputs.embeddings, inputs.words);
  // [encodings]
  // clang-format on
  result.frames = frames_of(inputs.duration_us, inputs.window_ms, inputs.hop_ms);
  draw_and_run_the_layers(inputs, result);
  count_the_weights(inputs, result);
  return result;
}

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  const Frames& frames = result.frames;
  nlohmann::json repeats = nlohmann::json::array();
  for (const Repeat& repeat : result.repeats) {
    repeats.push_back({{"word", repeat.word},
                       {"positions", repeat.positions},
                       {"inputs_identical", repeat.inputs_identical},
                       {"each_vector_identical", repeat.each_vector_identical},
                       {"window_identical", repeat.window_identical}});
  }
  nlohmann::json sizes = nlohmann::json::array();
  for (const WindowSize& size : result.sizes) sizes.push_back(size_json(size));
  return {
      {"words", inputs.words},
      {"one_hot", encoding_json(result.one_hot)},
      {"embedding", encoding_json(result.embedding)},
      {"frames",
       {{"seconds", program::number_json(static_cast<double>(inputs.duration_us) / 1e6)},
        {"duration_ms", program::number_json(static_cast<double>(inputs.duration_us) / 1000.0)},
        {"window_ms", inputs.window_ms},
        {"hop_ms", inputs.hop_ms},
        {"count", frames.count},
        {"per_second", program::number_json(frames.per_second)},
        {"last_start_ms", program::number_json(static_cast<double>(frames.last_start_us) / 1000.0)},
        {"last_end_ms", program::number_json(static_cast<double>(frames.last_end_us) / 1000.0)},
        {"uncovered_ms", program::number_json(static_cast<double>(frames.uncovered_us) / 1000.0)},
        {"count_if_end_padded", frames.count_if_end_padded}}},
      {"tagging",
       {{"sentence", inputs.sentence},
        {"width", inputs.width},
        {"tags", inputs.tags},
        {"radius", inputs.radius},
        {"seed", inputs.seed},
        {"distinct_words", result.distinct_words},
        {"word_vectors", program::matrix_json(result.word_vectors)},
        {"inputs", program::matrix_json(result.sentence_vectors)},
        {"one_vector",
         {{"weights", program::matrix_json(result.one_weights)},
          {"bias", program::row_json(result.one_bias)},
          {"outputs", program::matrix_json(result.one_outputs)}}},
        {"window",
         {{"inputs", program::matrix_json(result.window_inputs)},
          {"weights", program::matrix_json(result.window_weights)},
          {"bias", program::row_json(result.window_bias)},
          {"outputs", program::matrix_json(result.window_outputs)}}},
        {"repeats", repeats},
        {"sizes", sizes},
        {"longest",
         {{"words", inputs.longest},
          {"radius", result.longest.radius},
          {"window", result.longest.window},
          {"parameters", result.longest.parameters}}},
        {"attention_parameters", result.attention_parameters},
        {"attention_and_layer_parameters", result.attention_and_layer_parameters}}},
  };
}

std::string tables(const Result& result) { return words_tables(result) + frames_table(result) + layer_tables(result); }

Flags::Flags(program::CommandLine& command_line) {
  command_line.option("--words", words_, fmt::format("the vocabulary, 3 to {} names separated by ','", max_words),
                      "NAMES");
  command_line.option("--embeddings", embeddings_,
                      fmt::format("one embedding per word, rows separated by ';' (illustrative values, not trained): "
                                  "at most {} entries per row, each from -1e6 to 1e6",
                                  max_width),
                      "MATRIX");
  command_line.option("--seconds", seconds_,
                      fmt::format("length of the recording in seconds, from 0.000001 to {} (rounded to whole "
                                  "microseconds)",
                                  max_seconds),
                      "NUMBER");
  command_line.option("--window-ms", window_ms_,
                      fmt::format("length of one frame's window in milliseconds, 1 to {}", max_milliseconds), "WHOLE");
  command_line.option("--hop-ms", hop_ms_,
                      fmt::format("how far the window moves each step, in milliseconds, 1 to {}", max_milliseconds),
                      "WHOLE");
  command_line.option("--sentence", sentence_,
                      fmt::format("the sentence to label, 1 to {} words separated by ','", max_words), "NAMES");
  command_line.option("--width", width_, fmt::format("width d of each word vector, 1 to {}", max_width), "WHOLE");
  command_line.option("--tags", tags_, fmt::format("number c of outputs per word, 1 to {}", max_width), "WHOLE");
  command_line.option("--radius", radius_,
                      fmt::format("the window layer's neighbours on each side, 0 to {}", max_radius), "WHOLE");
  command_line.option(
      "--seed", seed_,
      fmt::format("seed of the weights' stream; each word's vector comes from the stream of this seed XOR "
                  "the FNV-1a hash of the word's bytes, 0 to {}",
                  max_seed),
      "WHOLE");
  command_line.option("--longest", longest_,
                      fmt::format("the longest sentence a window must cover, in words, 1 to {}", max_longest), "WHOLE");
}

Inputs Flags::read() const {
  Inputs inputs;
  inputs.words = read_words(words_);
  inputs.embeddings = program::parse_matrix(embeddings_, "--embeddings");
  if (inputs.embeddings.rows() != static_cast<Eigen::Index>(inputs.words.size())) {
    throw program::UsageError(fmt::format("--embeddings: {} for {} (--words); give one row per word",
                                          program::counted(inputs.embeddings.rows(), "row", "rows"),
                                          program::counted(inputs.words.size(), "word", "words")));
  }
  if (inputs.embeddings.cols() > max_width) {
    throw program::UsageError(
        fmt::format("--embeddings: rows of {} entries; expected at most {}", inputs.embeddings.cols(), max_width));
  }
  program::require_entries_within(inputs.embeddings, 1e6, "--embeddings");
  const double seconds = program::parse_real_number(seconds_, "--seconds");
  if (!(seconds > 0.0 && seconds <= max_seconds)) {
    throw program::UsageError(fmt::format("--seconds: {}; expected more than 0 and at most {}", seconds_, max_seconds));
  }
  inputs.duration_us = std::llround(seconds * 1e6);  // whole microseconds: the frame count is then exact
  if (inputs.duration_us < 1) {
    throw program::UsageError(
        fmt::format("--seconds: {} is less than a microsecond; expected at least 0.000001", seconds_));
  }
  inputs.window_ms =
      static_cast<std::int64_t>(program::parse_whole_number(window_ms_, "--window-ms", 1, max_milliseconds));
  inputs.hop_ms = static_cast<std::int64_t>(program::parse_whole_number(hop_ms_, "--hop-ms", 1, max_milliseconds));
  inputs.sentence = program::parse_names(sentence_, "--sentence");
  if (inputs.sentence.size() > max_words) {
    throw program::UsageError(fmt::format("--sentence: {} words; expected 1 to {}", inputs.sentence.size(), max_words));
  }
  inputs.width = read_size(width_, "--width", max_width);
  inputs.tags = read_size(tags_, "--tags", max_width);
  inputs.radius = static_cast<Eigen::Index>(program::parse_whole_number(radius_, "--radius", 0, max_radius));
  inputs.seed = static_cast<std::uint32_t>(program::parse_whole_number(seed_, "--seed", 0, max_seed));
  inputs.longest = static_cast<long long>(program::parse_whole_number(longest_, "--longest", 1, max_longest));
  return inputs;
}

namespace {

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: four words (cat, dog, apple, pear) as one-hot vectors and
// as illustrative embeddings, with the dot product and the distance between
// every pair; the frames a 25 ms window moved by 10 ms cuts from one second of
// speech; and "I saw a saw" through a fully connected layer that reads one
// vector at a time, then through one that reads a window of three.
// --words and --embeddings change the vocabulary; --seconds, --window-ms and
// --hop-ms the recording; --sentence, --width, --tags, --radius, --seed and
// --longest the layers; --json prints the same values as one JSON document.
[[maybe_unused]] const bool registered =
    program::register_chapter<Flags>("sets_of_vectors",
                                     "Chapter 0 of Attention, Compiled: sets of vectors in, sets of vectors out. Words "
                                     "and speech as vectors, and why a layer that reads one vector at a time cannot "
                                     "tell the two saws of \"I saw a saw\" apart.",
                                     compute, to_json, tables);

}  // namespace

}  // namespace sets_of_vectors
