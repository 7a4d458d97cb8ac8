"""The sanitizer build's run server (src/program/run_server.hpp) against the
program started on its own: for each command line, the same exit status, the
same stdout and the same stderr, byte for byte; and no run sees what the one
before it was given. Every program test of the sanitizer build runs through
the server, so this is what makes those tests tests of the program."""
import json
import os
import pathlib
import tempfile
import unittest
from unittest import mock

import harness
from harness import PROGRAM, USE_RUN_SERVER, cached_command, run_program, serve, start_program

COMMAND_LINES = [
    [],
    ["--json"],
    ["--help"],
    ["--q", "1,0;0,1", "--k", "2,0;0,3", "--json"],
    ["--q", "1, 0; 0, 1", "--k", "1,1;1,1"],  # spaces inside one argument
    ["--q", "x?"],
    ["--q", ""],  # an empty argument
    ["--q", "é,1;0,1"],  # not ASCII
    ["--no-such-flag"],
    ["stray"],
    ["--json", "--json"],
]


class RunServer(unittest.TestCase):
    def test_served_runs_are_runs_of_the_program(self):
        if not USE_RUN_SERVER:
            self.skipTest("only the sanitizer build's programs serve runs")
        for arguments in COMMAND_LINES:
            with self.subTest(arguments=arguments):
                alone = start_program(PROGRAM, arguments)
                served = serve(PROGRAM, arguments)
                self.assertEqual((served.returncode, served.stdout, served.stderr),
                                 (alone.returncode, alone.stdout, alone.stderr))

    def test_a_run_starts_from_the_defaults(self):
        if not USE_RUN_SERVER:
            self.skipTest("only the sanitizer build's programs serve runs")
        serve(PROGRAM, ["--q", "1,0;0,1", "--k", "2,0;0,3", "--json"])
        alone = start_program(PROGRAM, ["--json"])
        self.assertEqual(serve(PROGRAM, ["--json"]).stdout, alone.stdout)


class KeptRuns(unittest.TestCase):
    """Under the sanitizers a run that these bytes of the program made before, with the same arguments, on
    this machine, is read back (harness.run_program): what is kept, and under what key."""

    def setUp(self):
        if not USE_RUN_SERVER:
            self.skipTest("only the sanitizer build's runs are kept")
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.kept = pathlib.Path(folder.name) / "sanitized-runs"
        patch = mock.patch.dict(os.environ, {"BOOK_CACHE_DIR": folder.name})
        patch.start()
        self.addCleanup(patch.stop)
        cached_command._pruned.cache_clear()  # the folder is made under the cache in force
        self.addCleanup(cached_command._pruned.cache_clear)

    def kept_answers(self) -> list:
        return sorted(self.kept.glob("*.json"))

    def test_a_run_is_read_back_under_its_own_key(self):
        first = run_program(PROGRAM, ["--json"])
        [kept] = self.kept_answers()
        self.assertEqual(json.loads(kept.read_text()),
                         {"returncode": 0, "stdout": first.stdout, "stderr": first.stderr})
        kept.write_text(json.dumps({"returncode": 0, "stdout": "read back", "stderr": ""}))
        self.assertEqual(run_program(PROGRAM, ["--json"]).stdout, "read back")
        # Another argument, another sanitizer setting or another machine is another key: a run of its own.
        refused = run_program(PROGRAM, ["--no-such-flag"])
        self.assertEqual(refused.returncode, 2)
        self.assertEqual(len(self.kept_answers()), 2)
        with mock.patch.dict(os.environ, {"ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":verbosity=0"}):
            self.assertEqual(run_program(PROGRAM, ["--json"]).stdout, first.stdout)
        with mock.patch.object(harness, "machine", lambda: ["another machine"]):
            self.assertEqual(run_program(PROGRAM, ["--json"]).stdout, first.stdout)
        self.assertEqual(len(self.kept_answers()), 4)

    def test_a_run_that_names_a_file_is_run_every_time(self):
        with tempfile.TemporaryDirectory() as folder:
            written = run_program(PROGRAM, ["--json-file", os.path.join(folder, "run.json")])
            self.assertEqual(written.returncode, 0, written.stderr)
        self.assertEqual(self.kept_answers(), [])
        self.assertFalse(harness.keeps_its_answer([os.path.basename(__file__)]))  # a file here, named alone
        self.assertTrue(harness.keeps_its_answer(["--q", "1,0;0,1", "--json"]))

    def test_only_a_clean_ending_is_kept(self):
        clean = {"stdout": "", "stderr": ""}
        self.assertTrue(harness.passed_cleanly({**clean, "returncode": 0}))
        self.assertTrue(harness.passed_cleanly({**clean, "returncode": 2, "stderr": "--q: not a matrix"}))
        for returncode in (1, 23, -6):  # a sanitizer's halt, LeakSanitizer's status, an abort
            self.assertFalse(harness.passed_cleanly({**clean, "returncode": returncode}))
        self.assertFalse(harness.passed_cleanly({**clean, "returncode": 0,
                                                 "stderr": "==1==ERROR: LeakSanitizer: detected memory leaks"}))
        self.assertFalse(harness.passed_cleanly({**clean, "returncode": 2,
                                                 "stderr": "x.hpp:3:5: runtime error: signed integer overflow"}))


if __name__ == "__main__":
    unittest.main()
