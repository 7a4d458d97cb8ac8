// Chapter 13's front ends: the JSON, the tables, the flags and the page's entry. The computation they
// report is in sentences.cpp (training, the measures) and grammar.cpp (the language).
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "attention/timing_comparison.hpp"
#include "program/integer_list.hpp"
#include "program/json_output.hpp"
#include "program/kept_models.hpp"
#include "program/run_chapter.hpp"
#include "program/table.hpp"
#include "program/text.hpp"
#include "program/trainings.hpp"
#include "program/usage_error.hpp"
#include "sentences.hpp"

namespace sentences {

namespace {

constexpr std::uint64_t max_steps = 100'000;
constexpr std::uint64_t max_layers = 4;
constexpr std::uint64_t max_modifiers = 10;
constexpr std::size_t max_seeds = 20;
constexpr std::size_t max_sentence_words = 40;

}  // namespace

namespace {

nlohmann::json sentence_json(Task task, const Sentence& sentence) {
  nlohmann::json tags = nlohmann::json::array();
  for (const Tag tag : sentence.tags) tags.push_back(tag_name(tag));
  nlohmann::json document{{"text", text_of(sentence.words)}, {"words", sentence.words}};
  if (task == Task::tagging) {
    document["tags"] = tags;
  } else {
    document["number"] = number_name(sentence.number);
    document["subject"] = sentence.subject;
    document["attractors"] = sentence.attractors;
  }
  return document;
}

std::vector<std::string> output_names(Task task) {
  std::vector<std::string> names;
  if (task == Task::agreement) return {number_name(Number::one), number_name(Number::many)};
  for (Eigen::Index t = 0; t < tag_count; ++t) names.push_back(tag_name(static_cast<Tag>(t)));
  return names;
}

nlohmann::json inputs_json(const Inputs& inputs) {
  return {{"model", model_name(inputs.model)},
          {"modifiers", inputs.modifiers},
          {"steps", inputs.steps},
          {"seed", inputs.seed},
          {"batch", inputs.batch},
          {"learning_rate", inputs.adam.learning_rate},
          {"d_model", inputs.shape.d_model},
          {"heads", inputs.shape.heads},
          {"d_ff", inputs.shape.d_ff},
          {"layers", inputs.shape.layers},
          {"held_out", inputs.held_out},
          {"sentence", inputs.sentence}};
}

std::string percent(double share) { return fmt::format("{:.1f} %", 100.0 * share); }

// How many held-out sentences each logged point of training was measured on.
long long logged_held_out_count(const Result& result) {
  return std::min<long long>(result.held_out_count, static_cast<long long>(logged_held_out));
}

nlohmann::json groups_json(const std::vector<AgreementGroup>& groups) {
  nlohmann::json list = nlohmann::json::array();
  for (const AgreementGroup& group : groups) {
    list.push_back(
        {{"label", group.label}, {"count", group.count}, {"model", group.model}, {"nearest_noun", group.nearest_noun}});
  }
  return list;
}

}  // namespace

nlohmann::json language_json() {
  nlohmann::json lexicon_lines = nlohmann::json::array();
  for (const auto& [word_class, words] : lexicon()) lexicon_lines.push_back({{"class", word_class}, {"words", words}});
  std::vector<std::string> tags;
  for (Eigen::Index t = 0; t < tag_count; ++t) tags.push_back(tag_name(static_cast<Tag>(t)));
  return {{"rules", grammar_rules()},
          {"lexicon", lexicon_lines},
          {"vocabulary", vocabulary()},
          {"words", vocabulary().size() - 1},
          {"tags", tags},
          {"ambiguous", ambiguous_words()},
          {"ambiguous_count", ambiguous_words().size()},
          {"tag_count", tag_count},
          {"verb_slot", verb_slot()}};
}

nlohmann::json to_json(const Result& result) {
  const Task task = result.inputs.task;
  nlohmann::json samples = nlohmann::json::array();
  for (const Sentence& sentence : result.samples) samples.push_back(sentence_json(task, sentence));
  nlohmann::json heads = nlohmann::json::array();
  for (const auto& layer : result.heads) {
    nlohmann::json row = nlohmann::json::array();
    for (const HeadMeasure& head : layer)
      row.push_back({{"mean_weight", head.mean_weight},
                     {"peak_share", head.peak_share},
                     {"peak_share_not_first", head.peak_share_not_first}});
    heads.push_back(row);
  }
  std::vector<std::string> words;
  for (const Eigen::Index word : result.reading.words) words.push_back(vocabulary()[static_cast<std::size_t>(word)]);
  // Per layer and head, for each word of the reading, the word it puts its largest weight on.
  nlohmann::json attention = nlohmann::json::array(), looks_at = nlohmann::json::array();
  for (const auto& layer : result.reading.attention) {
    nlohmann::json row = nlohmann::json::array(), peaks = nlohmann::json::array();
    for (const attention::Matrix& head : layer) {
      row.push_back(program::matrix_json(head));
      nlohmann::json head_peaks = nlohmann::json::array();
      for (Eigen::Index t = 0; t < head.rows(); ++t) {
        Eigen::Index peak = 0;
        head.row(t).maxCoeff(&peak);
        head_peaks.push_back(words[static_cast<std::size_t>(peak)]);
      }
      peaks.push_back(head_peaks);
    }
    attention.push_back(row);
    looks_at.push_back(peaks);
  }
  nlohmann::json answers = nlohmann::json::array();
  const std::vector<std::string> names = output_names(task);
  for (const Eigen::Index answer : result.reading.answers) answers.push_back(names[static_cast<std::size_t>(answer)]);
  nlohmann::json document{{"task", task_name(task)},
                          {"inputs", inputs_json(result.inputs)},
                          {"outputs", names},
                          {"parameters", result.parameters},
                          {"language", language_json()},
                          {"samples", samples},
                          {"data",
                           {{"held_out", result.held_out_count},
                            {"training_drawn", result.training_drawn},
                            {"training_distinct", result.training_distinct},
                            {"held_out_redrawn", result.held_out_redrawn}}},
                          {"training",
                           {{"steps", result.logged_steps},
                            {"loss", result.loss},
                            {"held_out_accuracy", result.held_out_accuracy},
                            {"measured_on", logged_held_out_count(result)}}},
                          {"accuracy", result.accuracy},
                          {"heads", heads},
                          {"heads_even_weight", result.even_weight},
                          {"heads_first_word_share", result.first_word_share},
                          {"heads_measure", task == Task::tagging ? "from an ambiguous word to the word before it"
                                                                  : "from the slot to the subject's noun"},
                          {"reading",
                           {{"words", words},
                            {"answers", answers},
                            {"probabilities", program::matrix_json(result.reading.probabilities)},
                            {"attention", attention},
                            {"looks_at", looks_at}}},
                          {"seconds", result.seconds}};
  if (task == Task::tagging) {
    document["ambiguous"] = {{"count", result.ambiguous_count},
                             {"accuracy", result.ambiguous_accuracy},
                             {"one_word_ceiling", result.one_word_ceiling_ambiguous},
                             {"word_and_position_ceiling", result.word_and_position_ceiling_ambiguous}};
    document["one_word_ceiling"] = result.one_word_ceiling;
    document["word_and_position_ceiling"] = result.word_and_position_ceiling;
  } else {
    document["by_attractors"] = groups_json(result.by_attractors);
    document["by_distance"] = groups_json(result.by_distance);
    document["one_word"] = result.one_word_agreement;
  }
  if (result.weights) document["weights"] = program::token_classifier_json(*result.weights);
  if (result.inputs.list_sentences) {
    document["sentences"] = {{"training", result.training_sentences}, {"held_out", result.held_out_sentences}};
  }
  return document;
}

nlohmann::json to_json(const SeedsResult& result) {
  nlohmann::json runs = nlohmann::json::array();
  std::vector<double> accuracy, hard, peak, peak_not_first, one_word, seconds;
  for (const SeedRun& run : result.runs) {
    runs.push_back({{"seed", run.seed},
                    {"accuracy", run.accuracy},
                    {"hard_accuracy", run.hard_accuracy},
                    {"best_peak_share", run.best_peak_share},
                    {"best_peak_share_not_first", run.best_peak_share_not_first},
                    {"one_word_hard", run.one_word_hard},
                    {"by_distance", groups_json(run.by_distance)}});
    accuracy.push_back(run.accuracy), hard.push_back(run.hard_accuracy), peak.push_back(run.best_peak_share);
    peak_not_first.push_back(run.best_peak_share_not_first);
    one_word.push_back(run.one_word_hard);
    seconds.push_back(run.seconds);
  }
  const auto summary = [](const std::vector<double>& values) {
    return nlohmann::json{{"median", attention::median(values)},
                          {"worst", *std::min_element(values.begin(), values.end())}};
  };
  // Agreement: per distance group, the median, worst and best accuracy over the seeds that have the group.
  nlohmann::json by_distance = nlohmann::json::array();
  for (const DistanceSpread& spread : result.by_distance) {
    by_distance.push_back({{"label", spread.label},
                           {"median", spread.accuracy.median},
                           {"worst", spread.accuracy.lowest},
                           {"best", spread.accuracy.highest}});
  }
  return {{"task", task_name(result.inputs.task)},
          {"model", model_name(result.inputs.model)},
          {"parameters", result.runs.empty() ? 0 : result.runs.front().parameters},
          {"by_distance", by_distance},
          {"inputs", inputs_json(result.inputs)},
          {"hard_cases", result.inputs.task == Task::tagging ? "ambiguous words" : "sentences with an attractor"},
          {"runs", runs},
          {"accuracy", summary(accuracy)},
          {"hard_accuracy", summary(hard)},
          {"best_peak_share", summary(peak)},
          {"best_peak_share_not_first", summary(peak_not_first)},
          {"one_word_hard", summary(one_word)},
          {"seconds",
           {{"per_seed", seconds},
            {"median", attention::median(seconds)},
            {"longest", *std::max_element(seconds.begin(), seconds.end())}}}};
}

std::string verdict_summary(const std::vector<DistanceVerdict>& verdicts) {
  std::vector<std::string> parts;
  for (const auto& [better, said] :
       {std::pair{std::string("too close to call"), std::string("too close to call")},
        std::pair{model_name(Model::attention), std::string("the attention model better")},
        std::pair{model_name(Model::recurrent), std::string("the recurrent model better")}}) {
    std::vector<std::string> labels;
    for (const DistanceVerdict& verdict : verdicts) {
      if (verdict.better == better) labels.push_back(verdict.label);
    }
    if (labels.empty()) continue;
    parts.push_back(labels.size() == verdicts.size() ? fmt::format("{} at all {} distances", said, verdicts.size())
                                                     : fmt::format("{} at {}", said, program::listed(labels, "and")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

nlohmann::json to_json(const ModelsCompared& result) {
  nlohmann::json verdicts = nlohmann::json::array();
  for (const DistanceVerdict& verdict : result.by_distance) {
    verdicts.push_back({{"label", verdict.label}, {"better", verdict.better}});
  }
  return {{"attention", to_json(result.attention)},
          {"recurrent", to_json(result.recurrent)},
          {"by_distance", verdicts},
          {"verdict", verdict_summary(result.by_distance)}};
}

std::string tables(const ModelsCompared& result) {
  std::string text = tables(result.attention) + '\n' + tables(result.recurrent);
  text += "\nWhich model is better at each distance, by the spread rule\n"
          "(one is better only where its worst seed beats the other's best)\n";
  text += fmt::format("  {:>8}  {:>17}  {:>17}  {}\n", "distance", "attention", "recurrent", "better");
  const auto spread = [](const attention::SeedSpread& accuracy) {
    return fmt::format("{} to {}", percent(accuracy.lowest), percent(accuracy.highest));
  };
  for (const DistanceVerdict& group : result.by_distance) {
    text += fmt::format("  {:>8}  {:>17}  {:>17}  {}\n", group.label, spread(group.attention_accuracy),
                        spread(group.recurrent_accuracy), group.better);
  }
  return text;
}

namespace {

// About as many characters as a phone's page shows in a line of program output.
constexpr std::size_t phone_width = 44;

// A rule of grammar_rules() in lines of at most phone_width characters: the
// left side and its "→", then each alternative on a line of its own, "|"
// before all but the first, a long one continued further in. The rules' one
// line without "→", the numbers a and b, is wrapped as a sentence. The
// spaces that align the rules in the JSON are left out.
std::string rule_lines(std::string_view rule) {
  // The rule with single spaces; inside "[ ]" a stand-in for each, so that
  // wrapping never breaks an optional part (restored below).
  constexpr char kept_space = '\x01';
  std::string words;
  int brackets = 0;
  for (const char c : rule) {
    if (c != ' ') {
      words += c;
      brackets += c == '[' ? 1 : c == ']' ? -1 : 0;
    } else if (!words.empty() && words.back() != ' ' && words.back() != kept_space) {
      words += brackets > 0 ? kept_space : ' ';
    }
  }
  constexpr std::string_view arrow = " → ", bar = " | ";
  const std::size_t at = words.find(arrow);
  std::string text;
  if (at == std::string::npos) {
    text = program::indented(program::wrapped(words, phone_width - 2, "    "), "  ", "  ");
  } else {
    text = fmt::format("  {} →\n", words.substr(0, at));
    std::string_view alternatives = std::string_view(words).substr(at + arrow.size());
    for (bool first = true; !alternatives.empty(); first = false) {
      const std::size_t end = std::min(alternatives.find(bar), alternatives.size());
      // Each line at most phone_width characters: the prefix (six) and what wrapped() fits after it.
      text += program::indented(program::wrapped(alternatives.substr(0, end), phone_width - 6, "  "),
                                first ? "      " : "    | ", "      ");
      alternatives.remove_prefix(std::min(end + bar.size(), alternatives.size()));
    }
  }
  std::replace(text.begin(), text.end(), kept_space, ' ');
  return text;
}

}  // namespace

std::string language_tables() {
  std::string text =
      fmt::format("The language: {} words, {} tags; {} words are a noun in one place and a verb in another\n\n",
                  vocabulary().size() - 1, tag_count, ambiguous_words().size());
  text += "Grammar\n";
  for (const std::string& rule : grammar_rules()) text += rule_lines(rule);
  text += "\nWords\n";
  for (const auto& [word_class, words] : lexicon()) text += fmt::format("  {:<17} {}\n", word_class, words);
  text += fmt::format("\nBoth noun and verb\n  {}\n", fmt::join(ambiguous_words(), " "));
  return text;
}

namespace {

std::string training_tables(const Result& result) {
  const Inputs& inputs = result.inputs;
  const std::string model = inputs.model == Model::attention
                                ? fmt::format("{} encoder layer(s) of {} heads, d_model = {}", inputs.shape.layers,
                                              inputs.shape.heads, inputs.shape.d_model)
                                : fmt::format("a recurrent layer of width {}", inputs.shape.d_model);
  std::string text =
      fmt::format("Training: {} steps of {} sentences, Adam with learning rate {}\n"
                  "  {}, {} parameters\n"
                  "  {} sentences drawn, {} of them different; {} drawn from the held-out set were drawn again\n\n",
                  inputs.steps, inputs.batch, inputs.adam.learning_rate, model,
                  program::grouped_digits(static_cast<std::uint64_t>(result.parameters)),
                  program::grouped_digits(static_cast<std::uint64_t>(result.training_drawn)),
                  program::grouped_digits(static_cast<std::uint64_t>(result.training_distinct)),
                  result.held_out_redrawn);
  text += "First sentences drawn\n";
  for (const Sentence& sentence : result.samples) {
    text += fmt::format("  {}", text_of(sentence.words));
    if (inputs.task == Task::agreement) text += fmt::format("  ({})", number_name(sentence.number));
    text += "\n";
  }
  text += fmt::format("\n{:>7}  {:>8}  held-out accuracy (the first {} sentences)\n", "step", "loss",
                      logged_held_out_count(result));
  for (std::size_t i = 0; i < result.logged_steps.size(); ++i) {
    text += fmt::format("{:>7}  {:>8.4f}  {:>8}\n", result.logged_steps[i], result.loss[i],
                        percent(result.held_out_accuracy[i]));
  }
  return text;
}

std::string heads_table(const Result& result) {
  if (result.heads.empty()) return "";  // a recurrence has no heads
  const bool tagging = result.inputs.task == Task::tagging;
  std::string text =
      fmt::format("\nWhere each head looks, over the held-out set: {}\n",
                  tagging ? "from an ambiguous word to the word before it" : "from the slot to the subject's noun");
  // Tagging: the ambiguous words in second place have the first word as their clue, where a head may look by
  // habit; the last column leaves them out.
  const auto without_second = [tagging](const std::string& cell) {
    return tagging ? fmt::format("  {:>18}", cell) : std::string();
  };
  text += fmt::format("  {:<17} {:>11}  {:>24}{}\n", "", "mean weight", "rows with the most there",
                      without_second("without 2nd words"));
  for (std::size_t l = 0; l < result.heads.size(); ++l) {
    for (std::size_t h = 0; h < result.heads[l].size(); ++h) {
      const HeadMeasure& head = result.heads[l][h];
      text += fmt::format("  layer {} head {}    {:>11.3f}  {:>24}{}\n", l + 1, h + 1, head.mean_weight,
                          percent(head.peak_share), without_second(percent(head.peak_share_not_first)));
    }
  }
  // A head that spreads its weight evenly, and one whose largest weight falls on a word drawn at random: 1/n.
  text +=
      fmt::format("  {:<17} {:>11.3f}  {:>24}\n", "1/n: even, random", result.even_weight, percent(result.even_weight));
  if (tagging) {
    text += fmt::format("  Ambiguous words in second place, whose clue is the first word: {}\n",
                        percent(result.first_word_share));
  }
  return text;
}

std::string reading_tables(const Result& result) {
  const Reading& reading = result.reading;
  std::vector<std::string> words;
  for (const Eigen::Index word : reading.words) words.push_back(vocabulary()[static_cast<std::size_t>(word)]);
  const std::vector<std::string> names = output_names(result.inputs.task);
  std::string text = fmt::format("\nThe model reads \"{}\"\n", text_of(reading.words));
  // Tagging: a row per tag, a column per word, so that a short sentence's
  // probabilities fit a phone's page; seven tags side by side would not.
  text += result.inputs.task == Task::tagging
              ? program::table("Probability of each tag", reading.probabilities.transpose(), names, words, 3)
              : program::table("Probability of each number at the slot", reading.probabilities,
                               std::vector<std::string>{verb_slot()}, names, 3);
  text += "  Answer:";
  for (const Eigen::Index answer : reading.answers) text += fmt::format(" {}", names[static_cast<std::size_t>(answer)]);
  text += "\n";
  for (std::size_t l = 0; l < reading.attention.size(); ++l) {
    for (std::size_t h = 0; h < reading.attention[l].size(); ++h) {
      text += '\n';
      text += program::table(fmt::format("Attention weights, layer {} head {} (each row: the word that reads)", l + 1,
                                         h + 1),
                             reading.attention[l][h], words, words, 2);
    }
  }
  return text;
}

}  // namespace

std::string tables(const Result& result) {
  std::string text = training_tables(result);
  if (result.inputs.task == Task::tagging) {
    text += fmt::format("\nHeld-out: {} sentences, none of them trained on\n", result.held_out_count);
    text += fmt::format("  {:<28} {:>11}  {:>25}\n", "", "this model", "best one-word-at-a-time");
    text += fmt::format("  {:<28} {:>11}  {:>25}\n", "every word", percent(result.accuracy),
                        percent(result.one_word_ceiling));
    text += fmt::format("  {:<28} {:>11}  {:>25}\n", fmt::format("ambiguous words ({})", result.ambiguous_count),
                        percent(result.ambiguous_accuracy), percent(result.one_word_ceiling_ambiguous));
    text += fmt::format("  (a layer that reads one word and its position: at best\n"
                        "   {} of every word, {} of the ambiguous ones)\n",
                        percent(result.word_and_position_ceiling), percent(result.word_and_position_ceiling_ambiguous));
  } else {
    text += fmt::format("\nHeld-out: {} subjects, none of them trained on; accuracy {}\n", result.held_out_count,
                        percent(result.accuracy));
    text += fmt::format("  (a layer that reads only the slot can do no better than {})\n",
                        percent(result.one_word_agreement));
    for (const auto& [title, groups] :
         {std::pair{"attractors", &result.by_attractors}, std::pair{"distance", &result.by_distance}}) {
      text += fmt::format("\n  {:<11} {:>6}  {:>11}  {:>26}\n", title, "count", "this model",
                          "the verb takes the last noun");
      for (const AgreementGroup& group : *groups) {
        text += fmt::format("  {:<11} {:>6}  {:>11}  {:>26}\n", group.label, group.count, percent(group.model),
                            percent(group.nearest_noun));
      }
    }
  }
  text += heads_table(result);
  text += reading_tables(result);
  text += fmt::format("\nTraining took {:.2f} s\n", result.seconds);
  return text;
}

std::string tables(const SeedsResult& result) {
  const bool tagging = result.inputs.task == Task::tagging;
  const bool recurrent = result.inputs.model == Model::recurrent;
  std::string text = fmt::format("{}, {} model: {} steps, each seed trained from scratch; held-out accuracy\n\n",
                                 task_name(result.inputs.task), model_name(result.inputs.model), result.inputs.steps);
  const char* hard = tagging ? "ambiguous words" : "with an attractor";
  // A recurrence has no heads: its column says so rather than 0 %.
  const auto peak = [recurrent](double share) { return recurrent ? std::string("-") : percent(share); };
  // Tagging adds the sharpest head without the ambiguous words in second place, whose clue is also the
  // first word; in agreement no clue is the first word, and the column would repeat the one before it.
  const auto row = [&](const std::string& label, double all, double hard_cases, double one_word, double best_peak,
                       double best_peak_not_first, double seconds) {
    std::string line = fmt::format("  {:>6}  {:>7}  {:>17}  {:>13}  {:>14}", label, percent(all), percent(hard_cases),
                                   percent(one_word), peak(best_peak));
    if (tagging) line += fmt::format("  {:>13}", peak(best_peak_not_first));
    return line + fmt::format("  {:>7.2f}\n", seconds);
  };
  text += fmt::format("  {:>6}  {:>7}  {:>17}  {:>13}  {:>14}", "seed", "all", hard, "one-word best", "best head peak");
  if (tagging) text += fmt::format("  {:>13}", "not 2nd word");
  text += fmt::format("  {:>7}\n", "seconds");
  for (const SeedRun& run : result.runs) {
    text += row(std::to_string(run.seed), run.accuracy, run.hard_accuracy, run.one_word_hard, run.best_peak_share,
                run.best_peak_share_not_first, run.seconds);
  }
  const auto column = [&](double SeedRun::*member) {
    std::vector<double> values;
    for (const SeedRun& run : result.runs) values.push_back(run.*member);
    return values;
  };
  const std::vector<double> seconds = column(&SeedRun::seconds);
  const auto lowest = [](const std::vector<double>& values) { return *std::min_element(values.begin(), values.end()); };
  text +=
      row("median", attention::median(column(&SeedRun::accuracy)), attention::median(column(&SeedRun::hard_accuracy)),
          attention::median(column(&SeedRun::one_word_hard)), attention::median(column(&SeedRun::best_peak_share)),
          attention::median(column(&SeedRun::best_peak_share_not_first)), attention::median(seconds));
  text += row("worst", lowest(column(&SeedRun::accuracy)), lowest(column(&SeedRun::hard_accuracy)),
              lowest(column(&SeedRun::one_word_hard)), lowest(column(&SeedRun::best_peak_share)),
              lowest(column(&SeedRun::best_peak_share_not_first)), *std::max_element(seconds.begin(), seconds.end()));
  if (tagging && !recurrent) {
    text += "\n  not 2nd word: the same, without the ambiguous words in second place\n"
            "  (their clue is the first word); the sharpest head may differ\n";
  }
  if (tagging) return text;
  text += "\nAccuracy by distance from the subject's noun to the verb's slot\n";
  std::vector<std::string> labels;  // every group any seed has, in order of distance
  for (const SeedRun& run : result.runs) {
    for (const AgreementGroup& group : run.by_distance) {
      if (std::find(labels.begin(), labels.end(), group.label) == labels.end()) labels.push_back(group.label);
    }
  }
  std::stable_sort(labels.begin(), labels.end(),
                   [](const std::string& a, const std::string& b) { return std::stoi(a) < std::stoi(b); });
  text += fmt::format("  {:>6}", "seed");
  for (const std::string& label : labels) text += fmt::format("  {:>8}", label);
  text += '\n';
  for (const SeedRun& run : result.runs) {
    text += fmt::format("  {:>6}", run.seed);
    for (const std::string& label : labels) {
      const auto group = std::find_if(run.by_distance.begin(), run.by_distance.end(),
                                      [&label](const AgreementGroup& g) { return g.label == label; });
      text += fmt::format("  {:>8}", group == run.by_distance.end() ? std::string("-") : percent(group->model));
    }
    text += '\n';
  }
  return text;
}

Flags::Flags(program::CommandLine& command_line) : command_line_(command_line) {
  command_line.option("--task", task_text_,
                      "tagging (a tag for every word) or agreement (the number of the verb after a subject); "
                      "default tagging",
                      "tagging|agreement");
  command_line.option("--sentence", sentence_text_,
                      "the words the trained model reads for you, separated by spaces; for agreement, a subject "
                      "(the program adds the verb's slot); default \"I saw a saw\", or \"the key to the cabinets\"",
                      "TEXT");
  command_line.option("--steps", steps_text_,
                      fmt::format("Adam updates of 16 sentences, 1 to {} (default 1500)", max_steps), "INTEGER");
  command_line.option("--seed", seed_text_,
                      "seed of the weights, the held-out set and the training sentences (default 1)", "INTEGER");
  command_line.option("--seeds", seeds_text_,
                      fmt::format("train once for each of these seeds (at most {}) and print each one's held-out "
                                  "accuracy, the median and the worst",
                                  max_seeds),
                      "LIST");
  command_line.option("--model", model_text_,
                      "attention (chapter 11's small Transformer) or recurrent (chapter 7's recurrent layer in place "
                      "of attention, reading left to right); default attention",
                      "attention|recurrent");
  command_line.option(
      "--modifiers", modifiers_text_,
      fmt::format("the most phrases after the subject's noun, 0 to {0} (1 to {0} for agreement; default {1} "
                  "for tagging, {2} for agreement): longer sentences, and longer distances from "
                  "subject to verb",
                  max_modifiers, default_modifiers(Task::tagging), default_modifiers(Task::agreement)),
      "INTEGER");
  command_line.option("--layers", layers_text_, fmt::format("encoder layers, 1 to {} (default 1)", max_layers),
                      "INTEGER");
  command_line.flag("--weights", include_weights_,
                    "put every trained weight in the JSON, so that another program can rerun the model");
  command_line.flag("--list-sentences", list_sentences_, "put every training and held-out sentence in the JSON");
  command_line.flag("--both-models", both_models_,
                    "with --seeds and --task agreement: train the attention model and the recurrent one on the same "
                    "seeds, and say at each distance which is better by the spread rule");
  command_line.flag("--language", language_only_, "print the grammar and the words, and train nothing");
  command_line.flag("--model-for-the-page", model_for_the_page_,
                    "train, and print the trained model as JSON for the build to put in the page");
  command_line.only_in_json("--weights");
  command_line.only_in_json("--list-sentences");
  command_line.excludes("--seeds", {"--seed", "--weights", "--list-sentences", "--sentence", "--model-for-the-page"});
  // The language is the grammar and the words: the flags of a training mean nothing to it, refused, not ignored.
  command_line.excludes("--language",
                        {"--task", "--sentence", "--steps", "--seed", "--seeds", "--model", "--modifiers", "--layers",
                         "--weights", "--list-sentences", "--both-models", "--model-for-the-page"});
}

Inputs Flags::read() const {
  Inputs inputs;
  if (task_text_ == "tagging") {
    inputs.task = Task::tagging;
  } else if (task_text_ == "agreement") {
    inputs.task = Task::agreement;
  } else {
    throw program::UsageError(fmt::format("--task: expected tagging or agreement, not '{}'", task_text_));
  }
  if (model_text_ == "attention") {
    inputs.model = Model::attention;
  } else if (model_text_ == "recurrent") {
    inputs.model = Model::recurrent;
  } else {
    throw program::UsageError(fmt::format("--model: expected attention or recurrent, not '{}'", model_text_));
  }
  if (inputs.model == Model::recurrent && include_weights_) {
    throw program::UsageError("--weights: only with --model attention (the NumPy check reruns the Transformer)");
  }
  if (inputs.model == Model::recurrent && command_line_.given("--layers")) {
    throw program::UsageError("--layers: only with --model attention (the recurrent model has one layer)");
  }
  inputs.steps = static_cast<long long>(program::parse_whole_number(steps_text_, "--steps", 1, max_steps));
  if (command_line_.given("--modifiers")) {
    inputs.modifiers = static_cast<int>(program::parse_whole_number(modifiers_text_, "--modifiers", 0, max_modifiers));
    if (inputs.task == Task::agreement && inputs.modifiers == 0) {
      throw program::UsageError("--modifiers is 0; the agreement task needs at least 1 (with no phrase after the noun "
                                "there are fewer different subjects than the 1000 it holds out)");
    }
  }
  inputs.seed = program::parse_whole_number(seed_text_, "--seed", 0, UINT64_MAX);
  inputs.shape.layers = static_cast<Eigen::Index>(program::parse_whole_number(layers_text_, "--layers", 1, max_layers));
  inputs.shape.d_model = 32;
  inputs.shape.heads = 2;
  inputs.include_weights = include_weights_;
  inputs.list_sentences = list_sentences_;
  if (command_line_.given("--sentence")) {
    const std::vector<Eigen::Index> words = words_of(sentence_text_, "--sentence");
    if (words.size() > max_sentence_words) {
      throw program::UsageError(fmt::format("--sentence has {} words; at most {}", words.size(), max_sentence_words));
    }
    if (inputs.task == Task::agreement) {
      // A subject is what "is red" or "are red" can follow to make a sentence, with any number of phrases.
      const auto completed = [&words](const char* predicate) {
        std::vector<Eigen::Index> sentence = words;
        for (const Eigen::Index word : words_of(predicate, "--sentence")) sentence.push_back(word);
        return is_sentence(sentence, static_cast<int>(max_sentence_words));
      };
      if (!completed("is red") && !completed("are red")) {
        throw program::UsageError(fmt::format("--sentence: for agreement, a subject the program can add the verb's "
                                              "slot to, such as \"the key to the cabinets\"; \"{}\" is not one",
                                              text_of(words)));
      }
    }
    inputs.sentence = sentence_text_;
  }
  if (command_line_.given("--seeds"))
    inputs.seeds = program::parse_whole_numbers(seeds_text_, "--seeds", 0, UINT64_MAX, max_seeds);
  if (both_models_) {
    if (inputs.seeds.empty()) throw program::UsageError("--both-models: only with --seeds");
    if (inputs.task != Task::agreement) {
      throw program::UsageError("--both-models: only with --task agreement (it compares the models by distance)");
    }
    if (command_line_.given("--model")) throw program::UsageError("--both-models trains both; leave out --model");
    if (command_line_.given("--layers")) {
      throw program::UsageError("--layers: only with --model attention (the recurrent model has one layer)");
    }
    inputs.both_models = true;
  }
  return completed(inputs);
}

#ifdef __EMSCRIPTEN__
// The models the book's build trained natively, one per task with the defaults: a source file the build
// writes (models_for_the_page.py) into the page's module, and only there.
const std::vector<SavedModel>& models_for_the_page();
#endif

namespace {

// The page's model: the one the build trained with the same inputs, if it shipped one; otherwise trained here.
// Training in WebAssembly gives other last bits than training natively (no fused multiply-adds, other
// summation orders), and 1500 steps of Adam grow those differences until the weights differ in the first
// digit; a shipped model is the native model, bit for bit, so the page shows the native program's numbers.
std::shared_ptr<const Trained> trained_for_the_page(const Inputs& inputs) {
#ifdef __EMSCRIPTEN__
  for (const SavedModel& model : models_for_the_page()) {
    if (model.key == model_key(inputs)) return restored(model, inputs);
  }
#endif
  return train(inputs);
}

}  // namespace

// The page's way in: the same flags and the same training. The models trained for the page are kept, one
// per task and setting, so that a reader typing sentence after sentence waits for the training once, not at
// every letter, and switching task and back does not train again.
[[maybe_unused]] const bool registered_for_the_page = program::register_page_program(
    "sentences",
    [](const std::vector<std::string>& arguments) {
      static program::KeptModels<Trained> kept(4);
      program::CommandLine command_line{"sentences", ""};
      Flags flags(command_line);
      nlohmann::json result;
      command_line.parse_for_page(arguments, [&] {
        if (flags.language_only()) {
          result = language_json();
          return;
        }
        const Inputs inputs = flags.read();
        if (inputs.both_models) {
          result = to_json(compare_models(inputs));
          return;
        }
        if (!inputs.seeds.empty()) {
          result = to_json(compute_over_seeds(inputs));
          return;
        }
        // The key holds everything training depends on; the sentence is not part of it.
        const auto trained = kept.get(model_key(inputs), [&] { return trained_for_the_page(inputs); });
        result = to_json(report(*trained, inputs));
      });
      return result;
    },
    program::flag_defaults<Flags>("sentences"));

// The program's command line, registered once (program::register_chapter_with_modes(),
// src/program/run_chapter.hpp): the program's main() (src/program/chapter_main.cpp) reads the
// command line, and the lambda says which computation the flags ask for and prints it.
//
// With no arguments: trains the book's small Transformer (chapter 11's token classifier) for 1500 steps to
// tag the words of a small language stated in full, then prints its held-out accuracy beside the best a
// layer that reads one word at a time can do, and how it reads "I saw a saw": the tags and each head's
// attention. --task agreement trains it instead to give the verb after a subject the subject's number
// across other nouns ("the key to the cabinets [verb]"). --sentence gives it your own words; --seeds
// 1,2,3,4,5 trains once per seed, and with --both-models trains the recurrent model on the same seeds too
// and says at each distance which model is better; --language prints the grammar and trains nothing;
// --json prints it all as one JSON document.
//
// While it trains, a progress line goes to stderr when stderr is a terminal, and nowhere otherwise.
[[maybe_unused]] const bool registered_command_line = program::register_chapter_with_modes<Flags>(
    "sentences",
    "Chapter 13 of Attention, Compiled: a small Transformer trained on a language stated in full, to tag every "
    "word (\"I saw a saw\") or to give a verb its subject's number across other nouns; held-out accuracy, what "
    "a layer that reads one word at a time can do, and where each head looks.",
    [](Flags& flags, const program::JsonFlags& output) {
      if (flags.language_only()) {
        output.print([] { return language_json(); }, [] { return language_tables(); });
        return;
      }
      program::ProgressLine line;
      const Progress progress = program::step_progress(line);
      const Inputs inputs = flags.read();
      if (inputs.both_models) {
        const ModelsCompared result = compare_models(inputs, progress);
        output.print([&] { return to_json(result); }, [&] { return tables(result); });
        return;
      }
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

}  // namespace sentences
