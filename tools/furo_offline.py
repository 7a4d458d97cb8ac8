#!/usr/bin/python3
"""Make Debian's Furo theme work offline and from file://.

Debian packages Furo's sources unbundled: its stylesheet starts with
``@import url(/javascript/normalize.css/normalize.css)`` (a path only a web
server with Debian's javascript-common has), and its script is an ES module
(``import Gumshoe from "./gumshoe-patched.js"``) loaded as a classic script,
which fails at the import. This writes, into the book's static folder, a
stylesheet with normalize.css inlined and one classic script made of Gumshoe
followed by Furo's script. Sphinx copies them over the theme's own files of
the same names.

Debian's stylesheet also lacks Furo's dark scheme for readers whose system is
set to dark: it has the colours for ``data-theme="dark"`` (the ☀/☾ button) but
not the ``@media (prefers-color-scheme: dark)`` copy of them that upstream's
stylesheet applies while the theme is "auto", the default. So the book stayed
light on a dark system. This adds that copy, made from the dark block itself.

Fails if either file no longer looks the way it is read here."""
import argparse
import re
import sys
from pathlib import Path

IMPORT_CSS = "@import url(/javascript/normalize.css/normalize.css);"
IMPORT_JS = re.compile(r'^import Gumshoe from "\./gumshoe-patched\.js";\n', re.MULTILINE)
DARK_BLOCK_START = '@media not print {\n  body[data-theme="dark"] {'
DARK_SELECTOR = 'body[data-theme="dark"]'
AUTO_DARK_SELECTOR = 'body:not([data-theme="light"])'


def with_system_dark_scheme(stylesheet: str) -> str:
    """The stylesheet with its data-theme="dark" block repeated for the "auto" theme on a dark system."""
    start = stylesheet.find(DARK_BLOCK_START)
    if start < 0 or "prefers-color-scheme" in stylesheet:
        sys.exit("furo_offline: furo.css no longer has its dark colours where expected, or has the system's dark scheme already")
    depth = 0
    for end in range(start, len(stylesheet)):
        depth += {"{": 1, "}": -1}.get(stylesheet[end], 0)
        if depth == 0 and stylesheet[end] == "}":
            break
    block = stylesheet[start:end + 1]
    inner = block[len("@media not print {"):-1].replace(DARK_SELECTOR, AUTO_DARK_SELECTOR)
    copy = "\n@media not print {\n  @media (prefers-color-scheme: dark) {" + inner + "} }\n"
    return stylesheet[:end + 1] + copy + stylesheet[end + 1:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--theme", required=True, type=Path, help="Furo's static folder")
    parser.add_argument("--normalize", required=True, type=Path, help="normalize.css")
    parser.add_argument("--out", required=True, type=Path, help="the book's static folder")
    options = parser.parse_args()

    stylesheet = (options.theme / "styles" / "furo.css").read_text()
    if IMPORT_CSS not in stylesheet:
        sys.exit(f"furo_offline: {options.theme}/styles/furo.css no longer imports normalize.css as expected")
    script = (options.theme / "scripts" / "furo.js").read_text()
    if not IMPORT_JS.search(script):
        sys.exit(f"furo_offline: {options.theme}/scripts/furo.js no longer imports Gumshoe as expected")
    gumshoe = (options.theme / "scripts" / "gumshoe-patched.js").read_text()

    (options.out / "styles").mkdir(parents=True, exist_ok=True)
    (options.out / "scripts").mkdir(parents=True, exist_ok=True)
    (options.out / "styles" / "furo.css").write_text(
        with_system_dark_scheme(stylesheet.replace(IMPORT_CSS, options.normalize.read_text(), 1)))
    # Gumshoe defines window.Gumshoe when loaded as a classic script.
    (options.out / "scripts" / "furo.js").write_text(gumshoe + "\n" + IMPORT_JS.sub("", script, count=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
