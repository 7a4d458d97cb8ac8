"""How long each page's main text is: the words a learner reads with every
fold closed, at 200 words a minute.

Counted from each page's document as it is written: the prose, headings,
tables and live values; not code, program output, formulas, figures and their
captions, the interactive figures, the big picture, nor anything folded (the
"How we know" blocks, complete outputs, collapsed listings). The build prints
the table at its end and writes it to ``main-text.json`` beside the HTML's
folder (``build/book/main-text.json``); the browser check adds each page's
height at 1280 px with the folds closed.

The main text has a budget, and a page over it stops the build (a warning,
which ``-W`` makes an error): the preface and chapters 0-6 together at most
``BUDGET_CHAPTERS_0_TO_6`` words, about an hour at 200 words a minute; each
later chapter at most ``BUDGET_PER_CHAPTER`` words, or what ``BUDGET_EXCEPTIONS``
gives it. A page that must say more moves what answers "how do we know" into a
fold, or cuts a repetition, before it adds.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes

from sphinx.util import logging

from book import collapsed, live_value

logger = logging.getLogger(__name__)

WORDS_PER_MINUTE = 200
SKIPPED_CLASSES = {"interactive-figure", "big-picture", "paper-figure-2", "output-tables", "literal-block-wrapper",
                   "code-tabs"}
BUDGET_CHAPTERS_0_TO_6 = 12_500
BUDGET_PER_CHAPTER = 2_500
# Chapter 14 teaches three things: writing word by word, the cache of keys and values, and shared key-value heads.
BUDGET_EXCEPTIONS = {"chapters/14_generating/index": 3_000}
WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*")


def count_words(doctree) -> int:
    words = 0

    def walk(node):
        nonlocal words
        if isinstance(node, (nodes.literal_block, nodes.math_block, nodes.math, nodes.figure, nodes.raw,
                             nodes.comment, collapsed, nodes.footnote, nodes.citation)):
            return
        if isinstance(node, nodes.Element) and SKIPPED_CLASSES & set(node.get("classes", [])):
            return
        if type(node).__name__ in ("big_picture", "paper_figure"):  # drawn later (big_picture.py)
            return
        if isinstance(node, live_value):
            words += 1
            return
        if isinstance(node, nodes.Text):
            words += len(WORD.findall(node.astext()))
            return
        for child in node.children:
            walk(child)

    walk(doctree)
    return words


def chapter_number(docname: str) -> int | None:
    """NN of a page chapters/NN_slug/... (the preface is 00, as chapter 0 is), or None for any other page."""
    match = re.match(r"chapters/(\d\d)_", docname)
    return int(match.group(1)) if match else None


def in_chapters_0_to_6(docname: str) -> bool:
    number = chapter_number(docname)
    return number is not None and number <= 6


def record(app, doctree, docname):
    app.env.book_main_text = getattr(app.env, "book_main_text", {})
    app.env.book_main_text[docname] = count_words(doctree)


def report(app, exception):
    if exception or app.builder.name != "html":
        return
    counts = dict(sorted(getattr(app.env, "book_main_text", {}).items()))
    path = Path(app.outdir).parent / "main-text.json"
    previous = json.loads(path.read_text()) if path.is_file() else {}
    previous.update(counts)  # pages not written this time keep their count
    if not previous:
        return
    # Checked at every build, even one that wrote no page: a build stopped by a page over its budget has rendered
    # that page, and the next build, with nothing to write, must stop again. The file changes only with a count.
    if counts:
        path.write_text(json.dumps(previous, indent=1) + "\n")
    lines = ["Main text per page (words; minutes at 200 words a minute; folds closed):"]
    for docname, words in previous.items():
        lines.append(f"  {docname:<45} {words:>6} {words / WORDS_PER_MINUTE:>6.1f}")
    chapters_0_to_6 = sum(words for docname, words in previous.items() if in_chapters_0_to_6(docname))
    lines.append(f"  {'preface and chapters 0-6':<45} {chapters_0_to_6:>6} {chapters_0_to_6 / WORDS_PER_MINUTE:>6.1f}")
    print("\n".join(lines))
    over_budget(previous, chapters_0_to_6)


def over_budget(counts: dict[str, int], chapters_0_to_6: int) -> None:
    """Warn of each page, and of the preface with chapters 0-6, whose main text is over its budget."""
    if chapters_0_to_6 > BUDGET_CHAPTERS_0_TO_6:
        logger.warning(f"main text: the preface and chapters 0-6 hold {chapters_0_to_6} words, over their budget of "
                       f"{BUDGET_CHAPTERS_0_TO_6} (docs/_ext/main_text.py): fold or cut before adding")
    for docname, words in counts.items():
        if chapter_number(docname) is None or in_chapters_0_to_6(docname):
            continue
        budget = BUDGET_EXCEPTIONS.get(docname, BUDGET_PER_CHAPTER)
        if words > budget:
            logger.warning(f"main text: {docname} holds {words} words, over its budget of {budget} "
                           f"(docs/_ext/main_text.py): fold or cut before adding", location=docname)


def setup(app):
    app.connect("doctree-resolved", record)
    app.connect("build-finished", report)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": False}
