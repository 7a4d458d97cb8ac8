#!/usr/bin/python3
"""Run a chapter program the way a chapter's runs say, for the book.

Writes three files into --out for the run named --run:
  <run>.txt      what the program prints (its tables)
  <run>.json     what it prints with --json (the live values of the prose)
  <run>.command  the command line a reader types to see the same thing
A run is a list of arguments: the program runs twice, once for the tables and
once with --json. A program whose output differs from run to run (timings)
is captured once instead: the run is {"arguments": [...], "json_file": true},
and the program writes its JSON with --json-file while it prints its tables.
Fails, and so fails the build, if the program exits with anything but 0 or if
its JSON is not one JSON document, or if the run's name could make a path
outside --out: a name is letters, digits, '_', '.' and '-', not starting with '.'.

What a run printed is kept in the book's cache (tools/cached_command.py, the
folder runs/), under a hash of the program's bytes and the run's arguments: a
fresh clone builds the same bytes from the same sources, and its build reads
the run back instead of running it again (chapter 16's grid trains 120
models). A program changed in any way is another key.

A run that times something (a json_file run, unless its entry says "timed":
false: its varying numbers, a training's seconds, are no claim about speed) is
kept in the folder timings/, under the same key and this machine's processor
and its number of logical processors: the timings a build prints are those of
these very bytes on this kind of machine, measured alone: cmake/Book.cmake runs
such runs one at a time, after everything is compiled, and a run is kept only
if the rest of the machine was quiet meanwhile (busy_seconds, below; a run
that other work disturbed is printed by this build and measured again by the
next: its files are dated 1970, older than any input, so Ninja runs it again). BOOK_TIME_AGAIN=1 in the environment measures every timed run again.
"""
import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import cached_command  # the book's cache: where it is, how it is pruned and written


# A run's name becomes a file name in --out: no '/', no '..', nothing hidden.
RUN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", required=True, type=Path)
    parser.add_argument("--runs", required=True, type=Path, help="the chapter's runs (tools/chapter_runs.py writes them)")
    parser.add_argument("--run", required=True, help="the run's name in them")
    parser.add_argument("--out", required=True, type=Path)
    options = parser.parse_args()
    if not RUN_NAME.fullmatch(options.run):
        sys.exit(f"capture_run: --run {options.run!r} is not a run name; expected letters, digits, '_', '.' "
                 "and '-', not starting with '.'")

    runs = json.loads(options.runs.read_text())["runs"]
    if options.run not in runs:
        sys.exit(f"capture_run: {options.runs} has no run named {options.run!r}")
    run = runs[options.run]
    one_run = isinstance(run, dict) and run.get("json_file", False)
    arguments = run["arguments"] if isinstance(run, dict) else run
    command = [str(options.program), *arguments]
    options.out.mkdir(parents=True, exist_ok=True)
    json_path = options.out / f"{options.run}.json"
    display = shlex.join([f"build/bin/{options.program.name}", *arguments])
    (options.out / f"{options.run}.command").unlink(missing_ok=True)

    def captured():  # [tables, document]
        if one_run:
            json_path.unlink(missing_ok=True)
            results = [subprocess.run(command + ["--json-file", str(json_path)], capture_output=True, text=True)]
        else:
            results = [subprocess.run(command, capture_output=True, text=True),
                       subprocess.run(command + ["--json"], capture_output=True, text=True)]
        for result in results:
            if result.returncode != 0:
                sys.exit(f"capture_run: {shlex.join(result.args)} exited with {result.returncode}: "
                         f"{result.stderr.strip()}")
        document = json_path.read_text() if one_run else results[1].stdout
        json.loads(document)  # must be one valid document
        return [results[0].stdout, document]

    question = [arguments, bool(one_run)]
    if one_run and run.get("timed", True):  # it times something: on this machine, or again if asked
        quiet = []

        def measured():  # captured(), and whether the machine did nothing else meanwhile
            busy, children, start = busy_seconds(), os.times(), time.monotonic()
            result = captured()
            wall, after = time.monotonic() - start, os.times()
            program = after.children_user + after.children_system - children.children_user - children.children_system
            others = None if busy is None else busy_seconds() - busy - program
            quiet.append(others is None or others <= max(QUIET_SHARE * wall, QUIET_SECONDS))
            if not quiet[-1]:
                print(f"capture_run: {options.run}: {others:.1f} processor-seconds of other work ran beside its "
                      f"{wall:.1f} s; its timings are printed but not kept, and measured again at the next build",
                      file=sys.stderr)
            return result

        (tables, document), _ = cached_command.program_answer("timings", options.program, [*question, this_machine()],
                                                              measured, keep=lambda result: quiet[-1],
                                                              again=bool(os.environ.get("BOOK_TIME_AGAIN")))
        status = write(options, tables, document, display)
        if quiet and not quiet[-1]:
            # Older than any input: the next build runs it again. Nothing else would, now that the stamps
            # that order the runs are left alone (docs/CMakeLists.txt).
            for suffix in ("txt", "json", "command"):
                os.utime(options.out / f"{options.run}.{suffix}", (0, 0))
        return status
    else:
        (tables, document), _ = cached_command.program_answer("runs", options.program, question, captured)
    return write(options, tables, document, display)


# A timed run is kept only if the rest of the machine was this quiet meanwhile:
# other work of at most a tenth of the run's wall-clock time (at least 0.05 s,
# the clock's ticks and the kernel's own chores).
QUIET_SHARE, QUIET_SECONDS = 0.1, 0.05


def busy_seconds():
    """The processor-seconds the whole machine has been busy since it started (user, nice,
    system, irq, softirq and steal in Linux's /proc/stat), or None where there is no such file."""
    try:
        with open("/proc/stat") as stat:
            ticks = stat.readline().split()[1:9]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(tick) for tick in ticks)
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def this_machine() -> dict:
    """What a timing depends on besides the program's bytes (which -march=native
    already ties to the processor's features): the processor and how many."""
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), model)
    except OSError:
        pass
    return {"processor": model, "logical processors": os.cpu_count()}


def write(options, tables: str, document: str, display: str) -> int:
    """The run's three files; <run>.command last, as the sign that the other two are whole."""
    (options.out / f"{options.run}.json").write_text(document)
    (options.out / f"{options.run}.txt").write_text(tables)
    (options.out / f"{options.run}.command").write_text(display + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
