"""What the tests of every chapter program share: running it, reading its JSON,
and checking that bad input is refused the way the book promises (one line on
stderr naming the flag, exit status 2, nothing on stdout)."""
import json
import os
import subprocess
import unittest

PROGRAM = os.environ.get("BOOK_PROGRAM", "")


def run(*arguments: str, check: bool = True) -> subprocess.CompletedProcess:
    if not PROGRAM:
        raise RuntimeError("BOOK_PROGRAM is not set: run this through ctest")
    result = subprocess.run([PROGRAM, *arguments], capture_output=True, text=True, timeout=60)
    if check and result.returncode != 0:
        raise AssertionError(f"{arguments} exited with {result.returncode}: {result.stderr}")
    return result


def run_json(*arguments: str) -> dict:
    return json.loads(run(*arguments, "--json").stdout)


class ProgramTest(unittest.TestCase):
    def assert_each_refused(self, cases):
        """Each (arguments, names) case is refused, as assert_refused() checks."""
        self.assertGreaterEqual(len(cases), 10)
        for arguments, names in cases:
            self.assert_refused(arguments, names)

    def assert_help_lists(self, *texts: str):
        """--help succeeds, prints nothing on stderr, and mentions each of `texts`."""
        result = run("--help")
        for text in texts:
            self.assertIn(text, result.stdout)
        self.assertEqual(result.stderr, "")

    def assert_refused(self, arguments, names: str):
        """Bad input: exit status 2, one line on stderr that mentions `names`, no output."""
        result = run(*arguments, check=False)
        with self.subTest(arguments=arguments):
            self.assertEqual(result.returncode, 2, f"stderr: {result.stderr!r}")
            lines = result.stderr.splitlines()
            self.assertEqual(len(lines), 1, f"expected one line on stderr, got {result.stderr!r}")
            self.assertIn(names, lines[0])
            self.assertEqual(result.stdout, "")
            # No sanitizer report, no abort, no stack trace.
            self.assertNotIn("Sanitizer", result.stderr)
            self.assertNotIn("terminate called", result.stderr)
