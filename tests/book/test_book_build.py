"""The book's build refuses to guess: a live value, captured output, listing or
figure that is not there stops it with an error that names what is missing.

Each case builds a one-page book with the book's own configuration and
extension against the real build's outputs. A control page proves that the
same page with the name spelled right does build, so each failure is the
missing thing's doing and nothing else's."""
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


def build(page: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch, "source")
        source.mkdir()
        (source / "src").symlink_to(REPOSITORY / "src")
        (source / "_generated").symlink_to(os.environ["BOOK_GENERATED_DIR"])
        (source / "index.rst").write_text("Page\n====\n\n" + page + "\n")
        return subprocess.run(
            [os.environ["SPHINX_BUILD"], "-b", "html", "-q", "-W", "-c", os.environ["BOOK_CONF_DIR"],
             str(source), str(Path(scratch, "html"))],
            capture_output=True, text=True, timeout=120)


class BuildFailsOnMissingInputs(unittest.TestCase):
    def assert_fails(self, page: str, named: str):
        result = build(page)
        self.assertNotEqual(result.returncode, 0, f"the build should have failed:\n{page}")
        self.assertIn(named, result.stderr)

    def test_control_page_builds(self):
        page = ("The score is :value:`dot_product:/scores/0/2`.\n\n"
                ".. output:: dot_product\n\n"
                ".. listing:: /src/attention/scores.hpp\n   :marker: scores\n\n"
                ".. figure:: /_generated/figures/ch01_scores_heatmap.svg\n\n   Scores.\n")
        result = build(page)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_missing_key(self):
        self.assert_fails(":value:`dot_product:/scores_of_nothing`", "no key 'scores_of_nothing'")

    def test_index_out_of_range(self):
        self.assert_fails(":value:`dot_product:/scores/0/7`", "no index '7'")

    def test_missing_run_in_a_sentence(self):
        self.assert_fails(":value:`no_such_run:/scores/0/0`", "no output of a run named 'no_such_run'")

    def test_missing_printed_output(self):
        self.assert_fails(".. output:: no_such_run", "no output of a run named 'no_such_run'")

    def test_missing_marker(self):
        self.assert_fails(".. listing:: /src/attention/scores.hpp\n   :marker: no_such_marker",
                          "marker [no_such_marker] appears 0 times")

    def test_missing_source_file(self):
        self.assert_fails(".. listing:: /src/attention/no_such_file.hpp\n   :marker: scores", "no such file")

    def test_missing_figure(self):
        self.assert_fails(".. figure:: /_generated/figures/no_such_figure.svg\n\n   Nothing.\n", "no_such_figure.svg")


if __name__ == "__main__":
    unittest.main()
