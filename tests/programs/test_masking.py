"""build/bin/masking, chapter 4: masks, the fill, and what a finite fill leaks."""
import json
import math
import unittest

import numpy as np

from harness import ProgramTest, published_run, run, run_json

SQRT2 = math.sqrt(2.0)
TOY_VALUES = [[1, 0], [0, 1], [0.5, 0.5]]


def matrix_text(matrix) -> str:
    return ";".join(",".join(repr(float(x)) for x in row) for row in np.atleast_2d(matrix))


def inputs(queries, keys, values) -> list:
    return ["--q", matrix_text(queries), "--k", matrix_text(keys), "--v", matrix_text(values)]


def numpy_mask(spec: str, n: int, m: int) -> np.ndarray:
    """The masks as the chapter defines them, written independently of the program."""
    rows, columns = np.indices((n, m))
    if spec == "none":
        return np.ones((n, m), dtype=bool)
    if spec == "causal":
        return columns <= rows
    kind, number = spec.split(":")
    if kind == "band":
        return np.abs(rows - columns) <= int(number)
    return columns < int(number)  # pad:N


def stable_softmax(row):
    """Softmax with the row's largest score subtracted first (chapter 3's stable form); a NaN or ∞ − ∞ in the row
    gives NaN weights, without a warning."""
    with np.errstate(invalid="ignore"):
        exponentials = np.exp(row - row.max())
        return exponentials / exponentials.sum()


def numpy_attention(queries, keys, values, allowed, fill=-np.inf):
    """Masked scaled dot-product attention; a row with no allowed key and fill −∞ gets zero weights."""
    scores = np.where(allowed, queries @ keys.T / np.sqrt(queries.shape[1]), fill)
    weights = np.zeros_like(scores)
    for i, row in enumerate(scores):
        if row.max() == -np.inf:
            continue
        weights[i] = stable_softmax(row)
    return weights, weights @ values


def random_inputs(generator, n, m, d, dv):
    return generator.normal(size=(n, d)), generator.normal(size=(m, d)), generator.normal(size=(m, dv))


def leak_for(document: dict, fill) -> dict:
    return next(row for row in document["leak"] if row["fill"] == fill)


class WorkedExample(ProgramTest):
    def test_the_causal_mask_on_the_toy(self):
        document = run_json()  # the toy and --mask causal are the defaults
        self.assertEqual(document["mask_spec"], "causal")
        self.assertEqual(document["fill"], "-inf")
        self.assertEqual(document["mask"], [[True, False, False], [True, True, False], [True, True, True]])
        weights = document["weights"]
        # cat, the first token, may look only at itself: all of its weight, exactly.
        self.assertEqual(weights[0], [1.0, 0.0, 0.0])
        self.assertEqual(document["output"][0], TOY_VALUES[0])
        # eat sees cat and itself: scaled scores 0 and 1/√2 (the hand-worked lesson prints 0.330 and 0.670).
        e = math.exp(1 / SQRT2)
        self.assertAlmostEqual(weights[1][0], 1 / (1 + e), delta=1e-15)
        self.assertAlmostEqual(weights[1][1], e / (1 + e), delta=1e-15)
        self.assertEqual([round(w, 3) for w in weights[1]], [0.330, 0.670, 0.0])
        self.assertEqual(weights[1][2], 0.0)
        # fish, the last token, has nothing after it: scores √2, 1/√2, √2.
        big, small = math.exp(SQRT2), math.exp(1 / SQRT2)
        for got, expected in zip(weights[2], [big, small, big]):
            self.assertAlmostEqual(got, expected / (2 * big + small), delta=1e-15)

    def test_masked_scores_are_minus_infinity_and_the_rest_unchanged(self):
        document = run_json()
        for i in range(3):
            for j in range(3):
                expected = document["scaled_scores"][i][j] if j <= i else "-inf"
                self.assertEqual(document["masked_scores"][i][j], expected)
        self.assertEqual(document["allowed_entries"], 6)
        self.assertEqual(document["masked_entries"], 3)

    def test_the_last_row_is_what_it_is_without_a_mask(self):
        causal, unmasked = run_json(), run_json("--mask", "none")
        self.assertEqual(causal["weights"][2], unmasked["weights"][2])
        self.assertEqual(causal["output"][2], unmasked["output"][2])
        self.assertNotEqual(causal["output"][0], unmasked["output"][0])

    def test_the_tables_say_so(self):
        printed = run().stdout
        self.assertIn("cat may look at cat only: its output equals that value bit for bit: yes", printed)
        self.assertIn("Largest weight on a masked key: 0 (exactly)", printed)
        masked_rows = printed.split("Masked scores: every masked entry set to -inf\n")[1].splitlines()[1:4]
        self.assertEqual([row.split()[1:] for row in masked_rows],
                         [["1.4142", "-inf", "-inf"], ["0", "0.7071", "-inf"], ["1.4142", "0.7071", "1.4142"]])
        weight_rows = printed.split("Weights: softmax of each row of the masked scores\n")[1].splitlines()[1:4]
        self.assertEqual(weight_rows[0].split(), ["cat", "1", "0", "0"])
        self.assertNotIn("shown as 0 may not be 0", printed)  # under -inf a masked weight shown as 0 is 0

    def test_a_leak_too_small_for_the_table_is_said_under_it(self):
        # Fill -10: eat's weight on fish is e^-10 against e^0 and e^0.7071, about 1.5e-5, which four decimals show
        # as 0. The line under the weights table says it is not 0, with the value NumPy gives.
        printed = run("--fill", "-10").stdout
        block = printed.split("Weights: softmax of each row of the masked scores\n")[1].split("\n\n")[0]
        note = block.splitlines()[-1]
        self.assertTrue(note.startswith("(a masked weight shown as 0 may not be 0: the largest, eat → fish, is "), note)
        row = np.array([0.0, 1 / np.sqrt(2), -10.0])
        expected = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
        self.assertAlmostEqual(float(note.split(" is ")[-1].rstrip(")")), expected[2], delta=1e-8)
        self.assertNotIn("shown as 0 may not be 0", run("--fill", "-1000").stdout)  # e^-1000 is 0 in a double


class Properties(ProgramTest):
    def test_causal_outputs_never_depend_on_later_tokens(self):
        generator = np.random.default_rng(404)
        n = 7
        queries, keys, values = random_inputs(generator, n, n, 3, 2)
        output = run_json(*inputs(queries, keys, values))["output"]
        for later in range(1, n):
            for changed in ("key", "value", "both"):
                other_keys, other_values = keys.copy(), values.copy()
                if changed in ("key", "both"):
                    other_keys[later] = generator.normal(size=3) * 5
                if changed in ("value", "both"):
                    other_values[later] = generator.normal(size=2) * 5
                with self.subTest(later=later, changed=changed):
                    other = run_json(*inputs(queries, other_keys, other_values))["output"]
                    self.assertEqual(other[:later], output[:later])  # bit for bit
                    self.assertNotEqual(other[later], output[later])

    def test_a_masked_weight_is_exactly_zero(self):
        generator = np.random.default_rng(4)
        n = 6
        queries, keys, values = random_inputs(generator, n, n, 4, 3)
        for spec in ["causal", "band:0", "band:1", "band:3", "pad:0", "pad:1", "pad:5"]:
            with self.subTest(mask=spec):
                document = run_json(*inputs(queries, keys, values), "--mask", spec)
                allowed = np.array(document["mask"])
                np.testing.assert_array_equal(allowed, numpy_mask(spec, n, n))
                weights = np.array(document["weights"])
                self.assertTrue(np.all(weights[~allowed] == 0.0))
                self.assertTrue(np.all(weights[allowed] > 0.0))

    def test_a_band_that_reaches_every_token_is_no_mask(self):
        generator = np.random.default_rng(12)
        n = 5
        arguments = inputs(*random_inputs(generator, n, n, 3, 2))
        unmasked = run_json(*arguments, "--mask", "none")
        for radius in (n - 1, n, 1024):
            with self.subTest(radius=radius):
                band = run_json(*arguments, "--mask", f"band:{radius}")
                self.assertEqual(band["weights"], unmasked["weights"])
                self.assertEqual(band["output"], unmasked["output"])
        narrower = run_json(*arguments, "--mask", f"band:{n - 2}")
        self.assertNotEqual(narrower["output"], unmasked["output"])

    def test_band_zero_returns_each_token_its_own_value(self):
        generator = np.random.default_rng(0)
        queries, keys, values = random_inputs(generator, 6, 6, 2, 3)
        document = run_json(*inputs(queries, keys, values), "--mask", "band:0")
        self.assertEqual(document["output"], values.tolist())

    def test_padding_masks_exactly_the_keys_from_n_on(self):
        generator = np.random.default_rng(30)
        n, m = 4, 6
        queries, keys, values = random_inputs(generator, n, m, 3, 2)
        for real in range(m + 1):
            with self.subTest(real_keys=real):
                document = run_json(*inputs(queries, keys, values), "--mask", f"pad:{real}")
                columns = np.array(document["mask"])
                self.assertEqual(columns.shape, (n, m))
                self.assertTrue(np.all(columns[:, :real]) and not np.any(columns[:, real:]))
                weights = np.array(document["weights"])
                self.assertTrue(np.all(weights[:, real:] == 0.0))

    def test_the_first_causal_output_is_the_first_value(self):
        generator = np.random.default_rng(1)
        for n, d, dv in [(1, 1, 1), (3, 2, 2), (8, 5, 4)]:
            queries, keys, values = random_inputs(generator, n, n, d, dv)
            with self.subTest(n=n):
                self.assertEqual(run_json(*inputs(queries, keys, values))["output"][0], values[0].tolist())

    def test_a_padded_sentence_gives_the_unpadded_outputs(self):
        padded = run_json("--tokens", "cat,eat,fish,<pad>", "--q", "1,0;0,1;1,1;0,0", "--k", "2,0;0,1;1,1;0,0",
                          "--v", "1,0;0,1;0.5,0.5;0,0", "--mask", "pad:3")
        unpadded = run_json("--mask", "none")
        np.testing.assert_allclose(padded["output"][:3], unpadded["output"], rtol=1e-15, atol=0)
        self.assertEqual([row[3] for row in padded["weights"]], [0.0] * 4)

    def test_a_query_with_no_key_to_look_at_gets_nothing_not_nan(self):
        document = run_json("--mask", "pad:0")
        self.assertEqual(document["weights"], [[0.0] * 3] * 3)
        self.assertEqual(document["output"], [[0.0] * 2] * 3)
        self.assertEqual(document["row_sums"], [0.0] * 3)
        self.assertEqual(document["fully_masked_rows"], [0, 1, 2])
        self.assertIn("cat may look at no key: its weights are all exactly 0", run("--mask", "pad:0").stdout)

    def test_with_a_finite_fill_that_query_averages_everything(self):
        document = run_json("--mask", "pad:0", "--fill", "-1e9")
        self.assertEqual(document["weights"], [[1 / 3] * 3] * 3)  # e^0 / (3 e^0) for every key
        np.testing.assert_allclose(document["output"], [np.mean(TOY_VALUES, axis=0)] * 3, rtol=1e-15)


class Leak(ProgramTest):
    def test_on_the_toy_only_a_fill_near_the_scores_leaks(self):
        document = run_json()
        # e^(−1000.7) is below the smallest positive double: the weight rounds to exactly 0.
        self.assertEqual(math.exp(-1000.7), 0.0)
        for fill in ("-inf", -1e9, -1000.0):
            with self.subTest(fill=fill):
                leak = leak_for(document, fill)
                self.assertEqual(leak["largest_masked_weight"], 0.0)
                self.assertEqual(leak["largest_output_change"], 0.0)
                self.assertIsNone(leak["query"])
        # Fill −10: the most leaks into eat's row (largest allowed score 1/√2, the smallest gap).
        leak = leak_for(document, -10.0)
        expected = math.exp(-10.0) / (1 + math.exp(1 / SQRT2) + math.exp(-10.0))
        self.assertAlmostEqual(leak["largest_masked_weight"] / expected, 1.0, delta=1e-13)
        self.assertEqual((leak["query"], leak["key"]), ("eat", "fish"))
        self.assertAlmostEqual(leak["smallest_gap"], 10 + 1 / SQRT2, delta=1e-12)
        self.assertAlmostEqual(leak_for(document, -1000.0)["smallest_gap"], 1000 + 1 / SQRT2, delta=1e-9)

    def test_minus_1000_leaks_when_the_real_scores_are_near_it(self):
        document = run_json("--q", "-700,0;0,1;1,1")
        own_score = -1400 / SQRT2  # cat's query against cat's key (2, 0), scaled
        self.assertAlmostEqual(document["scaled_scores"][0][0], own_score, delta=1e-10)
        ratio = math.exp(-1000 - own_score)  # each masked key against cat's own key
        leak = leak_for(document, -1000.0)
        self.assertAlmostEqual(leak["largest_masked_weight"] / (ratio / (1 + 2 * ratio)), 1.0, delta=1e-9)
        self.assertEqual(leak["query"], "cat")
        self.assertEqual(leak_for(document, -1e9)["largest_masked_weight"], 0.0)
        # Fill −10 sits above cat's own score: the two masked keys take almost everything.
        self.assertAlmostEqual(leak_for(document, -10.0)["largest_masked_weight"], 0.5, delta=1e-15)

    def test_the_leak_table_agrees_with_numpy(self):
        generator = np.random.default_rng(77)
        queries, keys, values = random_inputs(generator, 5, 5, 2, 2)
        queries *= 30  # scores of a few hundred, so that −1000 is close to some of them
        document = run_json(*inputs(queries, keys, values), "--mask", "band:1", "--fill", "-300")
        allowed = numpy_mask("band:1", 5, 5)
        _, exact_output = numpy_attention(queries, keys, values, allowed)
        fills = [row["fill"] for row in document["leak"]]
        self.assertEqual(fills, ["-inf", -1e9, -1000.0, -10.0, -300.0])
        for row in document["leak"]:
            fill = -np.inf if row["fill"] == "-inf" else row["fill"]
            weights, output = numpy_attention(queries, keys, values, allowed, fill)
            with self.subTest(fill=fill):
                self.assertAlmostEqual(row["largest_masked_weight"], weights[~allowed].max(),
                                       delta=1e-12 * max(1.0, weights[~allowed].max()))
                self.assertAlmostEqual(row["largest_output_change"], np.abs(output - exact_output).max(), delta=1e-10)

    @staticmethod
    def two_equal_scores(fill: str) -> dict:
        """One query, two keys that both score 0; the second masked with the fill: the gap is |fill|."""
        return run_json("--q", "1", "--k", "0;0", "--v", "1;2", "--mask", "pad:1", "--fill", fill)

    def test_a_finite_fill_leaks_at_most_e_to_the_minus_gap(self):
        # Chapter 4, "a finite fill leaves a masked weight above 0 but at most e^(−gap)": with two equal scores the
        # masked weight is e^fill / (1 + e^fill), by hand, below e^fill = e^(−gap).
        for fill in (-10.0, -100.0, -744.0):
            with self.subTest(fill=fill):
                document = self.two_equal_scores(repr(fill))
                self.assertEqual(leak_for(document, fill)["smallest_gap"], -fill)
                weight = document["weights"][0][1]
                self.assertGreater(weight, 0.0)
                self.assertLessEqual(weight, math.exp(fill) * (1 + 1e-12))
                by_hand = math.exp(fill) / (1 + math.exp(fill))
                self.assertAlmostEqual(weight / by_hand, 1.0, delta=1e-12)

    def test_beyond_a_gap_of_about_745_a_double_stores_0(self):
        # Chapter 4, "beyond a gap of about 745, a double stores the weight as exactly 0" (and "In short"): the smallest
        # positive double is 2^−1074, so e^x rounds to 0 below ln 2^−1075 ≈ −745.13.
        self.assertAlmostEqual(math.log(2.0 ** -1074) - math.log(2), -745.1332, delta=1e-4)
        for fill, positive in (("-744", True), ("-745.1", True), ("-745.2", False), ("-746", False)):
            with self.subTest(fill=fill):
                weight = self.two_equal_scores(fill)["weights"][0][1]
                self.assertEqual(weight > 0, positive, weight)

    def test_the_limits_of_double_and_single_precision(self):
        underflow = run_json()["underflow"]
        self.assertEqual(underflow["double_smallest_positive"], 5e-324)
        self.assertEqual(underflow["float_smallest_positive"], 2.0 ** -149)
        self.assertEqual(underflow["exp_of_minus_1000"], 0.0)
        self.assertAlmostEqual(underflow["double_exp_is_zero_below"], -1074 * math.log(2) - math.log(2), delta=1e-9)
        self.assertGreater(math.exp(underflow["double_exp_is_zero_below"] + 1e-9), 0.0)
        self.assertEqual(math.exp(underflow["double_exp_is_zero_below"] - 1e-9), 0.0)


class AgreesWithNumPy(ProgramTest):
    def test_random_inputs_and_masks(self):
        generator = np.random.default_rng(1706)
        cases = [(1, 1, 1, 1, "causal"), (3, 3, 2, 2, "band:1"), (6, 6, 4, 3, "causal"), (5, 8, 3, 2, "pad:6"),
                 (9, 9, 8, 5, "band:2"), (4, 7, 16, 3, "none"), (12, 12, 2, 2, "causal")]
        for n, m, d, dv, spec in cases:
            queries, keys, values = random_inputs(generator, n, m, d, dv)
            queries *= 3
            for fill in ("-inf", "-10", "-1e9"):
                with self.subTest(n=n, m=m, d=d, mask=spec, fill=fill):
                    document = run_json(*inputs(queries, keys, values), "--mask", spec, "--fill", fill)
                    weights, output = numpy_attention(queries, keys, values, numpy_mask(spec, n, m), float(fill))
                    np.testing.assert_allclose(document["weights"], weights, rtol=1e-12, atol=1e-15)
                    np.testing.assert_allclose(document["output"], output, rtol=1e-12, atol=1e-14)
                    np.testing.assert_allclose(document["scaled_scores"], queries @ keys.T / np.sqrt(d), rtol=1e-13,
                                               atol=1e-14)


class Fills(ProgramTest):
    def test_the_ways_to_write_a_fill(self):
        for text, expected in [("-inf", "-inf"), ("-Infinity", "-inf"), (" -1e9 ", -1e9), ("-1000", -1000.0),
                               ("+2", 2.0), ("-0.5", -0.5)]:
            with self.subTest(fill=text):
                self.assertEqual(run_json("--fill", text)["fill"], expected)


class HugeFills(ProgramTest):
    def test_the_largest_finite_fills_print_and_compare(self):
        # The fill and the gap are written in scientific notation; near the largest double the
        # rounded text must not overflow on the way.
        for fill in ("-1.5e308", "-1.7976931348623157e308"):
            with self.subTest(fill=fill):
                self.assertIn("Mask causal", run("--fill", fill).stdout)
        printed = run("--q", "7.976e307;7.976e307", "--k", "1;1", "--v", "1;1", "--fill", "-1e308").stdout
        self.assertIn("gap", printed)


class NonFiniteNumbers(ProgramTest):
    """JSON writes a non-finite number as "inf", "-inf" or "NaN", never null; an output that overflows is refused."""

    def assert_no_null_numbers(self, document):
        for row in document["leak"]:
            for key in ("fill", "largest_masked_weight", "largest_output_change", "smallest_gap", "gap_rows"):
                if key in row:
                    self.assertIsNotNone(row[key], f"{key} of the leak row for fill {row['fill']}")

    def test_the_gap_of_minus_infinity_is_inf_not_null(self):
        document = run_json()
        exact = leak_for(document, "-inf")
        self.assertEqual(exact["smallest_gap"], "inf")
        # cat and eat each have an allowed and a masked key; fish may look at every key.
        self.assertEqual(exact["gap_rows"], 2)
        self.assertEqual([row["gap_rows"] for row in document["leak"]], [2, 2, 2, 2])
        self.assert_no_null_numbers(document)

    def test_no_row_with_a_masked_key_is_said_by_a_count_not_by_null(self):
        for mask in ("none", "pad:0", "pad:3"):
            with self.subTest(mask=mask):
                document = run_json("--mask", mask)
                for row in document["leak"]:
                    self.assertEqual(row["gap_rows"], 0)
                    self.assertNotIn("smallest_gap", row)
                self.assert_no_null_numbers(document)
        # pad:2 leaves every row with two allowed keys and one masked key.
        self.assertEqual(leak_for(run_json("--mask", "pad:2"), -10.0)["gap_rows"], 3)

    def test_the_tables_still_show_no_gap_as_a_dash(self):
        printed = run("--mask", "pad:0").stdout
        # The first row under each table's heading: −∞'s gap and masked weight, then its output change.
        weights = printed.split("  masked weight  at\n")[1]
        self.assertEqual(weights.splitlines()[0].split(), ["-inf", "-", "0", "(exactly)", "-"])
        changes = printed.split("fill  largest output change\n")[1]
        self.assertEqual(changes.splitlines()[0].split(), ["-inf", "0"])

    def test_an_output_change_that_overflows_is_refused(self):
        # The finite fill 1e300 puts all the weight on the masked keys: cat's output moves from
        # 1.7e308 to −1.7e308, a change no double holds. It used to print inf, and null in JSON.
        values = ["--v", "1.7e308;-1.7e308;-1.7e308"]
        for extra in ([], ["--json"]):
            with self.subTest(json=bool(extra)):
                self.assert_refused(["--fill", "1e300", *values, *extra], "--v: with the fill 1e300, an output")
        # The same values under −∞ and the default fills change nothing that overflows.
        document = run_json(*values)
        self.assert_no_null_numbers(document)
        self.assertEqual(document["output"][0], [1.7e308])

    def test_a_weighted_sum_that_overflows_is_refused(self):
        # Weights that sum to 1 only after rounding take the largest double past itself.
        largest = "1.7976931348623157e308"
        self.assert_refused(["--mask", "none", "--q", "0.1;0.2", "--k", "0.3;0.1", "--v", f"{largest};{largest}"],
                            "--v: the weighted sum of the values overflows a double")

    def test_a_gap_that_overflows_is_refused(self):
        self.assert_refused(["--q", "1.5e308;1.5e308;1.5e308", "--k", "1;1;1", "--v", "1;1;1", "--fill", "-1.5e308"],
                            "--fill: the gap from the scores down to the fill -1.5e308 overflows a double")

    def test_random_huge_inputs_give_finite_numbers_or_a_refusal(self):
        generator = np.random.default_rng(308)
        for _ in range(12):
            values = generator.choice([-1.7976931348623157e308, 1.7976931348623157e308, 1e308, -3.0],
                                      size=(3, 2))
            fill = str(generator.choice(["-inf", "-10", "1e300", "-1.7976931348623157e308"]))
            result = run("--v", matrix_text(values), "--fill", fill, "--json", check=False)
            with self.subTest(values=values.tolist(), fill=fill):
                if result.returncode == 2:
                    self.assertEqual(len(result.stderr.splitlines()), 1)
                    self.assertTrue(result.stderr.startswith("masking: --"), result.stderr)
                    self.assertEqual(result.stdout, "")
                else:
                    self.assertEqual(result.returncode, 0, result.stderr)
                    document = json.loads(result.stdout)
                    self.assert_no_null_numbers(document)
                    for row in document["leak"]:
                        self.assertIsInstance(row["largest_output_change"], float)
                    self.assertTrue(np.isfinite(np.array(document["output"], dtype=float)).all())


class BadInput(ProgramTest):
    def test_each_bad_input_is_refused_with_one_line(self):
        two_queries = ["--q", "1,0;0,1"]
        cases = [
            (["--mask", "band:-1"], "--mask: the radius R of band:R is -1, negative"),
            (["--mask", "band:x"], "--mask: the radius R of band:R is 'x', not a whole number"),
            (["--mask", "band:1.5"], "--mask: the radius R of band:R is '1.5'"),
            (["--mask", "band"], "--mask: 'band' needs a number after a colon"),
            (["--mask", "pad:4"], "--mask: the number N of real keys in pad:N is 4, too large"),
            (["--mask", "pad:"], "--mask: the number N of real keys in pad:N is empty"),
            (["--mask", "pad:-2"], "--mask: the number N of real keys in pad:N is -2, negative"),
            ([*two_queries, "--mask", "causal"], "--mask: causal compares positions, so it needs as many queries as"),
            ([*two_queries, "--mask", "band:1"], "--mask: band compares positions"),
            (["--mask", "future"], "--mask: 'future' is not a mask; expected none, causal, band:R"),
            (["--mask", ""], "--mask is empty"),
            (["--mask", "causal:2"], "--mask: 'causal' takes nothing after ':'"),
            (["--mask", "band:5000"], "--mask: the radius R of band:R is 5000, too large"),
            (["--fill", "nan"], "--fill is 'nan'; expected a finite number or -inf"),
            (["--fill", "inf"], "--fill is 'inf'; expected a finite number or -inf"),
            (["--fill", "+inf"], "--fill is '+inf'"),
            (["--fill", "1e999"], "--fill is '1e999', too large for a double"),
            (["--fill", "-1e999"], "--fill is '-1e999', too large for a double"),
            (["--fill", "minus a lot"], "--fill is 'minus a lot'; expected a number"),
            (["--fill", ""], "--fill is empty"),
            (["--fill"], "--fill"),
            (["--v", "1,0;0,1"], "--v: 2 values for 3 keys"),
            (["--q", "1e200,1e200;0,1;1,1", "--k", "1e200,1e200;0,1;1,1"], "--q, --k: the score of query 1 against key 1 overflows"),
            (["--unmask"], "--unmask"),
            (["--q", "1e200", "--k", "-1e200", "--v", "1", "--mask", "none"], "--q, --k: the score of query 1 against key 1 overflows"),
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--mask", "--fill")


class JudgmentsInTheProse(ProgramTest):
    """Sentences of chapter 4 that judge computed numbers, checked on the runs they read."""

    ANTI_ALIGNED = ["--q", "-700,0; 0,1; 1,1"]

    def test_with_minus_10_cats_output_is_mostly_the_future(self):
        weights = run_json(*self.ANTI_ALIGNED, "--fill", "-10")["weights"][0]
        self.assertGreater(weights[1] + weights[2], 0.5)  # eat and fish, which cat must not see
        self.assertLess(weights[0], 0.5)

    def test_minus_1000_stores_no_leak_on_the_toy_and_minus_10_does(self):
        document = run_json()
        self.assertEqual(leak_for(document, -1000.0)["largest_masked_weight"], 0.0)
        self.assertGreater(leak_for(document, -10.0)["largest_masked_weight"], 0.0)
        self.assertGreater(leak_for(document, -1000.0)["smallest_gap"], document["underflow"]["double_underflow_gap"])
        self.assertLess(document["underflow"]["float_underflow_gap"], document["underflow"]["double_underflow_gap"])

    def test_without_the_band_frame_1_weighs_its_twin_as_itself(self):
        frames = ["--tokens", "f1,f2,f3,f4,f5,f6,f7,f8",
                  "--q", "2,0; 0,2; -2,0; 0,-2; 2,0; 0,2; -2,0; 0,-2",
                  "--k", "2,0; 0,2; -2,0; 0,-2; 2,0; 0,2; -2,0; 0,-2", "--v", "1; 2; 3; 4; 5; 6; 7; 8"]
        weights = run_json(*frames, "--mask", "none")["weights"][0]
        self.assertAlmostEqual(weights[4], weights[0], delta=1e-15)
        self.assertEqual(run_json(*frames, "--mask", "band:2")["weights"][0][4], 0.0)
        # The band figure's alt text: with the band, each row's largest weight is on the diagonal.
        banded = np.array(run_json(*frames, "--mask", "band:2")["weights"])
        self.assertEqual(list(np.argmax(banded, axis=1)), list(range(8)))

    def test_minus_1e9_leaks_nothing_even_for_the_anti_aligned_query(self):
        document = run_json(*self.ANTI_ALIGNED)
        self.assertEqual(leak_for(document, -1e9)["largest_masked_weight"], 0.0)
        self.assertGreater(leak_for(document, -1000.0)["largest_masked_weight"], 0.0)


    @staticmethod
    def frames(run_name: str):
        """The band runs' eight frames as NumPy arrays, and the run."""
        document = published_run(run_name)
        return (np.array(document["queries"]), np.array(document["keys"]), np.array(document["values"])), document

    def test_the_band_takes_frame_1s_twin_out_of_reach(self):
        # "Without a mask … its output is 3.22. Under band:2 the twin is out of reach: the output drops to 1.06".
        # NumPy's attention under no mask and under band:2.
        (queries, keys, values), banded = self.frames("masking_band")
        unmasked = published_run("masking_band_none")
        for document, spec in ((unmasked, "none"), (banded, "band:2")):
            _, output = numpy_attention(queries, keys, values, numpy_mask(spec, 8, 8))
            np.testing.assert_allclose(document["output"], output, rtol=1e-12, atol=1e-15)
        self.assertLess(banded["output"][0][0], unmasked["output"][0][0])

    def test_without_the_band_every_frame_splits_between_itself_and_its_twin(self):
        # The band figure's caption: "Without the band each frame splits its attention between itself and its twin
        # four positions away". Frame i and frame i + 4 carry the same query and key: the two largest scores, equal.
        (queries, keys, _), document = self.frames("masking_band_none")
        np.testing.assert_array_equal(queries[:4], queries[4:])
        np.testing.assert_array_equal(keys[:4], keys[4:])
        weights = np.array(document["weights"])
        for i, row in enumerate(weights):
            twin = (i + 4) % 8
            with self.subTest(frame=i + 1):
                self.assertAlmostEqual(row[twin], row[i], delta=1e-14)
                others = np.delete(row, [i, twin])
                self.assertGreater(row[i], others.max())

    def test_frame_3s_weights_balance_around_its_own_position(self):
        # "These weights are balanced around frame 3, so its average position is its own, 3.00." Frame 3's query
        # (−2, 0) scores −4, 0, 4, 0, −4 against frames 1 to 5, symmetric about frame 3; the values are the positions.
        _, document = self.frames("masking_band")
        weights = document["weights"][2]
        self.assertAlmostEqual(weights[1], weights[3], delta=1e-15)
        self.assertAlmostEqual(weights[0], weights[4], delta=1e-15)
        self.assertAlmostEqual(document["output"][2][0], 3.0, delta=1e-12)
        # "The band allows 34 of the pairs and masks the other 30": counted from the band's definition, |i − j| ≤ 2.
        allowed = int(numpy_mask("band:2", 8, 8).sum())
        self.assertEqual((document["allowed_entries"], document["masked_entries"]), (allowed, 64 - allowed))

    def test_changing_fishs_value_moves_only_fishs_output(self):
        # "cat's output stays … and eat's stays …; only fish's moves": the causal mask keeps fish's value from the
        # earlier rows, so their outputs are the first run's bit for bit.
        first, changed = published_run("masking"), published_run("masking_changed_future")
        self.assertEqual(first["values"][:2], changed["values"][:2])
        self.assertNotEqual(first["values"][2], changed["values"][2])
        self.assertEqual(changed["output"][:2], first["output"][:2])
        self.assertNotEqual(changed["output"][2], first["output"][2])

    def test_multiplying_by_the_mask_fails_three_ways_and_adding_works(self):
        # "Replace or add, never multiply", on cat's scaled row. IEEE 754 says 0 × (−∞) is NaN and ∞ − ∞ is NaN.
        toy = published_run("masking")
        allowed = np.array(toy["mask"])
        cat = np.array(toy["scaled_scores"][0])
        masked = ~allowed[0]
        # "None of the toy's masked scores is below 0" (cat's score on eat is exactly 0).
        self.assertTrue((np.array(toy["scaled_scores"])[~allowed] >= 0).all())
        # Times 0: the masked scores become 0, ordinary scores, and take normal shares.
        self.assertTrue((stable_softmax(cat * allowed[0])[masked] > 0.1).all())
        # Times −∞: cat's masked score of 0 gives NaN, and NaN spreads to every weight of the row.
        with np.errstate(invalid="ignore"):
            times_infinity = cat * np.where(allowed[0], 1.0, -np.inf)
        self.assertTrue(np.isnan(stable_softmax(times_infinity)).all())
        # Times −∞, a masked score below 0 (the anti-aligned query's score on fish) becomes +∞; the shift, ∞ − ∞,
        # makes the row NaN. Cat's own score and that one, alone.
        anti = published_run("masking_anti_aligned")
        own, on_fish = anti["scaled_scores"][0][0], anti["scaled_scores"][0][2]
        self.assertLess(on_fish, 0)
        row = np.array([own, on_fish]) * np.array([1.0, -np.inf])
        self.assertEqual(row[1], np.inf)
        self.assertTrue(np.isnan(stable_softmax(row)).all())
        # Added, M = np.where(allowed, 0.0, -np.inf): the program's causal weights.
        scores = np.array(toy["scaled_scores"]) + np.where(allowed, 0.0, -np.inf)
        np.testing.assert_allclose(toy["weights"], [stable_softmax(row) for row in scores], rtol=1e-13, atol=0)

    def test_a_fill_above_cats_only_score_hands_its_row_to_the_masked_keys(self):
        # Try it, --q "-1000,0; 0,1; 1,1" --fill -1000: "cat's only allowed score, −1000 · 2/√2, is below the fill, so
        # the 'masked' keys dominate". Each masked key against cat's own: e^(−1000 + 1000·√2) = e^414.
        document = run_json("--q", "-1000,0; 0,1; 1,1", "--fill", "-1000")
        self.assertAlmostEqual(document["scaled_scores"][0][0], -1000 * SQRT2, delta=1e-9)
        weights = document["weights"][0]
        self.assertGreater(weights[1] + weights[2], 0.999)
        self.assertLess(weights[0], 1e-100)

    def test_without_the_mask_the_pad_key_takes_a_share(self):
        # "Without the mask, <pad>'s key would score 0, an ordinary score, and take a share": the all-zero key scores
        # 0 against every query, and NumPy's attention gives it e^0 over the row's sum, more than 0.
        padded = published_run("masking_padding")
        queries, keys, values = (np.array(padded[name]) for name in ("queries", "keys", "values"))
        document = run_json("--tokens", ",".join(padded["query_tokens"]), *inputs(queries, keys, values),
                            "--mask", "none")
        weights, _ = numpy_attention(queries, keys, values, numpy_mask("none", 4, 4))
        np.testing.assert_allclose(document["weights"], weights, rtol=1e-12, atol=1e-15)
        self.assertEqual([row[3] for row in document["scores"]], [0.0] * 4)
        self.assertTrue(all(row[3] > 0 for row in document["weights"]))

class FillLeakFigure(ProgramTest):
    """figures/ch04_fill_leak.py: a weight of exactly 0 never sits on the log
    axis, the double's curve stops where a double stores 0, and the two
    measured series are told apart."""

    @classmethod
    def setUpClass(cls):
        import importlib.util
        import sys
        from pathlib import Path
        figures = Path(__file__).resolve().parents[2] / "figures"
        sys.path.insert(0, str(figures))
        spec = importlib.util.spec_from_file_location("ch04_fill_leak", figures / "ch04_fill_leak.py")
        cls.figure_module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.figure_module)
        cls.runs = {"masking": run_json(), "masking_anti_aligned": run_json(*JudgmentsInTheProse.ANTI_ALIGNED)}

    def test_the_points_and_where_they_go(self):
        points = self.figure_module.measured_points(self.runs)
        on_log = [p for p in points if p["on_log_axis"]]
        at_zero = [p for p in points if not p["on_log_axis"]]
        self.assertTrue(all(p["weight"] > 0 for p in on_log))
        self.assertTrue(all(p["weight"] == 0 for p in at_zero))
        self.assertEqual({p["run"] for p in on_log}, {"masking", "masking_anti_aligned"})
        self.assertEqual([(p["run"], p["fill"]) for p in at_zero], [("masking", -1000.0)])

    def test_the_double_curve_stops_where_a_double_stores_0(self):
        limit = self.runs["masking"]["underflow"]["double_underflow_gap"]
        curves = self.figure_module.bound_curves(limit)
        double_gaps, double_log10 = curves["double"]
        exact_gaps, _ = curves["exact_only"]
        self.assertEqual(double_gaps.max(), limit)
        self.assertEqual(exact_gaps.min(), limit)
        self.assertTrue(np.isfinite(double_log10).all())
        # Past the limit a double's e^(−gap) is exactly 0; up to it, positive.
        self.assertEqual(math.exp(-(limit + 1)), 0.0)
        self.assertGreater(math.exp(-(limit - 1)), 0.0)

    def test_the_drawn_figure(self):
        figure, panels = self.figure_module.build_figure(self.runs)
        limit = self.runs["masking"]["underflow"]["double_underflow_gap"]
        log_axes, zero_axes, inset = panels["log"], panels["zero"], panels["inset"]
        # No "0" among the log axis's ticks; the zero row has exactly one, named.
        self.assertNotIn("0", [label.get_text() for label in log_axes.get_yticklabels()])
        self.assertEqual([label.get_text() for label in zero_axes.get_yticklabels()], ["exactly 0"])
        # Every line on the log panel: finite values; solid only up to the limit.
        for line in log_axes.get_lines():
            x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
            self.assertTrue(np.isfinite(y).all())
            if line.get_linestyle() == "-" and x.size > 2:
                self.assertLessEqual(x.max(), limit)
        self.assertTrue(any(line.get_linestyle() == ":" and np.max(line.get_xdata()) > limit
                            for line in log_axes.get_lines()))
        # The zero row holds the point of weight 0, nothing of the log panel.
        zero_markers = [line for line in zero_axes.get_lines() if line.get_marker() not in ("None", "", None)]
        self.assertEqual(len(zero_markers), 1)
        # The two measured series: different markers and colours, at different places, both in the legend.
        measured = [line for line in inset.get_lines() if line.get_marker() in ("o", "s")]
        self.assertEqual(sorted(line.get_marker() for line in measured), ["o", "s"])
        self.assertNotEqual(measured[0].get_color(), measured[1].get_color())
        self.assertNotEqual(float(measured[0].get_xdata()[0]), float(measured[1].get_xdata()[0]))
        legend = [text.get_text() for text in log_axes.get_legend().get_texts()]
        self.assertTrue(any("toy" in text for text in legend))
        self.assertTrue(any("−700" in text for text in legend))
        self.figure_module.plt.close(figure)


if __name__ == "__main__":
    unittest.main()
