// Chapter 13's computation, tested in-process on models of width 4: the
// language (its words, the twelve that are both noun and verb, sentences that
// parse and break, tags the word before decides, the agreement task's subject,
// attractors and nearest noun checked against word lists typed here); the loss
// of one step worked out from its definition, only the slot's row for
// agreement, and Adam's first step; every held-out measure (accuracy, the
// ambiguous words, the best a one-word layer can do, the groups by attractors
// and distance, where each head looks) recomputed from forward passes over the
// held-out set drawn again; the reading's probabilities; a recurrence that
// reads left to right; the parameter counts from the shapes; the saved model
// restored; the parser and the chances agreeing on what is a sentence; the
// table over seeds; the spread rule between two models' seeds at each distance,
// on groups typed here; and the flags' refusals. Every expected value has a
// reason of its own, not the program's output.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "attention/cross_entropy.hpp"
#include "attention/numpy_random.hpp"
#include "attention/token_classifier.hpp"
#include "chapter_support.hpp"
#include "program/usage_error.hpp"
#include "sentences.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_sentences {

namespace {

using sentences::Sentence;
using sentences::Tag;
using Words = std::vector<Eigen::Index>;

// The word lists of the language, typed again from the chapter's lexicon.
const std::vector<std::string> nouns_for_one{"dog",  "cat", "man",   "woman", "key",  "cabinet", "girl",
                                             "book", "saw", "watch", "fly",   "park", "duck",    "can"};
const std::vector<std::string> nouns_for_many{"dogs",  "cats", "men",     "women", "keys",  "cabinets", "girls",
                                              "books", "saws", "watches", "flies", "parks", "ducks",    "cans"};
const std::vector<std::string> determiners{"a", "this", "every", "these", "many", "the"};
const std::vector<std::string> adjectives{"old", "red", "small", "big", "new"};
const std::vector<std::string> object_pronouns{"me", "you", "us", "them", "him", "her", "it"};

bool among(const std::vector<std::string>& list, const std::string& word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

std::string word_at(const Sentence& sentence, Eigen::Index t) {
  return sentences::vocabulary()[static_cast<std::size_t>(sentence.words[static_cast<std::size_t>(t)])];
}

Words words(const std::string& text) { return sentences::words_of(text, "--sentence"); }

// A model of width 4, two heads, batches of 2, a small held-out set; every weight and sentence in the result.
sentences::Inputs tiny(sentences::Task task, long long steps, std::uint64_t seed = 1) {
  sentences::Inputs inputs;
  inputs.task = task;
  inputs.steps = steps;
  inputs.seed = seed;
  inputs.batch = 2;
  inputs.held_out = 24;
  inputs.shape.d_model = 4;
  inputs.shape.heads = 2;
  inputs.log_every = 1;
  inputs.include_weights = true;
  inputs.list_sentences = true;
  return sentences::completed(inputs);
}

// The held-out set as the header describes it: the first distinct sentences the seed's generator draws.
std::vector<Sentence> held_out_drawn(const sentences::Inputs& inputs) {
  attention::NumpyGenerator generator(inputs.seed);
  std::set<Words> seen;
  std::vector<Sentence> held_out;
  while (held_out.size() < static_cast<std::size_t>(inputs.held_out)) {
    Sentence sentence = inputs.task == sentences::Task::tagging
                            ? sentences::draw_sentence(generator, inputs.modifiers)
                            : sentences::draw_agreement_prefix(generator, inputs.modifiers);
    if (seen.insert(sentence.words).second) held_out.push_back(sentence);
  }
  return held_out;
}

Eigen::Index first_largest(const Eigen::RowVectorXd& row) {
  Eigen::Index best = 0;
  for (Eigen::Index c = 1; c < row.size(); ++c) {
    if (row(c) > row(best)) best = c;
  }
  return best;
}

// softmax of one row from its definition, and −log of its entry @p target.
Eigen::RowVectorXd softmax(const Eigen::RowVectorXd& z) {
  Eigen::RowVectorXd p(z.size());
  double sum = 0.0;
  for (Eigen::Index c = 0; c < z.size(); ++c) sum += p(c) = std::exp(z(c) - z.maxCoeff());
  return p / sum;
}

double cross_entropy(const Eigen::RowVectorXd& z, Eigen::Index target) { return -std::log(softmax(z)(target)); }

bool ambiguous(const std::string& word) { return among(sentences::ambiguous_words(), word); }

sentences::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<sentences::Flags>("sentences", "chapter 13", arguments);
}

}  // namespace

TEST_CASE("the vocabulary holds each word once and the ambiguous words are the nouns that are also verbs", "[ch13]") {
  const std::vector<std::string>& vocabulary = sentences::vocabulary();
  CHECK(std::set<std::string>(vocabulary.begin(), vocabulary.end()).size() == vocabulary.size());
  CHECK(vocabulary.back() == sentences::verb_slot());
  // Typed from the lexicon: of the noun forms, these are also a verb form or the past "saw".
  CHECK(sentences::ambiguous_words() == std::vector<std::string>{"saw", "saws", "watch", "watches", "fly", "flies",
                                                                 "park", "parks", "duck", "ducks", "can", "cans"});
  for (const std::string& word : nouns_for_one) CHECK(among(vocabulary, word));
  for (const std::string& word : nouns_for_many) CHECK(among(vocabulary, word));
  CHECK(sentences::text_of(words("i SAW a Saw")) == "I saw a saw");  // any case in, the vocabulary's spelling out
  CHECK_THROWS_WITH(words("the dogg sees it"), Catch::StartsWith("--sentence: 'dogg' is not a word of the language"));
  CHECK_THROWS_WITH(words("the dog sees it ."), Catch::StartsWith("--sentence: '.' marks where a sentence starts"));
  CHECK_THROWS_WITH(words("the dog [verb]"), Catch::StartsWith("--sentence: '[verb]' is not a word"));
  CHECK_THROWS_WITH(words("   "), Catch::StartsWith("--sentence: expected at least one word"));
}

TEST_CASE("the parser accepts the grammar's sentences and refuses what breaks its rules", "[ch13]") {
  for (const char* text : {"I saw a saw", "the saws saw the old saw near the parks",
                           "the fly that saw you flies the can", "the dogs are old", "he likes the cat"}) {
    CHECK(sentences::is_sentence(words(text), 2));
  }
  for (const char* text : {"the dog see the cat", "a dogs sees it", "I sees the cat", "the dogs is old", "the dog sees",
                           "the dog is the cat", "the dog sees he", "the dog that see the cat likes it"}) {
    INFO(text);
    CHECK_FALSE(sentences::is_sentence(words(text), 2));
  }
  // Three phrases after the subject's noun: too many for 2, enough for 3.
  const Words three = words("the dog near the cat near the cat near the cat likes it");
  CHECK_FALSE(sentences::is_sentence(three, 2));
  CHECK(sentences::is_sentence(three, 3));
}

TEST_CASE("a refused sentence is refused at its first word no sentence has there", "[ch13]") {
  using Expected = std::vector<std::string>;
  const auto refused = [](const char* text, int modifiers = 2) {
    INFO(text);
    const std::optional<sentences::Refusal> refusal = sentences::refusal(words(text), modifiers);
    REQUIRE(refusal.has_value());
    return *refusal;
  };
  // One adjective before a noun: after "the big" only a noun, of either number ("the" is for both).
  const sentences::Refusal two_adjectives = refused("the big red woman likes it");
  CHECK(two_adjectives.at == 2);
  CHECK(two_adjectives.expected == Expected{"noun(one)", "noun(many)"});
  // After a subject for many: its verb (saw, the many form of "saws", is the past too), are, or a phrase.
  const sentences::Refusal agreement = refused("the dogs sees it");
  CHECK(agreement.at == 2);
  CHECK(agreement.expected == Expected{"verb(many)", "preposition", "are", "that"});
  // Too short: "sees" needs an object, which "he" and "she" cannot be.
  const sentences::Refusal short_one = refused("the dog sees");
  CHECK(short_one.at == 3);
  CHECK(short_one.expected == Expected{"determiner(one)", "determiner(many)", "object-pronoun"});
  // A whole sentence, then more: only a phrase or the end could follow.
  const sentences::Refusal longer = refused("he likes the cat the");
  CHECK(longer.at == 4);
  CHECK(longer.expected == Expected{"preposition", "."});
  // A third phrase after the subject's noun, with 2 allowed: its preposition is where the subject must end.
  const char* three = "the dog near the cat near the cat near the cat likes it";
  const sentences::Refusal too_many = refused(three);
  CHECK(too_many.at == 8);
  CHECK(too_many.expected == Expected{"verb(one)", "saw", "is"});
  CHECK_FALSE(sentences::refusal(words(three), 3).has_value());
  // After "is" only an adjective; after a determiner, an adjective or a noun; and a sentence starts with a
  // determiner or a pronoun for a subject (not "me" or "him").
  CHECK(refused("he is the dog").expected == Expected{"adjective"});
  const sentences::Refusal twice = refused("the dog sees the the cat");
  CHECK(twice.at == 4);
  CHECK(twice.expected == Expected{"adjective", "noun(one)", "noun(many)"});
  const std::optional<sentences::Refusal> nothing = sentences::refusal({}, 2);
  REQUIRE(nothing.has_value());
  CHECK(nothing->at == 0);
  CHECK(nothing->expected == Expected{"determiner(one)", "determiner(many)", "pronoun(one)", "pronoun(many)"});
  CHECK_FALSE(sentences::refusal(words("I saw a saw"), 2).has_value());
}

TEST_CASE("drawn sentences parse and the word before an ambiguous word decides its tag, as does the word after",
          "[ch13]") {
  attention::NumpyGenerator generator(13);
  long long ambiguous_seen = 0;
  for (int s = 0; s < 300; ++s) {
    const Sentence sentence = sentences::draw_sentence(generator, 2);
    REQUIRE(sentence.tags.size() == sentence.words.size());
    CHECK(sentences::is_sentence(sentence.words, 2));
    for (Eigen::Index t = 0; t < static_cast<Eigen::Index>(sentence.words.size()); ++t) {
      const std::string word = word_at(sentence, t);
      const Tag tag = sentence.tags[static_cast<std::size_t>(t)];
      if (among(adjectives, word)) CHECK(tag == Tag::adjective);
      if (word == "that") CHECK(tag == Tag::relative);
      if (word == "is" || word == "are") CHECK(tag == Tag::verb);
      if (!ambiguous(word)) continue;
      // A noun follows its determiner or adjective; a verb follows a noun, a pronoun or "that".
      ++ambiguous_seen;
      REQUIRE(t > 0);
      const std::string before = word_at(sentence, t - 1);
      CHECK((tag == Tag::noun) == (among(determiners, before) || among(adjectives, before)));
      CHECK((tag == Tag::noun || tag == Tag::verb));
      // The word after: a verb's object comes next and starts with a determiner or an object pronoun; a noun is
      // followed by a verb, a preposition, "that" or the end, never by either.
      const bool last = t + 1 == static_cast<Eigen::Index>(sentence.words.size());
      if (tag == Tag::verb) REQUIRE_FALSE(last);
      if (!last) {
        const std::string after = word_at(sentence, t + 1);
        CHECK((tag == Tag::verb) == (among(determiners, after) || among(object_pronouns, after)));
      }
    }
  }
  CHECK(ambiguous_seen > 100);
}

TEST_CASE("a sentence's probability is the product of the generator's choices and how often it is drawn", "[ch13]") {
  // Worked out from the Writer's choices: the subject's number (1/2), a pronoun for a subject (1/3) and which
  // (1/3 of he she it, 1/4 of I you we they), a verb rather than is/are (3/4) and which (1/11: ten present
  // forms or the past saw), an object pronoun (1/4) and which (1/7), no phrase after the object (2/3).
  const double he_sees_it = 0.5 / 3 / 3 * 0.75 / 11 * 0.25 / 7 * 2.0 / 3;
  CHECK(sentences::sentence_probability(words("he sees it"), 2) == Approx(he_sees_it).epsilon(1e-12));
  CHECK(sentences::sentence_probability(words("he saw it"), 2) == Approx(he_sees_it).epsilon(1e-12));
  // For many, saw is both the present form of "saws" and the past: two ways to write it.
  const double they_saw_it = 0.5 / 3 / 4 * 0.75 * 2 / 11 * 0.25 / 7 * 2.0 / 3;
  CHECK(sentences::sentence_probability(words("they saw it"), 2) == Approx(they_saw_it).epsilon(1e-12));
  // A noun phrase for a subject (2/3), "the" (1/4 for one, 1/3 for many), no adjective (1/2), which noun (1/14),
  // no modifier (1/3 of 0, 1 or 2), is/are (1/4) and which adjective (1/5).
  const double the_dog_is_old = 0.5 * 2 / 3 / 4 * 0.5 / 14 / 3 * 0.25 / 5;
  CHECK(sentences::sentence_probability(words("the dog is old"), 2) == Approx(the_dog_is_old).epsilon(1e-12));
  CHECK(sentences::sentence_probability(words("the dogs are old"), 2) == Approx(the_dog_is_old * 4 / 3).epsilon(1e-12));
  // One modifier (1/3 of 0, 1 or 2, as none was): a phrase (1/2), "near" (1/5), "a" (1/2 for one, 1/4), no adjective
  // (1/2), "cat" (1/14); or a clause (1/2), the past saw (1/11: for one it is only the past) and "it" (1/4 · 1/7).
  const double near_a_cat = 0.5 / 5 * 0.5 / 4 * 0.5 / 14;
  CHECK(sentences::sentence_probability(words("the dog near a cat is old"), 2) ==
        Approx(the_dog_is_old * near_a_cat).epsilon(1e-12));
  CHECK(sentences::sentence_probability(words("the dog that saw it is old"), 2) ==
        Approx(the_dog_is_old * 0.5 / 11 * 0.25 / 7).epsilon(1e-12));
  // An object phrase (3/4) for many (1/2), "the" (1/3), an adjective (1/2 · 1/5), "cats" (1/14), then a phrase
  // after it (1/3), "near" (1/5) and "the dog" (1/2 · 1/4 · 1/2 · 1/14), where "he sees it" had none (2/3).
  const double he_sees = he_sees_it / (0.25 / 7 * 2.0 / 3);
  CHECK(sentences::sentence_probability(words("he sees the old cats near the dog"), 2) ==
        Approx(he_sees * 0.75 * 0.5 / 3 * 0.5 / 5 / 14 / 3 / 5 * 0.5 / 4 * 0.5 / 14).epsilon(1e-12));
  CHECK(sentences::sentence_probability(words("the dog see the cat"), 2) == 0.0);
  CHECK(sentences::sentence_probability(words("the dog sees"), 2) == 0.0);
  // With 3 modifiers allowed, no modifier is 1 chance in 4.
  CHECK(sentences::sentence_probability(words("the dog is old"), 3) == Approx(the_dog_is_old * 3 / 4).epsilon(1e-12));

  // How often each of the commonest sentences is drawn, against its probability: within four standard
  // deviations of a share of the draws.
  attention::NumpyGenerator generator(14);
  const int draws = 60000;
  std::map<Words, int> counts;
  for (int s = 0; s < draws; ++s) ++counts[sentences::draw_sentence(generator, 2).words];
  std::vector<std::pair<int, Words>> commonest;
  for (const auto& [sentence, count] : counts) commonest.emplace_back(count, sentence);
  std::sort(commonest.rbegin(), commonest.rend());
  REQUIRE(commonest.size() > 8);
  for (std::size_t i = 0; i < 8; ++i) {
    const double probability = sentences::sentence_probability(commonest[i].second, 2);
    const double share = commonest[i].first / static_cast<double>(draws);
    INFO(sentences::text_of(commonest[i].second) << ": drawn " << share << ", probability " << probability);
    CHECK(std::abs(share - probability) <= 4 * std::sqrt(probability * (1 - probability) / draws));
  }
  double total = 0.0;
  for (const auto& [sentence, count] : counts) {
    const double probability = sentences::sentence_probability(sentence, 2);
    CHECK(probability > 0.0);
    total += probability;
  }
  CHECK(total <= 1.0);
}

// The parser (chapter 13's listing) and the chances (chapter 14's) walk the same grammar in two classes: they
// must agree on which words are a sentence. Drawn sentences, and every sentence one word away from them (each
// word replaced by every other word of the vocabulary, or left out), with one to three phrases allowed.
TEST_CASE("the parser and the chances agree on which words are a sentence", "[ch13]") {
  attention::NumpyGenerator generator(15);
  const auto vocabulary_size = static_cast<Eigen::Index>(sentences::vocabulary().size()) - 1;  // but the slot
  long long sentences_seen = 0, refused_seen = 0;
  for (int s = 0; s < 12; ++s) {
    const Words drawn = sentences::draw_sentence(generator, 2).words;
    std::vector<Words> near{drawn};
    for (std::size_t t = 0; t < drawn.size(); ++t) {
      Words shorter = drawn;
      shorter.erase(shorter.begin() + static_cast<std::ptrdiff_t>(t));
      near.push_back(shorter);
      for (Eigen::Index word = 0; word < vocabulary_size; ++word) {
        Words other = drawn;
        other[t] = word;
        near.push_back(other);
      }
    }
    for (const Words& candidate : near) {
      for (const int modifiers : {1, 2, 3}) {
        const bool parses = sentences::is_sentence(candidate, modifiers);
        INFO(sentences::text_of(candidate) << " with " << modifiers << " phrases");
        CHECK(parses == (sentences::sentence_probability(candidate, modifiers) > 0.0));
        ++(parses ? sentences_seen : refused_seen);
      }
    }
  }
  CHECK(sentences_seen > 1000);  // both answers are asked many times
  CHECK(refused_seen > 1000);
}

TEST_CASE("an agreement prefix ends with the slot after its subject and counts the other number's nouns", "[ch13]") {
  attention::NumpyGenerator generator(31);
  for (int s = 0; s < 300; ++s) {
    const Sentence sentence = sentences::draw_agreement_prefix(generator, 3);
    const auto last = static_cast<Eigen::Index>(sentence.words.size()) - 1;
    CHECK(word_at(sentence, last) == sentences::verb_slot());
    CHECK_FALSE(sentences::is_sentence(sentence.words, 3));  // a subject alone, not a sentence
    REQUIRE(sentence.subject >= 1);
    const std::string subject = word_at(sentence, sentence.subject);
    CHECK(among(sentence.number == sentences::Number::one ? nouns_for_one : nouns_for_many, subject));
    // The nouns after the subject's, read from the words alone: after a determiner or an adjective.
    Eigen::Index attractors = 0, nearest = sentence.subject;
    for (Eigen::Index t = sentence.subject + 1; t < last; ++t) {
      const std::string word = word_at(sentence, t);
      const std::string before = word_at(sentence, t - 1);
      const bool noun = (among(nouns_for_one, word) || among(nouns_for_many, word)) &&
                        (among(determiners, before) || among(adjectives, before));
      if (!noun) continue;
      nearest = t;
      const bool for_one = among(nouns_for_one, word);
      if (for_one != (sentence.number == sentences::Number::one)) ++attractors;
    }
    CHECK(sentence.attractors == attractors);
    CHECK(sentence.nearest_noun == nearest);
    CHECK((sentence.nearest_number == sentences::Number::one) == among(nouns_for_one, word_at(sentence, nearest)));
  }
}

TEST_CASE("the first step's loss is the cross-entropy of the first sentences drawn and Adam moves by alpha", "[ch13]") {
  for (const sentences::Task task : {sentences::Task::tagging, sentences::Task::agreement}) {
    INFO(sentences::task_name(task));
    const sentences::Inputs untrained_inputs = tiny(task, 0);  // no step: the initial weights
    const sentences::Result untrained = sentences::compute(untrained_inputs);
    const sentences::Result stepped = sentences::compute(tiny(task, 1));
    REQUIRE(untrained.weights.has_value());
    REQUIRE(stepped.samples.size() >= 2);
    attention::TokenClassifierWeights before = *untrained.weights;
    attention::TokenClassifierWeights after = *stepped.weights;
    attention::TokenClassifierWeights mean;
    double loss = 0.0;
    for (std::size_t b = 0; b < 2; ++b) {
      const Sentence& sentence = stepped.samples[b];
      const attention::TokenClassifierSteps steps = attention::token_classifier(before, sentence.words);
      // Tagging: every word against its tag, averaged over the words. Agreement: the slot's row alone against
      // the subject's number; the other rows get no gradient.
      attention::Matrix gradient = attention::Matrix::Zero(steps.logits.rows(), steps.logits.cols());
      const Eigen::Index rows = steps.logits.rows();
      double one = 0.0;
      for (Eigen::Index t = task == sentences::Task::tagging ? 0 : rows - 1; t < rows; ++t) {
        const Eigen::Index target = task == sentences::Task::tagging
                                        ? static_cast<Eigen::Index>(sentence.tags[static_cast<std::size_t>(t)])
                                        : static_cast<Eigen::Index>(sentence.number);
        const double share = task == sentences::Task::tagging ? 1.0 / static_cast<double>(rows) : 1.0;
        one += share * cross_entropy(steps.logits.row(t), target);
        gradient.row(t) = share * softmax(steps.logits.row(t));
        gradient(t, target) -= share;
      }
      loss += one / 2;
      attention::TokenClassifierWeights g =
          attention::token_classifier_backward(before, sentence.words, steps, gradient);
      if (b == 0) {
        mean = g;
        continue;
      }
      const auto m = attention::parameter_blocks(mean), blocks = attention::parameter_blocks(g);
      for (std::size_t k = 0; k < m.size(); ++k) {
        for (Eigen::Index e = 0; e < m[k].size; ++e) m[k].data[e] = (m[k].data[e] + blocks[k].data[e]) / 2;
      }
    }
    REQUIRE(stepped.loss.size() == 1);
    CHECK(stepped.loss[0] == Approx(loss).epsilon(1e-13));
    // Adam's first step: θ − α ḡ / (|ḡ| + ε), about α against the sign of the batch's mean gradient.
    const double alpha = untrained_inputs.adam.learning_rate;
    CHECK(alpha == 0.006);
    const auto b0 = attention::parameter_blocks(before), b1 = attention::parameter_blocks(after),
               g = attention::parameter_blocks(mean);
    REQUIRE(b0.size() == g.size());
    for (std::size_t k = 0; k < b0.size(); ++k) {
      for (Eigen::Index e = 0; e < b0[k].size; ++e) {
        const double expected =
            b0[k].data[e] - alpha * g[k].data[e] / (std::abs(g[k].data[e]) + untrained_inputs.adam.epsilon);
        CHECK(b1[k].data[e] == Approx(expected).margin(1e-11));
      }
    }
  }
}

TEST_CASE("tagging after a few steps: every held-out measure is its definition over the held-out set", "[ch13]") {
  const sentences::Inputs inputs = tiny(sentences::Task::tagging, 6);
  const sentences::Result result = sentences::compute(inputs);
  const std::vector<Sentence> held_out = held_out_drawn(inputs);
  REQUIRE(result.held_out_sentences.size() == held_out.size());
  for (std::size_t s = 0; s < held_out.size(); ++s)
    CHECK(result.held_out_sentences[s] == sentences::text_of(held_out[s].words));
  // No held-out sentence was trained on, and 2 sentences were trained on a step.
  for (const std::string& text : result.training_sentences) CHECK_FALSE(among(result.held_out_sentences, text));
  CHECK(result.training_drawn == 12);
  CHECK(result.training_distinct == static_cast<long long>(result.training_sentences.size()));
  CHECK(result.logged_steps == std::vector<long long>{1, 2, 3, 4, 5, 6});
  double right = 0.0, total = 0.0, right_ambiguous = 0.0, total_ambiguous = 0.0, rows = 0.0;
  std::map<Eigen::Index, std::map<Tag, double>> counts;                              // word → tag → occurrences
  std::map<std::pair<Eigen::Index, Eigen::Index>, std::map<Tag, double>> counts_at;  // (word, position) → tag → …
  std::vector<double> weight(2, 0.0), peak(2, 0.0), peak_not_first(2, 0.0);
  double even = 0.0;             // 1/n for a sentence of n words, on each of those rows
  double clue_first_rows = 0.0;  // rows of a word in second place, whose word before is the first word
  for (const Sentence& sentence : held_out) {
    const attention::TokenClassifierSteps steps = attention::token_classifier(*result.weights, sentence.words);
    for (Eigen::Index t = 0; t < static_cast<Eigen::Index>(sentence.words.size()); ++t) {
      const auto at = static_cast<std::size_t>(t);
      const bool correct = first_largest(steps.logits.row(t)) == static_cast<Eigen::Index>(sentence.tags[at]);
      right += correct ? 1.0 : 0.0;
      total += 1.0;
      counts[sentence.words[at]][sentence.tags[at]] += 1.0;
      counts_at[{sentence.words[at], t}][sentence.tags[at]] += 1.0;
      if (!ambiguous(word_at(sentence, t))) continue;
      right_ambiguous += correct ? 1.0 : 0.0;
      total_ambiguous += 1.0;
      rows += 1.0;  // from the ambiguous word to the word before it
      even += 1.0 / static_cast<double>(sentence.words.size());
      clue_first_rows += t == 1 ? 1.0 : 0.0;
      for (std::size_t h = 0; h < 2; ++h) {
        const attention::Matrix& w = steps.layers[0].attention.heads[h].attention.weights;
        weight[h] += w(t, t - 1);
        peak[h] += first_largest(w.row(t)) == t - 1 ? 1.0 : 0.0;
        if (t > 1) peak_not_first[h] += first_largest(w.row(t)) == t - 1 ? 1.0 : 0.0;
      }
    }
  }
  CHECK(result.accuracy == Approx(right / total).epsilon(1e-14));
  CHECK(result.ambiguous_count == static_cast<long long>(total_ambiguous));
  CHECK(result.ambiguous_accuracy == Approx(right_ambiguous / total_ambiguous).epsilon(1e-14));
  for (std::size_t h = 0; h < 2; ++h) {
    CHECK(result.heads[0][h].mean_weight == Approx(weight[h] / rows).epsilon(1e-13));
    CHECK(result.heads[0][h].peak_share == Approx(peak[h] / rows).epsilon(1e-13));
    CHECK(result.heads[0][h].peak_share_not_first ==
          Approx(peak_not_first[h] / (rows - clue_first_rows)).epsilon(1e-13));
  }
  CHECK(result.even_weight == Approx(even / rows).epsilon(1e-13));
  CHECK(result.first_word_share == Approx(clue_first_rows / rows).epsilon(1e-13));
  // A layer that reads one word at a time gives a word one tag: at best its commonest one.
  double best = 0.0, best_ambiguous = 0.0;
  for (const auto& [word, tags] : counts) {
    double most = 0.0;
    for (const auto& [tag, count] : tags) most = std::max(most, count);
    best += most;
    if (ambiguous(sentences::vocabulary()[static_cast<std::size_t>(word)])) best_ambiguous += most;
  }
  CHECK(result.one_word_ceiling == Approx(best / total).epsilon(1e-14));
  CHECK(result.one_word_ceiling_ambiguous == Approx(best_ambiguous / total_ambiguous).epsilon(1e-14));
  CHECK(result.one_word_ceiling < 1.0);  // some words take two tags in the held-out set
  // A layer that also reads the position gives a word at one position one tag: at best its commonest one there.
  double best_at = 0.0, best_at_ambiguous = 0.0;
  for (const auto& [word_at_position, tags] : counts_at) {
    double most = 0.0;
    for (const auto& [tag, count] : tags) most = std::max(most, count);
    best_at += most;
    if (ambiguous(sentences::vocabulary()[static_cast<std::size_t>(word_at_position.first)])) best_at_ambiguous += most;
  }
  CHECK(result.word_and_position_ceiling == Approx(best_at / total).epsilon(1e-14));
  CHECK(result.word_and_position_ceiling_ambiguous == Approx(best_at_ambiguous / total_ambiguous).epsilon(1e-14));
  // Knowing the position can only help: each word's commonest tag is one choice per position.
  CHECK(result.word_and_position_ceiling >= result.one_word_ceiling);
  CHECK(result.word_and_position_ceiling_ambiguous >= result.one_word_ceiling_ambiguous);
  // The reading of "I saw a saw": a softmax row per word, the answer its largest entry.
  const attention::TokenClassifierSteps reading = attention::token_classifier(*result.weights, words("I saw a saw"));
  REQUIRE(result.reading.probabilities.rows() == 4);
  for (Eigen::Index t = 0; t < 4; ++t) {
    CHECK(result.reading.probabilities.row(t).isApprox(softmax(reading.logits.row(t)), 1e-14));
    CHECK(result.reading.answers[static_cast<std::size_t>(t)] == first_largest(reading.logits.row(t)));
  }
  CHECK(result.reading.attention[0][1] == reading.layers[0].attention.heads[1].attention.weights);
}

TEST_CASE("agreement after a few steps: accuracy by attractors and distance against the nearest-noun rule", "[ch13]") {
  sentences::Inputs inputs = tiny(sentences::Task::agreement, 4);
  inputs.shape.layers = 2;
  const sentences::Result result = sentences::compute(inputs);
  const std::vector<Sentence> held_out = held_out_drawn(inputs);
  REQUIRE(result.held_out_sentences.size() == held_out.size());
  for (std::size_t s = 0; s < held_out.size(); ++s)
    CHECK(result.held_out_sentences[s] == sentences::text_of(held_out[s].words));
  struct Group {
    double count = 0.0, model = 0.0, nearest = 0.0;
  };
  std::map<std::string, Group> by_attractors, by_distance;
  double right = 0.0, one = 0.0;
  std::vector<std::vector<double>> weight(2, std::vector<double>(2, 0.0)), peak = weight;
  for (const Sentence& sentence : held_out) {
    const attention::TokenClassifierSteps steps = attention::token_classifier(*result.weights, sentence.words);
    const Eigen::Index slot = steps.logits.rows() - 1;
    const double correct =
        first_largest(steps.logits.row(slot)) == static_cast<Eigen::Index>(sentence.number) ? 1.0 : 0.0;
    const double nearest = sentence.nearest_number == sentence.number ? 1.0 : 0.0;
    right += correct;
    one += sentence.number == sentences::Number::one ? 1.0 : 0.0;
    const Eigen::Index a = sentence.attractors, d = slot - sentence.subject;
    const std::string attractor_label = a >= 3 ? "3+" : std::to_string(a);
    const std::string distance_label = d == 1    ? "1"
                                       : d <= 6  ? "2-6"
                                       : d <= 12 ? "7-12"
                                       : d <= 18 ? "13-18"
                                       : d <= 24 ? "19-24"
                                                 : "25+";
    for (Group* group : {&by_attractors[attractor_label], &by_distance[distance_label]}) {
      group->count += 1.0, group->model += correct, group->nearest += nearest;
    }
    for (std::size_t l = 0; l < 2; ++l) {
      for (std::size_t h = 0; h < 2; ++h) {
        const attention::Matrix& w = steps.layers[l].attention.heads[h].attention.weights;
        weight[l][h] += w(slot, sentence.subject) / static_cast<double>(held_out.size());
        peak[l][h] += first_largest(w.row(slot)) == sentence.subject ? 1.0 / static_cast<double>(held_out.size()) : 0.0;
      }
    }
  }
  const auto count = static_cast<double>(held_out.size());
  CHECK(result.accuracy == Approx(right / count).epsilon(1e-14));
  CHECK(result.one_word_agreement == Approx(std::max(one, count - one) / count).epsilon(1e-14));
  for (const auto& [groups, expected] :
       {std::pair{&result.by_attractors, &by_attractors}, std::pair{&result.by_distance, &by_distance}}) {
    CHECK(groups->size() == expected->size());  // only the groups some sentence falls in
    for (const sentences::AgreementGroup& group : *groups) {
      INFO(group.label);
      const Group& mine = (*expected)[group.label];
      CHECK(group.count == static_cast<long long>(mine.count));
      CHECK(group.model == Approx(mine.model / mine.count).epsilon(1e-14));
      CHECK(group.nearest_noun == Approx(mine.nearest / mine.count).epsilon(1e-14));
    }
  }
  for (std::size_t l = 0; l < 2; ++l) {
    for (std::size_t h = 0; h < 2; ++h) {
      CHECK(result.heads[l][h].mean_weight == Approx(weight[l][h]).epsilon(1e-13));
      CHECK(result.heads[l][h].peak_share == Approx(peak[l][h]).epsilon(1e-13));
      // The subject's noun is never the first word (its determiner is), so no row is left out.
      CHECK(result.heads[l][h].peak_share_not_first == result.heads[l][h].peak_share);
    }
  }
  CHECK(result.first_word_share == 0.0);
  // The reading of "the key to the cabinets" and the slot: one row of two probabilities, for the slot.
  Words key = words("the key to the cabinets");
  key.push_back(static_cast<Eigen::Index>(sentences::vocabulary().size()) - 1);
  const attention::TokenClassifierSteps reading = attention::token_classifier(*result.weights, key);
  REQUIRE(result.reading.probabilities.rows() == 1);
  CHECK(result.reading.probabilities.row(0).isApprox(softmax(reading.logits.row(5)), 1e-14));
  CHECK(result.reading.answers == std::vector<Eigen::Index>{first_largest(reading.logits.row(5))});
}

TEST_CASE("training draws again whenever it draws a held-out sentence", "[ch13]") {
  // Subjects without a phrase after the noun: a determiner (4 for one, 3 for many), no adjective or one of 5,
  // one of 14 nouns: 4 × 6 × 14 + 3 × 6 × 14 = 588 in all. Holding out 400 of them leaves training 188, so its
  // draws often land in the held-out set.
  sentences::Inputs inputs = tiny(sentences::Task::agreement, 6);
  inputs.modifiers = 0;
  inputs.held_out = 400;
  const sentences::Result result = sentences::compute(inputs);
  CHECK(result.held_out_count == 400);
  CHECK(result.training_drawn == 12);
  CHECK(result.held_out_redrawn > 0);
  const std::set<std::string> held_out(result.held_out_sentences.begin(), result.held_out_sentences.end());
  CHECK(held_out.size() == 400);
  for (const std::string& text : result.training_sentences) CHECK(held_out.count(text) == 0);
  // No phrase between subject and slot: no attractor, a distance of 1, and the nearest noun is the subject.
  REQUIRE(result.by_attractors.size() == 1);
  CHECK(result.by_attractors[0].label == "0");
  REQUIRE(result.by_distance.size() == 1);
  CHECK(result.by_distance[0].label == "1");
  CHECK(result.by_distance[0].nearest_noun == 1.0);
}

TEST_CASE("the model's learned numbers counted from its shapes", "[ch13]") {
  // Width d = 4, d_ff = 8, 2 heads of d/2; V words in, C outputs.
  const auto V = static_cast<long long>(sentences::vocabulary().size());
  const long long d = 4, d_ff = 8;
  const long long layer = 3 * d * d + d * d + 2 * 2 * d + d * d_ff + d_ff + d_ff * d + d;
  CHECK(sentences::compute(tiny(sentences::Task::tagging, 1)).parameters == V * d + layer + d * 7 + 7);
  sentences::Inputs recurrent = tiny(sentences::Task::agreement, 1);
  recurrent.model = sentences::Model::recurrent;
  recurrent.include_weights = false;
  // The recurrent classifier: the embedding, W and U of d × d, the read-out and its bias.
  CHECK(sentences::compute(recurrent).parameters == V * d + 2 * d * d + d * 2 + 2);
}

TEST_CASE("a recurrence reads left to right and attention reads the whole sentence", "[ch13]") {
  for (const sentences::Model model : {sentences::Model::recurrent, sentences::Model::attention}) {
    INFO(sentences::model_name(model));
    sentences::Inputs inputs = tiny(sentences::Task::tagging, 2);
    inputs.model = model;
    inputs.include_weights = false;
    const auto trained = sentences::train(inputs);
    inputs.sentence = "the dog sees the cat";
    const sentences::Result first = sentences::report(*trained, inputs);
    inputs.sentence = "the dog sees the cats";
    const sentences::Result second = sentences::report(*trained, inputs);
    const attention::Matrix& p = first.reading.probabilities;
    const attention::Matrix& q = second.reading.probabilities;
    REQUIRE(p.rows() == 5);
    CHECK((p.rowwise().sum().array() - 1.0).abs().maxCoeff() < 1e-14);
    CHECK(p.row(4) != q.row(4));
    for (Eigen::Index t = 0; t < 4; ++t) CHECK((p.row(t) == q.row(t)) == (model == sentences::Model::recurrent));
    CHECK(first.reading.attention.empty() == (model == sentences::Model::recurrent));
    CHECK(first.heads.empty() == (model == sentences::Model::recurrent));
  }
}

TEST_CASE("the same seed gives the same bits and a saved model restored reads the same", "[ch13]") {
  const auto without_time = [](nlohmann::json document) {
    document.erase("seconds");
    return document;
  };
  sentences::Inputs inputs = tiny(sentences::Task::agreement, 3);
  inputs.list_sentences = false;  // as the page asks: a restored model has no list of what training drew
  const auto trained = sentences::train(inputs);
  const nlohmann::json first = without_time(sentences::to_json(sentences::report(*trained, inputs)));
  CHECK(without_time(sentences::to_json(sentences::compute(inputs))) == first);
  CHECK(without_time(sentences::to_json(sentences::compute(tiny(sentences::Task::agreement, 3, 2)))) != first);
  const sentences::SavedModel saved = sentences::saved(*trained);
  CHECK(saved.key == sentences::model_key(inputs));
  const auto restored = sentences::restored(saved, inputs);
  CHECK(without_time(sentences::to_json(sentences::report(*restored, inputs))) == first);
  sentences::Inputs other = inputs;
  other.seed = 2;
  CHECK_THROWS_AS(sentences::restored(saved, other), std::invalid_argument);
  sentences::SavedModel short_of_one = saved;
  short_of_one.parameters.pop_back();
  CHECK_THROWS_AS(sentences::restored(short_of_one, inputs), std::invalid_argument);
}

TEST_CASE("each seed of the table is that seed trained alone", "[ch13]") {
  sentences::Inputs inputs = tiny(sentences::Task::agreement, 2);
  inputs.include_weights = false;
  inputs.list_sentences = false;
  inputs.seeds = {3, 1};
  const sentences::SeedsResult over = sentences::compute_over_seeds(inputs);
  REQUIRE(over.runs.size() == 2);
  for (std::size_t s = 0; s < 2; ++s) {
    sentences::Inputs one = inputs;
    one.seeds.clear();
    one.seed = inputs.seeds[s];
    const sentences::Result alone = sentences::compute(one);
    const sentences::SeedRun& run = over.runs[s];
    CHECK(run.seed == one.seed);
    CHECK(run.accuracy == alone.accuracy);
    CHECK(run.one_word_hard == alone.one_word_agreement);
    // Hard cases: the sentences with an attractor, every group but "0".
    double right = 0.0, count = 0.0, best = 0.0, best_not_first = 0.0;
    for (const sentences::AgreementGroup& group : alone.by_attractors) {
      if (group.label == "0") continue;
      right += group.model * static_cast<double>(group.count), count += static_cast<double>(group.count);
    }
    CHECK(run.hard_accuracy == Approx(right / count).epsilon(1e-14));
    for (const auto& layer : alone.heads) {
      for (const sentences::HeadMeasure& head : layer) {
        best = std::max(best, head.peak_share);
        best_not_first = std::max(best_not_first, head.peak_share_not_first);
      }
    }
    CHECK(run.best_peak_share == best);
    CHECK(run.best_peak_share_not_first == best_not_first);
  }
}

// A seeds result whose distance groups hold the given accuracies, one list per seed.
sentences::SeedsResult over_seeds(const std::vector<std::vector<std::pair<std::string, double>>>& seeds) {
  sentences::SeedsResult result;
  for (const auto& groups : seeds) {
    sentences::SeedRun run;
    for (const auto& [label, accuracy] : groups) run.by_distance.push_back({label, 10, accuracy, 0.5});
    result.runs.push_back(run);
  }
  return result;
}

TEST_CASE("the spread rule over seeds calls a model better at a distance only above the other's best seed", "[ch13]") {
  // Three seeds each; at "1" the bands overlap, at "2-6" attention's worst (0.95) is above the recurrent's best
  // (0.94), at "7-12" the recurrent's worst (0.9) is above attention's best (0.8), at "13+" they touch (0.9):
  // touching is not beating.
  const sentences::SeedsResult attention = over_seeds({{{"1", 0.9}, {"2-6", 0.95}, {"7-12", 0.7}, {"13+", 0.9}},
                                                       {{"1", 1.0}, {"2-6", 0.99}, {"7-12", 0.8}, {"13+", 0.95}},
                                                       {{"1", 0.95}, {"2-6", 0.97}, {"7-12", 0.75}, {"13+", 1.0}}});
  const sentences::SeedsResult recurrent = over_seeds({{{"1", 0.97}, {"2-6", 0.94}, {"7-12", 0.9}, {"13+", 0.9}},
                                                       {{"1", 0.85}, {"2-6", 0.5}, {"7-12", 0.95}, {"13+", 0.8}},
                                                       {{"1", 0.92}, {"2-6", 0.9}, {"7-12", 1.0}, {"13+", 0.85}}});
  const std::vector<sentences::DistanceSpread> spreads = sentences::distance_spreads(attention);
  REQUIRE(spreads.size() == 4);
  CHECK(spreads[0].label == "1");
  CHECK(spreads[0].accuracy.lowest == 0.9);
  CHECK(spreads[0].accuracy.median == 0.95);
  CHECK(spreads[0].accuracy.highest == 1.0);
  const std::vector<sentences::DistanceVerdict> verdicts =
      sentences::distance_verdicts(spreads, sentences::distance_spreads(recurrent));
  REQUIRE(verdicts.size() == 4);
  CHECK(verdicts[0].label == "1");
  CHECK(verdicts[0].better == "too close to call");
  CHECK(verdicts[1].better == "attention");
  CHECK(verdicts[2].better == "recurrent");
  CHECK(verdicts[3].better == "too close to call");
  // Each verdict keeps the two spreads it was decided on, for the table that shows them.
  CHECK(verdicts[1].attention_accuracy.lowest == 0.95);
  CHECK(verdicts[1].recurrent_accuracy.highest == 0.94);
  CHECK(sentences::verdict_summary(verdicts) ==
        "too close to call at 1 and 13+; the attention model better at 2-6; the recurrent model better at 7-12");
  CHECK(sentences::verdict_summary({verdicts[0], verdicts[3]}) == "too close to call at all 2 distances");
  // A seed without a group is left out of that group's spread, not counted as 0.
  const sentences::SeedsResult gap = over_seeds({{{"1", 0.9}, {"2-6", 0.95}}, {{"1", 0.8}}});
  CHECK(sentences::distance_spreads(gap)[1].accuracy.lowest == 0.95);
  // Groups that differ between the models cannot be compared.
  CHECK_THROWS_AS(sentences::distance_verdicts(spreads, sentences::distance_spreads(gap)), std::invalid_argument);
}

TEST_CASE("both models over seeds are each model over the same seeds", "[ch13]") {
  sentences::Inputs inputs = tiny(sentences::Task::agreement, 2);
  inputs.include_weights = false;
  inputs.list_sentences = false;
  inputs.seeds = {2, 1};
  inputs.both_models = true;
  const sentences::ModelsCompared both = sentences::compare_models(inputs);
  for (const auto model : {sentences::Model::attention, sentences::Model::recurrent}) {
    sentences::Inputs one = inputs;
    one.both_models = false;
    one.model = model;
    const sentences::SeedsResult alone = sentences::compute_over_seeds(one);
    const sentences::SeedsResult& part = model == sentences::Model::attention ? both.attention : both.recurrent;
    CHECK(part.inputs.model == model);
    REQUIRE(part.runs.size() == alone.runs.size());
    for (std::size_t s = 0; s < alone.runs.size(); ++s) {
      CHECK(part.runs[s].seed == alone.runs[s].seed);
      CHECK(part.runs[s].accuracy == alone.runs[s].accuracy);
      CHECK(part.runs[s].parameters == alone.runs[s].parameters);
    }
  }
  CHECK(both.by_distance.size() == sentences::distance_spreads(both.attention).size());
}

TEST_CASE("the flags fill in each task's defaults and refuse what cannot be trained", "[ch13]") {
  const sentences::Inputs tagging = read({});
  CHECK(tagging.task == sentences::Task::tagging);
  CHECK(tagging.model == sentences::Model::attention);
  CHECK(tagging.modifiers == 2);
  CHECK(tagging.held_out == 400);
  CHECK(tagging.sentence == "I saw a saw");
  CHECK(tagging.steps == 1500);
  CHECK(tagging.shape.d_model == 32);
  CHECK(tagging.shape.d_ff == 64);
  CHECK(tagging.shape.outputs == 7);  // the seven tags
  CHECK(tagging.shape.vocabulary == static_cast<Eigen::Index>(sentences::vocabulary().size()));
  CHECK(tagging.adam.learning_rate == 0.006);
  const sentences::Inputs agreement = read({"--task", "agreement"});
  CHECK(agreement.modifiers == 3);
  CHECK(agreement.held_out == 1000);
  CHECK(agreement.sentence == "the key to the cabinets");
  CHECK(agreement.shape.outputs == 2);  // one or many
  CHECK(read({"--modifiers", "8"}).modifiers == 8);
  CHECK(read({"--model", "recurrent"}).model == sentences::Model::recurrent);
  CHECK_THROWS_WITH(read({"--task", "nonsense"}),
                    Catch::StartsWith("--task: expected tagging or agreement, not 'nonsense'"));
  CHECK_THROWS_WITH(read({"--model", "nonsense"}), Catch::StartsWith("--model: expected attention or recurrent"));
  CHECK_THROWS_WITH(read({"--model", "recurrent", "--weights"}),
                    Catch::StartsWith("--weights: only with --model attention"));
  CHECK_THROWS_WITH(read({"--model", "recurrent", "--layers", "2"}),
                    Catch::StartsWith("--layers: only with --model attention"));
  CHECK_THROWS_WITH(read({"--task", "agreement", "--modifiers", "0"}), Catch::StartsWith("--modifiers is 0"));
  // Agreement asks for the verb after a subject: a whole sentence, or a phrase that is no subject, is refused.
  CHECK_THROWS_WITH(read({"--task", "agreement", "--sentence", "I saw a saw"}),
                    "--sentence: for agreement, a subject the program can add the verb's slot to, such as \"the key "
                    "to the cabinets\"; \"I saw a saw\" is not one");
  CHECK_THROWS_WITH(read({"--task", "agreement", "--sentence", "near the cabinet"}),
                    Catch::StartsWith("--sentence: for agreement, a subject"));
  CHECK(read({"--task", "agreement", "--sentence", "The cabinets that see the key"}).sentence ==
        "The cabinets that see the key");
  CHECK(read({"--sentence", "I saw a saw"}).sentence == "I saw a saw");  // tagging takes any words
  CHECK(read({"--modifiers", "0"}).modifiers == 0);  // tagging has pronoun subjects and predicates to vary
  CHECK_THROWS_WITH(read({"--modifiers", "11"}), Catch::StartsWith("--modifiers"));
  CHECK_THROWS_WITH(read({"--steps", "0"}), Catch::StartsWith("--steps"));
  CHECK_THROWS_WITH(read({"--layers", "5"}), Catch::StartsWith("--layers"));
  CHECK_THROWS_WITH(read({"--sentence", "the dogg sees it"}), Catch::StartsWith("--sentence: 'dogg'"));
  std::string forty_one = "the";
  for (int w = 1; w < 41; ++w) forty_one += " the";
  CHECK_THROWS_WITH(read({"--sentence", forty_one}), Catch::StartsWith("--sentence has 41 words; at most 40"));
  CHECK_THROWS_AS(read({"--seeds", "1,2", "--seed", "3"}), program::UsageError);
  CHECK_THROWS_AS(read({"--seeds", "1,,2"}), program::UsageError);
  CHECK(read({"--task", "agreement", "--seeds", "1,2", "--both-models"}).both_models);
  CHECK_THROWS_WITH(read({"--task", "agreement", "--both-models"}),
                    Catch::StartsWith("--both-models: only with --seeds"));
  CHECK_THROWS_WITH(read({"--seeds", "1", "--both-models"}),
                    Catch::StartsWith("--both-models: only with --task agreement"));
  CHECK_THROWS_WITH(read({"--task", "agreement", "--seeds", "1", "--both-models", "--model", "attention"}),
                    Catch::StartsWith("--both-models trains both"));
}

}  // namespace test_sentences
