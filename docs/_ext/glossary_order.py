"""No term before its chapter: the glossary's order check.

Each entry of the glossary (``.. glossary::`` on the page named by the
``glossary_page`` setting) links to the place that explains it: a label such
as ``.. _term-mask:`` in a chapter, or the chapter's page itself. The check reads the chapters in the order
of the root table of contents and stops the build if a chapter *before* that
one uses the term (or one of the entry's other spellings, or its plural)
without saying where it is explained: a sentence that names a term ahead of
its chapter must point there, with a link to the chapter or the words
"chapter N". The landing page is left out: it is a map of the book, and every
box on it links forward.

On each earlier page only the term's first use counts: once a page has said
where a term is explained, it may use it freely.

What is read: the text of paragraphs, titles, captions, list items and
tables. Not read: code, program output, formulas, live values, the big
picture and the paper's Figure 2 (diagrams whose boxes name every step), the
interactive figures, footnotes, and other people's words: block quotes and
text in quotation marks (the paper's sentences and section titles, which the
book cannot change).

Some terms are everyday words in other senses ("the value of a flag", "the
key to the idea", "a weight of 0.4" before weights are defined): the check
cannot tell the senses apart, so ``UNCHECKED`` lists them, each with the
reason. Every other term of the glossary is checked.

``NAMED_AHEAD`` lists the pages that today use a term before its chapter
without saying where it is explained, each with the sentence's words. They
are the book's debt, written down: the check lets them pass, and any new
one stops the build. When a page is mended, the build says that its entry is
no longer needed.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.util import docname_join

# Terms whose words also have an everyday sense the text uses freely.
UNCHECKED = {
    "key": "an everyday word ('the key', a dictionary's keys in the JSON)",
    "value": "an everyday word ('the value of a flag', live values)",
    "weight": "an everyday word, and the learned weights of a matrix",
    "score": "an everyday word ('BLEU scores')",
    "head": "an everyday word ('the head chef')",
    "token": "used in its plain sense ('a token of the sentence') from the first page",
    "loss": "an everyday word",
    "batch": "an everyday word",
    "frame": "an everyday word ('a frame of reference')",
    "tile": "an everyday word",
    "seed": "an everyday word",
    "padding": "an everyday word ('pad the recording with silence')",
    "window": "an everyday word",
    "projection": "an everyday word",
    "mask": "an everyday word",
    "query": "an everyday word",
    "double": "an everyday verb ('double every key'); the preface names chapter 17 at its first use as a format",
    "float": "an everyday verb; as a format, used from chapter 3 on beside 'double', which the preface introduces",
}

# (term as the glossary spells it first, page): the words of the sentence that uses it ahead.
NAMED_AHEAD = {
    ("self-attention", "chapters/00_preface/index"): "four texts written to teach self-attention",
    ("ReLU", "chapters/00_preface/index"): "softmax has been replaced with ReLU (chapter 3)",
    ("NaN", "chapters/02_scaling_variance/index"): "the measured variance infinite or NaN",
    ("encoder–decoder attention", "chapters/05_multi_head/index"): "so it can compute encoder–decoder attention",
    ("dropout", "chapters/06_positional_encoding/index"): "dropout is applied to the sums of the embeddings",
}

# The blocks of text the check reads, each a unit a "chapter N" can point from.
BLOCKS = (nodes.paragraph, nodes.title, nodes.caption, nodes.term, nodes.rubric, nodes.line)
SKIPPED_NODES = (nodes.literal_block, nodes.literal, nodes.math, nodes.math_block, nodes.raw, nodes.comment,
                 nodes.footnote, nodes.citation, nodes.footnote_reference, nodes.citation_reference,
                 nodes.block_quote, nodes.image, nodes.figure)
SKIPPED_CLASSES = {"big-picture", "paper-figure-2", "interactive-figure", "literal-block-wrapper"}
CHAPTER_WORDS = re.compile(r"\b[Cc]hapters?\s+(\d+(?:\s*(?:,|and|or|to|–)\s*\d+)*)")


QUOTED = re.compile(r"“[^”]*”")


def _skipped(node) -> bool:
    if isinstance(node, SKIPPED_NODES):
        return True
    if type(node).__name__ == "live_value":
        return True
    if type(node).__name__ in ("big_picture", "paper_figure"):
        return True
    return isinstance(node, nodes.Element) and bool(SKIPPED_CLASSES & set(node.get("classes", [])))


def _text(node) -> str:
    if _skipped(node):
        return ""
    if isinstance(node, nodes.Text):
        return node.astext()
    return "".join(_text(child) for child in node.children)


def blocks(doctree):
    """Each block of text the check reads, and the node it came from."""
    def walk(node):
        if _skipped(node):
            return
        if isinstance(node, BLOCKS):
            yield node, " ".join(QUOTED.sub(" ", _text(node)).split())
            return
        for child in node.children:
            yield from walk(child)
    yield from walk(doctree)


def chapters_named(text: str) -> set[int]:
    """The chapter numbers that words such as "chapters 1 to 4" or "chapter 8" name."""
    named = set()
    for match in CHAPTER_WORDS.finditer(text):
        numbers = match.group(1)
        for low, high in re.findall(r"(\d+)\s*(?:to|–)\s*(\d+)", numbers):
            named.update(range(int(low), int(high) + 1))
        named.update(int(number) for number in re.findall(r"\d+", numbers))
    return named


def term_pattern(spellings: list[str]) -> re.Pattern:
    """A spelling, its plural, with a space, a hyphen or a line break between its words;
    case-sensitive if it has a capital letter (BLEU, NaN, Adam), else not."""
    parts = []
    for spelling in spellings:
        words = [re.escape(word) for word in re.split(r"[\s\-]+", spelling)]
        body = r"[\s\-]+".join(words) + r"(?:s|es)?"
        parts.append(body if spelling != spelling.lower() else f"(?i:{body})")
    return re.compile(r"(?<![\w\-])(?:" + "|".join(parts) + r")(?![\w\-])")


def points_to(block, text: str, docname: str, number: int | None, env) -> bool:
    """Does the block say where the term is explained: a link to the chapter, or "chapter N"?"""
    for reference in block.findall(addnodes.pending_xref):
        target = reference.get("reftarget", "")
        if reference.get("reftype") == "doc" and docname_join(reference.get("refdoc", ""), target) == docname:
            return True
        if reference.get("reftype") == "ref" and env.domaindata["std"]["anonlabels"].get(target, ("",))[0] == docname:
            return True
    return number is not None and number in chapters_named(text)


def glossary_entries(env, page: str):
    """(spellings, page) for each entry: its terms, and the page its definition first links to,
    through a label (:ref:) or to the page itself (:doc:)."""
    doctree = env.get_doctree(page)
    labels = env.domaindata["std"]["anonlabels"]
    for glossary in doctree.findall(addnodes.glossary):
        for item in glossary.findall(nodes.definition_list_item):
            spellings = [term.astext() for term in item.findall(nodes.term)]
            places = []
            for reference in item.findall(addnodes.pending_xref):
                target = reference.get("reftarget", "")
                if reference.get("reftype") == "ref" and target in labels:
                    places.append(labels[target][0])
                elif reference.get("reftype") == "doc":
                    places.append(docname_join(page, target))
            if not places:
                raise ExtensionError(f"{page}.rst: the glossary's entry {spellings[0]!r} links to no place "
                                     "that explains it (a :ref: to a label such as term-..., or a :doc:)")
            yield spellings, places[0]


def chapter_number(env, docname: str) -> int | None:
    match = re.match(r"(\d+)\.", env.titles[docname].astext()) if docname in env.titles else None
    return int(match.group(1)) if match else None


def check(app, env):
    page = app.config.glossary_page
    if page not in env.all_docs:
        return
    pages = [docname for docname in env.toctree_includes.get(env.config.root_doc, []) if docname != page]
    texts = {}
    problems = []
    named_ahead = set()
    known = set()  # the (term, page) pairs this book could hold in NAMED_AHEAD
    for spellings, defined_in in glossary_entries(env, page):
        known.update((spellings[0], earlier) for earlier in pages)
        checked = [spelling for spelling in spellings if spelling.lower() not in UNCHECKED]
        if not checked or defined_in not in pages:
            continue
        pattern = term_pattern(checked)
        number = chapter_number(env, defined_in)
        for earlier in pages[:pages.index(defined_in)]:
            if earlier not in texts:
                texts[earlier] = list(blocks(env.get_doctree(earlier)))
            first = next(((block, text, match) for block, text in texts[earlier]
                          for match in [pattern.search(text)] if match), None)
            if first is None or points_to(first[0], first[1], defined_in, number, env):
                continue
            if (spellings[0], earlier) in NAMED_AHEAD:
                named_ahead.add((spellings[0], earlier))
                continue
            block, text, match = first
            around = text[max(0, match.start() - 60):match.end() + 60]
            problems.append(f"{earlier}.rst: {match.group(0)!r} is used before {defined_in}.rst "
                            f"explains it, and the sentence does not point there: ...{around}...")
    if problems:
        raise ExtensionError("A glossary term is used before the chapter that explains it "
                             "(define it where it is first used and move its label there, or say "
                             "which chapter explains it):\n  " + "\n  ".join(problems))
    for term, earlier in sorted(set(NAMED_AHEAD) & known - named_ahead):
        print(f"glossary_order: {earlier}.rst no longer uses {term!r} ahead of its chapter; "
                    "its entry in NAMED_AHEAD (docs/_ext/glossary_order.py) can go")


def setup(app):
    app.add_config_value("glossary_page", "glossary", "env")
    # Sphinx checks consistency only in a build that read some page: a change
    # to this file (NAMED_AHEAD, say) makes it read them all, so the check runs.
    env_version = int(hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:8], 16)
    app.connect("env-check-consistency", check)
    return {"version": "1", "env_version": env_version, "parallel_read_safe": True, "parallel_write_safe": True}
