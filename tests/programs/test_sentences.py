"""Chapter 13's program, sentences: a small Transformer trained on a language
stated in full, to tag every word or to give a verb its subject's number.

The checks here do not trust the program's grammar. They hold a copy of the
language written out again (the lexicon and the rules the program prints with
--language) and a parser of their own that finds, for any sentence, every way
the rules can make it: the tag of each word, the subject's noun and its number,
the nouns of the other number between the subject and the verb. Every sentence
the program trained and judged on must parse, the parser must refuse sentences
that break the rules, and what the program reports of its sentences (tags,
numbers, counts, the best a layer that reads one word at a time can do) must be
what the parser finds. A NumPy forward pass (test_training.model_forward) reruns
the trained model from its JSON weights.

The same checks hold for longer sentences (--modifiers, the most phrases after
the subject's noun: a parameter of the parser too) and for chapter 7's recurrent
layer in place of attention (--model recurrent), whose count of learned numbers
is recomputed from its shapes; it has no --weights, so its reading is checked
for what holds of any softmax read-out and of a model that reads left to right.

Under the sanitizers (BOOK_SANITIZE=1, about 25 times slower) the runs are short
(60 steps of the attention model, 300 of the recurrent one, which cost about
the same) and the book's default runs of 1500 steps are skipped."""
import itertools
import os
import re
import unittest
from collections import Counter, namedtuple

import numpy as np

from harness import ProgramTest, published_run, run, run_json
from test_training import model_forward

SLOW = os.environ.get("BOOK_SANITIZE", "0") == "1"
SHORT_STEPS = "60" if SLOW else "300"
# A run of 300 steps of the recurrent model takes about as long as one of 60 steps of the attention model (0.11 s
# each without the sanitizers), and at 60 steps the recurrent model has not yet moved from chance (50.1-65.3 % over
# seeds 1-10): it runs 300 steps in both modes.
RECURRENT_STEPS = "300"
# The sizes of both models (src/attention/token_classifier.hpp, src/attention/recurrent_classifier.hpp).
D_MODEL, D_FF, HEADS = 32, 64, 2
FORWARD_SENTENCE = "the watches watch the fly"     # both words are a noun in one place and a verb in another
AGREEMENT_SENTENCE = "the keys by the old cabinet"  # a subject for many, and a noun for one before the verb


def without_timing(document):
    """The JSON without the training's wall-clock time: everything else must repeat bit for bit."""
    return {key: value for key, value in document.items() if key != "seconds"}


# ---- the language, written out again ----

NUMBERS = ("one", "many")
TAGS = ("determiner", "adjective", "noun", "pronoun", "verb", "preposition", "relative")
DETERMINERS = {"one": ("a", "this", "every", "the"), "many": ("these", "many", "the")}
ADJECTIVES = ("old", "red", "small", "big", "new")
NOUNS = (("dog", "dogs"), ("cat", "cats"), ("man", "men"), ("woman", "women"), ("key", "keys"),
         ("cabinet", "cabinets"), ("girl", "girls"), ("book", "books"), ("saw", "saws"), ("watch", "watches"),
         ("fly", "flies"), ("park", "parks"), ("duck", "ducks"), ("can", "cans"))  # (for one, for many)
PRESENT_VERBS = (("sees", "see"), ("likes", "like"), ("finds", "find"), ("has", "have"), ("saws", "saw"),
                 ("watches", "watch"), ("flies", "fly"), ("parks", "park"), ("ducks", "duck"), ("cans", "can"))
COPULA = {"one": "is", "many": "are"}
PAST = "saw"  # the past of "see": the same after one noun and after many
SUBJECT_PRONOUNS = {"one": ("he", "she", "it"), "many": ("I", "you", "we", "they")}
OBJECT_PRONOUNS = ("me", "you", "us", "them", "him", "her", "it")
PREPOSITIONS = ("near", "to", "by", "with", "behind")
RELATIVE = "that"
SLOT = "[verb]"

NOUN_NUMBER = {form: number for forms in NOUNS for number, form in zip(NUMBERS, forms)}
# Each number's nouns and present verbs, in order. The parser tests a word against these lists by equality
# alone, so a word that stands for any word (test_generating.AnyWord) fits them all.
NOUNS_FOR = {number: tuple(forms[n] for forms in NOUNS) for n, number in enumerate(NUMBERS)}
PRESENT_FOR = {number: tuple(forms[n] for forms in PRESENT_VERBS) for n, number in enumerate(NUMBERS)}
PRESENT = {number: set(forms) for number, forms in PRESENT_FOR.items()}
VERB_FORMS = PRESENT["one"] | PRESENT["many"] | {PAST}
AMBIGUOUS = [form for forms in NOUNS for form in forms if form in VERB_FORMS]
WORDS = (set(DETERMINERS["one"]) | set(DETERMINERS["many"]) | set(ADJECTIVES) | set(NOUN_NUMBER) | VERB_FORMS
         | set(COPULA.values()) | set(SUBJECT_PRONOUNS["one"]) | set(SUBJECT_PRONOUNS["many"])
         | set(OBJECT_PRONOUNS) | set(PREPOSITIONS) | {RELATIVE})
MODIFIERS = {"tagging": 2, "agreement": 3}  # at most, after the subject's noun, unless --modifiers says otherwise
MOST_MODIFIERS = 10                        # what --modifiers takes at most

# One way the rules make a sentence: each word's tag; the subject's number; for a subject that is a noun phrase,
# its noun's position and how many modifiers follow it; every noun with its number, in order.
Analysis = namedtuple("Analysis", "tags number subject modifiers nouns")


class Parser:
    """A backtracking parser of the grammar: each rule is a generator of every way it can match from a
    position, as (end, tags, nouns). The agreement task's sentences are a subject alone, whose relative
    clauses take only the past "saw" and only a noun phrase as object. A subject takes at most
    @p most_modifiers modifiers (by default the task's)."""

    def __init__(self, words, task, most_modifiers=None):
        self.words, self.agreement = words, task == "agreement"
        self.most_modifiers = MODIFIERS[task] if most_modifiers is None else most_modifiers

    def at(self, i):
        return self.words[i] if i < len(self.words) else None

    def noun_phrase(self, i, number=None):
        """determiner(a) [adjective] noun(a); a is the noun's number, and must be @p number if given."""
        for a in (number,) if number else NUMBERS:
            if self.at(i) not in DETERMINERS[a]:
                continue
            for j, tags in ((i + 1, ("determiner",)), (i + 2, ("determiner", "adjective"))):
                if j == i + 2 and self.at(i + 1) not in ADJECTIVES:
                    continue
                if self.at(j) in NOUNS_FOR[a]:
                    yield j + 1, tags + ("noun",), ((j, a),)

    def verb(self, i, number):
        """A present form that agrees with @p number, or the past saw (in the agreement task: only saw)."""
        word = self.at(i)
        if word == PAST or (not self.agreement and word in PRESENT_FOR[number]):
            yield i + 1, ("verb",), ()

    def object(self, i):
        yield from self.noun_phrase(i)
        if not self.agreement and self.at(i) in OBJECT_PRONOUNS:
            yield i + 1, ("pronoun",), ()

    def modifier(self, i, number):
        """preposition noun-phrase(b) | that verb(a) object"""
        if self.at(i) in PREPOSITIONS:
            for end, tags, nouns in self.noun_phrase(i + 1):
                yield end, ("preposition",) + tags, nouns
        if self.at(i) == RELATIVE:
            for after_verb, verb_tags, _ in self.verb(i + 1, number):
                for end, tags, nouns in self.object(after_verb):
                    yield end, ("relative",) + verb_tags + tags, nouns

    def modifiers(self, i, number, left):
        """Up to @p left modifiers; yields (end, tags, nouns, how many)."""
        yield i, (), (), 0
        if left > 0:
            for middle, tags, nouns in self.modifier(i, number):
                for end, more_tags, more_nouns, count in self.modifiers(middle, number, left - 1):
                    yield end, tags + more_tags, nouns + more_nouns, count + 1

    def subject(self, i):
        """noun-phrase(a) modifier(a)* | pronoun(a); yields (end, tags, number, subject's noun, modifiers,
        nouns)."""
        for middle, tags, nouns in self.noun_phrase(i):
            (head, number), = nouns
            for end, more_tags, more_nouns, count in self.modifiers(middle, number, self.most_modifiers):
                yield end, tags + more_tags, number, head, count, nouns + more_nouns
        if not self.agreement:
            for number in NUMBERS:
                if self.at(i) in SUBJECT_PRONOUNS[number]:
                    yield i + 1, ("pronoun",), number, None, 0, ()

    def predicate(self, i, number):
        """verb(a) object [preposition noun-phrase(b)] | is/are(a) adjective"""
        for after_verb, verb_tags, _ in self.verb(i, number):
            for after_object, object_tags, nouns in self.object(after_verb):
                yield after_object, verb_tags + object_tags, nouns
                if self.at(after_object) in PREPOSITIONS:
                    for end, tags, more_nouns in self.noun_phrase(after_object + 1):
                        yield end, verb_tags + object_tags + ("preposition",) + tags, nouns + more_nouns
        if self.at(i) == COPULA[number] and self.at(i + 1) in ADJECTIVES:
            yield i + 2, ("verb", "adjective"), ()

    def analyses(self):
        """Every distinct way the rules make the whole of the words."""
        found = set()
        if self.agreement:
            if not self.words or self.words[-1] != SLOT:
                return found
            for end, tags, number, head, count, nouns in self.subject(0):
                if end == len(self.words) - 1:
                    found.add(Analysis(tags + ("verb",), number, head, count, nouns))
            return found
        for middle, tags, number, head, count, nouns in self.subject(0):
            for end, more_tags, more_nouns in self.predicate(middle, number):
                if end == len(self.words):
                    found.add(Analysis(tags + more_tags, number, head, count, nouns + more_nouns))
        return found


def analyses(text, task, most_modifiers=None):
    return Parser(text.split(" "), task, most_modifiers).analyses()


def attractors(analysis):
    """Nouns after the subject's noun whose number is not the subject's."""
    return sum(1 for at, number in analysis.nouns if at > analysis.subject and number != analysis.number)


def as_arrays(weights):
    """The JSON weights with every matrix an array."""
    if isinstance(weights, dict):
        return {key: as_arrays(value) for key, value in weights.items()}
    if isinstance(weights[0], dict):
        return [as_arrays(value) for value in weights]
    return np.array(weights, dtype=float)


def numbers_in(weights):
    """How many numbers the JSON weights hold."""
    if isinstance(weights, dict):
        return sum(numbers_in(value) for value in weights.values())
    if isinstance(weights, list):
        return sum(numbers_in(value) for value in weights)
    return 1


def attention_parameters(vocabulary, outputs, layers):
    """The learned numbers of the token classifier, from its shapes: the embedding (V × d); in each layer W^Q, W^K,
    W^V of every head (d × d/h each), W^O (d × d), two LayerNorms (a gain and a bias of d each), W₁ (d × d_ff) and
    b₁, W₂ (d_ff × d) and b₂; the read-out (d × C) and its bias."""
    layer = HEADS * 3 * D_MODEL * (D_MODEL // HEADS) + D_MODEL * D_MODEL + 2 * 2 * D_MODEL \
        + D_MODEL * D_FF + D_FF + D_FF * D_MODEL + D_MODEL
    return vocabulary * D_MODEL + layers * layer + D_MODEL * outputs + outputs


def recurrent_parameters(vocabulary, outputs):
    """The learned numbers of the recurrent classifier: the embedding (V × d), W and U (d × d each), the read-out
    (d × C) and its bias."""
    return vocabulary * D_MODEL + 2 * D_MODEL * D_MODEL + D_MODEL * outputs + outputs


class SentencesTest(ProgramTest):
    @classmethod
    def setUpClass(cls):
        common = ["--steps", SHORT_STEPS, "--list-sentences", "--weights"]
        cls.tagging = run_json(*common, "--sentence", FORWARD_SENTENCE)
        cls.agreement = run_json("--task", "agreement", *common, "--sentence", AGREEMENT_SENTENCE)
        cls.recurrent = run_json("--task", "agreement", "--model", "recurrent", "--steps", RECURRENT_STEPS,
                                 "--list-sentences", "--sentence", AGREEMENT_SENTENCE)
        cls.vocabulary = cls.tagging["language"]["vocabulary"]

    def parse(self, text, task, most_modifiers=None):
        """The one analysis of @p text; fails the test if the rules make it in no way or in two."""
        found = analyses(text, task, most_modifiers)
        self.assertEqual(len(found), 1, f"{task}: {text!r} has {len(found)} analyses")
        return next(iter(found))

    # ---- the sentences are the language's ----

    def test_the_parser_refuses_what_breaks_the_rules(self):
        for text in ("the dog see the cat",                  # a verb for many after a noun for one
                     "a dogs sees it",                       # a determiner for one before a noun for many
                     "I sees the cat",                       # I takes the form for many
                     "these dog sees the cat",
                     "the dogs is old",
                     "the dog sees",                         # a verb needs its object
                     "the fly flies",                        # … an ambiguous one too
                     "the dog is the cat",                   # is/are takes an adjective
                     "the dog sees he",                      # a subject pronoun as object
                     "dogs see the cats",                    # no determiner
                     "the dog that see the cat likes it",    # the relative clause's verb agrees with the subject
                     "the dog near the cat near the cat near the cat likes it",  # three modifiers
                     "the dog saw the cat the cat",
                     "the dog saw the cat [verb]"):
            self.assertEqual(analyses(text, "tagging"), set(), text)
        for text in ("the dog that sees the cat [verb]",     # in this task a relative clause's verb is saw
                     "the dog that saw it [verb]",           # … and its object a noun phrase
                     "he [verb]",                            # the subject is a noun phrase
                     "the dog near the cat near the cat near the cat near the cat [verb]",  # four modifiers
                     "the dog saw the cat [verb]",
                     "the dog near the cat",                 # no slot
                     "the dog [verb] [verb]"):
            self.assertEqual(analyses(text, "agreement"), set(), text)
        # … and accepts what keeps them, with the tags the book gives.
        self.assertEqual(self.parse("I saw a saw", "tagging").tags, ("pronoun", "verb", "determiner", "noun"))
        # The chapter's examples of ambiguous words with their -s forms (a verb takes its object: "the fly flies" is
        # refused above).
        self.assertEqual(self.parse("the fly flies a duck", "tagging").tags,
                         ("determiner", "noun", "verb", "determiner", "noun"))
        self.assertEqual(self.parse("they watch the watches", "tagging").tags,
                         ("pronoun", "verb", "determiner", "noun"))
        self.assertEqual(self.parse("the saws saw the old saw near the parks", "tagging").tags,
                         ("determiner", "noun", "verb", "determiner", "adjective", "noun", "preposition",
                          "determiner", "noun"))
        self.assertEqual(self.parse("the fly that saw you flies the can", "tagging").tags,
                         ("determiner", "noun", "relative", "verb", "pronoun", "verb", "determiner", "noun"))
        key = self.parse("the key to the cabinets that saw the keys near every dog [verb]", "agreement")
        self.assertEqual((key.number, key.subject, attractors(key)), ("one", 1, 2))
        # The most modifiers is the parser's parameter: what is too long by default is made with more allowed, and
        # a subject with any modifier is refused with none.
        three = "the dog near the cat near the cat near the cat likes it"
        self.assertEqual(self.parse(three, "tagging", 3).modifiers, 3)
        self.assertEqual(analyses(three, "tagging", 2), set())
        five = "the dog near the cat that saw the old cat by a cat near the cat with the cat [verb]"
        self.assertEqual(self.parse(five, "agreement", 5).modifiers, 5)
        self.assertEqual(self.parse(five, "agreement", MOST_MODIFIERS).modifiers, 5)
        self.assertEqual(analyses(five, "agreement", 4), set())
        self.assertEqual(self.parse("the old dog [verb]", "agreement", 0).modifiers, 0)
        self.assertEqual(analyses("the dog near the cat likes it", "tagging", 0), set())
        self.assertEqual(analyses("the dog that saw it likes it", "tagging", 0), set())
        self.assertEqual(self.parse("the dog likes it near the cat", "tagging", 0).modifiers, 0)  # the predicate's

    def test_every_sentence_trained_and_judged_on_parses(self):
        for document, task in ((self.tagging, "tagging"), (self.agreement, "agreement")):
            lists = document["sentences"]
            self.assertEqual(len(lists["held_out"]), document["data"]["held_out"])
            self.assertEqual(len(lists["training"]), document["data"]["training_distinct"])
            for text in itertools.chain(lists["held_out"], lists["training"]):
                found = analyses(text, task)
                self.assertEqual(len(found), 1, f"{task}: {text!r} has {len(found)} analyses")
            most = max(len(text.split(" ")) for text in lists["training"])
            with self.subTest(task=task):
                # The longest sentence the rules allow: a subject of 3 words, 2 modifiers of up to 5 ("that saw
                # the old cat") and a predicate of up to 8 (tagging); 3 words, 3 modifiers and the slot (agreement).
                self.assertLessEqual(most, 21 if task == "tagging" else 19)
                self.assertGreater(most, 12)  # and long sentences are drawn

    def test_the_modifiers_and_the_pronouns_of_each_task_are_drawn(self):
        # The parser's limits are the rules', not looser: sentences of the training set use them to the full.
        tagged = [self.parse(text, "tagging") for text in self.tagging["sentences"]["training"]]
        self.assertTrue(any(analysis.subject is None for analysis in tagged))  # a pronoun for subject
        self.assertEqual({analysis.modifiers for analysis in tagged}, {0, 1, 2})
        relative_clause_with_pronoun = ("relative", "verb", "pronoun")  # "that saw it": only a modifier has "that"
        self.assertTrue(any(analysis.tags[t:t + 3] == relative_clause_with_pronoun
                            for analysis in tagged for t in range(len(analysis.tags))))
        subjects = [self.parse(text, "agreement") for text in self.agreement["sentences"]["training"]]
        self.assertEqual({analysis.modifiers for analysis in subjects}, {0, 1, 2, 3})
        # In the agreement task every modifier holds one noun.
        for analysis in subjects:
            self.assertEqual(len(analysis.nouns), 1 + analysis.modifiers)

    def test_the_samples_are_tagged_and_counted_as_the_parser_finds(self):
        for document, task in ((self.tagging, "tagging"), (self.agreement, "agreement")):
            self.assertGreaterEqual(len(document["samples"]), 5)
            for sample in document["samples"]:
                with self.subTest(task=task, text=sample["text"]):
                    self.assertEqual([self.vocabulary[word] for word in sample["words"]], sample["text"].split(" "))
                    analysis = self.parse(sample["text"], task)
                    if task == "tagging":
                        self.assertEqual(tuple(sample["tags"]), analysis.tags)
                    else:
                        self.assertEqual(sample["number"], analysis.number)
                        self.assertEqual(sample["subject"], analysis.subject)
                        self.assertEqual(sample["attractors"], attractors(analysis))
                        self.assertEqual(sample["text"].split(" ")[-1], SLOT)
        # The first sentences training draws are in its list of distinct ones.
        for document in (self.tagging, self.agreement):
            self.assertLessEqual({sample["text"] for sample in document["samples"]},
                                 set(document["sentences"]["training"]))

    def test_no_held_out_sentence_is_trained_on_and_none_is_there_twice(self):
        for document, steps in ((self.tagging, SHORT_STEPS), (self.agreement, SHORT_STEPS),
                                (self.recurrent, RECURRENT_STEPS)):
            held_out, training = document["sentences"]["held_out"], document["sentences"]["training"]
            self.assertEqual(len(set(held_out)), len(held_out))
            self.assertEqual(len(set(training)), len(training))
            self.assertEqual(set(held_out) & set(training), set())
            self.assertEqual(document["data"]["training_drawn"], 16 * int(steps))
            self.assertGreater(document["data"]["held_out_redrawn"], 0)  # the exclusion had work to do

    def test_the_tables_say_the_held_out_set_was_never_trained_on(self):
        # What the test above checks, in the words of the tables' "Held-out" line (the chapter says the same):
        # "never trained on", not "never drawn", since training draws held-out sentences and draws again.
        for task, counted in (("tagging", "sentences"), ("agreement", "subjects")):
            with self.subTest(task=task):
                tables = run("--task", task, "--steps", "1").stdout
                self.assertRegex(tables, rf"\nHeld-out: \d+ {counted}, none of them trained on\b")
                self.assertNotIn("drawn in training", tables)

    # ---- what the program counts of its held-out sentences ----

    def test_the_one_word_ceiling_of_tagging(self):
        # A layer that reads one word at a time gives every occurrence of a word the same tag: at best the
        # commonest tag of that word in the held-out set.
        counts = {}
        for text in self.tagging["sentences"]["held_out"]:
            for word, tag in zip(text.split(" "), self.parse(text, "tagging").tags):
                counts.setdefault(word, Counter())[tag] += 1
        best = sum(max(tags.values()) for tags in counts.values())
        total = sum(sum(tags.values()) for tags in counts.values())
        best_ambiguous = sum(max(counts[word].values()) for word in AMBIGUOUS if word in counts)
        total_ambiguous = sum(sum(counts[word].values()) for word in AMBIGUOUS if word in counts)
        self.assertAlmostEqual(self.tagging["one_word_ceiling"], best / total, delta=1e-12)
        self.assertAlmostEqual(self.tagging["ambiguous"]["one_word_ceiling"], best_ambiguous / total_ambiguous,
                               delta=1e-12)
        self.assertEqual(self.tagging["ambiguous"]["count"], total_ambiguous)
        # The ambiguous words are the ones that keep the ceiling below 100 %: every other word has one tag
        # ("it" and "you" are pronouns as subject and as object).
        for word, tags in counts.items():
            if word not in AMBIGUOUS:
                self.assertEqual(len(tags), 1, word)
        self.assertLess(best_ambiguous / total_ambiguous, 0.75)  # 56.9-64.6 % over seeds 1-10

    def test_the_word_and_position_ceiling_of_tagging(self):
        # A layer that reads one word and its position gives every occurrence of a word at one position the
        # same tag: at best the commonest tag of that word there, in the held-out set.
        counts = {}
        for text in self.tagging["sentences"]["held_out"]:
            for position, (word, tag) in enumerate(zip(text.split(" "), self.parse(text, "tagging").tags)):
                counts.setdefault((word, position), Counter())[tag] += 1
        best = sum(max(tags.values()) for tags in counts.values())
        total = sum(sum(tags.values()) for tags in counts.values())
        best_ambiguous = sum(max(tags.values()) for (word, _), tags in counts.items() if word in AMBIGUOUS)
        total_ambiguous = sum(sum(tags.values()) for (word, _), tags in counts.items() if word in AMBIGUOUS)
        self.assertAlmostEqual(self.tagging["word_and_position_ceiling"], best / total, delta=1e-12)
        self.assertAlmostEqual(self.tagging["ambiguous"]["word_and_position_ceiling"],
                               best_ambiguous / total_ambiguous, delta=1e-12)

    def test_positions_before_the_main_verbs_latest_place_do_not_decide_a_tag(self):
        # The fold on a layer given positions. By the rules, a sentence starts with a determiner or a pronoun, so no
        # ambiguous word stands first; the subject's noun phrase has at most 3 words ("the old dog") and each of its
        # modifiers at most 5 ("that saw the old cat"), so the main verb stands at index 3 + 5 · 2 = 13 at the
        # latest (a relative clause's verb earlier still). Up to there an ambiguous word can be either; after it,
        # only in the object or the closing phrase, a noun. The held-out set has both tags at every index up to
        # that one (seed 1: a single verb at 13), and only nouns after it.
        latest_verb = 3 + 5 * MODIFIERS["tagging"]
        tags_at = {}
        for text in self.tagging["sentences"]["held_out"]:
            for position, (word, tag) in enumerate(zip(text.split(" "), self.parse(text, "tagging").tags)):
                if word in AMBIGUOUS:
                    tags_at.setdefault(position, set()).add(tag)
        self.assertNotIn(0, tags_at)
        for position in range(1, latest_verb + 1):
            self.assertEqual(tags_at.get(position), {"noun", "verb"}, f"index {position}")
        later = [position for position in tags_at if position > latest_verb]
        self.assertTrue(later)  # the held-out set reaches past the main verb's latest place
        for position in later:
            self.assertEqual(tags_at[position], {"noun"}, f"index {position}")

    def test_the_word_after_an_ambiguous_word_decides_its_tag_too(self):
        # The fold "why the word after decides too": a verb (predicate → verb object) is followed by its object,
        # which starts with a determiner or an object pronoun; a noun by a verb, a preposition, "that" or the end.
        starts_an_object = set(DETERMINERS["one"]) | set(DETERMINERS["many"]) | set(OBJECT_PRONOUNS)
        seen = Counter()
        for text in self.tagging["sentences"]["held_out"]:
            words = text.split(" ")
            for position, (word, tag) in enumerate(zip(words, self.parse(text, "tagging").tags)):
                if word not in AMBIGUOUS:
                    continue
                after = words[position + 1] if position + 1 < len(words) else None
                with self.subTest(text=text, position=position):
                    self.assertEqual(tag == "verb", after in starts_an_object)
                seen[tag] += 1
        self.assertGreater(min(seen["verb"], seen["noun"]), 100)  # both tags, many times

    def test_most_ambiguous_words_stand_in_sentences_longer_than_four_words(self):
        # The preface: "Most of these sentences are longer than I saw a saw, so for most of them 1/n is smaller
        # than a quarter". The average is over the ambiguous held-out words, each in its sentence of n words (the
        # shorter run has the book's held-out set: it is drawn before training).
        lengths = [len(words) for words in (text.split(" ") for text in self.tagging["sentences"]["held_out"])
                   for word in words if word in AMBIGUOUS]
        self.assertGreater(sum(n > 4 for n in lengths) / len(lengths), 0.5)  # 0.94 for seed 1

    def check_agreement_groups(self, document, most_modifiers=None):
        """by_attractors, by_distance and one_word of an agreement run, recounted from its held-out sentences by
        the parser; a group no held-out sentence falls in is left out. Returns the labels left out."""
        groups = {"by_attractors": [("0", 0, 0), ("1", 1, 1), ("2", 2, 2), ("3+", 3, 999)],
                  "by_distance": [("1", 1, 1), ("2-6", 2, 6), ("7-12", 7, 12), ("13-18", 13, 18), ("19-24", 19, 24),
                                  ("25+", 25, 999)]}
        count = {key: Counter() for key in groups}
        nearest = {key: Counter() for key in groups}
        one = 0
        held_out = document["sentences"]["held_out"]
        for text in held_out:
            analysis = self.parse(text, "agreement", most_modifiers)
            slot = len(text.split(" ")) - 1
            last_noun_number = analysis.nouns[-1][1]
            for key, value in (("by_attractors", attractors(analysis)), ("by_distance", slot - analysis.subject)):
                label = next(label for label, low, high in groups[key] if low <= value <= high)
                count[key][label] += 1
                nearest[key][label] += last_noun_number == analysis.number
            one += analysis.number == "one"
        left_out = []
        for key, ranges in groups.items():
            shown = document[key]
            self.assertEqual([group["label"] for group in shown],
                             [label for label, _, _ in ranges if count[key][label] > 0], key)
            left_out += [label for label, _, _ in ranges if count[key][label] == 0]
            for group in shown:
                with self.subTest(key=key, label=group["label"]):
                    self.assertEqual(group["count"], count[key][group["label"]])
                    self.assertAlmostEqual(group["nearest_noun"], nearest[key][group["label"]] / group["count"],
                                           delta=1e-12)
        self.assertAlmostEqual(document["one_word"], max(one, len(held_out) - one) / len(held_out), delta=1e-12)
        return left_out

    def test_the_agreement_groups_and_the_one_word_share(self):
        # Three modifiers of up to five words ("that saw the old cat") put the slot at most 16 words after the
        # subject's noun: the two farthest groups are empty, and left out.
        self.assertEqual(self.check_agreement_groups(self.agreement), ["19-24", "25+"])
        # No attractor: every noun has the subject's number. Three: each of the three modifiers holds one noun,
        # all of the other number, the last one too.
        self.assertEqual(self.agreement["by_attractors"][0]["nearest_noun"], 1.0)
        self.assertEqual(self.agreement["by_attractors"][-1]["nearest_noun"], 0.0)
        # The distance figure's rule line: at distance 1 the last noun is the subject's own; farther on it is the
        # last modifier's noun, whose number is drawn, so the rule is right about half the time (the figure's
        # alt text says "near 50 percent beyond").
        by_distance = self.agreement["by_distance"]
        self.assertEqual((by_distance[0]["label"], by_distance[0]["nearest_noun"]), ("1", 1.0))
        farther = by_distance[1:]
        pooled = sum(group["nearest_noun"] * group["count"] for group in farther) / sum(
            group["count"] for group in farther)
        self.assertTrue(0.35 < pooled < 0.65, pooled)
        # The recurrent model is judged on the same sentences, so its groups are the same but for its answers.
        self.check_agreement_groups(self.recurrent)
        for key in ("by_attractors", "by_distance"):
            self.assertEqual([(group["label"], group["count"], group["nearest_noun"]) for group in self.recurrent[key]],
                             [(group["label"], group["count"], group["nearest_noun"]) for group in self.agreement[key]])
        for key in ("by_attractors", "by_distance"):
            for group in self.recurrent[key]:  # the model's share in a group is a count of its right answers
                self.assertAlmostEqual(group["model"] * group["count"], round(group["model"] * group["count"]),
                                       delta=1e-9)
        held_out = self.recurrent["sentences"]["held_out"]
        right = sum(group["model"] * group["count"] for group in self.recurrent["by_attractors"])
        self.assertAlmostEqual(self.recurrent["accuracy"], right / len(held_out), delta=1e-12)
        right = sum(group["model"] * group["count"] for group in self.recurrent["by_distance"])
        self.assertAlmostEqual(self.recurrent["accuracy"], right / len(held_out), delta=1e-12)

    # ---- longer sentences: --modifiers ----

    def test_more_modifiers_make_longer_sentences_within_the_rules(self):
        for task in ("tagging", "agreement"):
            document = run_json("--task", task, "--modifiers", "5", "--steps", "20", "--list-sentences")
            self.assertEqual(document["inputs"]["modifiers"], 5)
            sentences = document["sentences"]["held_out"] + document["sentences"]["training"]
            found = [self.parse(text, task, 5) for text in sentences]  # each made in one way with at most 5 …
            counts = Counter(analysis.modifiers for analysis in found)
            with self.subTest(task=task):
                self.assertEqual(set(counts), set(range(6)))             # … and every count up to 5 drawn,
                self.assertGreater(counts[4] + counts[5], 0)             # more than the default allows
                self.assertTrue(any(analyses(text, task) == set() for text in sentences))
                # A parser that allows any number finds the same: no sentence has more than 5.
                self.assertLessEqual(max(self.parse(text, task, MOST_MODIFIERS).modifiers for text in sentences), 5)
            if task == "agreement":
                # The slot up to 1 + 5·5 = 26 words after the subject's noun: the groups reach 19-24.
                self.assertIn("19-24", [group["label"] for group in document["by_distance"]])
                self.check_agreement_groups(document, 5)

    def test_no_modifier_leaves_the_subject_bare(self):
        document = run_json("--modifiers", "0", "--steps", "20", "--list-sentences")
        self.assertEqual(document["inputs"]["modifiers"], 0)
        sentences = document["sentences"]["held_out"] + document["sentences"]["training"]
        for text in sentences:
            self.assertEqual(self.parse(text, "tagging", MOST_MODIFIERS).modifiers, 0, text)
            self.assertNotIn(RELATIVE, text.split(" "))  # only a modifier has "that"
        # The predicate keeps its own phrase: a preposition comes only after the verb.
        self.assertTrue(any(set(text.split(" ")) & set(PREPOSITIONS) for text in sentences))
        self.assertEqual(self.tagging["inputs"]["modifiers"], 2)  # the defaults, as --help gives them
        self.assertEqual(self.agreement["inputs"]["modifiers"], 3)

    # ---- the same seed, the same run ----

    def test_the_same_seed_gives_the_same_bits_and_another_seed_does_not(self):
        again = run_json("--steps", SHORT_STEPS, "--list-sentences", "--weights", "--sentence", FORWARD_SENTENCE)
        self.assertEqual(without_timing(again), without_timing(self.tagging))
        again = run_json("--task", "agreement", "--model", "recurrent", "--steps", RECURRENT_STEPS, "--list-sentences",
                         "--sentence", AGREEMENT_SENTENCE)
        self.assertEqual(without_timing(again), without_timing(self.recurrent))
        other = run_json("--steps", "20", "--seed", "2", "--list-sentences")
        self.assertNotEqual(other["samples"], self.tagging["samples"])
        self.assertNotEqual(other["sentences"]["held_out"], self.tagging["sentences"]["held_out"])

    def test_the_tests_short_runs_judge_on_the_default_runs_held_out_set(self):
        # Chapter 13's fold on the data: "The tests use a shorter run (--list-sentences): the same held-out set, but
        # 300 steps of training instead of 1500, or 60 under the sanitizers." The held-out set is drawn before any
        # training step, so a run of one step, and the default run of 1500, judge on the same sentences.
        self.assertEqual(self.tagging["inputs"]["steps"], int(SHORT_STEPS))
        for task, short_run in (("tagging", self.tagging), ("agreement", self.agreement)):
            with self.subTest(task=task):
                one_step = run_json("--task", task, "--steps", "1", "--list-sentences")
                self.assertEqual(one_step["sentences"]["held_out"], short_run["sentences"]["held_out"])
        if not SLOW:  # 1500 steps take about 40 s under the sanitizers
            default = run_json("--list-sentences")
            self.assertEqual(default["inputs"]["steps"], 1500)
            self.assertEqual(default["sentences"]["held_out"], self.tagging["sentences"]["held_out"])

    def test_both_models_are_judged_and_trained_on_the_same_sentences(self):
        # Each model's weights come from a stream of their own: the seed alone decides the sentences.
        self.assertEqual(self.recurrent["inputs"]["model"], "recurrent")
        self.assertEqual(self.agreement["inputs"]["model"], "attention")
        self.assertEqual(self.recurrent["sentences"]["held_out"], self.agreement["sentences"]["held_out"])
        for task in ("agreement",) if SLOW else ("tagging", "agreement"):
            common = ["--task", task, "--steps", "20", "--list-sentences"]
            attention = run_json(*common)
            runs = {"recurrent": run_json(*common, "--model", "recurrent")}
            if task == "tagging":
                runs["2 layers"] = run_json(*common, "--layers", "2")  # more weights drawn, the same sentences
            for name, other in runs.items():
                with self.subTest(task=task, model=name):
                    self.assertEqual(other["sentences"]["held_out"], attention["sentences"]["held_out"])
                    self.assertEqual(other["sentences"]["training"], attention["sentences"]["training"])
                    self.assertEqual(other["samples"], attention["samples"])
                    self.assertEqual(other["data"], attention["data"])
                    self.assertNotEqual(other["accuracy"], attention["accuracy"])  # and yet another model

    # ---- it learns ----

    def test_a_short_run_learns_beyond_one_word_at_a_time(self):
        # The floors were chosen from seeds 1-10 (the one run here is seed 1), each with a margin below the
        # worst seed. At 300 steps: tagging 95.1-96.7 % of held-out words (floor 93.5 %), above the one-word
        # ceiling of each seed (91.5-93.1 %); ambiguous words 73.9-83.5 %, 10.6 points or more above their
        # one-word ceiling (56.9-64.6 %; floor 5 points); agreement 91.9-100 % (floor 85 %), 89.6-100 % on
        # subjects with an attractor (floor 85 %); the mean loss of the last 100 steps 4.4-6.9 times below that
        # of the first 100 (floor 3). At 60 steps (SLOW): tagging 91.5-93.4 % (floor 85 %), still at about the
        # one-word ceiling; agreement 80.1-92.3 % (floor 70 %) and with an attractor 72.6-92.3 % (floor 65 %),
        # against the 50.0-52.4 % of always saying the commoner number. In every group of 1, 2 or 3+ attractors
        # the model beats "the verb agrees with the last noun" by 54.3 points or more at 300 steps, 36.1 at 60
        # (floor 25).
        tagging, agreement = self.tagging, self.agreement
        with_attractor = [group for group in agreement["by_attractors"] if group["label"] != "0"]
        hard = sum(group["model"] * group["count"] for group in with_attractor) / sum(
            group["count"] for group in with_attractor)
        for group in with_attractor:  # where the last noun is the wrong one most of the time
            self.assertGreater(group["model"], group["nearest_noun"] + 0.25, group)
        self.assertGreater(agreement["accuracy"], agreement["one_word"] + 0.2)
        if SLOW:
            self.assertGreater(tagging["accuracy"], 0.85)
            self.assertGreater(agreement["accuracy"], 0.7)
            self.assertGreater(hard, 0.65)
            return
        self.assertGreater(tagging["accuracy"], 0.935)
        self.assertGreater(tagging["accuracy"], tagging["one_word_ceiling"])
        self.assertGreater(tagging["ambiguous"]["accuracy"], tagging["ambiguous"]["one_word_ceiling"] + 0.05)
        self.assertGreater(agreement["accuracy"], 0.85)
        self.assertGreater(hard, 0.85)
        self.assertLess(tagging["training"]["loss"][-1], tagging["training"]["loss"][0] / 3)

    def test_a_short_run_of_the_recurrent_model_learns_agreement(self):
        # The floors were chosen from seeds 1-5 (the one run here is seed 1), each with a margin below the worst
        # seed. At 300 steps: 87.6-91.4 % of held-out subjects (floor 80 %), 84.3-91.0 % of those with an
        # attractor (floor 75 %), against the 50.0-52.4 % of always saying the commoner number; in every group of
        # 1, 2 or 3+ attractors 50.4 points or more above "the verb agrees with the last noun" (floor 25); the
        # mean loss of the last 100 steps 1.9-2.4 times below that of the first 100 (floor 1.5). Seeds 6-10 give
        # 86.1-91.5 % but for seed 9, which has not yet learned at 300 steps (54.8 %): the floors are the book
        # seed's, not any seed's. The attention model at the same steps does better on each of seeds 1-5, by
        # 3.5-11.8 points.
        recurrent = self.recurrent
        with_attractor = [group for group in recurrent["by_attractors"] if group["label"] != "0"]
        hard = sum(group["model"] * group["count"] for group in with_attractor) / sum(
            group["count"] for group in with_attractor)
        for group in with_attractor:
            self.assertGreater(group["model"], group["nearest_noun"] + 0.25, group)
        self.assertGreater(recurrent["accuracy"], 0.8)
        self.assertGreater(hard, 0.75)
        self.assertGreater(recurrent["accuracy"], recurrent["one_word"] + 0.2)
        self.assertLess(recurrent["training"]["loss"][-1], recurrent["training"]["loss"][0] / 1.5)
        if not SLOW:  # the same steps for both models
            self.assertGreater(self.agreement["accuracy"], recurrent["accuracy"])

    def test_each_model_has_the_learned_numbers_of_its_shapes(self):
        vocabulary = len(WORDS) + 1  # the language's words and the slot
        self.assertEqual(self.recurrent["parameters"], recurrent_parameters(vocabulary, len(NUMBERS)))
        self.assertEqual(self.tagging["parameters"], attention_parameters(vocabulary, len(TAGS), 1))
        self.assertEqual(self.agreement["parameters"], attention_parameters(vocabulary, len(NUMBERS), 1))
        # … and as many as the weights the attention model puts in its JSON.
        for document in (self.tagging, self.agreement):
            self.assertEqual(document["parameters"], numbers_in(document["weights"]))
        for document in (self.tagging, self.agreement, self.recurrent):
            self.assertEqual((document["inputs"]["d_model"], document["inputs"]["d_ff"], document["inputs"]["heads"]),
                             (D_MODEL, D_FF, HEADS))
        deeper = run_json("--layers", "2", "--steps", "1", "--sentence", "I saw a saw")
        self.assertEqual(deeper["parameters"], attention_parameters(vocabulary, len(TAGS), 2))
        recurrent_tagging = run_json("--model", "recurrent", "--steps", "1")
        self.assertEqual(recurrent_tagging["parameters"], recurrent_parameters(vocabulary, len(TAGS)))
        # A recurrence has no heads: nothing to say where they look.
        for document in (self.recurrent, recurrent_tagging):
            self.assertEqual(document["heads"], [])
            self.assertEqual(document["reading"]["attention"], [])
            self.assertEqual(document["reading"]["looks_at"], [])
            self.assertNotIn("weights", document)

    # ---- the model rerun in NumPy ----

    def check_reading(self, document, expected_words):
        """The reading's probabilities and attention, from the JSON weights by an independent forward pass."""
        reading = document["reading"]
        self.assertEqual(reading["words"], expected_words)
        logits, maps = model_forward(document["weights"], [self.vocabulary.index(word) for word in expected_words])
        if document["task"] == "agreement":
            logits = logits[-1:]
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities = shifted / shifted.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(np.array(reading["probabilities"]), probabilities, rtol=1e-9, atol=1e-300)
        self.assertEqual(reading["answers"], [document["outputs"][k] for k in probabilities.argmax(axis=1)])
        self.assertEqual(len(reading["attention"]), document["inputs"]["layers"])
        for shown_layer, peaks, layer in zip(reading["attention"], reading["looks_at"], maps):
            self.assertEqual(len(shown_layer), len(layer))
            for shown, head_peaks, computed in zip(shown_layer, peaks, layer):
                np.testing.assert_allclose(np.array(shown), computed, rtol=1e-9, atol=1e-300)
                # the word each word puts its largest weight on
                self.assertEqual(head_peaks, [expected_words[k] for k in computed.argmax(axis=1)])

    def test_a_forward_pass_in_numpy_gives_the_reading(self):
        self.assertEqual(self.tagging["outputs"], list(TAGS))
        self.assertEqual(self.agreement["outputs"], list(NUMBERS))
        self.check_reading(self.tagging, FORWARD_SENTENCE.split(" "))
        self.check_reading(self.agreement, AGREEMENT_SENTENCE.split(" ") + [SLOT])
        deeper = run_json("--layers", "2", "--steps", "20", "--weights", "--sentence", "i SAW a Saw")
        self.check_reading(deeper, ["I", "saw", "a", "saw"])  # any case in, the vocabulary's spelling out

    def check_softmax_reading(self, document, expected_words):
        """What holds of any model's reading: a row of probabilities per answer, each summing to 1, and the answer
        the most probable output."""
        reading = document["reading"]
        self.assertEqual(reading["words"], expected_words)
        probabilities = np.array(reading["probabilities"])
        rows = 1 if document["task"] == "agreement" else len(expected_words)
        self.assertEqual(probabilities.shape, (rows, len(document["outputs"])))
        self.assertTrue((probabilities > 0).all())
        np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        self.assertEqual(reading["answers"], [document["outputs"][k] for k in probabilities.argmax(axis=1)])
        return probabilities

    def test_the_recurrent_model_reads_left_to_right(self):
        self.assertEqual(self.recurrent["outputs"], list(NUMBERS))
        self.check_softmax_reading(self.recurrent, AGREEMENT_SENTENCE.split(" ") + [SLOT])
        # Word t's tag comes from words 0 … t alone: changing the last word leaves every earlier row as it was, bit
        # for bit. Attention reads the whole sentence at every word: there every row changes.
        first, second = "the dog sees the cat", "the dog sees the cats"
        for model in ("recurrent", "attention"):
            before, after = [self.check_softmax_reading(run_json("--model", model, "--steps", "20", "--sentence", text),
                                                        text.split(" ")) for text in (first, second)]
            changed = (before != after).any(axis=1)  # for each word, whether its row changed
            with self.subTest(model=model):
                self.assertTrue(changed[-1])
                self.assertEqual(list(changed[:-1]), [model == "attention"] * (len(changed) - 1))

    def test_a_forward_pass_in_numpy_gives_the_held_out_accuracy_and_where_the_heads_look(self):
        for document in (self.tagging, self.agreement):
            task = document["task"]
            weights = as_arrays(document["weights"])  # once, not at every sentence
            right = total = right_ambiguous = total_ambiguous = 0
            by_attractors = Counter()
            rows = even = first_rows = 0
            # mean weight, peak, peak on a row whose target is not the first word
            heads = np.zeros((len(weights["layers"]), len(weights["layers"][0]["heads"]), 3))
            for text in document["sentences"]["held_out"]:
                words = text.split(" ")
                analysis = self.parse(text, task)
                logits, maps = model_forward(weights, [self.vocabulary.index(word) for word in words])
                chosen = logits.argmax(axis=1)
                if task == "tagging":
                    correct = chosen == [TAGS.index(tag) for tag in analysis.tags]
                    right, total = right + correct.sum(), total + len(words)
                    ambiguous = np.array([word in AMBIGUOUS for word in words])
                    right_ambiguous += correct[ambiguous].sum()
                    total_ambiguous += ambiguous.sum()
                    pairs = [(t, t - 1) for t in range(1, len(words)) if ambiguous[t]]
                else:
                    correct = chosen[-1] == NUMBERS.index(analysis.number)
                    right, total = right + correct, total + 1
                    by_attractors[min(attractors(analysis), 3)] += correct
                    pairs = [(len(words) - 1, analysis.subject)]
                for source, target in pairs:
                    rows += 1
                    even += 1 / len(words)  # a head that spreads its weight evenly over the sentence
                    first_rows += target == 0
                    for l, layer in enumerate(maps):
                        for h, attention in enumerate(layer):
                            peak = attention[source].argmax() == target
                            heads[l, h] += attention[source, target], peak, peak and target != 0
            with self.subTest(task=task):
                self.assertAlmostEqual(document["accuracy"], right / total, delta=1e-12)
                np.testing.assert_allclose(np.array([[[head["mean_weight"], head["peak_share"]] for head in layer]
                                                     for layer in document["heads"]]), heads[:, :, :2] / rows,
                                           rtol=0, atol=1e-12)
                self.assertAlmostEqual(document["heads_even_weight"], even / rows, delta=1e-12)
                # Tagging: the word before an ambiguous word in second place is the first word; agreement: the
                # subject's noun never is.
                self.assertAlmostEqual(document["heads_first_word_share"], first_rows / rows, delta=1e-12)
                np.testing.assert_allclose(np.array([[head["peak_share_not_first"] for head in layer]
                                                     for layer in document["heads"]]),
                                           heads[:, :, 2] / (rows - first_rows), rtol=0, atol=1e-12)
                if task == "tagging":
                    self.assertGreater(first_rows, 0)
                    self.assertEqual(document["ambiguous"]["count"], total_ambiguous)
                    self.assertAlmostEqual(document["ambiguous"]["accuracy"], right_ambiguous / total_ambiguous,
                                           delta=1e-12)
                else:
                    self.assertEqual(first_rows, 0)
                    for group in document["by_attractors"]:
                        attractor_count = int(group["label"].rstrip("+"))
                        self.assertAlmostEqual(group["model"], by_attractors[attractor_count] / group["count"],
                                               delta=1e-12)

    def test_each_seed_of_the_table_is_that_seed_trained_alone(self):
        cases = [("tagging", "attention"), ("agreement", "recurrent")]
        if not SLOW:  # under the sanitizers, each model and each task once is enough
            cases.append(("agreement", "attention"))
        for task, model in cases:
            document = run_json("--task", task, "--model", model, "--seeds", "3,1", "--steps", "20")
            self.assertEqual((document["task"], document["model"]), (task, model))
            self.assertEqual([row["seed"] for row in document["runs"]], [3, 1])
            for row in document["runs"]:
                alone = run_json("--task", task, "--model", model, "--seed", str(row["seed"]), "--steps", "20")
                with self.subTest(task=task, model=model, seed=row["seed"]):
                    self.assertEqual(row["accuracy"], alone["accuracy"])
                    if model == "attention":
                        for key in ("peak_share", "peak_share_not_first"):
                            self.assertEqual(row[f"best_{key}"],
                                             max(head[key] for layer in alone["heads"] for head in layer))
                    if task == "tagging":
                        self.assertEqual(row["hard_accuracy"], alone["ambiguous"]["accuracy"])
                        self.assertEqual(row["one_word_hard"], alone["ambiguous"]["one_word_ceiling"])
                    else:
                        hard = [group for group in alone["by_attractors"] if group["label"] != "0"]
                        self.assertAlmostEqual(row["hard_accuracy"],
                                               sum(group["model"] * group["count"] for group in hard)
                                               / sum(group["count"] for group in hard), delta=1e-12)
                        self.assertEqual(row["one_word_hard"], alone["one_word"])
                        self.assertEqual(row["by_distance"], alone["by_distance"])
            if (task, model) == ("tagging", "attention"):
                # The table prints both peaks of each seed, as the JSON has them, in its two peak columns.
                table = run("--task", task, "--model", model, "--seeds", "3,1", "--steps", "20").stdout
                for row in document["runs"]:
                    line = next(line for line in table.splitlines() if line.split()[:1] == [str(row["seed"])])
                    shares = re.findall(r"(\d+\.\d) %", line)[3:5]
                    self.assertEqual(shares, [f"{100 * row[key]:.1f}" for key in
                                              ("best_peak_share", "best_peak_share_not_first")])
            keys = ("accuracy", "hard_accuracy") + (("best_peak_share", "best_peak_share_not_first")
                                                     if model == "attention" else ())
            for key in keys:
                values = [row[key] for row in document["runs"]]
                self.assertEqual(document[key]["worst"], min(values))
                self.assertAlmostEqual(document[key]["median"], sum(values) / 2, delta=1e-15)

    # ---- the book's default runs ----

    @unittest.skipIf(SLOW, "1500 steps take about 40 s under the sanitizers")
    def test_the_default_run_reads_i_saw_a_saw(self):
        document = run_json()
        self.assertEqual(document["inputs"]["steps"], 1500)
        self.assertEqual(document["reading"]["words"], ["I", "saw", "a", "saw"])
        self.assertEqual(document["reading"]["answers"], ["pronoun", "verb", "determiner", "noun"])
        self.assertEqual(list(self.parse("I saw a saw", "tagging").tags), document["reading"]["answers"])
        # The preface and the landing page: "in both heads, each saw puts most of its weight on the word just before
        # it".
        self.assertEqual(len(document["reading"]["attention"][0]), document["inputs"]["heads"])
        self.assertEqual(document["inputs"]["heads"], 2)
        for number, head in enumerate(document["reading"]["attention"][0], start=1):
            for saw in (1, 3):
                self.assertGreater(head[saw][saw - 1], 0.5, f"head {number}, the saw at position {saw + 1}")
        # The chapter's claim: above what one word at a time can do, on every word and on the ambiguous ones.
        self.assertGreater(document["accuracy"], document["one_word_ceiling"])
        self.assertGreater(document["ambiguous"]["accuracy"], document["ambiguous"]["one_word_ceiling"] + 0.2)
        # "The heads lean on the clue, but do not always give it their largest weight": each head's mean weight
        # on the clue and its share of largest weights there (the second word left out) are well above a head's
        # that spreads its weight evenly (0.36 and 0.32, 0.42 and 0.28 against 0.11 in the book's run), and
        # neither head's share is all.
        even = document["heads_even_weight"]
        for layer in document["heads"]:
            for head in layer:
                self.assertGreater(head["mean_weight"], 2 * even, head)
                self.assertGreater(head["peak_share_not_first"], 1.5 * even, head)
                self.assertLess(head["peak_share_not_first"], 0.9, head)
        # And above what a word and its position can do, so positions alone do not explain the lead (19 points
        # in the book's run; the margin is kept well below that).
        self.assertGreater(document["ambiguous"]["accuracy"],
                           document["ambiguous"]["word_and_position_ceiling"] + 0.1)

    @unittest.skipIf(SLOW, "1500 steps take about 40 s under the sanitizers")
    def test_the_default_agreement_run_looks_at_the_subject(self):
        document = run_json("--task", "agreement")
        # Over seeds 1-5 at 1500 steps the best head's largest weight from the slot lands on the subject's noun
        # in 52-89 % of the held-out subjects (seed 1: 53 %); the floor, 40 %, is far above what a head that
        # looks anywhere would give (one word of the 2-19 before the slot).
        best = max(head["peak_share"] for layer in document["heads"] for head in layer)
        self.assertGreater(best, 0.4)
        self.assertEqual(document["reading"]["words"], ["the", "key", "to", "the", "cabinets", SLOT])
        self.assertEqual(document["reading"]["answers"], ["one"])
        self.assertEqual(self.parse("the key to the cabinets [verb]", "agreement").number, "one")
        # Seeds 1-5: 99.0-100 % of held-out subjects.
        self.assertGreater(document["accuracy"], 0.9)

    # ---- what the preface, the front page and the chapter say of the book's own runs ----

    def test_the_published_tagger_reads_as_the_preface_says(self):
        # The preface and the front page describe the build's run (`sentences`); each assertion holds one of their
        # sentences, and its failure means those words must change.
        document = published_run("sentences")
        self.assertEqual(document["reading"]["words"], ["I", "saw", "a", "saw"])
        head_1, head_2 = (np.array(head) for head in document["reading"]["attention"][0])
        # "Head 2 shows the pattern most plainly … every word after the first looks hardest at the word just
        # before it" (0.87, 0.74, 0.71 in the book's run, against at most 0.25 elsewhere in each row).
        for row in (1, 2, 3):
            self.assertEqual(head_2[row].argmax(), row - 1, f"head 2, row {row}")
        # "Head 1 also has a habit of its own: a puts … of its weight on I, the first word, not on the word before
        # it" (0.99).
        self.assertEqual(head_1[2].argmax(), 0)
        heads = [head["mean_weight"] for head in document["heads"][0]]
        # "On this average, head 1 is higher" (0.365 against 0.321 here, a gap of some 12 %; a -march=haswell
        # build's run keeps it). Thin for a trained run: a failure on another build means the sentence must change.
        self.assertGreater(heads[0], heads[1])
        even = document["heads_even_weight"]
        for number, (mean, attention) in enumerate(zip(heads, (head_1, head_2)), start=1):
            with self.subTest(head=number):
                # The front page: "Averaged over ambiguous words … the word before gets a smaller share than on I
                # saw a saw", where each saw's weight on the word before it is 0.71 or more.
                self.assertLess(mean, min(attention[1, 0], attention[3, 2]))
                # The preface: "far more than an even share but far less than all".
                self.assertGreater(mean, 2 * even)
                self.assertLess(mean, 0.6)
        # "for most of them 1/n is smaller than a quarter": so is their mean.
        self.assertLess(even, 0.25)

    def test_the_published_seeds_of_both_tasks(self):
        tagging = published_run("sentences_seeds")
        # "The tags are right far more often than that": the worst seed's accuracy on ambiguous words (0.92) well
        # above the median share of the sharpest head's largest weights on the clue (0.53, without the second
        # place 0.50).
        for key in ("best_peak_share", "best_peak_share_not_first"):
            self.assertGreater(tagging["hard_accuracy"]["worst"], tagging[key]["median"] + 0.2, key)
        # In short: "Over five seeds, accuracies change little; the heads' sharpness varies": the accuracies' spread
        # over the seeds a small fraction of the sharpest head's (0.4 points against 44 in the book's run).
        agreement = published_run("sentences_agreement_seeds")
        spread = {key: max(row[key] for row in agreement["runs"]) - min(row[key] for row in agreement["runs"])
                  for key in ("accuracy", "best_peak_share")}
        self.assertLess(spread["accuracy"], spread["best_peak_share"] / 5)

    def test_the_published_agreement_run_beats_the_nearest_noun_rule(self):
        document = published_run("sentences_agreement")
        # In short: "it gives the verb the subject's number despite attractors that defeat the nearest-noun rule".
        # The rule is right only where a noun of the subject's number comes last (38 %, 25 % and 0 % with 1, 2 and
        # 3+ attractors in the book's run); the model 97 % or more in each group.
        groups = [group for group in document["by_attractors"] if group["label"] != "0"]
        self.assertEqual([group["label"] for group in groups], ["1", "2", "3+"])
        for group in groups:
            self.assertGreater(group["model"], group["nearest_noun"] + 0.3, group)
        # "from the slot, this model's head 1 puts on average … on the subject's noun and head 2 …, against … for
        # an even spread": both above it, the better one well above (0.37 and 0.63 against 0.13).
        weights = [head["mean_weight"] for head in document["heads"][0]]
        self.assertGreater(min(weights), document["heads_even_weight"])
        self.assertGreater(max(weights), 2 * document["heads_even_weight"])

    def test_the_published_worst_attention_seed_is_weak_at_every_distance(self):
        # Chapter 13, the figure of accuracy by distance: "Attention's worst seed is low even at distance 1, where
        # nothing separates noun and slot: a weak seed, not hurt by distance."
        runs = published_run("sentences_long_seeds")["attention"]["runs"]
        for seed_run in runs:
            nearest = seed_run["by_distance"][0]
            self.assertEqual(nearest["label"], "1")
            # Nothing between noun and slot: the noun next to the slot is the subject's, so the rule is always right.
            self.assertEqual(nearest["nearest_noun"], 1.0, seed_run["seed"])
        lowest_at_1 = min(runs, key=lambda seed_run: seed_run["by_distance"][0]["model"])
        self.assertEqual(lowest_at_1["seed"], min(runs, key=lambda seed_run: seed_run["accuracy"])["seed"])
        # Not hurt by distance: its accuracy over all the farther subjects is not below its accuracy at distance 1
        # by more than one subject of distance 1's group (about 100 of the 1000 held-out subjects) can move it.
        at_1, farther = lowest_at_1["by_distance"][0], lowest_at_1["by_distance"][1:]
        right_farther = sum(group["model"] * group["count"] for group in farther)
        accuracy_farther = right_farther / sum(group["count"] for group in farther)
        self.assertGreater(accuracy_farther, at_1["model"] - 1 / at_1["count"])

    # ---- the language ----

    def test_the_language_is_printed_without_training(self):
        document = run_json("--language")
        for key in ("rules", "lexicon", "vocabulary", "words", "tags", "ambiguous", "verb_slot"):
            self.assertIn(key, document)
        for key in ("samples", "accuracy", "heads", "reading", "seconds", "training"):  # nothing was trained
            self.assertNotIn(key, document)
        vocabulary = document["vocabulary"]
        self.assertEqual(document["words"], len(vocabulary) - 1)
        self.assertEqual(len(set(vocabulary)), len(vocabulary))
        self.assertEqual(vocabulary[-1], SLOT)
        self.assertEqual(document["verb_slot"], SLOT)
        self.assertEqual(set(vocabulary), WORDS | {SLOT})
        self.assertEqual(vocabulary, self.vocabulary)
        self.assertEqual(document["ambiguous"], AMBIGUOUS)
        self.assertEqual(document["ambiguous_count"], len(AMBIGUOUS))
        self.assertEqual(len(AMBIGUOUS), 12)
        self.assertEqual(document["tags"], list(TAGS))
        # The lexicon it prints is the one written out here.
        expected = {"determiner(one)": DETERMINERS["one"], "determiner(many)": DETERMINERS["many"],
                    "adjective": ADJECTIVES, "noun(one)": [forms[0] for forms in NOUNS],
                    "noun(many)": [forms[1] for forms in NOUNS], "pronoun(one)": SUBJECT_PRONOUNS["one"],
                    "pronoun(many)": SUBJECT_PRONOUNS["many"], "object-pronoun": OBJECT_PRONOUNS,
                    "verb(one)": [forms[0] for forms in PRESENT_VERBS] + [COPULA["one"]],
                    "verb(many)": [forms[1] for forms in PRESENT_VERBS] + [COPULA["many"]],
                    "verb, past": [PAST], "preposition": PREPOSITIONS, "relative": [RELATIVE]}
        printed = {line["class"]: re.sub(r"\s*\(.*\)$", "", line["words"]).split(" ") for line in document["lexicon"]}
        self.assertEqual(printed, {key: list(words) for key, words in expected.items()})
        self.assertIn(f"up to {MODIFIERS['tagging']} modifiers ({MODIFIERS['agreement']} for agreement; --modifiers)",
                      document["rules"][-1])
        tables = run("--language").stdout
        # The printed rules are broken into lines (an alternative to a line) and lose the JSON's aligning spaces.
        for rule in document["rules"]:
            self.assertIn(" ".join(rule.split()), " ".join(tables.split()))
        self.assertIn(" ".join(AMBIGUOUS), tables)
        self.assertNotIn("Training", tables)

    # ---- the command line ----

    def test_help(self):
        self.assert_help_lists("--task", "--model", "attention|recurrent", "--modifiers", f"0 to {MOST_MODIFIERS}",
                               "--sentence", "--steps", "--seed", "--seeds", "--layers", "--weights",
                               "--list-sentences", "--language", "--json", "--json-file")

    def test_bad_inputs(self):
        self.assert_each_refused([
            (["--sentence", "the dogg sees it"], "--sentence"),
            (["--sentence", ""], "--sentence"),
            (["--sentence", "   "], "--sentence"),
            (["--sentence", "the dog [verb]"], "--sentence"),
            (["--sentence", " ".join(["the"] * 41)], "--sentence"),
            (["--task", "nonsense"], "--task"),
            (["--steps", "0"], "--steps"),
            (["--steps", "abc"], "--steps"),
            (["--steps", "100001"], "--steps"),
            (["--layers", "0"], "--layers"),
            (["--layers", "9"], "--layers"),
            (["--seeds", "1,2", "--seed", "3"], "--seeds"),
            (["--seeds", "1,,2"], "--seeds"),
            (["--seeds", "1,2", "--weights"], "--seeds"),
            (["--seed", "-1"], "--seed"),
            (["--model", "nonsense"], "--model"),
            (["--model", "recurrent", "--weights"], "--weights"),
            (["--model", "recurrent", "--layers", "2"], "--layers"),
            (["--modifiers", str(MOST_MODIFIERS + 1)], "--modifiers"),
            (["--modifiers", "x"], "--modifiers"),
            (["--modifiers", "-1"], "--modifiers"),
            # With no phrase after the noun there are fewer different subjects than the held-out set's 1000
            # (4 or 3 determiners, 6 adjective choices, 14 nouns per number: 588), so it is refused, not looped on.
            (["--task", "agreement", "--modifiers", "0"], "--modifiers"),
            (["--task", "agreement", "--both-models"], "--both-models"),
            (["--seeds", "1,2", "--both-models"], "--both-models"),
            (["--task", "agreement", "--seeds", "1,2", "--both-models", "--model", "recurrent"], "--both-models"),
            (["--task", "agreement", "--seeds", "1,2", "--both-models", "--layers", "2"], "--layers"),
        ])
        self.assert_refused(["--model", "nonsense"], "'nonsense'")
        # The word the program does not know is named, as typed.
        self.assert_refused(["--sentence", "the dogg sees it"], "'dogg'")
        self.assert_refused(["--sentence", "the dog [verb]"], "'[verb]'")

    def test_an_unknown_word_is_answered_with_a_flag_that_exists(self):
        message = run("--sentence", "the dogg sees it", check=False).stderr
        help_text = run("--help").stdout
        named = re.findall(r"--[a-z][a-z-]*", message)
        self.assertIn("--sentence", named)
        for flag in named:
            self.assertIn(flag, help_text, f"the message names {flag}, which the program does not take: {message!r}")
        self.assertIn(str(len(WORDS)), message)  # the number of words it says the language has

    def test_forty_words_are_read(self):
        words = ("the dog near the cat near the cat sees the cat near the cat " * 3).split()[:40]
        document = run_json("--steps", "1", "--sentence", " ".join(words))
        self.assertEqual(document["reading"]["words"], words)
        self.assertEqual(len(document["reading"]["probabilities"]), 40)


if __name__ == "__main__":
    unittest.main()
