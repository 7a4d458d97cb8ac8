"""The files hosted CI services and containers read, checked here, offline.

* .github/workflows/*.yml against GitHub's workflow schema, with
  @action-validator/cli pinned in tools/package-lock.json;
* .gitlab-ci.yml against GitLab's CI schema, with gitlab-ci-local (pinned the
  same way), which validates a pipeline before it lists its jobs;
* each of them, .ci/run, the Containerfile and .devcontainer/devcontainer.json
  run exactly the README's commands, so none can drift from the README; on
  GitHub the test command runs in its parts (tools/run-tests --only PART), and
  a copy of tools/run-tests whose cmake, ctest and package installation only
  write down how they were called shows that the parts together run what the
  whole suite runs.

Both validators are shown to refuse a broken file, so a pass means something.
They run only here: whether the jobs succeed on GitHub or GitLab can only be
seen there.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import yaml

SOURCE = Path(os.environ.get("BOOK_SOURCE", Path(__file__).resolve().parents[2]))
NODE_BIN = SOURCE / "tools" / "node_modules" / ".bin"
WORKFLOWS = sorted((SOURCE / ".github" / "workflows").glob("*.yml"))


def readme_commands() -> list:
    """The commands of the README's "The two commands" block, in order."""
    text = (SOURCE / "README.md").read_text(encoding="utf-8")
    section = text.split("## The two commands", 1)[1]
    block = re.search(r"```console\n(.*?)```", section, re.S).group(1)
    return [line[2:].split("#", 1)[0].strip() for line in block.splitlines() if line.startswith("$ ")]


BUILD_COMMAND, TEST_COMMAND = readme_commands()
PARTS = ("build-and-test", "browser", "sanitize")  # tools/run-tests --only PART

# Stands for tools/install-dependencies, cmake and ctest: writes down how it was
# called, and makes the folder the sanitize preset's configuration would make.
RECORDER = """#!/bin/sh
echo "$(basename "$0")${*:+ $*}" >> "$COMMANDS"
if [ "$*" = "--preset sanitize" ]; then mkdir -p build/sanitize; fi
"""


def run_tests_commands(*arguments: str) -> tuple:
    """tools/run-tests with these arguments, in a scratch copy where only the
    recorder above stands behind its commands: the result and the commands, in order."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "tools").mkdir()
        (root / "bin").mkdir()
        shutil.copy(SOURCE / "tools" / "run-tests", root / "tools" / "run-tests")
        shutil.copy(SOURCE / "tools" / "phases.bash", root / "tools" / "phases.bash")
        for recorder in (root / "tools" / "install-dependencies", root / "bin" / "cmake", root / "bin" / "ctest"):
            recorder.write_text(RECORDER)
            recorder.chmod(0o755)
        commands = root / "commands"
        commands.touch()
        environment = dict(os.environ, PATH=f"{root / 'bin'}:{os.environ['PATH']}", COMMANDS=str(commands))
        result = subprocess.run([str(root / "tools" / "run-tests"), *arguments], capture_output=True, text=True,
                                timeout=60, cwd=scratch, env=environment)
        return result, commands.read_text().splitlines()


def is_in_order_within(part: list, whole: list) -> bool:
    """Whether the commands of part all occur in whole, in the same order."""
    remaining = iter(whole)
    return all(command in remaining for command in part)


def fuzz_steps(job: dict) -> list:
    """The steps of a job that run tools/fuzz: the scheduled fuzzing, not the test suite."""
    return [step for step in job.get("steps", []) if "tools/fuzz" in str(step.get("run", ""))]


def action_validator(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(NODE_BIN / "action-validator"), str(path)], capture_output=True, text=True,
                          timeout=120)


def gitlab_ci_local(pipeline: str) -> subprocess.CompletedProcess:
    """gitlab-ci-local --list in a scratch repository holding only this pipeline
    (it reads the folder's git state and writes a .gitlab-ci-local/ folder there)."""
    with tempfile.TemporaryDirectory() as scratch:
        Path(scratch, ".gitlab-ci.yml").write_text(pipeline, encoding="utf-8")
        git = ["git", "-C", scratch, "-c", "user.name=book", "-c", "user.email=book@localhost"]
        subprocess.run(git + ["init", "-q", "-b", "main"], check=True)
        subprocess.run(git + ["add", "."], check=True)
        subprocess.run(git + ["commit", "-q", "-m", "pipeline"], check=True)
        return subprocess.run([str(NODE_BIN / "gitlab-ci-local"), "--list"],
                              capture_output=True, text=True, timeout=120, cwd=scratch)


class TheReadmesCommands(unittest.TestCase):
    def test_the_readme_names_two_commands(self):
        self.assertEqual([BUILD_COMMAND, TEST_COMMAND], ["tools/build-book", "tools/run-tests"])

    def test_ci_run_calls_the_test_command(self):
        lines = [line.strip() for line in (SOURCE / ".ci" / "run").read_text().splitlines()]
        commands = [line for line in lines if line and not line.startswith("#")]
        self.assertEqual(commands[-1], TEST_COMMAND)

    def test_the_parts_together_run_what_the_whole_suite_runs(self):
        result, whole = run_tests_commands()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("ctest --preset ci", whole)
        selections = {}  # how each part picks its tests of the ci build
        covered = set()
        for part in PARTS:
            with self.subTest(part=part):
                result, commands = run_tests_commands("--only", part)
                self.assertEqual(result.returncode, 0, result.stderr)
                for command in commands:
                    if command.startswith("ctest --preset ci "):
                        selections[part] = command.split()[3:]
                # Each part runs its commands in the order the whole suite does (a build of some
                # targets builds part of what the whole suite builds).
                as_in_whole = [re.sub(r"^(ctest --preset ci|cmake --build --preset ci) .*", r"\1", command)
                               for command in commands]
                self.assertTrue(is_in_order_within(as_in_whole, whole), (commands, whole))
                covered.update(as_in_whole)
        self.assertEqual(covered, set(whole))
        # One part runs the ci build's tests but one, the other that one alone
        # (and fails if the name no longer finds it).
        browser_check = selections["browser"][1]
        self.assertEqual(selections, {"build-and-test": ["-E", browser_check],
                                      "browser": ["-R", browser_check, "--no-tests=error"]})
        self.assertRegex("book.browser_check", browser_check)
        self.assertNotRegex("book.browser_check_elsewhere", browser_check)
        self.assertIn("add_test(NAME book.browser_check\n", (SOURCE / "docs" / "CMakeLists.txt").read_text())

    def test_run_tests_refuses_an_unknown_part(self):
        for arguments in (["--only", "everything"], ["--only"], ["--everything"]):
            with self.subTest(arguments=arguments):
                result, commands = run_tests_commands(*arguments)
                self.assertEqual(result.returncode, 2)
                self.assertEqual(commands, [])
                self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
                self.assertIn("--only", result.stderr)

    def test_install_dependencies_refuses_what_it_does_not_know(self):
        # Refused before anything is installed: the real script, run with arguments it does not take.
        for arguments in (["--books"], ["--book", "--book"], ["tests"]):
            with self.subTest(arguments=arguments):
                result = subprocess.run([str(SOURCE / "tools" / "install-dependencies"), *arguments],
                                        capture_output=True, text=True, timeout=60)
                self.assertEqual(result.returncode, 2)
                self.assertEqual(result.stdout, "")
                self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
                self.assertIn(" ".join(arguments), result.stderr)

    def test_the_book_installs_its_own_packages_and_the_tests_all(self):
        # tools/build-book asks for the book's packages alone; tools/run-tests, for everything.
        self.assertIn("tools/install-dependencies --book\n", (SOURCE / "tools" / "build-book").read_text())
        result, commands = run_tests_commands()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(commands[0], "install-dependencies")

    def test_the_github_test_job_runs_the_test_command_in_its_parts(self):
        self.assertTrue(WORKFLOWS, "no workflow in .github/workflows/")
        jobs = {}
        for path in WORKFLOWS:
            for name, job in yaml.safe_load(path.read_text())["jobs"].items():
                jobs[f"{path.name}:{name}"] = job
        test_jobs = {name: job for name, job in jobs.items()
                     if any("tools/" in str(step.get("run", "")) for step in job.get("steps", []))
                     and not fuzz_steps(job)}
        self.assertEqual(list(test_jobs), ["test.yml:test"])
        job = test_jobs["test.yml:test"]
        self.assertEqual(job["container"], "debian:12")
        self.assertEqual(sorted(job["strategy"]["matrix"]["part"]), sorted(PARTS))
        steps = [step for step in job["steps"] if "tools/" in str(step.get("run", ""))]
        self.assertEqual([step["run"].strip() for step in steps],
                         [TEST_COMMAND + " --only ${{ matrix.part }} 2>&1 | tee run-tests.log"])
        self.assertEqual(steps[0].get("shell"), "bash")  # GitHub's bash has -o pipefail: tee hides no failure
        logs = [step for step in job["steps"] if step.get("with", {}).get("name") == "logs-${{ matrix.part }}"]
        self.assertEqual(len(logs), 1)
        self.assertEqual(logs[0]["if"], "always()")
        self.assertIn("run-tests.log", logs[0]["with"]["path"].split())
        # The book is published only when every part has passed.
        pages = jobs["test.yml:pages"]
        self.assertEqual(pages["needs"], "test")
        self.assertNotRegex(pages["if"], r"always|failure|cancelled")

    def test_the_scheduled_fuzzing_fuzzes_and_only_on_a_schedule(self):
        fuzzing = []
        for path in WORKFLOWS:
            workflow = yaml.safe_load(path.read_text())
            triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key on as true
            for name, job in workflow["jobs"].items():
                if fuzz_steps(job):
                    fuzzing.append(name)
                    with self.subTest(workflow=path.name, job=name):
                        runs = [step["run"].strip() for step in job["steps"] if "tools/" in str(step.get("run", ""))]
                        self.assertEqual(runs, ["tools/install-dependencies", "tools/fuzz 600"])
                        self.assertEqual(job["container"], "debian:12")
                        self.assertEqual(set(triggers), {"schedule", "workflow_dispatch"})
        self.assertEqual(fuzzing, ["fuzz"], "expected one scheduled fuzzing job on GitHub")
        pipeline = yaml.safe_load((SOURCE / ".gitlab-ci.yml").read_text())
        self.assertEqual(pipeline["fuzz"]["script"], ["tools/install-dependencies", "tools/fuzz 600"])
        self.assertEqual(pipeline["fuzz"]["rules"], [{"if": '$CI_PIPELINE_SOURCE == "schedule"'}])

    def test_the_gitlab_test_job_runs_the_test_command_exactly(self):
        pipeline = yaml.safe_load((SOURCE / ".gitlab-ci.yml").read_text())
        self.assertEqual(pipeline["test"]["script"], [TEST_COMMAND])
        self.assertNotIn("before_script", pipeline["test"])
        self.assertEqual(pipeline["default"]["image"], "debian:12")
        # GitLab publishes what the pages job leaves in public/: the rendered book.
        self.assertEqual(pipeline["pages"]["script"], ["mv build/book/html public"])

    def test_the_github_actions_are_pinned_to_a_commit(self):
        for path in WORKFLOWS:
            for line in path.read_text().splitlines():
                match = re.search(r"uses:\s*(\S+)", line)
                if match:
                    with self.subTest(action=match.group(1)):
                        self.assertRegex(match.group(1), r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")
                        self.assertRegex(line, r"#\s*v\d+")  # the release, for a reader

    def test_the_containerfile_runs_the_readmes_commands(self):
        steps = [line for line in (SOURCE / "Containerfile").read_text().splitlines()
                 if line and not line.startswith("#")]
        self.assertEqual(steps[0], "FROM debian:12")
        self.assertEqual([line for line in steps if line.startswith("RUN ")], [f"RUN {BUILD_COMMAND}"])
        self.assertEqual(steps[-1], f'CMD ["{TEST_COMMAND}"]')

    def test_the_devcontainer_uses_the_containerfile_and_the_build_command(self):
        config = json.loads((SOURCE / ".devcontainer" / "devcontainer.json").read_text())
        dockerfile = (SOURCE / ".devcontainer" / config["build"]["dockerfile"]).resolve()
        self.assertEqual(dockerfile, (SOURCE / "Containerfile").resolve())
        self.assertEqual(config["postCreateCommand"], BUILD_COMMAND)


class TheSchemas(unittest.TestCase):
    def test_the_github_workflows_are_valid(self):
        for path in WORKFLOWS:
            with self.subTest(workflow=path.name):
                result = action_validator(path)
                self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_the_github_validator_refuses_a_broken_workflow(self):
        test_workflow = SOURCE / ".github" / "workflows" / "test.yml"
        broken = test_workflow.read_text().replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    timeout-minutes: soon", 1)
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch, "broken.yml")
            path.write_text(broken)
            result = action_validator(path)
        self.assertNotEqual(result.returncode, 0, "the validator took a job with timeout-minutes: soon")
        self.assertIn("/jobs/test/timeout-minutes", result.stdout + result.stderr)

    def test_the_gitlab_pipeline_is_valid(self):
        result = gitlab_ci_local((SOURCE / ".gitlab-ci.yml").read_text())
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("json schema validated", result.stdout + result.stderr)
        for job in ("test", "pages"):
            self.assertRegex(result.stdout, rf"(?m)^{job}\s")

    def test_the_gitlab_validator_refuses_a_broken_pipeline(self):
        broken = (SOURCE / ".gitlab-ci.yml").read_text().replace("when: always", "when: sometimes", 1)
        result = gitlab_ci_local(broken)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("sometimes", result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
