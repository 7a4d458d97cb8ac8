"""What the tests of every chapter program share: running it, reading its JSON,
and checking that bad input is refused the way the book promises (one line on
stderr naming the flag, exit status 2, nothing on stdout)."""
import atexit
import functools
import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
import cached_command  # noqa: E402  (the book's cache: where it is, how it is pruned and written)
from capture_run import this_machine  # noqa: E402  (the processor and how many, as a kept timing's key holds them)

PROGRAM = os.environ.get("BOOK_PROGRAM", "")
# The sanitizer build's programs serve many runs from one start
# (src/program/run_server.hpp); its tests run with BOOK_SANITIZE=1.
USE_RUN_SERVER = os.environ.get("BOOK_SANITIZE", "0") == "1"


class RunServer:
    """One started program that forks a child for each run. A run is as if the
    program had been started with those arguments: its own stdout and stderr
    (files here), its exit status, LeakSanitizer's check when it exits."""

    def __init__(self, program: str):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.program = program
        self.process = subprocess.Popen([program], pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                        env=dict(os.environ, BOOK_RUN_SERVER_FD=str(theirs.fileno())))
        theirs.close()
        self.socket = ours
        atexit.register(self.close)

    def run(self, arguments, timeout: float) -> subprocess.CompletedProcess:
        request = b"R" + b"".join(argument.encode() + b"\0" for argument in arguments)
        with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
            self.socket.settimeout(timeout)
            try:
                socket.send_fds(self.socket, [request], [stdout.fileno(), stderr.fileno()])
                status = self.socket.recv(8)
            except socket.timeout:
                self.process.kill()  # and with it the run (it dies with its server)
                raise subprocess.TimeoutExpired([self.program, *arguments], timeout) from None
            except OSError:
                status = b""
            if len(status) != 4:
                raise RuntimeError(f"{self.program} stopped serving runs (status {self.process.poll()}) at {arguments}")
            stdout.seek(0)
            stderr.seek(0)
            return subprocess.CompletedProcess([self.program, *arguments],
                                               os.waitstatus_to_exitcode(int.from_bytes(status, sys.byteorder)),
                                               stdout.read().decode(), stderr.read().decode())

    def close(self):
        self.socket.close()
        self.process.wait(timeout=60)


_servers = {}


def start_program(program: str, arguments, timeout: float = 60) -> subprocess.CompletedProcess:
    """Starts @p program with @p arguments as a process of its own, capturing its output as text."""
    return subprocess.run([program, *arguments], capture_output=True, text=True, timeout=timeout)


def start_alone(*arguments: str, environment: dict | None = None, **options) -> subprocess.CompletedProcess:
    """Starts the program under test as a process of its own (not a run
    server's child, whose environment and limits are its server's), with
    @p environment added to this one's; @p options go to subprocess.run (a
    preexec_fn that sets the process's limits, say)."""
    return subprocess.run([PROGRAM, *arguments], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **(environment or {})), **options)


# The widest line of program output the book's pages show whole at 1280 px
# (the browser check fails on a clipped block): a report whose lines hold a
# machine's own text (its processor's name, its times) stays within it.
PAGE_COLUMNS = 100

# A processor's name longer than any machine's, with a word longer than a line.
WIDE_PROCESSOR_NAME = ("Intel(R) Xeon(R) Platinum 8488C Processor with a Name Longer Than Any Maker Writes "
                       + "X" * 120 + " @ 9.99GHz")


def serve(program: str, arguments, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs @p program with @p arguments as a child of its run server, capturing its output as text."""
    if program not in _servers:
        _servers[program] = RunServer(program)
    return _servers[program].run(arguments, timeout)


# What a program's run may depend on besides its bytes and its arguments: the environment variables it
# reads (src/attention/stopwatch.hpp, chapters/12_fast_attention) or the sanitizers read, and the machine
# it reads about (its processor's name, its processors, its caches: src/attention/tile_shape.hpp).
RUN_ENVIRONMENT = ("BOOK_PROCESSOR_NAME", "BOOK_PEAK_GFLOPS", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")


@functools.cache
def machine() -> list:
    """The machine as a program may see it, for a kept run's key: what a kept timing's key holds, and the
    processors this process may use and the processor's caches."""
    caches = sorted(str(path) + "=" + path.read_text().strip()
                    for path in pathlib.Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size"))
    sizes = [os.sysconf(name) if name in os.sysconf_names else None
             for name in ("SC_LEVEL1_DCACHE_SIZE", "SC_LEVEL2_CACHE_SIZE")]
    return [this_machine(), len(os.sched_getaffinity(0)), caches, sizes]


def run_context() -> list:
    """What a kept run's answer depends on besides the program's bytes and the question asked."""
    return [machine(), [[name, os.environ.get(name)] for name in RUN_ENVIRONMENT]]


def keeps_its_answer(arguments) -> bool:
    """Whether a run's answer may be kept: not if an argument names a file or a folder (its content, or
    what the run writes there, is not in the key)."""
    return not any("/" in argument or os.path.exists(argument) for argument in arguments)


def answer_of(result: subprocess.CompletedProcess) -> dict:
    """A run's answer as the book's cache keeps it."""
    return {"returncode": result.returncode, "stdout": result.stdout, "stderr": result.stderr}


def passed_cleanly(answer: dict) -> bool:
    """A run worth keeping: it ended as the book's programs end (0, or 2 for bad input), no sanitizer spoke."""
    return answer["returncode"] in (0, 2) and "Sanitizer" not in answer["stderr"] \
        and "runtime error" not in answer["stderr"]


# Where the tests' runs are kept (tools/cached_command.py): the two builds' programs are other bytes.
KEPT_RUNS = "sanitized-runs" if USE_RUN_SERVER else "program-runs"


def run_program(program: str, arguments, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs @p program with @p arguments, capturing its output as text: a
    process of its own, or, in the sanitizer build (USE_RUN_SERVER), a child of
    its run server. A run that the same bytes of the program made before, with
    the same arguments, on this machine, is read back from the book's cache
    (the folder KEPT_RUNS of tools/cached_command.py) instead of run again: any
    change to a program is another key, so the tests run every run of a
    changed program, and a machine with no cache runs every one. A run that
    failed or named a file is not kept."""
    def launch() -> subprocess.CompletedProcess:
        if USE_RUN_SERVER:
            return serve(program, arguments, timeout)
        return start_program(program, arguments, timeout)
    if not keeps_its_answer(arguments):
        return launch()
    kept, _ = cached_command.program_answer(KEPT_RUNS, program, [run_context(), list(arguments)],
                                            lambda: answer_of(launch()), keep=passed_cleanly)
    return subprocess.CompletedProcess([program, *arguments], kept["returncode"], kept["stdout"], kept["stderr"])


def on_a_terminal(program: str, arguments, timeout: float = 120) -> tuple[int, str, str]:
    """Runs @p program with its stderr on a terminal (a pseudo-terminal) and
    its stdout on a pipe, as a reader's shell would with `> file`; returns its
    exit status, its stdout and what the terminal showed. Both are read until
    the program closes them: a single read of the terminal returns what has
    been written so far, which on a busy machine may be the first lines only."""
    import pty
    import select
    controller, terminal = pty.openpty()
    process = subprocess.Popen([program, *arguments], stdout=subprocess.PIPE, stderr=terminal,
                               stdin=subprocess.DEVNULL)
    os.close(terminal)
    output = process.stdout.fileno()
    outputs = {controller: b"", output: b""}
    open_ends = set(outputs)
    while open_ends:
        ready, _, _ = select.select(list(open_ends), [], [], timeout)
        if not ready:
            process.kill()
            raise AssertionError(f"{program} {arguments}: no output for {timeout} s: {outputs[controller]!r}")
        for end in ready:
            try:
                chunk = os.read(end, 65536)
            except OSError:  # the terminal: the program exited and closed it
                chunk = b""
            if chunk:
                outputs[end] += chunk
            else:
                open_ends.discard(end)
    os.close(controller)
    process.stdout.close()
    return process.wait(timeout=60), outputs[output].decode(), outputs[controller].decode()


def spread_rule(first, second) -> str:
    """Chapter 7's rule, written here from its statement, on two spreads (fastest, slowest repetition kept):
    "faster" only if the first's whole spread lies below the second's, "slower" the other way round."""
    if first[1] < second[0]:
        return "faster"
    if second[1] < first[0]:
        return "slower"
    return "too close to call"


def quartile_spread(samples) -> tuple:
    """The spread the book reports: the repetitions from the fastest to the slowest, once the fastest and the
    slowest quarter (rounded down) are left out."""
    ordered = sorted(samples)
    left_out = len(ordered) // 4
    return ordered[left_out], ordered[-1 - left_out]


def published_run(name: str) -> dict:
    """The JSON of one of the book's own runs (a name in the chapter's ``.. runs::`` list), as the build captured it
    for the page: what the prose says of a run it shows is checked on that run. Where the book is not
    rendered (the sanitizer build), the test is skipped; a run the build did not capture fails it."""
    directory = os.environ.get("BOOK_OUTPUTS_DIR")
    if not directory:
        raise unittest.SkipTest("the book is not rendered in this build")
    return json.loads((pathlib.Path(directory) / f"{name}.json").read_text())


def run(*arguments: str, check: bool = True) -> subprocess.CompletedProcess:
    if not PROGRAM:
        raise RuntimeError("BOOK_PROGRAM is not set: run this through ctest")
    result = run_program(PROGRAM, arguments)
    if check and result.returncode != 0:
        raise AssertionError(f"{arguments} exited with {result.returncode}: {result.stderr}")
    return result


def run_json(*arguments: str) -> dict:
    return json.loads(run(*arguments, "--json").stdout)


_kept_documents: dict = {}


def kept_json(*arguments: str) -> dict:
    """The JSON of a run with these arguments: one run per argument list, kept for every test that reads it
    (for the programs that train, where a run takes seconds)."""
    if arguments not in _kept_documents:
        _kept_documents[arguments] = run_json(*arguments)
    return _kept_documents[arguments]


_kept_printed: dict = {}


def kept_tables_and_json(*arguments: str) -> tuple:
    """One run's printed tables and the JSON document it wrote beside them (--json-file), kept as kept_json()
    keeps its runs, and kept in the book's cache as run_program() keeps a run: the file's name, a new one for
    each run, is not part of the question (a run that prints it is not kept)."""
    if arguments not in _kept_printed:
        def answer() -> dict:
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "run.json")
                result = run(*arguments, "--json-file", path)
                return answer_of(result) | {"written": pathlib.Path(path).read_text(),
                                            "named_the_file": folder in result.stdout}

        if keeps_its_answer(arguments):
            kept, _ = cached_command.program_answer(
                KEPT_RUNS, PROGRAM, [run_context(), list(arguments), "--json-file"], answer,
                keep=lambda answer: passed_cleanly(answer) and not answer["named_the_file"])
        else:
            kept = answer()
        _kept_printed[arguments] = kept["stdout"], json.loads(kept["written"])
    return _kept_printed[arguments]


class ProgramTest(unittest.TestCase):
    def assert_each_refused(self, cases):
        """Each (arguments, names) case is refused, as assert_refused() checks."""
        self.assertGreaterEqual(len(cases), 10, "assert_each_refused: ten bad inputs at least, one for each "
                                "flag and kind of mistake")
        for arguments, names in cases:
            self.assert_refused(arguments, names)

    def assert_help_lists(self, *texts: str):
        """--help succeeds, prints nothing on stderr, and mentions each of `texts`."""
        result = run("--help")
        for text in texts:
            self.assertIn(text, result.stdout)
        self.assertEqual(result.stderr, "")

    def assert_report_keeps_its_width(self, *arguments: str):
        """Run with a processor's name wider than a page: every printed line
        fits the page, and the JSON keeps the name whole."""
        environment = {"BOOK_PROCESSOR_NAME": WIDE_PROCESSOR_NAME}
        printed = start_alone(*arguments, environment=environment)
        self.assertEqual(printed.returncode, 0, printed.stderr)
        self.assertIn("Processor: Intel(R) Xeon(R)", printed.stdout)
        for line in printed.stdout.splitlines():
            self.assertLessEqual(len(line), PAGE_COLUMNS, line)
        document = json.loads(start_alone(*arguments, "--json", environment=environment).stdout)
        return document

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
