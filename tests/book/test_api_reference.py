"""The library's reference page names every entity of the library. The page
(docs/api.rst) is written at build time from Doxygen's XML by
docs/_ext/library_reference.py; these tests hold what it writes to the XML and
to the headers, independently of how it writes it: each function, type alias,
variable, enum, struct and class Doxygen finds in namespace attention (or a
namespace inside it) is rendered by one Breathe directive, each header of
src/attention/ has a section, and a header comes no later than the headers
that include it."""
import os
import re
import sys
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "docs" / "_ext"))
import library_reference  # noqa: E402  (the page's writer, from the book's Sphinx extensions)

DIRECTIVE = {"function": "doxygenfunction", "typedef": "doxygentypedef", "struct": "doxygenstruct",
             "class": "doxygenclass", "variable": "doxygenvariable", "enum": "doxygenenum"}


class ApiReferenceIsComplete(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.xml = Path(os.environ["BOOK_DOXYGEN_XML"])
        cls.page = "\n".join(library_reference.reference_lines(cls.xml, REPOSITORY))

    def test_the_page_asks_for_the_reference(self):
        self.assertIn(".. library-reference::", (REPOSITORY / "docs" / "api.rst").read_text())

    def test_every_entity_has_its_directive_once(self):
        entities = []
        for path in self.xml.glob("namespaceattention*.xml"):
            namespace = ElementTree.parse(path).getroot()
            prefix = namespace.find("compounddef").findtext("compoundname")
            entities += [(member.get("kind"), f"{prefix}::" + member.findtext("name"))
                         for member in namespace.iter("memberdef")]
            entities += [("struct" if inner.get("refid").startswith("struct") else "class", inner.text)
                         for inner in namespace.iter("innerclass")]
        self.assertGreater(len(entities), 100)
        for kind, name in set(entities):
            with self.subTest(entity=name):
                pattern = rf"^\.\. {DIRECTIVE[kind]}:: {re.escape(name)}\b"
                count = entities.count((kind, name))  # overloads: one directive each
                self.assertEqual(len(re.findall(pattern, self.page, re.MULTILINE)), count, f"the reference lacks {name}")

    def test_every_header_has_one_section(self):
        for header in sorted((REPOSITORY / "src" / "attention").glob("*.hpp")):
            with self.subTest(header=header.name):
                self.assertEqual(self.page.count(f".. doxygenfile:: {header.name}\n"), 1)

    def test_a_header_comes_before_the_headers_that_include_it(self):
        order = re.findall(r"^\.\. doxygenfile:: (\S+)$", self.page, re.MULTILINE)
        place = {header: i for i, header in enumerate(order)}
        self.assertEqual(order[0], "matrix.hpp")  # every header includes it
        for header in order:
            text = (REPOSITORY / "src" / "attention" / header).read_text()
            for used in re.findall(r'#include "attention/([a-z0-9_]+\.hpp)"', text):
                with self.subTest(header=header, includes=used):
                    self.assertLess(place[used], place[header])


if __name__ == "__main__":
    unittest.main()
