#include "grammar.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "program/text.hpp"
#include "program/usage_error.hpp"

namespace sentences {
namespace {

// A word with a form for one and a form for many. For a noun: "key", "keys". For a verb in the present
// tense: the form after "he", "she", "it" or one noun ("sees"), and the form after "I", "you", "we", "they"
// or many nouns ("see").
struct Forms {
  const char* one;
  const char* many;
};

// clang-format off
// [lexicon]
const std::vector<Forms> nouns{{"dog", "dogs"},   {"cat", "cats"},         {"man", "men"},
                               {"woman", "women"}, {"key", "keys"},       {"cabinet", "cabinets"},
                               {"girl", "girls"},  {"book", "books"},     {"saw", "saws"},
                               {"watch", "watches"}, {"fly", "flies"},    {"park", "parks"},
                               {"duck", "ducks"},  {"can", "cans"}};
const std::vector<Forms> verbs{{"sees", "see"},    {"likes", "like"},     {"finds", "find"},
                               {"has", "have"},    {"saws", "saw"},       {"watches", "watch"},
                               {"flies", "fly"},   {"parks", "park"},     {"ducks", "duck"},
                               {"cans", "can"}};
const Forms copula{"is", "are"};
// The one verb with a past tense here: the same for one and for many.
const char* const past_verb = "saw";
const std::vector<const char*> determiners_for_one{"a", "this", "every"};
const std::vector<const char*> determiners_for_many{"these", "many"};
const char* const determiner_for_both = "the";
const std::vector<const char*> adjectives{"old", "red", "small", "big", "new"};
const std::vector<const char*> prepositions{"near", "to", "by", "with", "behind"};
const std::vector<const char*> subject_pronouns_for_one{"he", "she", "it"};
// These take the form for many: "they see", and "I see", not "I sees".
const std::vector<const char*> subject_pronouns_for_many{"I", "you", "we", "they"};
const std::vector<const char*> object_pronouns{"me", "you", "us", "them", "him", "her", "it"};
const char* const relative = "that";
// [lexicon]
// clang-format on

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::vector<std::string> build_vocabulary() {
  std::vector<std::string> words;
  const auto add = [&words](const std::string& word) {
    if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
  };
  for (const char* word : determiners_for_one) add(word);
  for (const char* word : determiners_for_many) add(word);
  add(determiner_for_both);
  for (const char* word : adjectives) add(word);
  for (const Forms& noun : nouns) add(noun.one), add(noun.many);
  for (const char* word : subject_pronouns_for_one) add(word);
  for (const char* word : subject_pronouns_for_many) add(word);
  for (const char* word : object_pronouns) add(word);
  for (const Forms& verb : verbs) add(verb.one), add(verb.many);
  add(copula.one), add(copula.many);
  for (const char* word : prepositions) add(word);
  add(relative);
  add(verb_slot());
  return words;
}

Eigen::Index word_number(const std::string& word) {
  const std::vector<std::string>& words = vocabulary();
  return static_cast<Eigen::Index>(std::find(words.begin(), words.end(), word) - words.begin());
}

// One sentence being written: words and their tags, appended in order.
class Writer {
 public:
  explicit Writer(attention::NumpyGenerator& generator) : generator_(generator) {}

  std::size_t below(std::size_t count) { return static_cast<std::size_t>(generator_.next_uint64() % count); }
  bool coin() { return below(2) == 0; }
  Number any_number() { return coin() ? Number::one : Number::many; }
  template <class List>
  const char* pick(const List& list) {
    return list[below(list.size())];
  }

  void add(const std::string& word, Tag tag) {
    sentence.words.push_back(word_number(word));
    sentence.tags.push_back(tag);
  }
  Eigen::Index position() const { return static_cast<Eigen::Index>(sentence.words.size()); }

  // determiner(a) [adjective] noun(a); returns the noun's position
  Eigen::Index noun_phrase_head(Number number) {
    const bool for_one = number == Number::one;
    const std::size_t choices = (for_one ? determiners_for_one.size() : determiners_for_many.size()) + 1;
    const std::size_t choice = below(choices);
    const char* determiner = choice + 1 == choices ? determiner_for_both
                             : for_one             ? determiners_for_one[choice]
                                                   : determiners_for_many[choice];
    add(determiner, Tag::determiner);
    if (coin()) add(pick(adjectives), Tag::adjective);
    const Eigen::Index head = position();
    const Forms& noun = nouns[below(nouns.size())];
    add(for_one ? noun.one : noun.many, Tag::noun);
    nouns_.push_back({head, number});
    return head;
  }

  // verb(a): a present form that agrees with a, or the past "saw" (one chance in verbs + 1)
  void verb(Number number, bool past_only) {
    const std::size_t choice = past_only ? verbs.size() : below(verbs.size() + 1);
    if (choice == verbs.size()) {
      add(past_verb, Tag::verb);
    } else {
      add(number == Number::one ? verbs[choice].one : verbs[choice].many, Tag::verb);
    }
  }

  // object → object-phrase | object-pronoun
  void object(bool phrase_only) {
    if (!phrase_only && below(4) == 0) {
      add(pick(object_pronouns), Tag::pronoun);
    } else {
      noun_phrase_head(any_number());
    }
  }

  // modifier(a) → preposition object-phrase | "that" verb(a) object
  void modifier(Number number, bool agreement) {
    if (coin()) {
      add(pick(prepositions), Tag::preposition);
      noun_phrase_head(any_number());
    } else {
      add(relative, Tag::relative);
      verb(number, agreement);
      object(agreement);
    }
  }

  // subject(a) → noun-phrase(a) modifier* | pronoun(a); returns the subject's number
  Number subject(int modifiers, bool agreement) {
    const Number number = any_number();
    if (!agreement && below(3) == 0) {
      add(number == Number::one ? pick(subject_pronouns_for_one) : pick(subject_pronouns_for_many), Tag::pronoun);
      return number;
    }
    sentence.subject = noun_phrase_head(number);
    sentence.number = number;
    const std::size_t count = below(static_cast<std::size_t>(modifiers) + 1);
    for (std::size_t m = 0; m < count; ++m) modifier(number, agreement);
    return number;
  }

  // predicate(a) → verb(a) object [preposition object-phrase] | copula(a) adjective
  void predicate(Number number) {
    if (below(4) == 0) {
      add(number == Number::one ? copula.one : copula.many, Tag::verb);
      add(pick(adjectives), Tag::adjective);
      return;
    }
    verb(number, false);
    object(false);
    if (below(3) == 0) {
      add(pick(prepositions), Tag::preposition);
      noun_phrase_head(any_number());
    }
  }

  void count_attractors() {
    for (const auto& [at, number] : nouns_) {
      if (at > sentence.subject && number != sentence.number) ++sentence.attractors;
      sentence.nearest_noun = at;
      sentence.nearest_number = number;
    }
  }

  Sentence sentence;

 private:
  attention::NumpyGenerator& generator_;
  std::vector<std::pair<Eigen::Index, Number>> nouns_;  // every noun written, with its number
};

// Each word's form for @p a: the nouns for one, or the verbs for many.
std::vector<const char*> forms(const std::vector<Forms>& list, Number a) {
  std::vector<const char*> chosen;
  for (const Forms& word : list) chosen.push_back(a == Number::one ? word.one : word.many);
  return chosen;
}

// The rules' classes of more than one word, each with its words: what a refused sentence could have had instead.
using WordClass = std::pair<std::string, std::vector<const char*>>;
const std::vector<WordClass>& word_classes() {
  static const std::vector<WordClass> classes = [] {
    const auto with_the = [](std::vector<const char*> list) {
      list.push_back(determiner_for_both);
      return list;
    };
    return std::vector<WordClass>{{"determiner(one)", with_the(determiners_for_one)},
                                  {"determiner(many)", with_the(determiners_for_many)},
                                  {"adjective", adjectives},
                                  {"noun(one)", forms(nouns, Number::one)},
                                  {"noun(many)", forms(nouns, Number::many)},
                                  {"pronoun(one)", subject_pronouns_for_one},
                                  {"pronoun(many)", subject_pronouns_for_many},
                                  {"object-pronoun", object_pronouns},
                                  {"verb(one)", forms(verbs, Number::one)},
                                  {"verb(many)", forms(verbs, Number::many)},
                                  {"preposition", prepositions}};
  }();
  return classes;
}

// clang-format off
// [parser]
// Where a phrase that starts at a position can end: one end for each reading
// of the words that follow.
using Ends = std::vector<std::size_t>;

// The grammar of grammar_rules(), read backwards: each rule gives the ends of its phrase.
class Parser {
 public:
  Parser(const std::vector<Eigen::Index>& words, int modifiers) : modifiers_(modifiers) {
    for (const Eigen::Index word : words) {
      words_.push_back(vocabulary()[static_cast<std::size_t>(word)]);
    }
  }

  bool sentence() const {
    for (const Number a : {Number::one, Number::many}) {
      for (const std::size_t middle : subject(0, a)) {
        for (const std::size_t end : predicate(middle, a)) {
          if (end == words_.size()) return true;
        }
      }
    }
    return false;
  }
  // How many words from the start some reading took in: every reading is
  // tried, and each can be finished, so some sentence starts with these.
  std::size_t words_read() const { return read_; }

 private:
  template <class List>
  bool in(std::size_t at, const List& list) const {
    if (at >= words_.size()) return false;
    const auto same = [&](const auto& word) { return words_[at] == word; };
    if (!std::any_of(list.begin(), list.end(), same)) return false;
    read_ = std::max(read_, at + 1);
    return true;
  }
  bool is(std::size_t at, const char* word) const {
    return in(at, std::array{word});
  }
  static Ends joined(Ends first, const Ends& second) {
    first.insert(first.end(), second.begin(), second.end());
    return first;
  }
  template <class Rule>
  static Ends then(const Ends& starts, Rule rule) {  // every end of rule from every start
    Ends ends;
    for (const std::size_t at : starts) ends = joined(std::move(ends), rule(at));
    return ends;
  }

  // noun-phrase(a) → determiner(a) [adjective] noun(a)
  Ends noun_phrase(std::size_t at, Number a) const {
    const bool determiner = is(at, determiner_for_both) ||
                            in(at, a == Number::one ? determiners_for_one : determiners_for_many);
    if (!determiner) return {};
    Ends ends;
    const std::vector<const char*> noun = forms(nouns, a);
    if (in(at + 1, noun)) ends.push_back(at + 2);
    if (in(at + 1, adjectives) && in(at + 2, noun)) ends.push_back(at + 3);
    return ends;
  }
  Ends any_noun_phrase(std::size_t at) const {
    return joined(noun_phrase(at, Number::one), noun_phrase(at, Number::many));
  }
  // verb(a) → a present form that agrees with a, or the past "saw"
  Ends verb(std::size_t at, Number a) const {
    return in(at, forms(verbs, a)) || is(at, past_verb) ? Ends{at + 1} : Ends{};
  }
  // object → noun-phrase(b) | object-pronoun
  Ends object(std::size_t at) const {
    return joined(any_noun_phrase(at), in(at, object_pronouns) ? Ends{at + 1} : Ends{});
  }
  // modifier(a) → preposition noun-phrase(b) | that verb(a) object
  Ends modifier(std::size_t at, Number a) const {
    const Ends phrase = in(at, prepositions) ? any_noun_phrase(at + 1) : Ends{};
    const auto object_after = [this](std::size_t next) { return object(next); };
    const Ends clause = is(at, relative) ? then(verb(at + 1, a), object_after) : Ends{};
    return joined(phrase, clause);
  }
  // subject(a) → noun-phrase(a) modifier(a)* | pronoun(a), with at most modifiers_ modifiers
  Ends subject(std::size_t at, Number a) const {
    const auto& pronouns = a == Number::one ? subject_pronouns_for_one : subject_pronouns_for_many;
    Ends ends = in(at, pronouns) ? Ends{at + 1} : Ends{};
    Ends frontier = noun_phrase(at, a);
    for (int m = 0; !frontier.empty(); ++m) {
      ends = joined(std::move(ends), frontier);
      if (m == modifiers_) break;
      frontier = then(frontier, [this, a](std::size_t next) { return modifier(next, a); });
    }
    return ends;
  }
  // predicate(a) → verb(a) object [preposition noun-phrase(b)] | is/are(a) adjective
  Ends predicate(std::size_t at, Number a) const {
    const Ends objects = then(verb(at, a), [this](std::size_t next) { return object(next); });
    const Ends phrases = then(objects, [this](std::size_t next) {
      return in(next, prepositions) ? any_noun_phrase(next + 1) : Ends{};
    });
    const char* copula_form = a == Number::one ? copula.one : copula.many;
    const bool copula_fits = is(at, copula_form) && in(at + 1, adjectives);
    return joined(joined(objects, phrases), copula_fits ? Ends{at + 2} : Ends{});
  }

  std::vector<std::string> words_;
  int modifiers_;
  mutable std::size_t read_ = 0;
};
// [parser]
// clang-format on

// clang-format off
// [chances]
// The chances of the choices the Writer above makes, read over given words: for each
// way a phrase that starts at a position can end, the probability that the Writer
// writes those words there. It follows the Writer choice for choice, so the two must
// change together (the chapter's tests compare it with sentences drawn, and with the
// Parser above on which words are a sentence at all).
class Chances {
 public:
  // (end, probability); an end may come more than once
  using Ends = std::vector<std::pair<std::size_t, double>>;

  Chances(const std::vector<Eigen::Index>& words, int modifiers) : modifiers_(modifiers) {
    for (const Eigen::Index word : words)
      words_.push_back(vocabulary()[static_cast<std::size_t>(word)]);
  }

  double sentence() const {
    double probability = 0.0;
    for (const Number a : {Number::one, Number::many}) {
      for (const auto& [middle, subject_chance] : subject(0, a)) {
        for (const auto& [end, predicate_chance] : predicate(middle, a)) {
          if (end == words_.size()) probability += 0.5 * subject_chance * predicate_chance;
        }
      }
    }
    return probability;
  }

 private:
  // The chance that a pick from @p list (each as likely) is the word at @p at.
  template <class List>
  double picked(std::size_t at, const List& list) const {
    if (at >= words_.size()) return 0.0;
    const auto count = std::count_if(list.begin(), list.end(),
                                     [&](const auto& word) { return words_[at] == word; });
    return static_cast<double>(count) / static_cast<double>(list.size());
  }
  bool is(std::size_t at, const char* word) const {
    return at < words_.size() && words_[at] == word;
  }
  // Each end of @p rule after each end of @p starts, the chances multiplied.
  template <class Rule>
  static Ends then(const Ends& starts, Rule rule, double chance = 1.0) {
    Ends ends;
    for (const auto& [at, start_chance] : starts) {
      for (const auto& [end, rule_chance] : rule(at))
        ends.emplace_back(end, chance * start_chance * rule_chance);
    }
    return ends;
  }
  static void add(Ends& ends, const Ends& more) {
    ends.insert(ends.end(), more.begin(), more.end());
  }

  Ends noun_phrase(std::size_t at, Number a) const {
    const bool for_one = a == Number::one;
    const double choices = static_cast<double>(
        (for_one ? determiners_for_one.size() : determiners_for_many.size()) + 1);
    const double determiner =
        (picked(at, for_one ? determiners_for_one : determiners_for_many) * (choices - 1.0) +
         (is(at, determiner_for_both) ? 1.0 : 0.0)) /
        choices;
    if (determiner == 0.0) return {};
    const std::vector<const char*> noun = forms(nouns, a);
    Ends ends;
    if (const double chance = 0.5 * picked(at + 1, noun); chance > 0.0)
      ends.emplace_back(at + 2, determiner * chance);
    if (const double chance = 0.5 * picked(at + 1, adjectives) * picked(at + 2, noun);
        chance > 0.0) {
      ends.emplace_back(at + 3, determiner * chance);
    }
    return ends;
  }
  Ends any_noun_phrase(std::size_t at) const {
    Ends ends =
        then({{at, 0.5}}, [&](std::size_t next) { return noun_phrase(next, Number::one); });
    add(ends,
        then({{at, 0.5}}, [&](std::size_t next) { return noun_phrase(next, Number::many); }));
    return ends;
  }
  Ends verb(std::size_t at, Number a) const {
    const double choices = static_cast<double>(verbs.size() + 1);
    const double chance = (picked(at, forms(verbs, a)) * static_cast<double>(verbs.size()) +
                           (is(at, past_verb) ? 1.0 : 0.0)) /
                          choices;
    return chance > 0.0 ? Ends{{at + 1, chance}} : Ends{};
  }
  Ends object(std::size_t at) const {
    Ends ends = then({{at, 0.75}}, [&](std::size_t next) { return any_noun_phrase(next); });
    if (const double chance = 0.25 * picked(at, object_pronouns); chance > 0.0)
      ends.emplace_back(at + 1, chance);
    return ends;
  }
  Ends modifier(std::size_t at, Number a) const {
    Ends ends;
    if (const double chance = 0.5 * picked(at, prepositions); chance > 0.0) {
      add(ends,
          then({{at + 1, chance}}, [&](std::size_t next) { return any_noun_phrase(next); }));
    }
    if (is(at, relative)) {
      add(ends, then(then({{at + 1, 0.5}}, [&](std::size_t next) { return verb(next, a); }),
                     [&](std::size_t next) { return object(next); }));
    }
    return ends;
  }
  Ends subject(std::size_t at, Number a) const {
    Ends ends;
    const double pronoun =
        picked(at, a == Number::one ? subject_pronouns_for_one : subject_pronouns_for_many) /
        3.0;
    if (pronoun > 0.0) ends.emplace_back(at + 1, pronoun);
    const double each_count = 1.0 / static_cast<double>(modifiers_ + 1);
    Ends frontier =
        then({{at, 2.0 / 3.0}}, [&](std::size_t next) { return noun_phrase(next, a); });
    for (int m = 0; !frontier.empty(); ++m) {
      add(ends, then(
                    frontier,
                    [](std::size_t end) {
                      return Ends{{end, 1.0}};
                    },
                    each_count));
      if (m == modifiers_) break;
      frontier = then(frontier, [&](std::size_t next) { return modifier(next, a); });
    }
    return ends;
  }
  Ends predicate(std::size_t at, Number a) const {
    Ends ends;
    if (is(at, a == Number::one ? copula.one : copula.many)) {
      if (const double chance = 0.25 * picked(at + 1, adjectives); chance > 0.0)
        ends.emplace_back(at + 2, chance);
    }
    const Ends objects =
        then(then({{at, 0.75}}, [&](std::size_t next) { return verb(next, a); }),
             [&](std::size_t next) { return object(next); });
    add(ends, then(
                  objects,
                  [](std::size_t end) {
                    return Ends{{end, 1.0}};
                  },
                  2.0 / 3.0));
    add(ends, then(objects, [&](std::size_t next) {
          const double chance = picked(next, prepositions) / 3.0;
          return chance > 0.0 ? then({{next + 1, chance}},
                                     [&](std::size_t after) { return any_noun_phrase(after); })
                              : Ends{};
        }));
    return ends;
  }

  std::vector<std::string> words_;
  int modifiers_;
};
// [chances]
// clang-format on

}  // namespace

std::string tag_name(Tag tag) {
  static const char* const names[] = {"determiner", "adjective", "noun", "pronoun", "verb", "preposition", "relative"};
  return names[static_cast<int>(tag)];
}

std::string number_name(Number number) { return number == Number::one ? "one" : "many"; }

const std::string& verb_slot() {
  static const std::string slot = "[verb]";
  return slot;
}

const std::vector<std::string>& vocabulary() {
  static const std::vector<std::string> words = build_vocabulary();
  return words;
}

const std::vector<std::string>& ambiguous_words() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> both;
    for (const Forms& noun : nouns) {
      for (const char* form : {noun.one, noun.many}) {
        const bool verb_too =
            form == std::string(past_verb) || std::any_of(verbs.begin(), verbs.end(), [form](const Forms& verb) {
              return form == std::string(verb.one) || form == std::string(verb.many);
            });
        if (verb_too) both.emplace_back(form);
      }
    }
    return both;
  }();
  return words;
}

const std::vector<std::string>& grammar_rules() {
  static const std::vector<std::string> rules{
      "sentence       → subject(a) predicate(a)",
      "subject(a)     → noun-phrase(a) modifier(a)* | pronoun(a)",
      "noun-phrase(a) → determiner(a) [adjective] noun(a)",
      "modifier(a)    → preposition noun-phrase(b) | that verb(a) object",
      "object         → noun-phrase(b) | object-pronoun",
      "predicate(a)   → verb(a) object [preposition noun-phrase(b)] | is/are(a) adjective",
      "verb(a)        → a present form that agrees with a, or the past saw",
      "a, b           ∈ {one, many}, drawn independently; up to 2 modifiers (3 for agreement; --modifiers)"};
  return rules;
}

const std::vector<std::pair<std::string, std::string>>& lexicon() {
  static const std::vector<std::pair<std::string, std::string>> lines = [] {
    const auto joined = [](const auto& list) {
      std::string text;
      for (const auto& word : list) {
        if (!text.empty()) text += ' ';
        text += word;
      }
      return text;
    };
    return std::vector<std::pair<std::string, std::string>>{
        {"determiner(one)", fmt::format("{} {}", joined(determiners_for_one), determiner_for_both)},
        {"determiner(many)", fmt::format("{} {}", joined(determiners_for_many), determiner_for_both)},
        {"adjective", joined(adjectives)},
        {"noun(one)", joined(forms(nouns, Number::one))},
        {"noun(many)", joined(forms(nouns, Number::many))},
        {"pronoun(one)", joined(subject_pronouns_for_one)},
        {"pronoun(many)", fmt::format("{} (these take the form for many)", joined(subject_pronouns_for_many))},
        {"object-pronoun", joined(object_pronouns)},
        {"verb(one)", fmt::format("{} {}", joined(forms(verbs, Number::one)), copula.one)},
        {"verb(many)", fmt::format("{} {}", joined(forms(verbs, Number::many)), copula.many)},
        {"verb, past", past_verb},
        {"preposition", joined(prepositions)},
        {"relative", relative}};
  }();
  return lines;
}

Sentence draw_sentence(attention::NumpyGenerator& generator, int modifiers) {
  Writer writer(generator);
  writer.predicate(writer.subject(modifiers, false));
  return writer.sentence;
}

Sentence draw_agreement_prefix(attention::NumpyGenerator& generator, int modifiers) {
  Writer writer(generator);
  writer.subject(modifiers, true);
  writer.count_attractors();
  writer.sentence.words.push_back(word_number(verb_slot()));
  writer.sentence.tags.push_back(Tag::verb);
  return writer.sentence;
}

bool is_sentence(const std::vector<Eigen::Index>& words, int modifiers) { return Parser(words, modifiers).sentence(); }

double sentence_probability(const std::vector<Eigen::Index>& words, int modifiers) {
  return Chances(words, modifiers).sentence();
}

std::optional<Refusal> refusal(const std::vector<Eigen::Index>& words, int modifiers) {
  const Parser parser(words, modifiers);
  if (parser.sentence()) return std::nullopt;
  Refusal refused{parser.words_read(), {}};
  const std::vector<Eigen::Index> read(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(refused.at));
  // Every word that some sentence has after the words read, each parsed once.
  std::set<std::string> fitting;
  for (const std::string& word : vocabulary()) {
    if (word == verb_slot()) continue;
    std::vector<Eigen::Index> longer = read;
    longer.push_back(word_number(word));
    const Parser reading(longer, modifiers);
    reading.sentence();
    if (reading.words_read() > refused.at) fitting.insert(word);
  }
  // The grammar's word classes, each named when every word of it fits; a word that fits outside them by itself.
  std::set<std::string> covered;
  const auto fits = [&fitting](const char* word) { return fitting.count(word) > 0; };
  for (const auto& [name, members] : word_classes()) {
    if (!std::all_of(members.begin(), members.end(), fits)) continue;
    refused.expected.push_back(name);
    covered.insert(members.begin(), members.end());
  }
  for (const std::string& word : vocabulary()) {  // in the vocabulary's order
    if (fitting.count(word) > 0 && covered.count(word) == 0) refused.expected.push_back(word);
  }
  if (Parser(read, modifiers).sentence()) refused.expected.emplace_back(".");
  return refused;
}

std::vector<Eigen::Index> words_of(const std::string& text, const std::string& flag) {
  std::vector<Eigen::Index> words;
  const std::vector<std::string>& known = vocabulary();
  for (std::string_view piece : program::split(text, ' ')) {
    if (piece.empty()) continue;
    const std::string word = lower(std::string(piece));
    const auto found =
        std::find_if(known.begin(), known.end(), [&word](const std::string& k) { return lower(k) == word; });
    if (piece == ".") {
      throw program::UsageError(
          fmt::format("{}: '.' marks where a sentence starts and ends, and the model adds it; type the words alone",
                      flag));
    }
    if (found == known.end() || *found == verb_slot()) {
      throw program::UsageError(fmt::format("{}: '{}' is not a word of the language (chapter 13 lists its {} words "
                                            "under \"A language stated in full\"; build/bin/sentences --language "
                                            "prints them)",
                                            flag, piece, known.size() - 1));
    }
    words.push_back(static_cast<Eigen::Index>(found - known.begin()));
  }
  if (words.empty())
    throw program::UsageError(fmt::format("{}: expected at least one word, separated by spaces", flag));
  return words;
}

std::string text_of(const std::vector<Eigen::Index>& words) {
  std::string text;
  for (const Eigen::Index word : words) {
    if (!text.empty()) text += ' ';
    text += vocabulary()[static_cast<std::size_t>(word)];
  }
  return text;
}

}  // namespace sentences
