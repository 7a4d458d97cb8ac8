"""tools/models_for_the_page.py ships a trained model into the page's module
without its training's wall-clock time, which would change the module (and
every page's picture) at every build: the seconds at the top of a model and in
a field holding a JSON object as text become 0, and nothing else changes."""
import json
import sys
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


if __name__ == "__main__":
    unittest.main()
