#!/usr/bin/env python3
"""Runs a chapter's NumPy listings on the chapter's runs and compares them with the C++ program.

    check_numpy_listings.py --listing chapters/01_dot_product/numpy_dot_product.py
                            --runs build/chapter_runs/01_dot_product.json
                            --outputs build/book/generated/outputs --out build/book/generated/numpy/x.json

The file holds the code of a page's NumPy tabs, each between two lines
``# [name]``, as the C++ listings are marked, and ends with a function
``comparisons(run)``: ``run(name)`` is the captured ``--json`` document of one
of the chapter's runs (non-finite numbers, written as "-inf", read as floats;
``run.names`` lists the runs),
and each item it yields is ``(listing, what, ours, theirs)``: the name of a
listing (or a tuple of names) whose code computed ``ours``, a few words on what
is compared, NumPy's result, and the program's number from the document.

The check fails (exit status 1, one line per problem on stderr) when

- a result differs from the program's by more than TOLERANCE of the largest
  entry of the program's array (at least 1): both compute in IEEE double
  precision but may add in another order (BLAS and Eigen), fuse a multiply
  and an add, and round exp, log, sin or cos differently (NumPy's vectorised
  versions and the C library's). Each moves a result by a few units in the
  last place, about 1e-16; 1e-12 leaves room for thousands of them, while a
  wrong formula (a missing square root, a wrong axis, a transposed matrix)
  moves the numbers by 1e-3 or more;
- the shapes differ, or a non-finite entry (a masked -inf) differs in place
  or value, or a true/false entry differs at all;
- a listing is named by no comparison, or a statement of a listing never ran
  (every line the page shows must be code the check executed);
- a comparison names a listing the file does not have, or a run the
  chapter's runs (the block that ends its index.rst) do not list.

On success it writes --out: each listing, what was compared, and the largest
relative difference found. The book reads it: a NumPy tab shows only a
listing this check passed (docs/_ext/book.py).
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import re
import sys
import traceback
from pathlib import Path

import numpy as np

TOLERANCE = 1e-12
MARKER = re.compile(r"^\s*# \[(\w+)\]\s*$")
NON_FINITE = {"inf": np.inf, "+inf": np.inf, "-inf": -np.inf, "nan": np.nan}


def markers(text: str) -> dict[str, list[int]]:
    """Each listing's name and the line numbers of its marker lines (two, if it is marked right)."""
    found: dict[str, list[int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.match(line)
        if match:
            found.setdefault(match.group(1), []).append(number)
    return found


def statements(text: str, first: int, last: int) -> set[int]:
    """The lines on which a statement strictly between lines first and last starts."""
    return {node.lineno for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.stmt) and first < node.lineno < last}


def read_numbers(value):
    """A JSON document with the programs' non-finite numbers ("-inf") read as floats."""
    if isinstance(value, dict):
        return {key: read_numbers(entry) for key, entry in value.items()}
    if isinstance(value, list):
        return [read_numbers(entry) for entry in value]
    if isinstance(value, str) and value.lower() in NON_FINITE:
        return NON_FINITE[value.lower()]
    return value


def difference(ours, theirs) -> tuple[float | None, str]:
    """The largest difference relative to the program's largest entry (at least 1), or None and why they differ."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ours.shape != theirs.shape:
        return None, f"NumPy's shape is {ours.shape}, the program's {theirs.shape}"
    if theirs.dtype == bool or ours.dtype == bool:
        if ours.dtype != theirs.dtype or not np.array_equal(ours, theirs):
            return None, f"NumPy gives {ours.tolist()}, the program {theirs.tolist()}"
        return 0.0, ""
    ours, theirs = ours.astype(float), theirs.astype(float)
    finite = np.isfinite(theirs)
    if not np.array_equal(np.isfinite(ours), finite) or not np.array_equal(ours[~finite], theirs[~finite],
                                                                           equal_nan=True):
        return None, "the non-finite entries differ (NumPy: " + str(ours[~finite | ~np.isfinite(ours)].tolist()) + \
            ", the program: " + str(theirs[~finite | ~np.isfinite(ours)].tolist()) + ")"
    if not finite.any():
        return 0.0, ""
    scale = max(1.0, float(np.abs(theirs[finite]).max()))
    absolute = float(np.abs(ours[finite] - theirs[finite]).max())
    return absolute / scale, f"they differ by up to {absolute:.3g}, where the scale is {scale:.6g}"


class Runs:
    """The chapter's captured runs: run(name) is one run's --json document; run.names lists them all."""

    def __init__(self, runs_file: Path, outputs: Path):
        self.runs_file, self.outputs = runs_file, outputs
        self.names = list(json.loads(runs_file.read_text())["runs"])

    def __call__(self, name: str):
        if name not in self.names:
            raise LookupError(f"no run {name!r} in {self.runs_file}")
        return read_numbers(json.loads((self.outputs / f"{name}.json").read_text()))


def check(listing: Path, runs_file: Path, outputs: Path) -> tuple[dict, list[str]]:
    text = listing.read_text()
    listings = markers(text)
    if not listings:
        return {}, [f"{listing.name}: no listing (no '# [name]' marker lines)"]
    unpaired = [f"{listing.name}: marker [{name}] appears {len(lines)} times; it must open and close the listing"
                for name, lines in listings.items() if len(lines) != 2]
    if unpaired:
        return {}, unpaired
    run = Runs(runs_file, outputs)

    # Other chapters' NumPy listings can be imported by name (chapter 4 uses chapter 3's attention).
    for folder in sorted({path.parent for path in listing.parent.parent.glob("*/numpy_*.py")}):
        sys.path.insert(0, str(folder))
    executed: set[int] = set()
    path = str(listing.resolve())

    def trace_lines(frame, event, arg):
        if event == "line":
            executed.add(frame.f_lineno)
        return trace_lines

    def trace_calls(frame, event, arg):
        return trace_lines if frame.f_code.co_filename == path else None

    problems, named, compared = [], set(), {name: [] for name in listings}
    spec = importlib.util.spec_from_file_location(listing.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.settrace(trace_calls)
    try:
        spec.loader.exec_module(module)
        items = list(module.comparisons(run))
    except Exception as error:  # the listing's own error, with its line
        lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == path]
        at = f" (line {lines[-1]})" if lines else ""
        return {}, [f"{listing.name}{at}: {type(error).__name__}: {error}"]
    finally:
        sys.settrace(None)
    for names, what, ours, theirs in items:
        names = (names,) if isinstance(names, str) else tuple(names)
        named.update(names)
        where = f"{listing.name} [{', '.join(names)}], {what}"
        unknown = [name for name in names if name not in listings]
        if unknown:
            problems.append(f"{where}: no listing named {', '.join(unknown)} in the file")
            continue
        largest, why = difference(ours, theirs)
        if largest is None or largest > TOLERANCE:
            problems.append(f"{where}: NumPy and the C++ program disagree: {why} (allowed: {TOLERANCE:g})")
            continue
        for name in names:
            compared[name].append({"what": what, "largest_relative_difference": largest})
    for name, (first, last) in listings.items():
        if name not in named:
            problems.append(f"{listing.name} [{name}]: no comparison names this listing; "
                            "comparisons() must check what it computes")
        never = sorted(statements(text, first, last) - executed)
        if never:
            problems.append(f"{listing.name} [{name}]: line {', '.join(map(str, never))} never ran in the check")
    return {"listing": str(listing.resolve()), "tolerance": TOLERANCE, "listings": compared}, problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listing", type=Path, required=True, help="the chapter's numpy_*.py")
    parser.add_argument("--runs", type=Path, required=True, help="the chapter's runs (tools/chapter_runs.py writes them)")
    parser.add_argument("--outputs", type=Path, required=True, help="the folder of the captured runs")
    parser.add_argument("--out", type=Path, required=True, help="where to write what was checked")
    arguments = parser.parse_args()
    report, problems = check(arguments.listing, arguments.runs, arguments.outputs)
    if problems:
        for problem in problems:
            print(f"NumPy listing check: {problem}", file=sys.stderr)
        arguments.out.unlink(missing_ok=True)
        return 1
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
