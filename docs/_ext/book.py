"""The book's own Sphinx extension: live values, captured output, listings.

``:value:`run:/json/pointer``` or ``:value:`run:/json/pointer:format```
    A number in a sentence, read from ``<run>.json``, the ``--json`` output of
    a chapter program captured by the build (a chapter's runs.json names its
    runs). The pointer is an RFC 6901 JSON pointer; the optional format is a
    Python format spec such as ``.4f``. Without one, a number is rounded once
    to 4 decimals and trailing zeros are dropped, as the programs' tables do.

``.. output:: run``
    The tables the program printed for that run, under the command line that
    prints them.

``.. listing:: /path/from/the/repository`` with ``:marker: name``
    ``literalinclude`` of the lines between two ``[name]`` markers.

A missing run, key, file or marker stops the build with an error naming it;
so does a marker that does not appear exactly twice.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.directives.code import LiteralInclude
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

MINUS = "\N{MINUS SIGN}"


def _generated(env, *parts: str) -> Path:
    return Path(env.config.book_generated_dir, *parts)


def _read_output(env, run: str, suffix: str, where: str) -> str:
    """The text of a captured output file; a missing one stops the build."""
    path = _generated(env, "outputs", f"{run}{suffix}")
    if not path.is_file():
        raise ExtensionError(f"{where}: no output of a run named {run!r} ({path} does not exist; "
                             "is the run listed in its chapter's runs.json?)")
    env.note_dependency(str(path))
    return path.read_text()


def _resolve(document, pointer: str, where: str):
    if not pointer.startswith("/"):
        raise ExtensionError(f"{where}: {pointer!r} is not a JSON pointer (it must start with '/')")
    value = document
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list):
            if not token.isdigit() or int(token) >= len(value):
                raise ExtensionError(f"{where}: no index {token!r} in a list of {len(value)} at {pointer!r}")
            value = value[int(token)]
        elif isinstance(value, dict):
            if token not in value:
                raise ExtensionError(f"{where}: no key {token!r} at {pointer!r} (keys here: {', '.join(value)})")
            value = value[token]
        else:
            raise ExtensionError(f"{where}: {pointer!r} goes past a single value")
    return value


def format_value(value, spec: str | None) -> str:
    """How a live value reads in a sentence: a number, or a vector as (a, b)."""
    if isinstance(value, list) and value and all(_is_number(entry) for entry in value):
        return "(" + ", ".join(format_value(entry, spec) for entry in value) + ")"
    if isinstance(value, str) and spec is None:
        return value
    if not _is_number(value):
        raise ValueError(f"{json.dumps(value)[:60]} is not a number, a vector or a name")
    if spec:
        text = format(value, spec)
    else:
        text = f"{value:.4f}".rstrip("0").rstrip(".")
    if text.lstrip("-").strip("0.") == "":
        text = text.lstrip("-")  # no "-0"
    return text.replace("-", MINUS)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def value_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    where = f"{env.docname}.rst:{lineno}: :value:`{text}`"
    run, _, rest = text.partition(":")
    pointer, _, spec = rest.partition(":")
    if not run or not pointer:
        raise ExtensionError(f"{where}: expected run:/json/pointer[:format]")
    document = json.loads(_read_output(env, run, ".json", where))
    value = _resolve(document, pointer, where)
    try:
        shown = format_value(value, spec or None)
    except ValueError as error:
        raise ExtensionError(f"{where}: {error}") from None
    command = _read_output(env, run, ".command", where).strip()
    node = nodes.abbreviation(shown, shown, explanation=f"{command} --json, {pointer}", classes=["live-value"])
    return [node], []


class Output(SphinxDirective):
    """The printed tables of one run, under the command that prints them."""

    required_arguments = 1
    has_content = False

    def run(self):
        run = self.arguments[0]
        where = f"{self.env.docname}.rst:{self.lineno}: output {run}"
        text = _read_output(self.env, run, ".txt", where)
        command = _read_output(self.env, run, ".command", where).strip()
        block = nodes.literal_block(text, text, classes=["program-output"])
        block["language"] = "text"
        self.set_source_info(block)
        # The caption is the command exactly as typed: a literal, so neither
        # reStructuredText nor smart quotes touch it.
        container = nodes.container("", literal_block=True, classes=["literal-block-wrapper"])
        container += nodes.caption("", "", nodes.literal(f"$ {command}", f"$ {command}"))
        container += block
        return [container]


class Listing(LiteralInclude):
    """literalinclude of the lines between two ``[marker]`` lines, dedented."""

    option_spec = dict(LiteralInclude.option_spec, marker=directives.unchanged_required)

    def run(self):
        marker = self.options.pop("marker", None)
        path = self.arguments[0]
        where = f"{self.env.docname}.rst:{self.lineno}: listing {path}"
        if not marker:
            raise ExtensionError(f"{where}: needs a :marker:")
        _, absolute = self.env.relfn2path(path)
        if not Path(absolute).is_file():
            raise ExtensionError(f"{where}: no such file")
        tag = f"[{marker}]"
        count = sum(1 for line in Path(absolute).read_text().splitlines() if line.strip().endswith(tag))
        if count != 2:
            raise ExtensionError(f"{where}: marker {tag} appears {count} times; it must open and close the listing")
        self.options.update({"start-after": tag, "end-before": tag, "dedent": None})
        self.options.setdefault("language", "cpp")
        self.options.setdefault("caption", path.lstrip("/"))
        return super().run()


def setup(app):
    # A change to this file changes how pages render: make Sphinx re-read them all.
    env_version = int(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8], 16)
    app.add_config_value("book_generated_dir", None, "env")
    app.add_role("value", value_role)
    app.add_directive("output", Output)
    app.add_directive("listing", Listing)
    app.add_css_file("book.css")
    return {"version": "1", "env_version": env_version, "parallel_read_safe": True, "parallel_write_safe": True}
