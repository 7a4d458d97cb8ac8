"""tools/chapter_runs.py reads the runs that end a chapter's index.rst: the
document after `.. runs::`, indented, last on the page. A page without the block
has no runs (the preface); a block that is not last, not JSON, names no run, or
comes twice is refused with the page named. As a command it writes
<folder>.json only when the runs change, and removes it when they go."""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
TOOL = REPOSITORY / "tools" / "chapter_runs.py"
sys.path.insert(0, str(REPOSITORY / "tools"))
from chapter_runs import chapter_runs, runs_document  # noqa: E402  (the tools folder is not a package)

PROSE = "3. A chapter\n============\n\nSome prose.\n\n.. output:: toy\n"
BLOCK = '.. runs::\n\n   {"compile": ["SPEED"],\n    "runs": {"toy": [], "toy_wide": ["--d", "8; 9"]}}\n'


class ChapterRuns(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.folder = Path(scratch.name) / "03_toy"
        self.folder.mkdir()
        self.page = self.folder / "index.rst"

    def refused(self, text: str, named: str) -> None:
        self.page.write_text(text)
        with self.assertRaises(ValueError) as raised:
            runs_document(self.page)
        self.assertIn(str(self.page), str(raised.exception))
        self.assertIn(named, str(raised.exception))

    def test_the_block_that_ends_the_page_is_its_runs(self):
        self.page.write_text(PROSE + "\n" + BLOCK)
        self.assertEqual(chapter_runs(self.folder), {"toy": [], "toy_wide": ["--d", "8; 9"]})
        self.assertEqual(runs_document(self.page)["compile"], ["SPEED"])

    def test_a_page_without_the_block_has_no_runs(self):
        self.page.write_text(PROSE)
        self.assertIsNone(runs_document(self.page))
        with self.assertRaises(ValueError):
            chapter_runs(self.folder)

    def test_a_malformed_block_is_refused_with_the_page_named(self):
        self.refused(PROSE + BLOCK + "\nMore prose.\n", "text after")
        self.refused(PROSE + BLOCK.replace('"toy": []', '"toy": [')[:-1] + "\n", "not JSON")
        self.refused(PROSE + '.. runs::\n\n   {"runs": {}}\n', "with a run")
        self.refused(PROSE + '.. runs::\n\n   ["toy"]\n', "with a run")
        self.refused(PROSE + BLOCK + "\n" + BLOCK, "2 '.. runs::' blocks")

    def test_every_chapter_with_a_program_has_runs_and_the_preface_none(self):
        for folder in sorted((REPOSITORY / "chapters").iterdir()):
            with self.subTest(folder=folder.name):
                slug = folder.name[3:]  # NN_slug: a program's sources, or the one header slug.hpp (chapter 1)
                has_program = (folder / f"{slug}.hpp").exists() or any(
                    not path.name.startswith("test_") for path in folder.glob("*.cpp"))
                self.assertEqual(runs_document(folder / "index.rst") is not None, has_program)

    def test_the_command_writes_only_what_changed_and_removes_what_went(self):
        out = self.folder.parent / "runs"
        self.page.write_text(PROSE + "\n" + BLOCK)
        command = [sys.executable, str(TOOL), "--out-dir", str(out), str(self.folder)]
        subprocess.run(command, check=True)
        written = out / "03_toy.json"
        self.assertEqual(json.loads(written.read_text())["runs"]["toy"], [])
        before = written.stat().st_mtime_ns
        self.page.write_text(PROSE + "Other prose.\n\n" + BLOCK)  # the prose changes, the runs do not
        subprocess.run(command, check=True)
        self.assertEqual(written.stat().st_mtime_ns, before)
        self.page.write_text(PROSE + BLOCK + "\nMore prose.\n")
        refused = subprocess.run(command, capture_output=True, text=True, check=False)
        self.assertEqual(refused.returncode, 1)
        self.assertIn("text after", refused.stderr)
        self.page.write_text(PROSE)
        subprocess.run(command, check=True)
        self.assertFalse(written.exists())


if __name__ == "__main__":
    unittest.main()
