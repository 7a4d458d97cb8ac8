"""build/bin/fast_attention, chapter 12: the streaming kernel's trace against
an online softmax written here from its definition in NumPy, and the
benchmark's document; bad input refused."""
import json
import math
import os
import pathlib
import subprocess
import tempfile
import unittest

import numpy as np

from harness import PROGRAM, ProgramTest, run, run_json

TOY = dict(q=[[1, 0], [0, 1], [1, 1]], k=[[2, 0], [0, 1], [1, 1]], v=[[1, 0], [0, 1], [0.5, 0.5]])
EIGHT = dict(
    q=[[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8], [2.0, 1.0], [0.0, -2.0], [1.0, 1.0], [-1.5, 0.5], [0.3, 0.3]],
    k=[[0.1, 0.2], [-1.0, 0.5], [0.7, -0.4], [1.2, 2.0], [-0.5, -0.5], [2.5, 0.1], [0.0, 1.0], [3.0, 3.0]],
    v=[[1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [-1, 1], [1, -1], [0.5, 0.5]],
)


def matrix_text(matrix) -> str:
    return ";".join(",".join(repr(float(x)) for x in row) for row in matrix)


def example_arguments(example) -> list:
    return ["--q", matrix_text(example["q"]), "--k", matrix_text(example["k"]), "--v", matrix_text(example["v"])]


def number(value):
    return {"-inf": -math.inf, "inf": math.inf}.get(value, value) if isinstance(value, str) else value


def online_softmax_states(q, k, v, key_tile, query_tile, causal):
    """The state after every visited tile, from the definitions: M = the largest score seen,
    L = sum of e^(s - M) over the keys seen, O = sum of e^(s - M) v over the keys seen."""
    q, k, v = (np.asarray(x, dtype=float) for x in (q, k, v))
    n, m = len(q), len(k)
    scores = q @ k.T / math.sqrt(q.shape[1])
    allowed = np.tril(np.ones((n, m), dtype=bool)) if causal else np.ones((n, m), dtype=bool)
    states = []
    for q0 in range(0, n, query_tile):
        rows = range(q0, min(q0 + query_tile, n))
        for k0 in range(0, m, key_tile):
            if causal and k0 > rows[-1]:
                continue  # wholly after every query of the tile: skipped
            seen = slice(0, min(k0 + key_tile, m))
            state = {"first_query": q0, "first_key": k0, "maximum": {}, "sum": {}, "output": {}}
            for i in rows:
                visible = scores[i, seen][allowed[i, seen]]
                if visible.size == 0:
                    state["maximum"][i], state["sum"][i], state["output"][i] = -math.inf, 0.0, np.zeros(v.shape[1])
                    continue
                top = visible.max()
                weights = np.where(allowed[i, seen], np.exp(scores[i, seen] - top), 0.0)
                state["maximum"][i] = top
                state["sum"][i] = weights.sum()
                state["output"][i] = weights @ v[seen] / weights.sum()
            states.append(state)
    final = np.where(allowed, scores, -np.inf)
    final = np.exp(final - final.max(axis=1, keepdims=True))
    return states, (final / final.sum(axis=1, keepdims=True)) @ v


class TraceAgainstNumPy(ProgramTest):
    def check(self, example, *arguments, key_tile=1, query_tile=None, causal=False):
        trace = run_json(*example_arguments(example), *arguments)["trace"]
        n = len(example["q"])
        expected, output = online_softmax_states(example["q"], example["k"], example["v"], key_tile,
                                                 query_tile or n, causal)
        self.assertEqual(len(trace["steps"]), len(expected))
        for step, state in zip(trace["steps"], expected):
            self.assertEqual((step["first_query"], step["first_key"]), (state["first_query"], state["first_key"]))
            for i, top in state["maximum"].items():
                self.assertAlmostEqual(number(step["maximum"][i]), top, delta=1e-13)
                self.assertAlmostEqual(step["sum"][i], state["sum"][i], delta=1e-12)
                np.testing.assert_allclose(step["output"][i], state["output"][i], rtol=0, atol=1e-13)
            # Queries of later tiles have not started: null.
            for i in range(n):
                if i >= state["first_query"] + (query_tile or n):
                    self.assertIsNone(step["maximum"][i])
        np.testing.assert_allclose(trace["output"], output, rtol=0, atol=1e-13)
        np.testing.assert_allclose(trace["teaching_output"], output, rtol=0, atol=1e-13)
        self.assertLess(trace["largest_difference"], 1e-12)
        return trace

    def test_the_toy_one_key_at_a_time(self):
        trace = self.check(TOY)
        self.assertEqual(trace["query_tokens"], ["cat", "eat", "fish"])
        # eat's maximum rises at the second key: what was summed is rescaled by e^(0 - 1/sqrt(2)).
        self.assertAlmostEqual(trace["steps"][1]["rescale"][1], math.exp(-1 / math.sqrt(2)), delta=1e-15)
        self.assertEqual(trace["steps"][0]["rescale"], [0, 0, 0])  # the first key: e^(-inf) = 0

    def test_eight_tokens_in_tiles(self):
        for key_tile in (1, 2, 3, 4, 8):
            for query_tile in (1, 3, 8):
                with self.subTest(key_tile=key_tile, query_tile=query_tile):
                    self.check(EIGHT, "--tile", str(key_tile), "--query-tile", str(query_tile),
                               key_tile=key_tile, query_tile=query_tile)

    def test_causal_skips_the_tiles_after_every_query(self):
        for tile in (1, 2, 3):
            with self.subTest(tile=tile):
                trace = self.check(EIGHT, "--mask", "causal", "--tile", str(tile), "--query-tile", str(tile),
                                   key_tile=tile, query_tile=tile, causal=True)
                tiles = math.ceil(8 / tile)
                self.assertEqual(trace["skipped"], [[i, j] for i in range(tiles) for j in range(tiles) if j > i])
                self.assertEqual(trace["visited"] + len(trace["skipped"]), tiles * tiles)

    def test_tables_show_every_tile(self):
        text = run().stdout
        for title in ("Tile 1:", "Tile 2:", "Tile 3:", "Output, streaming", "Output, teaching version"):
            self.assertIn(title, text)


class Benchmark(ProgramTest):
    def test_the_document(self):
        document = json.loads(run("--n", "16,64", "--d", "8", "--reps", "2", "--json").stdout)
        self.assertGreater(document["peak_gflops"], 0)
        methods = {"teaching", "buffered", "buffered_vectorised_exp", "streaming_eigen_products", "streaming",
                   "streaming_causal", "tile_products_only"}
        if document["numpy"]["available"]:
            methods.add("numpy")
        else:
            self.assertTrue(document["numpy"]["reason"])
        for n in (16, 64):
            rows = {row["method"]: row for row in document["rows"] if row["n"] == n}
            self.assertEqual(set(rows), methods)
            for row in rows.values():
                for key in ("n", "d", "threads", "method", "seconds_median", "seconds_spread", "gflops",
                            "peak_extra_bytes"):
                    self.assertIn(key, row)
                self.assertEqual(len(row["seconds_samples"]), 2)
                low, high = row["seconds_spread"]
                self.assertLessEqual(low, row["seconds_median"])
                self.assertLessEqual(row["seconds_median"], high)
            # Counted: four n × n matrices, one, and a few tiles: a 64 × 128 score tile, a 64 × 8 output tile and
            # three numbers per query; with packed products also the tile's 64 × 8 queries, and the keys and values
            # of the one key tile (n ≤ 128) packed in strips of 16 columns: Kᵀ, 8 × n, and V, n × 8, each padded.
            tiles = 64 * 128 + 64 * 8 + 3 * 64
            self.assertEqual(rows["teaching"]["peak_extra_bytes"], 4 * n * n * 8)
            self.assertEqual(rows["buffered"]["peak_extra_bytes"], n * n * 8)
            self.assertEqual(rows["streaming_eigen_products"]["peak_extra_bytes"], tiles * 8)
            self.assertEqual(rows["streaming"]["peak_extra_bytes"], (tiles + 64 * 8 + 8 * n + n * 16) * 8)
            for method in ("buffered", "buffered_vectorised_exp", "streaming_eigen_products", "streaming"):
                self.assertLess(rows[method]["difference_from_teaching"], 1e-12)
        self.assertEqual({goal["name"] for goal in document["goals"]},
                         {"streaming_vs_numpy", "products_at_half_peak", "memory_at_16384", "causal_half"})

    def test_a_method_over_the_memory_limit_is_skipped_and_says_so(self):
        document = json.loads(run("--n", "600", "--d", "4", "--reps", "1", "--memory-limit", "0.005",
                                  "--no-numpy", "--json").stdout)
        rows = {row["method"]: row for row in document["rows"]}
        self.assertIsNone(rows["teaching"]["seconds_median"])
        self.assertIn("--memory-limit", rows["teaching"]["skipped"])
        self.assertEqual(document["skipped"][0]["method"], "teaching")
        self.assertIsNotNone(rows["streaming"]["seconds_median"])
        self.assertNotIn("numpy", rows)
        self.assertEqual(document["numpy"], {"available": False, "reason": "--no-numpy was given",
                                             "description": "not timed: --no-numpy was given"})
        self.assertIn("Skipped teaching at n = 600", run("--n", "600", "--d", "4", "--reps", "1",
                                                          "--memory-limit", "0.005", "--no-numpy").stdout)

    def test_a_python_that_cannot_run_is_reported(self):
        document = json.loads(run("--n", "8", "--d", "2", "--reps", "1", "--python", "/nonexistent/python3",
                                  "--json").stdout)
        self.assertFalse(document["numpy"]["available"])
        self.assertIn("/nonexistent/python3", document["numpy"]["reason"])
        self.assertIn("NumPy was not timed", document["summary"])


class BadInput(ProgramTest):
    def test_bad_input_is_refused(self):
        cpus = os.cpu_count() or 1
        cases = [
            (["--n", "0"], "--n"),
            (["--n", "-5"], "--n"),
            (["--n", "256,x"], "--n"),
            (["--n", ""], "--n"),
            (["--n", "64", "--d", "0"], "--d"),
            (["--n", "64", "--threads", "0"], "--threads"),
            (["--n", "64", "--threads", str(cpus + 1)], "--threads"),
            (["--n", "64", "--reps", "0"], "--reps"),
            (["--n", "64", "--memory-limit", "-1"], "--memory-limit"),
            (["--n", "64", "--memory-limit", "nan"], "--memory-limit"),
            (["--n", "64", "--python", "python3; rm -rf x"], "--python"),
            (["--n", "64", "--q", "1,0"], "--n"),
            (["--d", "64"], "--d"),
            (["--tile", "0"], "--tile"),
            (["--tile", "13"], "--tile"),
            (["--query-tile", "two"], "--query-tile"),
            (["--mask", "band:1"], "--mask"),
            (["--mask", "causal", "--q", "1,0;0,1"], "--mask"),
            (["--q", "1,x;0,1;1,1"], "--q"),
            (["--q", ";".join(["1,0"] * 13), "--k", ";".join(["1,0"] * 13), "--v", ";".join(["1"] * 13)], "--q"),
            (["--frobnicate"], "--frobnicate"),
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--n", "--threads", "--reps", "--tile", "--memory-limit")


class TheMachine(ProgramTest):
    """What the program reads from the machine it runs on: the processors it may
    use, and how a Python child ended."""

    def run_with_affinity(self, processors, *arguments):
        return subprocess.run([PROGRAM, *arguments], capture_output=True, text=True, timeout=120,
                              preexec_fn=lambda: os.sched_setaffinity(0, processors))

    def test_threads_are_checked_against_the_processors_it_may_use(self):
        """--threads was checked against the machine's processor count
        (hardware_concurrency), not the processors this process may run on (its
        affinity, which taskset, a container or a batch system sets)."""
        allowed = sorted(os.sched_getaffinity(0))
        if len(allowed) < 2:
            self.skipTest("this process may use one processor only: there is nothing to restrict")
        small = ["--n", "8", "--d", "1", "--reps", "1", "--no-numpy"]
        refused = self.run_with_affinity({allowed[0]}, *small, "--threads", "2")
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertEqual(refused.stdout, "")
        self.assertEqual(len(refused.stderr.splitlines()), 1, refused.stderr)
        self.assertTrue(refused.stderr.startswith("fast_attention: --threads is 2; expected 1 to 1 "), refused.stderr)
        accepted = self.run_with_affinity({allowed[0]}, *small, "--threads", "1", "--json")
        self.assertEqual(accepted.returncode, 0, accepted.stderr)
        both = self.run_with_affinity(set(allowed[:2]), *small, "--threads", "2", "--json")
        self.assertEqual(both.returncode, 0, both.stderr)

    def test_a_python_that_fails_is_reported_with_its_exit_status(self):
        """The status was the raw wait status: "exited with status 768" for exit 3."""
        with tempfile.TemporaryDirectory() as folder:
            failing = pathlib.Path(folder) / "python_exits_3"
            failing.write_text("#!/bin/sh\necho failing on purpose\nexit 3\n")
            killed = pathlib.Path(folder) / "python_killed"
            killed.write_text("#!/bin/sh\nkill -KILL $$\n")
            for script in (failing, killed):
                script.chmod(0o755)
            small = ["--n", "8", "--d", "1", "--reps", "1", "--json"]
            reason = json.loads(run(*small, "--python", str(failing)).stdout)["numpy"]["reason"]
            self.assertIn(f"{failing} exited with status 3: failing on purpose", reason)
            reason = json.loads(run(*small, "--python", str(killed)).stdout)["numpy"]["reason"]
            # The shell popen() starts either is ended by the signal too, or reports it as 128 + 9.
            self.assertTrue(f"{killed} was ended by signal 9" in reason or f"{killed} exited with status 137" in reason,
                            reason)


if __name__ == "__main__":
    unittest.main()
