"""The order in which the build runs the programs (cmake/Book.cmake), read from
the build's own graph with `ninja -t query`: a run that times something waits
for every run that times nothing (untimed.stamp), and what is made from a timed
chapter's numbers (its figures, its NumPy checks) waits for every timed run
(timed.stamp). So nothing else of the build shares the machine with a timed run,
and tools/capture_run.py can keep its timings. A run that times nothing waits
for neither: it runs while the compiler works. A timed run waits for every
program and library of the book (book_compiled), and the test programs, which
the book does not need, wait for every run: tools/build-book compiles none of
them, and a build of everything compiles them after the runs."""
import os
import re
import subprocess
import sys
import unittest
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "tools"))
from chapter_runs import runs_document  # noqa: E402  (the runs that end a chapter's index.rst)
BUILD = Path(os.environ.get("BOOK_BUILD_DIR", REPOSITORY / "build"))
GENERATED = "book/generated"


def inputs_of(output: str) -> set[str]:
    """Every input of the build statement that makes @p output (a path relative to the build folder)."""
    result = subprocess.run(["ninja", "-C", str(BUILD), "-t", "query", output], capture_output=True, text=True,
                            timeout=60, check=True)
    lines = result.stdout.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("  input: ")) + 1
    inputs = set()
    for line in lines[start:]:
        if not line.startswith("    "):
            break
        inputs.add(line.strip().removeprefix("|| ").removeprefix("| "))
    return inputs


def test_programs() -> set[str]:
    """The name of every program the build links in tests/, from `ninja -t targets all`."""
    result = subprocess.run(["ninja", "-C", str(BUILD), "-t", "targets", "all"], capture_output=True, text=True,
                            timeout=60, check=True)
    return {match[1] for match in re.finditer(r"^tests/\S+: CXX_EXECUTABLE_LINKER__(\w+)_\w+$", result.stdout,
                                              re.MULTILINE)}


def chapters():
    """(folder, {run: whether it times something}) for each chapter with runs (tools/chapter_runs.py)."""
    for page in sorted(REPOSITORY.glob("chapters/*/index.rst")):
        document = runs_document(page)
        if document is None:
            continue
        runs = document["runs"]
        timed = {name: isinstance(run, dict) and run.get("json_file", False) and run.get("timed", True)
                 for name, run in runs.items()}
        yield page.parent, timed


@unittest.skipUnless((BUILD / "build.ninja").is_file(), f"no Ninja build in {BUILD}")
class BuildOrder(unittest.TestCase):
    def test_a_timed_run_waits_for_every_untimed_one_and_the_untimed_wait_for_nothing_of_the_book(self):
        timed_outputs, untimed_outputs = set(), set()
        for folder, timed in chapters():
            for name, times_something in timed.items():
                command = f"{GENERATED}/outputs/{name}.command"
                inputs = inputs_of(command)
                with self.subTest(run=name):
                    self.assertEqual(f"{GENERATED}/untimed.stamp" in inputs, times_something)
                    # book_compiled among the inputs, order-only included: an untimed run held by the
                    # chapter's target would wait for the page's module, and the timed runs behind it
                    self.assertEqual("docs/book_compiled" in inputs, times_something)
                    self.assertNotIn(f"{GENERATED}/timed.stamp", inputs)
                (timed_outputs if times_something else untimed_outputs).add(command)
        self.assertTrue(timed_outputs and untimed_outputs)
        self.assertLessEqual(timed_outputs, inputs_of(f"{GENERATED}/timed.stamp"))
        self.assertLessEqual(untimed_outputs, inputs_of(f"{GENERATED}/untimed.stamp"))
        self.assertNotIn(f"{GENERATED}/timed.stamp", inputs_of(f"{GENERATED}/untimed.stamp"))

    def test_the_book_needs_no_test_program_and_the_test_programs_wait_for_every_run(self):
        programs = test_programs()
        self.assertLessEqual({"unit_tests", "chapter_tests", "page_call"}, programs)
        for program in sorted(programs):
            with self.subTest(program=program):
                self.assertIn("docs/book_runs_in_order", inputs_of(f"cmake_object_order_depends_target_{program}"))
        compiled = inputs_of("docs/book_compiled")
        self.assertIn("bin/dot_product", compiled)
        self.assertEqual({path for path in compiled if path.startswith("tests/")}, set())

    def test_what_is_made_from_a_timed_chapter_waits_for_every_timed_run(self):
        checked = 0
        for folder, timed in chapters():
            number = folder.name[:2]
            made = [f"{GENERATED}/figures/{script.stem}.svg"
                    for script in sorted(REPOSITORY.glob(f"figures/ch{number}_*.py"))]
            made += [f"{GENERATED}/numpy/{listing.stem}.json" for listing in sorted(folder.glob("numpy_*.py"))]
            for output in made:
                with self.subTest(output=output):
                    self.assertEqual(f"{GENERATED}/timed.stamp" in inputs_of(output), any(timed.values()))
                checked += 1
        self.assertGreater(checked, 0)

    def test_a_stamp_is_written_once_so_what_waits_for_it_is_not_made_again_because_it_ran(self):
        """Each stamp is a byproduct of the command that follows what it stands for (docs/CMakeLists.txt):
        the command makes it only if it is missing and touches a witness instead, and Ninja reads the
        stamp's time again after it (restat). A stamp touched each time would make every timed run,
        its figures and its page again whenever any run changed."""
        text = (BUILD / "build.ninja").read_text()
        for stamp in ("untimed.stamp", "timed.stamp"):
            path = f"{GENERATED}/{stamp}"
            with self.subTest(stamp=stamp):
                statements = [variables for outputs, variables in re.findall(
                    r"^build ([^:\n]*): CUSTOM_COMMAND[^\n]*\n((?:  [^\n]*\n)+)", text, re.MULTILINE)
                    if path in outputs.split()]
                self.assertEqual(len(statements), 1, f"the build statements that make {path}")
                variables = statements[0]
                self.assertIn("restat = 1", variables)
                command = next(line for line in variables.splitlines() if line.strip().startswith("COMMAND = "))
                made_once = re.search(rf"open\(sys\.argv\[1\], 'a'\)\.close\(\)\S* \S*/{re.escape(path)}(?=\s|$)",
                                      command)
                self.assertIsNotNone(made_once, command)
                self.assertIsNone(re.search(rf"touch \S*/{re.escape(path)}(?=\s|$)", command), command)


if __name__ == "__main__":
    unittest.main()
