"""The book's formulas, drawn when the book is built: each page carries its
formulas as SVG and loads no MathJax.

MathJax 3 (the version pinned in tools/package-lock.json) runs in Node at build
time (tools/tex_to_svg.cjs), once for all the formulas of the pages Sphinx has
just read. What comes back for each formula:

* an SVG that draws it in the text's own colour (so the dark scheme needs
  nothing), hidden from screen readers;
* its MathML, which screen readers read instead, hidden from the eye as
  MathJax itself hides it in the browser;
* its glyphs. A page holds each glyph once, in one hidden <svg> at its end, and
  its formulas refer to the glyphs by id, as MathJax's "global" font cache
  does in the browser.

Each formula is kept in the book's cache (tools/cached_command.py's
folder "math"), keyed by its TeX, inline or display, the converter script and
MathJax's version, so a build re-draws only formulas it has not drawn before.

A TeX error (an undefined macro, an unbalanced brace) stops the build with the
page, the line and the formula: a wrong formula is never drawn in red.
"""
from __future__ import annotations

import hashlib
import html
import importlib.util
import json
import os
import re
import subprocess
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util.math import get_node_equation_number

REPOSITORY = Path(__file__).resolve().parents[2]
CONVERTER = REPOSITORY / "tools" / "tex_to_svg.cjs"
MATHJAX_PACKAGE = REPOSITORY / "tools" / "node_modules" / "mathjax" / "package.json"
STYLESHEET = "book_math.css"


def _cached_command():
    """tools/cached_command.py, which keeps the book's cache."""
    spec = importlib.util.spec_from_file_location("cached_command", REPOSITORY / "tools" / "cached_command.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def display_tex(node: nodes.math_block) -> str:
    """The TeX MathJax draws for a display formula, as Sphinx's own MathJax
    support writes it: paragraphs of the block aligned one under the other, and
    a paragraph with line breaks set as one split equation."""
    parts = [part for part in node.astext().split("\n\n") if part.strip()]
    parts = [rf"\begin{{split}}{part}\end{{split}}" if r"\\" in part else part for part in parts]
    if len(parts) > 1:
        return r"\begin{align}\begin{aligned}" + r"\\".join(parts) + r"\end{aligned}\end{align}"
    return parts[0] if parts else ""


def formulas_of(doctree):
    """(node, TeX, display) for every formula of a page."""
    for node in doctree.findall(nodes.math):
        yield node, node.astext(), False
    for node in doctree.findall(nodes.math_block):
        if not node.get("nowrap"):
            yield node, display_tex(node), True


class Drawer:
    """Formulas by key, from the cache or drawn by tools/tex_to_svg.cjs."""

    def __init__(self, node_program: str):
        self.node_program = node_program
        self.cache = _cached_command()
        self.folder = self.cache.folder_of("math")
        self.renderer = hashlib.sha256(CONVERTER.read_bytes() + MATHJAX_PACKAGE.read_bytes()).hexdigest()
        self.pending = {}  # key -> (TeX, display, where)

    def key(self, tex: str, display: bool) -> str:
        return hashlib.sha256(f"{self.renderer}\0{int(display)}\0{tex}".encode()).hexdigest()

    def entry(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def cached(self, key: str):
        path = self.entry(key)
        try:
            drawn = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        os.utime(path)  # in use: not pruned
        return drawn

    def want(self, tex: str, display: bool, where: str) -> None:
        key = self.key(tex, display)
        if key not in self.pending and not self.entry(key).is_file():
            self.pending[key] = (tex, display, where)

    def draw_pending(self) -> None:
        """Draws every formula asked for and not in the cache, in one run of the converter."""
        stylesheet = self.folder / f"stylesheet-{self.renderer}.css"
        if not self.pending and stylesheet.is_file():
            return
        keys = list(self.pending)
        request = {"formulas": [{"tex": self.pending[key][0], "display": self.pending[key][1]} for key in keys]}
        try:
            result = subprocess.run([self.node_program, str(CONVERTER)], input=json.dumps(request),
                                    capture_output=True, text=True, check=False, timeout=300)
        except OSError as error:
            raise ExtensionError(f"cannot run {self.node_program} {CONVERTER}: {error}") from None
        if result.returncode != 0:
            raise ExtensionError(f"{CONVERTER.name} failed: {result.stderr.strip()}")
        answer = json.loads(result.stdout)
        errors = []
        for key, drawn in zip(keys, answer["formulas"]):
            tex, _display, where = self.pending[key]
            if "error" in drawn:
                errors.append(f"{where}: TeX error in {tex!r}: {drawn['error']}")
            else:
                self.cache.store(self.entry(key), json.dumps(drawn).encode())
        self.pending.clear()
        self.cache.store(stylesheet, answer["stylesheet"].encode())
        if errors:
            raise ExtensionError("\n".join(errors))

    def stylesheet(self) -> str:
        self.draw_pending()
        return (self.folder / f"stylesheet-{self.renderer}.css").read_text(encoding="utf-8")

    def drawn(self, tex: str, display: bool, where: str) -> dict:
        key = self.key(tex, display)
        found = self.cached(key)
        if found is None:  # a page written without being read again, after the cache was emptied
            self.want(tex, display, where)
            self.draw_pending()
            found = self.cached(key)
            if found is None:
                raise ExtensionError(f"{where}: {tex!r} was drawn but is not in {self.folder}")
        return found


def _where(node) -> str:
    return f"{node.source or '?'}:{node.line or '?'}"


def start(app):
    node_program = os.environ.get("BOOK_NODE") or "node"
    app.builder.book_math = Drawer(node_program)
    app.builder.book_math_glyphs = {}  # page -> {glyph id: path}


def collect(app, doctree):
    for node, tex, display in formulas_of(doctree):
        app.builder.book_math.want(tex, display, _where(node))


def redraw_when_the_drawer_changes(app, env, added, changed, removed):
    """A new converter or MathJax draws differently: every page is read and written again."""
    renderer = app.builder.book_math.renderer
    if getattr(env, "book_math_renderer", renderer) == renderer:
        env.book_math_renderer = renderer
        return []
    env.book_math_renderer = renderer
    return sorted(env.found_docs)


def draw_collected(app, env):
    app.builder.book_math.draw_pending()
    return []


def _container(self, node, tex: str, display: bool) -> str:
    drawn = self.builder.book_math.drawn(tex, display, _where(node))
    self.builder.book_math_glyphs.setdefault(self.builder.current_docname, {}).update(drawn["glyphs"])
    mode = ' display="true"' if display else ""
    return (f'<mjx-container class="MathJax" jax="SVG"{mode}>{drawn["svg"]}'
            f'<mjx-assistive-mml unselectable="on" display="{"block" if display else "inline"}">'
            f'{drawn["mathml"]}</mjx-assistive-mml></mjx-container>')


def visit_math(self, node):
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate"))
    self.body.append(_container(self, node, node.astext(), False))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node):
    self.body.append(self.starttag(node, "div", CLASS="math notranslate"))
    if node["nowrap"]:
        raise ExtensionError(f"{_where(node)}: a :nowrap: formula cannot be drawn at build time")
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Permalink to this equation"))
        self.body.append("</span>")
    self.body.append(_container(self, node, display_tex(node), True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


# Punctuation right after an inline formula, and an opening bracket or quote
# right before one: kept on the formula's line, so a narrow column never starts
# a line with the comma or full stop that ends it, nor ends one with a "(" that
# opens it.
PUNCTUATION = re.compile(r"^[.,;:!?)\]’”]+")
OPENING = re.compile(r"[(\[‘“]+$")


def keep_punctuation_with_formulas(app, doctree, docname):
    for formula in list(doctree.findall(nodes.math)):
        parent = formula.parent
        index = parent.index(formula)
        after = parent[index + 1] if index + 1 < len(parent.children) else None
        before = parent[index - 1] if index > 0 else None
        closing = PUNCTUATION.match(after.astext()) if isinstance(after, nodes.Text) else None
        opening = OPENING.search(before.astext()) if isinstance(before, nodes.Text) else None
        if not closing and not opening:
            continue
        # By position: Element.replace finds a child by equality, and a text
        # node equals every other text node with the same letters.
        together = nodes.inline("", classes=["formula-and-punctuation"])
        if closing:
            parent[index + 1] = nodes.Text(after.astext()[closing.end():])
        if opening:
            parent[index - 1] = nodes.Text(before.astext()[:opening.start()])
        parent[index] = together
        together += ([nodes.Text(opening.group())] if opening else []) + [formula] + (
            [nodes.Text(closing.group())] if closing else [])


def add_glyphs(app, pagename, templatename, context, doctree):
    """The glyphs of the page's formulas, each once, at the end of its body."""
    glyphs = app.builder.book_math_glyphs.pop(pagename, None)
    if glyphs and "body" in context:
        paths = "".join(f'<path id="{html.escape(name)}" d="{html.escape(path)}"></path>'
                        for name, path in sorted(glyphs.items()))
        context["body"] += (f'<svg class="book-math-glyphs" aria-hidden="true" focusable="false" width="0" height="0" '
                            f'style="position:absolute"><defs>{paths}</defs></svg>')


def write_stylesheet(app, exception):
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir, "_static")
        static.mkdir(exist_ok=True)
        (static / STYLESHEET).write_text(app.builder.book_math.stylesheet(), encoding="utf-8")


def setup(app):
    env_version = int(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8], 16)
    app.add_html_math_renderer("book_svg", (visit_math, None), (visit_displaymath, None))
    app.connect("builder-inited", start)
    app.connect("env-get-outdated", redraw_when_the_drawer_changes)
    app.connect("doctree-read", collect)
    app.connect("env-updated", draw_collected)
    app.connect("doctree-resolved", keep_punctuation_with_formulas)
    app.connect("html-page-context", add_glyphs)
    app.connect("build-finished", write_stylesheet)
    app.add_css_file(STYLESHEET)
    return {"version": "1", "env_version": env_version, "parallel_read_safe": True, "parallel_write_safe": False}
