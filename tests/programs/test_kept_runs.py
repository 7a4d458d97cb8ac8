"""The program tests' kept runs (tests/programs/harness.py, run_program and
kept_tables_and_json): a run is read back from the book's cache only when the
same bytes of the program were asked the same on this machine before, and only
a clean run is kept. In both builds: the `ci` build's programs and the
sanitizer build's are other bytes, and keep their runs in other folders."""
import json
import os
import pathlib
import tempfile
import unittest
from unittest import mock

import harness
from harness import PROGRAM, cached_command, run_program


class KeptRuns(unittest.TestCase):
    """A run that these bytes of the program made before, with the same arguments, on this machine, is read
    back (harness.run_program): what is kept, and under what key."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.kept = pathlib.Path(folder.name) / harness.KEPT_RUNS
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

    def test_a_run_and_the_file_it_wrote_are_read_back_together(self):
        printed, document = harness.kept_tables_and_json("--q", "1,0;0,1")
        [kept] = self.kept_answers()
        answer = json.loads(kept.read_text())
        self.assertEqual((answer["stdout"], json.loads(answer["written"])), (printed, document))
        # The file's name, a new one for each run, is not in the key: a second run reads the first one back.
        answer["written"] = json.dumps({"read": "back"})
        kept.write_text(json.dumps(answer))
        harness._kept_printed.clear()
        self.assertEqual(harness.kept_tables_and_json("--q", "1,0;0,1"), (printed, {"read": "back"}))
        self.assertEqual(len(self.kept_answers()), 1)

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
