"""The check behind the NumPy tabs can fail: a wrong NumPy listing stops the build.

The build runs tools/check_numpy_listings.py on each chapter's numpy_*.py,
against the chapter's captured runs (cmake/Book.cmake); a non-zero exit fails
`cmake --build`. Here the same command runs on copies of the book's own
listings, each with one deliberate mistake of the kind a reader could make (a
missing square root, the wrong axis, a transposed product, < for <=), and on
listings the check cannot vouch for (code no comparison looks at, a line that
never runs). Each must fail with a message naming the listing; the unchanged
copies, in the same place, must pass, so each failure is the mistake's doing."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
TOOL = REPOSITORY / "tools" / "check_numpy_listings.py"
sys.path.insert(0, str(REPOSITORY / "tools"))
from chapter_runs import runs_document  # noqa: E402  (the runs that end a chapter's index.rst)
CHAPTERS = {"01_dot_product": "numpy_dot_product.py", "03_softmax": "numpy_softmax.py",
            "04_masking": "numpy_masking.py"}

# (chapter, the text to replace, its replacement, what the failure must name)
MISTAKES = {
    "no_square_root": ("03_softmax", "scores / np.sqrt(d_k)", "scores / d_k",
                       "numpy_softmax.py [attention], the toy's scaled_scores, scaled: NumPy and the C++ program "
                       "disagree: they differ by up to 0.414"),
    "wrong_axis": ("03_softmax", "exponentials.sum(axis=1, keepdims=True)", "exponentials.sum(axis=0, keepdims=True)",
                   "numpy_softmax.py [softmax_row], the toy's weights, scaled, from its scores: NumPy and the C++ "
                   "program disagree"),
    "transposed": ("01_dot_product", "return queries @ keys.T", "return keys @ queries.T",
                   "numpy_dot_product.py [scores], QKᵀ of the run dot_product: NumPy and the C++ program disagree"),
    "strict_mask": ("04_masking", "return j <= i", "return j < i",
                    "numpy_masking.py [causal_mask], the mask of the run masking: NumPy and the C++ program disagree: "
                    "NumPy gives [[False, False, False]"),
    "compared_nothing": ("01_dot_product", "def comparisons(run):",
                         "def unchecked(x):\n    # [unchecked]\n    return 2 * x\n    # [unchecked]\n\n\n"
                         "def comparisons(run):",
                         "numpy_dot_product.py [unchecked]: no comparison names this listing"),
    "never_ran": ("01_dot_product", "    return queries @ keys.T",
                  "    if queries.size == 0:\n        return None\n    return queries @ keys.T",
                  "numpy_dot_product.py [scores]: line {line of return None} never ran in the check"),
    "fails_to_run": ("03_softmax", "output = weights @ values", "output = weights @ values.T",
                     "numpy_softmax.py (line {line of output = weights @ values.T}): ValueError: matmul"),
}


def line_of(text: str, listing: str) -> str:
    """The number of the line of `listing` that holds `text`."""
    [number] = [number for number, line in enumerate(listing.splitlines(), start=1) if text in line]
    return str(number)


def check(chapters: Path, chapter: str) -> subprocess.CompletedProcess:
    """The build's command, on the copy of one chapter's listing under `chapters`."""
    return subprocess.run(
        [sys.executable, str(TOOL), "--listing", str(chapters / chapter / CHAPTERS[chapter]),
         "--runs", str(chapters / chapter / "runs_of_the_page.json"),
         "--outputs", os.environ["BOOK_OUTPUTS_DIR"], "--out", str(chapters / f"{chapter}.json")],
        capture_output=True, text=True, check=False)


class WrongNumpyListingsFail(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.chapters = Path(scratch.name)
        for chapter, name in CHAPTERS.items():  # chapter 4 imports chapter 3's, as in the book
            (self.chapters / chapter).mkdir()
            shutil.copy(REPOSITORY / "chapters" / chapter / name, self.chapters / chapter / name)
            # The chapter's runs, as the build hands them to the check (tools/chapter_runs.py)
            runs = runs_document(REPOSITORY / "chapters" / chapter / "index.rst")
            (self.chapters / chapter / "runs_of_the_page.json").write_text(json.dumps(runs))

    def test_the_book_s_listings_pass(self):
        for chapter in CHAPTERS:
            with self.subTest(chapter=chapter):
                result = check(self.chapters, chapter)
                self.assertEqual(result.returncode, 0, result.stderr)
                report = json.loads((self.chapters / f"{chapter}.json").read_text())
                for listing, comparisons in report["listings"].items():
                    self.assertTrue(comparisons, listing)
                    self.assertLessEqual(max(c["largest_relative_difference"] for c in comparisons), 1e-12)

    def test_each_mistake_fails_the_check(self):
        for name, (chapter, before, after, named) in MISTAKES.items():
            with self.subTest(mistake=name):
                path = self.chapters / chapter / CHAPTERS[chapter]
                original = path.read_text()
                self.assertEqual(original.count(before), 1, f"{before!r} is no longer in {path.name}")
                mutated = original.replace(before, after)
                path.write_text(mutated)
                named = re.sub(r"\{line of (.*?)\}", lambda match: line_of(match.group(1), mutated), named)
                try:
                    result = check(self.chapters, chapter)
                finally:
                    path.write_text(original)
                self.assertEqual(result.returncode, 1, f"the check should have failed:\n{result.stderr}")
                self.assertIn(named, result.stderr)
                self.assertFalse((self.chapters / f"{chapter}.json").exists(), "a failed check leaves no report")


if __name__ == "__main__":
    unittest.main()
