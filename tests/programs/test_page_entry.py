"""The page's way into the chapter programs (program/page_program.hpp), held to
the programs themselves: for every program a chapter registers for the page,
the JSON that call_page_program() hands back is the JSON that `--json` prints,
for every run in the chapter's runs (the `.. runs::` block that ends its index.rst); bad input gets status 2 and the
message the program prints on stderr after "<program>: "; and the defaults the
page's figures start from (page_call --defaults) are those the program's --help
shows, flag for flag.

page_call (tests/page/page_call.cpp) calls the page programs natively; it lists
them with --list, so a chapter that registers one is covered without a change
here. Runs whose output changes from run to run (timings; the runs
with "json_file": true) cannot be compared and are skipped, unless the entry
names the keys that change ("varying": ["seconds"], or a path to one inside the
document, "attention/seconds"): those are compared without them.

Where the book was rendered (BOOK_OUTPUTS_DIR set, the optimised build), a run's
JSON is the one the build captured from the same program with the same
arguments (tools/capture_run.py writes <run>.json and <run>.command; the build
runs a program again whenever it changes), so each run is not started a second
time here. Elsewhere (the sanitizer build, which renders nothing) the program
runs.

page_call's answers are also kept in the book's cache (the folder
page-answers/ of tools/cached_command.py), under a hash of page_call's own bytes
and the call: a later run with the same page_call (a fresh clone builds the
same bytes from the same sources) compares the same answers without computing
them again; the trainings of chapters 11 and 13 to 16 are most of this test's
time. A page_call changed in any way (any chapter's computation is in it) is
another key. Under the sanitizers the key also holds what a run may read
besides its arguments (harness.run_context()), and an answer is kept only once
page_call has exited cleanly: a leak shows only then."""
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from harness import cached_command, run_context, run_program, start_program
from chapter_runs import chapter_runs  # tools/, on the path harness set

PAGE_CALL = os.environ.get("BOOK_PAGE_CALL", "")
# Under the sanitizers (every memory access checked, about 25 times slower) the runs that take long, chapter 11's trainings, are left
# to the optimised build; they are the json_file runs with varying keys.
SLOW = os.environ.get("BOOK_SANITIZE", "0") == "1"
BIN = pathlib.Path(os.environ.get("BOOK_BIN", ""))
OUTPUTS = pathlib.Path(os.environ["BOOK_OUTPUTS_DIR"]) if os.environ.get("BOOK_OUTPUTS_DIR") else None
CHAPTERS = pathlib.Path(os.environ.get("BOOK_CHAPTERS", pathlib.Path(__file__).resolve().parents[2] / "chapters"))

# Placeholders in --help of flags whose value "x?" cannot be: numbers, lists of
# numbers, matrices, a choice of words. Text such as token names is left out.
# The column where CLI11's --help starts a flag's description (when the flag, its placeholder and its
# default leave room for it on the same line).
HELP_COLUMN = 30
REFUSING_PLACEHOLDERS = re.compile(r"^(INTEGER|NUMBER|REAL|MATRIX|LIST|[a-z]+(\|[a-z]+)+)$")


class PageCall:
    """One page_call process for every call (page_call --each), as the page
    keeps one module for all of its calls; a process per call cost most of
    this test's time under the sanitizers. It must print nothing on stderr and
    exit with status 0 (checked by finish())."""

    def __init__(self):
        self.process = subprocess.Popen([PAGE_CALL, "--each"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        self.unchecked = []  # (where, answer): under the sanitizers, kept once the process exits cleanly

    def __call__(self, name, arguments) -> dict:
        """page_call's answer, from the cache if these bytes of page_call gave it before (see the top)."""
        question = [name, list(arguments)]
        if SLOW:
            question.append(run_context())

        def clean(answer) -> bool:
            return answer.get("status") in (0, 2)
        # Under the sanitizers a leak shows only when the process exits (finish()): until then no answer is
        # known to be clean, so none is kept here.
        answer, read = cached_command.program_answer("page-answers", PAGE_CALL, question,
                                                     lambda: self.ask(name, arguments),
                                                     keep=lambda answer: clean(answer) and not SLOW)
        if SLOW and not read and clean(answer):
            try:
                self.unchecked.append((cached_command.answer_path("page-answers", PAGE_CALL, question), answer))
            except OSError:  # no cache to be had: only costs time
                pass
        return answer

    def ask(self, name, arguments) -> dict:
        self.process.stdin.write(json.dumps([name, *arguments]) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise AssertionError(f"page_call stopped at {name} {arguments}: status {self.process.wait()}, "
                                 f"stderr {self.process.stderr.read()!r}")
        return json.loads(answer)

    def finish(self):
        _, stderr = self.process.communicate(timeout=120)
        if self.process.returncode != 0 or stderr:
            raise AssertionError(f"page_call --each: status {self.process.returncode}, stderr {stderr!r}")
        for where, answer in self.unchecked:
            cached_command.keep_answer(where, answer)


def canonical(document) -> str:
    """The document as text with sorted keys: equal only if every value is, and
    of the same JSON type (1 and 1.0 differ)."""
    return json.dumps(document, sort_keys=True, allow_nan=False)


def value_flags(help_text: str):
    """(flag, placeholder) for each flag --help shows with a value."""
    flags = []
    for line in help_text.splitlines():
        match = re.match(r"^\s+(?:-\w,)?(--[a-z0-9-]+) ([^\s=]+)", line)
        if match and not match.group(2).endswith(":"):
            flags.append((match.group(1), match.group(2)))
    return flags


def runs_of(name: str):
    """(run name, arguments, json_file, varying) for each run of the chapter (tools/chapter_runs.py): varying lists
    the top-level keys of a json_file run that hold wall-clock times ("varying": [...]), the rest of
    its JSON being the same from run to run."""
    folders = [folder for folder in CHAPTERS.glob(f"*_{name}") if (folder / "index.rst").exists()]
    if len(folders) != 1:
        raise AssertionError(f"expected one chapter folder *_{name} with an index.rst in {CHAPTERS}, found {folders}")
    runs = chapter_runs(folders[0])
    for run_name, spec in runs.items():
        if isinstance(spec, dict):
            yield run_name, spec["arguments"], bool(spec.get("json_file")), spec.get("varying")
        else:
            yield run_name, spec, False, None


class PageEntry(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not PAGE_CALL or not BIN.is_dir():
            raise RuntimeError("BOOK_PAGE_CALL and BOOK_BIN are not set: run this through ctest")
        listed = start_program(PAGE_CALL, ["--list"], timeout=120)
        assert listed.returncode == 0, listed.stderr
        cls.programs = listed.stdout.split()
        cls.page_call = PageCall()

    @classmethod
    def tearDownClass(cls):
        cls.page_call.finish()

    def program(self, name: str) -> str:
        path = BIN / name
        self.assertTrue(path.is_file(), f"{name} is registered for the page but {path} is not built")
        return str(path)

    def test_programs_are_registered(self):
        # The chapters converted so far; others join by registering.
        for name in ("dot_product", "scaling_variance", "path_length"):
            self.assertIn(name, self.programs)
        self.assertEqual(self.programs, sorted(set(self.programs)))

    def test_every_run_gives_the_same_json(self):
        for name in self.programs:
            with self.subTest(program=name):
                self.runs_give_the_same_json(name)

    def runs_give_the_same_json(self, name: str):
        program = self.program(name)
        compared = 0
        slow_skipped = 0
        for run_name, arguments, json_file, varying in runs_of(name):
            with self.subTest(program=name, run=run_name):
                if json_file and varying is None:
                    continue  # its output changes from run to run (timings)
                if json_file and SLOW:
                    slow_skipped += 1
                    continue  # a training run, left to the optimised build
                expected = self.program_json(program, run_name, arguments)
                if isinstance(expected, dict) and expected.get("timing") is not None:
                    continue  # timings differ from run to run
                answer = self.page_call(name, arguments)
                self.assertEqual(answer.get("status"), 0, answer.get("error"))
                self.assertEqual(set(answer), {"status", "json"})
                for path in varying or []:  # wall-clock times: present in both, not compared
                    *outer, key = path.split("/")  # a key, or a path to one ("attention/seconds")
                    expected_holder, answer_holder = expected, answer["json"]
                    for step in outer:
                        expected_holder, answer_holder = expected_holder[step], answer_holder[step]
                    self.assertIn(key, expected_holder)
                    self.assertIn(key, answer_holder)
                    del expected_holder[key], answer_holder[key]
                self.assertEqual(answer["json"], expected)
                self.assertEqual(canonical(answer["json"]), canonical(expected))
                compared += 1
        self.assertGreater(compared + slow_skipped, 0, f"no run of {name} could be compared")

    def program_json(self, program: str, run_name: str, arguments) -> dict:
        """What `program arguments --json` prints: as the build captured it, if it did, else from a run."""
        if OUTPUTS is not None:
            command = shlex.split((OUTPUTS / f"{run_name}.command").read_text())
            self.assertEqual(command[1:], arguments, f"{run_name}.command is not this run's: rebuild the book")
            self.assertEqual(command[0], f"build/bin/{pathlib.Path(program).name}")
            return json.loads((OUTPUTS / f"{run_name}.json").read_text())
        # Some runs train models (seconds on a quiet machine); five minutes leaves room for a loaded one.
        printed = run_program(program, [*arguments, "--json"], timeout=300)
        self.assertEqual(printed.returncode, 0, printed.stderr)
        return json.loads(printed.stdout)

    def test_defaults_are_those_help_shows(self):
        for name in self.programs:
            with self.subTest(program=name):
                self.defaults_are_those_help_shows(name)

    def defaults_are_those_help_shows(self, name: str):
        """Each flag that takes a value, with its default as the page gets it,
        against the program's --help: the same flags, and each line reads
        `--flag PLACEHOLDER=<default>` (no `=` for an empty default), then the
        line's end, what the flag excludes or needs, or its description in the
        column where CLI11 puts it."""
        answer = json.loads(start_program(PAGE_CALL, ["--defaults", name], timeout=120).stdout)
        self.assertEqual(answer.get("status"), 0, answer)
        defaults = answer["defaults"]
        help_text = run_program(self.program(name), ["--help"]).stdout
        lines = {}  # each flag that takes a value: its own line, indented by two (a description's by thirty)
        for line in help_text.splitlines():
            match = re.match(r"^  (?:-\w,)?(--[a-z0-9-]+) ([^\s=]+)", line)
            if match and not match.group(2).endswith(":"):
                lines.setdefault(match.group(1), line)
        # --json-file is main()'s own (program/json_flags.hpp): the page is handed the JSON, it writes no file.
        self.assertEqual(sorted(defaults), sorted(flag for flag in lines if flag != "--json-file"))
        for flag, default in defaults.items():
            with self.subTest(program=name, flag=flag):
                line = lines[flag]
                head = re.match(r"^  (?:-\w,)?--[a-z0-9-]+ [^\s=]+", line).group(0)
                if not default:
                    self.assertFalse(line[len(head):].startswith("="), f"{flag}: the page has no default, --help shows {line!r}")
                    continue
                shown = f"{head}={default}"
                self.assertTrue(line.startswith(shown), f"{flag}: the page's default is {default!r}, --help shows {line!r}")
                rest = line[len(shown):]
                description = re.match(r"^ +\S", rest)
                self.assertTrue(rest == "" or rest.startswith((" Excludes:", " Needs:")) or
                                (description and len(shown) + len(description.group(0)) - 1 == HELP_COLUMN),
                                f"{flag}: the page's default is {default!r}, --help shows {line!r}")

    def bad_inputs(self, name: str, program: str):
        """Bad command lines for @p name: a flag it does not have, a stray
        argument, its first flag with a value given none, with a flag for its
        value, with two values, or twice, and each flag whose value must be a
        number, a matrix, a list or a choice given "x?"."""
        flags = value_flags(run_program(program, ["--help"]).stdout)
        self.assertTrue(flags, f"{name} --help shows no flag with a value")
        first = flags[0][0]
        cases = [["--no-such-flag"], ["--no-such-flag=1"], ["stray"], [first], [first + "="], [first, "--json"],
                 [first, "1", "2"], [first, "1", first, "1"]]
        cases += [[flag, "x?"] for flag, placeholder in flags if REFUSING_PLACEHOLDERS.match(placeholder)]
        return cases

    def test_bad_input_gets_the_same_message(self):
        for name in self.programs:
            with self.subTest(program=name):
                self.bad_input_gets_the_same_message(name)

    def bad_input_gets_the_same_message(self, name: str):
        program = self.program(name)
        checked = 0
        for arguments in self.bad_inputs(name, program):
            with self.subTest(program=name, arguments=arguments):
                printed = run_program(program, arguments)
                self.assertEqual(printed.returncode, 2, f"the program accepted {arguments}: {printed.stderr!r}")
                self.assertEqual(printed.stdout, "")
                prefix = f"{name}: "
                self.assertTrue(printed.stderr.startswith(prefix) and printed.stderr.endswith("\n"),
                                printed.stderr)
                answer = self.page_call(name, arguments)
                self.assertEqual(answer, {"status": 2, "error": printed.stderr[len(prefix):-1]})
                checked += 1
        self.assertGreaterEqual(checked, 8)


# A stand-in for page_call --each: answers every call with status 0, then exits with STATUS, writing STDERR.
STAND_IN = """import sys
for line in sys.stdin:
    print('{"status": 0, "json": {}}', flush=True)
sys.stderr.write(STDERR)
sys.exit(STATUS)
"""


class KeptUnderTheSanitizers(unittest.TestCase):
    """Under the sanitizers, page_call's answers are kept only once it has exited cleanly."""

    def answers_kept(self, status: int, stderr: str) -> list:
        with tempfile.TemporaryDirectory() as folder:
            script = pathlib.Path(folder) / "page_call"
            script.write_text(f"#!{sys.executable}\nSTATUS, STDERR = {status}, {stderr!r}\n{STAND_IN}")
            script.chmod(0o755)
            with mock.patch.dict(os.environ, {"BOOK_CACHE_DIR": folder}), \
                    mock.patch(f"{__name__}.PAGE_CALL", str(script)), mock.patch(f"{__name__}.SLOW", True):
                cached_command._pruned.cache_clear()
                cached_command.program_hash.cache_clear()
                try:
                    page_call = PageCall()
                    self.assertEqual(page_call("softmax", ["--json"]), {"status": 0, "json": {}})
                    kept = pathlib.Path(folder) / "page-answers"
                    self.assertEqual(list(kept.glob("*.json")), [])  # not before page_call has exited
                    try:
                        page_call.finish()
                    except AssertionError:
                        pass
                    return list(kept.glob("*.json"))
                finally:
                    cached_command._pruned.cache_clear()
                    cached_command.program_hash.cache_clear()

    def test_an_answer_is_kept_once_page_call_exits_cleanly(self):
        self.assertEqual(len(self.answers_kept(0, "")), 1)

    def test_no_answer_is_kept_when_page_call_reports_a_leak(self):
        self.assertEqual(self.answers_kept(23, "==1==ERROR: LeakSanitizer: detected memory leaks"), [])


if __name__ == "__main__":
    unittest.main()
