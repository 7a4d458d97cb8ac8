"""tools/capture_run.py writes <run>.txt, <run>.json and <run>.command into
--out, with file names made from the run's name: a name that could reach
outside --out ("../x", "a/b", ".hidden") is refused before anything is run or
written. A run is read back from the book's cache when the same program's
bytes ran the same arguments before; a run that times something, only if it
ran on the same kind of machine and no one asked to measure again."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

REPOSITORY = Path(__file__).resolve().parents[2]
CAPTURE_RUN = REPOSITORY / "tools" / "capture_run.py"
sys.path.insert(0, str(REPOSITORY / "tools"))
import capture_run  # noqa: E402  (the tools folder is not a package)

# A stand-in for a chapter program: its tables, or with --json one JSON document;
# with --json-file PATH, its tables and the document in PATH.
FAKE_PROGRAM = """#!{python}
import sys
if sys.argv[-2:-1] == ["--json-file"]:
    open(sys.argv[-1], "w").write('{{"arguments": %d}}' % (len(sys.argv) - 3))
print('{{"arguments": %d}}' % (len(sys.argv) - 2) if sys.argv[-1] == "--json" else "{table}")
"""


class CaptureRun(unittest.TestCase):
    def setUp(self):
        self.folder = Path(tempfile.mkdtemp(prefix="capture_run_test_"))
        self.addCleanup(shutil.rmtree, self.folder)
        self.program = self.folder / "bin" / "fake_chapter"
        self.program.parent.mkdir()
        self.make_program("a table")
        self.out = self.folder / "a" / "b" / "outputs"
        self.cache = Path(tempfile.mkdtemp(prefix="capture_run_cache_"))
        self.addCleanup(shutil.rmtree, self.cache)

    def make_program(self, table: str) -> None:
        self.program.write_text(FAKE_PROGRAM.format(python=sys.executable, table=table))
        self.program.chmod(0o755)

    def capture(self, name: str, run=("--x", "1"), environment=None) -> subprocess.CompletedProcess:
        runs = self.folder / "runs.json"
        runs.write_text(json.dumps({"runs": {name: list(run) if isinstance(run, tuple) else run}}))
        return subprocess.run([sys.executable, str(CAPTURE_RUN), "--program", str(self.program), "--runs", str(runs),
                               "--run", name, "--out", str(self.out)], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "BOOK_CACHE_DIR": str(self.cache), **(environment or {})})

    def written(self) -> list[str]:
        """Every file under the test's folder, relative to it, but the fake program and runs.json."""
        return sorted(str(path.relative_to(self.folder)) for path in self.folder.rglob("*")
                      if path.is_file() and path.name not in ("fake_chapter", "runs.json"))

    def test_a_run_the_same_program_made_is_read_back_from_the_cache(self):
        self.assertEqual(self.capture("first").returncode, 0)
        self.program.chmod(0o644)  # the same bytes, but it can no longer run
        result = self.capture("again")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((self.out / "again.txt").read_text(), "a table\n")
        self.assertEqual(json.loads((self.out / "again.json").read_text()), {"arguments": 2})
        self.assertEqual((self.out / "again.command").read_text(), "build/bin/fake_chapter --x 1\n")
        # Other arguments are another key: the program must run, and cannot.
        self.assertNotEqual(self.capture("other", ("--x", "2")).returncode, 0)

    def test_a_changed_program_runs_again(self):
        self.assertEqual(self.capture("first").returncode, 0)
        self.make_program("another table")
        self.assertEqual(self.capture("again").returncode, 0)
        self.assertEqual((self.out / "again.txt").read_text(), "another table\n")

    def test_a_timed_run_is_read_back_only_on_the_same_kind_of_machine(self):
        timed = {"arguments": ["--x", "1"], "json_file": True, "varying": ["seconds"]}
        result = self.capture("timed", timed)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(json.loads((self.out / "timed.json").read_text()), {"arguments": 2})
        self.assertEqual([path.parent.name for path in self.cache.rglob("*.json")], ["timings"])
        self.program.chmod(0o644)  # the same bytes, but it can no longer run
        result = self.capture("timed", timed)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(json.loads((self.out / "timed.json").read_text()), {"arguments": 2})
        # Asked to measure again, it must run, and cannot.
        self.assertNotEqual(self.capture("timed", timed, {"BOOK_TIME_AGAIN": "1"}).returncode, 0)
        self.assertFalse((self.out / "timed.command").exists(), "a failed run must not leave its command")
        # On another processor, or with another number of them, it must run too.
        runs = self.folder / "runs.json"
        for machine in ({"processor": "another", "logical processors": os.cpu_count()},
                        {**capture_run.this_machine(), "logical processors": 1000}):
            with self.subTest(machine=machine), mock.patch.object(capture_run, "this_machine", return_value=machine), \
                    mock.patch.dict(os.environ, {"BOOK_CACHE_DIR": str(self.cache)}), \
                    mock.patch.object(sys, "argv", ["capture_run.py", "--program", str(self.program), "--runs",
                                                    str(runs), "--run", "timed", "--out", str(self.out)]):
                with self.assertRaises(PermissionError):  # it tried to start the program
                    capture_run.main()
        # Marked "timed": false, its numbers are no claim about speed: read back on any machine.
        self.program.chmod(0o755)
        untimed = {**timed, "timed": False}
        self.assertEqual(self.capture("untimed", untimed).returncode, 0)
        self.program.chmod(0o644)
        with mock.patch.object(capture_run, "this_machine", side_effect=AssertionError("not asked")):
            self.assertEqual(self.capture("untimed", untimed).returncode, 0)
        self.assertEqual(json.loads((self.out / "untimed.json").read_text()), {"arguments": 2})

    def test_this_machine_names_the_processor_and_how_many(self):
        machine = capture_run.this_machine()
        self.assertEqual(machine["logical processors"], os.cpu_count())
        if Path("/proc/cpuinfo").is_file():
            models = [line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("model name")]
            if models:
                self.assertEqual(machine["processor"], models[0])

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
