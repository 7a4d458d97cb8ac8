"""The whole computation, drawn: where each chapter stands in it.

``.. big-picture::`` with ``:here: <stage> [<stage> ...]``
    The toy sentence's way through self-attention, left to right:
    X → Q, K, V → scores → scale → mask → softmax → weights · V, each stage a
    box with the toy's own numbers (read from the chapter programs' captured
    JSON, as ``:value:`` reads them) and a link to the chapter that builds it.
    The stages named in ``:here:`` are highlighted (``all`` highlights every
    one); the directive's content is a caption under the picture.

``.. paper-figure-2::`` with ``:part: left``, ``right`` or ``both``
    The paper's Figure 2 (Vaswani et al. 2017, §3.2), redrawn from its boxes:
    scaled dot-product attention (left) and multi-head attention (right), each
    box a link to the chapter that builds it.

Both are drawn as HTML and CSS (docs/_static/book.css), not as images: they
follow the light and dark schemes, wrap on a phone, and their links work.
A missing run or key stops the build, as for ``:value:``.
"""
from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

from book import MINUS, _read_output, _resolve

CHAPTERS = {
    "sets": "chapters/00_sets_of_vectors/index",
    "dot": "chapters/01_dot_product/index",
    "scaling": "chapters/02_scaling_variance/index",
    "softmax": "chapters/03_softmax/index",
    "masking": "chapters/04_masking/index",
    "heads": "chapters/05_multi_head/index",
    "positions": "chapters/06_positional_encoding/index",
    "layer": "chapters/08_encoder_layer/index",
}

# (name, title, what it is, chapter, the matrices it shows: (label, run, pointer))
STAGES = [
    ("tokens", "X", "the tokens as vectors", "sets", [("", "dot_product", "/projections/embeddings")]),
    ("projections", "Q, K, V", "X times three projections", "dot",
     [("Q", "dot_product", "/queries"), ("K", "dot_product", "/keys"), ("V", "dot_product", "/values")]),
    ("scores", "QK\N{MODIFIER LETTER CAPITAL T}", "every query against every key", "dot",
     [("", "dot_product", "/scores")]),
    ("scale", "\N{DIVISION SIGN} \N{SQUARE ROOT}d\N{LATIN SUBSCRIPT SMALL LETTER K}", "keep scores moderate",
     "scaling", [("", "softmax", "/scaled_scores")]),
    ("mask", "mask", "optional: hide later words", "masking", [("", "masking", "/mask")]),
    ("softmax", "softmax", "each row: weights summing to 1 (without the mask)", "softmax", [("", "softmax", "/weights")]),
    ("output", "weights · V", "each token's new vector", "softmax", [("", "softmax", "/output")]),
]
STAGE_NAMES = [stage[0] for stage in STAGES]


def _short(value) -> str:
    """A number as the picture shows it: two decimals at most, no trailing zeros."""
    if isinstance(value, bool):  # a mask entry: allowed, or set to −∞
        return "\N{MIDDLE DOT}" if value else f"{MINUS}\N{INFINITY}"
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return text.replace("-", MINUS)


def _spoken(value) -> str:
    """An entry as a screen reader is given it: a mask's entries in words, a number as the picture shows it."""
    if isinstance(value, bool):
        return "kept" if value else "minus infinity"
    return _short(value)


def _matrix_html(matrix) -> str:
    """The table the picture shows, hidden from screen readers, which are given its rows as one short text instead
    (class bp-spoken: out of sight, read aloud)."""
    rows = "".join("<tr>" + "".join(f"<td>{_short(entry)}</td>" for entry in row) + "</tr>" for row in matrix)
    spoken = "; ".join(", ".join(_spoken(entry) for entry in row) for row in matrix)
    return (f'<table class="bp-matrix" aria-hidden="true">{rows}</table>'
            f'<span class="bp-spoken">rows: {html.escape(spoken)}.</span>')


class big_picture(nodes.General, nodes.Element):
    """Drawn once every page is read, when links between pages are known."""


class BigPicture(SphinxDirective):
    has_content = True
    option_spec = {"here": directives.unchanged_required}

    def run(self):
        where = f"{self.env.docname}.rst:{self.lineno}: big-picture"
        here = self.options.get("here", "").split()
        if here == ["all"]:
            here = STAGE_NAMES
        unknown = [name for name in here if name not in STAGE_NAMES]
        if unknown or not here:
            raise ExtensionError(f"{where}: :here: names stages among {', '.join(STAGE_NAMES)} (or 'all'), "
                                 f"not {' '.join(unknown) or 'nothing'}")
        documents = {}  # each run's JSON, read once

        def document_of(run):
            if run not in documents:
                documents[run] = json.loads(_read_output(self.env, run, ".json", where))
            return documents[run]

        stages = []
        for name, title, what, chapter, matrices in STAGES:
            shown = [(label, _resolve(document_of(run), pointer, where), f"build/bin/{run} --json, {pointer}")
                     for label, run, pointer in matrices]
            stages.append({"name": name, "title": title, "what": what, "chapter": CHAPTERS[chapter],
                           "matrices": shown, "here": name in here})
        tokens = document_of("dot_product")["query_tokens"]
        node = big_picture("", stages=stages, tokens=tokens)
        if self.content:
            caption = nodes.container(classes=["bp-caption"])
            self.state.nested_parse(self.content, self.content_offset, caption)
            node += caption
        return [node]


def _stage_html(stage, link) -> str:
    classes = "bp-stage bp-here" if stage["here"] else "bp-stage"
    if stage["name"] == "mask":
        classes += " bp-optional"
    matrices = "".join(
        f'<span class="bp-labelled" title="{html.escape(source)}">'
        + (f'<span class="bp-label">{html.escape(label)}</span>' if label else "")
        + _matrix_html(matrix) + "</span>"
        for label, matrix, source in stage["matrices"])
    return (f'<a class="{classes}" href="{html.escape(link)}">'
            f'<span class="bp-title">{html.escape(stage["title"])}</span>'
            f'<span class="bp-what">{html.escape(stage["what"])}</span>'
            f'<span class="bp-matrices">{matrices}</span></a>')


def _picture_html(node, link_to) -> str:
    stages = node["stages"]
    arrow = '<span class="bp-arrow" aria-hidden="true">\N{RIGHTWARDS ARROW}</span>'
    flow = arrow.join(_stage_html(stage, link_to(stage["chapter"])) for stage in stages)
    here = [stage["title"] for stage in stages if stage["here"]]
    # A group of links, each stage's: a screen reader names the group, then reads the stages in order.
    label = ("Self-attention on the toy sentence " + " ".join(node["tokens"]) + ", step by step"
             + (". Highlighted here: " + ", ".join(here) if here else ""))
    around = ('<p class="bp-around">Around it: positions are added to X '
              f'(<a href="{html.escape(link_to(CHAPTERS["positions"]))}">chapter 6</a>); '
              f'several heads run this side by side (<a href="{html.escape(link_to(CHAPTERS["heads"]))}">chapter 5</a>); '
              'a feed-forward network, residual connections and normalisation make it a layer '
              f'(<a href="{html.escape(link_to(CHAPTERS["layer"]))}">chapter 8</a>).</p>')
    return (f'<div class="bp-flow" role="group" aria-label="{html.escape(label)}">{flow}</div>{around}')


class paper_figure(nodes.General, nodes.Element):
    """The paper's Figure 2, drawn once links between pages are known."""


class PaperFigure2(SphinxDirective):
    has_content = True
    option_spec = {"part": lambda text: directives.choice(text, ("left", "right", "both"))}

    def run(self):
        node = paper_figure("", part=self.options.get("part", "both"))
        if self.content:
            caption = nodes.container(classes=["bp-caption"])
            self.state.nested_parse(self.content, self.content_offset, caption)
            node += caption
        return [node]


# Figure 2 of the paper, top to bottom (the paper draws it bottom to top):
# (box, chapter, is it optional).
LEFT = [("MatMul: QK\N{MODIFIER LETTER CAPITAL T}", "dot", False), ("Scale: \N{DIVISION SIGN} \N{SQUARE ROOT}d\N{LATIN SUBSCRIPT SMALL LETTER K}", "scaling", False),
        ("Mask (opt.)", "masking", True), ("SoftMax", "softmax", False), ("MatMul: weights · V", "softmax", False)]
RIGHT = [("Linear \N{MULTIPLICATION SIGN} 3, h times: QW^Q_i, KW^K_i, VW^V_i", "heads", False),
         ("Scaled Dot-Product Attention, h heads", "softmax", False),
         ("Concat", "heads", False), ("Linear: W\N{MODIFIER LETTER CAPITAL O}", "heads", False)]


# A projection with a letter above its index in a box's text, as W^Q_i.
INDEXED_W = re.compile(r"W\^(\w)_(\w)")


def _box_html(box: str) -> str:
    """A box's text as HTML: W^Q_i is drawn as W with Q above i, as in the formulas."""
    return INDEXED_W.sub(r'W<span class="pf-index"><span>\1</span><span>\2</span></span>', html.escape(box))


def _box_text(box: str) -> str:
    """A box's text as a screen reader says it: W^Q_i as "W Q i"."""
    return INDEXED_W.sub(r"W \1 \2", box)


def _column_html(title, inputs, boxes, link_to) -> str:
    arrow = '<span class="pf-arrow" aria-hidden="true">\N{DOWNWARDS ARROW}</span>'
    parts = [f'<span class="pf-inputs">{html.escape(inputs)}</span>']
    for box, chapter, optional in boxes:
        classes = "pf-box pf-optional" if optional else "pf-box"
        parts.append(f'<a class="{classes}" href="{html.escape(link_to(CHAPTERS[chapter]))}">{_box_html(box)}</a>')
    return (f'<div class="pf-column"><span class="pf-title">{html.escape(title)}</span>'
            + arrow.join(parts) + "</div>")


def _figure_html(node, link_to) -> str:
    columns = []
    if node["part"] in ("left", "both"):
        columns.append(_column_html("Scaled Dot-Product Attention", "Q   K   V", LEFT, link_to))
    if node["part"] in ("right", "both"):
        columns.append(_column_html("Multi-Head Attention", "V   K   Q", RIGHT, link_to))
    label = "The paper's Figure 2, redrawn: " + "; ".join(
        ("scaled dot-product attention: " + ", ".join(_box_text(box) for box, _, _ in LEFT)) if part == "left"
        else ("multi-head attention: " + ", ".join(_box_text(box) for box, _, _ in RIGHT))
        for part in (["left", "right"] if node["part"] == "both" else [node["part"]]))
    return f'<div class="pf-figure" role="group" aria-label="{html.escape(label)}">{"".join(columns)}</div>'


def draw(app, doctree, docname):
    def link_to(target: str) -> str:
        return app.builder.get_relative_uri(docname, target)

    for node in list(doctree.findall(big_picture)):
        figure = nodes.container(classes=["big-picture"])
        figure += nodes.raw("", _picture_html(node, link_to), format="html")
        figure += node.children
        node.replace_self(figure)
    for node in list(doctree.findall(paper_figure)):
        figure = nodes.container(classes=["paper-figure-2"])
        figure += nodes.raw("", _figure_html(node, link_to), format="html")
        figure += node.children
        node.replace_self(figure)


def setup(app):
    # A change to this file changes how pages render: make Sphinx re-read them all.
    env_version = int(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8], 16)
    app.add_node(big_picture)
    app.add_node(paper_figure)
    app.add_directive("big-picture", BigPicture)
    app.add_directive("paper-figure-2", PaperFigure2)
    app.connect("doctree-resolved", draw)
    return {"version": "1", "env_version": env_version, "parallel_read_safe": True, "parallel_write_safe": True}
