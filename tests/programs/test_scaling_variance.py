"""build/bin/scaling_variance, chapter 2: the variance of q·k, before and after dividing by √d_k."""
import functools
import math
import unittest

import numpy as np

from harness import ProgramTest, published_run, run, run_json

# An independent reimplementation of the experiment in NumPy. It shares no code
# with the C++ program and computes the stream another way: mulberry32's state
# after n draws is seed + n·0x6D2B79F5 (mod 2³²), so the whole stream can be
# made at once from the state sequence instead of one draw at a time.
GOLDEN = 0x6D2B79F5
MASK = 0xFFFFFFFF


def mulberry32(seed: int, start: int, count: int) -> np.ndarray:
    """Outputs start, start + 1, … of mulberry32 seeded with seed, as uint32."""
    n = np.arange(start + 1, start + count + 1, dtype=np.uint64)
    a = ((np.uint64(seed) + n * np.uint64(GOLDEN)) & np.uint64(MASK)).astype(np.uint32)
    t = (a ^ (a >> np.uint32(15))) * (a | np.uint32(1))
    t = (t + ((t ^ (t >> np.uint32(7))) * (t | np.uint32(61)))) ^ t
    return t ^ (t >> np.uint32(14))


def normals(seed: int, start: int, count: int) -> np.ndarray:
    """count standard normals by Box–Muller (cosine branch), from uniforms start, start + 1, …"""
    u = mulberry32(seed, start, 2 * count).astype(np.float64) / 2.0**32
    u1, u2 = u[0::2].copy(), u[1::2]
    u1[u1 == 0.0] = 2.0**-33  # the program reads a first uniform of 0 as 2⁻³³
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def experiment(seed: int, samples: int, widths: list[int]):
    """Rows (dk, mean, population variance, variance / dk) and the dot products of each row. Kept for the
    tests that ask again (the book's run takes about a second to draw); the arrays are not to be changed."""
    return experiment_of(seed, samples, tuple(widths))


@functools.cache
def experiment_of(seed: int, samples: int, widths: tuple[int, ...]):
    rows, dot_products, used = [], [], 0
    for width in widths:
        z = normals(seed, used, 2 * samples * width).reshape(samples, width, 2)  # q₁, k₁, q₂, k₂, …
        used += 4 * samples * width
        x = (z[:, :, 0] * z[:, :, 1]).sum(axis=1)
        variance = float(np.mean((x - x.mean()) ** 2))
        rows.append((width, float(x.mean()), variance, variance / width))
        dot_products.append(x)
    return rows, dot_products


def typical_swing(width: int, samples: int) -> float:
    """How far the scaled variance typically lands from 1 over seeds, in theory: √((2 + 6/d_k) / N)."""
    return math.sqrt((2 + 6 / width) / samples)


class Reimplementation(unittest.TestCase):
    """The NumPy stream itself, against the JavaScript test vector of tests/unit/test_random.cpp."""

    def test_it_gives_the_javascript_outputs(self):
        self.assertEqual(mulberry32(1, 0, 8).tolist(), [2693262067, 11749833, 2265367787, 4213581821, 4159151403,
                                                         1207330352, 2632122864, 3095568220])
        self.assertEqual(mulberry32(1, 5, 3).tolist(), [1207330352, 2632122864, 3095568220])
        self.assertEqual(mulberry32(2463401483, 0, 2).tolist(), [0, 1144304738])


class PublishedFigure(ProgramTest):
    # The six numbers of the hand-worked lesson's Figure 1 (seed 1, 4000 samples, d_k = 2, 64, 512),
    # printed there to four decimals: an independent source.
    PUBLISHED = [(2, "1.9705", "0.9853"), (64, "63.3198", "0.9894"), (512, "496.5016", "0.9697")]

    def check(self, document):
        self.assertEqual(document["seed"], 1)
        self.assertEqual(document["samples"], 4000)
        self.assertEqual(len(document["rows"]), 3)
        for row, (width, raw, scaled) in zip(document["rows"], self.PUBLISHED):
            with self.subTest(dk=width):
                self.assertEqual(row["dk"], width)
                self.assertEqual(f"{row['var_raw']:.4f}", raw)
                self.assertEqual(f"{row['var_scaled']:.4f}", scaled)

    def test_the_defaults_are_the_published_run(self):
        self.check(run_json())

    def test_the_published_run_spelled_out(self):
        self.check(run_json("--seed", "1", "--samples", "4000", "--dk", "2,64,512"))

    def test_the_tables_show_the_same_numbers(self):
        # Two tables, one above the other, each with a line per d_k that begins with it: q·k (d_k, mean,
        # variance, theory), then q·k/√d_k (d_k, variance, theory, ± typical).
        widths = [str(width) for width, _, _ in self.PUBLISHED]
        rows = [line.split() for line in run().stdout.splitlines() if line.split()[:1] in [[w] for w in widths]]
        self.assertEqual([row[0] for row in rows], widths + widths)
        for (width, raw, scaled), raw_row, scaled_row in zip(self.PUBLISHED, rows[:3], rows[3:]):
            self.assertEqual(raw_row[2:4], [raw, str(width)])
            self.assertEqual(scaled_row[1:3], [scaled, "1"])


class AgreesWithNumPy(ProgramTest):
    def assert_agrees(self, seed: int, samples: int, widths: list[int]):
        document = run_json("--seed", str(seed), "--samples", str(samples), "--dk", ",".join(map(str, widths)))
        expected, dot_products = experiment(seed, samples, widths)
        self.assertEqual([row["dk"] for row in document["rows"]], widths)
        for row, (width, mean, variance, scaled), x in zip(document["rows"], expected, dot_products):
            with self.subTest(seed=seed, samples=samples, dk=width):
                # The sums are added in another order here (NumPy adds pairwise), so agreement is to rounding.
                self.assertAlmostEqual(row["mean_raw"], mean, delta=1e-12 * width)
                self.assertTrue(math.isclose(row["var_raw"], variance, rel_tol=1e-9), (row["var_raw"], variance))
                self.assertTrue(math.isclose(row["var_scaled"], scaled, rel_tol=1e-9), (row["var_scaled"], scaled))
                # Chapter 2, "measuring the divided dot products would give the same numbers": the variance of
                # q·k/√d_k, measured here, against the one the program computes from the first column.
                measured = float(np.var(x / np.sqrt(width)))
                self.assertTrue(math.isclose(row["var_scaled"], measured, rel_tol=1e-12), (row["var_scaled"], measured))
                self.assertEqual(row["sd_raw"], math.sqrt(row["var_raw"]))
                self.assertEqual(row["sd_gap_theory"], math.sqrt(2 * width))
                self.assertAlmostEqual(row["mean_sd_theory"], math.sqrt(width / samples), delta=1e-15)
                self.assertAlmostEqual(row["swings_from_theory"], abs(scaled - 1) / typical_swing(width, samples),
                                       delta=1e-6)
                self.assertEqual(row["var_theory"], width)
                self.assertEqual(row["var_scaled_theory"], 1)
                self.assertAlmostEqual(row["var_scaled_sd"], typical_swing(width, samples), delta=1e-15)
                # The band the figures draw: two typical swings either side of 1.
                self.assertAlmostEqual(row["two_swings_low"], 1 - 2 * typical_swing(width, samples), delta=1e-15)
                self.assertAlmostEqual(row["two_swings_high"], 1 + 2 * typical_swing(width, samples), delta=1e-15)
        return document, dot_products

    def test_the_published_run(self):
        self.assert_agrees(1, 4000, [2, 64, 512])

    def test_the_published_seeds_lie_between_one_and_two_swings_below_1(self):
        """The chapter counts swings at the widest d_k: seed 1 and seed 2 each lie more than one typical swing
        below 1 and less than two, both the same way. Counted here from NumPy's variances."""
        for seed in (1, 2):
            document = run_json("--seed", str(seed), "--samples", "4000", "--dk", "2,64,512")
            expected, _ = experiment(seed, 4000, [2, 64, 512])
            scaled = expected[2][3]
            swings = (1 - scaled) / typical_swing(512, 4000)
            with self.subTest(seed=seed):
                self.assertTrue(1 < swings < 2, swings)
                self.assertAlmostEqual(document["rows"][2]["swings_from_theory"], swings, delta=1e-6)

    def test_the_other_widths_run_lands_its_widest_width_past_two_swings(self):
        """The chapter's "other widths" command (seed 1, --dk 1,4,16,256,4096) is its example of a correct run
        that lands more than two typical swings from 1, at d_k = 4096. Counted here from NumPy's variance."""
        widths = [1, 4, 16, 256, 4096]
        document = run_json("--dk", ",".join(map(str, widths)))
        expected, _ = experiment(1, 4000, widths)
        swings = abs(expected[4][3] - 1) / typical_swing(4096, 4000)
        self.assertTrue(2 < swings < 3, swings)
        self.assertAlmostEqual(document["rows"][4]["swings_from_theory"], swings, delta=1e-6)

    def test_the_gap_between_two_scores_has_variance_two_d_k(self):
        """What sd_gap_theory rests on, drawn in NumPy: q·k₁ − q·k₂ for one query and two independent keys has
        variance 2·d_k. The measured variance over 40,000 draws lands within 5 of its standard errors, √(2/N)
        relative for a normal variable (about 0.7 % here; the gap is a sum of 64 products, close to normal)."""
        rng = np.random.default_rng(2)
        width, draws = 64, 40_000
        q, k1, k2 = (rng.standard_normal((draws, width)) for _ in range(3))
        gaps = np.einsum("ij,ij->i", q, k1) - np.einsum("ij,ij->i", q, k2)
        self.assertLess(abs(gaps.var() / (2 * width) - 1), 5 * math.sqrt(2 / draws))

    def test_the_mean_of_n_dot_products_swings_by_the_root_of_d_k_over_n(self):
        """What mean_sd_theory rests on, drawn in NumPy: the mean of N dot products of width d_k, repeated over
        4,000 draws of the N, has standard deviation √(d_k/N). The measured one lands within 5 of its standard
        errors, √(1/(2·draws)) relative for a normal variable (about 1.1 % here)."""
        rng = np.random.default_rng(5)
        width, samples, draws = 16, 50, 4_000
        q, k = (rng.standard_normal((draws, samples, width)) for _ in range(2))
        means = np.einsum("dsi,dsi->ds", q, k).mean(axis=1)
        self.assertLess(abs(means.std() / math.sqrt(width / samples) - 1), 5 * math.sqrt(1 / (2 * draws)))

    def test_the_published_means_lie_within_one_swing_of_0(self):
        """The chapter says each row's mean in the book's run (the defaults) lies within one typical swing of 0;
        counted from NumPy's means, for the seed, samples and widths the run reports."""
        document = run_json()
        seed, samples, widths = document["seed"], document["samples"], document["dk"]
        expected, _ = experiment(seed, samples, widths)
        for width, mean, _, _ in expected:
            with self.subTest(dk=width):
                self.assertLess(abs(mean), math.sqrt(width / samples))

    def test_no_dot_product_of_the_books_run_falls_outside_the_bars(self):
        """The figure's caption: "In this run 0 dot products fall left of the bars and 0 right of them, so the bars'
        total area is 1". Counted here from NumPy's dot products of the run's own seed, samples and widths, at the
        histogram's d_k, against the ends of its bars."""
        run = published_run("scaling_variance")
        histogram = run["histogram"]
        _, dot_products = experiment(run["seed"], run["samples"], run["dk"])
        scaled = dot_products[run["dk"].index(histogram["dk"])] / math.sqrt(histogram["dk"])
        first, last = histogram["edges_scaled"][0], histogram["edges_scaled"][-1]
        self.assertEqual((histogram["below"], histogram["above"]),
                         (int(np.sum(scaled < first)), int(np.sum(scaled >= last))))
        self.assertEqual((histogram["below"], histogram["above"]), (0, 0))

    def test_other_seeds_sizes_and_widths(self):
        for seed, samples, widths in [(2, 4000, [2, 64, 512]), (0, 300, [1, 3, 17, 100]), (4294967295, 50, [7]),
                                      (20170612, 1000, [512, 64, 2]), (12345, 2, [5, 5, 5]), (99, 2, [3])]:
            self.assert_agrees(seed, samples, widths)

    def test_a_first_uniform_of_zero(self):
        # Seed 2463401483's first output is 0: the very first u₁ is 0, read as 2⁻³³.
        document, _ = self.assert_agrees(2463401483, 20, [1, 4])
        self.assertTrue(all(math.isfinite(row["var_raw"]) for row in document["rows"]))

    def test_the_histogram(self):
        seed, samples, widths = 3, 2000, [8, 300, 40]
        document, dot_products = self.assert_agrees(seed, samples, widths)
        histogram = document["histogram"]
        self.assertEqual(histogram["dk"], 300)  # the largest d_k, wherever it stands in the list
        scaled = dot_products[1] / math.sqrt(300)
        edges = np.linspace(-4, 4, 33)
        np.testing.assert_allclose(histogram["edges_scaled"], edges, rtol=0, atol=1e-15)
        np.testing.assert_allclose(histogram["edges_raw"], edges * math.sqrt(300), rtol=1e-15, atol=1e-13)
        self.assertEqual(histogram["counts"], np.histogram(scaled, bins=edges)[0].tolist())
        self.assertEqual(histogram["below"], int(np.sum(scaled < -4)))
        self.assertEqual(histogram["above"], int(np.sum(scaled >= 4)))
        self.assertEqual(sum(histogram["counts"]) + histogram["below"] + histogram["above"], samples)


class Properties(ProgramTest):
    def test_one_continuous_stream(self):
        first = run_json("--dk", "2")["rows"]
        both = run_json("--dk", "2,64")["rows"]
        alone = run_json("--dk", "64")["rows"]
        self.assertEqual(both[0], first[0])  # the same draws, bit for bit
        self.assertNotEqual(both[1]["var_raw"], alone[0]["var_raw"])  # d_k = 64 continues the stream
        # and the default run begins with exactly those two rows
        self.assertEqual(run_json()["rows"][:2], both)

    def test_another_seed_moves_every_measured_number(self):
        # The chapter on the run with --seed 2: "Every measured number moved". The two runs the page shows.
        first, second = published_run("scaling_variance"), published_run("scaling_variance_reseed")
        self.assertEqual([row["dk"] for row in first["rows"]], [row["dk"] for row in second["rows"]])
        for row, other in zip(first["rows"], second["rows"]):
            for key in ("mean_raw", "var_raw", "var_scaled"):
                with self.subTest(dk=row["dk"], key=key):
                    self.assertNotEqual(row[key], other[key])

    def test_ten_times_the_samples_crosses_1_at_the_widest_width(self):
        # The chapter's Try it: at d_k = 512 "the scaled variance went from …, below 1, to …, above: it crossed 1".
        # The two lie some 1.4 and 2 typical swings from 1, on draws that are the same on every machine.
        before = published_run("scaling_variance")["rows"][2]
        after = published_run("scaling_variance_samples")["rows"][2]
        self.assertEqual((before["dk"], after["dk"]), (512, 512))
        self.assertLess(before["var_scaled"], 1)
        self.assertGreater(after["var_scaled"], 1)

    def test_the_longer_run_lies_just_beyond_two_swings(self):
        # Chapter 2, "The longer run's scaled variance lies 2.001 swings out, just beyond two": the count from the
        # published variance and the typical swing's formula, and the key the sentence prints. A failure means the
        # sentence must change.
        row = published_run("scaling_variance_samples")["rows"][2]
        self.assertEqual(row["dk"], 512)
        swings = (row["var_scaled"] - 1) / typical_swing(512, 40000)
        self.assertTrue(2 < swings < 2.05, swings)
        self.assertTrue(2 < row["swings_from_theory"] < 2.05, row["swings_from_theory"])
        self.assertAlmostEqual(row["swings_from_theory"], swings, delta=1e-9)

    def test_a_repeated_width_draws_new_numbers(self):
        rows = run_json("--dk", "16,16", "--samples", "500")["rows"]
        self.assertNotEqual(rows[0]["var_raw"], rows[1]["var_raw"])

    def test_the_same_seed_gives_the_same_numbers(self):
        self.assertEqual(run_json("--seed", "7", "--samples", "100"), run_json("--seed", "7", "--samples", "100"))

    def test_spaces_and_a_plus_sign_are_accepted(self):
        self.assertEqual(run_json("--seed", " +1 ", "--dk", " 2 , 64,512 "), run_json())

    def test_the_typical_swing_is_what_the_seeds_show(self):
        # var_scaled_sd claims the spread of var_scaled from seed to seed, √((2 + 6/d_k) / N).
        # Measure that spread over 300 seeds with the reimplementation: within 15 %
        # (the estimate from 300 seeds is good to about 5 %).
        samples, widths = 400, [2, 32]
        measured = np.array([[row[3] for row in experiment(seed, samples, widths)[0]] for seed in range(300)])
        claimed = [row["var_scaled_sd"] for row in run_json("--samples", str(samples), "--dk", "2,32")["rows"]]
        for spread, claim in zip(measured.std(axis=0), claimed):
            self.assertLess(abs(spread / claim - 1), 0.15, (spread, claim))
        self.assertLess(abs(measured.mean() - 1), 0.02)

    def test_the_histogram_flag(self):
        printed = run("--histogram", "--dk", "2,16", "--samples", "100").stdout
        self.assertIn("The distribution of q·k at d_k = 16 (100 samples)", printed)
        counts = [int(line.split(")")[-1].split()[0]) for line in printed.splitlines() if line.startswith("[")]
        self.assertEqual(counts, run_json("--dk", "2,16", "--samples", "100")["histogram"]["counts"])


class Caps(ProgramTest):
    """Every run the program accepts answers within a couple of seconds in the release build: at most
    25 million products q·k (about 5 s at the old cap of 100 million). --help says what the caps are."""

    CAP = 25_000_000

    def test_help_states_the_caps(self):
        self.assert_help_lists("from 2 (one sample's variance is always 0) to 1000000", f"may be at most {self.CAP}",
                               "each 1 to 100000, at most 16")

    def test_ten_times_the_samples_as_the_book_invites(self):
        # The chapter's "try it": --samples 40000 at the default widths, 23 120 000 products.
        document = run_json("--samples", "40000")
        default = run_json()
        self.assertEqual((document["samples"], document["dk"]), (40000, [2, 64, 512]))
        # The first width's draws are the start of the stream: the NumPy reimplementation gives them.
        (dk, mean, variance, scaled), = experiment(1, 40000, [2])[0]
        first = document["rows"][0]
        np.testing.assert_allclose([first["mean_raw"], first["var_raw"], first["var_scaled"]],
                                   [mean, variance, scaled], rtol=1e-9, atol=1e-12)
        # "Ten times the samples shrink the ± typical column by √10."
        for row, before in zip(document["rows"], default["rows"]):
            self.assertAlmostEqual(row["var_scaled_sd"] * math.sqrt(10), before["var_scaled_sd"], places=12)
            self.assertLess(abs(row["var_scaled"] - 1), 4 * row["var_scaled_sd"])

    def test_one_product_more_than_the_cap_is_refused(self):
        # The last two: the chapter's "why not ten times the samples at that width" says the program refuses
        # ten times the samples with its other widths, and at d_k = 4096 alone.
        for samples, widths in [(1_000_000, "26"), (100_001, "250"), (25_001, "2,64,512,422"), (250, "100000,1"),
                                (40_000, "1,4,16,256,4096"), (40_000, "4096")]:
            total = samples * sum(int(w) for w in widths.split(","))
            with self.subTest(samples=samples, dk=widths):
                self.assertGreater(total, self.CAP)
                self.assert_refused(["--samples", str(samples), "--dk", widths],
                                    f"products, more than the {self.CAP} a run may take")


class BadInput(ProgramTest):
    def test_each_bad_input_is_refused_with_one_line(self):
        cases = [
            (["--seed", "abc"], "--seed is 'abc', not a whole number; expected a whole number from 0 to 4294967295"),
            (["--seed", "-1"], "--seed is -1, negative"),
            (["--seed", "4294967296"], "--seed is 4294967296, too large; expected a whole number from 0 to 4294967295"),
            (["--seed", "1.5"], "--seed is '1.5', not a whole number"),
            (["--seed", "0x10"], "--seed is '0x10', not a whole number"),
            (["--seed", ""], "--seed is empty"),
            (["--seed", "99999999999999999999999"], "--seed is 99999999999999999999999, too large"),
            (["--samples", "0"], "--samples is 0, too small; expected a whole number from 2 to 1000000"),
            (["--samples", "-5"], "--samples is -5, negative"),
            (["--samples", "1000001"], "--samples is 1000001, too large"),
            (["--samples", "4e3"], "--samples is '4e3', not a whole number"),
            (["--dk", ""], "--dk: empty list"),
            (["--dk", "2,,64"], "--dk: entry 2 is empty"),
            (["--dk", "2,64,"], "--dk: entry 3 is empty"),
            (["--dk", "0"], "--dk: entry 1 is 0, too small; expected a whole number from 1 to 100000"),
            (["--dk", "2,-64"], "--dk: entry 2 is -64, negative"),
            (["--dk", "100001"], "--dk: entry 1 is 100001, too large"),
            (["--dk", "2;64"], "--dk: entry 1 is '2;64', not a whole number"),
            (["--dk", "2.5"], "--dk: entry 1 is '2.5', not a whole number"),
            (["--dk", ",".join(["1"] * 17)], "--dk: more than 16 entries"),
            (["--samples", "1000000", "--dk", "512"], "--samples and --dk: 1000000 samples × 512"),
            (["--frobnicate"], "--frobnicate"),  # unknown flag
            (["--seed"], "--seed"),  # missing value
            (["--json", "extra"], "extra"),
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--seed", "--samples", "--dk", "--histogram", "--json")


if __name__ == "__main__":
    unittest.main()
