"""tools/models_for_the_page.py ships a trained model into the page's module
without its training's wall-clock time, which would change the module (and
every page's picture) at every build: the seconds at the top of a model and in
a field holding a JSON object as text become 0, and nothing else changes. A
training is kept in the book's cache and read back for the same program and
arguments, and run again for another program."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from models_for_the_page import without_training_time  # noqa: E402


class WithoutTrainingTime(unittest.TestCase):
    def test_the_seconds_at_the_top_become_0(self):
        model = {"key": "a", "parameters": [0.5, -1.25], "seconds": 3.75, "drawn": 24000}
        self.assertEqual(without_training_time(model), {"key": "a", "parameters": [0.5, -1.25], "seconds": 0.0,
                                                        "drawn": 24000})
        self.assertEqual(model["seconds"], 3.75)  # the program's document is left as it was

    def test_the_seconds_in_a_record_become_0(self):
        record = json.dumps({"loss": [2.5, 0.125], "seconds": 4.416039016, "steps": 1500})
        shipped = without_training_time({"key": "b", "parameters": [1.0], "record": record})
        self.assertEqual(json.loads(shipped["record"]), {"loss": [2.5, 0.125], "seconds": 0.0, "steps": 1500})
        self.assertEqual(shipped["parameters"], [1.0])

    def test_a_model_without_a_time_is_unchanged(self):
        model = {"key": "{not json", "record": json.dumps({"steps": 3}), "learned": True}
        self.assertEqual(without_training_time(model), model)


TOOL = Path(__file__).resolve().parents[2] / "tools" / "models_for_the_page.py"


class TrainingsKept(unittest.TestCase):
    """A stand-in program that counts its runs in a file and prints one model."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = Path(folder.name)
        self.runs = self.folder / "runs"
        self.program = self.folder / "trainer"
        self.write_program(weight=0.5)

    def write_program(self, weight):
        self.program.write_text("#!/bin/sh\n"
                                f"echo \"$*\" >> '{self.runs}'\n"
                                f"echo '{{\"key\": \"a\", \"weight\": {weight}, \"seconds\": 2.5}}'\n")
        self.program.chmod(0o755)

    def ship(self, run="--task tagging"):
        out = self.folder / "models.cpp"
        subprocess.run([sys.executable, TOOL, "--program", self.program, "--out", out, "--header", "h.hpp",
                        "--namespace", "n", f"--run={run}", "--fields", "key:text", "weight:real", "seconds:real"],
                       check=True, env={**os.environ, "BOOK_CACHE_DIR": str(self.folder / "cache")})
        return out.read_text()

    def trainings(self):
        return self.runs.read_text().splitlines() if self.runs.exists() else []

    def test_the_same_program_and_arguments_train_once(self):
        first = self.ship()
        self.assertIn("0x1.0000000000000p-1", first)  # 0.5, as a hexadecimal literal
        self.assertEqual(self.trainings(), ["--task tagging --model-for-the-page"])
        self.assertEqual(self.ship(), first)
        self.assertEqual(len(self.trainings()), 1)

    def test_other_arguments_or_another_program_train_again(self):
        self.ship()
        self.ship(run="--task agreement")
        self.assertEqual(len(self.trainings()), 2)
        self.write_program(weight=0.25)
        self.assertIn("0x1.0000000000000p-2", self.ship())
        self.assertEqual(len(self.trainings()), 3)


if __name__ == "__main__":
    unittest.main()
