"""build/bin/fast_attention, chapter 12: the streaming kernel's trace against
an online softmax written here from its definition in NumPy, and the
benchmark's document; bad input refused."""
import json
import math
import os
import re
import resource
import tempfile
import unittest

import numpy as np

import harness
from harness import PAGE_COLUMNS, ProgramTest, published_run, run, run_json, spread_rule, start_alone

# Under the sanitizers every memory access is checked: a peak measured there means nothing, and the address space
# they reserve leaves no room for a limit on it.
SANITIZE = os.environ.get("BOOK_SANITIZE", "0") == "1"
VERDICTS = {"faster", "slower", "too close to call"}


# Each step against the one before it, and the kernel against the teaching version and NumPy: the document's key, the
# first method, the second.
STEP_PAIRS = (("buffered_vs_teaching", "buffered", "teaching"),
              ("vectorised_exp_vs_buffered", "buffered_vectorised_exp", "buffered"),
              ("eigen_products_vs_vectorised_exp", "streaming_eigen_products", "buffered_vectorised_exp"),
              ("streaming_vs_eigen_products", "streaming", "streaming_eigen_products"),
              ("streaming_vs_teaching", "streaming", "teaching"),
              ("streaming_vs_numpy", "streaming", "numpy"),
              ("causal_vs_streaming", "streaming_causal", "streaming"))


def lengths_in_words(lengths) -> str:
    """[16] as "n = 16", [16, 64] as "n = 16 and 64", [16, 32, 64] as "n = 16, 32 and 64"."""
    words = [str(n) for n in lengths]
    return "n = " + (words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1])


def verdicts_in_words(document, first, second) -> str:
    """first against second at every length both were timed, grouped by verdict, each group in the order of its first
    length: "slower at n = 256 and 512, and faster at n = 1024"."""
    groups = {}  # a verdict and its lengths, in the order of the first
    for n in document["n"]:
        rows = {row["method"]: row for row in document["rows"]
                if row["n"] == n and row["seconds_median"] is not None}
        if first in rows and second in rows:
            groups.setdefault(spread_rule(rows[first]["seconds_spread"], rows[second]["seconds_spread"]), []).append(n)
    parts = [f"{verdict} at {lengths_in_words(lengths)}" for verdict, lengths in groups.items()]
    if not parts:
        return "not timed beside it at any length"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + ", and " + parts[-1]


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

    def test_a_maximum_moves_in_the_middle_of_a_row_of_eight_tokens(self):
        # The stepper's caption: "Choose the eight-token example and two or three keys per tile to watch a maximum
        # move in the middle of a row". From the NumPy states: some query's largest score rises at a key tile that
        # is neither the first nor the last; there the program rescales by e^(M - M'), strictly between 0 and 1.
        for key_tile in (2, 3):
            with self.subTest(key_tile=key_tile):
                trace = self.check(EIGHT, "--tile", str(key_tile), "--query-tile", "8", key_tile=key_tile,
                                   query_tile=8)
                states, _ = online_softmax_states(EIGHT["q"], EIGHT["k"], EIGHT["v"], key_tile, 8, False)
                moves = [(s, i) for s in range(1, len(states) - 1) for i in range(8)
                         if states[s]["maximum"][i] > states[s - 1]["maximum"][i]]
                self.assertTrue(moves)
                for s, i in moves:
                    expected = math.exp(states[s - 1]["maximum"][i] - states[s]["maximum"][i])
                    self.assertAlmostEqual(trace["steps"][s]["rescale"][i], expected, delta=1e-15)
                    self.assertTrue(0 < trace["steps"][s]["rescale"][i] < 1)

    def test_causal_skips_the_tiles_after_every_query(self):
        for tile in (1, 2, 3):
            with self.subTest(tile=tile):
                trace = self.check(EIGHT, "--mask", "causal", "--tile", str(tile), "--query-tile", str(tile),
                                   key_tile=tile, query_tile=tile, causal=True)
                tiles = math.ceil(8 / tile)
                self.assertEqual(trace["skipped"], [[i, j] for i in range(tiles) for j in range(tiles) if j > i])
                self.assertEqual(trace["visited"] + len(trace["skipped"]), tiles * tiles)

    def test_a_skipped_tile_is_named_by_its_words(self):
        # Causal, tiles of two on the toy: queries cat and eat come before fish, so their tile against the key fish
        # is all masked; one token per tile, the skipped pairs are the upper triangle, each key after its query.
        text = run("--mask", "causal", "--tile", "2", "--query-tile", "2").stdout
        self.assertEqual(re.findall(r"^Skipped.*$", text, re.MULTILINE),
                         ["Skipped, every score masked: queries cat to eat, key fish"])
        text = run("--mask", "causal", "--tile", "1", "--query-tile", "1").stdout
        self.assertEqual(re.findall(r"^Skipped.*$", text, re.MULTILINE),
                         [f"Skipped, every score masked: query {query}, key {key}"
                          for query, key in (("cat", "eat"), ("cat", "fish"), ("eat", "fish"))])

    def test_tables_show_every_tile(self):
        text = run().stdout
        for title in ("Tile 1:", "Tile 2:", "Tile 3:", "Output, streaming", "Output, teaching version"):
            self.assertIn(title, text)

    def test_values_whose_running_sum_would_overflow_are_refused(self):
        # The kernel sums e^(s - M) v before it divides by L: two values of 1e308 under equal weights sum past the
        # largest double, where the teaching version's weighted sum, 1e308, does not.
        self.assert_refused(["--q", "1;1", "--k", "1;1", "--v", "1e308;1e308", "--tokens", "a,b"], "--v")
        self.assert_refused(["--q", "1;1", "--k", "1;1", "--v", "1e308;-1e308"], "--v")
        # Just below the bound both versions give the value itself.
        trace = run_json("--q", "1;1", "--k", "1;1", "--v", "8e307;8e307", "--tokens", "a,b")["trace"]
        np.testing.assert_allclose(trace["output"], [[8e307], [8e307]], rtol=1e-15)
        np.testing.assert_allclose(trace["teaching_output"], [[8e307], [8e307]], rtol=1e-15)
        self.assertLess(trace["largest_difference"], 1e-15)


def tables_and_document(*arguments, env=None, **options):
    """One run's printed tables and its JSON document (--json-file), as a process of its own."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "run.json")
        result = start_alone(*arguments, "--json-file", path, environment=env, **options)
        if result.returncode != 0:
            raise AssertionError(f"{arguments} exited with {result.returncode}: {result.stderr}")
        with open(path) as file:
            return result, json.load(file)


class Benchmark(ProgramTest):
    def test_the_document_and_the_tables(self):
        # The processor's name faked far longer than any real one, words and then one long word: no line of the
        # tables may grow wider than the page's code column for it, and the JSON has it whole.
        name = "Intel(R) Xeon(R) Platinum 8480+ " * 4 + "X" * 150
        result, document = tables_and_document("--n", "16,64", "--d", "8", "--reps", "2",
                                               env={"BOOK_PROCESSOR_NAME": name})
        self.assertEqual(result.stderr, "")  # no progress line where stderr is not a terminal
        self.assertEqual(document["machine"], name)
        lines = result.stdout.splitlines()
        self.assertTrue(lines[0].startswith("Processor: Intel(R) Xeon(R) Platinum 8480+"))
        for line in lines + run().stdout.splitlines():  # and the trace's
            self.assertLessEqual(len(line), PAGE_COLUMNS, line)

        self.assertGreater(document["peak_gflops"], 0)
        self.assertIsNone(document["estimated_seconds"])  # a short sweep is not estimated
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
            # The counts themselves are held to the heap the kernels take (tests/memory/test_measured_memory.cpp,
            # which watches malloc); here, what the document says of them: counted, and at least the matrices
            # each method must hold (four n × n, one n × n).
            for method in ("teaching", "buffered", "streaming_eigen_products", "streaming"):
                self.assertEqual(rows[method]["peak_extra_bytes_how"], "counted")
            self.assertGreaterEqual(rows["teaching"]["peak_extra_bytes"], 4 * n * n * 8)
            self.assertGreaterEqual(rows["buffered"]["peak_extra_bytes"], n * n * 8)
            for method in ("buffered", "buffered_vectorised_exp", "streaming_eigen_products", "streaming"):
                self.assertLess(rows[method]["difference_from_teaching"], 1e-12)
            # What a rate counts, from the formula rather than the program: two products of n × n × d
            # multiply-adds, two operations each; the causal row only the query-key pairs its mask leaves,
            # n(n + 1)/2 of the n².
            for method, row in rows.items():
                if row["gflops"] is None:
                    continue
                pairs = n * (n + 1) / 2 if method == "streaming_causal" else n * n
                operations = row["gflops"] * 1e9 * row["seconds_median"]
                self.assertAlmostEqual(operations / (4 * pairs * row["d"]), 1.0, places=9, msg=method)
            # A ratio the prose quotes: the tiled kernel with Eigen's products (step 3) over step 2, by medians.
            ratios = next(entry for entry in document["ratios"] if entry["n"] == n)
            self.assertAlmostEqual(ratios["eigen_products_over_vectorised_exp"],
                                   rows["streaming_eigen_products"]["seconds_median"]
                                   / rows["buffered_vectorised_exp"]["seconds_median"], delta=1e-12)
            # Every verdict is chapter 7's rule on the two spreads the document reports.
            verdicts = ratios["verdicts"]
            for key, first, second in (("buffered_vs_teaching", "buffered", "teaching"),
                                       ("vectorised_exp_vs_buffered", "buffered_vectorised_exp", "buffered"),
                                       ("streaming_vs_eigen_products", "streaming", "streaming_eigen_products"),
                                       ("streaming_vs_teaching", "streaming", "teaching"),
                                       ("causal_vs_streaming", "streaming_causal", "streaming")):
                self.assertEqual(verdicts[key], spread_rule(rows[first]["seconds_spread"], rows[second]["seconds_spread"]))
        # The verdicts over every length in words, as the prose quotes them (step 3 against step 2): recomputed here
        # from each length's spreads.
        self.assertEqual(set(document["verdicts_by_length"]), {key for key, _, _ in STEP_PAIRS})
        for key, first, second in STEP_PAIRS:
            self.assertEqual(document["verdicts_by_length"][key], verdicts_in_words(document, first, second), key)
        self.assertEqual({goal["name"] for goal in document["goals"]},
                         {"streaming_vs_numpy", "streaming_1_5x_numpy", "products_at_half_peak", "memory_at_16384",
                          "causal_half"})
        self.assertEqual(document["precision"], "double")
        # The tiles this machine chose: powers of two within the rule's bounds, and where the caches came from.
        shape = document["tiles"]
        self.assertIn(shape["key_tile"], [16 << i for i in range(7)])
        self.assertIn(shape["query_tile"], [shape["product_block_rows"] << i for i in range(6)])
        self.assertLessEqual(shape["query_tile"], 256)
        self.assertIn(shape["caches_from"], {"sysconf", "/sys/devices/system/cpu/cpu0/cache", "default"})
        self.assertEqual(shape["product_strip_columns"] % shape["vector_numbers"], 0)
        self.assertIn("Tiles chosen for this machine:", result.stdout)
        for goal in document["goals"]:
            self.assertIn(goal["verdict"], {"met", "not met", "too close to call", "no data"})
            self.assertEqual(goal["met"], {"met": True, "not met": False}.get(goal["verdict"]))
        # The causal goal, as the chapter states it: at the largest n, the causal kernel's whole spread
        # below 0.6 times the unmasked kernel's.
        self.assertEqual(document["causal_goal_share"], 0.6)
        rows = {row["method"]: row for row in document["rows"] if row["n"] == 64}
        share_of_unmasked = [0.6 * seconds for seconds in rows["streaming"]["seconds_spread"]]
        causal = next(goal for goal in document["goals"] if goal["name"] == "causal_half")
        self.assertEqual(causal["verdict"], {"faster": "met", "slower": "not met"}.get(
            spread_rule(rows["streaming_causal"]["seconds_spread"], share_of_unmasked), "too close to call"))

        yardsticks = document["yardsticks"]
        self.assertEqual(yardsticks["peak_one_thread"]["gflops"], document["peak_gflops_one_thread"])
        self.assertGreaterEqual(yardsticks["peak_one_thread"]["doubles"], yardsticks["peak_one_thread"]["build_doubles"])
        self.assertEqual(yardsticks["eigen_dgemm_threads"], 1)
        if SANITIZE:
            return  # every memory access checked: no rate here says anything about the processor
        # The peak is a peak: no method, and neither dgemm, passed it (a rate above it would be a bug, listed here).
        self.assertEqual(document["rates_above_peak"], [])
        for row in document["rows"]:
            peak = document["peak_gflops_one_thread"] if row["threads"] == 1 else document["peak_gflops"]
            self.assertLessEqual(row["gflops"], peak)
        self.assertLessEqual(yardsticks["eigen_dgemm_gflops"], document["peak_gflops_one_thread"])
        if document["numpy"]["available"]:
            self.assertLessEqual(yardsticks["numpy_dgemm_gflops"], document["peak_gflops"])

    def test_the_books_memory_counts_follow_the_tiles(self):
        # What the chapter says of the build's run's memory, 8 bytes a number. The teaching version keeps four n × n
        # matrices ("at n = 16384 the four matrices of 8-byte doubles need 8 GiB"). The streaming kernel keeps the
        # tiles each thread works on, whose size does not depend on n, and the keys and the values packed, d numbers
        # per key and d per value (the answer to question 2): from one n to another it grows by 2 · d numbers a
        # token, whole strips when n and d are multiples of the strip's width. Tile sizes and threads are this
        # machine's; none of this depends on them.
        document = published_run("fast_attention_benchmark")
        d, strip = document["d"], document["tiles"]["product_strip_columns"]
        memory = document["memory_at_16384"]
        self.assertEqual(memory["teaching_bytes"], 4 * memory["n"] ** 2 * 8)
        self.assertEqual(memory["teaching_gib"], 8)  # 2² · 2²⁸ · 2³ bytes
        self.assertLess(memory["percent"], 2)  # the goal: "at most 2 %" of the teaching version's
        # Step 3 keeps the same tiles without packing anything, plus Eigen's workspace: below the packed kernel by
        # at least the packed keys and values.
        self.assertLessEqual(memory["eigen_products_kib"] * 1024, memory["streaming_bytes"] - 8 * 2 * memory["n"] * d)
        # The figure of memory against n: "The causal streaming kernel allocates the same buffers as the streaming
        # kernel, and the two buffered versions the same as each other"; with Eigen's products the kernel "stays
        # flat", with its own it grows as n (by 2 · d numbers a token); the buffered versions hold an n × n buffer.
        tiles_alone, flat = set(), set()
        for n in document["n"]:
            rows = {row["method"]: row["peak_extra_bytes"] for row in document["rows"] if row["n"] == n}
            with self.subTest(n=n):
                self.assertEqual((n % strip, d % strip), (0, 0))  # no strip padded
                self.assertEqual(rows["streaming_causal"], rows["streaming"])
                self.assertEqual(rows["buffered_vectorised_exp"], rows["buffered"])
                self.assertGreaterEqual(rows["buffered"], n * n * 8)
                self.assertGreaterEqual(rows["teaching"], 4 * n * n * 8)
            tiles_alone.add(rows["streaming"] - 8 * 2 * n * d)
            flat.add(rows["streaming_eigen_products"])
        tiles_alone.add(memory["streaming_bytes"] - 8 * 2 * memory["n"] * d)
        self.assertEqual(len(tiles_alone), 1, tiles_alone)  # the same tiles at every n, 16384 too
        self.assertGreater(tiles_alone.pop(), 0)
        self.assertEqual(flat, {memory["eigen_products_kib"] * 1024})

    def test_the_books_speed_goals_are_judged_at_its_longest_n_alone(self):
        # Chapter 12: "Speed goals are judged only at n = …, the run's longest". The NumPy goals are judged at every
        # n of at least 1024, so the sentence holds while the book's run has one such n, its longest; each speed
        # goal's detail names the lengths it was judged at.
        document = published_run("fast_attention_benchmark")
        longest = document["at_largest_n"]["n"]
        self.assertEqual(longest, max(document["n"]))
        self.assertEqual([n for n in document["n"] if n >= 1024], [longest])
        judged_at = [set(re.findall(r"n = (\d+)", goal["detail"])) for goal in document["goals"]]
        self.assertEqual([lengths for lengths in judged_at if lengths], [{str(longest)}] * 4)  # all but memory's

    def test_in_float_the_kernel_and_numpy_in_float32(self):
        result, document = tables_and_document("--n", "16,64", "--d", "8", "--reps", "2", "--precision", "float")
        self.assertEqual(document["precision"], "float")
        methods = {"streaming_float", "tile_products_only_float"}
        if document["numpy"]["available"]:
            methods.add("numpy_float32")
            self.assertEqual(document["numpy"]["dtype"], "float32")  # NumPy's attention stayed in float32
            self.assertIn("NumPy float32", result.stdout)
        self.assertIn("streaming, float", result.stdout)
        # The peak line is the doubles', which a rate in float may pass: the line says so.
        self.assertIn("multiply-add peak in doubles, 1 thread", result.stdout)
        self.assertNotIn("multiply-add peak, 1 thread", result.stdout)
        for n in (16, 64):
            rows = {row["method"]: row for row in document["rows"] if row["n"] == n}
            self.assertEqual(set(rows), methods)
            for row in rows.values():
                self.assertEqual(row["precision"], "float")
            # Float's rounding over at most 64 keys of width 8: a few hundred times 2^-24 = 6e-8 at most (the
            # library's tests derive the bound), against the double kernel's output.
            self.assertLess(rows["streaming_float"]["difference_from_teaching"], 1e-4)
            self.assertEqual(rows["streaming_float"]["difference_from"], "the double streaming kernel")
            self.assertGreater(rows["streaming_float"]["difference_from_teaching"], 0.0)  # float, not double
        self.assertEqual({goal["name"] for goal in document["goals"]},
                         {"float_streaming_vs_numpy_float32", "float_streaming_1_5x_numpy_float32",
                          "products_at_half_peak", "memory_at_16384", "causal_half"})
        if not SANITIZE:  # in float the peak is twice the doubles'
            for row in document["rows"]:
                peak = document["peak_gflops_one_thread"] if row["threads"] == 1 else document["peak_gflops"]
                self.assertLessEqual(row["gflops"], 2 * peak)

    def test_a_rate_above_the_peak_is_reported_instead_of_printed(self):
        # A peak faked far too low: every rate passes it.
        result, document = tables_and_document("--n", "32", "--d", "4", "--reps", "1", "--no-numpy",
                                               env={"BOOK_PEAK_GFLOPS": "1e-6"})
        self.assertEqual(len(document["rates_above_peak"]), 7 + 1)  # the seven methods and Eigen's dgemm
        for row in document["rows"]:
            self.assertTrue(row["above_peak"])
            self.assertIsNone(row["gflops"])
            self.assertIsNone(row["peak_fraction"])
        self.assertIsNone(document["yardsticks"]["eigen_dgemm_gflops"])
        self.assertIsNone(document["ratios"][0]["streaming_peak_percent"])
        goals = {goal["name"]: goal for goal in document["goals"]}
        self.assertEqual(goals["products_at_half_peak"]["verdict"], "no data")
        self.assertIn("Rates above the measured peak, not shown", result.stdout)
        self.assertIn("streaming at n = 32:", result.stdout)
        table = [line for line in result.stdout.splitlines() if line.startswith("    32  ")]
        self.assertEqual(len(table), 7)
        for line in table:
            self.assertIn("> peak", line)

    def test_a_method_over_the_memory_limit_is_skipped_and_says_so(self):
        result, document = tables_and_document("--n", "600", "--d", "4", "--reps", "1", "--memory-limit", "0.005",
                                               "--no-numpy")
        rows = {row["method"]: row for row in document["rows"]}
        self.assertIsNone(rows["teaching"]["seconds_median"])
        self.assertIn("--memory-limit", rows["teaching"]["skipped"])
        self.assertEqual(document["skipped"][0]["method"], "teaching")
        self.assertIsNotNone(rows["streaming"]["seconds_median"])
        self.assertNotIn("numpy", rows)
        self.assertEqual(document["numpy"], {"available": False, "reason": "--no-numpy was given",
                                             "description": "not timed: --no-numpy was given"})
        self.assertIn("Skipped teaching at n = 600", result.stdout)

    def test_a_python_that_cannot_run_is_reported(self):
        document = json.loads(run("--n", "8", "--d", "2", "--reps", "1", "--python", "/bin/false", "--json").stdout)
        self.assertFalse(document["numpy"]["available"])
        # The child's exit status as the shell gives it, not the raw wait status (256 for 1).
        self.assertIn("/bin/false exited with status 1:", document["numpy"]["reason"])
        self.assertIn("NumPy was not timed", document["summary"])
        self.assertIsNone(document["yardsticks"]["numpy_dgemm_gflops"])

    def test_numpy_is_given_the_runs_thread_count(self):
        # Chapter 12's fold on how NumPy is run: it "sets OPENBLAS_NUM_THREADS (and OMP_NUM_THREADS,
        # MKL_NUM_THREADS) to the same number of threads". The Python given here is a shell script that writes the
        # environment it was started with to a file and exits 1; the test's own environment sets the three to 99,
        # so a value seen is the program's, not one passed through.
        variables = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
        counts = [1, 2] if len(os.sched_getaffinity(0)) >= 2 else [1]  # --threads 2 only where it is allowed
        with tempfile.TemporaryDirectory() as folder:
            seen_file, python = os.path.join(folder, "environment"), os.path.join(folder, "python")
            with open(python, "w") as file:
                file.write(f"#!/bin/sh\nenv > {seen_file}\nexit 1\n")
            os.chmod(python, 0o755)
            for threads in counts:
                with self.subTest(threads=threads):
                    if os.path.exists(seen_file):
                        os.remove(seen_file)
                    result = start_alone("--n", "8", "--d", "2", "--reps", "1", "--threads", str(threads),
                                         "--python", python, "--json", environment=dict.fromkeys(variables, "99"))
                    self.assertEqual(result.returncode, 0, result.stderr)
                    self.assertIn(f"{python} exited with status 1:", json.loads(result.stdout)["numpy"]["reason"])
                    with open(seen_file) as file:
                        seen = dict(line.split("=", 1) for line in file.read().splitlines() if "=" in line)
                    self.assertEqual({name: seen.get(name) for name in variables},
                                     dict.fromkeys(variables, str(threads)))


class LongRuns(ProgramTest):
    def on_a_terminal(self, *arguments):
        """What the program writes on stderr when stderr is a terminal (stdout goes to a pipe), and its JSON."""
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "run.json")
            status, _, seen = harness.on_a_terminal(harness.PROGRAM, [*arguments, "--json-file", path])
            self.assertEqual(status, 0)
            with open(path) as file:
                return seen, json.load(file)

    def test_progress_on_a_terminal(self):
        shown, _ = self.on_a_terminal("--n", "64,128", "--d", "4", "--reps", "2", "--no-numpy")
        self.assertIn("\rn = 64 (1 of 2), first calls:", shown)
        self.assertIn("n = 128 (2 of 2), repetition 2 of 2:", shown)
        self.assertIn("left", shown)  # once the first length is timed, the time left is estimated

    @unittest.skipIf(SANITIZE, "a long sweep times n = 1024 first: minutes with every memory access checked")
    def test_a_long_sweep_says_how_long_it_will_take(self):
        # A length of 4096 makes a long sweep; d = 1 and a tiny memory limit keep it short here.
        shown, document = self.on_a_terminal("--n", "4096", "--d", "1", "--reps", "1", "--no-numpy",
                                             "--memory-limit", "0.01")
        self.assertRegex(shown.splitlines()[0], r"^This sweep will take about \d+ (s|min)")
        # The line states the document's estimate. How close an estimate comes to the time the run then takes
        # depends on what else the machine does meanwhile: no test holds it to that.
        estimate = document["estimated_seconds"]
        self.assertGreater(estimate, 0)
        if estimate < 59.5:
            self.assertIn(f"about {estimate:.0f} s", shown.splitlines()[0])

    @unittest.skipIf(SANITIZE, "the sanitizers reserve more address space than the limit allows")
    def test_memory_the_machine_does_not_give_is_refused_in_one_line(self):
        # The buffered version's 8192 × 8192 scores, 537 MB, within --memory-limit but not within the process's
        # address space, limited here to 400 MB.
        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (400 << 20, 400 << 20))
        result = start_alone("--n", "8192", "--d", "1", "--reps", "1", "--no-numpy", "--memory-limit", "1",
                             preexec_fn=limited)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertIn("--memory-limit", result.stderr)
        self.assertIn("n = 8192", result.stderr)
        self.assertEqual(result.stdout, "")

    @unittest.skipIf(len(os.sched_getaffinity(0)) < 2, "needs two processors to leave one out")
    def test_threads_are_counted_on_the_processors_this_process_may_use(self):
        def one_processor():
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        result = start_alone("--n", "64", "--threads", "2", "--no-numpy", preexec_fn=one_processor)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--threads", result.stderr)
        self.assertIn("expected 1 to 1", result.stderr)

    @unittest.skipIf(len(os.sched_getaffinity(0)) < 2, "needs two processors for --threads 2")
    def test_only_the_streaming_kernels_and_numpy_use_the_second_thread(self):
        # Chapter 12, the fold on the full sweep: "In the second command, only the streaming kernels and NumPy use the
        # second thread; the other methods run on one". The streaming kernels are steps 3 to 5 (the table's
        # "streaming, Eigen", "streaming", "streaming, causal"); the teaching and buffered versions and the tile
        # products alone are not given the thread count.
        _, document = tables_and_document("--n", "64", "--d", "8", "--threads", "2", "--reps", "1")
        threads = {row["method"]: row["threads"] for row in document["rows"]}
        two = {"streaming_eigen_products", "streaming", "streaming_causal"}
        if document["numpy"]["available"]:
            two.add("numpy")
        self.assertEqual({method for method, count in threads.items() if count == 2}, two)
        self.assertEqual({method: count for method, count in threads.items() if method not in two},
                         dict.fromkeys({"teaching", "buffered", "buffered_vectorised_exp", "tile_products_only"}, 1))


class BadInput(ProgramTest):
    def test_bad_input_is_refused(self):
        cpus = len(os.sched_getaffinity(0))
        memory_gb = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1e9
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
            (["--n", "64", "--memory-limit", f"{memory_gb * 1.01:.6g}"], "--memory-limit"),  # more than the machine has
            (["--n", "65536", "--d", "1", "--memory-limit", "1024", "--no-numpy", "--reps", "1"], "--memory-limit"),
            (["--n", "64", "--python", "python3; rm -rf x"], "--python"),
            (["--n", "64", "--python", "/nonexistent/python"], "--python"),  # cannot run: refused before timing
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
            (["--n", "64", "--precision", "half"], "--precision"),
            (["--precision", "float"], "--precision"),  # only with --n
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--n", "--threads", "--reps", "--tile", "--memory-limit", "this machine's memory", "--precision",
                               "processors this process may run on", "takes several minutes")


if __name__ == "__main__":
    unittest.main()
