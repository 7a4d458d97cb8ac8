"""The book's build refuses to guess: a live value, captured output, listing or
figure that is not there stops it with an error that names what is missing.

Each case builds a one-page book with the book's own configuration and
extensions against the real build's outputs, in this process (Sphinx's start-up,
about a second, is paid once instead of once per case). A control page proves that the
same page with the name spelled right does build, so each failure is the
missing thing's doing and nothing else's."""
import html
import io
import os
import re
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace, patch_docutils

REPOSITORY = Path(__file__).resolve().parents[2]


def build(page: str, files: dict[str, str] | None = None):
    """The build's outcome, and the page's HTML if it built. `files` are more pages, by path."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch, "source")
        source.mkdir()
        (source / "src").symlink_to(REPOSITORY / "src")
        (source / "_generated").symlink_to(os.environ["BOOK_GENERATED_DIR"])
        (source / "index.rst").write_text("Page\n====\n\n" + page + "\n")
        # A chapter page for the landing page's list: with a summary, and without.
        (source / "chapters").mkdir()
        (source / "chapters" / "summed.rst").write_text(":summary: One line.\n\nSummed\n======\n")
        (source / "chapters" / "unsummed.rst").write_text(":orphan:\n\nUnsummed\n========\n")
        # A NumPy listing the build checked (chapter 1's), and one it did not.
        (source / "numpy").mkdir()
        (source / "numpy" / "numpy_dot_product.py").symlink_to(REPOSITORY / "chapters/01_dot_product/numpy_dot_product.py")
        (source / "numpy" / "numpy_unchecked.py").write_text("def f(x):\n    # [scores]\n    return x\n    # [scores]\n")
        for path, text in (files or {}).items():
            Path(source, path).write_text(text)
        # As `sphinx-build -b html -q -W` does it: warnings are errors, and an error's text goes to stderr.
        stderr = io.StringIO()
        conf_dir = os.environ["BOOK_CONF_DIR"]
        try:
            with patch_docutils(conf_dir), docutils_namespace():
                application = Sphinx(str(source), conf_dir, str(Path(scratch, "html")), str(Path(scratch, "doctrees")),
                                     "html", status=None, warning=stderr, warningiserror=True)
                application.build()
                returncode = application.statuscode
        except Exception as error:  # what sphinx-build reports, and exits with 2 for
            stderr.write(f"\n{type(error).__name__}: {error}\n")
            returncode = 2
        result = SimpleNamespace(returncode=returncode, stderr=stderr.getvalue())
        page_html = Path(scratch, "html", "index.html")
        return result, page_html.read_text(encoding="utf-8") if page_html.is_file() else None


# A book of two chapters and a glossary whose one term, "widget", chapter 2
# explains; chapter 1 uses it in a sentence that points to chapter 2 or not
# (docs/_ext/glossary_order.py).
GLOSSARY_BOOK = {
    "glossary.rst": "Glossary\n========\n\n.. glossary::\n\n   widget\n      A thing. :ref:`Chapter 2 <term-widget>`.\n",
    "chapters/two.rst": ":orphan:\n\n2. Two\n======\n\n.. _term-widget:\n\nA *widget* is a thing.\n",
}
GLOSSARY_TOCTREE = ".. toctree::\n\n   chapters/one\n   chapters/two\n   glossary\n   chapters/summed\n"


def glossary_book(sentence: str) -> dict[str, str]:
    return dict(GLOSSARY_BOOK, **{"chapters/one.rst": f"1. One\n======\n\n{sentence}\n"})


# A chapter page of so many words of main text (docs/_ext/main_text.py, the budgets).
def chapter_of(words: int, number: str) -> dict[str, str]:
    return {f"chapters/{number}_long.rst": f"{number}. Long\n========\n\n" + "word " * (words - 2) + "\n"}


def chapter_toctree(number: str) -> str:
    return f".. toctree::\n\n   chapters/{number}_long\n   chapters/summed\n"


# Each page, and what the error must name (None: the page must build).
PAGES = {
    "control": ("The score is :value:`dot_product:/scores/0/2`.\n\n"
                ".. output:: dot_product\n\n"
                ".. listing:: /src/attention/scores.hpp\n   :marker: scores\n\n"
                ".. figure:: /_generated/figures/ch01_scores_heatmap.svg\n\n   Scores.\n\n"
                ".. output:: dot_product\n   :show: Scores\n\n"
                ".. chapter-list::\n\n.. toctree::\n\n   chapters/summed\n\n"
                "Inline :math:`\\sqrt{d_k}`, and displayed:\n\n.. math::\n\n   \\frac{QK^\\top}{\\sqrt{d_k}}\n", None),
    "tex_error": ("Text.\n\n.. math::\n\n   \\frac{1}{\\nosuchmacro}\n", "index.rst:6: TeX error in '\\\\frac{1}{\\\\nosuchmacro}': Undefined control sequence \\nosuchmacro"),
    "missing_table": (".. output:: dot_product\n   :show: No such table", "0 tables are titled 'No such table'"),
    "chapter_without_summary": (".. chapter-list::\n\n.. toctree::\n\n   chapters/summed\n   chapters/unsummed\n",
                                "chapters/unsummed.rst has no ':summary:' line"),
    "missing_key": (":value:`dot_product:/scores_of_nothing`", "no key 'scores_of_nothing'"),
    "index_out_of_range": (":value:`dot_product:/scores/0/7`", "no index '7'"),
    "missing_run_in_a_sentence": (":value:`no_such_run:/scores/0/0`", "no output of a run named 'no_such_run'"),
    "missing_printed_output": (".. output:: no_such_run", "no output of a run named 'no_such_run'"),
    "missing_marker": (".. listing:: /src/attention/scores.hpp\n   :marker: no_such_marker",
                       "marker [no_such_marker] appears 0 times"),
    "missing_source_file": (".. listing:: /src/attention/no_such_file.hpp\n   :marker: scores", "no such file"),
    "missing_figure": (".. figure:: /_generated/figures/no_such_figure.svg\n\n   Nothing.\n", "no_such_figure.svg"),
    "numpy_tabs": (".. listing:: /src/attention/scores.hpp\n   :marker: scores\n   :numpy: /numpy/numpy_dot_product.py\n\n"
                   ".. toctree::\n   :hidden:\n\n   chapters/summed\n", None),
    "numpy_listing_not_checked": (".. listing:: /src/attention/scores.hpp\n   :marker: scores\n"
                                  "   :numpy: /numpy/numpy_unchecked.py\n",
                                  "/numpy/numpy_unchecked.py was not checked against the programs"),
    "numpy_marker_not_checked": (".. listing:: /src/attention/scores.hpp\n   :marker: scores_pair_by_pair\n"
                                 "   :numpy: /numpy/numpy_dot_product.py\n",
                                 "the NumPy listing [scores_pair_by_pair] of /numpy/numpy_dot_product.py was not checked"),
    "nested_markers": (".. listing:: /src/attention/attention.hpp\n   :marker: attention\n\n"
                       ".. listing:: /src/attention/attention.hpp\n   :marker: mask\n\n"
                       ".. toctree::\n   :hidden:\n\n   chapters/summed\n", None),
    "answers": ("Why?\n\n.. answers::\n\n   1. Because :value:`dot_product:/scores/0/2`.\n\n"
                ".. toctree::\n\n   chapters/summed\n", None),
    "empty_answers": ("Why?\n\n.. answers::\n", "index.rst:6: answers: has no content"),
    "figure_drawn_twice": (".. figure:: /_generated/figures/ch03_weights_scaled_unscaled.svg\n   :alt: Two heatmaps.\n\n"
                           "   Scaled (:panel:`left`), unscaled (:panel:`right`).\n\n"
                           ".. toctree::\n   :hidden:\n\n   chapters/summed\n", None),
    "panel_under_a_figure_drawn_once": (".. figure:: /_generated/figures/ch03_weights_scaled_unscaled.svg\n\n"
                                        "   Weights.\n\n.. figure:: /_generated/figures/ch01_scores_heatmap.svg\n\n"
                                        "   Scores (:panel:`left`).\n", ":panel:`left`: its figure is drawn once"),
    "panel_on_a_page_without_a_figure_drawn_twice": ("The :panel:`Right` panel.\n",
                                                     ":panel:`Right`: the page has no figure drawn twice"),
    "panel_not_a_place": ("The :panel:`upper` panel.\n", ":panel: takes left, middle or right, not 'upper'"),
    "term_before_its_chapter": (GLOSSARY_TOCTREE, "chapters/one.rst: 'Widgets' is used before chapters/two.rst explains it"),
    "term_with_its_chapter_named": (GLOSSARY_TOCTREE, None),
    "term_with_a_link_to_its_chapter": (GLOSSARY_TOCTREE, None),
    "chapter_over_its_budget": (chapter_toctree("07"),
                                "main text: chapters/07_long holds 2501 words, over its budget of 2500"),
    "chapter_within_its_budget": (chapter_toctree("07"), None),
    "chapters_0_to_6_over_their_budget": (chapter_toctree("03"), "the preface and chapters 0-6 hold 12501 words, "
                                                                 "over their budget of 12500"),
}
# The other pages of each book that has more than one.
FILES = {
    "term_before_its_chapter": glossary_book("Widgets are everywhere."),
    "term_with_its_chapter_named": glossary_book("Widgets, which chapter 2 explains, are everywhere."),
    "term_with_a_link_to_its_chapter": glossary_book("Widgets (:doc:`two`) are everywhere."),
    "chapter_over_its_budget": chapter_of(2501, "07"),
    "chapter_within_its_budget": chapter_of(2500, "07"),
    "chapters_0_to_6_over_their_budget": chapter_of(12501, "03"),
}


class BuildFailsOnMissingInputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.results = {name: build(page, FILES.get(name)) for name, (page, _) in PAGES.items()}

    def check(self, name: str):
        page, named = PAGES[name]
        result, page_html = self.results[name]
        if named is None:
            self.assertEqual(result.returncode, 0, result.stderr)
            return page_html
        else:
            self.assertNotEqual(result.returncode, 0, f"the build should have failed:\n{page}")
            self.assertIn(named, result.stderr)

    def test_control_page_builds(self):
        self.check("control")

    def test_formulas_are_drawn_when_the_book_is_built(self):
        page_html = self.check("control")
        self.assertEqual(page_html.count('<mjx-container class="MathJax" jax="SVG"'), 2)
        self.assertEqual(page_html.count("<mjx-assistive-mml"), 2)
        self.assertIn('<use data-c="221A" xlink:href="#MJX-TEX-N-221A"', page_html)  # the square root's glyph...
        self.assertEqual(page_html.count('<path id="MJX-TEX-N-221A"'), 1)  # ...drawn once for both formulas
        self.assertNotIn("mathjax", page_html.lower().replace("class=\"mathjax\"", ""))

    def test_a_listing_with_numpy_shows_both_in_tabs(self):
        page_html = self.check("numpy_tabs")
        text = re.sub(r"<[^>]+>", "", page_html)
        self.assertEqual(re.findall(r'<button[^>]*class="sphinx-tabs-tab[^"]*"[^>]*>([^<]*)</button>', page_html),
                         ["C++", "NumPy"])
        self.assertIn("return queries * keys.transpose();", html.unescape(text))  # the C++ tab, shown
        self.assertRegex(page_html, r'<div[^>]*aria-labelledby="tab-0-TnVtUHk="[^>]*hidden="true"')  # NumPy: hidden
        self.assertIn("return queries @ keys.T", html.unescape(text))

    def test_a_listing_leaves_out_the_markers_of_a_listing_inside_it(self):
        """attention.hpp's [attention] holds [mask]: the longer listing has the masked lines but not their markers,
        and the shorter one has those lines alone."""
        page_html = self.check("nested_markers")
        listings = [html.unescape(re.sub(r"<[^>]+>", "", block))
                    for block in re.findall(r'<div class="highlight"><pre>(.*?)</pre>', page_html, re.S)]
        self.assertEqual(len(listings), 2)
        whole, mask = listings
        self.assertNotIn("[mask]", whole)
        self.assertIn(mask, whole)
        self.assertTrue(whole.startswith("steps.scores = scores(queries, keys);"), whole)
        self.assertEqual(mask.count("\n"), 3, mask)
        self.assertTrue(mask.startswith("const Scalar fill"), mask)

    def test_the_page_loads_nothing_from_outside(self):
        """The tabs' and copy buttons' scripts and styles come from the book's own _static folder."""
        page_html = self.check("numpy_tabs")
        loaded = re.findall(r'<script\b[^>]*\bsrc="([^"]+)"', page_html) + \
            re.findall(r'<link\b[^>]*\brel="stylesheet"[^>]*\bhref="([^"]+)"', page_html)
        self.assertTrue(any(url.endswith("tabs.js") for url in loaded), loaded)
        self.assertTrue(any(url.endswith("clipboard.min.js") for url in loaded), loaded)
        self.assertEqual([url for url in loaded if not url.startswith("_static/")], [])

    def test_a_numpy_listing_not_checked(self):
        self.check("numpy_listing_not_checked")

    def test_a_numpy_marker_not_checked(self):
        self.check("numpy_marker_not_checked")

    def test_tex_error(self):
        self.check("tex_error")

    def test_missing_key(self):
        self.check("missing_key")

    def test_index_out_of_range(self):
        self.check("index_out_of_range")

    def test_missing_run_in_a_sentence(self):
        self.check("missing_run_in_a_sentence")

    def test_missing_printed_output(self):
        self.check("missing_printed_output")

    def test_missing_marker(self):
        self.check("missing_marker")

    def test_missing_source_file(self):
        self.check("missing_source_file")

    def test_missing_figure(self):
        self.check("missing_figure")

    def test_missing_table_in_an_output(self):
        self.check("missing_table")

    def test_chapter_without_summary(self):
        self.check("chapter_without_summary")

    def test_answers_are_folded(self):
        page_html = self.check("answers")
        self.assertRegex(page_html, r'<details class="answers">\s*<summary>Answers</summary>')
        self.assertIn('class="live-number">1</span>', page_html)

    def test_empty_answers(self):
        self.check("empty_answers")

    def test_a_figure_drawn_twice_shows_its_narrow_drawing_on_a_narrow_screen(self):
        """figures/ch03_weights_scaled_unscaled.py draws NAME.narrow.svg too: one <picture>, the narrow
        drawing as its source up to 40em, and the words that name a panel by its side in both layouts."""
        page_html = self.check("figure_drawn_twice")
        self.assertRegex(page_html, r'<div class="figure-scroll"><a class="figure-full" '
                                    r'href="_images/ch03_weights_scaled_unscaled\.svg" [^>]*>'
                                    r'<picture><source media="\(max-width: 40em\)" '
                                    r'srcset="_images/ch03_weights_scaled_unscaled\.narrow\.svg">'
                                    r'<img alt="Two heatmaps\." src="_images/ch03_weights_scaled_unscaled\.svg" ?/?>'
                                    r'</picture></a></div>')
        self.assertEqual(page_html.count("<img"), 1)
        self.assertIn('Scaled (<span class="on-wide">left</span><span class="on-narrow">top</span>), unscaled '
                      '(<span class="on-wide">right</span><span class="on-narrow">bottom</span>).', page_html)

    def test_a_figure_drawn_once_scrolls_in_a_box_of_its_own_and_links_to_itself(self):
        """The page is written with the box and the link (docs/_ext/narrow_figures.py), not rearranged by a script."""
        page_html = self.check("control")
        self.assertRegex(page_html, r'<div class="figure-scroll"><a class="figure-full" '
                                    r'href="_images/ch01_scores_heatmap\.svg" title="[^"]+">'
                                    r'<img [^>]*src="_images/ch01_scores_heatmap\.svg" ?/?></a></div>')

    def test_a_panel_named_by_its_side_under_a_figure_drawn_once(self):
        self.check("panel_under_a_figure_drawn_once")

    def test_a_panel_named_by_its_side_on_a_page_without_a_figure_drawn_twice(self):
        self.check("panel_on_a_page_without_a_figure_drawn_twice")

    def test_a_panel_named_by_what_is_not_a_side(self):
        self.check("panel_not_a_place")

    def test_term_used_before_its_chapter(self):
        self.check("term_before_its_chapter")

    def test_term_used_before_its_chapter_with_the_chapter_named(self):
        self.check("term_with_its_chapter_named")

    def test_term_used_before_its_chapter_with_a_link_there(self):
        self.check("term_with_a_link_to_its_chapter")

    def test_a_chapter_over_its_budget_of_main_text(self):
        self.check("chapter_over_its_budget")

    def test_a_chapter_at_its_budget_of_main_text(self):
        self.check("chapter_within_its_budget")

    def test_chapters_0_to_6_over_their_budget_of_main_text(self):
        self.check("chapters_0_to_6_over_their_budget")


if __name__ == "__main__":
    unittest.main()
