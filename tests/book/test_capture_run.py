"""tools/capture_run.py writes <run>.txt, <run>.json and <run>.command into
--out, with file names made from the run's name: a name that could reach
outside --out ("../x", "a/b", ".hidden") is refused before anything is run or
written."""
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
CAPTURE_RUN = REPOSITORY / "tools" / "capture_run.py"

# A stand-in for a chapter program: its tables, or with --json one JSON document.
FAKE_PROGRAM = """#!{python}
import sys
print('{{"arguments": %d}}' % (len(sys.argv) - 2) if sys.argv[-1] == "--json" else "a table")
"""


class CaptureRun(unittest.TestCase):
    def setUp(self):
        self.folder = Path(tempfile.mkdtemp(prefix="capture_run_test_"))
        self.addCleanup(shutil.rmtree, self.folder)
        self.program = self.folder / "bin" / "fake_chapter"
        self.program.parent.mkdir()
        self.program.write_text(FAKE_PROGRAM.format(python=sys.executable))
        self.program.chmod(0o755)
        self.out = self.folder / "a" / "b" / "outputs"

    def capture(self, name: str) -> subprocess.CompletedProcess:
        runs = self.folder / "runs.json"
        runs.write_text(json.dumps({"runs": {name: ["--x", "1"]}}))
        return subprocess.run([sys.executable, str(CAPTURE_RUN), "--program", str(self.program), "--runs", str(runs),
                               "--run", name, "--out", str(self.out)], capture_output=True, text=True, timeout=60)

    def written(self) -> list[str]:
        """Every file under the test's folder, relative to it, but the fake program and runs.json."""
        return sorted(str(path.relative_to(self.folder)) for path in self.folder.rglob("*")
                      if path.is_file() and path.name not in ("fake_chapter", "runs.json"))

    def test_a_plain_name_writes_its_three_files(self):
        for name in ("masking_band", "ch04.run-2", "A_1"):
            with self.subTest(name=name):
                result = self.capture(name)
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual((self.out / f"{name}.txt").read_text(), "a table\n")
                self.assertEqual(json.loads((self.out / f"{name}.json").read_text()), {"arguments": 2})
                self.assertEqual((self.out / f"{name}.command").read_text(), "build/bin/fake_chapter --x 1\n")

    def test_a_name_that_leaves_the_outputs_folder_is_refused(self):
        # An absolute path into the test's own folder: what it would write is seen by written().
        absolute = str(self.folder / "absolute")
        for name in ("../escaped", "../../../escaped", "sub/run", absolute, "..", ".", ".hidden",
                     "", "a\\b", "a b", "run\n", "caf\u00e9", "x/../y"):
            with self.subTest(name=name):
                result = self.capture(name)
                self.assertNotEqual(result.returncode, 0)
                self.assertIn("is not a run name", result.stderr)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertEqual(self.written(), [])


if __name__ == "__main__":
    unittest.main()
