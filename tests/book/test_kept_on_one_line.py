"""What the book keeps on one line for a phone's narrow column: an option in inline code with
its short value (docs/_ext/book.py, keep_options_whole) and an inline formula with the
punctuation after it (docs/_ext/book_math.py, keep_punctuation_with_formulas). Both rewrite a
paragraph's children by position: a text that appears twice in a paragraph stays where it was,
and the paragraph's text is unchanged."""
import sys
import unittest
from pathlib import Path

from docutils import nodes
from docutils.utils import new_document

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "docs" / "_ext"))

from book import keep_options_whole  # noqa: E402
from book_math import keep_punctuation_with_formulas  # noqa: E402


def document_of(*children: nodes.Node) -> tuple[nodes.document, nodes.paragraph]:
    document = new_document("test")
    paragraph = nodes.paragraph()
    paragraph += list(children)
    document += paragraph
    return document, paragraph


def kept_whole(node: nodes.Element, kind: str) -> list[str]:
    return [inline.astext() for inline in node.findall(nodes.inline) if kind in inline["classes"]]


class OptionsWhole(unittest.TestCase):
    def options_in(self, text: str) -> list[str]:
        document, paragraph = document_of(nodes.literal(text, text))
        keep_options_whole(None, document, "test")
        self.assertEqual(paragraph.astext(), text)
        return kept_whole(paragraph, "option")

    def test_an_option_keeps_its_short_value_and_the_bracket_before_it(self):
        self.assertEqual(self.options_in("add --seed 2 to it"), ["--seed 2"])
        self.assertEqual(self.options_in("(--help)"), ["(--help"])
        self.assertEqual(self.options_in("build/bin/a --q '1,0; 0,1' -v"), ["--q '1,0;", "-v"])

    def test_a_long_value_or_a_negative_one_is_left_to_break(self):
        self.assertEqual(self.options_in("--dk 1,4,16,256,4096"), ["--dk"])
        self.assertEqual(self.options_in("--shift -3"), ["--shift"])

    def test_no_option_no_change(self):
        self.assertEqual(self.options_in("build/bin/dot_product"), [])
        self.assertEqual(self.options_in("x-y and a - b"), [])

    def test_the_same_text_twice_keeps_its_place(self):
        literal = nodes.literal()
        literal += [nodes.Text("a --q 1 "), nodes.inline("", "middle"), nodes.Text("a --q 1 ")]
        document, paragraph = document_of(literal)
        keep_options_whole(None, document, "test")
        self.assertEqual(paragraph.astext(), "a --q 1 middlea --q 1 ")
        self.assertEqual(kept_whole(paragraph, "option"), ["--q 1", "--q 1"])


class PunctuationWithFormulas(unittest.TestCase):
    def test_the_punctuation_after_a_formula_joins_it(self):
        document, paragraph = document_of(nodes.Text("so "), nodes.math("x", "x"), nodes.Text(", and more."))
        keep_punctuation_with_formulas(None, document, "test")
        self.assertEqual(paragraph.astext(), "so x, and more.")
        self.assertEqual(kept_whole(paragraph, "formula-and-punctuation"), ["x,"])

    def test_an_opening_bracket_before_a_formula_joins_it_and_the_closing_one_too(self):
        document, paragraph = document_of(nodes.Text("the fraction t ("), nodes.math("x", "x"),
                                          nodes.Text(", chapter 3) and “"), nodes.math("y", "y"), nodes.Text("” here"))
        keep_punctuation_with_formulas(None, document, "test")
        self.assertEqual(paragraph.astext(), "the fraction t (x, chapter 3) and “y” here")
        self.assertEqual(kept_whole(paragraph, "formula-and-punctuation"), ["(x,", "“y”"])

    def test_a_formula_followed_by_a_word_is_left_alone(self):
        document, paragraph = document_of(nodes.math("x", "x"), nodes.Text(" is"))
        keep_punctuation_with_formulas(None, document, "test")
        self.assertEqual(kept_whole(paragraph, "formula-and-punctuation"), [])

    def test_the_same_text_before_and_after_keeps_its_place(self):
        # ", " before the formula and ", " after it: the one after joins the formula.
        document, paragraph = document_of(nodes.Text("a, "), nodes.emphasis("", "cat"), nodes.Text(", "),
                                          nodes.math("y", "y"), nodes.Text(", "), nodes.math("z", "z"), nodes.Text("."))
        keep_punctuation_with_formulas(None, document, "test")
        self.assertEqual(paragraph.astext(), "a, cat, y, z.")
        self.assertEqual(kept_whole(paragraph, "formula-and-punctuation"), ["y,", "z."])


if __name__ == "__main__":
    unittest.main()
