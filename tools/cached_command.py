#!/usr/bin/env python3
"""Run a command that writes one file (or a few), or copy the files from the
book's cache if the same command has already run on the same inputs.

    cached_command.py --output FILE [--output FILE ...] --input FILE [--input FILE ...]
                      --cache NAME --strip DIR [--strip DIR ...] -- COMMAND ...
    cached_command.py --folder NAME    prints the cache's folder NAME (made, and
                                       pruned), for the caches kept by others:
                                       the browser check's screenshots and
                                       install-dependencies' npm tree

ccache remembers compilations, not links: the em++ link of the book's
WebAssembly module (cmake/BookPage.cmake) takes 20 s, and a fresh clone would
run it again on object files ccache has just handed back unchanged. This
remembers it the same way. The figures go through it too (cmake/Book.cmake):
each is drawn from its chapter's JSON documents alone. The key is a hash of
the command line (with each --strip folder, such as the clone's own, written
as a placeholder, so clones in different folders share the cache) and of the
content of every --input (the object files, the figure's JSON documents, and
the tools' own version files or binaries). The cache
is $BOOK_CACHE_DIR, else $XDG_CACHE_HOME/attention-compiled, else
~/.cache/attention-compiled, in the folder NAME; entries not used for 14 days
are removed. A command that fails leaves nothing in the cache. A command with
several outputs (a figure and its variant for narrow screens) keeps the first
under the key and each other under the key and its place, `KEY.1`, and is read
back only if all are there."""
import argparse
import functools
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

KEEP_DAYS = 14


def cache_root() -> pathlib.Path:
    if os.environ.get("BOOK_CACHE_DIR"):
        return pathlib.Path(os.environ["BOOK_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(base) / "attention-compiled"


def key(command, inputs, strip) -> str:
    digest = hashlib.sha256()
    for argument in command:
        for folder in strip:
            argument = argument.replace(folder, "<folder>")
        digest.update(argument.encode() + b"\0")
    for path in inputs:
        digest.update(hashlib.sha256(pathlib.Path(path).read_bytes()).digest())
    return digest.hexdigest()


def prune(folder: pathlib.Path) -> None:
    oldest = time.time() - KEEP_DAYS * 24 * 3600
    for entry in folder.iterdir():
        try:
            if entry.stat().st_mtime < oldest:
                entry.unlink()
        except OSError:
            pass  # removed meanwhile


def folder_of(name: str) -> pathlib.Path:
    """The cache's folder `name`, made if missing, without its old entries."""
    folder = cache_root() / name
    folder.mkdir(parents=True, exist_ok=True)
    prune(folder)
    return folder


def store(path: pathlib.Path, data: bytes) -> None:
    """Writes `path` whole or not at all: builds side by side share the cache."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    partial.replace(path)


@functools.cache
def program_hash(program: pathlib.Path) -> str:
    """A hash of the program's bytes: a fresh clone builds the same bytes from the same sources."""
    return hashlib.sha256(pathlib.Path(program).read_bytes()).hexdigest()


_pruned = functools.cache(folder_of)  # each folder made and pruned once per process


def answer_path(folder: str, program, question) -> pathlib.Path:
    """Where the answer to @p question (JSON) asked of these bytes of @p program is kept, in the cache's
    folder @p folder (made, and pruned, if need be). Raises OSError where there is no cache to be had."""
    name = hashlib.sha256(json.dumps([program_hash(program), question]).encode()).hexdigest()
    return _pruned(folder) / f"{name}.json"


def keep_answer(path: pathlib.Path, result) -> None:
    """Keeps @p result (JSON) at @p path, from answer_path()."""
    try:
        store(path, json.dumps(result).encode())
    except OSError as error:  # a cache that cannot be written only costs time
        print(f"cached_command.py: not cached: {error}", file=sys.stderr)


def program_answer(folder: str, program, question, answer, keep=lambda result: True, again=False):
    """What answer() gives for @p question (JSON) asked of @p program: read from the
    cache's folder @p folder if the same bytes of the program were asked the same
    before (and not @p again), else computed, and kept there if keep(result). The
    result is JSON (lists, dictionaries, strings, numbers). Returns (result,
    whether it was read)."""
    try:
        kept = answer_path(folder, program, question)
    except OSError:  # no cache to be had: only costs time
        return answer(), False
    if kept.is_file() and not again:
        os.utime(kept)
        return json.loads(kept.read_text()), True
    result = answer()
    if keep(result):
        keep_answer(kept, result)
    return result, False


def main() -> int:
    if sys.argv[1:2] == ["--folder"]:
        if len(sys.argv) != 3 or not sys.argv[2] or "/" in sys.argv[2]:
            print("cached_command.py: --folder takes one name", file=sys.stderr)
            return 2
        print(folder_of(sys.argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", action="append", required=True, type=pathlib.Path)
    parser.add_argument("--input", action="append", default=[], required=True)
    parser.add_argument("--cache", required=True, help="the cache's folder for this kind of output")
    parser.add_argument("--strip", action="append", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no command after --")

    folder = cache_root() / options.cache
    cached = folder / key(command, options.input, sorted(options.strip, key=len, reverse=True))
    kept = [cached] + [cached.with_name(f"{cached.name}.{place}") for place in range(1, len(options.output))]
    if all(entry.is_file() for entry in kept):
        for entry, output in zip(kept, options.output):
            shutil.copyfile(entry, output)
            os.utime(entry)
        return 0
    status = subprocess.run(command).returncode
    if status != 0:
        return status
    try:
        folder_of(options.cache)
        for entry, output in zip(kept, options.output):
            store(entry, output.read_bytes())
    except OSError as error:  # a cache that cannot be written only costs time
        print(f"cached_command.py: not cached: {error}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
