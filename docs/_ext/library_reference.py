"""``.. library-reference::``: the reference of src/attention/, written from Doxygen's XML.

One section per header, each with the header's own description and one Breathe
directive per entity the header defines, in the order of the file: a function,
type alias, variable or enum of namespace ``attention``, and every struct and
class (with its members). Overloaded functions are named with their
arguments, as Breathe needs. Nothing is typed by hand, so a new header or a
new entity appears without an edit here; an entity Doxygen finds in no header
of src/attention/ stops the build.

The headers come in the order a reader meets them: by the first chapter that
includes them, directly or through another header of the library (a header no
chapter reaches comes last), and within a chapter, a header before the
headers that include it, then by name.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

import sphinx
from sphinx.domains import cpp
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

DIRECTIVE = {"function": "doxygenfunction", "typedef": "doxygentypedef", "variable": "doxygenvariable",
             "enum": "doxygenenum", "struct": "doxygenstruct", "class": "doxygenclass"}
INCLUDE = re.compile(r'#include "attention/([a-z0-9_]+\.hpp)"')
NO_CHAPTER = 99


def _includes(path: Path) -> set[str]:
    return set(INCLUDE.findall(path.read_text()))


def header_order(repository: Path) -> list[str]:
    """The library's headers in the order of the reference (see the module's text)."""
    library = repository / "src" / "attention"
    headers = sorted(path.name for path in library.glob("*.hpp"))
    included_by = {header: _includes(library / header) for header in headers}
    chapter = {header: NO_CHAPTER for header in headers}
    for folder in sorted((repository / "chapters").glob("[0-9][0-9]_*")):
        number = int(folder.name[:2])
        for source in [*folder.glob("*.cpp"), *folder.glob("*.hpp")]:
            if source.name.startswith("test_"):  # the chapter's Catch2 tests, not what the chapter shows
                continue
            for header in _includes(source):
                if header in chapter:
                    chapter[header] = min(chapter[header], number)
    changed = True
    while changed:  # a header is met no later than the headers that include it
        changed = False
        for header, inner in included_by.items():
            for used in inner:
                if used in chapter and chapter[header] < chapter[used]:
                    chapter[used] = chapter[header]
                    changed = True
    depth: dict[str, int] = {}

    def depth_of(header: str, seen: tuple[str, ...] = ()) -> int:
        if header not in depth:
            inner = [used for used in included_by[header] if used in included_by and used not in seen]
            depth[header] = 1 + max((depth_of(used, seen + (header,)) for used in inner), default=-1)
        return depth[header]

    return sorted(headers, key=lambda header: (chapter[header], depth_of(header), header))


def _location(element) -> tuple[str, int]:
    location = element.find("location")
    if location is None:
        raise ExtensionError(f"library-reference: {element.findtext('name')} has no location in Doxygen's XML")
    return Path(location.get("file")).name, int(location.get("line"))


def namespaces(xml: Path) -> list[tuple[str, object]]:
    """(name, root) of namespace attention and of each namespace inside it."""
    index = ElementTree.parse(xml / "index.xml").getroot()
    found = []
    for compound in index.iter("compound"):
        name = compound.findtext("name")
        if compound.get("kind") == "namespace" and (name == "attention" or name.startswith("attention::")):
            found.append((name, ElementTree.parse(xml / f"{compound.get('refid')}.xml").getroot()))
    return found


def entities(xml: Path) -> list[tuple[str, int, str, str]]:
    """(header, line, directive, name) for every entity of namespace attention and the namespaces inside it."""
    found = []
    for namespace_name, namespace in namespaces(xml):
        found += _namespace_entities(namespace_name, namespace, xml)
    return found


def _namespace_entities(namespace_name: str, namespace, xml: Path) -> list[tuple[str, int, str, str]]:
    members = list(namespace.iter("memberdef"))
    overloaded = Counter(member.findtext("name") for member in members if member.get("kind") == "function")
    found = []
    for member in members:
        kind, name = member.get("kind"), f"{namespace_name}::" + member.findtext("name")
        if kind not in DIRECTIVE:
            raise ExtensionError(f"library-reference: {name} is a {kind}, which the reference cannot show")
        if kind == "function" and overloaded[member.findtext("name")] > 1:
            name += member.findtext("argsstring")
        found.append((*_location(member), DIRECTIVE[kind], name))
    for inner in namespace.iter("innerclass"):
        compound = ElementTree.parse(xml / f"{inner.get('refid')}.xml").getroot().find("compounddef")
        kind = "struct" if inner.get("refid").startswith("struct") else "class"
        found.append((*_location(compound), DIRECTIVE[kind], inner.text))
    return found


def reference_lines(xml: Path, repository: Path) -> list[str]:
    """The reference as reStructuredText lines."""
    by_header: dict[str, list[tuple[int, str, str]]] = {}
    order = header_order(repository)
    for header, line, directive, name in entities(xml):
        if header not in order:
            raise ExtensionError(f"library-reference: {name} is defined in {header}, not in a header of src/attention/")
        by_header.setdefault(header, []).append((line, directive, name))
    lines: list[str] = []
    for header in order:
        title = f"``attention/{header}``"
        lines += [title, "-" * len(title), "", f".. doxygenfile:: {header}",
                  "   :sections: briefdescription detaileddescription", ""]
        for _, directive, name in sorted(by_header.get(header, [])):
            lines += [f".. {directive}:: {name}"]
            if directive in ("doxygenstruct", "doxygenclass"):
                lines += ["   :members:"]
            lines += [""]
    return lines


class LibraryReference(SphinxDirective):
    has_content = False

    def run(self):
        xml = Path(self.config.breathe_projects[self.config.breathe_default_project])
        repository = Path(__file__).resolve().parents[2]  # docs/_ext/ is two folders down
        self.env.note_dependency(str(xml / "index.xml"))
        lines = reference_lines(xml, repository)
        self.state_machine.insert_input(lines, self.env.doc2path(self.env.docname))
        return []


def _keep_each_declarations_id():
    """Sphinx 5's C++ domain works out a declaration's id again every time a cross-reference's lookup
    compares it (about 180,000 times for the book's 1,600 references, a third of Sphinx's time); Sphinx 7
    keeps it once worked out, on the same assumption: by then the declaration no longer changes."""
    work_out = cpp.ASTDeclaration.get_newest_id

    def kept(declaration):
        if "_book_newest_id" not in declaration.__dict__:
            declaration._book_newest_id = work_out(declaration)
        return declaration._book_newest_id
    cpp.ASTDeclaration.get_newest_id = kept


def setup(app):
    app.add_directive("library-reference", LibraryReference)
    if sphinx.version_info < (7,):
        _keep_each_declarations_id()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
