#!/usr/bin/env python3
"""Link the book's WebAssembly module and write it as one script.

    link_page_module.py OUTPUT -- EM++ LINK COMMAND (without -o)

The page must work from file://, where a browser fetches nothing, so the
module is one script: the WebAssembly's bytes as base64 in the global
`bookModuleWasm`, then emscripten's loader, `createBookModule`. The page
decodes the bytes and hands them to the loader (docs/_static/interactive.js).
Emscripten's own single file (-sSINGLE_FILE) keeps them inside the loader as
a data: address, which the loader fetches: that cost about 0.7 s of processor
time per page here, against 0.1 s for bytes handed over.

cmake/BookPage.cmake runs this through tools/cached_command.py."""
import base64
import pathlib
import subprocess
import sys
import tempfile


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print("link_page_module.py: expected OUTPUT -- the link command", file=sys.stderr)
        return 2
    output = pathlib.Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as folder:
        loader = pathlib.Path(folder, "book_module.js")
        status = subprocess.run([*sys.argv[3:], "-o", str(loader)]).returncode
        if status != 0:
            return status
        wasm = loader.with_suffix(".wasm").read_bytes()
        if wasm[:4] != b"\0asm":
            print(f"link_page_module.py: {loader.with_suffix('.wasm')} is not WebAssembly", file=sys.stderr)
            return 1
        text = f'var bookModuleWasm = "{base64.b64encode(wasm).decode()}";\n' + loader.read_text()
    output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
