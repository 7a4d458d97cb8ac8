"""The rendered book speaks to its readers. Three checks of its text:

- No working labels. The book's sources are named as a reader can find them
  (an author and a title, or "a Thai-language web lesson ..."), never by the
  file numbers or folders they were kept under while the book was written
  ("seed 003", "seeds/"), nor as "the source notes" or "the source's numbers";
  and the book never speaks of the work items it was written from ("the issue
  behind this chapter"). Every page, every figure and every inline script of
  build/book/html is searched, as text with the markup removed. The same
  search finds a role that reached the page as typed (":value:`…`" glued to
  a character reST does not accept before a role) instead of rendered.
- The landing page's list of the chapters that use the toy sentence holds:
  each chapter it names does work *cat eat fish*.
- Every live value's note gives its command as typed: a dash where the
  command has "--", or a curly quote where it has "'", and the command a
  reader copies is refused.
- No closing quotation mark drawn as an opening one. Sphinx curls a straight
  quote by the text around it, and a quote typed right after a role (a live
  value) has no text before it, so it curls the wrong way: *wrote
  "the book"* came out as “the book“. The sources type such quotes curled.

The patterns are tested on planted examples first, so that a check that finds
nothing is known to be able to find something."""
import functools
import html
import os
import re
import unittest
from pathlib import Path

# What a working label looks like, each with why a reader cannot use it.
LABELS = [
    (re.compile(r"\bseeds?[\s_-]*#?0\d\d\b", re.I), "a source's file number (seed 003)"),
    # Not a JSON pointer into a program's document, as a live value's note shows it: /seeds/0/wrong_digits.
    (re.compile(r"\bseeds?/(?!\d+(?:/|\b))", re.I), "a path into the folder the sources were kept in"),
    (re.compile(r"\bsource notes\b", re.I), '"the source notes": name the text instead'),
    # reST reads a role only after a space or punctuation it knows: "−:value:`…`" prints as typed.
    (re.compile(r":(?:value|math|doc|ref|term|refused|cpp:func|cpp:class):`"), "a role printed as typed, not rendered"),
    (re.compile(r"\bthe (?:book's )?source's\b", re.I), '"the source\'s ...": name the text instead'),
    (re.compile(r"\bthe book's source\b", re.I), '"the book\'s source": name the text instead'),
    (re.compile(r"\bissue\s*#?\d+", re.I), "a work item's number"),
    (re.compile(r"\bissue's\b", re.I), "a work item"),
    (re.compile(r"\b(?:the|this|that|an|our) issue (?:behind|asked|asks|set|sets|filed|says|said|wants|calls)\b",
                re.I), "a work item"),
]

# Text that contains a pattern's words in a sense a reader knows: cross-attention's source sentence.
ALLOWED = [re.compile(r"as wide as the source's", re.I)]


def page_text(markup: str) -> str:
    """The text of an HTML page or an SVG: tags and styles removed, entities and curly
    apostrophes read as text. Inline scripts are kept: their strings are labels on the page."""
    markup = re.sub(r"<style\b.*?</style>", " ", markup, flags=re.S | re.I)
    text = html.unescape(re.sub(r"<[^>]+>", "", markup))
    return text.replace("\u2019", "'").replace("\u2018", "'")


def working_labels(text: str) -> list[str]:
    """Each working label in @p text, with what is wrong and the words around it."""
    for allowed in ALLOWED:
        text = allowed.sub(" ", text)
    found = []
    for pattern, why in LABELS:
        for match in pattern.finditer(text):
            around = " ".join(text[max(0, match.start() - 50):match.end() + 50].split())
            found.append(f"{why}: ...{around}...")
    return found


# An opening quotation mark after a letter, digit or closing mark, and before a space or punctuation: it closes
# a quotation, drawn the wrong way round.
BACKWARD_QUOTE = re.compile(r"(?<=[^\s(\[—–-])“(?=[\s.,;:!?)]|$)")


def backward_quotes(text: str) -> list[str]:
    """Each closing quotation mark drawn as an opening one in @p text, with the words around it."""
    return [" ".join(text[max(0, match.start() - 50):match.end() + 20].split()) for match in BACKWARD_QUOTE.finditer(text)]


# The note under a live value: the command that printed it, then its JSON pointer.
PROVENANCE = re.compile(r'<span class="provenance">([^<]*)</span>')
TYPOGRAPHIC = re.compile("[\u2013\u2014\u2018\u2019\u201c\u201d]")


def commands_not_as_typed(markup: str) -> list[str]:
    """Each live value's note in the HTML @p markup whose command holds a dash or a curly quote, which a
    shell passes on as it is and the program refuses."""
    return [html.unescape(note) for note in PROVENANCE.findall(markup) if TYPOGRAPHIC.search(html.unescape(note))]


class CommandsAsTyped(unittest.TestCase):
    def test_a_dash_or_a_curly_quote_in_a_note_is_found(self):
        for planted in ('<span class="provenance">build/bin/dot_product \u2013json, /queries/0</span>',
                        "<span class=\"provenance\">build/bin/generating --prompt \u2018the key\u2019 --json, /x</span>"):
            with self.subTest(planted=planted):
                self.assertEqual(len(commands_not_as_typed(planted)), 1)

    def test_a_command_as_typed_is_not(self):
        fine = "<span class=\"provenance\">build/bin/generating --prompt 'the key' --json, /generation/0</span>"
        self.assertEqual(commands_not_as_typed(fine), [])


class BackwardQuotes(unittest.TestCase):
    def test_a_closing_quote_drawn_as_an_opening_one_is_found(self):
        # As chapter 14 printed a live value in quotes, its provenance note after the word.
        planted = "heads 1 to 4 looked hardest at\n“isbuild/bin/generating –json, /generation/last_looks_at/0/0“,"
        self.assertEqual(len(backward_quotes(planted)), 1)
        self.assertTrue(backward_quotes("The model wrote “the big book“: the same sentence."))

    def test_quotes_the_right_way_round_are_not(self):
        for fine in ("the grammar allows “is” there", "(“the”, “a”)", "—“so”", "a word such as “the”.", "“Yes.”"):
            with self.subTest(text=fine):
                self.assertEqual(backward_quotes(fine), [])


class PatternsFindPlantedLabels(unittest.TestCase):
    """The check can fail: each label the book once printed is found, in its page's markup."""

    def test_each_planted_label_is_found(self):
        planted = [
            "The facts and examples come from the lecture notes (the source notes of this book, seed 003).",
            "The lecture notes (seed 003, §10) compare self-attention on an image with a convolution.",
            "These are the source&#8217;s numbers, digit for digit.",
            "The worked example: the source’s walkthrough, digit for digit",
            "<p><strong>The goals.</strong> The issue behind this chapter set four goals.</p>",
            "The issue's goals, judged on this run.",
            "As seed 000 prints it.",
            "The text is in /work/shared/seeds/003_d28d.txt.",
            "Fixed for issue #23.",
            "the shapes of the book's source",
            "for a double it is about e to the power −:value:`masking:/underflow/double_underflow_gap:.0f`.",
        ]
        for example in planted:
            with self.subTest(example=example):
                self.assertTrue(working_labels(page_text(example)), f"not found: {example!r}")

    def test_a_label_split_by_markup_is_found(self):
        self.assertTrue(working_labels(page_text("the lecture notes (<em>seed</em> 003)")))
        self.assertTrue(working_labels(page_text("<script>const label = 'the source\\'s x';</script>the source's x")))

    def test_what_readers_can_use_is_not_a_label(self):
        fine = [
            "With seed 2, head 2 puts 0.404 of its weight there; seeds 1 to 5 are in the table.",
            "build/bin/training --seed 7 --seeds 1,2,3",
            "the seed of np.random.default_rng, and each seed's run",
            "cross: the target sentence's vectors (queries), as wide as the source's",
            "the source sentence, the source language, an issue of precision",
            "The lecture notes (their section 10) compare self-attention with a convolution.",
            "The graph chapter's numbers, digit for digit.",
            "build/bin/training --seeds 1,2,3,4,5 --json, /seeds/0/wrong_digits",
            "the value at /seeds/4 of the run's JSON",
        ]
        for example in fine:
            with self.subTest(example=example):
                self.assertEqual(working_labels(page_text(example)), [])


@functools.cache
def rendered_texts(root: Path) -> dict[str, str]:
    """The text of every page and every SVG figure of the rendered book at @p root, by its path there: read once
    for all the checks."""
    return {str(page.relative_to(root)): page_text(page.read_text())
            for page in sorted([*root.rglob("*.html"), *root.rglob("*.svg")])}


class RenderedBook(unittest.TestCase):
    def setUp(self):
        self.html = Path(os.environ.get("BOOK_HTML_DIR", ""))
        if not (self.html / "index.html").is_file():
            self.fail(f"no rendered book at BOOK_HTML_DIR={self.html}: build it first")

    def test_no_working_labels_in_the_rendered_book(self):
        pages = rendered_texts(self.html)
        self.assertGreater(len(pages), 10)
        found = [f"{name}: {label}" for name, text in pages.items() for label in working_labels(text)]
        self.assertEqual(found, [], "working labels in the rendered book:\n" + "\n".join(found))

    def test_every_live_value_gives_its_command_as_typed(self):
        found = [f"{page.relative_to(self.html)}: {note}" for page in sorted(self.html.rglob("*.html"))
                 for note in commands_not_as_typed(page.read_text())]
        self.assertEqual(found, [], "commands not as typed under live values:\n" + "\n".join(found))

    def test_no_closing_quote_is_drawn_as_an_opening_one(self):
        pages = {name: text for name, text in rendered_texts(self.html).items() if name.endswith(".html")}
        found = [f"{name}: ...{around}..." for name, text in pages.items() for around in backward_quotes(text)]
        self.assertEqual(found, [], "closing quotation marks drawn as opening ones:\n" + "\n".join(found))

    def test_the_chapters_the_landing_page_names_use_the_toy(self):
        text = " ".join(page_text((self.html / "index.html").read_text()).split())
        claim = re.search(r"Chapters ((?:\d+, )*\d+ and \d+) use one small example, the three-word sentence cat eat fish",
                          text)
        self.assertIsNotNone(claim, "the landing page no longer says which chapters use the toy")
        numbers = [int(number) for number in re.findall(r"\d+", claim.group(1))]
        for number in numbers:
            with self.subTest(chapter=number):
                [folder] = [path for path in (self.html / "chapters").iterdir()
                            if path.name.startswith(f"{number:02d}_") and path.name != "00_preface"]
                chapter = " ".join(page_text((folder / "index.html").read_text()).split())
                self.assertIn("cat eat fish", chapter)


if __name__ == "__main__":
    unittest.main()
