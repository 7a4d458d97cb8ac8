"""Sphinx configuration of the book.

The build (docs/CMakeLists.txt) runs Sphinx with four paths in the
environment: BOOK_GENERATED_DIR (the programs' outputs and the figures),
BOOK_DOXYGEN_XML (the library's API from Doxygen), BOOK_STATIC_DIR
(files the build makes for the pages: the WebAssembly module, the plotting
library) and BOOK_NODE (the Node that draws the formulas, _ext/book_math.py). Build
the book through CMake, not by calling sphinx-build by hand.
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))


def _build_path(name: str) -> str:
    try:
        return os.environ[name]
    except KeyError:
        raise RuntimeError(f"{name} is not set: render the book with 'cmake --build build', not sphinx-build") from None


project = "Attention, Compiled"
author = "The authors of Attention, Compiled"
copyright = "2026, " + author
root_doc = "index"
language = "en"

extensions = ["breathe", "library_reference", "book", "book_math", "narrow_figures", "big_picture", "main_text", "glossary_order", "sphinx_tabs.tabs",
              "sphinx_copybutton"]

book_generated_dir = _build_path("BOOK_GENERATED_DIR")

# The library's API, rendered by Breathe from Doxygen's XML.
breathe_projects = {"attention": _build_path("BOOK_DOXYGEN_XML")}
breathe_default_project = "attention"
breathe_domain_by_extension = {"hpp": "cpp"}
primary_domain = "cpp"
highlight_language = "cpp"

html_static_path = ["_static", _build_path("BOOK_STATIC_DIR")]
# The formulas are drawn as SVG when the book is built, by MathJax 3 in Node
# (_ext/book_math.py): the pages load no MathJax, and read offline.
html_math_renderer = "book_svg"

# Furo (Debian's package): previous/next links, a contents sidebar that marks
# the current page, search that works offline, a phone layout with the
# contents behind a button, and a dark scheme that follows the reader's system.
html_theme = "furo"
# Furo's page with a link to skip to the text (_templates/page.html).
templates_path = ["_templates"]
html_title = project
html_theme_options = {
    "navigation_with_keys": True,
    "top_of_page_button": None,
}
html_show_sourcelink = False
# A figure's image links to itself at full size from the box the page gives it
# (_ext/narrow_figures.py), whatever its :width:; Sphinx's own link would nest in it.
html_scaled_image_link = False
html_copy_source = False
# No "Fig. 6" or "Listing 37" before captions: nothing in the book refers to
# its own figures by number, the chapters cite the paper's "Figure 2" and
# "Table 3", which the book's own numbers would be confused with, and numbering
# makes Sphinx read every page again whenever one changes (a sentence edited
# re-rendered in 1.7 s to 1.9 s without it, 2.1 s to 2.5 s with it).
numfig = False

# C++ | NumPy tabs beside the core listings (Debian's python3-sphinx-tabs; the
# tabs directive is written by the book's `.. listing::` with :numpy:). The
# tabs of a page switch together and the choice holds for the visit; a tab
# is never closed by clicking it again; the book's stylesheet styles them in
# Furo's colours, light and dark.
sphinx_tabs_disable_tab_closing = True
sphinx_tabs_disable_css_loading = True
# sphinx_copybutton (python3-sphinx-copybutton) puts a copy button on every
# listing and command; its scripts, clipboard.min.js among them, and its icons
# are copied into _static/, so the pages still read offline. A program's
# printed output gets none: nobody pastes it back, and in the narrow boxes
# of tables shown side by side the button would cover the table's title.
copybutton_selector = "div:not(.program-output) > div.highlight pre"
