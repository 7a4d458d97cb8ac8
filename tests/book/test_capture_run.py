"""tools/capture_run.py writes <run>.txt, <run>.json and <run>.command into
--out, with file names made from the run's name: a name that could reach
outside --out ("../x", "a/b", ".hidden") is refused before anything is run or
written. A run is read back from the book's cache when the same program's
bytes ran the same arguments before; a run that times something, only if it
ran on the same kind of machine, alone, and no one asked to measure again."""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

REPOSITORY = Path(__file__).resolve().parents[2]
CAPTURE_RUN = REPOSITORY / "tools" / "capture_run.py"
sys.path.insert(0, str(REPOSITORY / "tools"))
import cached_command  # noqa: E402  (the tools folder is not a package)
import capture_run  # noqa: E402

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

    def capture(self, name: str, run=("--x", "1")) -> subprocess.CompletedProcess:
        runs = self.folder / "runs.json"
        runs.write_text(json.dumps({"runs": {name: list(run) if isinstance(run, tuple) else run}}))
        return subprocess.run([sys.executable, str(CAPTURE_RUN), "--program", str(self.program), "--runs", str(runs),
                               "--run", name, "--out", str(self.out)], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "BOOK_CACHE_DIR": str(self.cache)})

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

    def capture_here(self, name: str, run, environment=None, busy=(0.0, 0.0), machine=None) -> int:
        """capture_run.main() in this process, with the machine's busy time before and after the run
        as @p busy says (two numbers, by default a machine that did nothing else, or a function), and
        @p machine as this_machine()."""
        runs = self.folder / "runs.json"
        runs.write_text(json.dumps({"runs": {name: run}}))
        cached_command.program_hash.cache_clear()  # the program may have changed in place
        cached_command._pruned.cache_clear()  # each test has its own cache folder
        environment = {"BOOK_CACHE_DIR": str(self.cache), "BOOK_TIME_AGAIN": "", **(environment or {})}
        busy = list(busy) if isinstance(busy, tuple) else busy
        with mock.patch.object(capture_run, "busy_seconds", side_effect=busy), \
                mock.patch.object(capture_run, "this_machine", return_value=machine or capture_run.this_machine()), \
                mock.patch.dict(os.environ, environment), \
                mock.patch.object(sys, "argv", ["capture_run.py", "--program", str(self.program), "--runs", str(runs),
                                                "--run", name, "--out", str(self.out)]), \
                contextlib.redirect_stderr(io.StringIO()) as stderr:
            status = capture_run.main()
        self.stderr = stderr.getvalue()
        return status

    def kept_timings(self) -> int:
        return len(list((self.cache / "timings").glob("*.json")))

    TIMED = {"arguments": ["--x", "1"], "json_file": True, "varying": ["seconds"]}

    def test_a_timed_run_is_read_back_only_on_the_same_kind_of_machine(self):
        self.assertEqual(self.capture_here("timed", self.TIMED), 0)
        self.assertEqual(json.loads((self.out / "timed.json").read_text()), {"arguments": 2})
        self.assertEqual([path.parent.name for path in self.cache.rglob("*.json")], ["timings"])
        self.program.chmod(0o644)  # the same bytes, but it can no longer run
        self.assertEqual(self.capture_here("timed", self.TIMED), 0)
        self.assertEqual(json.loads((self.out / "timed.json").read_text()), {"arguments": 2})
        # Asked to measure again, it must run, and cannot.
        with self.assertRaises(PermissionError):  # it tried to start the program
            self.capture_here("timed", self.TIMED, {"BOOK_TIME_AGAIN": "1"})
        self.assertFalse((self.out / "timed.command").exists(), "a failed run must not leave its command")
        # On another processor, or with another number of them, it must run too.
        for machine in ({"processor": "another", "logical processors": os.cpu_count()},
                        {**capture_run.this_machine(), "logical processors": 1000}):
            with self.subTest(machine=machine), self.assertRaises(PermissionError):
                self.capture_here("timed", self.TIMED, machine=machine)
        # Marked "timed": false, its numbers are no claim about speed: read back on any machine.
        self.program.chmod(0o755)
        untimed = {**self.TIMED, "timed": False}
        self.assertEqual(self.capture_here("untimed", untimed), 0)
        self.program.chmod(0o644)
        self.assertEqual(self.capture_here("untimed", untimed, machine={"processor": "another"}), 0)
        self.assertEqual(json.loads((self.out / "untimed.json").read_text()), {"arguments": 2})

    def test_a_timed_run_beside_other_work_is_printed_but_not_kept(self):
        # The machine busy for 5 processor-seconds more than the program itself, which ran well under 5 s.
        self.assertEqual(self.capture_here("timed", self.TIMED, busy=(100.0, 105.0)), 0)
        self.assertEqual(json.loads((self.out / "timed.json").read_text()), {"arguments": 2})
        self.assertEqual((self.out / "timed.command").read_text(), "build/bin/fake_chapter --x 1\n")
        self.assertEqual(self.kept_timings(), 0)
        self.assertIn("not kept", self.stderr)
        self.assertEqual(len(self.stderr.splitlines()), 1, self.stderr)
        # Dated before any input, so that Ninja runs it again at the next build.
        for suffix in ("txt", "json", "command"):
            self.assertEqual((self.out / f"timed.{suffix}").stat().st_mtime, 0)
        # Measured again at the next build, on a quiet machine: kept.
        self.assertEqual(self.capture_here("timed", self.TIMED, busy=(200.0, 200.0)), 0)
        self.assertEqual(self.kept_timings(), 1)
        self.assertEqual(self.stderr, "")

    def test_a_timed_run_that_keeps_the_machine_busy_itself_is_kept(self):
        # A program that computes for 0.3 s, on a machine busy with nothing else: the machine's busy
        # time grows by exactly the program's own (os.times() of this process's children).
        self.program.write_text(f"#!{sys.executable}\nimport sys, time\n"
                                "deadline = time.process_time() + 0.3\n"
                                "while time.process_time() < deadline: pass\n"
                                "open(sys.argv[-1], 'w').write('{}')\nprint('a table')\n")

        def busy_with_the_program_alone():
            times = os.times()
            return times.children_user + times.children_system

        self.assertEqual(self.capture_here("timed", self.TIMED, busy=busy_with_the_program_alone), 0)
        self.assertEqual(self.kept_timings(), 1)

    def test_busy_seconds_counts_what_this_process_spends(self):
        before, spent = capture_run.busy_seconds(), time.process_time()
        if before is None:
            self.skipTest("no /proc/stat here")
        # Spin until this process itself has spent 0.3 s of processor time: on a busy machine a
        # wall-clock deadline could pass with little of it spent here.
        deadline = spent + 0.3
        while time.process_time() < deadline:
            pass
        spent = time.process_time() - spent
        self.assertGreaterEqual(capture_run.busy_seconds() - before, 0.5 * spent)

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
