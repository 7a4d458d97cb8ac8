"""Writes the C++ source that ships chapter 13's trained models in the page's
WebAssembly module: it runs the native program once per task with the
defaults (--model-for-the-page) and writes every parameter as a hexadecimal
floating-point literal, which C++ reads back to the same bits.

Training in WebAssembly would not give the native model: without fused
multiply-adds and with other summation orders its last bits differ, and 1500
steps of Adam grow the difference until the weights differ in the first
digit. With the native model, the page shows the native program's numbers.

    models_for_the_page.py --program build/bin/sentences --out sentences_models.cpp
"""
import argparse
import json
import pathlib
import subprocess

TASKS = ["tagging", "agreement"]


def literal_list(values, convert):
    return "{" + ", ".join(convert(value) for value in values) + "}"


def model_source(model: dict) -> str:
    return "    {" + ",\n     ".join([
        json.dumps(model["key"]),
        literal_list(model["parameters"], float.hex),
        literal_list(model["logged_steps"], str),
        literal_list(model["loss"], float.hex),
        literal_list(model["held_out_accuracy"], float.hex),
        str(model["drawn"]), str(model["distinct"]), str(model["redrawn"]),
        float.hex(float(model["seconds"])),
    ]) + "}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", required=True)
    parser.add_argument("--out", required=True)
    options = parser.parse_args()
    models = []
    for task in TASKS:
        printed = subprocess.run([options.program, "--task", task, "--model-for-the-page"],
                                 check=True, capture_output=True, text=True).stdout
        models.append(json.loads(printed))
    source = ("// Written by chapters/13_sentences/models_for_the_page.py from the native program's\n"
              "// --model-for-the-page, for the page's module only. Not to be edited.\n"
              '#include "chapters/13_sentences/sentences.hpp"\n\n'
              "namespace sentences {\n\n"
              "const std::vector<SavedModel>& models_for_the_page() {\n"
              "  static const std::vector<SavedModel> models{\n"
              + ",\n".join(model_source(model) for model in models) + "};\n"
              "  return models;\n"
              "}\n\n"
              "}  // namespace sentences\n")
    out = pathlib.Path(options.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_text() != source:  # unchanged: em++ need not compile it again
        out.write_text(source)


if __name__ == "__main__":
    main()
