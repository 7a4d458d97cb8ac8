// Chapter 14's computation, tested in-process: generating::generate() reread by
// the whole causal forward pass (each word's probabilities, its draw with NumPy's
// uniform by the definition of a draw, where it looked, the cache's count); the
// cache against recomputing; greedy decoding and the end of a sentence; a short
// training run: deterministic, its loss going down, its counts against the
// shape; its grammatical and novel shares recounted with chapter 13's parser
// and the training sentences drawn again; a saved model restored; the seeds'
// table against single runs; the benchmark's multiply-adds counted from the
// shape; and the flags' refusals.
// Every expected value has a reason of its own, not the program's output.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "../13_sentences/grammar.hpp"  // chapter 13's language, linked with the computation
#include "attention/grouped_query.hpp"
#include "attention/numpy_random.hpp"
#include "attention/token_classifier.hpp"
#include "chapter_support.hpp"
#include "generating.hpp"
#include "program/usage_error.hpp"

// The file's own namespace: several chapters' tests are compiled as one translation
// unit (tests/CMakeLists.txt), whose anonymous namespace they would otherwise share.
namespace test_generating {

namespace {

using attention::Matrix;
using attention::Vector;

// The book's model: 1 layer of h = 4 heads, d_model = 32, d_k = 8.
constexpr long long d_model = 32, heads = 4, d_k = 8, d_ff = 64, layers = 1;

long long vocabulary() { return static_cast<long long>(generating::tokens().size()); }

// An untrained decoder of the book's shape, its keys and values shared by h_kv groups.
attention::TokenClassifierWeights untrained(std::uint64_t seed, Eigen::Index key_value_heads) {
  attention::NumpyGenerator generator(seed);
  attention::TokenClassifierWeights weights =
      attention::initial_token_classifier(generating::Inputs::default_shape(), generator);
  attention::share_key_value_heads(weights.layers, key_value_heads);
  return weights;
}

// The start "." and then the words of @p text.
std::vector<Eigen::Index> prompt_of(const std::string& text) {
  std::vector<Eigen::Index> prompt{generating::end_token()};
  for (const Eigen::Index word : sentences::words_of(text, "--prompt")) prompt.push_back(word);
  return prompt;
}

// softmax of one vector from its definition, e^x / Σ e^x (a score of −∞ gets 0: std::exp, entry by entry, where
// Eigen's vectorised exp would give the smallest double instead).
Vector softmax(const Vector& scores) {
  Vector e(scores.size());
  for (Eigen::Index i = 0; i < scores.size(); ++i) e(i) = std::exp(scores(i) - scores.maxCoeff());
  return e / e.sum();
}

// softmax(logits / T) over the k highest (the earlier word first among equal ones), 0 elsewhere.
Vector drawing_probabilities(const Vector& logits, double temperature, Eigen::Index top_k) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(logits.size()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return logits(a) > logits(b); });
  Vector scaled = Vector::Constant(logits.size(), -std::numeric_limits<double>::infinity());
  for (Eigen::Index i = 0; i < (top_k == 0 ? logits.size() : top_k); ++i) {
    scaled(order[static_cast<std::size_t>(i)]) = logits(order[static_cast<std::size_t>(i)]) / temperature;
  }
  return softmax(scaled);
}

// The model's parameters: the embedding (V × d), per layer W^Q of every head and W^K, W^V of every group
// (d × d_k each), W^O, two LayerNorms, W₁, b₁, W₂, b₂; the read-out and its bias.
long long parameters_of_the_shape(long long key_value_heads) {
  const long long layer = (heads + 2 * key_value_heads) * d_model * d_k + d_model * d_model + 4 * d_model +
                          d_model * d_ff + d_ff + d_ff * d_model + d_model;
  return vocabulary() * d_model + layers * layer + d_model * vocabulary() + vocabulary();
}

// A short training: few steps, a small held-out set, few judged sentences.
generating::Inputs short_run(long long steps) {
  generating::Inputs inputs;
  inputs.training_steps = steps;
  inputs.held_out = 20;
  inputs.judged = 6;
  inputs.judged_words = 12;
  inputs.steps = 6;
  inputs.include_weights = true;
  return inputs;
}

generating::Inputs read(const std::vector<std::string>& arguments) {
  return chapter_support::read_flags<generating::Flags>("generating", "chapter 14", arguments);
}

// Checks every word of @p generation against the causal forward pass over the words it read.
void check_against_the_whole_pass(const attention::TokenClassifierWeights& weights, Eigen::Index key_value_heads,
                                  const generating::Generation& generation, const attention::SamplingSettings& sampling,
                                  std::uint64_t seed, bool cached = true) {
  std::vector<Eigen::Index> read = generation.prompt;
  for (const generating::GeneratedWord& word : generation.words) read.push_back(word.word);
  // Row t of the causal pass reads words 0 … t alone: the scores of the word after t.
  const attention::TokenClassifierSteps whole =
      attention::token_classifier(weights, read, attention::Visibility::causal);
  attention::NumpyGenerator uniform(seed);
  for (std::size_t s = 0; s < generation.words.size(); ++s) {
    const generating::GeneratedWord& word = generation.words[s];
    const auto t = static_cast<Eigen::Index>(generation.prompt.size() + s - 1);
    const Vector logits = whole.logits.row(t).transpose();
    const Vector model = softmax(logits);
    CHECK(word.probability == Approx(model(word.word)).margin(1e-12));
    if (sampling.temperature == 0.0) {
      Eigen::Index best = 0;
      logits.maxCoeff(&best);
      CHECK(word.word == best);
      CHECK(word.drawn_with == 1.0);
      CHECK_FALSE(word.u.has_value());  // nothing drawn
    } else {
      // A draw: the first word at which the running sum of the probabilities exceeds u, NumPy's rng.random().
      const Vector chances = drawing_probabilities(logits, sampling.temperature, sampling.top_k);
      const double u = uniform.next_double();
      double running = 0.0;
      Eigen::Index drawn = 0;
      while (drawn + 1 < chances.size() && !(u < (running += chances(drawn)))) ++drawn;
      CHECK(word.word == drawn);
      CHECK(word.drawn_with == Approx(chances(word.word)).margin(1e-12));
      // The u that drew it, and the word's stretch of the line: u falls inside it.
      REQUIRE(word.u.has_value());
      CHECK(*word.u == u);
      CHECK(word.stretch_from == Approx(chances.head(word.word).sum()).margin(1e-12));
      CHECK(word.stretch_from <= u);
      CHECK(u < word.stretch_from + word.drawn_with);
      if (sampling.top_k > 0) CHECK((chances.array() > 0.0).count() == sampling.top_k);
      // The line: every word the draw could take, in the vocabulary's order, and what the model gives them.
      std::size_t on_line = 0;
      double model_total = 0.0;
      for (Eigen::Index candidate = 0; candidate < chances.size(); ++candidate) {
        if (chances(candidate) == 0.0) continue;
        REQUIRE(on_line < word.line.size());
        CHECK(word.line[on_line].word == candidate);
        CHECK(word.line[on_line].from == Approx(chances.head(candidate).sum()).margin(1e-12));
        CHECK(word.line[on_line].to - word.line[on_line].from == Approx(chances(candidate)).margin(1e-12));
        model_total += model(candidate);
        ++on_line;
      }
      CHECK(on_line == word.line.size());
      CHECK(word.line_model_probability == Approx(model_total).margin(1e-12));
    }
    // The three likeliest words, likeliest first.
    REQUIRE(word.top.size() == 3);
    for (std::size_t r = 0; r < 3; ++r) {
      CHECK(word.top[r].second == Approx(model(word.top[r].first)).margin(1e-12));
      if (r > 0) CHECK(word.top[r].second <= word.top[r - 1].second);
    }
    for (Eigen::Index w = 0; w < model.size(); ++w) {
      const bool listed =
          std::any_of(word.top.begin(), word.top.end(), [w](const auto& top) { return top.first == w; });
      if (!listed) CHECK(model(w) <= word.top[2].second + 1e-12);
    }
    // Where each head of position t looked: row t of its weights, over positions 0 … t.
    REQUIRE(word.attention.size() == 1);
    REQUIRE(word.attention[0].size() == static_cast<std::size_t>(heads));
    for (Eigen::Index h = 0; h < heads; ++h) {
      const std::vector<double>& looked = word.attention[0][static_cast<std::size_t>(h)];
      REQUIRE(looked.size() == static_cast<std::size_t>(t + 1));
      for (Eigen::Index j = 0; j <= t; ++j) {
        CHECK(
            looked[static_cast<std::size_t>(j)] ==
            Approx(whole.layers[0].attention.heads[static_cast<std::size_t>(h)].attention.weights(t, j)).margin(1e-12));
      }
    }
    // The cache holds a key and a value of d_k numbers per position read, group and layer: the start, the prompt,
    // the words before, and this one unless it is the end.
    const long long positions =
        static_cast<long long>(generation.prompt.size() + s) + (word.word == generating::end_token() ? 0 : 1);
    CHECK(word.cache_numbers == (cached ? 2 * layers * positions * key_value_heads * d_k : 0));
  }
}

}  // namespace

TEST_CASE("the tokens are chapter 13's words and the end written as a full stop", "[ch14]") {
  const std::vector<std::string>& vocabulary = sentences::vocabulary();
  REQUIRE(generating::tokens().size() == vocabulary.size());
  CHECK(generating::tokens().back() == ".");
  CHECK(generating::end_token() == static_cast<Eigen::Index>(vocabulary.size()) - 1);
  CHECK(std::equal(vocabulary.begin(), vocabulary.end() - 1, generating::tokens().begin()));
  const std::vector<Eigen::Index> words = sentences::words_of("the dog", "--prompt");
  CHECK(generating::text_of({words[0], words[1], generating::end_token()}) == "the dog .");
}

TEST_CASE("each drawn word is reread from the whole causal pass over the words before it", "[ch14]") {
  for (const Eigen::Index groups : {Eigen::Index{4}, Eigen::Index{2}, Eigen::Index{1}}) {
    const attention::TokenClassifierWeights weights = untrained(41, groups);
    const attention::SamplingSettings sampling{1.0, groups == 2 ? Eigen::Index{5} : Eigen::Index{0}};
    const generating::Generation generation =
        generating::generate(weights, groups, prompt_of("the dog"), 8, sampling, 3, true, 2);
    INFO("h_kv = " << groups);
    REQUIRE_FALSE(generation.words.empty());
    CHECK(generation.prompt == prompt_of("the dog"));
    check_against_the_whole_pass(weights, groups, generation, sampling, 3);
  }
}

TEST_CASE("recomputing the prefix at every step writes the cached words and probabilities", "[ch14]") {
  const attention::TokenClassifierWeights weights = untrained(42, 2);
  const attention::SamplingSettings sampling{0.8, 0};
  const generating::Generation cached = generating::generate(weights, 2, prompt_of("the"), 10, sampling, 7, true, 2);
  const generating::Generation recomputed =
      generating::generate(weights, 2, prompt_of("the"), 10, sampling, 7, false, 2);
  REQUIRE(cached.words.size() == recomputed.words.size());
  for (std::size_t s = 0; s < cached.words.size(); ++s) {
    CHECK(cached.words[s].word == recomputed.words[s].word);
    CHECK(cached.words[s].probability == Approx(recomputed.words[s].probability).margin(1e-12));
    CHECK(cached.words[s].drawn_with == Approx(recomputed.words[s].drawn_with).margin(1e-12));
  }
  CHECK(cached.sentence == recomputed.sentence);
  check_against_the_whole_pass(weights, 2, cached, sampling, 7);
  check_against_the_whole_pass(weights, 2, recomputed, sampling, 7, false);
}

TEST_CASE("greedy decoding takes the highest score and draws nothing whatever the seed", "[ch14]") {
  const attention::TokenClassifierWeights weights = untrained(43, 4);
  const attention::SamplingSettings greedy{0.0, 0};
  const generating::Generation one = generating::generate(weights, 4, prompt_of("the cat"), 6, greedy, 1, true, 2);
  const generating::Generation other = generating::generate(weights, 4, prompt_of("the cat"), 6, greedy, 99, true, 2);
  check_against_the_whole_pass(weights, 4, one, greedy, 1);
  REQUIRE(one.words.size() == other.words.size());
  for (std::size_t s = 0; s < one.words.size(); ++s) CHECK(one.words[s].word == other.words[s].word);
  // The sentence is the prompt without its start and the words without the end.
  std::vector<Eigen::Index> sentence = sentences::words_of("the cat", "--prompt");
  for (const generating::GeneratedWord& word : one.words) {
    if (word.word != generating::end_token()) sentence.push_back(word.word);
  }
  CHECK(one.sentence == sentence);
}

TEST_CASE("decoding stops at the end and the grammar judges the whole sentence", "[ch14]") {
  // A read-out that ignores the words and scores one word far above the others: greedy writes it every time.
  attention::TokenClassifierWeights weights = untrained(44, 4);
  weights.readout.setZero();
  const auto forced = [&weights](Eigen::Index word) {
    weights.readout_bias.setZero();
    weights.readout_bias(word) = 10.0;
  };
  attention::NumpyGenerator grammar(5);
  const std::vector<Eigen::Index> sentence = sentences::draw_sentence(grammar, 2).words;  // one of the grammar
  std::vector<Eigen::Index> prompt{generating::end_token()};
  prompt.insert(prompt.end(), sentence.begin(), sentence.end());
  forced(generating::end_token());
  const generating::Generation ended = generating::generate(weights, 4, prompt, 5, {0.0, 0}, 1, true, 2);
  REQUIRE(ended.words.size() == 1);
  CHECK(ended.words[0].word == generating::end_token());
  CHECK(ended.ended);
  CHECK(ended.sentence == sentence);
  CHECK(ended.grammatical);
  // A subject with no predicate: ended, but no sentence.
  const generating::Generation subject =
      generating::generate(weights, 4, prompt_of("the dog"), 5, {0.0, 0}, 1, true, 2);
  CHECK(subject.ended);
  CHECK_FALSE(subject.grammatical);
  // A word other than the end: it never ends, and a sentence that does not end is not one.
  forced(sentence[0]);
  const generating::Generation endless = generating::generate(weights, 4, prompt, 5, {0.0, 0}, 1, true, 2);
  CHECK(endless.words.size() == 5);
  CHECK_FALSE(endless.ended);
  CHECK_FALSE(endless.grammatical);
  // e^10 / (e^10 + V − 1): the probability softmax gives the forced word.
  const double forced_probability = std::exp(10.0) / (std::exp(10.0) + static_cast<double>(vocabulary() - 1));
  CHECK(endless.words[0].probability == Approx(forced_probability).epsilon(1e-12));
  // Chapter 14: "A sentence the steps cut short is printed with (not finished), and the grammar is not asked".
  generating::Result result;
  result.generation = endless;
  const std::string printed = generating::tables(result);
  CHECK_THAT(printed, Catch::Contains("(not finished)"));
  CHECK_THAT(printed, !Catch::Contains("(the grammar accepts it)") && !Catch::Contains("(not a sentence of the"));
}

TEST_CASE("the training table prints every fourth logged loss and the last", "[ch14]") {
  // Chapter 14: "the output prints every fourth log, and the last". Fifteen logs, every 100 steps, each loss its
  // index: the table shows the 4th, 8th and 12th (steps 400, 800, 1200) and the 15th (1500), and no other.
  generating::Result result;
  result.generation.prompt = {generating::end_token()};  // every prompt starts with the end, as generate() writes it
  for (long long i = 0; i < 15; ++i) {
    result.logged_steps.push_back(100 * (i + 1));
    result.loss.push_back(static_cast<double>(i));
  }
  const std::string printed = generating::tables(result);
  const std::string table = printed.substr(printed.find("loss per word\n"));
  for (long long step = 100; step <= 1500; step += 100) {
    const bool shown = step % 400 == 0 || step == 1500;
    const std::string row = fmt::format("{:>7}  {:>8.4f}\n", step, static_cast<double>(step / 100 - 1));
    INFO("step " << step);
    CHECK((table.find(row) != std::string::npos) == shown);
  }
}

// The chapter's fold: "Training draws its own sentences and draws again whenever it draws a held-out one." So
// with a sentence held out, training reads the grammar's own stream of draws with that sentence taken out, and
// nothing else changed: the same sentences, in the same order.
TEST_CASE("training draws again whenever the grammar draws a held-out sentence", "[ch14]") {
  constexpr int modifiers = 2;
  constexpr int draws = 3000;
  generating::Drawing nothing_held_out(7);
  std::vector<std::vector<Eigen::Index>> stream;
  std::map<std::vector<Eigen::Index>, int> counts;
  for (int i = 0; i < draws; ++i) {
    stream.push_back(generating::next_training_sentence(modifiers, nothing_held_out));
    ++counts[stream.back()];
  }
  const auto commonest =
      std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  REQUIRE(commonest->second >= 10);  // the grammar writes its shortest sentences often: one to hold out
  REQUIRE(commonest->first.front() == generating::end_token());  // as the model reads it, "." first

  generating::Drawing one_held_out(7);
  one_held_out.held_out.insert(commonest->first);
  std::vector<std::vector<Eigen::Index>> expected;
  std::copy_if(stream.begin(), stream.end(), std::back_inserter(expected),
               [&](const auto& words) { return words != commonest->first; });
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("training sentence " << i);
    REQUIRE(generating::next_training_sentence(modifiers, one_held_out) == expected[i]);
  }
}

TEST_CASE("a short training is the same twice and lowers the held-out loss", "[ch14]") {
  const generating::Result a = generating::compute(short_run(20));
  const generating::Result b = generating::compute(short_run(20));
  CHECK(a.loss == b.loss);
  CHECK(a.quality.held_out_loss == b.quality.held_out_loss);
  CHECK(a.generation.sentence == b.generation.sentence);
  REQUIRE(a.weights.has_value());
  REQUIRE(b.weights.has_value());
  CHECK(a.weights->embedding == b.weights->embedding);
  // Logged at every 100th step and the last.
  CHECK(a.logged_steps == std::vector<long long>{20});
  const generating::Result first = generating::compute(short_run(1));
  CHECK(a.quality.held_out_loss < first.quality.held_out_loss);
  CHECK(a.loss.back() < first.loss.back());
  // The best loss with the same odds at every position is an entropy over V words: above 0, at most ln V.
  CHECK(a.quality.no_context_loss > 0.0);
  CHECK(a.quality.no_context_loss <= std::log(static_cast<double>(vocabulary())));
  CHECK(a.quality.no_context_loss == first.quality.no_context_loss);  // the same held-out sentences
  // The grammar's own loss: the first 20 different sentences the model's seed draws, each word and the end "."
  // scored by the grammar, so −ln of each sentence's probability over its words and the end.
  attention::NumpyGenerator grammar(a.inputs.model_seed);
  std::set<std::vector<Eigen::Index>> held_out;
  double surprise = 0.0;
  long long predicted = 0;
  std::map<Eigen::Index, long long> counts;  // each predicted token: the words, and the end "." as -1
  while (held_out.size() < 20) {
    const std::vector<Eigen::Index> sentence = sentences::draw_sentence(grammar, 2).words;
    if (!held_out.insert(sentence).second) continue;
    surprise -= std::log(sentences::sentence_probability(sentence, 2));
    predicted += static_cast<long long>(sentence.size()) + 1;
    for (const Eigen::Index word : sentence) ++counts[word];
    ++counts[-1];
  }
  CHECK(predicted == a.quality.held_out_words);
  CHECK(a.quality.grammar_loss == Approx(surprise / static_cast<double>(predicted)).epsilon(1e-12));
  // With the same odds at every position, the lowest mean loss is that of each token's own frequency on these
  // sentences (Gibbs' inequality, the chapter's fold): their entropy.
  double frequency_entropy = 0.0;
  for (const auto& [token, count] : counts) {
    const double share = static_cast<double>(count) / static_cast<double>(predicted);
    frequency_entropy -= share * std::log(share);
  }
  CHECK(a.quality.no_context_loss == Approx(frequency_entropy).epsilon(1e-12));
  CHECK(a.quality.grammar_loss == first.quality.grammar_loss);
  // Shares of six judged sentences; the novel ones are among the grammatical.
  for (const double share : {a.quality.grammatical, a.quality.novel}) {
    CHECK(share * 6 == Approx(std::round(share * 6)).margin(1e-12));
  }
  CHECK(a.quality.novel <= a.quality.grammatical);
  CHECK(a.quality.examples.size() == 6);
  // Every judged sentence is kept, in the order drawn: the examples are the first of them.
  REQUIRE(a.quality.judged_sentences.size() == 6);
  for (std::size_t e = 0; e < a.quality.examples.size(); ++e)
    CHECK(a.quality.judged_sentences[e] == a.quality.examples[e].text);
  CHECK(a.parameters == parameters_of_the_shape(4));
  // The reader's sentence, greedy, reread from the trained weights; the cache agreed with the whole pass.
  check_against_the_whole_pass(*a.weights, 4, a.generation, {0.0, 0}, 1);
  CHECK(a.generation.largest_difference < 1e-12);
}

// The chapter: the grammatical share is of the judged sentences the grammar accepts, and the novel share of those
// that are grammatical and were never a training sentence. Both recounted here from the judged sentences' words,
// with chapter 13's parser and the training sentences drawn again: the seed's held-out sentences first (their
// draws are held to the grammar's loss above), then steps × batch training draws (next_training_sentence, tested
// above). The program counts a sentence grammatical only if it ended with "." within judged_words; the parser here
// sees only the words. They agree when judged_words is longer than the grammar's longest sentence, 21 words with
// two phrases after a subject's noun (3 + 2 × 5 for the subject, 8 for the predicate): 40 unended words never parse.
TEST_CASE("a judged sentence is novel when the grammar accepts it and training never read it", "[ch14]") {
  generating::Inputs inputs = short_run(200);
  inputs.judged = 200;
  inputs.judged_words = 40;
  REQUIRE(inputs.modifiers == 2);
  const generating::Result result = generating::compute(inputs);
  generating::Drawing drawing(inputs.model_seed);
  REQUIRE(generating::draw_held_out(inputs, drawing).size() == static_cast<std::size_t>(inputs.held_out));
  std::set<std::vector<Eigen::Index>> training;
  for (long long draw = 0; draw < inputs.training_steps * inputs.batch; ++draw) {
    training.insert(generating::next_training_sentence(inputs.modifiers, drawing));
  }
  REQUIRE(result.quality.judged_sentences.size() == static_cast<std::size_t>(inputs.judged));
  long long grammatical = 0, novel = 0;
  for (const std::string& text : result.quality.judged_sentences) {
    if (text.empty()) continue;  // "." first: no sentence
    const std::vector<Eigen::Index> words = sentences::words_of(text, "a judged sentence");
    if (!sentences::is_sentence(words, inputs.modifiers)) continue;
    ++grammatical;
    std::vector<Eigen::Index> as_read{generating::end_token()};
    as_read.insert(as_read.end(), words.begin(), words.end());
    if (training.count(as_read) == 0) ++novel;
  }
  const auto judged = static_cast<double>(inputs.judged);
  CHECK(result.quality.grammatical * judged == Approx(static_cast<double>(grammatical)).margin(1e-9));
  CHECK(result.quality.novel * judged == Approx(static_cast<double>(novel)).margin(1e-9));
  // After 200 steps here 84 of the 200 parse, and 29 of those were read in training: both sides of the rule are
  // exercised, with room for another machine's rounding.
  CHECK(novel > 0);
  CHECK(grammatical > novel);
}

TEST_CASE("a saved model restored decodes as the model trained", "[ch14]") {
  generating::Inputs inputs = short_run(5);
  inputs.key_value_heads = 2;
  inputs.prompt = sentences::words_of("the dogs", "--prompt");
  inputs.sampling = {1.0, 0};
  const auto trained = generating::train(inputs);
  const generating::SavedModel model = generating::saved(*trained);
  CHECK(model.parameters.size() == static_cast<std::size_t>(parameters_of_the_shape(2)));
  const generating::Result original = generating::report(*trained, inputs);
  const generating::Result again = generating::report(*generating::restored(model, inputs), inputs);
  CHECK(again.weights->embedding == original.weights->embedding);
  CHECK(again.weights->layers[0].attention.heads[3].key == original.weights->layers[0].attention.heads[3].key);
  CHECK(again.quality.held_out_loss == original.quality.held_out_loss);
  REQUIRE(again.quality.examples.size() == original.quality.examples.size());
  for (std::size_t e = 0; e < again.quality.examples.size(); ++e) {
    const generating::Example &restored = again.quality.examples[e], &shown = original.quality.examples[e];
    CHECK((restored.text == shown.text && restored.grammatical == shown.grammatical));
    REQUIRE(restored.refusal.has_value() == !shown.grammatical);
    if (restored.refusal)
      CHECK((restored.refusal->at == shown.refusal->at && restored.refusal->expected == shown.refusal->expected));
  }
  CHECK(again.quality.judged_sentences == original.quality.judged_sentences);  // kept with the weights
  CHECK(again.quality.judged_sentences.size() == 6);
  REQUIRE(again.generation.words.size() == original.generation.words.size());
  for (std::size_t s = 0; s < again.generation.words.size(); ++s) {
    CHECK(again.generation.words[s].word == original.generation.words[s].word);
    CHECK(again.generation.words[s].probability == original.generation.words[s].probability);
  }
  // The keys and values shared by a group stay one after the training's updates: the cache, which keeps each
  // group's first head's, reads what the whole pass reads with every head's own.
  check_against_the_whole_pass(*again.weights, 2, again.generation, inputs.sampling, inputs.seed);
  CHECK(again.generation.largest_difference < 1e-12);
  generating::Inputs other = inputs;
  other.model_seed = 2;
  CHECK_THROWS_AS(generating::restored(model, other), std::invalid_argument);
  generating::SavedModel short_of_one = model;
  short_of_one.parameters.pop_back();
  CHECK_THROWS_AS(generating::restored(short_of_one, inputs), std::invalid_argument);
}

TEST_CASE("the seeds' table is each seed and h_kv trained alone", "[ch14]") {
  generating::Inputs inputs = short_run(3);
  inputs.include_weights = false;
  inputs.seeds = {1, 2};
  inputs.key_value_heads_list = {4, 1};
  const generating::SeedsResult seeds = generating::compute_over_seeds(inputs);
  REQUIRE(seeds.runs.size() == 4);
  const std::vector<std::pair<Eigen::Index, std::uint64_t>> order{{4, 1}, {4, 2}, {1, 1}, {1, 2}};
  for (std::size_t r = 0; r < 4; ++r) {
    const generating::SeedRun& run = seeds.runs[r];
    CHECK(std::make_pair(run.key_value_heads, run.seed) == order[r]);
    CHECK(run.parameters == parameters_of_the_shape(run.key_value_heads));
    CHECK(run.cache_numbers == 2 * layers * run.key_value_heads * d_k);
  }
  // h − h_kv heads lose their own W^K and W^V; the cache shrinks h / h_kv times.
  CHECK(seeds.runs[0].parameters - seeds.runs[2].parameters == 2 * layers * (heads - 1) * d_model * d_k);
  CHECK(seeds.runs[0].cache_numbers == heads * seeds.runs[2].cache_numbers);
  // "within a seed the three share the same sentences": the held-out sentences' size and the losses that depend on
  // them alone, not on the model, are the same for h_kv = 4 and 1 of one seed (and differ between the seeds).
  for (std::size_t s = 0; s < 2; ++s) {
    const generating::Quality &four = seeds.runs[s].quality, &one = seeds.runs[2 + s].quality;
    CHECK(four.held_out_words == one.held_out_words);
    CHECK(four.no_context_loss == one.no_context_loss);
    CHECK(four.grammar_loss == one.grammar_loss);
  }
  CHECK(seeds.runs[0].quality.grammar_loss != seeds.runs[1].quality.grammar_loss);
  generating::Inputs alone = inputs;
  alone.model_seed = 2;
  alone.key_value_heads = 1;
  const generating::Result single = generating::compute(alone);
  CHECK(single.quality.held_out_loss == seeds.runs[3].quality.held_out_loss);
  CHECK(single.quality.grammatical == seeds.runs[3].quality.grammatical);
}

TEST_CASE("the seeds' verdicts name the groupings in words, as the page prints them", "[ch14]") {
  // Two seeds for each grouping, with held-out losses and grammatical shares set by hand: no training.
  const auto seeds_result = [](const std::vector<std::pair<Eigen::Index, std::vector<double>>>& losses) {
    generating::SeedsResult result;
    result.inputs.seeds = {1, 2};
    for (const auto& [groups, by_seed] : losses) {
      result.inputs.key_value_heads_list.push_back(groups);
      for (std::size_t s = 0; s < by_seed.size(); ++s) {
        generating::SeedRun run;
        run.seed = s + 1;
        run.key_value_heads = groups;
        run.quality.held_out_loss = by_seed[s];
        run.quality.grammatical = 0.8 + 0.01 * static_cast<double>(s);
        result.runs.push_back(run);
      }
    }
    return generating::to_json(result);
  };
  const nlohmann::json overlapping = seeds_result({{4, {2.38, 2.40}}, {2, {2.39, 2.41}}, {1, {2.37, 2.42}}});
  CHECK(overlapping["verdict"] ==
        "too close to call: the losses with 2 key/value heads and with 1 each overlap those with 4");
  CHECK(overlapping["grammatical_verdict"] ==
        "too close to call: the grammatical shares with 2 key/value heads and with 1 each overlap those with 4");
  CHECK(seeds_result({{4, {2.38, 2.40}}, {1, {2.39, 2.41}}})["verdict"] ==
        "too close to call: the losses with 1 key/value head overlap those with 4");
  CHECK(seeds_result({{4, {2.38, 2.40}}, {2, {2.39, 2.41}}, {1, {2.50, 2.51}}})["verdict"] ==
        "with 1 key/value head every seed's loss lies above every seed's loss with 4");
  CHECK(seeds_result({{4, {2.38, 2.40}}, {2, {2.30, 2.31}}})["verdict"] ==
        "with 2 key/value heads every seed's loss lies below every seed's loss with 4");
  CHECK(seeds_result({{4, {2.38, 2.40}}})["verdict"] == "only 4 key/value heads were trained");
  CHECK(seeds_result({{1, {2.38, 2.40}}})["verdict"] == "only 1 key/value head was trained");
}

TEST_CASE("the benchmark counts the multiply-adds of both ways from the shape", "[ch14]") {
  generating::BenchmarkInputs inputs;
  inputs.lengths = {1, 3};
  inputs.reps = 1;
  inputs.key_value_heads = 2;
  const generating::BenchmarkResult result = generating::benchmark(inputs);
  REQUIRE(result.lengths.size() == 2);
  const double kv = 2.0, h = heads, d = d_model, k = d_k, f = d_ff, v = static_cast<double>(vocabulary());
  for (const generating::BenchmarkLength& length : result.lengths) {
    // With the cache, step t makes one position's queries (h heads), keys and values (h_kv groups), t + 1 scores
    // and weighted values per head, W^O, the feed-forward network and the read-out. Recomputing makes all of it
    // for each of the t + 1 positions (keys and values for every head), and (t + 1)² scores and weighted values
    // per head.
    double cached = 0.0, recomputed = 0.0;
    for (Eigen::Index t = 0; t < length.n; ++t) {
      const double n = static_cast<double>(t) + 1.0;
      cached += h * d * k + 2 * kv * d * k + 2 * h * n * k + h * k * d + 2 * d * f + d * v;
      recomputed += n * 3 * h * d * k + 2 * h * n * n * k + n * h * k * d + n * 2 * d * f + n * d * v;
    }
    INFO("n = " << length.n);
    CHECK(length.cached_multiply_adds == Approx(cached).epsilon(1e-15));
    CHECK(length.recomputed_multiply_adds == Approx(recomputed).epsilon(1e-15));
    CHECK(length.cache_numbers == 2 * layers * length.n * 2 * d_k);
  }
  // At one word both ways make the same products but the keys and values of the heads sharing them.
  CHECK(result.lengths[0].recomputed_multiply_adds - result.lengths[0].cached_multiply_adds == 2 * (h - kv) * d * k);
  // The larger decoder: 2 · 80 layers · 4096 words · h_kv · 128 numbers of 2 bytes.
  REQUIRE(result.large.bytes.size() == 3);
  CHECK(result.large.bytes[0] == std::make_pair(64LL, 2LL * 80 * 4096 * 64 * 128 * 2));
  CHECK(result.large.bytes[2] == std::make_pair(1LL, 2LL * 80 * 4096 * 1 * 128 * 2));
}

TEST_CASE("the flags read a decoding and refuse what does not fit", "[ch14]") {
  const generating::Inputs defaults = read({});
  CHECK(defaults.training_steps == 1500);
  CHECK(defaults.key_value_heads == 4);
  CHECK(defaults.sampling.temperature == 0.0);
  CHECK(defaults.use_cache);
  CHECK(defaults.prompt.empty());
  const generating::Inputs chosen =
      read({"--prompt", "The Dog", "--temperature", "0.5", "--top-k", "3", "--kv-heads", "2", "--no-cache"});
  CHECK(chosen.prompt == sentences::words_of("the dog", "--prompt"));
  CHECK(chosen.sampling.temperature == 0.5);
  CHECK(chosen.sampling.top_k == 3);
  CHECK(chosen.key_value_heads == 2);
  CHECK_FALSE(chosen.use_cache);
  const generating::Inputs seeds = read({"--seeds", "1,2", "--kv-heads", "4,1"});
  CHECK(seeds.seeds == std::vector<std::uint64_t>{1, 2});
  CHECK(seeds.key_value_heads_list == std::vector<Eigen::Index>{4, 1});
  CHECK_THROWS_WITH(read({"--prompt", "the dogg"}), Catch::StartsWith("--prompt") && Catch::Contains("'dogg'"));
  CHECK_THROWS_WITH(read({"--prompt", "the dog ."}), Catch::StartsWith("--prompt") && Catch::Contains("'.'"));
  CHECK_THROWS_WITH(read({"--kv-heads", "3"}), Catch::StartsWith("--kv-heads: 3 does not divide the 4 query heads"));
  CHECK_THROWS_WITH(read({"--kv-heads", "8"}), Catch::StartsWith("--kv-heads"));
  CHECK_THROWS_WITH(read({"--seeds", "1,2", "--kv-heads", "4,4"}), Catch::StartsWith("--kv-heads: 4 is listed twice"));
  CHECK_THROWS_WITH(read({"--temperature", "101"}), Catch::StartsWith("--temperature: expected a number from 0 to"));
  CHECK_THROWS_WITH(read({"--temperature", "-1"}), Catch::StartsWith("--temperature"));
  CHECK_THROWS_WITH(read({"--top-k", "1000"}), Catch::StartsWith("--top-k"));
  CHECK_THROWS_WITH(read({"--steps", "0"}), Catch::StartsWith("--steps"));
  CHECK_THROWS_WITH(read({"--n", "8"}), Catch::StartsWith("--n: only with --benchmark"));
  CHECK_THROWS_WITH(read({"--seeds", "1,2", "--prompt", "the"}), Catch::StartsWith("--prompt excludes --seeds"));
  CHECK_THROWS_WITH(read({"--benchmark", "--no-cache"}), Catch::StartsWith("--no-cache excludes --benchmark"));
}

}  // namespace test_generating
