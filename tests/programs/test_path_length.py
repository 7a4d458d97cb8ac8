"""build/bin/path_length, chapter 7: path lengths, sequential steps and multiply-adds counted on
dependency graphs, and one self-attention layer timed against one recurrent layer."""
import itertools
import os
import unittest
from pathlib import Path

import numpy as np

from harness import WIDE_PROCESSOR_NAME, ProgramTest, kept_tables_and_json, published_run, run, run_json, spread_rule
from chapter_runs import chapter_runs  # tools/, on the path harness set

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "07_path_length"
LAYERS = ["self_attention", "recurrent", "bidirectional_recurrent", "convolutional", "convolutional_dilated",
          "restricted_self_attention"]
RECURRENT = ("recurrent", "bidirectional_recurrent")
# The longest sequence of the chapter's "try it", n = 512, takes about 15 s under the sanitizers (every memory
# access checked): there the same run goes to n = 128, through the same code.
LONGEST = 128 if os.environ.get("BOOK_SANITIZE", "0") == "1" else 512

# Table 1 of the paper (arXiv 1706.03762 v7), typed from the paper: complexity per
# layer, sequential operations, maximum path length. A citation, not a computation.
TABLE_1 = {
    "self_attention": ("O(n²·d)", "O(1)", "O(1)"),
    "recurrent": ("O(n·d²)", "O(n)", "O(n)"),
    "convolutional": ("O(k·n·d²)", "O(1)", "O(logₖ(n))"),
    "restricted_self_attention": ("O(r·n·d)", "O(1)", "O(n/r)"),
}


# An independent reimplementation: one layer as a boolean matrix reads[i, j] (output i
# reads input j), a stack as a product of such matrices. It shares no code with the program.
def convolution(n: int, kernel: int, dilation: int = 1) -> np.ndarray:
    i, j = np.indices((n, n))
    offset = j - i
    half = (kernel - 1) // 2
    return (offset % dilation == 0) & (np.abs(offset) <= half * dilation)


def restricted(n: int, radius: int) -> np.ndarray:
    i, j = np.indices((n, n))
    return np.abs(i - j) <= radius


def dilations(n: int, kernel: int):
    """1, k, k², … while below n, then again from 1: the chapter's stack of dilated convolutions."""
    powers = [1]
    while powers[-1] * kernel < n:
        powers.append(powers[-1] * kernel)
    level = 0
    while True:
        yield powers[level % len(powers)]
        level += 1


def stack_depth(layers) -> tuple[int, list[np.ndarray]]:
    """How many layers until every output depends on every input, and the layers used."""
    used = []
    reach = None
    for layer in layers:
        used.append(layer)
        reach = layer if reach is None else (layer.astype(int) @ reach.astype(int)) > 0
        if reach.all():
            return len(used), used
        if len(used) > 10_000:
            raise AssertionError("never connects")


def expected_rows(n: int, d: int, kernel: int, radius: int) -> dict:
    """layer → (layers, max path, sequential steps, multiply-adds of one layer, of the stack, connected pairs,
    edges of one layer, multiply-adds of an edge)."""
    # An edge of attention is q_i · k_j and then w_ij v_j, 2d multiply-adds; any other edge is a d × d matrix
    # times a vector, d².
    rows = {
        # Every output reads every input: n² edges.
        "self_attention": (1, 1, 1, 2 * n * n * d, 2 * n * n * d, n * n, n * n, 2 * d),
        # x_1 → h_1 → … → h_n: n edges; h_0 → h_1 → … → h_n: n steps; output t sees inputs 1 … t.
        # Each h_t reads x_t and h_{t−1}: 2n edges.
        "recurrent": (1, n, n, 2 * n * d * d, 2 * n * d * d, n * (n + 1) // 2, 2 * n, d * d),
        # A chain each way and a read-out y_t = A h→_t + B h←_t: six d × d products per position, six edges.
        # x_1 → h→_1 → … → h→_n → y_n: n + 1 edges, and as many steps; every output sees every input.
        "bidirectional_recurrent": (1, n + 1, n + 1, 6 * n * d * d, 6 * n * d * d, n * n, 6 * n, d * d),
    }
    per_edge = {"convolutional": d * d, "convolutional_dilated": d * d, "restricted_self_attention": 2 * d}
    stacks = {
        "convolutional": itertools.repeat(convolution(n, kernel)),
        "convolutional_dilated": (convolution(n, kernel, dilation) for dilation in dilations(n, kernel)),
        "restricted_self_attention": itertools.repeat(restricted(n, radius)),
    }
    for name, layers in stacks.items():
        depth, used = stack_depth(layers)
        # Every edge of a stack climbs one layer, so every path from the bottom to the top has `depth` edges.
        rows[name] = (depth, depth, 1, int(used[0].sum()) * per_edge[name],
                      sum(int(layer.sum()) for layer in used) * per_edge[name], n * n, int(used[0].sum()),
                      per_edge[name])
    return rows


class CountedAgainstNumPy(ProgramTest):
    def check(self, lengths: list[int], d: int, kernel: int, radius: int):
        document = run_json("--n", ",".join(map(str, lengths)), "--d", str(d), "--kernel", str(kernel),
                            "--radius", str(radius), "--no-timing")
        self.assertEqual(document["n"], lengths)
        self.assertEqual((document["d"], document["kernel"], document["radius"]), (d, kernel, radius))
        self.assertEqual(document["neighborhood"], 2 * radius + 1)
        self.assertEqual(len(document["rows"]), len(LAYERS) * len(lengths))
        self.assertIsNone(document["timing"])
        for index, n in enumerate(lengths):
            expected = expected_rows(n, d, kernel, radius)
            for row in document["rows"][index * len(LAYERS):(index + 1) * len(LAYERS)]:
                with self.subTest(n=n, layer=row["layer"], kernel=kernel, radius=radius):
                    self.assertEqual(row["n"], n)
                    layers, path, steps, operations, stack_operations, connected, edges, per_edge = \
                        expected[row["layer"]]
                    self.assertEqual(row["layers"], layers)
                    self.assertEqual(row["max_path_length"], path)
                    self.assertEqual(row["sequential_steps"], steps)
                    self.assertEqual(row["stack_sequential_steps"], steps if row["layer"] in RECURRENT else layers)
                    self.assertEqual(row["operations"], operations)
                    self.assertEqual(row["stack_operations"], stack_operations)
                    self.assertEqual(row["connected_pairs"], connected)
                    self.assertEqual(row["pairs"], n * n)
                    self.assertEqual((row["edges"], row["operations_per_edge"]), (edges, per_edge))
                    last = {"recurrent": [n - j for j in range(n)],
                            "bidirectional_recurrent": [n + 1 - j for j in range(n)]}.get(row["layer"], [path] * n)
                    self.assertEqual(row["paths_to_last_output"], last)
                    if row["layer"] == "convolutional_dilated":  # the gaps of the stack the NumPy one stacked
                        gaps = list(itertools.islice(dilations(n, kernel), layers))
                        self.assertEqual(row["dilations"], gaps)
                        # Away from the ends, each layer's taps reach (k − 1)/2 of its gaps further each way.
                        self.assertEqual(row["reach"], list(itertools.accumulate((kernel - 1) // 2 * gap
                                                                                 for gap in gaps)))
                    else:
                        self.assertNotIn("dilations", row)
                        self.assertNotIn("reach", row)
            self.assertEqual([row["layer"] for row in document["rows"][index * len(LAYERS):(index + 1) * len(LAYERS)]],
                             LAYERS)

    def test_short_sequences_with_the_default_kernel_and_radius(self):
        self.check(list(range(1, 33)), 512, 3, 2)

    def test_other_kernels_radii_and_widths(self):
        for kernel, radius, d in [(3, 1, 1), (5, 2, 8), (7, 3, 64), (9, 1, 3), (5, 7, 2)]:
            self.check([1, 2, 5, 9, 13, 27, 40], d, kernel, radius)

    def test_the_drawn_graphs_join_what_each_definition_joins(self):
        # --draw: one layer of each type of Table 1 at the first n, the dilated convolution's second layer
        # (taps k apart). Each graph's edges between positions are those of the matrices above; the recurrent
        # layer's are x_t → h_t and h_(t−1) → h_t, from a state h_0 that holds no position.
        for n, kernel, radius in ((8, 3, 2), (1, 3, 1), (16, 5, 3)):
            with self.subTest(n=n, kernel=kernel, radius=radius):
                document = run_json("--n", f"{n},4", "--kernel", str(kernel), "--radius", str(radius),
                                    "--no-timing", "--draw")
                drawn = document["drawn"]
                self.assertEqual(drawn["n"], n)
                layers = {layer["layer"]: layer for layer in drawn["layers"]}
                self.assertEqual(list(layers), [name for name in LAYERS if name != "bidirectional_recurrent"])
                expected = {"self_attention": np.ones((n, n), dtype=bool),
                            "convolutional": convolution(n, kernel),
                            "convolutional_dilated": convolution(n, kernel, next(itertools.islice(
                                dilations(n, kernel), 1, None))),
                            "restricted_self_attention": restricted(n, radius)}
                for name, reads in expected.items():
                    layer = layers[name]
                    self.assertEqual(layer["nodes"], 2 * n)
                    position = {node: i for i, node in enumerate(layer["inputs"])}
                    output = {node: i for i, node in enumerate(layer["outputs"])}
                    drawn_reads = np.zeros((n, n), dtype=bool)
                    for source, to in layer["edges"]:
                        drawn_reads[output[to], position[source]] = True
                    self.assertEqual(len(layer["edges"]), int(reads.sum()), name)  # no edge twice
                    np.testing.assert_array_equal(drawn_reads, reads, err_msg=name)
                self.assertEqual(layers["convolutional_dilated"]["dilation"], kernel if kernel < n else 1)
                recurrent = layers["recurrent"]
                self.assertEqual(recurrent["nodes"], 2 * n + 1)
                start = (set(range(2 * n + 1)) - set(recurrent["inputs"]) - set(recurrent["outputs"])).pop()
                states = [start, *recurrent["outputs"]]
                self.assertCountEqual(map(tuple, recurrent["edges"]),
                                      [(recurrent["inputs"][t], states[t + 1]) for t in range(n)]
                                      + [(states[t], states[t + 1]) for t in range(n)])
        self.assertNotIn("drawn", run_json("--n", "8", "--no-timing"))

    def test_longer_sequences(self):
        self.check([64, 100, 128], 512, 3, 4)

    def test_the_lengths_of_the_books_sweep(self):
        # The sweep the chapter's figure and prose read (runs "path_length_sweep"): the lengths the tests above
        # do not already count at k = 3, R = 2.
        swept = chapter_runs(CHAPTER)["path_length_sweep"]  # its arguments, a plain list
        lengths = [int(n) for n in swept[swept.index("--n") + 1].split(",")]
        counted = set(range(1, 33))
        self.check([n for n in lengths if n not in counted], 512, 3, 2)

    def test_the_lengths_the_book_invites(self):
        # The chapter's "try it": --n 8,64,512 --kernel 7, a little more graph search than n = 512 alone.
        # One run, for the tables and (--json-file) the JSON: n = 512 takes about a second.
        printed, document = kept_tables_and_json("--n", f"8,64,{LONGEST}", "--kernel", "7", "--no-timing")
        self.assertEqual((document["n"], document["kernel"], document["radius"]), ([8, 64, LONGEST], 7, 2))
        expected = {n: expected_rows(n, 512, 7, 2) for n in (8, 64)}
        for row in document["rows"]:
            n = row["n"]
            with self.subTest(n=n, layer=row["layer"]):
                if n in expected:
                    self.assertEqual(row["layers"], expected[n][row["layer"]][0])
                    continue
                # n = LONGEST, by closed forms: a contiguous stack widens the reach by (k − 1)/2 = 3 positions
                # a layer (radius R = 2 for restricted attention) until it spans the n − 1 between the ends.
                layers = {"self_attention": 1, "recurrent": 1, "bidirectional_recurrent": 1,
                          "convolutional": -(-(n - 1) // 3), "restricted_self_attention": -(-(n - 1) // 2)}
                if row["layer"] in layers:
                    self.assertEqual(row["layers"], layers[row["layer"]])
                self.assertEqual(row["max_path_length"], {"recurrent": n, "bidirectional_recurrent": n + 1}.get(
                    row["layer"], row["layers"]))
                self.assertEqual(row["connected_pairs"], n * (n + 1) // 2 if row["layer"] == "recurrent" else n * n)
        # The table's columns stay aligned when "connected/pairs" is wider than its heading.
        block = printed.split(f"\nn = {LONGEST}\n")[1].split("\n\n")[0].splitlines()
        end = block[1].index("pairs") + len("pairs")
        for line in block[2:]:
            self.assertEqual(line.index("/") + len(line[line.index("/"):].split()[0]), end, line)


class WorkedExample(ProgramTest):
    def test_the_fifty_word_sentence(self):
        document = run_json("--no-timing")  # n = 50, d = 512, k = 3, R = 2 are the defaults
        self.assertEqual((document["n"], document["d"], document["kernel"], document["radius"]), ([50], 512, 3, 2))
        rows = {row["layer"]: row for row in document["rows"]}
        self.assertEqual(rows["self_attention"]["max_path_length"], 1)
        self.assertEqual(rows["recurrent"]["max_path_length"], 50)
        # The hand-worked lesson: word 2 → word 50 of a 50-word sentence, nearly 50 steps back: 49 edges.
        self.assertEqual(rows["recurrent"]["paths_to_last_output"][1], 49)
        self.assertEqual(rows["self_attention"]["paths_to_last_output"][1], 1)
        self.assertEqual(rows["convolutional"]["layers"], 49)  # ⌈49 / 1⌉: one position each way per layer
        self.assertEqual(rows["restricted_self_attention"]["layers"], 25)  # ⌈49 / 2⌉
        # The dilated stack: gaps 1, 3, 9, 27 (the powers of 3 below 50), then 1, 3, 9 again. With k = 3 each
        # layer reaches one gap further each way: 1, 4, 13, 40, 41, 44, 53. The last output must reach 49
        # positions back; six layers reach 44, seven 53.
        self.assertEqual(rows["convolutional_dilated"]["dilations"], [1, 3, 9, 27, 1, 3, 9])
        self.assertEqual(rows["convolutional_dilated"]["reach"], [1, 4, 13, 40, 41, 44, 53])
        self.assertEqual(rows["convolutional_dilated"]["layers"], 7)
        # "A layer with a wider gap has more of its taps in the padding, so it costs less: the whole dilated stack
        # counts … less than 7 times its figure in the table." A gap-g layer of k = 3 reads 3n − 2g inputs for
        # g < n (NumPy's matrices above count them), each edge a d × d product.
        dilated = rows["convolutional_dilated"]
        edges = [int(convolution(50, 3, gap).sum()) for gap in dilated["dilations"]]
        self.assertEqual(edges, [3 * 50 - 2 * gap for gap in dilated["dilations"]])
        self.assertEqual(dilated["stack_operations"], sum(edges) * 512 ** 2)
        self.assertEqual(dilated["operations"], edges[0] * 512 ** 2)
        self.assertLess(dilated["stack_operations"], dilated["layers"] * dilated["operations"])
        # The attention core, 2·n²·d, against the recurrence, 2·n·d²: n/d of it.
        self.assertEqual(rows["self_attention"]["operations"], 2 * 50 * 50 * 512)
        self.assertEqual(rows["recurrent"]["operations"], 2 * 50 * 512 * 512)
        self.assertEqual(rows["self_attention"]["projection_operations"], 3 * 50 * 512 * 512)

    def test_the_sweep_rows_the_prose_reads(self):
        # "At n = 32 the gaps reach 40 after 4 layers, yet the search needs 7. At n = 96 they reach 121 after 5,
        # yet it needs 9 … At n = 5 the dilated stack needs 3 layers, not the 2 that (3² − 1)/2 = 4 would
        # suggest." The prose reads rows 94, 130 and 28 of the book's sweep: they must stay the dilated stack at
        # those lengths, and the sum of the gaps must reach n − 1 in fewer layers than the search needs (the
        # search's counts are NumPy's, test_the_lengths_of_the_books_sweep).
        rows = published_run("path_length_sweep")["rows"]
        for index, n, summed_layers in [(94, 32, 4), (130, 96, 5), (28, 5, 2)]:
            row = rows[index]
            with self.subTest(n=n):
                self.assertEqual((row["layer"], row["n"]), ("convolutional_dilated", n))
                gaps = list(itertools.islice(dilations(n, 3), summed_layers))
                self.assertEqual(row["reach"][summed_layers - 1], sum(gaps))
                self.assertGreaterEqual(sum(gaps), n - 1)  # "the gaps reach" n − 1 …
                self.assertGreater(row["layers"], summed_layers)  # … "yet the search needs" more

    def test_the_citations_of_table_1(self):
        rows = {row["layer"]: row for row in run_json("--no-timing", "--n", "3")["rows"]}
        for layer, (complexity, sequential, path) in TABLE_1.items():
            self.assertEqual(rows[layer]["table1"], {"complexity": complexity, "sequential": sequential, "path": path})
        self.assertEqual(rows["convolutional_dilated"]["table1"], rows["convolutional"]["table1"])
        self.assertEqual(rows["convolutional"]["paper_path"], "O(n/k), §4")
        self.assertEqual(rows["bidirectional_recurrent"]["paper_path"], "not in Table 1")
        # The chapter's prose types the same table.
        prose = (CHAPTER / "index.rst").read_text()
        for complexity, sequential, path in TABLE_1.values():
            for entry in (complexity, sequential, path):
                self.assertIn(entry, prose)

    def test_the_tables_show_the_same_numbers(self):
        document = run_json("--no-timing", "--n", "7,50")
        printed = run("--no-timing", "--n", "7,50").stdout
        # The table's row labels, shorter than the JSON's names so that the columns read first fit a phone's page.
        labels = {"self_attention": "self-attention", "recurrent": "recurrent",
                  "bidirectional_recurrent": "recurrent, 2 ways", "convolutional": "convolution",
                  "convolutional_dilated": "dilated conv.", "restricted_self_attention": "restricted attn."}
        blocks = printed.split("\nn = ")[1:]
        self.assertEqual(len(blocks), 2)
        for block, n in zip(blocks, [7, 50]):
            self.assertTrue(block.startswith(f"{n}\n"))
            for row in (row for row in document["rows"] if row["n"] == n):
                line = next(line for line in block.splitlines() if line.startswith(labels[row["layer"]] + " "))
                fields = line[len(labels[row["layer"]]):].split()
                self.assertEqual(fields[:6], [str(row["max_path_length"]), f"{row['connected_pairs']}/{row['pairs']}",
                                              str(row["layers"]), str(row["sequential_steps"]),
                                              str(row["stack_sequential_steps"]), f"{row['operations']:,}"])


class Timing(ProgramTest):
    """Timings are shown, never asserted: only the block's shape, its counted figures, and that every verdict
    follows from the medians and spreads of the same run by the chapter's rule."""

    def test_the_timing_report_keeps_its_width_on_any_machine(self):
        document = self.assert_report_keeps_its_width("--time-n", "4,8", "--d", "16", "--n", "3")
        self.assertEqual(document["timing"]["machine"], WIDE_PROCESSOR_NAME)

    def test_the_timing_block(self):
        document = run_json("--time-n", "8,4,16,8", "--d", "16", "--n", "3")
        timing = document["timing"]
        self.assertEqual(timing["clock"], "std::chrono::steady_clock")
        self.assertEqual((timing["d"], timing["repeats"], timing["sweep"], timing["threads"]), (16, 7, "custom", 1))
        self.assertIsInstance(timing["machine"], str)
        self.assertEqual([row["n"] for row in timing["rows"]], [4, 8, 16])  # sorted, repeats dropped
        for row in timing["rows"]:
            n = row["n"]
            for layer in ("attention", "recurrent"):
                samples = sorted(row[layer]["samples"])
                self.assertEqual(len(samples), 7)
                self.assertTrue(all(seconds > 0 for seconds in samples))
                # The median by its definition (NumPy's); the spread is the 2nd to the 6th of 7, as the chapter says.
                self.assertEqual(row[layer]["median"], np.median(samples))
                self.assertEqual((row[layer]["spread_low"], row[layer]["spread_high"]), (samples[1], samples[5]))
            attention = np.median(row["attention"]["samples"])
            recurrent = np.median(row["recurrent"]["samples"])
            self.assertEqual((row["attention_seconds"], row["recurrent_seconds"]), (attention, recurrent))
            self.assertEqual(row["attention_operations"], 2 * n * n * 16)
            self.assertEqual(row["recurrent_operations"], 2 * n * 16 * 16)
            self.assertEqual(row["operations_ratio"], n / 16)
            # A rate is the work, counted here from n and d = 16, over the median time.
            self.assertAlmostEqual(row["attention_rate"] * 1e9 * attention, 2 * n * n * 16, delta=1e-12 * n * n * 32)
            self.assertAlmostEqual(row["recurrent_rate"] * 1e9 * recurrent, 2 * n * 16 * 16,
                                   delta=1e-12 * n * 16 * 32)
            # Time is work over speed: the time ratio times the rate ratio is the work ratio, n / d.
            self.assertAlmostEqual(row["time_ratio"], attention / recurrent, delta=1e-12 * attention / recurrent)
            self.assertAlmostEqual(row["time_ratio"] * row["rate_ratio"], n / 16, delta=1e-12 * n / 16)
            self.assertEqual(row["score_matrix_bytes"], 8 * n * n)
        self.assertEqual(timing["hidden_weights_bytes"], 8 * 16 * 16)
        self.assertEqual(timing["at_width"], timing["rows"][2])  # n = d = 16
        self.check_comparison(timing)

    def check_comparison(self, timing):
        """The comparison the program wrote is the rule applied to its own medians and spreads: recomputed here."""
        rows = timing["rows"]
        expected = []
        for row in rows:
            attention, recurrent = ((row[layer]["spread_low"], row[layer]["spread_high"])
                                    for layer in ("attention", "recurrent"))
            expected.append({"faster": "self_attention", "slower": "recurrent"}.get(
                spread_rule(attention, recurrent), "too_close"))
        self.assertEqual([row["faster"] for row in rows], expected)
        decided = [(row["n"], faster) for row, faster in zip(rows, expected) if faster != "too_close"]
        crossings = [{"below_n": a, "above_n": b, "faster_below": fa, "faster_above": fb}
                     for (a, fa), (b, fb) in zip(decided, decided[1:]) if fa != fb]
        comparison = timing["comparison"]
        self.assertEqual(comparison["crossings"], crossings)
        self.assertEqual(comparison["crossing_count"], len(crossings))
        self.assertEqual(comparison["too_close_at"], [row["n"] for row, f in zip(rows, expected) if f == "too_close"])
        verdicts = {faster for _, faster in decided}
        self.assertEqual(comparison["verdict"], "crosses" if crossings else
                         "self_attention_faster" if verdicts == {"self_attention"} else
                         "recurrent_faster" if verdicts == {"recurrent"} else "too_close_to_call")
        summary = comparison["summary"]
        for crossing in crossings:
            self.assertIn(f"between n = {crossing['below_n']} and {crossing['above_n']}", summary)
        if not crossings:
            self.assertNotIn("cross once", summary)
        for n in comparison["too_close_at"]:
            self.assertIn("too close to call", summary)

    def test_the_default_run_is_short(self):
        # What a reader types with no arguments answers within a couple of seconds (here at a small d).
        timing = run_json("--d", "32", "--n", "2")["timing"]
        self.assertEqual([row["n"] for row in timing["rows"]], [64, 128, 256, 512])
        self.assertEqual((timing["repeats"], timing["sweep"]), (7, "short"))
        full = run_json("--sweep", "full", "--d", "8", "--n", "2")["timing"]
        self.assertEqual([row["n"] for row in full["rows"]], [16, 32, 64, 128, 192, 256, 384, 512, 768, 1024])
        self.assertEqual(full["sweep"], "full")
        self.check_comparison(full)

    def test_the_printed_tables_and_summary_come_from_the_same_run_as_the_json(self):
        printed, document = kept_tables_and_json("--n", "6", "--d", "8", "--time-n", "4,8,300")
        self.assertEqual(document["n"], [6])
        timing = document["timing"]
        self.check_comparison(timing)
        # Each timed row's printed median is the JSON's, in milliseconds, and so is its verdict.
        words = {"self_attention": "self-attention", "recurrent": "recurrent", "too_close": "too close to call"}
        for row in timing["rows"]:
            line = next(line for line in printed.splitlines() if line.split()[:1] == [str(row["n"])])
            printed_ms = float(line.split()[1])
            # Printed to 3 significant digits: within half a unit of the third, 0.5 % at most.
            self.assertAlmostEqual(printed_ms, row["attention_seconds"] * 1000, delta=printed_ms * 0.005 + 1e-9)
            self.assertTrue(line.endswith(words[row["faster"]]), line)
        # The summary is printed as the JSON has it, wrapped.
        self.assertIn(timing["comparison"]["summary"], " ".join(printed.split()))
        self.assertIn("are equal at n = d = 8", printed)
        self.assertIn("median of 7 repetitions", printed)

    def test_no_timing_prints_no_timing(self):
        self.assertNotIn("Timed on this machine", run("--no-timing", "--n", "4").stdout)

    def test_the_book_shows_no_verdict_of_its_own(self):
        """Chapter 7 states which layer was faster, and where the curves cross, only through the run's JSON."""
        prose = (CHAPTER / "index.rst").read_text()
        self.assertTrue(":value:`path_length:/timing/comparison/summary`" in prose, "the verdict is not read from the run")
        for typed in ("cross near", "faster up to", "slower from", "stays below", "stays above"):
            self.assertFalse(typed in prose, f"typed by hand: {typed!r}")
        runs = chapter_runs(CHAPTER)
        arguments = runs["path_length"]["arguments"]
        self.assertTrue(runs["path_length"]["json_file"])  # tables and JSON from one run
        self.assertNotIn("--repeats", arguments)  # the default, at least 7


class BadInput(ProgramTest):
    def test_each_bad_input_is_refused_with_one_line(self):
        cases = [
            (["--n", "0"], "--n: entry 1 is 0, too small; expected a whole number from 1 to 512"),
            (["--n", "513"], "--n: entry 1 is 513, too large"),
            (["--n", "abc"], "--n: entry 1 is 'abc', not a whole number"),
            (["--n", ""], "--n: empty list"),
            (["--n", "5,,6"], "--n: entry 2 is empty"),
            (["--n", "-3"], "--n: entry 1 is -3, negative"),
            (["--n", ",".join(["2"] * 33)], "--n: more than 32 entries"),
            (["--n", "512,400"], "--n: the lengths need about"),
            (["--n", "512,251"], "more than the 150000000 a run may take"),
            (["--d", "0"], "--d is 0, too small"),
            (["--d", "4097"], "--d is 4097, too large"),
            (["--d", "1.5"], "--d is '1.5', not a whole number"),
            (["--kernel", "4"], "--kernel is 4, even"),
            (["--kernel", "1"], "--kernel is 1, too small; expected a whole number from 3 to 511"),
            (["--kernel", "513"], "--kernel is 513, too large"),
            (["--radius", "0"], "--radius is 0, too small"),
            (["--radius", "x"], "--radius is 'x', not a whole number"),
            (["--time-n", "0"], "--time-n: entry 1 is 0, too small"),
            (["--time-n", "4096"], "--time-n: entry 1 is 4096, too large"),
            (["--repeats", "6"], "--repeats is 6, too small; expected a whole number from 7 to 15"),
            (["--repeats", "16"], "--repeats is 16, too large"),
            (["--time-n", ",".join(["8"] * 13)], "--time-n: more than 12 entries"),
            (["--time-n", "2048", "--d", "512"], "--time-n, --d and --repeats: timing would take"),
            (["--time-n", "128", "--d", "4096"], "--time-n, --d and --repeats: timing would take"),
            (["--sweep", "full", "--repeats", "15"], "--time-n, --d and --repeats: timing would take"),
            (["--sweep", "long"], "--sweep is 'long'; expected short or full"),
            (["--sweep", "full", "--time-n", "8"], "--sweep"),
            (["--no-timing", "--sweep", "full"], "--no-timing"),
            (["--no-timing", "--repeats", "9"], "--no-timing"),
            (["--no-timing", "--time-n", "8"], "--no-timing"),
            (["--n", "17,8", "--no-timing", "--draw"], "--draw: the first length of --n is 17; a drawn graph has at most 16"),
            (["--frobnicate"], "--frobnicate"),
            (["--n"], "--n"),
            (["--json", "extra"], "extra"),
            (["--json", "--json-file", "x.json"], "--json"),
            (["--no-timing", "--json-file", "/no/such/folder/run.json"], "--json-file: cannot write the file"),
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--n", "--d", "--kernel", "--radius", "--sweep", "short|full", "--time-n", "--repeats",
                               "7 to 15", "--no-timing", "--draw", "at most 16", "--json",
                               "--json-file")

    def test_help_states_every_limit_of_the_lengths(self):
        # Each refusal of --n has its limit in --help: the range of each n, the count, and the graph search.
        self.assert_help_lists("each 1 to 512, at most 32", "the sum of n³ over them may be at most 150000000")


if __name__ == "__main__":
    unittest.main()
