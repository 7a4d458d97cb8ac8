#!/usr/bin/python3
"""Run a chapter program the way a chapter's runs.json says, for the book.

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
"""
import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path


# A run's name becomes a file name in --out: no '/', no '..', nothing hidden.
RUN_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", required=True, type=Path)
    parser.add_argument("--runs", required=True, type=Path, help="the chapter's runs.json")
    parser.add_argument("--run", required=True, help="the run's name in runs.json")
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

    if one_run:
        json_path.unlink(missing_ok=True)
        results = [subprocess.run(command + ["--json-file", str(json_path)], capture_output=True, text=True)]
    else:
        results = [subprocess.run(command, capture_output=True, text=True),
                   subprocess.run(command + ["--json"], capture_output=True, text=True)]
    for result in results:
        if result.returncode != 0:
            sys.exit(f"capture_run: {shlex.join(result.args)} exited with {result.returncode}: {result.stderr.strip()}")
    if not one_run:
        json_path.write_text(results[1].stdout)
    json.loads(json_path.read_text())  # must be one valid document

    (options.out / f"{options.run}.txt").write_text(results[0].stdout)
    display = shlex.join([f"build/bin/{options.program.name}", *arguments])
    (options.out / f"{options.run}.command").write_text(display + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
