"""The files hosted CI services and containers read, checked here, offline.

* .github/workflows/*.yml against GitHub's workflow schema, with
  @action-validator/cli pinned in tools/package-lock.json;
* .gitlab-ci.yml against GitLab's CI schema, with gitlab-ci-local (pinned the
  same way), which validates a pipeline before it lists its jobs;
* each of them, .ci/run, the Containerfile and .devcontainer/devcontainer.json
  run exactly the README's commands, so none can drift from the README.

Both validators are shown to refuse a broken file, so a pass means something.
They run only here: whether the jobs succeed on GitHub or GitLab can only be
seen there.
"""
import json
import os
import re
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

    def test_each_github_test_job_runs_the_test_command_exactly(self):
        self.assertTrue(WORKFLOWS, "no workflow in .github/workflows/")
        jobs = {}
        for path in WORKFLOWS:
            for name, job in yaml.safe_load(path.read_text())["jobs"].items():
                jobs[f"{path.name}:{name}"] = job
        test_jobs = {name: job for name, job in jobs.items()
                     if any("tools/" in str(step.get("run", "")) for step in job.get("steps", []))
                     and not fuzz_steps(job)}
        self.assertTrue(test_jobs, "no job runs the test suite")
        for name, job in test_jobs.items():
            with self.subTest(job=name):
                runs = [step["run"].strip() for step in job["steps"] if "tools/" in str(step.get("run", ""))]
                self.assertEqual(runs, [TEST_COMMAND])
                self.assertEqual(job["container"], "debian:12")

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
