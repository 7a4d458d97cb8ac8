"""tools/cached_command.py runs a command that writes its --output files, or
copies them from the book's cache when the same command ran on the same
--input files before. A figure drawn twice (figures/figure_style.py,
save_wide_and_narrow) has two outputs: both come back, or the command runs."""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
CACHED_COMMAND = REPOSITORY / "tools" / "cached_command.py"

# A stand-in for a figure script: writes "wide" and "narrow" into the two paths
# it is given, and one more line into a log of its runs.
WRITES_TWO = """import sys
open(sys.argv[1], "w").write("wide " + open(sys.argv[4]).read())
open(sys.argv[2], "w").write("narrow " + open(sys.argv[4]).read())
open(sys.argv[3], "a").write("ran\\n")
"""


class CachedCommand(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.folder = Path(scratch.name)
        self.script = self.folder / "writes_two.py"
        self.script.write_text(WRITES_TWO)
        self.data = self.folder / "data.json"
        self.data.write_text("1")
        self.log = self.folder / "runs.log"
        self.wide, self.narrow = self.folder / "figure.svg", self.folder / "figure.narrow.svg"

    def run_cached(self):
        for output in (self.wide, self.narrow):
            output.unlink(missing_ok=True)
        subprocess.run([sys.executable, CACHED_COMMAND, f"--output={self.wide}", f"--output={self.narrow}",
                        "--cache", "figures", "--strip", str(self.folder), f"--input={self.data}", "--",
                        sys.executable, self.script, self.wide, self.narrow, self.log, self.data],
                       check=True, env=dict(os.environ, BOOK_CACHE_DIR=str(self.folder / "cache")))
        return self.wide.read_text(), self.narrow.read_text(), self.log.read_text().count("ran")

    def test_both_outputs_come_back_from_the_cache(self):
        self.assertEqual(self.run_cached(), ("wide 1", "narrow 1", 1))
        self.assertEqual(self.run_cached(), ("wide 1", "narrow 1", 1))

    def test_a_changed_input_runs_the_command_again(self):
        self.run_cached()
        self.data.write_text("2")
        self.assertEqual(self.run_cached(), ("wide 2", "narrow 2", 2))

    def test_a_second_output_missing_from_the_cache_runs_the_command_again(self):
        self.run_cached()
        kept = sorted((self.folder / "cache" / "figures").iterdir())
        self.assertEqual([path.suffix for path in kept], ["", ".1"])
        kept[1].unlink()
        self.assertEqual(self.run_cached(), ("wide 1", "narrow 1", 2))


if __name__ == "__main__":
    unittest.main()
