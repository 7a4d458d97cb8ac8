#!/usr/bin/python3
"""The runs a chapter's page reads, from the `.. runs::` block that ends its index.rst.

A chapter with a program ends its page with the runs the prose reads, as one
JSON document in a directive Sphinx shows nothing of (docs/_ext/book.py):

    .. runs::

       {
         "compile": ["SPEED"],
         "runs": {"dot_product": [], "dot_product_wide": ["--d", "8"]}
       }

"runs" names each run: a list of arguments, or {"arguments": [...],
"json_file": true, ...} for a run whose output differs from run to run
(tools/capture_run.py says the rest); "compile", if given, says how the
program is compiled (cmake/Book.cmake, book_chapter). The block is the last
thing on the page, and every line of it is indented: the document is what
follows the directive's line, so the build (which runs this file as it
configures) and the tests read the same runs without parsing the prose.

As a command, writes each chapter's runs to --out-dir/<folder>.json (rewritten
only when they change, so a prose edit runs nothing again) and removes the
file of a folder whose page has no runs; a malformed block is one line on
stderr naming the page, and exit status 1.
"""
import argparse
import json
import sys
from pathlib import Path

DIRECTIVE = ".. runs::"


def runs_document(page: Path) -> dict | None:
    """The JSON document of the `.. runs::` block that ends @p page, or None if it has none.
    Raises ValueError, naming the page, if the block is not last, not indented, or not a document with "runs"."""
    lines = page.read_text(encoding="utf-8").splitlines()
    starts = [number for number, line in enumerate(lines) if line.rstrip() == DIRECTIVE]
    if not starts:
        return None
    if len(starts) > 1:
        raise ValueError(f"{page}: {len(starts)} '{DIRECTIVE}' blocks; a page has one, at its end")
    body = lines[starts[0] + 1:]
    outdented = [number for number, line in enumerate(body, start=starts[0] + 2)
                 if line.strip() and not line.startswith("   ")]
    if outdented:
        raise ValueError(f"{page}:{outdented[0]}: text after the '{DIRECTIVE}' block, which ends the page "
                         "(every line of it indented by three spaces)")
    try:
        document = json.loads("\n".join(body))
    except json.JSONDecodeError as error:
        raise ValueError(f"{page}: the '{DIRECTIVE}' block is not JSON: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("runs"), dict) or not document["runs"]:
        raise ValueError(f"{page}: the '{DIRECTIVE}' block is not {{\"runs\": {{name: run, ...}}}} with a run")
    return document


def chapter_runs(folder: Path) -> dict:
    """The "runs" of the chapter in @p folder (chapters/NN_slug): each run's name and what it is."""
    document = runs_document(folder / "index.rst")
    if document is None:
        raise ValueError(f"{folder / 'index.rst'}: no '{DIRECTIVE}' block")
    return document["runs"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", required=True, type=Path, help="where <folder>.json is written")
    parser.add_argument("folders", nargs="*", type=Path, help="the chapter folders (chapters/NN_slug)")
    options = parser.parse_args()
    options.out_dir.mkdir(parents=True, exist_ok=True)
    for folder in options.folders:
        out = options.out_dir / f"{folder.name}.json"
        page = folder / "index.rst"
        try:
            document = runs_document(page) if page.exists() else None
        except ValueError as error:
            print(error, file=sys.stderr)
            return 1
        if document is None:
            out.unlink(missing_ok=True)
            continue
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
