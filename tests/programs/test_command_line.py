"""Every chapter program (build/bin/*) against hostile command lines: the
book's rule for bad input is one line on stderr that names the flag to fix,
exit status 2 and nothing on stdout. The command lines here are wrong in their
shape, not in a value: a flag the program does not have, a value with no flag,
a flag without its value or with a flag where its value should be, a flag that
takes no value given one, a value given twice. The flags come from each
program's --help, so a new program or flag is covered without a change here.

Each case names the argument the message must start with (after
"<program>: "): the flag that was wrong, or, for a value typed before any
flag, that value.

Under the sanitizers (BOOK_SANITIZE=1), where a run costs about 30 ms, most of
it LeakSanitizer's check at the run's end, the cases that name none of main()'s
own flags are asked of the page's way into the programs instead (page_call
--each: one process, the same CommandLine, the same checks; about 0.5 s for
every case of every program). page.entry holds the page's refusals to the
programs' own, message for message, and the optimised build runs every case
as a program. The cases with --json or --json-file, which only main() has
(program/json_flags.hpp), still run as programs there."""
import json
import os
import pathlib
import re
import tempfile
import unittest

from harness import run_program
from test_page_entry import PageCall

BIN = pathlib.Path(os.environ.get("BOOK_BIN", ""))
PAGE_CALL = os.environ.get("BOOK_PAGE_CALL", "")
IN_PROCESS = os.environ.get("BOOK_SANITIZE", "0") == "1"
MAIN_FLAGS = ("--json", "--json-file")  # main()'s own (program/json_flags.hpp); the page has neither


def declared_flags(help_text: str):
    """(flags that take a value, flags that take none) as --help lists them. A
    flag with a value is shown with its placeholder one space after it
    ("--q MATRIX=..."); one without is followed by the column of help text or
    by "Excludes:"."""
    with_value, without_value = [], []
    for line in help_text.splitlines():
        match = re.match(r"^\s+(?:-\w,)?(--[a-z0-9-]+)(?: ([^\s=]+))?", line)
        if not match or match.group(1) == "--help":
            continue
        if match.group(2) and match.group(2) != "Excludes:":
            with_value.append(match.group(1))
        else:
            without_value.append(match.group(1))
    return with_value, without_value


def hostile_cases(with_value, without_value):
    """(arguments, the argument the message must start with) for one program."""
    first = with_value[0]
    second = with_value[1] if len(with_value) > 1 else "--json"
    cases = [
        (["--no-such-flag"], "--no-such-flag"),
        (["--no-such-flag=1"], "--no-such-flag"),
        (["-x"], "-x"),
        (["-h=1"], "-h"),
        (["--help=1"], "--help"),
        (["--\u00fcber", "1"], "--\u00fcber"),
        (["stray"], "stray"),
        (["", first, "1"], "''"),
        (["-5"], "-5"),
        (["--", "1"], "--"),
        ([first], first),                          # its value is missing
        ([first + "="], first),                    # an empty value after '='
        ([first, second, "1"], first),             # a flag where its value should be
        ([first, "--json"], first),
        ([first, "1", "2"], first),                # a second value
        ([first, "1", "--", "2"], first),
        ([first, "1", "stray\u0001"], first),      # a control character in the stray value
        ([first, "1", first, "2"], first),         # the flag twice
        ([first + "=1", first, "2"], first),
        (["--no-such-flag", first, "1"], "--no-such-flag"),
        ([first, "1", "--no-such-flag"], "--no-such-flag"),
    ]
    for flag in with_value[1:]:
        cases.append(([flag], flag))
        cases.append(([first, "1", flag, "--no-such-flag"], flag))
    for flag in without_value:
        cases.append(([flag + "=0"], flag))   # CLI11 said "json was given a disallowed flag override"
        cases.append(([flag + "="], flag))
        cases.append(([flag + "=yes"], flag))
        cases.append(([flag, "5"], flag))     # CLI11 said "The following argument was not expected: 5"
        cases.append(([flag, "5", first, "1"], flag))
    return cases


def names_a_flag_of_main(arguments) -> bool:
    return any(argument.split("=")[0] in MAIN_FLAGS for argument in arguments)


class CommandLine(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BIN.is_dir() or (IN_PROCESS and not PAGE_CALL):
            raise RuntimeError("BOOK_BIN (and BOOK_PAGE_CALL under the sanitizers) is not set: run this through ctest")
        cls.programs = sorted(path for path in BIN.iterdir() if path.is_file() and os.access(path, os.X_OK))
        # Runs happen in a folder of their own: a program that took "--json" for a
        # file name would write it here, where the test looks for it.
        cls.folder = tempfile.TemporaryDirectory()
        cls.previous_folder = os.getcwd()
        os.chdir(cls.folder.name)

    @classmethod
    def tearDownClass(cls):
        os.chdir(cls.previous_folder)
        cls.folder.cleanup()

    def assert_refusal_starts_with(self, program: pathlib.Path, arguments, blamed: str):
        result = run_program(str(program), arguments)
        with self.subTest(program=program.name, arguments=arguments):
            self.assertEqual(result.returncode, 2, f"stderr: {result.stderr!r}")
            self.assertEqual(result.stdout, "")
            lines = result.stderr.splitlines()
            self.assertEqual(len(lines), 1, f"expected one line on stderr, got {result.stderr!r}")
            self.assertTrue(result.stderr.endswith("\n"))
            prefix = f"{program.name}: "
            self.assertTrue(lines[0].startswith(prefix), lines[0])
            self.assert_message_names(lines[0][len(prefix):], blamed)

    def assert_message_names(self, message: str, blamed: str):
        # The blamed argument as the line shows it: control characters as '?'.
        shown = re.sub(r"[\x00-\x1f\x7f]", "?", blamed)
        self.assertTrue(message.startswith(shown + ": "), f"expected the line to start with {shown!r}: {message!r}")
        self.assertNotIn("not expected", message)   # CLI11's words, which name no flag
        self.assertNotIn("flag override", message)

    def test_the_programs_are_there(self):
        names = {program.name for program in self.programs}
        self.assertGreaterEqual(len(names), 13)
        for name in ("dot_product", "sets_of_vectors", "path_length", "training", "fast_attention"):
            self.assertIn(name, names)

    def test_every_refusal_names_the_flag(self):
        checked = 0
        asked_of_the_page = []  # (program name, arguments, blamed)
        for program in self.programs:
            help_text = run_program(str(program), ["--help"]).stdout
            with_value, without_value = declared_flags(help_text)
            with self.subTest(program=program.name):
                self.assertGreaterEqual(len(with_value), 1, help_text)
                self.assertIn("--json", without_value)
            for arguments, blamed in hostile_cases(with_value, without_value):
                if IN_PROCESS and not names_a_flag_of_main(arguments):
                    asked_of_the_page.append((program.name, arguments, blamed))
                else:
                    self.assert_refusal_starts_with(program, arguments, blamed)
                checked += 1
        if asked_of_the_page:
            page_call = PageCall()  # one page_call --each for every case, as page.entry asks it
            for name, arguments, blamed in asked_of_the_page:
                answer = page_call(name, arguments)
                with self.subTest(program=name, arguments=arguments):
                    self.assertEqual(answer.get("status"), 2, answer)
                    self.assertEqual(len(answer["error"].splitlines()), 1, answer)
                    self.assert_message_names(answer["error"], blamed)
            page_call.finish()
        self.assertGreater(checked, 13 * 20)
        if IN_PROCESS:
            self.assertGreater(len(asked_of_the_page), checked // 2)

    def test_the_examples_of_the_book_of_bad_input(self):
        sets_of_vectors = BIN / "sets_of_vectors"
        self.assert_refusal_starts_with(sets_of_vectors, ["--hop-ms", "--seconds", "5"], "--hop-ms")
        self.assert_refusal_starts_with(sets_of_vectors, ["--json=0"], "--json")
        self.assert_refusal_starts_with(sets_of_vectors, ["--seconds", "1", "5"], "--seconds")
        self.assert_refusal_starts_with(sets_of_vectors, ["--json", "5"], "--json")

    def test_words_with_the_other_separator_are_refused(self):
        # Chapters 0 to 5 and 8 take names separated by commas, chapter 6's --sentence words separated by spaces.
        # "I saw a saw" given to a comma list was one word, and one row; "the,cat,sat" given to chapter 6 one position.
        self.assert_refusal_starts_with(BIN / "sets_of_vectors", ["--sentence", "I saw a saw"], "--sentence")
        self.assert_refusal_starts_with(BIN / "multi_head", ["--tokens", "I really love you"], "--tokens")
        self.assert_refusal_starts_with(BIN / "dot_product", ["--tokens", "cat, eat fish"], "--tokens")
        self.assert_refusal_starts_with(BIN / "positional_encoding", ["--sentence", "the,cat,sat"], "--sentence")
        message = run_program(str(BIN / "multi_head"), ["--tokens", "I really love you"]).stderr
        self.assertIn('e.g. "I,really,love,you"', message)

    def test_a_flag_that_only_adds_to_the_json_says_so_under_the_tables(self):
        # --draw and --weights change only the JSON document: a run that prints tables names them under the tables,
        # where before the flag was silently lost; with --json the document is all that is printed.
        note = "--draw adds to the JSON only: add --json, or --json-file PATH\n"
        arguments = ["--n", "5", "--no-timing", "--draw"]
        printed = run_program(str(BIN / "path_length"), arguments)
        self.assertEqual(printed.returncode, 0, printed.stderr)
        self.assertTrue(printed.stdout.endswith("\n" + note), printed.stdout[-200:])
        self.assertNotIn(note, run_program(str(BIN / "path_length"), arguments[:-1]).stdout)
        document = run_program(str(BIN / "path_length"), arguments + ["--json"]).stdout
        self.assertIn("drawn", json.loads(document))  # the JSON alone: a note would break it
        with tempfile.TemporaryDirectory() as folder:
            written = run_program(str(BIN / "path_length"), arguments + ["--json-file", f"{folder}/run.json"])
            self.assertNotIn(note, written.stdout)

    def test_flags_that_mean_nothing_together_are_refused(self):
        # Each used to run as if the second flag were not there. The line names both ("--seed excludes --sizes-only").
        for name, arguments in (("multi_head", ["--sizes-only", "--seed", "9"]),
                                ("backward_pass", ["--no-check", "--seed", "3"]),
                                ("sentences", ["--language", "--seeds", "1,2"])):
            result = run_program(str(BIN / name), arguments)
            with self.subTest(program=name):
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stdout, "")
                [line] = result.stderr.splitlines()
                flags = [argument for argument in arguments if argument.startswith("--")]
                self.assertEqual(sorted(re.findall(r"--[a-z-]+", line)), sorted(flags), line)
                self.assertIn(" excludes ", line)

    def test_unknown_flag_says_so(self):
        result = run_program(str(BIN / "dot_product"), ["--queries", "1,0"])
        self.assertEqual(result.returncode, 2)
        self.assertIn("--queries: unknown flag", result.stderr)

    def test_json_file_needs_a_path(self):
        """--json-file '' wrote nothing and exited 0; --json-file --json wrote a file named --json."""
        programs = [program for program in self.programs
                    if "--json-file" in declared_flags(run_program(str(program), ["--help"]).stdout)[0]]
        self.assertEqual({program.name for program in programs} >= {"path_length", "other_layers", "training"}, True,
                         [program.name for program in programs])
        for program in programs:
            self.assert_refusal_starts_with(program, ["--json-file", ""], "--json-file")
            self.assert_refusal_starts_with(program, ["--json-file=", "--json"], "--json-file")
            self.assert_refusal_starts_with(program, ["--json-file", "--json"], "--json-file")
            self.assert_refusal_starts_with(program, ["--json-file", "--no-timing"], "--json-file")
            with self.subTest(program=program.name):
                self.assertEqual(sorted(os.listdir(".")), [], "a refused run wrote a file")

    def test_json_file_writes_what_json_prints(self):
        """--json-file (program/run_chapter.hpp) prints the tables a run without it prints and writes the
        document --json prints, from one run: checked on the programs whose runs repeat exactly."""
        repeatable = ("sets_of_vectors", "dot_product", "scaling_variance", "softmax", "masking", "multi_head",
                      "positional_encoding", "encoder_layer", "backward_pass", "precision")
        for name in repeatable:
            program = str(BIN / name)
            with self.subTest(program=name), tempfile.TemporaryDirectory() as folder:
                path = pathlib.Path(folder) / "run.json"
                both = run_program(program, ["--json-file", str(path)])
                self.assertEqual((both.returncode, both.stderr), (0, ""))
                self.assertEqual(both.stdout, run_program(program, []).stdout)
                self.assertEqual(path.read_text(), run_program(program, ["--json"]).stdout)
                self.assertIn("{", path.read_text())


if __name__ == "__main__":
    unittest.main()
