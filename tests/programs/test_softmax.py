"""build/bin/softmax, chapter 3: softmax, the weighted sum, and the saturation demo."""
import math
import sys
import unittest

import numpy as np

from harness import ProgramTest, published_run, run, run_json


def matrix_text(matrix: np.ndarray) -> str:
    return ";".join(",".join(repr(float(x)) for x in row) for row in matrix)


def numpy_softmax(scores: np.ndarray) -> np.ndarray:
    """Row softmax, written here from the definition (shifted by the row max), not from the program."""
    scores = np.atleast_2d(scores)
    exponentials = np.exp(scores - scores.max(axis=1, keepdims=True))
    return exponentials / exponentials.sum(axis=1, keepdims=True)


def numpy_attention(queries, keys, values, scale=True, causal=False):
    scores = queries @ keys.T
    if scale:
        scores = scores / math.sqrt(queries.shape[1])
    if causal:  # token i sees tokens 0 … i: −∞ above the diagonal
        scores = np.where(np.tri(*scores.shape, dtype=bool), scores, -np.inf)
    weights = numpy_softmax(scores)
    return weights, weights @ values


class ToyAgainstTheSeed(ProgramTest):
    """The hand-worked lesson works the toy by hand and prints every value to 3 or 4 decimals."""

    def setUp(self):
        self.document = run_json()

    def assert_close(self, actual, expected, places):
        np.testing.assert_allclose(np.array(actual, dtype=float), np.array(expected, dtype=float),
                                   rtol=0, atol=0.5 * 10 ** -places)

    def test_scaled_scores(self):
        # √2 rounded to 3 places is 1.414, and √2 / 2 is 0.707.
        self.assert_close(self.document["scaled_scores"],
                          [[1.414, 0, 0.707], [0, 0.707, 0.707], [1.414, 0.707, 1.414]], 3)

    def test_exponentials_and_their_sums(self):
        self.assert_close(self.document["exponentials"][0], [4.113, 1, 2.028], 3)
        # The seed's sums of the unrounded terms: 7.141, 5.056 and 10.255 (not 10.254, the sum of rounded terms).
        self.assert_close(self.document["exponential_sums"], [7.141, 5.056, 10.255], 3)

    def test_weights(self):
        self.assert_close(self.document["weights"],
                          [[0.576, 0.140, 0.284], [0.198, 0.401, 0.401], [0.401, 0.198, 0.401]], 3)

    def test_outputs(self):
        self.assert_close(self.document["output"], [[0.718, 0.282], [0.398, 0.602], [0.602, 0.398]], 3)

    def test_rows_sum_to_1_and_columns_as_the_seed_gives_them(self):
        self.assert_close(self.document["row_sums"], [1, 1, 1], 12)
        self.assert_close(self.document["column_sums"], [1.175, 0.739, 1.086], 3)
        self.assertAlmostEqual(sum(self.document["column_sums"]), 3, places=12)  # n rows of 1 each

    def test_smallest_weight_is_not_zero(self):
        self.assertEqual(self.document["zero_weights"], 0)
        self.assert_close(self.document["smallest_weight"], 0.140, 3)
        self.assertEqual(self.document["smallest_weight_at"], [0, 1])  # cat asks eat

    def test_unscaled_as_the_seeds_figure_4(self):
        unscaled = self.document["unscaled"]
        self.assertEqual(unscaled["scaled_scores"], [[2, 0, 1], [0, 1, 1], [2, 1, 2]])
        self.assert_close(unscaled["weights"],
                          [[0.665, 0.090, 0.245], [0.155, 0.422, 0.422], [0.422, 0.155, 0.422]], 3)
        self.assert_close(unscaled["output"], [[0.788, 0.212], [0.367, 0.633], [0.633, 0.367]], 3)

    def test_top_level_is_the_scaled_run_and_no_scale_swaps_it(self):
        self.assertTrue(self.document["scale"])
        self.assertEqual(self.document["weights"], self.document["scaled"]["weights"])
        self.assertEqual(self.document["output"], self.document["scaled"]["output"])
        unscaled = run_json("--no-scale")
        self.assertFalse(unscaled["scale"])
        self.assertEqual(unscaled["weights"], self.document["unscaled"]["weights"])
        self.assertEqual(unscaled["output"], self.document["unscaled"]["output"])
        self.assertEqual(unscaled["scaled_scores"], unscaled["scores"])

    def test_the_tables_show_the_seeds_numbers(self):
        printed = run().stdout
        # Rounded once, to 4 decimals, with trailing zeros dropped.
        self.assertIn("cat    4.1133        1   2.0281   7.1414", printed)
        self.assertIn("column sum   1.1749   0.7389   1.0862        3", printed)
        self.assertIn("cat    0.718   0.282", printed)
        self.assertIn("weights exactly 0: none", printed)
        self.assertIn("2. Scale: QKᵀ / √d_k, with d_k = 2 and √d_k = 1.4142", printed)
        self.assertIn("2. Scale: off (--no-scale)", run("--no-scale").stdout)


class SaturationAgainstTheSeed(ProgramTest):
    """The hand-worked lesson, Figure 2: (8, 4, 0) against (8, 4, 0) / 8, adding 0.5 to slot two on both sides."""

    def setUp(self):
        self.demo = run_json("--scores", "8,4,0", "--divide", "8", "--add", "0.5")["saturation"]

    def test_the_defaults_are_the_seeds(self):
        self.assertEqual(run_json("--add", "0.5"), {"saturation": self.demo})
        self.assertEqual(run_json("--scores", "8,4,0"), {"saturation": self.demo})

    def test_slot_two_moves_as_the_seed_says(self):
        slot_two = self.demo["slot_two"]
        self.assertEqual(round(slot_two["large_before"], 4), 0.0180)
        self.assertEqual(round(slot_two["large_after"], 4), 0.0293)
        self.assertEqual(round(slot_two["divided_before"], 4), 0.3072)
        self.assertEqual(round(slot_two["divided_after"], 4), 0.4223)

    def test_largest_weights_and_the_tie(self):
        largest = self.demo["largest"]
        self.assertEqual(largest["large"]["slots"], [1])
        self.assertEqual(round(largest["large"]["weight"], 4), 0.9817)
        self.assertEqual(largest["divided"]["slots"], [1])
        self.assertEqual(round(largest["divided"]["weight"], 4), 0.5065)
        # (1, 0.5, 0) + 0.5 at slot two is (1, 1, 0): slots one and two tie exactly.
        self.assertEqual(self.demo["divided_added"], [1, 1, 0])
        self.assertEqual(largest["divided_added"]["slots"], [1, 2])
        self.assertEqual(self.demo["weights_divided_added"][0], self.demo["weights_divided_added"][1])
        # Closed form: softmax(1, 1, 0) = (e, e, 1) / (2e + 1).
        self.assertAlmostEqual(largest["divided_added"]["weight"], math.e / (2 * math.e + 1), places=15)

    def test_sensitivity_is_w_times_1_minus_w(self):
        sensitivity = self.demo["sensitivity"]
        # The digest's check: 0.01766 and 0.21283.
        self.assertAlmostEqual(sensitivity["large"], 0.01766, places=5)
        self.assertAlmostEqual(sensitivity["divided"], 0.21283, places=5)

        # A sensitivity is how fast slot two's weight moves as its score moves: a central difference of NumPy's
        # softmax says so without the closed form. Per unit of the large scores, the score moved is 8's, not 1's.
        def slope(divide: float, step: float = 1e-5) -> float:
            def weight(shift: float) -> float:
                return numpy_softmax(np.array([8.0, 4.0 + shift, 0.0]) / divide)[0][1]
            return (weight(step) - weight(-step)) / (2 * step)

        self.assertAlmostEqual(sensitivity["large"], slope(1), delta=1e-9)
        self.assertAlmostEqual(sensitivity["divided"], 8 * slope(8), delta=1e-9)
        self.assertAlmostEqual(sensitivity["divided_per_unit_of_scores"], slope(8), delta=1e-9)

    def test_textbook_and_stable_agree_on_small_scores(self):
        textbook = self.demo["textbook"]
        self.assertAlmostEqual(textbook["exponentials"][0], math.exp(8), places=9)
        np.testing.assert_allclose(textbook["weights"], textbook["stable_weights"], rtol=1e-14)
        self.assertEqual(textbook["shifted_exponentials"][0], 1.0)

    def test_the_sweep(self):
        sweep = self.demo["sweep"]
        self.assertEqual(len(sweep), 41)
        self.assertEqual(sweep[0]["add"], 0)
        self.assertEqual(sweep[-1]["add"], 2)
        self.assertEqual(sweep[0]["weights_large"], self.demo["weights_large"])
        self.assertEqual(sweep[10]["add"], 0.5)
        self.assertEqual(sweep[10]["weights_divided"], self.demo["weights_divided_added"])
        for point in sweep:
            scores = np.array([8, 4 + point["add"], 0])
            np.testing.assert_allclose(point["weights_large"], numpy_softmax(scores)[0], rtol=1e-13)
            np.testing.assert_allclose(point["weights_divided"], numpy_softmax(np.array([1, 0.5, 0]) + [0, point["add"], 0])[0],
                                       rtol=1e-13)
        # Slot two's weight only grows with what is added to its score.
        for side in ("weights_large", "weights_divided"):
            slot_two = [point[side][1] for point in sweep]
            self.assertEqual(slot_two, sorted(slot_two))
        # The figure's alt text: on the large side "slot one keeps the largest weight over the whole range"; on the
        # divided side slot two's weight "at an added amount of one half crosses slot one's". The divided scores are
        # (1, 0.5 + add, 0): slot two's is below slot one's before 0.5 and above it after.
        for point in sweep:
            with self.subTest(add=point["add"]):
                self.assertEqual(int(np.argmax(point["weights_large"])), 0)
                slot_one, slot_two = point["weights_divided"][:2]
                if point["add"] < 0.5:
                    self.assertLess(slot_two, slot_one)
                elif point["add"] > 0.5:
                    self.assertGreater(slot_two, slot_one)

    def test_the_sweep_takes_in_an_add_outside_0_to_2(self):
        self.assertEqual(run_json("--add", "5")["saturation"]["sweep"][-1]["add"], 5)
        sweep = run_json("--add", "-3")["saturation"]["sweep"]
        self.assertEqual((sweep[0]["add"], sweep[-1]["add"]), (-3, 2))

    def test_the_tables(self):
        printed = run("--add", "0.5").stdout
        self.assertIn("Slot two, adding 0.5:\n  large    0.018 → 0.0293 (+0.0113)\n"
                      "  divided  0.3072 → 0.4223 (+0.1151)\n", printed)
        self.assertIn("  divided  slot 1 (0.5065)\n           → slots 1 and 2 tie (0.4223)\n", printed)
        self.assertIn("  large    0.0177\n  divided  0.2128 (per unit of s: 0.0266)\n", printed)
        self.assertIn("s / 8, slot 2 + 0.5       1       1       0\n", printed)


class WhatGoesWrongWithoutTheShift(ProgramTest):
    def test_huge_scores(self):
        textbook = run_json("--scores", "1000,0")["saturation"]["textbook"]
        # e^1000 overflows: inf / inf is NaN; 1 / inf is 0.
        self.assertEqual(textbook["exponentials"], ["inf", 1.0])
        self.assertEqual(textbook["weights"], ["NaN", 0.0])
        # e^(0 − 1000) underflows to exactly 0, so the stable weights are exactly (1, 0).
        self.assertEqual(textbook["stable_weights"], [1.0, 0.0])
        self.assertIn("textbook e^s / Σ e^s      NaN       0", run("--scores", "1000,0").stdout)

    def test_exact_zeros_do_not_depend_on_the_length_of_the_row(self):
        # Eigen's vectorised exp never returns 0; the program must, whatever the build vectorises.
        scores = [-1000 - k for k in range(17)]
        textbook = run_json("--scores", ",".join(map(str, scores)))["saturation"]["textbook"]
        self.assertEqual(textbook["exponentials"], [0.0] * 17)
        self.assertEqual(textbook["weights"], ["NaN"] * 17)
        self.assertEqual(textbook["shifted_exponentials"][16], math.exp(-16))
        document = run_json("--q", "1", "--k", ";".join(["-800"] * 9), "--v", ";".join(["1"] * 9), "--no-scale")
        self.assertEqual(document["exponentials"], [[0.0] * 9])

    def test_very_negative_scores(self):
        textbook = run_json("--scores", "-1000,-1001")["saturation"]["textbook"]
        self.assertEqual(textbook["exponentials"], [0.0, 0.0])  # both underflow: 0 / 0
        self.assertEqual(textbook["weights"], ["NaN", "NaN"])
        np.testing.assert_allclose(textbook["stable_weights"], [1 / (1 + math.exp(-1)), 1 / (1 + math.e)], rtol=1e-15)

    def test_the_limits_are_those_of_a_double(self):
        textbook = run_json("--scores", "1,2")["saturation"]["textbook"]
        self.assertAlmostEqual(textbook["largest_exponent"], math.log(np.finfo(float).max), places=12)
        # Below this e^s rounds to 0: it is under half the smallest positive double, 2^-1075.
        self.assertAlmostEqual(textbook["smallest_exponent"], -1075 * math.log(2), places=12)
        self.assertEqual(math.exp(textbook["smallest_exponent"] - 0.01), 0.0)
        self.assertGreater(math.exp(textbook["smallest_exponent"] + 0.01), 0.0)
        self.assertEqual(math.exp(textbook["largest_exponent"] - 1e-9) < math.inf, True)
        with self.assertRaises(OverflowError):
            math.exp(textbook["largest_exponent"] + 1e-9)

    def test_shift_invariance(self):
        base = run_json("--scores", "3,1,-2,0.5", "--add", "0")["saturation"]["weights_large"]
        shifted = run_json("--scores", "1003,1001,998,1000.5", "--add", "0")["saturation"]["weights_large"]
        np.testing.assert_allclose(shifted, base, rtol=1e-12)

    def test_the_toy_shows_shifted_exponentials_when_e_to_the_s_overflows(self):
        document = run_json("--q", "1000,0;0,1", "--k", "1,0;0,1", "--v", "1;2", "--no-scale")
        self.assertEqual(document["exponentials"][0], ["inf", 1.0])
        self.assertEqual(document["weights"][0], [1.0, 0.0])  # e^(0 − 1000) underflows to 0
        self.assertEqual(document["zero_weights"], 1)
        self.assertIn("e^(s − the row's largest s)", run("--q", "1000,0;0,1", "--k", "1,0;0,1", "--v", "1;2").stdout)


class AgreesWithNumPy(ProgramTest):
    def test_random_inputs_of_several_shapes(self):
        generator = np.random.default_rng(1706)
        for n, m, d_k, d_v in [(1, 1, 1, 1), (3, 3, 2, 2), (4, 7, 5, 3), (12, 9, 16, 4), (2, 30, 64, 8), (5, 2, 3, 1)]:
            queries = generator.normal(size=(n, d_k)) * 2
            keys = generator.normal(size=(m, d_k))
            values = generator.normal(size=(m, d_v)) * 5
            arguments = ["--q", matrix_text(queries), "--k", matrix_text(keys), "--v", matrix_text(values)]
            document = run_json(*arguments)
            for scale, part in ((True, document["scaled"]), (False, document["unscaled"])):
                with self.subTest(n=n, m=m, d_k=d_k, d_v=d_v, scale=scale):
                    weights, output = numpy_attention(queries, keys, values, scale)
                    np.testing.assert_allclose(part["weights"], weights, rtol=1e-12, atol=1e-15)
                    np.testing.assert_allclose(part["output"], output, rtol=1e-12, atol=1e-12)
            with self.subTest(n=n, m=m, d_k=d_k, d_v=d_v, properties=True):
                weights = np.array(document["weights"])
                output = np.array(document["output"])
                self.assertEqual(weights.shape, (n, m))
                self.assertEqual(output.shape, (n, d_v))
                np.testing.assert_allclose(weights.sum(axis=1), 1, rtol=0, atol=1e-14)
                self.assertTrue((weights > 0).all(), "no weight is exactly 0 without a mask")
                self.assertEqual(document["zero_weights"], 0)
                np.testing.assert_allclose(document["column_sums"], weights.sum(axis=0), rtol=1e-13)
                # Each output row is a weighted average of V's rows: inside their convex hull, so each
                # coordinate lies between the smallest and the largest entry of V's column.
                tolerance = 1e-12 * np.abs(values).max()
                self.assertTrue((output >= values.min(axis=0) - tolerance).all())
                self.assertTrue((output <= values.max(axis=0) + tolerance).all())

    def test_causal_on_random_inputs(self):
        generator = np.random.default_rng(1707)
        for n, d_k, d_v in [(1, 1, 1), (3, 2, 2), (6, 5, 3), (12, 16, 4)]:
            queries = generator.normal(size=(n, d_k)) * 2
            keys = generator.normal(size=(n, d_k))
            values = generator.normal(size=(n, d_v)) * 5
            document = run_json("--causal", "--q", matrix_text(queries), "--k", matrix_text(keys),
                                "--v", matrix_text(values))
            self.assertTrue(document["causal"])
            for scale, part in ((True, document["scaled"]), (False, document["unscaled"])):
                with self.subTest(n=n, d_k=d_k, d_v=d_v, scale=scale):
                    weights, output = numpy_attention(queries, keys, values, scale, causal=True)
                    np.testing.assert_allclose(part["weights"], weights, rtol=1e-12, atol=1e-15)
                    np.testing.assert_allclose(part["output"], output, rtol=1e-12, atol=1e-12)
                    computed = np.array(part["weights"])
                    # A hidden word gets a weight of exactly 0, and every row still sums to 1.
                    self.assertTrue((computed[np.triu_indices(n, 1)] == 0.0).all())
                    np.testing.assert_allclose(computed.sum(axis=1), 1, rtol=0, atol=1e-14)
                    # The first word sees only itself: its output is its own value, exactly.
                    self.assertEqual(part["output"][0], values[0].tolist())
            self.assertEqual(document["zero_weights"], n * (n - 1) // 2)

    def test_the_causal_toy(self):
        document = run_json("--causal")
        self.assertEqual(document["weights"][0], [1.0, 0.0, 0.0])
        self.assertEqual(document["output"][0], [1.0, 0.0])
        self.assertIn("3. Mask (--causal)", run("--causal").stdout)
        self.assertIn("3. Mask (opt.): none", run().stdout)

    def test_random_saturation_demos(self):
        generator = np.random.default_rng(3)
        for slots in (2, 3, 5, 17):
            scores = generator.normal(size=slots) * 6
            divide = float(generator.uniform(0.5, 20) * generator.choice([-1, 1]))
            add = float(generator.normal() * 3)
            with self.subTest(slots=slots, divide=divide, add=add):
                demo = run_json("--scores", ",".join(repr(float(x)) for x in scores),
                                "--divide", repr(divide), "--add", repr(add))["saturation"]
                added = scores.copy()
                added[1] += add
                divided = scores / divide
                divided_added = divided.copy()
                divided_added[1] += add
                np.testing.assert_allclose(demo["weights_large"], numpy_softmax(scores)[0], rtol=1e-13)
                np.testing.assert_allclose(demo["weights_large_added"], numpy_softmax(added)[0], rtol=1e-13)
                np.testing.assert_allclose(demo["weights_divided"], numpy_softmax(divided)[0], rtol=1e-13)
                np.testing.assert_allclose(demo["weights_divided_added"], numpy_softmax(divided_added)[0], rtol=1e-13)
                np.testing.assert_allclose(demo["textbook"]["exponentials"], np.exp(scores), rtol=1e-14)
                w2 = numpy_softmax(scores)[0][1]
                self.assertAlmostEqual(demo["sensitivity"]["large"], w2 * (1 - w2), places=14)


class BadInput(ProgramTest):
    def test_each_bad_input_is_refused_with_one_line(self):
        cases = [
            (["--scores", "8,x,0"], "--scores: entry 2 is 'x'"),
            (["--scores", "8"], "--scores: one number; expected at least 2"),
            (["--scores", ""], "--scores: empty list"),
            (["--scores", "8,,0"], "--scores: entry 2 is empty"),
            (["--scores", "nan,1"], "--scores: entry 1 is 'nan'; expected a finite number"),
            (["--scores", "1e999,0"], "--scores: entry 1 is '1e999', too large"),
            (["--scores", ",".join(["1"] * 5000)], "--scores: 5000 numbers is too many"),
            (["--divide", "0"], "--divide is 0; expected a finite number other than 0"),
            (["--divide", "-0.0"], "--divide is 0"),
            (["--divide", "inf"], "--divide is 'inf'; expected a finite number"),
            (["--divide", "eight"], "--divide is 'eight'"),
            (["--add", ""], "--add is empty"),
            (["--add", "nan"], "--add is 'nan'"),
            (["--scores", "1e308,1.7e308", "--add", "1e308"], "--add: slot two of --scores plus --add overflows"),
            (["--scores", "1e10,0", "--divide", "1e-300"], "--divide: --scores divided by 1e-300 overflows"),
            (["--scores", "8,4,0", "--q", "1,0"], "excludes"),  # the two demos do not mix
            (["--add", "1", "--no-scale"], "excludes"),
            (["--scores", "1,2", "--causal"], "excludes"),
            (["--causal", "--k", "1,0;0,1", "--v", "1;2"],
             "--causal: a causal mask needs one query per key; got 3 queries (--q) and 2 keys (--k)"),
            (["--v", "1,0;0,1"], "--v: 2 values for 3 keys (--k)"),
            (["--v", "1,0;0;1,1"], "--v: row 2 has 1 entry but row 1 has 2"),
            (["--k", "1,0,0"], "--k: keys have 3 entries per row but queries (--q) have 2"),
            (["--k", "1;0;1"], "--k: keys have 1 entry per row but queries (--q) have 2"),
            (["--causal", "--q", "1,0", "--v", "1;2;3"],
             "--causal: a causal mask needs one query per key; got 1 query (--q) and 3 keys (--k)"),
            (["--v", "1"], "--v: 1 value for 3 keys (--k)"),
            (["--q", "1e200,0", "--k", "1e200,0", "--v", "1"], "--q, --k: the score of query 1 against key 1 overflows"),
            # Eleven equal weights of 1/11, each rounded, times the largest double: the sum rounds up past it.
            (["--q", "0", "--k", ";".join(["0"] * 11), "--v", ";".join(["1.7976931348623157e308"] * 11)],
             "--v: the weighted sum of the values overflows"),
            (["--frobnicate"], "--frobnicate"),
            (["--json", "extra"], "extra"),
            (["--scores", "0,0", "--divide", "5e-324"], "--divide: 5e-324 is so close to 0"),
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--scores", "do not\nmix")

    def test_help_states_the_limits_it_enforces(self):
        self.assert_help_lists("one row of 2 to 1024 scores, separated by ','", "at most 1024 rows and 1024 entries per row")
        self.assert_refused(["--scores", ",".join(["1"] * 1025)], "--scores: 1025 numbers is too many; at most 1024")
        self.assert_refused(["--scores", "5"], "--scores: one number; expected at least 2")


class JudgmentsInTheProse(ProgramTest):
    """Every sentence of chapter 3 that judges computed numbers reads a key the
    program computes; these tests recompute each from the definition."""

    SEED_Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    SEED_K = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    SEED_V = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])

    def setUp(self):
        self.document = run_json()

    def test_the_hand_calculations_of_the_rounding_section(self):
        # The seed's hand sums: 4.113 + 2.028 + 4.113 = 10.254 against 10.255, and
        # 0.198 × 1 + 0.401 × 0 + 0.401 × 0.5 = 0.3985 against 0.398.
        hand = self.document["hand_rounded"]
        self.assertEqual(hand["decimals"], 3)
        np.testing.assert_allclose(hand["exponentials"][2], [4.113, 2.028, 4.113], rtol=0, atol=1e-12)
        self.assertAlmostEqual(hand["exponential_sums"][2], 10.254, delta=1e-12)
        self.assertAlmostEqual(hand["exponential_sums_rounded_once"][2], 10.255, delta=1e-12)
        self.assertEqual(hand["exponential_sum_steps_off"][2], 1)
        self.assertAlmostEqual(hand["output"][1][0], 0.3985, delta=1e-12)

    def test_where_each_result_stands_against_the_rounding_boundary(self):
        hand = self.document["hand_rounded"]
        # The hand result lies on the boundary between 0.398 and 0.399 ...
        self.assertEqual(hand["output_boundary"]["side"][1][0], "on")
        self.assertAlmostEqual(hand["output_boundary"]["nearest"][1][0], 0.3985, delta=1e-12)
        # ... the full-precision value below it, by what NumPy says.
        weights, output = numpy_attention(self.SEED_Q, self.SEED_K, self.SEED_V)
        full = output[1, 0]
        self.assertEqual(hand["full_output_boundary"]["side"][1][0], "below")
        self.assertAlmostEqual(hand["full_output_boundary"]["nearest"][1][0], 0.3985, delta=1e-12)
        self.assertAlmostEqual(hand["full_output_boundary"]["distance"][1][0], 0.3985 - full, delta=1e-12)
        # "so it rounds to 0.398 under any rule": it is not on the boundary, and
        # the rounded weights moved the hand result by exactly that distance.
        self.assertGreater(0.3985 - full, 1e-6)
        self.assertAlmostEqual(hand["output"][1][0] - full, hand["full_output_boundary"]["distance"][1][0],
                               delta=1e-12)
        self.assertEqual(f"{full:.3f}", "0.398")
        # The rounded hand terms are the program's weights, rounded.
        np.testing.assert_allclose(np.round(weights[1], 3), [0.198, 0.401, 0.401], rtol=0, atol=1e-12)

    def test_boundaries_on_random_inputs(self):
        generator = np.random.default_rng(303)
        queries, keys, values = (generator.normal(size=(4, 3)) for _ in range(3))
        document = run_json("--q", matrix_text(queries), "--k", matrix_text(keys), "--v", matrix_text(values))
        _, output = numpy_attention(queries, keys, values)
        boundary = document["hand_rounded"]["full_output_boundary"]
        for (i, j), x in np.ndenumerate(output):
            nearest = (math.floor(x * 1000) + 0.5) / 1000  # the midpoint of the step x lies in
            self.assertAlmostEqual(boundary["nearest"][i][j], nearest, delta=1e-12)
            self.assertAlmostEqual(boundary["distance"][i][j], abs(x - nearest), delta=1e-12)
            self.assertEqual(boundary["side"][i][j], "below" if x < nearest else "above")

    def test_cat_gives_its_largest_weight_to_itself(self):
        self.assertEqual(self.document["largest_weight_on"][0], "cat")
        self.assertEqual(self.document["largest_weight_on"],
                         [self.document["key_tokens"][j] for j in np.argmax(self.document["weights"], axis=1)])

    def test_no_weight_is_exactly_zero(self):
        self.assertEqual(self.document["zero_weights"], 0)

    def test_the_division_moves_every_weight_of_cats_row(self):
        # Chapter 1 and chapter 3 both say so: even at d_k = 2 the scale changes the weights.
        scaled, unscaled = self.document["scaled"]["weights"][0], self.document["unscaled"]["weights"][0]
        for a, b in zip(scaled, unscaled):
            self.assertGreater(abs(a - b), 0.01)
        # Without the division softmax favours the largest score more.
        self.assertGreater(unscaled[0], scaled[0])
        self.assertLess(unscaled[1], scaled[1])

    def test_the_saturation_ratios(self):
        saturation = run_json("--scores", "8,4,0", "--divide", "8", "--add", "0.5")["saturation"]
        large, divided = numpy_softmax(np.array([8.0, 4.0, 0.0]))[0], numpy_softmax(np.array([1.0, 0.5, 0.0]))[0]
        large_added = numpy_softmax(np.array([8.0, 4.5, 0.0]))[0]
        divided_added = numpy_softmax(np.array([1.0, 1.0, 0.0]))[0]
        change_ratio = (divided_added[1] - divided[1]) / (large_added[1] - large[1])
        self.assertAlmostEqual(saturation["slot_two"]["divided_change_over_large_change"], change_ratio, delta=1e-9)
        self.assertGreater(change_ratio, 1)  # "moves the weights less" on the saturated side
        # Chapter 2: per unit of the original scores (divided by 8), "a little farther, not ten times".
        self.assertTrue(1 < change_ratio / 8 < 2, change_ratio / 8)
        s_large, s_divided = large[1] * (1 - large[1]), divided[1] * (1 - divided[1])
        sensitivity = saturation["sensitivity"]
        self.assertAlmostEqual(sensitivity["divided_over_large"], s_divided / s_large, delta=1e-9)
        self.assertAlmostEqual(sensitivity["divided_per_unit_over_large"], s_divided / 8 / s_large, delta=1e-9)

    def weights_with_a_longer_key_for_cat(self):
        # NumPy's attention weights for `--k "4,0;0,1;1,1"`: the toy with cat's key (2, 0) made (4, 0).
        longer = self.SEED_K.copy()
        longer[0] = [4.0, 0.0]
        return numpy_attention(self.SEED_Q, longer, self.SEED_V)[0]

    def test_a_longer_key_for_cat_draws_cat_and_fish_to_it(self):
        # The front page: `softmax --k "4,0;0,1;1,1"` gives cat's key a 4; cat's weight on itself and fish's weight on
        # cat rise, and eat's stays, "since its query ignores a key's first entry". NumPy's attention with that key;
        # eat's query (0, 1) scores 0 against (2, 0) and (4, 0) alike, so its row cannot change. The book's run of
        # that command (softmax_longer_cat_key) is checked on its own below.
        before, after = self.document, run_json("--k", "4,0;0,1;1,1")
        np.testing.assert_allclose(after["weights"], self.weights_with_a_longer_key_for_cat(), rtol=1e-12, atol=1e-15)
        for row in (0, 2):  # cat, fish
            self.assertGreater(after["weights"][row][0], before["weights"][row][0])
        self.assertEqual(after["weights"][1], before["weights"][1])

    def test_the_front_pages_run_of_the_longer_key(self):
        # The front page quotes the book's run of `softmax --k "4,0;0,1;1,1"`: NumPy's weights with that key, and
        # eat's row as in the toy's own run.
        published = published_run("softmax_longer_cat_key")
        np.testing.assert_allclose(published["weights"], self.weights_with_a_longer_key_for_cat(), rtol=1e-12,
                                   atol=1e-15)
        self.assertEqual(published["weights"][1], published_run("softmax")["weights"][1])

    def test_rounding_cats_scores_by_hand_shows_in_the_printed_digits(self):
        # "e to the power of the first score is 4.112 instead of 4.113 … Cat's weight on itself becomes 0.5759 instead
        # of 0.5760": at the digits the sentence prints, the rounded scores give other numbers. From math.exp.
        rounded = published_run("softmax_hand_rounded")["saturation"]
        exact = published_run("softmax")
        scores = np.array([1.414, 0.0, 0.707])  # √2, 0 and √2/2, to three decimals
        self.assertEqual(rounded["scores"], scores.tolist())
        np.testing.assert_allclose(rounded["textbook"]["exponentials"], np.exp(scores), rtol=1e-13)
        np.testing.assert_allclose(rounded["weights_large"], numpy_softmax(scores)[0], rtol=1e-13)
        self.assertEqual(f"{math.exp(1.414):.3f}", f"{rounded['textbook']['exponentials'][0]:.3f}")
        self.assertNotEqual(f"{rounded['textbook']['exponentials'][0]:.3f}", f"{exact['exponentials'][0][0]:.3f}")
        self.assertNotEqual(f"{rounded['weights_large'][0]:.4f}", f"{exact['weights'][0][0]:.4f}")

    def test_a_lead_of_16_rounds_the_large_sides_slope_to_0(self):
        # Try it, --scores 32,16,0: the divided side's slope per unit is "… times the large side's (its table rounds the
        # large side's slope to 0)". The slopes w(1 − w) from NumPy's softmax of (32, 16, 0) and (4, 2, 0).
        demo = published_run("softmax_longer_lead")["saturation"]
        large = numpy_softmax(np.array([32.0, 16.0, 0.0]))[0][1]
        divided = numpy_softmax(np.array([4.0, 2.0, 0.0]))[0][1]
        large_slope, divided_slope = large * (1 - large), divided * (1 - divided)
        self.assertAlmostEqual(demo["sensitivity"]["large"] / large_slope, 1, delta=1e-9)
        ratio = divided_slope / 8 / large_slope  # per unit of the original scores, as the sentence compares them
        self.assertAlmostEqual(demo["sensitivity"]["divided_per_unit_over_large"] / ratio, 1, delta=1e-9)
        self.assertLess(large_slope, 0.5e-4)  # under half the table's last decimal
        self.assertIn("Sensitivity of slot two to its own score, w₂(1 − w₂):\n  large    0\n",
                      run("--scores", "32,16,0").stdout)

    def test_fish_asking_louder_focuses_its_weights(self):
        # Try it, --q "1,0;0,1;5,5": "fish's weights focus on fewer words". NumPy's attention; fish's scores become
        # (10, 5, 10)/√2, so eat's weight falls to e^(−5/√2), about 0.03, of cat's and of fish's own.
        before, after = self.document, run_json("--q", "1,0;0,1;5,5")
        louder = self.SEED_Q.copy()
        louder[2] = [5.0, 5.0]
        weights, _ = numpy_attention(louder, self.SEED_K, self.SEED_V)
        np.testing.assert_allclose(after["weights"], weights, rtol=1e-12, atol=1e-15)
        fish_before, fish_after = before["weights"][2], after["weights"][2]
        self.assertLess(fish_after[1], 0.05)  # eat, from 0.198, all but drops out of fish's row
        self.assertGreater(fish_after[0], fish_before[0])
        self.assertGreater(fish_after[2], fish_before[2])

    def test_when_fish_has_nothing_to_give_every_output_loses_its_share(self):
        # Try it, --v "1,0;0,1;0,0": "every output shrinks by what it takes from fish". Only fish's value changed, from
        # (0.5, 0.5) to (0, 0): each output loses its weight on fish times (0.5, 0.5), and the weights stay.
        before, after = self.document, run_json("--v", "1,0;0,1;0,0")
        self.assertEqual(after["weights"], before["weights"])
        on_fish = np.array(before["weights"])[:, 2:3]
        np.testing.assert_allclose(after["output"], np.array(before["output"]) - on_fish * [0.5, 0.5], rtol=0,
                                   atol=1e-15)
        self.assertTrue((on_fish > 0).all())  # so every output shrinks

    def test_sliding_cats_query_along_its_key_raises_its_weight_on_itself(self):
        # The interactive figure's caption: "Slide cat's query along its own key and its weight on itself grows". Cat's
        # query (t, 0) scores (2t, 0, t)/√2: its own score leads the others more the larger t is.
        own = []
        for t in (0.5, 1.0, 2.0, 4.0):
            queries = self.SEED_Q.copy()
            queries[0] = [t, 0.0]
            document = run_json("--q", matrix_text(queries))
            weights, _ = numpy_attention(queries, self.SEED_K, self.SEED_V)
            np.testing.assert_allclose(document["weights"], weights, rtol=1e-12, atol=1e-15)
            own.append(document["weights"][0][0])
        self.assertTrue(all(a < b for a, b in zip(own, own[1:])), own)

    def test_without_the_division_every_row_leans_harder_on_its_largest_score(self):
        # The same caption: "without the division every row leans harder on its largest score". NumPy's attention with
        # and without the division.
        scaled, _ = numpy_attention(self.SEED_Q, self.SEED_K, self.SEED_V, scale=True)
        unscaled, _ = numpy_attention(self.SEED_Q, self.SEED_K, self.SEED_V, scale=False)
        np.testing.assert_allclose(self.document["scaled"]["weights"], scaled, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(self.document["unscaled"]["weights"], unscaled, rtol=1e-12, atol=1e-15)
        for row, (with_division, without) in enumerate(zip(self.document["scaled"]["weights"],
                                                            self.document["unscaled"]["weights"])):
            with self.subTest(row=row):
                self.assertGreater(max(without), max(with_division))

    def test_with_fish_moved_off_the_line_every_output_lies_inside_the_triangle(self):
        # The figure's left panel: the toy with fish's value changed; "the band around the values is a triangle, and
        # every output lies inside it". Each output's barycentric coordinates, solved from the output and the three
        # corners, are all positive.
        document = published_run("softmax_triangle")
        values = np.array(document["values"])
        _, output = numpy_attention(self.SEED_Q, self.SEED_K, values)
        np.testing.assert_allclose(document["output"], output, rtol=1e-12, atol=1e-15)
        corners = np.vstack([values.T, np.ones(3)])
        self.assertGreater(abs(np.linalg.det(corners)), 0.1)  # three corners, not a segment
        for row, point in enumerate(document["output"]):
            with self.subTest(row=row):
                self.assertTrue((np.linalg.solve(corners, [*point, 1.0]) > 0).all())

    def test_each_unit_of_lead_shrinks_the_large_sides_slope_by_about_e(self):
        # Chapter 3, "w₂(1 − w₂) is about w₂, which falls by a factor of about e per unit of lead", from the row's
        # lead of 4 on. Scores (4 + lead, 4, 0): slot two's weight w₂ is about e^(−lead) once the lead is large, so
        # w₂(1 − w₂) falls by about e per unit (2.656 from lead 4 to 5, nearer e after). NumPy's w₂(1 − w₂) as well.
        slopes = []
        for lead in range(4, 10):
            saturation = run_json("--scores", f"{4 + lead},4,0")["saturation"]
            self.assertEqual(saturation["lead"], lead)
            weight = numpy_softmax(np.array([4.0 + lead, 4.0, 0.0]))[0][1]
            self.assertAlmostEqual(saturation["sensitivity"]["large"] / (weight * (1 - weight)), 1, delta=1e-12)
            slopes.append(saturation["sensitivity"]["large"])
        for lead, (slope, next_slope) in enumerate(zip(slopes, slopes[1:]), start=4):
            with self.subTest(lead=lead):
                self.assertLess(abs(slope / next_slope / math.e - 1), 0.03, slope / next_slope)

    def test_the_huge_score_of_try_it_does_not_overflow_but_prints_shifted(self):
        # Chapter 3's Try it, "In the third, the top score, 1000/√2, is too small for e^s to overflow, but e^s is too
        # wide for the table, so step 4 prints e^(s − max s)". A double overflows above ln(largest double), 709.78.
        arguments = ("--q", "1000,0;0,1", "--k", "1,0;0,1", "--v", "1;2")
        document = run_json(*arguments)
        top = document["scaled_scores"][0][0]
        self.assertAlmostEqual(top, 1000 / math.sqrt(2), delta=1e-9)
        self.assertLess(top, math.log(sys.float_info.max))
        exponential = document["exponentials"][0][0]
        self.assertTrue(math.isfinite(exponential))
        self.assertTrue(math.isclose(exponential, math.exp(top), rel_tol=1e-12), (exponential, math.exp(top)))
        self.assertGreater(math.log10(exponential), 300)  # over 300 digits before the point: too wide for a column
        printed = run(*arguments).stdout
        self.assertIn("4. SoftMax, per row: first e^(s − the row's largest s) for each score s ...", printed)
        self.assertNotIn("first e^s for each score s", printed)

    def test_a_score_whose_e_to_the_s_is_too_small_to_print_prints_shifted(self):
        # Chapter 3, "The toy's program prints e^(s − max s) instead when e^s would be too far from 1 to print, too
        # large or too small": the prose's command shows the large side; its mirror, cat's query −1000, the small
        # one. e^(−1000/√2) is about 8e−308: not 0, but 0 at the table's 4 decimals.
        arguments = ("--q", "-1000,0;0,1", "--k", "1,0;0,1", "--v", "1;2")
        document = run_json(*arguments)
        smallest = document["exponentials"][0][0]
        self.assertTrue(math.isclose(smallest, math.exp(-1000 / math.sqrt(2)), rel_tol=1e-12), smallest)
        self.assertGreater(smallest, 0)
        self.assertEqual(f"{smallest:.4f}", "0.0000")
        printed = run(*arguments).stdout
        self.assertIn("4. SoftMax, per row: first e^(s − the row's largest s) for each score s ...", printed)
        self.assertNotIn("first e^s for each score s", printed)

    def test_a_large_side_that_does_not_move_gives_the_string_inf(self):
        # e^(4 − 1000) is exactly 0 in a double: slot two's sensitivity is 0 on the large side.
        sensitivity = run_json("--scores", "1000,4,0", "--divide", "1000")["saturation"]["sensitivity"]
        self.assertEqual(sensitivity["divided_over_large"], "inf")


if __name__ == "__main__":
    unittest.main()
