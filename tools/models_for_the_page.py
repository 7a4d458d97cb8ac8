#!/usr/bin/python3
"""Writes the C++ source that ships a chapter's trained models in the page's
WebAssembly module: it runs the native program once per --run with
--model-for-the-page, reads the JSON it prints (one saved model), and writes
it as the chapter's SavedModel, each field as --fields says: every real
number as a hexadecimal floating-point literal, which C++ reads back to the
same bits.

Training in WebAssembly would not give the native model: without fused
multiply-adds and with other summation orders its last bits differ, and 1500
steps of Adam grow the difference until the weights differ in the first
digit. With the native model, the page shows the native program's numbers.

    models_for_the_page.py --program build/bin/sentences --out sentences_models.cpp \\
        --header chapters/13_sentences/sentences.hpp --namespace sentences \\
        --run="--task tagging" --run="--task agreement" \\
        --fields key:text parameters:reals logged_steps:integers ...

Each field is name:kind, in the order of the SavedModel's members, name being
the key in the program's JSON; the kinds are text, real, reals, integer and
integers. cmake/Book.cmake's book_models_for_the_page() calls this.

A training is kept in the book's cache (tools/cached_command.py, folder
`models`) under the program's bytes and the run's arguments: the same program
trains the same model, and a fresh clone reads it back instead of training
again (on a 2-core machine, about 20 s of every build).

With --from-json and --list it trains nothing: it reads the models from a
list in the JSON document of a run the build has already captured (chapter
16 ships the grid's runs so). The kinds then include boolean.

A model's training time ("seconds", a wall-clock measure, at the top of the
model or in a field that holds a JSON object as text) is written as 0: it
changes at every build, and with it the page's module and so the pictures of
every page the browser check takes, while the page shows no training time
(the page restores the model; it does not train it).
"""
import argparse
import json
import math
import pathlib
import shlex
import subprocess

import cached_command  # the book's cache: a training the same program ran with the same arguments is read back


def text_literal(text: str) -> str:
    """A C++ string literal with the same bytes as the UTF-8 of `text`: what is not
    printable ASCII as three-digit octal escapes, which end where they must."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def text_field(value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {value!r}")
    return text_literal(value)


def real_literal(value) -> str:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"a saved model holds {value}, which has no C++ literal")
    return float.hex(value)


def integer_literal(value) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    return str(value)


def boolean_literal(value) -> str:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return "true" if value else "false"


KINDS = {
    "text": text_field,
    "boolean": boolean_literal,
    "real": real_literal,
    "integer": integer_literal,
    "reals": lambda values: "{" + ", ".join(real_literal(value) for value in values) + "}",
    "integers": lambda values: "{" + ", ".join(integer_literal(value) for value in values) + "}",
}


def field(spec: str):
    name, _, kind = spec.partition(":")
    if not name or kind not in KINDS:
        raise argparse.ArgumentTypeError(f"{spec!r}: expected name:kind, kind one of {', '.join(KINDS)}")
    return name, kind


def model_source(model: dict, fields) -> str:
    missing = [name for name, _ in fields if name not in model]
    if missing or len(model) != len(fields):
        raise SystemExit(f"models_for_the_page.py: the program's model has the keys {sorted(model)}, "
                         f"--fields lists {[name for name, _ in fields]}")
    return "    {" + ",\n     ".join(KINDS[kind](model[name]) for name, kind in fields) + "}"


def without_training_time(model: dict) -> dict:
    """The model with its training's wall-clock seconds written as 0, wherever they are (see the top)."""
    kept = dict(model)
    for name, value in model.items():
        if name == "seconds" and isinstance(value, (int, float)):
            kept[name] = 0.0
        elif isinstance(value, str) and value.startswith("{"):
            try:
                inner = json.loads(value)
            except json.JSONDecodeError:
                continue  # text, not a JSON object
            if isinstance(inner, dict) and "seconds" in inner:
                inner["seconds"] = 0.0
                kept[name] = json.dumps(inner, separators=(",", ":"))
    return kept


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--header", required=True, help="the chapter's header, from the repository's root")
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--run", action="append", default=[],
                        help="the arguments of one training, as one string (default: one, with none)")
    parser.add_argument("--from-json", help="instead of training: the JSON document of a run the build captured")
    parser.add_argument("--list", help="with --from-json: the key of its list of models")
    parser.add_argument("--fields", nargs="+", type=field, required=True)
    options = parser.parse_args()
    models = []
    if options.from_json:
        models = json.loads(pathlib.Path(options.from_json).read_text())[options.list]
    for run in [] if options.from_json else options.run or [""]:
        arguments = [*shlex.split(run), "--model-for-the-page"]
        model, _ = cached_command.program_answer("models", options.program, arguments, lambda: json.loads(
            subprocess.run([options.program, *arguments], check=True, capture_output=True, text=True).stdout))
        models.append(model)
    models = [without_training_time(model) for model in models]
    source = ("// Written by tools/models_for_the_page.py from the native program's\n"
              "// --model-for-the-page, for the page's module only. Not to be edited.\n"
              f'#include "{options.header}"\n\n'
              f"namespace {options.namespace} {{\n\n"
              "const std::vector<SavedModel>& models_for_the_page() {\n"
              "  static const std::vector<SavedModel> models{\n"
              + ",\n".join(model_source(model, options.fields) for model in models) + "};\n"
              "  return models;\n"
              "}\n\n"
              f"}}  // namespace {options.namespace}\n")
    out = pathlib.Path(options.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_text() != source:  # unchanged: em++ need not compile it again
        out.write_text(source)


if __name__ == "__main__":
    main()
