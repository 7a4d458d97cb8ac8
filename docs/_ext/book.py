"""The book's own Sphinx extension: live values, captured output, listings.

``:value:`run:/json/pointer``` or ``:value:`run:/json/pointer:format```
    A number in a sentence, read from ``<run>.json``, the ``--json`` output of
    a chapter program captured by the build (the `.. runs::` block that ends a
    chapter's index.rst names its runs). The pointer is an RFC 6901 JSON pointer; the optional format is a
    Python format spec such as ``.4f``. Without one, a number is rounded once
    to 4 decimals and trailing zeros are dropped, as the programs' tables do.
    Two formats count: ``count`` writes how many entries a list holds ("5"),
    and ``word`` writes a whole number, or a list's count, as a word ("five",
    up to twenty; digits beyond), for "five seeds" read from the run that
    trained them.

``:refused:`command```
    A command the book shows in a sentence and says is refused: the same
    literal as ````command````, with the class ``refused-command``. Nothing
    shows the class; tests/book/test_book_commands.py reads it, and expects
    that command to exit with status 2 and one line on stderr naming a flag.
    (In a console listing, the comment ``# refused: <why>`` says the same.)

``.. output:: run``
    The tables the program printed for that run, under the command line that
    prints them. A short output is shown whole. A long one is shown as the
    tables named in ``:show:`` (one title per line, as the program prints it;
    the start of the title is enough), with the complete output one click away
    in a collapsed block; without ``:show:``, a long output is collapsed
    whole. A title that matches no table, or more than one, stops the build.

``.. listing:: /path/from/the/repository`` with ``:marker: name``
    ``literalinclude`` of the lines between two ``[name]`` markers. Markers
    may nest: a listing leaves out the lines of the markers inside it, so a
    few lines within a longer listing can be shown on their own. With
    ``:collapsed: <summary>``, the listing is folded behind that one line.
    With ``:numpy: numpy_file.py``, the listing shows in two tabs, C++ and
    NumPy, the NumPy tab holding the lines between the two ``# [name]``
    markers of that file. The build runs the file on the chapter's runs and
    compares its numbers with the program's (tools/check_numpy_listings.py);
    a NumPy listing that check did not pass stops the build here.

``.. interactive:: name``
    An interactive figure: the script ``name.js`` beside the chapter's page
    (it calls ``Book.figure('name', ...)``, see docs/_static/interactive.js)
    is placed in the page after the figure's box; the directive's content is
    the caption. A missing script stops the build.

``.. how-we-know::`` with an optional title
    The book's second layer: how a number is computed and how we know it is
    right (generators, tolerances, what the tests check, library internals,
    rounding, performance and WebAssembly notes), folded behind one line,
    "How we know", the same on every page. The main text stays the learner's
    path; the proof is one click away.

``.. answers::``
    The answers to a chapter's "Explain it back" questions, folded behind one
    line, "Answers", so that a reader can try first and check after. The
    content is ordinary reST: a numbered list, one answer per question, with
    live values like any sentence.

``.. chapter-list::``
    The chapters in the root table of contents, each with its title (a link)
    and the one line of its ``:summary:`` field (file-wide metadata at the top
    of the chapter's page). A chapter without a summary stops the build.

A missing run, key, file or marker stops the build with an error naming it;
so does a marker that does not appear exactly twice.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
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
                             "is the run listed in the runs block that ends its chapter's index.rst?)")
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
    """How a live value reads in a sentence: a number, or a vector as (a, b).

    With a format spec, Python's format(value, spec); without one, as the
    programs' tables write it (program::number_text): rounded once to 4
    decimals, trailing zeros dropped, from 1e15 up in size in scientific
    notation ("1.2346e20"). The minus sign is U+2212, and none stands before
    nothing but zeros ("0", not "−0"); the JSON's "inf", "-inf" and "NaN" are
    written as symbols. The page writes numbers the same way (numberText and
    formatNumber in docs/_static/interactive.js); tests/book/test_number_text.py
    holds this function to the cases in tests/number_text_cases.json, which the
    page's and the programs' tests share."""
    if spec in ("count", "word"):
        return _counted(value, spec)
    if isinstance(value, list) and value and all(_is_number(entry) for entry in value):
        return "(" + ", ".join(format_value(entry, spec) for entry in value) + ")"
    if isinstance(value, str) and value in NON_FINITE:
        return NON_FINITE[value]
    if isinstance(value, str) and spec is None:
        return value
    if not _is_number(value):
        raise ValueError(f"{json.dumps(value)[:60]} is not a number, a vector or a name")
    if spec:
        text = format(value, spec)
    elif abs(value) >= SCIENTIFIC_FROM:
        mantissa, exponent = f"{value:.4e}".split("e")
        text = f"{_shortened(mantissa)}e{int(exponent)}"
    else:
        text = _shortened(f"{value:.4f}")
    if text.startswith("-") and not re.search(r"[1-9]", text.partition("e")[0]):
        text = text[1:]  # no "-0", "-0.0%", "-0.0e+00"
    return text.replace("-", MINUS)


NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                "sixteen seventeen eighteen nineteen twenty").split()


def _counted(value, spec: str) -> str:
    """The formats ``count`` (a list's entries, in digits) and ``word`` (a whole number, or a list's entries,
    as a word up to twenty)."""
    if spec == "count" and not isinstance(value, list):
        raise ValueError(f"the format count counts a list's entries; {json.dumps(value)[:60]} is not a list")
    if isinstance(value, list):
        value = len(value)
    if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        raise ValueError(f"the format word writes a whole number or a list's count; {json.dumps(value)[:60]} is neither")
    if spec == "word" and value < len(NUMBER_WORDS):
        return NUMBER_WORDS[value]
    return str(value)


# The JSON's names for the numbers that are not finite, as the book writes them.
NON_FINITE = {"inf": "\N{INFINITY}", "-inf": MINUS + "\N{INFINITY}", "NaN": "NaN"}
# From this size on, the tables write a number in scientific notation (program::scientific_from).
SCIENTIFIC_FROM = 1e15


def _shortened(text: str) -> str:
    """"2.5000" as "2.5", "2.0000" as "2"."""
    return text.rstrip("0").rstrip(".") if "." in text else text


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
    # The number, and where it came from: shown on hover, on keyboard focus and
    # on a tap (a focusable element), not in a title attribute only a mouse reaches.
    provenance_id = f"provenance-{env.new_serialno('provenance')}"
    node = live_value("", classes=["live-value"], provenance_id=provenance_id)
    node += nodes.inline(shown, shown, classes=["live-number"])
    # The command as typed: Sphinx's smart quotes would turn its -- into a dash
    # and its ' into a curly quote, and the program would refuse it.
    node += provenance("", f"{command} --json, {pointer}", classes=["provenance"], ids=[provenance_id],
                       support_smartquotes=False)
    return [node], []


def refused_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """A literal command that the program refuses (see the module's docstring)."""
    return [nodes.literal(rawtext, text, classes=["refused-command"])], []


class live_value(nodes.Inline, nodes.TextElement):
    """A computed number with its provenance (see value_role)."""


def _visit_live_value(self, node):
    # A screen reader reads the number as it stands, and the command as its description.
    self.body.append(self.starttag(node, "span", "", tabindex="0", **{"aria-describedby": node["provenance_id"]}))


def _close_span(self, node):
    self.body.append("</span>")


class provenance(nodes.Inline, nodes.TextElement):
    """The command and JSON key a live value came from: shown on focus, and read as the value's
    description (aria-describedby), not a second time as part of its text."""


def _visit_provenance(self, node):
    self.body.append(self.starttag(node, "span", "", **{"aria-hidden": "true"}))


class collapsed(nodes.General, nodes.Element):
    """A block the reader opens with one click: <details>, titled by a <summary>."""


def _visit_collapsed(self, node):
    self.body.append(self.starttag(node, "details", ""))
    self.body.append(f"<summary>{self.encode(node['summary'])}</summary>\n")


def _depart_collapsed(self, node):
    self.body.append("</details>\n")


# An output of at most this many lines is shown whole.
SHORT_OUTPUT_LINES = 24


def output_tables(text: str) -> list[str]:
    """A program's printed output cut into its tables: blocks between blank lines."""
    return [block.strip("\n") for block in re.split(r"\n\s*\n", text) if block.strip()]


def select_tables(text: str, titles: list[str], where: str) -> list[str]:
    """The tables whose first line starts with each of `titles`, in that order."""
    tables = output_tables(text)
    chosen = []
    for title in titles:
        matches = [table for table in tables if table.splitlines()[0].strip().startswith(title)]
        if len(matches) != 1:
            heads = "; ".join(table.splitlines()[0].strip() for table in tables)
            raise ExtensionError(f"{where}: {len(matches)} tables are titled {title!r} (the titles: {heads})")
        chosen.append(matches[0])
    return chosen


class Output(SphinxDirective):
    """The printed tables of one run, under the command that prints them."""

    required_arguments = 1
    has_content = False
    option_spec = {"show": directives.unchanged_required}

    def run(self):
        run = self.arguments[0]
        where = f"{self.env.docname}.rst:{self.lineno}: output {run}"
        text = _read_output(self.env, run, ".txt", where)
        command = _read_output(self.env, run, ".command", where).strip()
        titles = [line.strip() for line in self.options.get("show", "").splitlines() if line.strip()]
        line_count = len(text.rstrip("\n").splitlines())
        whole = self._captioned(command, self._block(text))
        if not titles and line_count <= SHORT_OUTPUT_LINES:
            return [whole]
        shown = []
        summary = f"The output of $ {command} ({line_count} lines)"
        if titles:
            # The chosen tables each in a box of their own, so that narrow
            # tables stand side by side where the column is wide enough.
            row = nodes.container(classes=["output-table-row"])
            for table in select_tables(text, titles, where):
                row += self._block(table + "\n")
            shown = [self._captioned(command, row, "output-tables")]
            summary = f"The complete output ({line_count} lines)"
        folded = collapsed("", classes=["complete-output"], summary=summary)
        folded += whole
        return shown + [folded]

    def _block(self, text: str) -> nodes.Element:
        block = nodes.literal_block(text, text, classes=["program-output"])
        block["language"] = "text"
        self.set_source_info(block)
        return block

    @staticmethod
    def _captioned(command: str, content: nodes.Element, *classes: str) -> nodes.Element:
        # The caption is the command exactly as typed: a literal, so neither
        # reStructuredText nor smart quotes touch it.
        container = nodes.container("", literal_block=True, classes=["literal-block-wrapper", *classes])
        container += nodes.caption("", "", nodes.literal(f"$ {command}", f"$ {command}"))
        container += content
        return container


# A line that is only a marker, ``// [name]`` or ``# [name]``: a listing that
# holds a shorter one leaves its markers out.
NESTED_MARKER = re.compile(r"^\s*(//|#)\s*\[\w+\]\s*$")


class Listing(LiteralInclude):
    """literalinclude of the lines between two ``[marker]`` lines, dedented."""

    option_spec = dict(LiteralInclude.option_spec, marker=directives.unchanged_required,
                       collapsed=directives.unchanged_required, numpy=directives.unchanged_required)

    def run(self):
        numpy_path = self.options.pop("numpy", None)
        marker = self.options.pop("marker", None)
        summary = self.options.pop("collapsed", None)
        path = self.arguments[0]
        where = f"{self.env.docname}.rst:{self.lineno}: listing {path}"
        if not marker:
            raise ExtensionError(f"{where}: needs a :marker:")
        if numpy_path is not None:
            return self._fold(self._tabs(path, numpy_path, marker, where), summary)
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
        listing = super().run()
        for block in (node for top in listing for node in top.findall(nodes.literal_block)):
            code = "".join(line for line in block.rawsource.splitlines(keepends=True) if not NESTED_MARKER.match(line))
            block.rawsource = code
            block.children = [nodes.Text(code)]
        return self._fold(listing, summary)

    @staticmethod
    def _fold(listing: list[nodes.Node], summary: str | None) -> list[nodes.Node]:
        if summary is None:
            return listing
        # A listing the prose only points at: one click away, not in the way.
        folded = collapsed("", classes=["complete-output", "collapsed-listing"], summary=summary)
        folded += listing
        return [folded]

    def _tabs(self, path: str, numpy_path: str, marker: str, where: str) -> list[nodes.Node]:
        """The C++ listing and its NumPy twin in tabs (sphinx-tabs' group tabs: the
        page's tab sets switch together). The NumPy lines must have passed the build's check."""
        _, absolute = self.env.relfn2path(numpy_path)
        if not Path(absolute).is_file():
            raise ExtensionError(f"{where}: no NumPy file {numpy_path}")
        report_path = _generated(self.env, "numpy", f"{Path(absolute).stem}.json")
        if not report_path.is_file():
            raise ExtensionError(f"{where}: {numpy_path} was not checked against the programs ({report_path} "
                                 "does not exist; is it named numpy_*.py, beside its chapter's index.rst?)")
        self.env.note_dependency(str(report_path))
        report = json.loads(report_path.read_text())
        if Path(report["listing"]).resolve() != Path(absolute).resolve():
            raise ExtensionError(f"{where}: {report_path} is the check of {report['listing']}, not of {numpy_path}")
        if not report["listings"].get(marker):
            raise ExtensionError(f"{where}: the NumPy listing [{marker}] of {numpy_path} was not checked against "
                                 f"the programs (checked: {', '.join(report['listings']) or 'none'})")
        options = [f":{name}: {'' if value is None else value}".rstrip() for name, value in self.options.items()]
        cpp = [f".. listing:: {path}", f"   :marker: {marker}", *(f"   {option}" for option in options)]
        numpy = [f".. listing:: {numpy_path}", f"   :marker: {marker}", "   :language: python"]
        text = [".. tabs::", "", "   .. group-tab:: C++", "", *(f"      {line}" for line in cpp), "",
                "   .. group-tab:: NumPy", "", *(f"      {line}" for line in numpy), ""]
        source, line = self.get_source_info()
        box = nodes.container(classes=["code-tabs"])
        self.state.nested_parse(StringList(text, items=[(source, line)] * len(text)), self.content_offset, box)
        return [box]


class Interactive(SphinxDirective):
    """A figure the reader changes, computed in the page by the chapter's C++."""

    required_arguments = 1
    has_content = True

    def run(self):
        name = self.arguments[0]
        where = f"{self.env.docname}.rst:{self.lineno}: interactive {name}"
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            raise ExtensionError(f"{where}: a figure's name is letters, digits and '_'")
        _, script_path = self.env.relfn2path(f"{name}.js")
        if not Path(script_path).is_file():
            raise ExtensionError(f"{where}: no script {script_path}")
        self.env.note_dependency(script_path)
        script = Path(script_path).read_text()
        if "</script" in script.lower():
            raise ExtensionError(f"{where}: the script may not contain '</script'")
        figure = nodes.container(classes=["interactive-figure"])
        figure += nodes.raw("", f'<div class="interactive" data-figure="{name}">'
                            '<p class="interactive-status">The interactive figure is loading. It needs JavaScript; '
                            'the tables and figures around it show the same example.</p></div>\n', format="html")
        if self.content:
            caption = nodes.container(classes=["interactive-caption"])
            self.state.nested_parse(self.content, self.content_offset, caption)
            figure += caption
        # Furo loads the page's scripts (interactive.js among them) at the end
        # of the body, after this one: run the figure's script once they have.
        figure += nodes.raw("", "<script>\ndocument.addEventListener('DOMContentLoaded', function () {\n"
                            f"{script}\n}});\n</script>\n", format="html")
        return [figure]


class HowWeKnow(SphinxDirective):
    """The folded "How we know" element (see the module's docstring)."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True

    def run(self):
        where = f"{self.env.docname}.rst:{self.lineno}: how-we-know"
        if not self.content:
            raise ExtensionError(f"{where}: has no content")
        title = self.arguments[0] if self.arguments else ""
        summary = f"How we know: {title}" if title else "How we know"
        folded = collapsed("", classes=["how-we-know"], summary=summary)
        self.state.nested_parse(self.content, self.content_offset, folded)
        return [folded]


class Answers(SphinxDirective):
    """The folded answers to "Explain it back" (see the module's docstring)."""

    has_content = True

    def run(self):
        where = f"{self.env.docname}.rst:{self.lineno}: answers"
        if not self.content:
            raise ExtensionError(f"{where}: has no content")
        folded = collapsed("", classes=["answers"], summary="Answers")
        self.state.nested_parse(self.content, self.content_offset, folded)
        return [folded]


class Runs(SphinxDirective):
    """The runs a chapter's prose reads, the JSON document that ends its index.rst: the page shows
    nothing of it. tools/chapter_runs.py reads and checks it as the build configures, before Sphinx
    runs, and refuses a block that is not last, not indented or not JSON."""

    has_content = True

    def run(self):
        return []


class chapter_list(nodes.General, nodes.Element):
    """Filled in once every page has been read (see fill_chapter_lists)."""


class ChapterList(SphinxDirective):
    has_content = False

    def run(self):
        return [chapter_list("")]


def fill_chapter_lists(app, doctree, docname):
    env = app.builder.env
    for placeholder in doctree.findall(chapter_list):
        listing = nodes.definition_list(classes=["chapter-list"])
        for chapter in env.toctree_includes.get(env.config.root_doc, []):
            if not chapter.startswith("chapters/"):
                continue
            summary = env.metadata.get(chapter, {}).get("summary")
            if not summary:
                raise ExtensionError(f"{chapter}.rst has no ':summary:' line at its top (the landing page lists it)")
            link = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(docname, chapter))
            link += nodes.Text(env.titles[chapter].astext())
            item = nodes.definition_list_item()
            item += nodes.term("", "", link)
            item += nodes.definition("", nodes.paragraph(summary, summary))
            listing += item
        placeholder.replace_self(listing)


def _static_digest() -> str:
    """What the pages load besides themselves: the book's stylesheets and
    scripts, Furo's rebuilt ones, the WebAssembly module, the plotting library."""
    digest = hashlib.sha256()
    static = [Path(__file__).parents[1] / "_static"]
    if os.environ.get("BOOK_STATIC_DIR"):
        static += [Path(os.environ["BOOK_STATIC_DIR"], folder) for folder in ("styles", "scripts", "page", "plot")]
    for folder in static:
        for path in sorted(folder.glob("*")) if folder.is_dir() else []:
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def write_a_page_when_static_files_change(app, env, added, changed, removed):
    """Sphinx copies static files only when it writes some page. When only a
    static file changed (a stylesheet, or the module after a C++ change), have
    it re-read and write the front page, so the new file is copied, without
    re-rendering the whole book."""
    digest = _static_digest()
    if getattr(env, "book_static_digest", None) == digest:
        return []
    env.book_static_digest = digest
    return [env.config.root_doc]


# An option in inline code (``--heads 4``, the command over a program's
# output) is kept on one line, with a short value after it and an opening
# bracket or quote before it: a narrow column would otherwise break it after
# a hyphen, and show "--" at the end of one line and "heads 4" at the start of
# the next.
OPTION = re.compile(r"(?<!\S)([('\"]?--?[A-Za-z][\w-]*(?: (?!-)\S{1,12}(?!\S))?)")


def keep_options_whole(app, doctree, docname):
    for literal in list(doctree.findall(nodes.literal)):
        for text in list(literal.findall(nodes.Text)):
            pieces = OPTION.split(text.astext())
            if len(pieces) == 1:
                continue
            # By position: Element.replace finds a child by equality, and a
            # text node equals every other text node with the same letters.
            parent = text.parent
            index = next(position for position, child in enumerate(parent.children) if child is text)
            parent[index:index + 1] = [nodes.inline(piece, piece, classes=["option"]) if number % 2
                                       else nodes.Text(piece) for number, piece in enumerate(pieces) if piece]


def setup(app):
    # A change to this file changes how pages render: make Sphinx re-read them all.
    env_version = int(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8], 16)
    app.add_config_value("book_generated_dir", None, "env")
    app.add_node(live_value, html=(_visit_live_value, _close_span))
    app.add_node(provenance, html=(_visit_provenance, _close_span))
    app.add_node(collapsed, html=(_visit_collapsed, _depart_collapsed))
    app.add_role("value", value_role)
    app.add_role("refused", refused_role)
    app.add_directive("output", Output)
    app.add_directive("listing", Listing)
    app.add_directive("chapter-list", ChapterList)
    app.add_directive("interactive", Interactive)
    app.add_directive("how-we-know", HowWeKnow)
    app.add_directive("answers", Answers)
    app.add_directive("runs", Runs)
    app.connect("doctree-resolved", fill_chapter_lists)
    app.connect("doctree-resolved", keep_options_whole)
    app.connect("env-get-outdated", write_a_page_when_static_files_change)
    app.add_css_file("book.css")
    app.add_js_file("book.js", defer="defer")
    app.add_js_file("interactive.js")
    return {"version": "1", "env_version": env_version, "parallel_read_safe": True, "parallel_write_safe": True}
