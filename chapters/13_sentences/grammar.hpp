// Chapter 13's language: a small grammar of English-like sentences, stated in full, with words that are
// nouns in one place and verbs in another ("I saw a saw", "the fly flies"), and a subject whose number the
// verb must agree with across phrases that hold other nouns ("the key to the cabinets is").
//
// Every sentence is drawn from the grammar by a seeded generator, with the tag of every word and, for the
// agreement task, where its subject is and how many nouns of the other number stand between.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "attention/numpy_random.hpp"

namespace sentences {

/// The word classes the tagger gives, in the order of its outputs.
enum class Tag { determiner, adjective, noun, pronoun, verb, preposition, relative };
constexpr Eigen::Index tag_count = 7;
std::string tag_name(Tag tag);

/// Grammatical number: one thing, or many.
enum class Number { one, many };
std::string number_name(Number number);

/// The language's words, each once, in a fixed order; a word's number is its place in this list.
const std::vector<std::string>& vocabulary();
/// The word that stands where the agreement task's verb would be: the model predicts its number.
const std::string& verb_slot();
/// The words of the vocabulary the grammar makes both a noun and a verb.
const std::vector<std::string>& ambiguous_words();
/// The grammar as the book prints it: one rule per line.
const std::vector<std::string>& grammar_rules();
/// The words of each class, as the book prints them: (class, words separated by spaces).
const std::vector<std::pair<std::string, std::string>>& lexicon();

/// A sentence, its words as numbers, with what the tasks need to know of it.
struct Sentence {
  std::vector<Eigen::Index> words;  // places in vocabulary()
  std::vector<Tag> tags;            // one per word
  // For the agreement task (the words end with the verb slot):
  Eigen::Index subject = -1;            // the position of the subject's noun
  Number number = Number::one;          // the subject's number, which the verb must take
  Eigen::Index attractors = 0;          // nouns between the subject and the slot of the other number
  Eigen::Index nearest_noun = -1;       // the position of the last noun before the slot
  Number nearest_number = Number::one;  // … and its number
};

/// A whole sentence of the grammar (subject, then predicate), with up to @p modifiers phrases after the
/// subject's noun.
Sentence draw_sentence(attention::NumpyGenerator& generator, int modifiers = 2);

/// The agreement task's input: a subject noun phrase with 0 to @p modifiers prepositional phrases or
/// relative clauses, then the verb slot. A relative clause's verb is the past "saw", the same for one and for
/// many, so only the subject tells the number.
Sentence draw_agreement_prefix(attention::NumpyGenerator& generator, int modifiers = 3);

/// True when @p words are a whole sentence of the grammar with at most @p modifiers phrases after the subject's
/// noun: the check of chapter 14's generated sentences. The parser tries every reading, so a word that is both a
/// noun and a verb is accepted wherever either fits.
bool is_sentence(const std::vector<Eigen::Index>& words, int modifiers = 2);

/// The probability that draw_sentence(generator, @p modifiers) writes exactly @p words: the sum, over every way
/// the grammar can write them (a word that is both a noun and a verb, "saw" as a present or a past verb), of the
/// product of the chances of the generator's choices. 0 for words that are not a sentence.
double sentence_probability(const std::vector<Eigen::Index>& words, int modifiers = 2);

/// Where words stop being a sentence of the grammar, and what a sentence could have there instead.
struct Refusal {
  std::size_t at = 0;  ///< the first word that no sentence has after the words before it (words.size(): they stop
                       ///< too soon)
  std::vector<std::string> expected;  ///< what some sentence has there: word classes ("noun(one)"), any word that
                                      ///< fits outside them, and "." for the end
};
/// Why @p words are not a whole sentence with at most @p modifiers phrases after the subject's noun; std::nullopt
/// for a sentence.
std::optional<Refusal> refusal(const std::vector<Eigen::Index>& words, int modifiers = 2);

/// The words of @p text (separated by spaces, any case), as places in vocabulary().
/// @throws program::UsageError naming @p flag and the first word outside the vocabulary
std::vector<Eigen::Index> words_of(const std::string& text, const std::string& flag);

/// The words as text, separated by spaces.
std::string text_of(const std::vector<Eigen::Index>& words);

}  // namespace sentences
