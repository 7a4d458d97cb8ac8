// Chapter 14's front ends: the JSON, the tables, the flags and the page's entry. The computation they report
// is in generating.cpp.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attention/kv_cache.hpp"
#include "attention/seed_spread.hpp"
#include "chapters/13_sentences/grammar.hpp"
#include "generating.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/kept_models.hpp"
#include "program/real_number.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/timing_report.hpp"
#include "program/trainings.hpp"
#include "program/usage_error.hpp"

namespace generating {

namespace {

constexpr std::uint64_t max_training_steps = 100'000;
constexpr std::uint64_t max_steps = 200;
constexpr std::size_t max_prompt_words = 40;
constexpr std::size_t max_seeds = 20;
constexpr std::uint64_t max_length = 1024;
// Recomputing every step costs about n³ for a length n: the benchmark's work is --reps times the sum of n³ over
// --n. 4·10⁹ is about a minute on the machines that built the book (n = 1024 with 3 repetitions).
constexpr double max_benchmark_work = 4e9;
constexpr std::uint64_t max_reps = 101;
constexpr double max_temperature = 100.0;

std::string percent(double share) { return fmt::format("{:.1f} %", 100.0 * share); }

nlohmann::json inputs_json(const Inputs& inputs) {
  return {{"model_seed", inputs.model_seed},
          {"training_steps", inputs.training_steps},
          {"key_value_heads", inputs.key_value_heads},
          {"d_model", inputs.shape.d_model},
          {"vocabulary", inputs.shape.vocabulary},
          {"heads", inputs.shape.heads},
          {"d_ff", inputs.shape.d_ff},
          {"layers", inputs.shape.layers},
          {"batch", inputs.batch},
          {"learning_rate", inputs.adam.learning_rate},
          {"modifiers", inputs.modifiers},
          {"held_out", inputs.held_out},
          {"judged", inputs.judged},
          {"judged_words", inputs.judged_words},
          {"prompt", text_of(inputs.prompt)},
          {"steps", inputs.steps},
          {"temperature", inputs.sampling.temperature},
          {"top_k", inputs.sampling.top_k},
          {"seed", inputs.seed},
          {"cache", inputs.use_cache}};
}

nlohmann::json quality_json(const Quality& quality) {
  nlohmann::json examples = nlohmann::json::array();
  for (const Example& shown : quality.examples) {
    nlohmann::json example{{"text", shown.text}, {"grammatical", shown.grammatical}};
    if (shown.refusal) example["refusal"] = {{"at", shown.refusal->at}, {"expected", shown.refusal->expected}};
    examples.push_back(example);
  }
  // e^loss, the perplexity: as unsure as a fair choice among that many words.
  return {{"held_out_loss", quality.held_out_loss},
          {"held_out_words", quality.held_out_words},
          {"held_out_perplexity", std::exp(quality.held_out_loss)},
          {"no_context_perplexity", std::exp(quality.no_context_loss)},
          {"no_context_loss", quality.no_context_loss},
          {"grammar_loss", quality.grammar_loss},
          {"grammar_perplexity", std::exp(quality.grammar_loss)},
          {"above_grammar_loss", quality.held_out_loss - quality.grammar_loss},
          {"grammatical", quality.grammatical},
          {"novel", quality.novel},
          {"judged_temperature", judged_sampling.temperature},
          {"judged_top_k", judged_sampling.top_k},
          {"examples", examples}};
}

// The words the reader gave, without the start ".".
std::string prompt_text(const Generation& generation) {
  return text_of(std::vector<Eigen::Index>(generation.prompt.begin() + 1, generation.prompt.end()));
}

nlohmann::json generation_json(const Generation& generation) {
  nlohmann::json words = nlohmann::json::array();
  std::vector<Eigen::Index> read = generation.prompt;
  for (const GeneratedWord& word : generation.words) {
    nlohmann::json top = nlohmann::json::array();
    for (const auto& [candidate, probability] : word.top)
      top.push_back({{"word", tokens()[static_cast<std::size_t>(candidate)]}, {"probability", probability}});
    std::vector<std::string> read_words;
    for (const Eigen::Index w : read) read_words.push_back(tokens()[static_cast<std::size_t>(w)]);
    nlohmann::json entry = {{"word", tokens()[static_cast<std::size_t>(word.word)]},
                            {"number", word.word},
                            {"probability", word.probability},
                            {"drawn_with", word.drawn_with},
                            {"top", top},
                            {"reads", read_words},
                            {"attention", word.attention},
                            {"cache_numbers", word.cache_numbers},
                            {"cache_bytes", word.cache_numbers * static_cast<long long>(sizeof(double))}};
    if (word.u) {  // a draw: u, and the word's stretch of the line, which u fell in
      entry["u"] = *word.u;
      entry["stretch"] = {word.stretch_from, word.stretch_from + word.drawn_with};
      nlohmann::json line = nlohmann::json::array();
      for (const GeneratedWord::Stretch& stretch : word.line) {
        line.push_back(
            {{"word", tokens()[static_cast<std::size_t>(stretch.word)]}, {"from", stretch.from}, {"to", stretch.to}});
      }
      entry["line"] = line;
      entry["line_model_probability"] = word.line_model_probability;
    }
    words.push_back(std::move(entry));
    read.push_back(word.word);
  }
  // For the last word: the word each head of each layer put its largest weight on.
  nlohmann::json last_looks_at = nlohmann::json::array();
  if (!generation.words.empty()) {
    for (const auto& layer : generation.words.back().attention) {
      nlohmann::json heads = nlohmann::json::array();
      for (const std::vector<double>& weights : layer) {
        const auto peak = static_cast<std::size_t>(std::max_element(weights.begin(), weights.end()) - weights.begin());
        heads.push_back(words.back()["reads"][peak]);
      }
      last_looks_at.push_back(heads);
    }
  }
  return {{"prompt", prompt_text(generation)},
          {"last_looks_at", last_looks_at},
          {"text", text_of(generation.sentence)},
          {"words", words},
          {"ended", generation.ended},
          {"grammatical", generation.grammatical},
          {"largest_difference", generation.largest_difference}};
}

nlohmann::json timing_json(const attention::TimingSummary& timing) {
  return {{"median", timing.median}, {"low", timing.spread_low}, {"high", timing.spread_high}};
}

std::string faster_name(attention::Faster faster) {
  return faster == attention::Faster::first    ? "cache"
         : faster == attention::Faster::second ? "recompute"
                                               : "too close to call";
}

}  // namespace

nlohmann::json to_json(const Result& result) {
  nlohmann::json document{
      {"inputs", inputs_json(result.inputs)},
      {"parameters", result.parameters},
      {"tokens", tokens()},
      {"training", {{"steps", result.logged_steps}, {"loss", result.loss}}},
      {"quality", quality_json(result.quality)},
      {"generation", generation_json(result.generation)},
      {"cache_numbers_per_word",
       attention::key_value_cache_numbers(result.inputs.shape.layers, 1, result.inputs.key_value_heads,
                                          result.inputs.shape.d_model / result.inputs.shape.heads)},
      {"seconds", result.seconds},
      {"decoding_seconds", result.generation.seconds},
      {"seconds_per_word", result.generation.words.empty()
                               ? 0.0
                               : result.generation.seconds / static_cast<double>(result.generation.words.size())}};
  if (result.weights) {
    document["weights"] = program::token_classifier_json(*result.weights);
    document["weights"]["key_value_heads"] = result.inputs.key_value_heads;
    document["quality"]["judged_sentences"] = result.quality.judged_sentences;
  }
  return document;
}

namespace {

// "1 key/value head", "4 key/value heads": the verdicts name a grouping in words, since the page prints them
// into its sentences as plain text (where "h_kv" would show its underscore).
std::string key_value_heads_text(long long heads) {
  return fmt::format("{} key/value head{}", heads, heads == 1 ? "" : "s");
}

// Can the seeds tell the groupings of @p by_groups apart on @p measure (its "best" and "worst" over the
// seeds)? The book's spread rule (attention::higher_over_seeds()): a grouping differs from the first only if every
// seed's value with it lies beyond every seed's value with the first. @p what names one value, @p whats several.
std::string seeds_verdict(const nlohmann::json& by_groups, const char* measure, const char* what, const char* whats) {
  if (by_groups.empty()) return "";
  const auto spread = [&](const nlohmann::json& group) {
    const double best = group[measure]["best"], worst = group[measure]["worst"];
    return attention::SeedSpread{group[measure]["median"], std::min(best, worst), std::max(best, worst)};
  };
  const nlohmann::json& reference = by_groups.front();
  const long long reference_heads = reference["key_value_heads"].get<long long>();
  std::vector<std::string> others;  // "2 key/value heads", "with 1": the groupings after the first, in order
  for (const nlohmann::json& group : by_groups) {
    const long long heads = group["key_value_heads"].get<long long>();
    const attention::Higher higher = attention::higher_over_seeds(spread(group), spread(reference));
    if (higher != attention::Higher::too_close) {
      return fmt::format("with {} every seed's {} lies {} every seed's {} with {}", key_value_heads_text(heads), what,
                         higher == attention::Higher::first ? "above" : "below", what, reference_heads);
    }
    if (heads != reference_heads) {
      others.push_back(others.empty() ? key_value_heads_text(heads) : fmt::format("with {}", heads));
    }
  }
  if (others.empty()) {
    return fmt::format("only {} {} trained", key_value_heads_text(reference_heads),
                       reference_heads == 1 ? "was" : "were");
  }
  // Overlapping ranges over a few seeds cannot show that sharing costs nothing, only that the rule sees no cost.
  return fmt::format("too close to call: the {} with {} {} those with {}", whats, program::listed(others, "and"),
                     others.size() == 1 ? "overlap" : "each overlap", reference_heads);
}

}  // namespace

nlohmann::json to_json(const SeedsResult& result) {
  nlohmann::json runs = nlohmann::json::array(), by_groups = nlohmann::json::array();
  std::vector<double> seconds_per_run;
  for (const SeedRun& run : result.runs) {
    runs.push_back({{"seed", run.seed},
                    {"key_value_heads", run.key_value_heads},
                    {"parameters", run.parameters},
                    {"cache_numbers_per_word", run.cache_numbers},
                    {"held_out_loss", run.quality.held_out_loss},
                    {"grammatical", run.quality.grammatical},
                    {"novel", run.quality.novel}});
    seconds_per_run.push_back(run.seconds);
  }
  for (const Eigen::Index groups : result.inputs.key_value_heads_list) {
    std::vector<double> loss, grammatical;
    nlohmann::json first;
    for (const SeedRun& run : result.runs) {
      if (run.key_value_heads != groups) continue;
      loss.push_back(run.quality.held_out_loss), grammatical.push_back(run.quality.grammatical);
      first = {{"parameters", run.parameters}, {"cache_numbers_per_word", run.cache_numbers}};
    }
    first["key_value_heads"] = groups;
    first["held_out_loss"] = {{"median", attention::median(loss)},
                              {"best", *std::min_element(loss.begin(), loss.end())},
                              {"worst", *std::max_element(loss.begin(), loss.end())}};
    first["grammatical"] = {{"median", attention::median(grammatical)},
                            {"best", *std::max_element(grammatical.begin(), grammatical.end())},
                            {"worst", *std::min_element(grammatical.begin(), grammatical.end())}};
    by_groups.push_back(first);
  }
  return {{"inputs", inputs_json(result.inputs)},
          {"seeds", result.inputs.seeds},
          {"runs", runs},
          {"by_key_value_heads", by_groups},
          {"verdict", seeds_verdict(by_groups, "held_out_loss", "loss", "losses")},
          {"grammatical_verdict", seeds_verdict(by_groups, "grammatical", "grammatical share", "grammatical shares")},
          {"seconds", {{"per_run", seconds_per_run}, {"median", attention::median(seconds_per_run)}}}};
}

namespace {

// How fast each way's time and count grow, as the slope of its line on a log-log plot between the two longest
// lengths: the power of n that the last step grows like. null with fewer than two different lengths.
nlohmann::json slopes_json(const std::vector<BenchmarkLength>& lengths) {
  std::vector<const BenchmarkLength*> by_n;
  for (const BenchmarkLength& length : lengths) by_n.push_back(&length);
  std::sort(by_n.begin(), by_n.end(), [](const auto* a, const auto* b) { return a->n < b->n; });
  by_n.erase(std::unique(by_n.begin(), by_n.end(), [](const auto* a, const auto* b) { return a->n == b->n; }),
             by_n.end());
  if (by_n.size() < 2) return nullptr;
  const BenchmarkLength& shorter = *by_n[by_n.size() - 2];
  const BenchmarkLength& longer = *by_n.back();
  const double span = std::log(static_cast<double>(longer.n) / static_cast<double>(shorter.n));
  const auto slope = [span](double from, double to) { return std::log(to / from) / span; };
  return {{"from_n", shorter.n},
          {"to_n", longer.n},
          {"cached",
           {{"timed", slope(shorter.cached.median, longer.cached.median)},
            {"counted", slope(shorter.cached_multiply_adds, longer.cached_multiply_adds)}}},
          {"recomputed",
           {{"timed", slope(shorter.recomputed.median, longer.recomputed.median)},
            {"counted", slope(shorter.recomputed_multiply_adds, longer.recomputed_multiply_adds)}}}};
}

}  // namespace

nlohmann::json to_json(const BenchmarkResult& result) {
  nlohmann::json lengths = nlohmann::json::array();
  for (const BenchmarkLength& length : result.lengths) {
    lengths.push_back({{"n", length.n},
                       {"cached", timing_json(length.cached)},
                       {"recomputed", timing_json(length.recomputed)},
                       {"faster", faster_name(length.faster)},
                       {"cached_last", timing_json(length.cached_last)},
                       {"recomputed_last", timing_json(length.recomputed_last)},
                       {"cached_multiply_adds", length.cached_multiply_adds},
                       {"recomputed_multiply_adds", length.recomputed_multiply_adds},
                       // How many times the cache's work recomputing takes, by the clock and by the count.
                       {"recomputed_over_cached_time", length.recomputed.median / length.cached.median},
                       {"recomputed_over_cached_count", length.recomputed_multiply_adds / length.cached_multiply_adds},
                       {"cached_share_of_peak", length.cached_rate.share},
                       {"recomputed_share_of_peak", length.recomputed_rate.share},
                       {"above_peak", length.cached_rate.above_peak || length.recomputed_rate.above_peak},
                       {"cache_numbers", length.cache_numbers},
                       {"cache_bytes", length.cache_numbers * static_cast<long long>(sizeof(double))}});
  }
  const LargeCache& scale = result.large;
  nlohmann::json large{{"layers", scale.layers},
                       {"query_heads", scale.query_heads},
                       {"head_width", scale.head_width},
                       {"positions", scale.positions},
                       {"bytes_per_number", scale.bytes_per_number},
                       {"caches", nlohmann::json::array()}};
  for (const auto& [groups, bytes] : scale.bytes) {
    large["caches"].push_back({{"key_value_heads", groups},
                               {"bytes", bytes},
                               {"gibibytes", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0)}});
  }
  return {{"reps", result.inputs.reps},
          {"key_value_heads", result.inputs.key_value_heads},
          {"shape",
           {{"d_model", result.shape.d_model},
            {"heads", result.shape.heads},
            {"d_ff", result.shape.d_ff},
            {"layers", result.shape.layers},
            {"vocabulary", result.shape.vocabulary}}},
          {"processor", result.processor},
          {"peak", {{"gflops", result.peak.flops / 1e9}, {"instructions", result.peak.instructions}, {"threads", 1}}},
          {"lengths", lengths},
          {"slopes", slopes_json(result.lengths)},
          {"large", large}};
}

namespace {

// Where the grammar refused a sentence, and what it has there: "refused at word 3, "red": the grammar has
// noun(one) or noun(many) there".
std::string refusal_line(const sentences::Refusal& refusal, const std::string& sentence) {
  const std::string choices = program::listed(refusal.expected, "or");
  const std::vector<std::string_view> words =
      sentence.empty() ? std::vector<std::string_view>{} : program::split(sentence, ' ');
  if (words.empty()) return fmt::format("refused: a sentence starts with {}", choices);
  if (refusal.at >= words.size()) return fmt::format("refused after its last word: the grammar has {} next", choices);
  return fmt::format("refused at word {}, \"{}\": the grammar has {} there", refusal.at + 1, words[refusal.at],
                     choices);
}

// The first drawn word's line from 0 to 1, when top-k left few enough words to list: each word's stretch, and where
// u fell.
std::string first_draw_line(const Generation& generation, const attention::SamplingSettings& sampling) {
  if (generation.words.empty() || !generation.words.front().u || sampling.top_k == 0 || sampling.top_k > 10) return "";
  const GeneratedWord& first = generation.words.front();
  std::string text =
      fmt::format("\nThe first draw: each word top-{} kept, in\nthe vocabulary's order, and its stretch\n",
                  sampling.top_k);
  for (const GeneratedWord::Stretch& stretch : first.line) {
    text += fmt::format("  {:<9}{:.3f} to {:.3f}{}\n", tokens()[static_cast<std::size_t>(stretch.word)], stretch.from,
                        stretch.to, stretch.word == first.word ? fmt::format("  u = {:.3f} here", *first.u) : "");
  }
  text += fmt::format("  The model gives these {} words {:.3f}\n  together", first.line.size(),
                      first.line_model_probability);
  text += sampling.temperature == 1.0
              ? fmt::format("; at T = 1 a stretch is p / {:.3f}\n", first.line_model_probability)
              : "\n";
  return text;
}

// The words a draw is among, as the tables say it: "every word", or "top-5".
std::string drawn_among(const attention::SamplingSettings& sampling) {
  return sampling.top_k == 0 ? std::string("every word") : fmt::format("top-{}", sampling.top_k);
}

std::string generation_table(const Result& result) {
  const Generation& generation = result.generation;
  const Inputs& inputs = result.inputs;
  const std::string how =
      inputs.sampling.temperature == 0.0
          ? std::string("greedy: the likeliest word each time")
          : fmt::format("drawn with T = {}, {}, seed {}", program::number_text(inputs.sampling.temperature),
                        drawn_among(inputs.sampling), inputs.seed);
  std::string text =
      fmt::format("\nGenerating from \"{}\" ({}), {}\n", prompt_text(generation), how,
                  inputs.use_cache ? "reading a cache of keys and values" : "recomputing the whole prefix");
  // The numbers in the cache next to p, and the likeliest three last, unpadded: the columns the chapter reads fit a
  // phone's narrow column. The cache holds at most 64 numbers a word for the start, 40 prompt words and 200 steps:
  // 5 digits.
  text += fmt::format("  {:>4}  {:<9} {:>6}  {:>5}  {}\n", "step", "word", "p", "cache", "likeliest three");
  for (std::size_t s = 0; s < generation.words.size(); ++s) {
    const GeneratedWord& word = generation.words[s];
    std::vector<std::string> top;
    for (const auto& [candidate, probability] : word.top) {
      top.push_back(fmt::format("{} {:.2f}", tokens()[static_cast<std::size_t>(candidate)], probability));
    }
    text += fmt::format("  {:>4}  {:<9} {:>6.3f}  {:>5}  {}\n", s + 1, tokens()[static_cast<std::size_t>(word.word)],
                        word.probability, word.cache_numbers, fmt::join(top, "  "));
  }
  text += fmt::format("  Sentence: \"{}\"  {}\n", text_of(generation.sentence),
                      !generation.ended        ? "(not finished)"
                      : generation.grammatical ? "(the grammar accepts it)"
                                               : "(not a sentence of the grammar)");
  text += fmt::format("  Largest difference in the word scores,\n  cached against recomputed: {:.3g}\n",
                      generation.largest_difference);
  text += first_draw_line(generation, inputs.sampling);
  if (!generation.words.empty()) {
    // Where the position that chose the last word looked, in the last layer: a row per word read and a column per
    // head, so that a long sentence makes the table longer, not wider.
    const GeneratedWord& last = generation.words.back();
    const auto& layer = last.attention.back();
    std::vector<Eigen::Index> read = generation.prompt;
    for (std::size_t s = 0; s + 1 < generation.words.size(); ++s) read.push_back(generation.words[s].word);
    attention::Matrix weights(static_cast<Eigen::Index>(read.size()), static_cast<Eigen::Index>(layer.size()));
    for (std::size_t h = 0; h < layer.size(); ++h) {
      for (std::size_t t = 0; t < read.size(); ++t)
        weights(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>(h)) = layer[h][t];
    }
    std::vector<std::string> rows;
    for (const Eigen::Index w : read) rows.push_back(tokens()[static_cast<std::size_t>(w)]);
    text += '\n' + program::table(fmt::format("Attention of the position that chose \"{}\",\nin the last layer",
                                              tokens()[static_cast<std::size_t>(last.word)]),
                                  weights, rows, program::numbered_labels("head ", weights.cols()), 2);
  }
  return text;
}

}  // namespace

std::string tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  std::string text = program::wrapped(
      fmt::format("Training: {} steps of {} sentences; {} decoder layer(s) of {} query heads sharing {} key/value "
                  "head(s), d_model = {}; {} parameters; {:.2f} s",
                  inputs.training_steps, inputs.batch, inputs.shape.layers, inputs.shape.heads, inputs.key_value_heads,
                  inputs.shape.d_model, program::grouped_digits(static_cast<std::uint64_t>(result.parameters)),
                  result.seconds),
      78, "  ");
  text += fmt::format("\n{:>7}  {}\n", "step", "loss per word");
  for (std::size_t i = 0; i < result.logged_steps.size(); ++i) {
    if (i % 4 == 3 || i + 1 == result.logged_steps.size())
      text += fmt::format("{:>7}  {:>8.4f}\n", result.logged_steps[i], result.loss[i]);
  }
  const Quality& quality = result.quality;
  // Short labels, one value a line, so that a phone's narrow column shows every value the chapter quotes.
  const auto line = [](std::string_view label, const std::string& value) {
    return fmt::format("{:<35}{}\n", label, value);
  };
  text += fmt::format("\nHeld-out: {} sentences\n", inputs.held_out);
  text += line("  words to predict", fmt::format("{}", quality.held_out_words));
  text += line("  loss per word", fmt::format("{:.4f}", quality.held_out_loss));
  text += line("    best, the same odds everywhere", fmt::format("{:.4f}", quality.no_context_loss));
  text += line("    the grammar that wrote them", fmt::format("{:.4f}", quality.grammar_loss));
  text += fmt::format("Drawn from the model (T = {}, {})\n", program::number_text(judged_sampling.temperature),
                      drawn_among(judged_sampling));
  text += line("  sentences", fmt::format("{}", inputs.judged));
  text += line("  grammatical", percent(quality.grammatical));
  text += line("    and never a training sentence", percent(quality.novel));
  for (const Example& example : quality.examples) {
    // A sentence that never ended runs to 40 words: the table shows its start (the JSON has it whole).
    constexpr std::size_t widest = 72;
    const std::string& sentence = example.text;
    const std::string shown =
        sentence.size() <= widest ? sentence : sentence.substr(0, sentence.rfind(' ', widest)) + " ...";
    text += fmt::format("  {} {}\n", example.grammatical ? "   " : " x ", shown);
    if (example.refusal) text += fmt::format("        {}\n", refusal_line(*example.refusal, sentence));
  }
  text += generation_table(result);
  return text;
}

std::string tables(const SeedsResult& result) {
  std::string text =
      fmt::format("{} steps, {} query heads; each seed and h_kv trained from scratch on the same sentences\n\n",
                  result.inputs.training_steps, result.inputs.shape.heads);
  text += fmt::format("  {:>4}  {:>4}  {:>10}  {:>14}  {:>13}  {:>11}  {:>7}\n", "h_kv", "seed", "parameters",
                      "cache per word", "held-out loss", "grammatical", "seconds");
  for (const SeedRun& run : result.runs) {
    text += fmt::format("  {:>4}  {:>4}  {:>10}  {:>14}  {:>13.4f}  {:>11}  {:>7.2f}\n", run.key_value_heads, run.seed,
                        program::grouped_digits(static_cast<std::uint64_t>(run.parameters)), run.cache_numbers,
                        run.quality.held_out_loss, percent(run.quality.grammatical), run.seconds);
  }
  text += fmt::format("\nOver the seeds: median [best, worst]\n  {:>4}  {:>14}  {:>26}  {:>26}\n", "h_kv",
                      "cache per word", "held-out loss", "grammatical");
  const nlohmann::json document = to_json(result);
  for (const nlohmann::json& group : document["by_key_value_heads"]) {
    const auto loss = group["held_out_loss"], grammatical = group["grammatical"];
    text += fmt::format("  {:>4}  {:>14}  {:>26}  {:>26}\n", group["key_value_heads"].get<long long>(),
                        group["cache_numbers_per_word"].get<long long>(),
                        fmt::format("{:.4f} [{:.4f}, {:.4f}]", loss["median"].get<double>(), loss["best"].get<double>(),
                                    loss["worst"].get<double>()),
                        fmt::format("{} [{}, {}]", percent(grammatical["median"].get<double>()),
                                    percent(grammatical["best"].get<double>()),
                                    percent(grammatical["worst"].get<double>())));
  }
  return text;
}

std::string tables(const BenchmarkResult& result) {
  std::string text = program::wrapped(
      fmt::format("Decoding n words with the cache and by recomputing the prefix: an untrained model of {} "
                  "layer(s), d_model = {}, {} query heads, {} key/value head(s); median [spread] of {} "
                  "repetitions in turns",
                  result.shape.layers, result.shape.d_model, result.shape.heads, result.inputs.key_value_heads,
                  result.inputs.reps),
      78, "  ");
  text += program::processor_lines(result.processor);
  // One way a row, and for the whole sentence which was faster under them: a time can be
  // program::timing_column_width characters wide, and side by side the two would not fit a phone's narrow column.
  const auto time_rows = [](Eigen::Index n, const attention::TimingSummary& cached,
                            const attention::TimingSummary& recomputed) {
    return fmt::format("  {:>5}  {:<9}  {}\n  {:>5}  {:<9}  {}\n", n, "cache", program::milliseconds_text(cached), "",
                       "recompute", program::milliseconds_text(recomputed));
  };
  text += fmt::format("\nTime for all n words, ms: median [spread]\n  {:>5}\n", "n");
  for (const BenchmarkLength& length : result.lengths) {
    text += time_rows(length.n, length.cached, length.recomputed);
    text += fmt::format("  {:>5}  {:<9}  {}\n", "", "faster", faster_name(length.faster));
  }
  // The counts, the ratio and the cache's memory each within a phone's 44 characters.
  text += fmt::format("\nMultiply-adds counted for all n words\n  {:>5}  {:>10}  {:>12}  {:>8}\n", "n", "cache",
                      "recompute", "ratio");
  for (const BenchmarkLength& length : result.lengths) {
    text += fmt::format("  {:>5}  {:>10}  {:>12}  {:>8}\n", length.n,
                        program::grouped_digits(static_cast<std::uint64_t>(length.cached_multiply_adds)),
                        program::grouped_digits(static_cast<std::uint64_t>(length.recomputed_multiply_adds)),
                        fmt::format("1 : {:.0f}", length.recomputed_multiply_adds / length.cached_multiply_adds));
  }
  text += fmt::format("\nThe cache's memory at n, bytes\n  {:>5}  {:>10}\n", "n", "cache");
  for (const BenchmarkLength& length : result.lengths) {
    text += fmt::format("  {:>5}  {:>10}\n", length.n,
                        program::grouped_digits(static_cast<std::uint64_t>(length.cache_numbers) * sizeof(double)));
  }
  // The share of the peak and the times of word n alone as tables of their own: side by side, with the two times,
  // they were 107 characters wide, and a phone showed none of the shares the prose reads.
  const auto share = [](const attention::RateAgainstPeak& rate) {
    return rate.above_peak ? std::string("above the peak!") : fmt::format("{:.1f} %", 100.0 * rate.share);
  };
  text += fmt::format("\nShare of the peak, the whole sentence\n  {:>5}  {:>9}  {:>9}\n", "n", "cache", "recompute");
  for (const BenchmarkLength& length : result.lengths) {
    text += fmt::format("  {:>5}  {:>9}  {:>9}\n", length.n, share(length.cached_rate), share(length.recomputed_rate));
  }
  text += program::wrapped(fmt::format("(peak: {:.1f} GFLOP/s, one thread, {}, measured in this run)",
                                       result.peak.flops / 1e9, result.peak.instructions),
                           44, "  ");
  text += fmt::format("\nTime for word n alone, ms: median [spread]\n  {:>5}\n", "n");
  for (const BenchmarkLength& length : result.lengths)
    text += time_rows(length.n, length.cached_last, length.recomputed_last);
  const LargeCache& large = result.large;
  text += '\n';
  text += program::wrapped(fmt::format("The cache of a larger decoder: {} layers, {} query heads of width {}, "
                                       "{} words, {} bytes a number",
                                       large.layers, large.query_heads, large.head_width, large.positions,
                                       large.bytes_per_number),
                           78, "  ");
  for (const auto& [groups, bytes] : large.bytes) {
    text += fmt::format("  h_kv = {:<3} {:>16} bytes  ({:.2f} GiB)\n", groups,
                        program::grouped_digits(static_cast<std::uint64_t>(bytes)),
                        static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  }
  return text;
}

Flags::Flags(program::CommandLine& command_line) : command_line_(command_line) {
  command_line.option("--prompt", prompt_text_,
                      "the words the sentence starts with, separated by spaces (default: none)", "TEXT");
  command_line.option("--steps", steps_text_,
                      fmt::format("the most words to generate, 1 to {} (default 16); it stops at \".\"", max_steps),
                      "INTEGER");
  command_line.option(
      "--temperature", temperature_text_,
      fmt::format("T, 0 to {}: 0 takes the likeliest word (default), above 0 draws from softmax(logits / T)",
                  program::number_text(max_temperature)),
      "NUMBER");
  command_line.option("--top-k", top_k_text_, "draw only among the k likeliest words; 0 (default) keeps every word",
                      "INTEGER");
  command_line.option("--seed", seed_text_, "seed of the draws when T > 0 (default 1)", "INTEGER");
  command_line.option(
      "--kv-heads", key_value_heads_text_,
      "h_kv, heads of keys and values shared by the 4 query heads: 4 (default), 2 or 1; with --seeds, a list",
      "INTEGER");
  command_line.flag("--no-cache", no_cache_,
                    "run the model on the whole prefix at every step instead of reading the cache");
  command_line.option("--model-seed", model_seed_text_,
                      "seed of the weights, the held-out set and the training sentences (default 1)", "INTEGER");
  command_line.option("--training-steps", training_steps_text_,
                      fmt::format("Adam updates of 16 sentences, 1 to {} (default 1500)", max_training_steps),
                      "INTEGER");
  command_line.option(
      "--seeds", seeds_text_,
      fmt::format("train once for each of these model seeds (at most {}) and each h_kv of --kv-heads, and "
                  "print each one's held-out loss and grammatical share",
                  max_seeds),
      "LIST");
  command_line.flag("--weights", include_weights_,
                    "put every trained weight and every judged sentence in the JSON, so that another program "
                    "can rerun the model and judge its sentences");
  command_line.only_in_json("--weights");
  command_line.flag("--benchmark", benchmark_,
                    "time decoding with the cache against recomputing, on an untrained model, and train nothing");
  command_line.option(
      "--n", lengths_text_,
      fmt::format("with --benchmark: the lengths to time, 1 to {}, with --reps times the sum of n³ at most "
                  "{:.0f}·10⁹, about a minute (n = {} needs --reps 3; default 32,64,128,256)",
                  max_length, max_benchmark_work / 1e9, max_length),
      "LIST");
  command_line.option("--reps", reps_text_, fmt::format("with --benchmark: repetitions, 3 to {} (default 5)", max_reps),
                      "INTEGER");
  command_line.flag("--model-for-the-page", model_for_the_page_,
                    "train, and print the trained model as JSON for the build to put in the page");
  // The flags of one sentence's decoding mean nothing to the seeds' table or the benchmark: refused, not ignored.
  const std::vector<std::string> decoding{"--prompt", "--steps", "--temperature", "--top-k", "--seed", "--no-cache"};
  std::vector<std::string> not_with_seeds{"--model-seed", "--weights", "--model-for-the-page", "--benchmark"};
  not_with_seeds.insert(not_with_seeds.end(), decoding.begin(), decoding.end());
  command_line.excludes("--seeds", not_with_seeds);
  std::vector<std::string> not_with_benchmark{"--model-seed", "--weights", "--model-for-the-page", "--training-steps"};
  not_with_benchmark.insert(not_with_benchmark.end(), decoding.begin(), decoding.end());
  command_line.excludes("--benchmark", not_with_benchmark);
  command_line.add_check([&command_line] {
    for (const char* flag : {"--n", "--reps"}) {
      if (command_line.given(flag) && !command_line.given("--benchmark")) {
        throw program::UsageError(fmt::format("{}: only with --benchmark", flag));
      }
    }
  });
}

namespace {

Eigen::Index key_value_heads_of(std::uint64_t value, Eigen::Index heads) {
  if (heads % static_cast<Eigen::Index>(value) != 0) {
    throw program::UsageError(
        fmt::format("--kv-heads: {} does not divide the {} query heads; expected 4, 2 or 1", value, heads));
  }
  return static_cast<Eigen::Index>(value);
}

}  // namespace

Inputs Flags::read() const {
  Inputs inputs;
  const Eigen::Index heads = inputs.shape.heads;
  if (command_line_.given("--seeds")) {
    inputs.seeds = program::parse_whole_numbers(seeds_text_, "--seeds", 0, UINT64_MAX, max_seeds);
    for (const std::uint64_t value :
         program::parse_whole_numbers(key_value_heads_text_, "--kv-heads", 1, static_cast<std::uint64_t>(heads), 3)) {
      const Eigen::Index groups = key_value_heads_of(value, heads);
      if (std::find(inputs.key_value_heads_list.begin(), inputs.key_value_heads_list.end(), groups) !=
          inputs.key_value_heads_list.end()) {
        throw program::UsageError(fmt::format("--kv-heads: {} is listed twice", groups));
      }
      inputs.key_value_heads_list.push_back(groups);
    }
  } else {
    inputs.key_value_heads = key_value_heads_of(program::parse_whole_number(key_value_heads_text_, "--kv-heads", 1,
                                                                            static_cast<std::uint64_t>(heads)),
                                                heads);
  }
  inputs.model_seed = program::parse_whole_number(model_seed_text_, "--model-seed", 0, UINT64_MAX);
  inputs.training_steps = static_cast<long long>(
      program::parse_whole_number(training_steps_text_, "--training-steps", 1, max_training_steps));
  inputs.steps = static_cast<long long>(program::parse_whole_number(steps_text_, "--steps", 1, max_steps));
  inputs.sampling.temperature = program::parse_real_number(temperature_text_, "--temperature");
  if (inputs.sampling.temperature < 0.0 || inputs.sampling.temperature > max_temperature) {
    throw program::UsageError(fmt::format("--temperature: expected a number from 0 to {}, got {}",
                                          program::number_text(max_temperature), temperature_text_));
  }
  inputs.sampling.top_k = static_cast<Eigen::Index>(
      program::parse_whole_number(top_k_text_, "--top-k", 0, static_cast<std::uint64_t>(tokens().size())));
  inputs.seed = program::parse_whole_number(seed_text_, "--seed", 0, UINT64_MAX);
  inputs.use_cache = !no_cache_;
  inputs.include_weights = include_weights_;
  if (command_line_.given("--prompt")) {
    const std::string text(program::trim(prompt_text_));
    if (!text.empty()) inputs.prompt = sentences::words_of(text, "--prompt");
    if (inputs.prompt.size() > max_prompt_words) {
      throw program::UsageError(
          fmt::format("--prompt has {} words; at most {}", inputs.prompt.size(), max_prompt_words));
    }
  }
  return inputs;
}

BenchmarkInputs Flags::read_benchmark() const {
  BenchmarkInputs inputs;
  const Inputs model = read();
  inputs.key_value_heads = model.key_value_heads;
  inputs.lengths.clear();
  for (const std::uint64_t n : program::parse_whole_numbers(lengths_text_, "--n", 1, max_length, 20)) {
    inputs.lengths.push_back(static_cast<Eigen::Index>(n));
  }
  inputs.reps = static_cast<std::size_t>(program::parse_whole_number(reps_text_, "--reps", 3, max_reps));
  double cubes = 0.0;  // the sum of n³ over --n
  for (const Eigen::Index n : inputs.lengths) cubes += std::pow(static_cast<double>(n), 3);
  const double work = static_cast<double>(inputs.reps) * cubes;
  if (work > max_benchmark_work) {
    // Name the flags typed, and suggest fewer repetitions only where the fewest, 3, would fit.
    const bool three_fit = 3 * cubes <= max_benchmark_work;
    const bool reps_typed = command_line_.given("--reps");
    throw program::UsageError(fmt::format(
        "{}: {} repetitions{} of the sum of n³ over --n is {:.1f}·10⁹, more than the {:.0f}·10⁹ a run may take (about "
        "a minute); {}",
        reps_typed && three_fit ? "--n and --reps" : "--n", inputs.reps, reps_typed ? "" : " (the default --reps)",
        work / 1e9, max_benchmark_work / 1e9,
        three_fit ? std::string("use shorter lengths or fewer repetitions (--reps 3 fits)")
                  : fmt::format("use shorter lengths (even 3 repetitions would be {:.1f}·10⁹)", 3 * cubes / 1e9)));
  }
  return inputs;
}

#ifdef __EMSCRIPTEN__
// The model the build trained natively with the defaults: a source file the build writes
// (models_for_the_page.py) into the page's module, and only there.
const std::vector<SavedModel>& models_for_the_page();
#endif

namespace {

// The page's model: the one the build trained with the same inputs, if it shipped one; otherwise trained here
// (chapter 13 says why the page does not train its own: WebAssembly's last bits differ, and training grows them).
std::shared_ptr<const Trained> trained_for_the_page(const Inputs& inputs) {
#ifdef __EMSCRIPTEN__
  for (const SavedModel& model : models_for_the_page()) {
    if (model.key == model_key(inputs)) return restored(model, inputs);
  }
#endif
  return train(inputs);
}

}  // namespace

// The page's way in: the same flags. The trained models are kept, so that each click of "next word" decodes
// and does not train again.
[[maybe_unused]] const bool registered_for_the_page = program::register_page_program(
    "generating",
    [](const std::vector<std::string>& arguments) {
      static program::KeptModels<Trained> kept(4);
      program::CommandLine command_line{"generating", ""};
      Flags flags(command_line);
      nlohmann::json result;
      command_line.parse_for_page(arguments, [&] {
        if (flags.benchmark()) {
          result = to_json(benchmark(flags.read_benchmark()));
          return;
        }
        const Inputs inputs = flags.read();
        if (!inputs.seeds.empty()) {
          result = to_json(compute_over_seeds(inputs));
          return;
        }
        // The key holds everything training depends on; the prompt and the decoding are not part of it.
        const auto trained = kept.get(model_key(inputs), [&] { return trained_for_the_page(inputs); });
        result = to_json(report(*trained, inputs));
      });
      return result;
    },
    program::flag_defaults<Flags>("generating"));

// The program's command line, registered once (program::register_chapter_with_modes(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the
// command line, and the lambda says which computation the flags ask for and prints it.
//
// With no arguments: trains the book's small Transformer with the causal mask for 1500 steps to predict the
// next word of chapter 13's language, prints its loss per word on held-out sentences and the share of the
// sentences it writes that the grammar accepts, then writes a sentence one word at a time, reading the
// earlier words through a cache of keys and values. --prompt starts the sentence; --temperature, --top-k and
// --seed draw the words instead of taking the likeliest; --no-cache recomputes the whole prefix at each step;
// --kv-heads shares the keys and values between query heads; --seeds 1,2,3,4,5 trains once per seed (and per
// --kv-heads value); --benchmark times the cache against recomputing; --json prints it all as one JSON document.
//
// While it trains, a progress line goes to stderr when stderr is a terminal, and nowhere otherwise.
[[maybe_unused]] const bool registered_command_line = program::register_chapter_with_modes<Flags>(
    "generating",
    "Chapter 14 of Attention, Compiled: a small Transformer with the causal mask, trained to predict the next word "
    "of a language stated in full, writes sentences one word at a time through a cache of keys and values; its "
    "held-out loss, the share of its sentences the grammar accepts, and the cache against recomputing.",
    [](Flags& flags, const program::JsonFlags& output) {
      if (flags.benchmark()) {
        const BenchmarkResult result = benchmark(flags.read_benchmark());
        output.print([&] { return to_json(result); }, [&] { return tables(result); });
        return;
      }
      program::ProgressLine line;
      const Progress progress = program::step_progress(line);
      const Inputs inputs = flags.read();
      if (!inputs.seeds.empty()) {
        const SeedsResult result = compute_over_seeds(inputs, progress);
        output.print([&] { return to_json(result); }, [&] { return tables(result); });
        return;
      }
      if (flags.model_for_the_page()) {
        std::cout << to_json(saved(*train(inputs, progress))).dump() << '\n';
        return;
      }
      const Result result = compute(inputs, progress);
      output.print([&] { return to_json(result); }, [&] { return tables(result); });
    });

}  // namespace generating
