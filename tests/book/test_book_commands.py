"""Every command the book invites a reader to type runs.

The commands are taken from the rendered pages (BOOK_HTML_DIR), wherever a
reader meets them:
- the console listings: every line that starts with ``$ `` (a line ending in
  ``\\`` goes on on the next line, as in a shell);
- the command above each captured output (``.. output::``), ``$ command``;
- a command in the prose, an inline literal that starts with ``build/bin/``.

A chapter program's command runs from a scratch folder, with ``build/bin/``
meaning this build's programs (BOOK_BIN_DIR). It must exit with status 0,
unless the book itself says that it does not:
- in a console listing, a comment ``# refused: <why>`` after the command: it
  must exit with status 2, print nothing on stdout and exactly one line on
  stderr that names one of the command's flags (bad input, as every program
  refuses it);
- in a console listing, a comment that says ``exit status N``: it must exit
  with N and print exactly one line on stderr;
- in the prose, the role ``:refused:`` (docs/_ext/book.py) instead of a plain
  literal: it renders as the same literal, with the class ``refused-command``,
  and is held to the same as ``# refused:``.

What is not run is listed below, each with its reason: commands that are not
a chapter program (NOT_CHAPTER_PROGRAMS, by their first word), patterns with
placeholders (PATTERNS), and long runs a reader starts by hand (LONG_RUNS).
Nor is a command the build itself ran for a page's output, word for word (its
``<run>.command`` in BOOK_OUTPUTS_DIR), when the book expects status 0: the
build stops on any other status (tools/capture_run.py), so it has run, with
these programs, and exited with 0.
A listed pattern or long run that the book no longer shows fails the test, so
that the lists stay true; so does a command of any other kind, and so does
finding no command at all.

The commands run two at a time, each with a time limit; the test prints how
many it found, ran and skipped, and the processor time they took. How each
command ended (its status, stdout and stderr) is kept in the book's cache
(the folder command-outcomes/, tools/cached_command.py), under a hash of the
program's bytes and the command's arguments: a later run of this test with the
same programs (a fresh clone builds the same bytes from the same sources) reads
it there instead of running the command again. A program rebuilt with any
change is another key; a command that ran out of time is not kept.
"""
from __future__ import annotations

import html
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

# Not chapter programs, by first word: why each is not run here.
NOT_CHAPTER_PROGRAMS = {
    "tools/build-book": "installs packages and builds everything; the build this test checks was made that way",
    "tools/run-tests": "runs the whole test suite, this test included",
    "ctest": "runs tests of this build, which the test suite runs itself",
}

# Inline literals that show the shape of a command, with placeholders, not a
# command to type as it stands.
PATTERNS = {
    "build/bin/dot_product --q … --k …": "'…' stands for the matrices of the figure",
    "build/bin/training --steps N --log-every 25": "N stands for a number of steps",
}

# Long runs a reader starts by hand: the commands, exactly as the book shows
# them, and why each is not run here.
LONG_RUNS = {
    "build/bin/fast_attention --n 256,512,1024,2048,4096,8192,16384 --d 64 --threads 1 --reps 5":
        "chapter 12's full sweep on one thread: many minutes on a busy two-core machine",
    "build/bin/fast_attention --n 256,512,1024,2048,4096,8192,16384 --d 64 --threads 2 --reps 5 --json":
        "chapter 12's full sweep on two threads: many minutes on a busy two-core machine",
}

TIMEOUT_SECONDS = 300  # one command; the slowest took a minute on a machine loaded 12 times over
WORKERS = 2


@dataclass(frozen=True)
class Command:
    text: str  # as the book shows it, without the prompt and the comment
    page: str  # the page it was found on, relative to the book's folder
    where: str  # console, output, prose
    expected_status: int = 0
    names_a_flag: bool = False  # a refusal: its one line names one of the command's flags


def strip_tags(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def console_commands(page: str, text: str) -> list[Command]:
    commands = []
    for block in re.findall(r'<div class="highlight-console[^"]*"><div class="highlight"><pre>(.*?)</pre>', text, re.S):
        lines = strip_tags(block).splitlines()
        index = 0
        while index < len(lines):
            line = lines[index]
            index += 1
            if not line.startswith("$ "):
                continue  # printed output, not a command
            command = line[2:]
            while command.rstrip().endswith("\\") and index < len(lines):
                command = command.rstrip()[:-1] + " " + lines[index].strip()
                index += 1
            words = shlex.split(command, comments=True)
            comment = command[len(command.split("#", 1)[0]):].lstrip("#").strip() if "#" in command else ""
            if "#" in shlex.join(words):
                raise AssertionError(f"{page}: cannot tell the comment from the command in {command!r}")
            status, names_a_flag = 0, False
            if comment.startswith("refused:"):
                status, names_a_flag = 2, True
            elif match := re.search(r"exit status (\d+)", comment):
                status = int(match.group(1))
            commands.append(Command(shlex.join(words), page, "console", status, names_a_flag))
    return commands


def output_commands(page: str, text: str) -> list[Command]:
    captions = re.findall(r'<span class="caption-text"><code[^>]*>(.*?)</code>', text, re.S)
    return [Command(shlex.join(shlex.split(strip_tags(caption)[2:])), page, "output")
            for caption in captions if strip_tags(caption).startswith("$ ")]


def prose_commands(page: str, text: str) -> list[Command]:
    commands = []
    for classes, literal in re.findall(r'<code class="([^"]*\bliteral\b[^"]*)">(.*?)</code>', text, re.S):
        shown = " ".join(strip_tags(literal).split())
        if not shown.startswith("build/bin/") or shown == "build/bin/":
            continue
        if shown in PATTERNS:
            commands.append(Command(shown, page, "pattern"))
            continue
        refused = "refused-command" in classes.split()
        commands.append(Command(shlex.join(shlex.split(shown)), page, "prose", 2 if refused else 0, refused))
    return commands


def book_commands(html_dir: Path) -> list[Command]:
    commands = []
    for path in sorted(html_dir.rglob("*.html")):
        page = str(path.relative_to(html_dir))
        if page.startswith(("_", "genindex", "search")):
            continue
        text = path.read_text()
        commands += console_commands(page, text) + output_commands(page, text) + prose_commands(page, text)
    return commands


@dataclass
class Outcome:
    command: Command
    status: int | None
    stdout: str
    stderr: str
    seconds: float
    cached: bool = False  # read from the cache, not run now


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import cached_command  # noqa: E402  (the book's cache: where it is, how it is pruned and written)


def run_one(command: Command, bin_dir: Path) -> Outcome:
    """How the command ends: from the cache if this program's bytes ran these arguments before."""
    words = shlex.split(command.text)
    program = bin_dir / words[0].removeprefix("build/bin/")

    def ended():
        outcome = run_program(command, program, words[1:])
        return [outcome.status, outcome.stdout, outcome.stderr, outcome.seconds]

    # Kept: an end of the program's own. Not kept: no answer in time, or a signal's end (a negative
    # status), which may come from outside (a run stopped by hand) and would fail every later run.
    (status, stdout, stderr, seconds), read = cached_command.program_answer(
        "command-outcomes", program, words[1:], ended, keep=lambda result: result[0] is not None and result[0] >= 0)
    return Outcome(command, status, stdout, stderr, 0.0 if read else seconds, cached=read)


def run_program(command: Command, program: Path, arguments: list[str]) -> Outcome:
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        try:
            result = subprocess.run([str(program), *arguments], cwd=scratch, capture_output=True, text=True,
                                    stdin=subprocess.DEVNULL, timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            return Outcome(command, None, "", f"no answer within {TIMEOUT_SECONDS} s", time.monotonic() - start)
    return Outcome(command, result.returncode, result.stdout, result.stderr, time.monotonic() - start)


class ReadingThePages(unittest.TestCase):
    """The reading of a page, on HTML written here as Sphinx and Pygments render it."""

    CONSOLE = ('<div class="highlight-console notranslate"><div class="highlight"><pre><span></span>'
               '<span class="gp">$ </span>build/bin/a<span class="w"> </span>--x<span class="w"> </span>'
               '&quot;1,0;0,1&quot;<span class="w">  </span><span class="c1"># the toy</span>\n'
               'printed output\n'
               '<span class="gp">$ </span>build/bin/a --heads 4 <span class="c1"># refused: 4 does not divide 6</span>\n'
               '<span class="gp">$ </span>build/bin/b --rate 1e200 <span class="c1"># diverges: one line, exit status 1'
               '</span>\n<span class="gp">$ </span>build/bin/c --tokens a,b \\\n      --q &quot;1;2&quot;\n'
               '</pre></div></div>')

    def test_console_listings(self):
        commands = console_commands("p.html", self.CONSOLE)
        self.assertEqual([(c.text, c.expected_status, c.names_a_flag) for c in commands],
                         [("build/bin/a --x '1,0;0,1'", 0, False), ("build/bin/a --heads 4", 2, True),
                          ("build/bin/b --rate 1e200", 1, False), ("build/bin/c --tokens a,b --q '1;2'", 0, False)])

    def test_output_captions_and_prose(self):
        caption = ('<span class="caption-text"><code class="docutils literal notranslate"><span class="pre">$</span> '
                   '<span class="pre">build/bin/a</span> <span class="pre">--k</span> '
                   '<span class="pre">&#39;1,0;</span> <span class="pre">0,1&#39;</span></code></span>')
        self.assertEqual([c.text for c in output_commands("p.html", caption)], ["build/bin/a --k '1,0; 0,1'"])
        prose = ('<code class="docutils literal notranslate"><span class="pre">build/bin/a</span> '
                 '<span class="pre">--no-timing</span></code> and <code class="docutils literal notranslate '
                 'refused-command"><span class="pre">build/bin/a</span> <span class="pre">--heads</span> '
                 '<span class="pre">3</span></code> and <code class="docutils literal notranslate">build/bin/</code>')
        self.assertEqual([(c.text, c.expected_status) for c in prose_commands("p.html", prose + caption)],
                         [("build/bin/a --no-timing", 0), ("build/bin/a --heads 3", 2)])


class BookCommands(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.html_dir = Path(os.environ["BOOK_HTML_DIR"])
        cls.bin_dir = Path(os.environ["BOOK_BIN_DIR"])
        cls.found = book_commands(cls.html_dir)

    def test_the_book_shows_commands(self):
        # A test that found nothing would pass whatever the book said.
        self.assertGreaterEqual(len(self.found), 50)
        for where in ("console", "output", "prose"):
            self.assertTrue(any(command.where == where for command in self.found), where)
        self.assertTrue(any(command.page == "index.html" and command.text.startswith("build/bin/")
                            for command in self.found), "no command on the landing page")
        self.assertTrue(any(command.expected_status == 2 for command in self.found), "no refusal marked")

    def test_the_lists_of_what_is_not_run_are_true(self):
        shown = {command.text for command in self.found}
        for listed in [*PATTERNS, *LONG_RUNS]:
            with self.subTest(listed=listed):
                self.assertIn(listed, shown, "listed here as not run, but no longer in the book")

    def test_every_command_runs(self):
        to_run, skipped, unknown = {}, {}, []
        captured = {path.read_text().strip() for path in Path(os.environ["BOOK_OUTPUTS_DIR"]).glob("*.command")}
        self.assertGreater(len(captured), 0, "no captured run in BOOK_OUTPUTS_DIR")
        already_run = set()
        for command in self.found:
            first = shlex.split(command.text)[0]
            if command.text in captured and command.expected_status == 0:
                already_run.add(command.text)
            elif command.where == "pattern":
                skipped[command.text] = PATTERNS[command.text]
            elif command.text in LONG_RUNS:
                skipped[command.text] = LONG_RUNS[command.text]
            elif first in NOT_CHAPTER_PROGRAMS:
                skipped[command.text] = NOT_CHAPTER_PROGRAMS[first]
            elif not first.startswith("build/bin/") or not (self.bin_dir / first.removeprefix("build/bin/")).is_file():
                unknown.append(command)
            else:
                previous = to_run.setdefault(command.text, command)
                # The same command shown twice must be expected to end the same way.
                self.assertEqual((previous.expected_status, previous.names_a_flag),
                                 (command.expected_status, command.names_a_flag),
                                 f"{command.text}: {previous.page} and {command.page} disagree")
        self.assertEqual(unknown, [], "commands that are neither a chapter program nor listed as not run")
        self.assertGreater(len(to_run), 0)

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            outcomes = list(pool.map(lambda command: run_one(command, self.bin_dir), to_run.values()))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        processor = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

        for outcome in outcomes:
            command = outcome.command
            with self.subTest(command=command.text, page=command.page):
                self.assertEqual(outcome.status, command.expected_status,
                                 f"{command.page} ({command.where}): {command.text}: {outcome.stderr.strip()}")
                if command.expected_status != 0:
                    lines = outcome.stderr.splitlines()
                    self.assertEqual(len(lines), 1, f"expected one line on stderr, got {outcome.stderr!r}")
                    self.assertEqual(outcome.stdout, "")
                if command.names_a_flag:
                    flags = [word.split("=")[0] for word in shlex.split(command.text) if word.startswith("--")]
                    self.assertTrue(any(flag in outcome.stderr for flag in flags),
                                    f"the refusal names none of {flags}: {outcome.stderr!r}")

        distinct = len({command.text for command in self.found})
        slowest = sorted(outcomes, key=lambda outcome: -outcome.seconds)[:3]
        refusals = sum(1 for outcome in outcomes if outcome.command.expected_status != 0)
        print(f"\n{len(self.found)} commands shown, {distinct} different ones: {len(to_run)} run ({refusals} of them "
              f"expected to fail as the book says), {len(already_run)} run by the build for the pages' outputs, "
              f"{len(skipped)} not run:", file=sys.stderr)
        for text, reason in sorted(skipped.items()):
            print(f"  not run: {text}  ({reason})", file=sys.stderr)
        print(f"{sum(outcome.cached for outcome in outcomes)} of those read from the cache "
              f"{cached_command.cache_root() / 'command-outcomes'}", file=sys.stderr)
        print(f"{time.monotonic() - start:.1f} s wall, {processor:.1f} s of processor time; slowest: "
              + ", ".join(f"{o.command.text} {o.seconds:.1f} s" for o in slowest), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
