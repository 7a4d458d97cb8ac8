// Chapter 15's front ends: the JSON, the tables, the flags and the page's entry. The computation they report
// is in rotary_positions.cpp.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attention/seed_spread.hpp"
#include "attention/timing_comparison.hpp"
#include "program/integer_list.hpp"
#include "program/matrix_text.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/usage_error.hpp"
#include "rotary_positions.hpp"

namespace rotary_positions {

namespace {

constexpr std::uint64_t max_training_steps = 20'000;
constexpr std::size_t max_seeds = 10;
constexpr std::uint64_t max_length = 128;
constexpr std::uint64_t max_offset = 1000;
constexpr std::uint64_t max_position = 100'000;
constexpr std::size_t max_width = 64;
constexpr std::size_t max_placements = 20;
constexpr double max_entry = 1e6;
// A model "holds" a position when its accuracy there (of one seed, or the seeds' median) is at least this.
constexpr double holds = 0.9;

std::vector<double> numbers(const attention::Vector& vector) { return {vector.data(), vector.data() + vector.size()}; }

// The first position from `back` on whose accuracy falls below `holds` (tested_length if none does): the position
// after the last one held.
Eigen::Index held_until(const std::vector<double>& accuracy, const Inputs& inputs) {
  for (Eigen::Index t = inputs.back; t < inputs.tested_length; ++t) {
    if (accuracy[static_cast<std::size_t>(t)] < holds) return t;
  }
  return inputs.tested_length;
}

nlohmann::json spread_json(const attention::SeedSpread& spread) {
  return {{"median", spread.median}, {"best", spread.highest}, {"worst", spread.lowest}};
}

// What every seed of one scheme did.
struct SchemeSummary {
  attention::Positions scheme = attention::Positions::added;
  attention::SeedSpread trained, beyond;
  std::vector<double> accuracy_median, accuracy_best, accuracy_worst;  // per position
  std::vector<double> attention_median;                                // per position
  Eigen::Index holds_until = 0;                                        // held_until() of the median accuracy
  Eigen::Index fewest_held_until = 0, most_held_until = 0;             // held_until() of the seeds' accuracies
  std::vector<Eigen::Index> rival_offsets;                             // each seed's
  const TrainedRun* first = nullptr;  // the run of the first seed, the chapter's example
  // The seeds right least and most often beyond the trained lengths (the first least, the last most)
  const TrainedRun *worst_beyond = nullptr, *best_beyond = nullptr;
};

std::vector<SchemeSummary> summaries(const Result& result) {
  std::vector<SchemeSummary> list;
  const Inputs& inputs = result.inputs;
  for (const attention::Positions scheme : inputs.schemes) {
    std::vector<const TrainedRun*> runs;
    for (const TrainedRun& run : result.runs) {
      if (run.scheme == scheme) runs.push_back(&run);
    }
    SchemeSummary summary;
    summary.scheme = scheme;
    summary.first = runs.front();
    const auto [worst, best] = std::minmax_element(runs.begin(), runs.end(), [](const auto* a, const auto* b) {
      return a->accuracy_beyond < b->accuracy_beyond;
    });
    summary.worst_beyond = *worst, summary.best_beyond = *best;
    std::vector<double> trained, beyond;
    std::vector<Eigen::Index> seeds_held_until;
    for (const TrainedRun* run : runs) {
      trained.push_back(run->accuracy_trained), beyond.push_back(run->accuracy_beyond);
      summary.rival_offsets.push_back(run->rival_offset);
      seeds_held_until.push_back(held_until(run->accuracy, inputs));
    }
    const auto [fewest, most] = std::minmax_element(seeds_held_until.begin(), seeds_held_until.end());
    summary.fewest_held_until = *fewest, summary.most_held_until = *most;
    summary.trained = attention::spread_over_seeds(trained);
    summary.beyond = attention::spread_over_seeds(beyond);
    for (Eigen::Index t = 0; t < inputs.tested_length; ++t) {
      std::vector<double> at, looked;
      for (const TrainedRun* run : runs) {
        at.push_back(run->accuracy[static_cast<std::size_t>(t)]);
        looked.push_back(run->attention_on_answer[static_cast<std::size_t>(t)]);
      }
      const attention::SeedSpread here = attention::spread_over_seeds(at);
      summary.accuracy_median.push_back(here.median);
      summary.accuracy_best.push_back(here.highest);
      summary.accuracy_worst.push_back(here.lowest);
      summary.attention_median.push_back(attention::median(looked));
    }
    summary.holds_until = held_until(summary.accuracy_median, inputs);
    list.push_back(std::move(summary));
  }
  return list;
}

// The book's spread rule on the seeds (attention::higher_over_seeds()): one scheme beats the other by `measure`
// only if every one of its seeds measures more than every seed of the other.
std::string verdict(const Result& result, attention::Positions first, attention::Positions second,
                    const std::function<double(const TrainedRun&)>& measure) {
  const auto seeds_of = [&](attention::Positions scheme) {
    std::vector<double> values;
    for (const TrainedRun& run : result.runs) {
      if (run.scheme == scheme) values.push_back(measure(run));
    }
    return attention::spread_over_seeds(values);
  };
  switch (attention::higher_over_seeds(seeds_of(first), seeds_of(second))) {
    case attention::Higher::first:
      return scheme_name(first);
    case attention::Higher::second:
      return scheme_name(second);
    case attention::Higher::too_close:
      break;
  }
  return "too close to call";
}

// Rotary against added positions: which is right more often beyond the trained lengths, by the spread rule.
std::string better_beyond(const Result& result) {
  return verdict(result, attention::Positions::rotary, attention::Positions::added,
                 [](const TrainedRun& run) { return run.accuracy_beyond; });
}

// Why the spread rule says what it says beyond the trained lengths: the worst seed of the way with the higher
// median against the best seed of the other. "the worst rotary seed, seed 4, is right 63.6% of the time, and the
// best added seed, seed 2, 69.7%: the two spreads overlap", or "…, above the best added seed, seed 2, at 52.2%";
// "seed 4 is both the worst rotary seed and the best added one: …" when one seed is both.
std::string better_beyond_because(const std::vector<SchemeSummary>& summaries) {
  const auto of = [&](attention::Positions scheme) {
    return &*std::find_if(summaries.begin(), summaries.end(),
                          [scheme](const SchemeSummary& summary) { return summary.scheme == scheme; });
  };
  const SchemeSummary* leader = of(attention::Positions::rotary);
  const SchemeSummary* other = of(attention::Positions::added);
  if (other->beyond.median > leader->beyond.median) std::swap(leader, other);
  const TrainedRun& worst = *leader->worst_beyond;
  const TrainedRun& best = *other->best_beyond;
  if (worst.seed == best.seed) {
    return fmt::format("seed {} is both the worst {} seed and the best {} one: right {:.1f}% of the time with {} "
                       "positions and {:.1f}% with {} ones{}",
                       worst.seed, scheme_name(worst.scheme), scheme_name(best.scheme), 100 * worst.accuracy_beyond,
                       scheme_name(worst.scheme), 100 * best.accuracy_beyond, scheme_name(best.scheme),
                       worst.accuracy_beyond > best.accuracy_beyond ? "" : ", so the two spreads overlap");
  }
  const std::string first = fmt::format("the worst {} seed, seed {}, is right {:.1f}% of the time",
                                        scheme_name(worst.scheme), worst.seed, 100 * worst.accuracy_beyond);
  if (worst.accuracy_beyond > best.accuracy_beyond) {
    return fmt::format("{}, above the best {} seed, seed {}, at {:.1f}%", first, scheme_name(best.scheme), best.seed,
                       100 * best.accuracy_beyond);
  }
  return fmt::format("{}, and the best {} seed, seed {}, {:.1f}%: the two spreads overlap", first,
                     scheme_name(best.scheme), best.seed, 100 * best.accuracy_beyond);
}

// Rotary against added positions: which holds the task to a later position, by the spread rule.
std::string holds_further(const Result& result) {
  return verdict(result, attention::Positions::rotary, attention::Positions::added,
                 [&](const TrainedRun& run) { return static_cast<double>(held_until(run.accuracy, result.inputs)); });
}

// "offset 22 in all 5 seeds", or "offsets 22, 22, 15, 22 and 22 in the 5 seeds".
std::string rival_summary(const std::vector<Eigen::Index>& offsets) {
  if (std::adjacent_find(offsets.begin(), offsets.end(), std::not_equal_to<>()) == offsets.end()) {
    return offsets.size() == 1 ? fmt::format("offset {}", offsets.front())
                               : fmt::format("offset {} in all {} seeds", offsets.front(), offsets.size());
  }
  return fmt::format("offsets {} in the {} seeds", program::listed(offsets, "and"), offsets.size());
}

// How far the seeds hold the task, as a sentence goes on after "the seeds hold": "all to position 21", "to
// position 15 at the least and 16 at the most", "to no position at the least and to 16 at the most", "at no
// position". Arguments as held_until() returns them.
std::string seeds_hold_summary(Eigen::Index fewest_until, Eigen::Index most_until, const Inputs& inputs) {
  if (most_until <= inputs.back) return "at no position";
  if (fewest_until == most_until) return fmt::format("all to position {}", most_until - 1);
  if (fewest_until <= inputs.back)
    return fmt::format("to no position at the least and to {} at the most", most_until - 1);
  return fmt::format("to position {} at the least and {} at the most", fewest_until - 1, most_until - 1);
}

bool has(const Inputs& inputs, attention::Positions scheme) {
  return std::find(inputs.schemes.begin(), inputs.schemes.end(), scheme) != inputs.schemes.end();
}

}  // namespace

nlohmann::json to_json(const Result& result) {
  const Inputs& inputs = result.inputs;
  const Turn& turn = result.turn;
  nlohmann::json placements = nlohmann::json::array();
  for (const Placement& placement : turn.placements) {
    placements.push_back({{"query_position", placement.query_position},
                          {"key_position", placement.key_position},
                          {"offset", placement.query_position - placement.key_position},
                          {"first_pair_cos", placement.first_pair_cos},
                          {"first_pair_sin", placement.first_pair_sin},
                          {"turned_query", numbers(placement.turned_query)},
                          {"turned_key", numbers(placement.turned_key)},
                          {"score", placement.score}});
  }
  std::vector<std::string> schemes;
  for (const attention::Positions scheme : inputs.schemes) schemes.push_back(scheme_name(scheme));
  nlohmann::json json = {{"inputs",
                          {{"schemes", schemes},
                           {"seeds", inputs.seeds},
                           {"training_steps", inputs.training_steps},
                           {"batch", inputs.batch},
                           {"back", inputs.back},
                           {"shortest_trained", inputs.back + 1},
                           {"longest_trained", inputs.longest_trained},
                           {"last_trained_position", inputs.longest_trained - 1},
                           {"tested_length", inputs.tested_length},
                           {"tested", inputs.tested},
                           {"d_model", inputs.shape.d_model},
                           {"heads", inputs.shape.heads},
                           {"head_width", inputs.shape.d_model / inputs.shape.heads},
                           {"d_ff", inputs.shape.d_ff},
                           {"layers", inputs.shape.layers},
                           {"vocabulary", inputs.shape.vocabulary},
                           {"learning_rate", inputs.adam.learning_rate},
                           {"train", inputs.train}}},
                         {"turn",
                          {{"query", numbers(turn.query)},
                           {"key", numbers(turn.key)},
                           {"unturned_score", turn.unturned_score},
                           {"angles", turn.angles},
                           {"placements", placements},
                           {"offsets", turn.offsets},
                           {"scores", turn.scores},
                           {"wave_samples", turn.wave_samples},
                           {"wave_offsets", turn.wave_offsets},
                           {"wave_scores", turn.wave_scores}}},
                         {"parameters", result.parameters},
                         {"holds", holds}};
  if (!inputs.train) return json;
  double seconds = 0.0;
  nlohmann::json runs = nlohmann::json::array();
  for (const TrainedRun& run : result.runs) {
    runs.push_back({{"scheme", scheme_name(run.scheme)},
                    {"seed", run.seed},
                    {"logged_steps", run.logged_steps},
                    {"loss", run.loss},
                    {"accuracy", run.accuracy},
                    {"attention_on_answer", run.attention_on_answer},
                    {"looking_head", run.looking_head},
                    {"score_by_offset", run.score_by_offset},
                    {"rival_offset", run.rival_offset},
                    {"holds_up_to", held_until(run.accuracy, inputs) - 1},
                    {"turn_between", run.turn_between},
                    {"full_turns", run.full_turns},
                    {"pair_turns_from_answer", run.pair_turns_from_answer},
                    {"accuracy_trained", run.accuracy_trained},
                    {"accuracy_beyond", run.accuracy_beyond}});
    seconds += run.seconds;
  }
  json["seconds"] = seconds;  // every training's, added up
  json["runs"] = runs;
  nlohmann::json by_scheme = nlohmann::json::object();
  const std::vector<SchemeSummary> scheme_summaries = summaries(result);
  for (const SchemeSummary& summary : scheme_summaries) {
    by_scheme[scheme_name(summary.scheme)] = {
        {"accuracy_trained", spread_json(summary.trained)},
        {"accuracy_beyond", spread_json(summary.beyond)},
        {"accuracy_median", summary.accuracy_median},
        {"accuracy_best", summary.accuracy_best},
        {"accuracy_worst", summary.accuracy_worst},
        {"attention_on_answer_median", summary.attention_median},
        {"holds_up_to", summary.holds_until - 1},
        {"seeds_hold_up_to", {{"fewest", summary.fewest_held_until - 1}, {"most", summary.most_held_until - 1}}},
        {"seeds_hold_summary", seeds_hold_summary(summary.fewest_held_until, summary.most_held_until, inputs)},
        {"rival_offsets", summary.rival_offsets},
        {"rival_summary", rival_summary(summary.rival_offsets)},
        {"first_seed",
         {{"seed", summary.first->seed},
          {"rival_offset", summary.first->rival_offset},
          {"turn_between", summary.first->turn_between},
          {"full_turns", summary.first->full_turns},
          {"pair_turns_from_answer", summary.first->pair_turns_from_answer}}}};
  }
  json["schemes"] = by_scheme;
  json["pair_turns_in_training"] = result.pair_turns_in_training;
  json["trained_near_alike"] = nullptr;
  if (const std::optional<NearAlike>& near = result.trained_near_alike) {
    json["trained_near_alike"] = {{"offset", near->offset},
                                  {"turn_between", near->turn_between},
                                  {"pair_turns_from_answer", near->pair_turns_from_answer}};
  }
  if (has(inputs, attention::Positions::added) && has(inputs, attention::Positions::rotary)) {
    json["better_beyond"] = better_beyond(result);
    json["better_beyond_because"] = better_beyond_because(scheme_summaries);
    json["holds_further"] = holds_further(result);
  }
  return json;
}

std::string tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const Turn& turn = result.turn;
  std::string text;
  const auto vector_text = [&](const attention::Vector& vector) {
    return inputs.ones > 0 ? fmt::format("{} ones", vector.size())
                           : fmt::format("({})", fmt::join(numbers(vector), ", "));
  };
  text += fmt::format("The turn: q = {}, k = {};\nunturned, q · k = {}\n", vector_text(turn.query),
                      vector_text(turn.key), program::number_text(turn.unturned_score));
  text += "  pair i   turns by ω_i radians per position\n";
  for (std::size_t i = 0; i < turn.angles.size(); ++i) {
    if (i == 3 && turn.angles.size() > 5) {  // the first three and the last
      text += "       …\n";
      i = turn.angles.size() - 1;
    }
    text += fmt::format("  {:>6}   {}\n", i, program::number_text(turn.angles[i], 6));
  }
  // Each column as wide as its heading, 44 characters in all: a phone's column.
  text += "\n  q at m  k at n  m − n  turned q · turned k\n";
  for (const Placement& placement : turn.placements) {
    text += fmt::format("  {:>6}  {:>6}  {:>5}  {:>19}\n", placement.query_position, placement.key_position,
                        placement.query_position - placement.key_position, program::number_text(placement.score));
  }
  if (!inputs.train) return text;
  text += '\n';
  text += program::wrapped(fmt::format("The task: at each position, say the digit that stood {} places back. "
                                       "Trained on {} to {} digits ({} Adam steps of {}), tested on {} "
                                       "sequences of {}.",
                                       inputs.back, inputs.back + 1, inputs.longest_trained, inputs.training_steps,
                                       inputs.batch, inputs.tested, inputs.tested_length),
                           78, "");
  // A table a phone's column (44 characters) shows whole: for each range of positions, a median [worst, best] for
  // each way of giving positions; then how far each holds the task.
  text += fmt::format("\nAccuracy over the seeds ({}):\nmedian [worst, best]\n", fmt::join(inputs.seeds, ", "));
  const auto cell = [](const attention::SeedSpread& spread) {
    // Each number as wide as 100.0, so that the medians and the ends line up from row to row.
    return fmt::format("{:>5.1f} % [{:>5.1f}, {:>5.1f}]", 100 * spread.median, 100 * spread.lowest,
                       100 * spread.highest);
  };
  // The last position held, or "-" when not even the first position with an answer is.
  const auto held = [&](Eigen::Index until) { return until > inputs.back ? std::to_string(until - 1) : "-"; };
  const std::vector<SchemeSummary> scheme_summaries = summaries(result);
  std::size_t cell_width = 0;
  for (const SchemeSummary& summary : scheme_summaries) {
    cell_width = std::max({cell_width, cell(summary.trained).size(), cell(summary.beyond).size()});
  }
  const auto accuracy_rows = [&](const std::string& range, auto spread_of) {
    text += fmt::format("  {:<9}  {:>{}}\n", "positions", range, cell_width);
    for (const SchemeSummary& summary : scheme_summaries) {
      text += fmt::format("  {:<9}  {:>{}}\n", scheme_name(summary.scheme), cell(spread_of(summary)), cell_width);
    }
  };
  accuracy_rows(fmt::format("{} to {} (trained)", inputs.back, inputs.longest_trained - 1),
                [](const SchemeSummary& summary) { return summary.trained; });
  accuracy_rows(fmt::format("{} to {} (longer)", inputs.longest_trained, inputs.tested_length - 1),
                [](const SchemeSummary& summary) { return summary.beyond; });
  // How far each holds the task: the last position up to which it is right that often at every position.
  text += fmt::format("  accuracy ≥ {} at every position up to\n  {:<9}  {:<18}  {}\n", program::number_text(holds, 1),
                      "", "median accuracy", "each seed");
  for (const SchemeSummary& summary : scheme_summaries) {
    const Eigen::Index fewest = summary.fewest_held_until, most = summary.most_held_until;
    text += fmt::format("  {:<9}  {:<18}  {}\n", scheme_name(summary.scheme), held(summary.holds_until),
                        fewest == most ? held(fewest) : fmt::format("{} to {}", held(fewest), held(most)));
  }
  // A verdict on lines of at most 44 characters, indented by two, and by four where it goes on.
  const auto verdict_lines = [](const std::string& sentence) {
    return program::indented(program::wrapped(sentence, 42, "  "), "  ", "  ");
  };
  if (has(inputs, attention::Positions::added) && has(inputs, attention::Positions::rotary)) {
    text +=
        verdict_lines(fmt::format("Better beyond the trained lengths, by the spread rule: {}", better_beyond(result)));
    text += verdict_lines(fmt::format("Holds the task (accuracy ≥ {}) to a later position, by the spread rule: {}",
                                      program::number_text(holds, 1), holds_further(result)));
  }
  if (inputs.seeds.size() > 1) {  // the seeds behind each worst and best above, and behind the verdicts' reasons
    text += fmt::format("\nRight on the longer positions ({} to {}),\nseed by seed\n  {:>6}", inputs.longest_trained,
                        inputs.tested_length - 1, "seed");
    for (const attention::Positions scheme : inputs.schemes) text += fmt::format("  {:>7}", scheme_name(scheme));
    for (const std::uint64_t seed : inputs.seeds) {
      text += fmt::format("\n  {:>6}", seed);
      for (const attention::Positions scheme : inputs.schemes) {
        const auto run = std::find_if(result.runs.begin(), result.runs.end(), [&](const TrainedRun& candidate) {
          return candidate.scheme == scheme && candidate.seed == seed;
        });
        text += fmt::format("  {:>5.1f} %", 100 * run->accuracy_beyond);
      }
    }
    text += '\n';
  }
  return text;
}

Flags::Flags(program::CommandLine& command_line) : command_line_(command_line) {
  command_line.option(
      "--q", query_text_,
      fmt::format("the query, an even number of entries (2 to {}), each within ±{} (default: the toy's fish, 1,1)",
                  max_width, program::typed_number(max_entry)),
      "VECTOR");
  command_line.option("--k", key_text_,
                      fmt::format("the key, as wide as the query, each entry within ±{} (default: the toy's cat, 2,0)",
                                  program::typed_number(max_entry)),
                      "VECTOR");
  command_line.option("--ones", ones_text_,
                      fmt::format("q = k = this many ones, 2 to {} and even, instead of --q and --k", max_width),
                      "INTEGER");
  command_line.excludes("--ones", {"--q", "--k"});
  command_line.option("--placements", placements_text_,
                      fmt::format("pairs of positions m,n for the query and the key, separated by ';' "
                                  "(default \"0,0;2,0;5,3;12,10;0,2;7,9\"), each from 0 to {}",
                                  max_position),
                      "PAIRS");
  command_line.option("--largest-offset", largest_offset_text_,
                      fmt::format("the score against the offset, from minus this to this, 1 to {} (default 40)",
                                  max_offset),
                      "INTEGER");
  command_line.option("--schemes", schemes_text_,
                      "the ways to give positions, trained in turn: added, rotary, none (default all three)", "LIST");
  command_line.option("--seeds", seeds_text_,
                      fmt::format("train once for each of these seeds, at most {} (default 1)", max_seeds), "LIST");
  command_line.option("--training-steps", training_steps_text_,
                      fmt::format("Adam updates of 16 sequences, 1 to {} (default 1000)", max_training_steps),
                      "INTEGER");
  command_line.option("--back", back_text_,
                      "the task: say the digit that stood this many places back, 1 to 8 (default 3)", "INTEGER");
  command_line.option("--longest-trained", longest_trained_text_,
                      fmt::format("the longest training sequence, from --back + 1 to {} (default 16)", max_length),
                      "INTEGER");
  command_line.option("--tested-length", tested_length_text_,
                      fmt::format("the length of the test sequences, from --longest-trained to {} (default 32)",
                                  max_length),
                      "INTEGER");
  command_line.flag("--no-training", no_training_, "only turn the query and the key; train nothing");
  command_line.excludes("--no-training",
                        {"--schemes", "--seeds", "--training-steps", "--back", "--longest-trained", "--tested-length"});
}

namespace {

attention::Vector vector_of(const std::string& text, const char* flag) {
  const std::vector<double> entries = program::parse_numbers(text, flag);
  if (entries.empty() || entries.size() % 2 != 0 || entries.size() > max_width) {
    throw program::UsageError(
        fmt::format("{}: expected an even number of entries, 2 to {}, got {}", flag, max_width, entries.size()));
  }
  for (const double entry : entries) {
    if (std::abs(entry) > max_entry) {
      throw program::UsageError(fmt::format("{}: entries must lie within ±{}", flag, program::typed_number(max_entry)));
    }
  }
  return Eigen::Map<const attention::Vector>(entries.data(), static_cast<Eigen::Index>(entries.size()));
}

attention::Positions scheme_of(const std::string& name) {
  for (const attention::Positions scheme :
       {attention::Positions::added, attention::Positions::rotary, attention::Positions::none}) {
    if (name == scheme_name(scheme)) return scheme;
  }
  throw program::UsageError(fmt::format("--schemes: expected added, rotary or none, got \"{}\"", name));
}

}  // namespace

Inputs Flags::read() const {
  Inputs inputs;
  if (command_line_.given("--q")) inputs.query = vector_of(query_text_, "--q");
  if (command_line_.given("--k")) inputs.key = vector_of(key_text_, "--k");
  if (command_line_.given("--ones")) {
    inputs.ones = static_cast<Eigen::Index>(program::parse_whole_number(ones_text_, "--ones", 2, max_width));
    if (inputs.ones % 2 != 0)
      throw program::UsageError(fmt::format("--ones: expected an even width, got {}", inputs.ones));
  }
  const Eigen::Index query_width = inputs.query.size() ? inputs.query.size() : 2;
  const Eigen::Index key_width = inputs.key.size() ? inputs.key.size() : 2;
  if (query_width != key_width) {
    throw program::UsageError(fmt::format("--k: the key has {} and the query {}; they must be equally wide",
                                          program::counted(key_width, "entry", "entries"), query_width));
  }
  if (command_line_.given("--placements")) {
    inputs.placements.clear();
    const attention::Matrix pairs = program::parse_matrix(placements_text_, "--placements");
    if (pairs.cols() != 2 || pairs.rows() > static_cast<Eigen::Index>(max_placements)) {
      throw program::UsageError(
          fmt::format("--placements: expected 1 to {} pairs m,n separated by ';'", max_placements));
    }
    for (Eigen::Index r = 0; r < pairs.rows(); ++r) {
      for (Eigen::Index c = 0; c < 2; ++c) {
        const double value = pairs(r, c);
        if (value < 0 || value > static_cast<double>(max_position) || value != std::floor(value)) {
          throw program::UsageError(fmt::format("--placements: positions are whole numbers from 0 to {}, got {}",
                                                max_position, program::typed_number(value)));
        }
      }
      inputs.placements.emplace_back(static_cast<Eigen::Index>(pairs(r, 0)), static_cast<Eigen::Index>(pairs(r, 1)));
    }
  }
  inputs.largest_offset =
      static_cast<Eigen::Index>(program::parse_whole_number(largest_offset_text_, "--largest-offset", 1, max_offset));
  inputs.train = !no_training_;
  inputs.schemes.clear();
  for (const std::string& name : program::parse_names(schemes_text_, "--schemes")) {
    const attention::Positions scheme = scheme_of(name);
    if (has(inputs, scheme)) throw program::UsageError(fmt::format("--schemes: {} is listed twice", name));
    inputs.schemes.push_back(scheme);
  }
  inputs.seeds = program::parse_whole_numbers(seeds_text_, "--seeds", 0, UINT64_MAX, max_seeds);
  inputs.training_steps = static_cast<long long>(
      program::parse_whole_number(training_steps_text_, "--training-steps", 1, max_training_steps));
  inputs.back = static_cast<Eigen::Index>(program::parse_whole_number(back_text_, "--back", 1, 8));
  inputs.longest_trained =
      static_cast<Eigen::Index>(program::parse_whole_number(longest_trained_text_, "--longest-trained",
                                                            static_cast<std::uint64_t>(inputs.back) + 1, max_length));
  if (!command_line_.given("--tested-length") && inputs.longest_trained > std::stoll(tested_length_text_)) {
    // The reader raised the trained length past the tested one they never typed: name what they typed.
    throw program::UsageError(fmt::format("--longest-trained is {}, longer than the default --tested-length of {}; "
                                          "give --tested-length too, from {} to {}",
                                          inputs.longest_trained, tested_length_text_, inputs.longest_trained,
                                          max_length));
  }
  inputs.tested_length = static_cast<Eigen::Index>(
      program::parse_whole_number(tested_length_text_, "--tested-length",
                                  static_cast<std::uint64_t>(inputs.longest_trained), max_length));
  return inputs;
}

// The program's command line and the page's entry, registered once (program::register_chapter(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the command line
// and prints; --json-file writes the JSON document from the same run as the tables.
//
// With no arguments: turns the toy's query of "fish", (1, 1), and key of "cat", (2, 0), by their positions and
// prints their score at several pairs of positions (equal offsets, equal scores); then trains the book's small
// Transformer, with the causal mask, to say the digit that stood 3 places back, once with chapter 6's added
// positions, once with rotary ones and once with none, on sequences of 4 to 16 digits, and tests it on 32.
// --q, --k and --placements change the turn; --schemes, --seeds, --back, --longest-trained and --tested-length
// change the training; --no-training trains nothing; --json prints it all as one JSON document.
//
// While it trains, a progress line goes to stderr when stderr is a terminal, and nowhere otherwise.
[[maybe_unused]] const bool registered = program::register_chapter<Flags>(
    "rotary_positions",
    "Chapter 15 of Attention, Compiled: rotary positions turn each query and key by its position, so that a "
    "score depends on the offset between two words; a small Transformer trained on short sequences with added, "
    "rotary or no positions, and tested on longer ones.",
    compute, [](const Result& result) { return to_json(result); }, tables, program::step_progress);

}  // namespace rotary_positions
