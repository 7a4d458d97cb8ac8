"""Figures drawn twice: panels side by side for a wide page, one above another
for a phone.

A figure script that calls ``save_wide_and_narrow()`` (figures/figure_style.py)
writes ``NAME.svg`` and, beside it, ``NAME.narrow.svg``. For each figure image
with such a sibling, this extension adds the sibling to the page as a second
image node (so Sphinx copies it with the page's other images), and the HTML
writer puts the two in one ``<picture>``:

    <picture><source media="(max-width: 40em)" srcset=".../NAME.narrow.svg">
    <img src=".../NAME.svg" alt="..."></picture>

The browser takes the narrow drawing on a screen as narrow as the book's phone
layout (docs/_static/book.css, 40em) and the wide one elsewhere; the page needs
no script for it, and the ``alt`` text is the one the chapter wrote (so it
names the panels by what they show, or as first and second, not by side).

Every figure's image (drawn twice or not) is written inside a box that
scrolls sideways and a link to the image alone, where a phone can zoom:

    <div class="figure-scroll"><a class="figure-full" href=".../NAME.svg">
    <img ...> (or the <picture> above) </a></div>

so that on a narrow screen the image scrolls while its caption stays still
(docs/_static/book.css; book.js sets the image's smallest size, and points
the link at the drawing the screen shows). The page is written so, rather
than rearranged by a script once it has loaded: it needs no script for them.

``:panel:`left``` (or ``middle``, ``right``, ``Left``, ...)
    A word that names a panel by its place, in a caption or a sentence about a
    figure drawn twice: "left" where the panels stand side by side, "top" on a
    narrow screen, where they stand one above another ("middle" stays,
    "right" becomes "bottom"). Both words are in the page; the stylesheet shows
    the one that matches the drawing shown. Used in the caption of a figure
    drawn once, or on a page with no such figure, it stops the build.
"""
from __future__ import annotations

import hashlib
import html
import posixpath
import urllib.parse
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

NARROW_SCREEN = "(max-width: 40em)"
NARROW_CLASS = "narrow-variant"
PANEL_ON_NARROW = {"left": "top", "middle": "middle", "right": "bottom"}


def narrow_uri(uri: str) -> str:
    """The narrow drawing's name beside the figure's own: NAME.svg gives NAME.narrow.svg."""
    return uri[: -len(".svg")] + ".narrow.svg"


class AddNarrowDrawings(SphinxTransform):
    """Puts a figure's narrow drawing, where there is one, after its image, marked NARROW_CLASS."""

    default_priority = 500

    def apply(self, **kwargs) -> None:
        for image in list(self.document.findall(nodes.image)):
            uri = image["uri"]
            if not uri.endswith(".svg") or uri.endswith(".narrow.svg") or NARROW_CLASS in image["classes"]:
                continue
            _, path = self.env.relfn2path(narrow_uri(uri), self.env.docname)
            if not Path(path).is_file():
                continue
            narrow = nodes.image(uri=narrow_uri(uri), alt=image.get("alt", ""), classes=[NARROW_CLASS])
            image.parent.insert(image.parent.index(image) + 1, narrow)
        drawn_twice = [figure for figure in self.document.findall(nodes.figure) if _is_drawn_twice(figure)]
        for word in self.document.findall(panel_word):
            figure = next((parent for parent in _ancestors(word) if isinstance(parent, nodes.figure)), None)
            if (figure is not None and figure not in drawn_twice) or not drawn_twice:
                where = "its figure is drawn once" if drawn_twice else "the page has no figure drawn twice"
                logger.warning(f":panel:`{word.astext()}`: {where} (figures/figure_style.py, save_wide_and_narrow)",
                               location=word)


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


def _is_drawn_twice(figure: nodes.figure) -> bool:
    return any(NARROW_CLASS in image["classes"] for image in figure.findall(nodes.image))


class panel_word(nodes.Inline, nodes.TextElement):
    """A panel's place: the wide layout's word as text, the narrow layout's in ``narrow``."""


def panel_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    narrow = PANEL_ON_NARROW.get(text.lower())
    if narrow is None:
        message = inliner.reporter.error(f":panel: takes left, middle or right, not {text!r}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    if text[:1].isupper():
        narrow = narrow.capitalize()
    return [panel_word(rawtext, text, narrow=narrow)], []


def _visit_panel_word(self, node):
    self.body.append(f'<span class="on-wide">{html.escape(node.astext())}</span>'
                     f'<span class="on-narrow">{html.escape(node["narrow"])}</span>')
    raise nodes.SkipNode


def _narrow_sibling(node: nodes.image) -> nodes.image | None:
    following = node.parent[node.parent.index(node) + 1:] if node.parent else []
    if following and isinstance(following[0], nodes.image) and NARROW_CLASS in following[0]["classes"]:
        return following[0]
    return None


def _source(self, image: nodes.image) -> str:
    """Where the page finds @p image, as Sphinx's HTML writer computes an image's src."""
    uri = image["uri"]
    if uri in self.builder.images:
        uri = posixpath.join(self.builder.imgpath, urllib.parse.quote(self.builder.images[uri]))
    return uri


def visit_image(self, node: nodes.image) -> None:
    if NARROW_CLASS in node["classes"]:
        raise nodes.SkipNode  # written as its wide sibling's <source>
    if isinstance(node.parent, nodes.figure):
        self.body.append(f'<div class="figure-scroll"><a class="figure-full" href="{self.attval(_source(self, node))}" '
                         'title="The figure alone, at full size">')
    narrow = _narrow_sibling(node)
    if narrow is not None:
        self.body.append(f'<picture><source media="{NARROW_SCREEN}" srcset="{self.attval(_source(self, narrow))}">')
    type(self).visit_image(self, node)


def depart_image(self, node: nodes.image) -> None:
    type(self).depart_image(self, node)
    if _narrow_sibling(node) is not None:
        self.body.append("</picture>")
    if isinstance(node.parent, nodes.figure):
        self.body.append("</a></div>")


def setup(app):
    # A change to this file changes how pages are read: make Sphinx read them all again.
    env_version = int(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8], 16)
    app.add_transform(AddNarrowDrawings)
    app.add_node(panel_word, html=(_visit_panel_word, None))
    app.add_role("panel", panel_role)
    app.add_node(nodes.image, override=True, html=(visit_image, depart_image))
    return {"version": "1", "env_version": env_version, "parallel_read_safe": True, "parallel_write_safe": True}
