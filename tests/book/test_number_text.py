"""The prose's numbers held to the book's cases (tests/number_text_cases.json):
format_value (docs/_ext/book.py), which writes every :value: role, gives each
case's text: with a format spec, the case's "formats"; without one, the
"tables" cases with 4 decimals, as the programs' tables write them. The page
(tests/book/number_text.mjs) and the programs (tests/unit/test_table.cpp) are
held to the same file."""
import json
import sys
import unittest
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "docs" / "_ext"))

from book import format_value  # noqa: E402

CASES = json.loads((REPOSITORY / "tests" / "number_text_cases.json").read_text(encoding="utf-8"))


class NumberText(unittest.TestCase):
    def test_without_a_format_as_the_tables_write_it(self):
        cases = [case for case in CASES["tables"] if case.get("decimals", 4) == 4]
        self.assertGreater(len(cases), 10)
        for case in cases:
            with self.subTest(value=case["value"], why=case["why"]):
                self.assertEqual(format_value(case["value"], None), case["text"])

    def test_with_a_format_as_python_writes_it(self):
        for case in CASES["formats"]:
            with self.subTest(value=case["value"], format=case["format"], why=case["why"]):
                self.assertEqual(format_value(case["value"], case["format"]), case["text"])

    def test_a_vector_reads_as_its_entries(self):
        self.assertEqual(format_value([0.5, -0.00001, 1e15], None), "(0.5, 0, 1e15)")

    def test_count_and_word_count_a_list_and_name_a_whole_number(self):
        self.assertEqual(format_value([1, 2, 3, 4, 5], "count"), "5")
        self.assertEqual(format_value([], "count"), "0")
        self.assertEqual(format_value([1, 2, 3, 4, 5], "word"), "five")
        self.assertEqual(format_value([{"seed": 1}, {"seed": 2}], "word"), "two")
        self.assertEqual(format_value(15, "word"), "fifteen")
        self.assertEqual(format_value(20, "word"), "twenty")
        self.assertEqual(format_value(21, "word"), "21")
        self.assertEqual(format_value(0, "word"), "zero")
        for value, spec in ((5, "count"), (2.5, "word"), (-1, "word"), (True, "word"), ("five", "word")):
            with self.subTest(value=value, spec=spec), self.assertRaises(ValueError):
                format_value(value, spec)


if __name__ == "__main__":
    unittest.main()
