"""The library's reference page (docs/api.rst) names every entity of the
library: each function, type alias and struct that Doxygen finds in namespace
attention is rendered by one Breathe directive, and each header has a section."""
import os
import re
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
DIRECTIVE = {"function": "doxygenfunction", "typedef": "doxygentypedef", "struct": "doxygenstruct",
             "class": "doxygenclass", "variable": "doxygenvariable", "enum": "doxygenenum"}


class ApiReferenceIsComplete(unittest.TestCase):
    def setUp(self):
        self.page = (REPOSITORY / "docs" / "api.rst").read_text()
        xml = Path(os.environ["BOOK_DOXYGEN_XML"])
        self.namespace = ElementTree.parse(xml / "namespaceattention.xml").getroot()

    def test_every_entity_has_its_directive(self):
        entities = [(member.get("kind"), "attention::" + member.findtext("name"))
                    for member in self.namespace.iter("memberdef")]
        entities += [("struct" if inner.get("refid").startswith("struct") else "class", inner.text)
                     for inner in self.namespace.iter("innerclass")]
        self.assertGreater(len(entities), 0)
        for kind, name in entities:
            with self.subTest(entity=name):
                pattern = rf"^\.\. {DIRECTIVE[kind]}:: {re.escape(name)}\b"
                self.assertRegex(self.page, re.compile(pattern, re.MULTILINE), f"docs/api.rst lacks {name}")

    def test_every_header_has_a_section(self):
        for header in sorted((REPOSITORY / "src" / "attention").glob("*.hpp")):
            with self.subTest(header=header.name):
                self.assertTrue(f".. doxygenfile:: {header.name}" in self.page, f"docs/api.rst lacks {header.name}")


if __name__ == "__main__":
    unittest.main()
