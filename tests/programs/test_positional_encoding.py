"""build/bin/positional_encoding, chapter 6: the sinusoidal encoding of §3.5,
the shift map M_k, and what positions change about self-attention."""
import math
import unittest

import numpy as np

from harness import ProgramTest, run, run_json

EPSILON = 2.0 ** -52  # the gap between 1 and the next double


def numpy_encoding(positions: int, d_model: int, first: int = 0) -> np.ndarray:
    """§3.5 as the paper writes it: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(…)."""
    pos = np.arange(first, first + positions, dtype=float)[:, None]
    two_i = np.arange(0, d_model, 2, dtype=float)[None, :]
    angle = pos / np.power(10000.0, two_i / d_model)
    encoding = np.empty((positions, d_model))
    encoding[:, 0::2] = np.sin(angle)
    encoding[:, 1::2] = np.cos(angle)
    return encoding


def numpy_shift_map(k: int, d_model: int) -> np.ndarray:
    """One 2 × 2 block per pair, for a row vector (sin a, cos a) on the left:
    (sin a, cos a) · [[cos b, −sin b], [sin b, cos b]] = (sin(a + b), cos(a + b))."""
    blocks = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        b = k / 10000.0 ** (2 * i / d_model)
        blocks[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[math.cos(b), -math.sin(b)], [math.sin(b), math.cos(b)]]
    return blocks


def numpy_attention(queries, keys, values) -> np.ndarray:
    scores = queries @ keys.T / np.sqrt(queries.shape[1])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ values


def matrix_text(matrix) -> str:
    return ";".join(",".join(repr(float(x)) for x in row) for row in np.atleast_2d(matrix))


TOY_Q = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
TOY_K = np.array([[2, 0], [0, 1], [1, 1]], dtype=float)
TOY_V = np.array([[1, 0], [0, 1], [0.5, 0.5]], dtype=float)


def toy_self_weights_with_positions(order) -> np.ndarray:
    """Each token's weight on itself when the toy's tokens stand in this order (old places from 0), PE(pos) added to
    each query and key: the diagonal of softmax(QKᵀ/√2), row by row, as §3.2.1 and §3.5 write it."""
    encoding = numpy_encoding(3, 2)
    queries, keys = TOY_Q[order] + encoding, TOY_K[order] + encoding
    scores = queries @ keys.T / np.sqrt(2)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return np.diag(weights / weights.sum(axis=1, keepdims=True))


class WorkedExample(ProgramTest):
    def test_we_are_the_one_with_d_model_8(self):
        document = run_json()
        self.assertEqual((document["d_model"], document["positions"]), (8, 4))
        self.assertEqual(document["words"], ["We", "are", "the", "one"])
        pe = document["pe"]
        self.assertEqual(pe[0], [0.0, 1.0] * 4)  # sin 0 = 0 and cos 0 = 1, exactly
        for pos in range(4):
            self.assertEqual(pe[pos][0], math.sin(pos))  # ω_0 = 1: the angle is pos itself
            self.assertEqual(pe[pos][1], math.cos(pos))
            # 10000^(2i/8) = 10^i: the other pairs turn at pos/10, pos/100, pos/1000.
            for i in (1, 2, 3):
                self.assertAlmostEqual(pe[pos][2 * i], math.sin(pos / 10 ** i), delta=1e-15)
                self.assertAlmostEqual(pe[pos][2 * i + 1], math.cos(pos / 10 ** i), delta=1e-15)
        # The seeds digest's table for this sentence, computed by hand to four places.
        by_hand = [[0.0000, 1.0000, 0.0000, 1.0000, 0.0000, 1.0000, 0.0000, 1.0000],
                   [0.8415, 0.5403, 0.0998, 0.9950, 0.0100, 1.0000, 0.0010, 1.0000],
                   [0.9093, -0.4161, 0.1987, 0.9801, 0.0200, 0.9998, 0.0020, 1.0000],
                   [0.1411, -0.9900, 0.2955, 0.9553, 0.0300, 0.9996, 0.0030, 1.0000]]
        np.testing.assert_allclose(pe, by_hand, atol=5e-5, rtol=0)

    def test_no_two_positions_share_an_encoding(self):
        # "no two positions share an encoding": the fastest pair alone already differs. With d_model = 2 that pair
        # is all there is, and |PE(a) − PE(b)| = |(sin a − sin b, cos a − cos b)| = 2 |sin((a − b)/2)|, which is
        # 0 only where a − b is a multiple of 2π, never for a whole number. Over 1024 positions the closest pair is
        # 710 apart (355/113 is close to π): 2 |sin 355| ≈ 6.0e-5, some 10⁸ times the rounding of the table.
        pe = np.array(run_json("--positions", "1024", "--d-model", "2")["pe"])
        distances = np.sqrt(((pe[:, None, :] - pe[None, :, :]) ** 2).sum(axis=2))
        np.fill_diagonal(distances, np.inf)
        closest_by_sine = min(2 * abs(math.sin(k / 2)) for k in range(1, 1024))
        self.assertAlmostEqual(distances.min(), closest_by_sine, delta=1e-11)
        self.assertGreater(distances.min(), 5e-5)

    def test_the_slow_pairs_stay_near_sine_0_and_cosine_1(self):
        # The heatmap's caption: "Those at the far right turn so slowly that their sine stays near 0 and their
        # cosine near 1" (the right quarter, columns 48 … 63 of 64). Their ω is at most 10000^(−48/64) = 10⁻³,
        # so over positions 0 … 127 the angle stays below 0.127 radians: |sin| ≤ sin 0.127, cos ≥ cos 0.127
        # = 0.992.
        pe = np.array(run_json("--positions", "128", "--d-model", "64")["pe"])
        largest_angle = 127 * 10000.0 ** (-48 / 64)
        self.assertLessEqual(np.abs(pe[:, 48::2]).max(), math.sin(largest_angle) + 1e-15)
        self.assertGreaterEqual(pe[:, 49::2].min(), math.cos(largest_angle) - 1e-15)
        self.assertLess(math.sin(largest_angle), 0.13)  # "near 0"
        self.assertGreater(math.cos(largest_angle), 0.99)  # "near 1"

    def test_the_wavelengths_are_2_pi_times_1_10_100_1000(self):
        document = run_json()
        pairs = document["pairs"]
        self.assertEqual([pair["dimensions"] for pair in pairs], [[0, 1], [2, 3], [4, 5], [6, 7]])
        for i, pair in enumerate(pairs):
            self.assertAlmostEqual(pair["frequency"], 10.0 ** -i, delta=1e-15)
            self.assertAlmostEqual(pair["wavelength"] / (2 * math.pi * 10 ** i), 1.0, delta=1e-14)
            self.assertAlmostEqual(pair["wavelength_over_2pi"] / 10 ** i, 1.0, delta=1e-14)
        self.assertEqual(pairs[0]["wavelength"], 2 * math.pi)
        self.assertAlmostEqual(document["wavelength_ratio"], 10.0, delta=1e-14)
        # The last pair stops one step short of 10000 · 2π.
        self.assertAlmostEqual(document["longest_wavelength_over_2pi"], 1000.0, delta=1e-11)
        wide = run_json("--positions", "1", "--d-model", "64")
        self.assertAlmostEqual(wide["longest_wavelength_over_2pi"], 10000.0 ** (62 / 64), delta=1e-9)

    def test_d_model_2_is_sin_pos_and_cos_pos(self):
        pe = run_json("--positions", "40", "--d-model", "2")["pe"]
        self.assertEqual(pe, [[math.sin(pos), math.cos(pos)] for pos in range(40)])

    def test_the_tables_say_so(self):
        printed = run().stdout
        rows = printed.split("PE: one row per position, one column per dimension\n")[1].splitlines()
        self.assertEqual(rows[0].split(), ["0", "sin", "1", "cos", "2", "sin", "3", "cos", "4", "sin", "5", "cos",
                                           "6", "sin", "7", "cos"])
        self.assertEqual(rows[1].split(), ["0", "We", "0", "1", "0", "1", "0", "1", "0", "1"])
        self.assertEqual(rows[3].split()[:4], ["2", "the", "0.9093", "-0.4161"])
        self.assertIn("Each wavelength is 10 times the one before it", printed)
        self.assertNotIn("M_1", printed)  # the map is printed only with --shift
        self.assertIn("M_1", run("--shift", "1").stdout)

    def test_a_sentence_sets_the_positions(self):
        document = run_json("--sentence", "  the cat  sat on the mat ")
        self.assertEqual(document["words"], ["the", "cat", "sat", "on", "the", "mat"])
        self.assertEqual(document["positions"], 6)
        # The encoding depends on the position only, never on the word.
        self.assertEqual(document["pe"], run_json("--positions", "6")["pe"])
        self.assertEqual(run_json("--positions", "6")["words"], [])


class AgreesWithNumPy(ProgramTest):
    def test_the_encoding_on_several_sizes(self):
        for positions, d_model in [(1, 2), (4, 8), (50, 16), (128, 64), (7, 512), (1024, 2), (300, 6)]:
            with self.subTest(positions=positions, d_model=d_model):
                document = run_json("--positions", str(positions), "--d-model", str(d_model))
                pe = np.array(document["pe"])
                self.assertEqual(pe.shape, (positions, d_model))
                # The program computes pos · ω_i, NumPy pos / 10000^(2i/d): angles up to 1023
                # differ by rounding, about 1023 · 2⁻⁵³ ≈ 1e-13 at most.
                np.testing.assert_allclose(pe, numpy_encoding(positions, d_model), atol=1e-12, rtol=0)
                frequencies = [pair["frequency"] for pair in document["pairs"]]
                np.testing.assert_allclose(frequencies, 10000.0 ** (-np.arange(0, d_model, 2) / d_model),
                                           rtol=1e-14)


class LinearMap(ProgramTest):
    def test_the_map_is_the_rotation_blocks_in_the_row_convention(self):
        for d_model, k in [(2, 1), (8, 1), (8, 3), (16, 50), (64, 127)]:
            with self.subTest(d_model=d_model, k=k):
                document = run_json("--positions", "20", "--d-model", str(d_model), "--shift", str(k))
                shift = document["shift"]
                self.assertEqual(shift["k"], k)
                # Angles k·ω_i up to 127 radians, computed by two routes: rounding of 127 · 2⁻⁵³ and a little more.
                np.testing.assert_allclose(shift["map"], numpy_shift_map(k, d_model), atol=1e-13, rtol=0)
                pe = np.array(document["pe"])
                # Row pos times M_k is PE(pos + k), from NumPy's own encoding.
                np.testing.assert_allclose(pe @ np.array(shift["map"]), numpy_encoding(20, d_model, first=k),
                                           atol=1e-12, rtol=0)
                np.testing.assert_allclose(shift["shifted"], numpy_encoding(20, d_model, first=k), atol=1e-12, rtol=0)
                self.assertLess(shift["table_error"], 1e-13)

    def test_the_largest_error_over_the_grid(self):
        for d_model in (2, 8, 64):
            with self.subTest(d_model=d_model):
                shift = run_json("--positions", "1", "--d-model", str(d_model))["shift"]
                self.assertEqual((shift["grid_positions"], shift["grid_offsets"]), (128, 128))
                table = numpy_encoding(255, d_model)
                first = table[:128]
                errors = [np.abs(first @ numpy_shift_map(k, d_model) - table[k:k + 128]).max() for k in range(128)]
                transposed = [np.abs(first @ numpy_shift_map(k, d_model).T - table[k:k + 128]).max()
                              for k in range(128)]
                # Rounding only: angles below 255 radians, a few units of 2⁻⁵³ · 255.
                self.assertLess(shift["grid_error"], 1e-12)
                self.assertLess(max(errors), 1e-12)
                # The transpose shifts backwards: for pair 0 the gap is |sin(p + k) − sin(p − k)|
                # = 2 |cos p sin k|, close to 2 somewhere on the grid.
                self.assertAlmostEqual(shift["transposed_grid_error"], max(transposed), delta=1e-12)
                self.assertGreater(shift["transposed_grid_error"], 1.9)

    def test_shift_zero_is_the_identity(self):
        shift = run_json("--shift", "0")["shift"]
        self.assertEqual(shift["map"], np.eye(8).tolist())
        self.assertEqual(shift["table_error"], 0.0)


class Similarity(ProgramTest):
    def test_the_farther_offsets_the_prose_compares_come_out_higher(self):
        # "offset 101 gives …, more than offset 21's" (d_model 64) and "offset 6 gives …, more than offset 1's"
        # (d_model 8): the figure's two dots. The closed form Σ cos(k ω_i) says which is higher, with margins of
        # 0.74 and 0.25, far above rounding; the program's values must say the same.
        for d_model, nearer, farther in [(64, 21, 101), (8, 1, 6)]:
            with self.subTest(d_model=d_model):
                at_position_0 = run_json("--positions", "1", "--d-model", str(d_model))["similarity"]["at_position_0"]
                omegas = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
                closed_form = {k: np.cos(k * omegas).sum() for k in (nearer, farther)}
                self.assertGreater(closed_form[farther], closed_form[nearer])
                self.assertGreater(at_position_0[farther], at_position_0[nearer])

    def test_the_dot_product_depends_on_k_only(self):
        for d_model in (2, 8, 64):
            with self.subTest(d_model=d_model):
                similarity = run_json("--positions", "1", "--d-model", str(d_model))["similarity"]
                k = np.array(similarity["offsets"], dtype=float)
                self.assertEqual(list(k), list(range(128)))
                # Each pair gives sin a sin b + cos a cos b = cos(b − a) = cos(k ω_i).
                omegas = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
                closed_form = np.cos(np.outer(k, omegas)).sum(axis=1)
                for key in ("at_position_0", "smallest", "largest"):
                    np.testing.assert_allclose(similarity[key], closed_form, atol=1e-12, rtol=0)
                self.assertEqual(similarity["at_position_0"][0], d_model / 2)  # sin² + cos² = 1 per pair
                self.assertLess(similarity["largest_spread"], 1e-12)
                table = numpy_encoding(255, d_model)
                spread = max(np.ptp(np.einsum("pd,pd->p", table[:128], table[j:j + 128])) for j in range(128))
                self.assertLess(spread, 1e-12)


class Permutation(ProgramTest):
    def test_fish_eat_cat_without_positions(self):
        document = run_json("--order", "3,2,1")
        self.assertEqual(document["mode"], "permutation")
        self.assertEqual(document["reordered_tokens"], ["fish", "eat", "cat"])
        self.assertEqual(document["order"], [3, 2, 1])
        without = document["without_positions"]
        # The toy's scores are small integers, exact in any order: each lands in its new place bit for bit.
        self.assertTrue(without["scores_equal"])
        self.assertEqual(without["largest_score_difference"], 0.0)
        # The softmax and the weighted sum add three terms in another order: a few units in the last place.
        self.assertLessEqual(without["largest_output_difference"], 4 * EPSILON)
        self.assertLessEqual(without["largest_weight_difference"], 4 * EPSILON)
        self.assertLessEqual(without["largest_output_difference_ulps"], 4)
        self.assertTrue(np.all(np.abs(without["output_change"]) <= 4 * EPSILON))
        # The hand-worked lesson prints the toy's outputs for cat eat fish to three places; fish eat cat has them reordered.
        seed_000 = {"cat": [0.718, 0.282], "eat": [0.398, 0.602], "fish": [0.602, 0.398]}
        np.testing.assert_allclose(without["after"]["output"], [seed_000[t] for t in ("fish", "eat", "cat")],
                                   atol=5e-4)

    def test_fish_eat_cat_with_positions_agrees_with_numpy(self):
        document = run_json("--order", "3,2,1")
        encoding = numpy_encoding(3, 2)
        np.testing.assert_allclose(document["pe"], encoding, atol=1e-15)
        self.assertEqual(document["pe"][1], [math.sin(1), math.cos(1)])
        np.testing.assert_allclose(document["queries_with_positions"], TOY_Q + encoding, rtol=0, atol=1e-15)
        order = [2, 1, 0]
        before = numpy_attention(TOY_Q + encoding, TOY_K + encoding, TOY_V + encoding)
        after = numpy_attention(TOY_Q[order] + encoding, TOY_K[order] + encoding, TOY_V[order] + encoding)
        placed = document["with_positions"]
        np.testing.assert_allclose(placed["before"]["output"], before, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(placed["after"]["output"], after, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(placed["output_change"], after - before[order], atol=1e-13)
        self.assertAlmostEqual(placed["largest_output_difference"], np.abs(after - before[order]).max(), delta=1e-13)
        self.assertGreater(placed["largest_output_difference"], 0.1)
        self.assertFalse(placed["outputs_equal"] or placed["weights_equal"] or placed["scores_equal"])

    def test_random_tokens_in_random_orders(self):
        generator = np.random.default_rng(605)
        for n, d_k, d_v in [(2, 2, 2), (4, 2, 4), (6, 8, 2), (9, 4, 6), (12, 16, 8)]:
            queries, keys = generator.normal(size=(n, d_k)), generator.normal(size=(n, d_k))
            values = generator.normal(size=(n, d_v))
            order = generator.permutation(n)
            with self.subTest(n=n, d_k=d_k, d_v=d_v, order=order.tolist()):
                document = run_json("--q", matrix_text(queries), "--k", matrix_text(keys), "--v", matrix_text(values),
                                    "--order", ",".join(str(i + 1) for i in order))
                without, placed = document["without_positions"], document["with_positions"]
                before = numpy_attention(queries, keys, values)
                np.testing.assert_allclose(without["before"]["output"], before, rtol=1e-12, atol=1e-14)
                np.testing.assert_allclose(without["after"]["output"], before[order], rtol=1e-12, atol=1e-14)
                # Only rounding separates a token's output in the two orders.
                self.assertLess(without["largest_output_difference"], 1e-13)
                pe_k, pe_v = numpy_encoding(n, d_k), numpy_encoding(n, d_v)
                after = numpy_attention(queries[order] + pe_k, keys[order] + pe_k, values[order] + pe_v)
                placed_before = numpy_attention(queries + pe_k, keys + pe_k, values + pe_v)
                np.testing.assert_allclose(placed["after"]["output"], after, rtol=1e-12, atol=1e-13)
                if not np.array_equal(order, np.arange(n)):
                    self.assertGreater(placed["largest_output_difference"], 1e-3)
                    self.assertAlmostEqual(placed["largest_output_difference"],
                                           np.abs(after - placed_before[order]).max(), delta=1e-12)

    def test_the_same_order_is_the_same_computation(self):
        document = run_json("--order", "1,2,3")
        for block in ("without_positions", "with_positions"):
            with self.subTest(block=block):
                self.assertTrue(document[block]["outputs_equal"])
                self.assertEqual(document[block]["largest_output_difference"], 0.0)
                self.assertEqual(document[block]["largest_output_difference_ulps"], 0)

    def test_the_order_and_its_default(self):
        self.assertEqual(run_json("--order", "2,3,1")["reordered_tokens"], ["eat", "fish", "cat"])
        document = run_json("--tokens", "a,b,c,d", "--q", "1,0;0,1;1,1;2,0", "--k", "1,0;0,1;1,1;0,2",
                            "--v", "1,0;0,1;1,1;2,2")
        self.assertEqual(document["order"], [4, 3, 2, 1])  # without --order, the tokens reversed
        self.assertEqual(document["reordered_tokens"], ["d", "c", "b", "a"])

    def test_the_tables_say_so(self):
        printed = run("--order", "3,2,1").stdout
        self.assertIn("\"cat eat fish\", then \"fish eat cat\"", printed)
        self.assertIn("scores   bit for bit: yes", printed)
        self.assertIn("With positions: PE(pos) added to each token's query, key and value", printed)
        # Each table says which half it belongs to, so that the book can show the two halves apart.
        titles = [block.splitlines()[0] for block in printed.split("\n\n") if block.strip()]
        for half in ("without", "with"):
            for order in ("cat eat fish", "fish eat cat"):
                self.assertEqual(titles.count(f'Output {half} positions, "{order}"'), 1, (half, order, titles))
        self.assertEqual(len(titles), len(set(titles)), titles)


class Overflow(ProgramTest):
    """Values near the largest double: every printed number finite, or the run refused naming the flag."""

    LARGEST = "1.7976931348623157e308"

    def test_a_weighted_sum_of_the_largest_doubles_is_refused(self):
        # It used to print inf in the output and change tables, and "largest difference inf (1 unit in the last place)".
        m = self.LARGEST
        for extra in ([], ["--json"]):
            with self.subTest(json=bool(extra)):
                self.assert_refused(["--v", f"{m},{m};{m},{m};{m},{m}", *extra], "--v: ")

    def test_outputs_that_change_by_more_than_a_double_holds_are_refused(self):
        # Opposite values: each output is finite, but with positions a token's output moves
        # from near +1e308 to near -1e308 when the order changes.
        self.assert_refused(["--q", "300,0;0,300;300,300", "--k", "300,0;0,300;300,300",
                             "--v", "1e308,1e308;-1e308,-1e308;1e308,-1e308"], "--v: ")

    def test_a_score_that_changes_by_more_than_a_double_holds_is_refused(self):
        # Every score is finite, but with positions added one of them moves by more than the
        # largest double between the two orders: it printed "largest difference inf", and null in JSON.
        self.assert_refused(["--q", "-1.7e308,0;-1.7e308,0;0,0", "--k", "-0.9,0;0.3,0;0.3,0",
                             "--v", "1,0;0,1;1,1"], "--q, --k: a score changes by more than the largest double")

    def test_random_huge_inputs_give_finite_numbers_or_a_refusal(self):
        generator = np.random.default_rng(1706)
        choices = [-1.7976931348623157e308, 1.7976931348623157e308, 1e308, -1e308, 1.0]
        for _ in range(12):
            values = generator.choice(choices, size=(3, 2))
            result = run("--v", matrix_text(values), "--json", check=False)
            with self.subTest(values=values.tolist()):
                if result.returncode == 2:
                    self.assertEqual(len(result.stderr.splitlines()), 1)
                    self.assertTrue(result.stderr.startswith("positional_encoding: --v: "), result.stderr)
                    self.assertEqual(result.stdout, "")
                    continue
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertNotIn('"inf"', result.stdout)
                self.assertNotIn("NaN", result.stdout)
                self.assertNotIn("inf", run("--v", matrix_text(values)).stdout)


class BadInput(ProgramTest):
    def test_each_bad_input_is_refused_with_one_line(self):
        odd = "1,0,0;0,1,0;1,1,0"
        cases = [
            (["--d-model", "7"], "--d-model is 7, odd; expected an even number from 2 to 512"),
            (["--d-model", "0"], "--d-model is 0, too small"),
            (["--d-model", "514"], "--d-model is 514, too large"),
            (["--d-model", "100000000000000000000000"], "--d-model is 100000000000000000000000, too large"),
            (["--d-model", "8.0"], "--d-model is '8.0', not a whole number"),
            (["--d-model", "-8"], "--d-model is -8, negative"),
            (["--d-model", ""], "--d-model is empty"),
            (["--positions", "0"], "--positions is 0, too small; expected a whole number from 1 to 1024"),
            (["--positions", "1025"], "--positions is 1025, too large"),
            (["--positions", "ten"], "--positions is 'ten', not a whole number"),
            (["--positions", "nan"], "--positions is 'nan', not a whole number"),
            (["--sentence", "   "], "--sentence is empty"),
            (["--sentence", " ".join(["w"] * 1025)], "--sentence has 1025 words, too many; expected at most 1024"),
            (["--sentence", "a b", "--positions", "2"], "--sentence excludes --positions"),
            (["--shift", "-1"], "--shift is -1, negative"),
            (["--shift", "1025"], "--shift is 1025, too large"),
            (["--order", "1,1,2"], "--order: 1 appears twice; expected each of 1 … 3 exactly once"),
            (["--order", "1,2"], "--order has 2 entries for 3 tokens"),
            (["--order", "0,1,2"], "--order: entry 1 is 0, too small"),
            (["--order", "4,2,1"], "--order: entry 1 is 4, too large"),
            (["--order", "3,2,x"], "--order: entry 3 is 'x', not a whole number"),
            (["--order", ""], "--order: empty list"),
            (["--order"], "--order"),
            (["--order", "3,2,1", "--d-model", "4"], "--d-model excludes --order"),
            (["--positions", "3", "--q", "1,0;0,1;1,1"], "--positions excludes --q"),
            (["--q", odd, "--k", odd], "--q: each row has 3 entries; positions are added to every query"),
            (["--v", odd], "--v: each row has 3 entries"),
            (["--q", "1;2;3", "--k", "1;2;3"], "--q: each row has 1 entry;"),
            (["--k", "1,0;0,1", "--v", "1,0;0,1"], "--k: 2 keys for 3 queries (--q)"),
            (["--tokens", "a,b"], "--tokens: 2 names for 3 query rows"),
            (["--q", "1e200,1e200;0,1;1,1", "--k", "1e200,1e200;0,1;1,1"], "--q, --k: the score of query 1 against key 1 overflows"),
            (["--q", "nan,0;0,1;1,1"], "--q"),
            (["--positions", "4", "--unknown"], "--unknown"),
            (["--q", "1e200,0", "--k", "-1e200,0", "--v", "1,0"], "--q, --k: the score of query 1 against key 1 overflows"),
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--positions", "--d-model", "--sentence", "--shift", "--order", "--json")

    def test_help_states_the_limits_it_enforces(self):
        self.assert_help_lists("one position per word, at most 1024 words", "from 1 to 1024 (instead of --sentence)")
        self.assert_refused(["--sentence", " ".join(["w"] * 1025)], "--sentence has 1025 words, too many")


class JudgmentsInTheProse(ProgramTest):
    """Chapter 6 calls the grid error rounding and the transposed map's error a
    wrong answer; both are measured in spacings of doubles at the largest angle."""

    def test_the_grid_error_in_spacings_of_the_largest_angle(self):
        for d_model in (2, 8, 64):
            with self.subTest(d_model=d_model):
                shift = run_json("--positions", "1", "--d-model", str(d_model))["shift"]
                self.assertEqual(shift["largest_angle"], 2 * 128 - 2)  # pair 0 turns 1 radian per position
                self.assertEqual(shift["angle_spacing"], math.ulp(254.0))  # 2⁻⁴⁵
                self.assertAlmostEqual(shift["grid_error_spacings"], shift["grid_error"] / math.ulp(254.0),
                                       delta=1e-9)
                self.assertAlmostEqual(shift["transposed_grid_error_spacings"],
                                       shift["transposed_grid_error"] / math.ulp(254.0), delta=1.0)
                # "the rounding of double precision": within a few spacings ...
                self.assertLess(shift["grid_error_spacings"], 16)
                # ... "a wrong answer": trillions of them.
                self.assertGreater(shift["transposed_grid_error_spacings"], 1e12)

    def test_with_positions_cats_weight_on_itself_changes(self):
        # "The weights change too, not just the values: cat gives itself … at position 0, … at position 2."
        document = run_json("--order", "3,2,1")

        at_0 = toy_self_weights_with_positions([0, 1, 2])[0]  # cat first
        at_2 = toy_self_weights_with_positions([2, 1, 0])[2]  # then cat last
        placed = document["with_positions"]
        self.assertAlmostEqual(placed["before"]["weights"][0][0], at_0, delta=1e-14)
        self.assertAlmostEqual(placed["after"]["weights"][2][2], at_2, delta=1e-14)
        self.assertGreater(abs(at_2 - at_0), 0.1)
        unplaced = document["without_positions"]  # without positions cat keeps its weight on itself
        self.assertAlmostEqual(unplaced["before"]["weights"][0][0], unplaced["after"]["weights"][2][2], delta=1e-15)

    def test_the_table_of_self_weights_puts_each_token_back_in_its_row(self):
        # The table the page shows: each token's weight on itself in the old order and in the new, on the token's row.
        # --order 2,3,1 moves every token, so a row read from the wrong place of the new order would show.
        printed = run("--order", "2,3,1").stdout
        block = printed.split("Weight on itself, with positions\n")[1].split("\n\n")[0]
        rows = {line.split()[0]: [float(x) for x in line.split()[1:]] for line in block.splitlines()[1:]}

        new_order = [1, 2, 0]
        old, new = toy_self_weights_with_positions([0, 1, 2]), toy_self_weights_with_positions(new_order)
        self.assertEqual(list(rows), ["cat", "eat", "fish"])
        for token, name in enumerate(["cat", "eat", "fish"]):
            place = new_order.index(token)
            self.assertAlmostEqual(rows[name][0], old[token], delta=5e-4, msg=name)
            self.assertAlmostEqual(rows[name][1], new[place], delta=5e-4, msg=name)

    def test_positions_0_and_6_nearly_agree_on_pair_0_but_not_on_pair_1(self):
        # "With d_model = 64, positions 0 and 6 nearly agree on pair 0 …, but pair 1 sets them apart."
        document = run_json("--positions", "128", "--d-model", "64")
        pe = np.array(document["pe"])
        np.testing.assert_allclose(pe[[0, 6], :4], numpy_encoding(7, 64)[[0, 6], :4], rtol=0, atol=1e-15)
        pair_0 = np.linalg.norm(pe[6, 0:2] - pe[0, 0:2])
        pair_1 = np.linalg.norm(pe[6, 2:4] - pe[0, 2:4])
        self.assertLess(pair_0, 0.3)  # 2·sin(0.283/2): six radians is 0.283 short of a full turn
        self.assertGreater(pair_1, 1.0)  # pair 1 has turned about 4.5 radians, far from its start


if __name__ == "__main__":
    unittest.main()
