"""build/bin/other_layers, chapter 9: additive attention, cross attention, and a
convolution computed as multi-head self-attention. Every reference below is
written here from the definitions, with NumPy, not from the program's code."""
import decimal
import math
import unittest

import numpy as np

from harness import WIDE_PROCESSOR_NAME, ProgramTest, published_run, quartile_spread, run, run_json, spread_rule

TOY_Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
TOY_K = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
TOY_V = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])


def matrix_text(matrix) -> str:
    return ";".join(",".join(repr(float(x)) for x in row) for row in np.atleast_2d(matrix))


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def numpy_additive(queries, keys, values, w_q, w_k, v):
    """score(q, k) = vᵀ tanh(W_q q + W_k k), with the projections on the right (row convention)."""
    hidden = np.tanh((queries @ w_q)[:, None, :] + (keys @ w_k)[None, :, :])  # n × m × d_a
    scores = hidden @ v
    weights = softmax_rows(scores)
    return scores, weights, weights @ values


def numpy_dot(queries, keys, values):
    weights = softmax_rows(queries @ keys.T / np.sqrt(queries.shape[1]))
    return weights, weights @ values


def numpy_convolution(x, taps):
    """y_i = Σ_δ x_{i+δ} W_δ for δ = −R … R, zero beyond the ends."""
    n, radius = x.shape[0], len(taps) // 2
    y = np.zeros((n, taps[0].shape[1]))
    for t, tap in enumerate(taps):
        delta = t - radius
        for i in range(n):
            if 0 <= i + delta < n:
                y[i] += x[i + delta] @ tap
    return y


def kernel_text(taps) -> str:
    return " | ".join(matrix_text(tap) for tap in taps)


class Additive(ProgramTest):
    def test_the_toy_against_numpy(self):
        document = run_json("--no-timing")
        self.assertEqual(document["demo"], "additive")
        w = np.eye(2)
        scores, weights, output = numpy_additive(TOY_Q, TOY_K, TOY_V, w, w, np.ones(2))
        np.testing.assert_allclose(document["additive"]["scores"], scores, rtol=0, atol=1e-14)
        np.testing.assert_allclose(document["additive"]["weights"], weights, rtol=0, atol=1e-14)
        np.testing.assert_allclose(document["additive"]["output"], output, rtol=0, atol=1e-14)
        dot_weights, dot_output = numpy_dot(TOY_Q, TOY_K, TOY_V)
        np.testing.assert_allclose(document["dot_product"]["weights"], dot_weights, rtol=0, atol=1e-15)
        np.testing.assert_allclose(document["dot_product"]["output"], dot_output, rtol=0, atol=1e-15)
        # By hand: cat (1,0) against cat's key (2,0) scores tanh(3) + tanh(0).
        self.assertAlmostEqual(document["additive"]["scores"][0][0], np.tanh(3.0), delta=1e-15)
        # The two scorings disagree on where cat looks: fish under additive, cat under the dot product.
        self.assertEqual(document["additive"]["largest_weight_on"][0], "fish")
        self.assertEqual(document["dot_product"]["largest_weight_on"][0], "cat")
        self.assertIsNone(document["timing"])

    def test_random_inputs_and_weights_against_numpy(self):
        generator = np.random.default_rng(9)
        for n, m, d_k, d_a, d_v in [(1, 1, 1, 1, 1), (3, 5, 4, 2, 3), (6, 2, 3, 7, 1)]:
            q, k, v = generator.normal(size=(n, d_k)), generator.normal(size=(m, d_k)), generator.normal(size=(m, d_v))
            w_q, w_k, vec = generator.normal(size=(d_k, d_a)), generator.normal(size=(d_k, d_a)), generator.normal(size=d_a)
            document = run_json("--q", matrix_text(q), "--k", matrix_text(k), "--v", matrix_text(v),
                                "--wq", matrix_text(w_q), "--wk", matrix_text(w_k),
                                "--va", ",".join(repr(float(x)) for x in vec), "--no-timing")
            scores, weights, output = numpy_additive(q, k, v, w_q, w_k, vec)
            np.testing.assert_allclose(document["additive"]["scores"], scores, rtol=1e-13, atol=1e-13)
            np.testing.assert_allclose(document["additive"]["weights"], weights, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(document["additive"]["output"], output, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(document["additive"]["row_sums"], np.ones(n), rtol=0, atol=1e-15)
            self.assertLess(document["largest_abs_score"], document["score_bound"])
            self.assertAlmostEqual(document["score_bound"], np.abs(vec).sum(), delta=1e-13)

    def test_scores_stay_bounded_for_huge_queries(self):
        document = run_json("--q", "1e6,0; 0,1e6; 1e6,1e6", "--no-timing")
        self.assertLessEqual(document["largest_abs_score"], 2.0)
        # Chapter 9's fold: "In doubles, the tanh of an input above about 19 rounds to exactly 1, so with queries a
        # million times longer a score can equal the bound." 1 − tanh x = 2/(e^(2x) + 1), worked out here to 40
        # digits: tanh x rounds to 1 once that is at most half the gap below 1, 2^−54, from x = 55 ln 2 / 2 ≈ 19.06.
        with decimal.localcontext(decimal.Context(prec=40)):
            def below_one(x: str):
                return 2 / ((2 * decimal.Decimal(x)).exp() + 1)

            half_gap = decimal.Decimal(2) ** -54
            self.assertGreater(below_one("19.0"), half_gap)
            self.assertLess(below_one("19.07"), half_gap)
        self.assertEqual(math.tanh(20.0), 1.0)  # well past the threshold, whatever the maths library
        # The query (1e6, 1e6) against every key: two tanh of about 1e6, each exactly 1, so the score is ‖v‖₁ = 2.
        self.assertEqual(document["score_bound"], 2.0)
        self.assertEqual(document["largest_abs_score"], 2.0)
        np.testing.assert_allclose(document["additive"]["row_sums"], np.ones(3), rtol=0, atol=1e-15)

    def test_a_small_v_prints_its_bound_not_zero(self):
        # ‖v‖₁ = 2e-5 bounds every score; four decimals would print both numbers as 0.
        output = run("--va", "2e-5,0", "--no-timing").stdout
        lines = output.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("Largest |additive score|"))
        self.assertNotEqual(lines[at], "Largest |additive score|: 0")
        self.assertEqual(lines[at + 1], "No additive score passes ‖v‖₁ = 2e-05")

    def test_timing_has_its_shape_but_no_verdict_is_asserted(self):
        document = run_json("--time-n", "2,4")
        timing = document["timing"]
        self.assertEqual([row["n"] for row in timing["rows"]], [2, 4])
        for row in timing["rows"]:
            for kind in ("dot_product", "additive"):
                summary = row[kind]
                self.assertEqual(len(summary["samples"]), timing["repeats"])
                self.assertLessEqual(summary["spread_low"], summary["median"])
                self.assertLessEqual(summary["median"], summary["spread_high"])
            self.assertIn(row["faster"], ("dot_product", "additive", "too_close"))
        self.assertTrue(timing["summary"].endswith("."))
        self.check_comparison(timing)

    def test_the_books_timing_follows_the_spread_rule(self):
        # "By chapter 7's spread rule: <the summary>", "The additive scores took <time_ratio> times as long", and
        # the fold's rule: "The spread runs from its fastest to its slowest repetition, once the fastest and the
        # slowest quarter are left out … If the two spreads overlap, the two are too close to call." Which scoring
        # was faster differs by machine; that the page's verdicts follow from its own samples does not.
        self.check_comparison(published_run("other_layers")["timing"])

    def check_comparison(self, timing):
        """Every median, spread, ratio and verdict the program wrote, recomputed from its own samples by the rule
        chapter 7 states (its check_comparison does the same for the attention and the recurrent layer)."""
        verdicts = {"dot_product": [], "additive": [], "too_close": []}
        for row in timing["rows"]:
            with self.subTest(n=row["n"]):
                for kind in ("dot_product", "additive"):
                    samples = row[kind]["samples"]
                    self.assertEqual(row[kind]["median"], np.median(samples))
                    self.assertEqual((row[kind]["spread_low"], row[kind]["spread_high"]), quartile_spread(samples))
                dot, additive = row["dot_product"], row["additive"]
                expected = {"faster": "dot_product", "slower": "additive"}.get(spread_rule(
                    (dot["spread_low"], dot["spread_high"]), (additive["spread_low"], additive["spread_high"])),
                    "too_close")
                self.assertEqual(row["faster"], expected)
                verdicts[expected].append(row["n"])
                # "The additive scores took … times as long": the ratio of the medians, additive over dot product.
                self.assertAlmostEqual(row["time_ratio"], additive["median"] / dot["median"],
                                       delta=1e-12 * row["time_ratio"])
        # The summary the prose prints names each length under its verdict, and no other.
        phrases = {"dot_product": "dot-product scoring was faster at", "additive": "additive scoring was faster at",
                   "too_close": "the two were too close to call at"}
        summary = timing["summary"].lower()
        for verdict, lengths in verdicts.items():
            with self.subTest(verdict=verdict):
                if not lengths:
                    self.assertNotIn(phrases[verdict], summary)
                    continue
                listed = ", ".join(map(str, lengths[:-1])) + " and " if len(lengths) > 1 else ""
                self.assertIn(f"{phrases[verdict]} n = {listed}{lengths[-1]}", summary)


class MachineText(ProgramTest):
    def test_the_timing_report_keeps_its_width_on_any_machine(self):
        document = self.assert_report_keeps_its_width("--time-n", "2,4")
        self.assertEqual(document["timing"]["machine"], WIDE_PROCESSOR_NAME)


class JudgmentsInTheProse(ProgramTest):
    """Sentences of chapter 9 that judge computed numbers: each recomputed here."""

    def test_additive_weights_are_flatter_on_the_toy(self):
        document = run_json("--no-timing")
        additive = np.array(document["additive"]["weights"])
        dot = np.array(document["dot_product"]["weights"])
        # The prose names the extreme entries by position.
        self.assertEqual(additive.min(), additive[1][1])
        self.assertEqual(additive.max(), additive[0][2])
        self.assertEqual(dot.min(), dot[0][1])
        self.assertEqual(dot.max(), dot[0][0])
        self.assertLess(additive.max() - additive.min(), dot.max() - dot.min())

    def test_the_ties_in_the_last_lines_name_the_first_key(self):
        document = run_json("--no-timing")
        tokens = document["key_tokens"]
        # (scoring, query row, the two tied keys) as the prose and its fold name them.
        ties = [("additive", 1, (0, 2)), ("dot_product", 1, (1, 2)), ("dot_product", 2, (0, 2))]
        for scoring, row, (first, second) in ties:
            with self.subTest(scoring=scoring, row=row):
                weights = np.array(document[scoring]["weights"][row])
                self.assertEqual(weights[first], weights[second])
                self.assertEqual(weights.max(), weights[first])
                self.assertEqual(document[scoring]["largest_weight_on"][row], tokens[first])
                self.assertEqual(document[scoring]["tied_with_largest"][row], [tokens[second]])
        # Exactly these three rows tie, each between two keys; every other row has one largest weight.
        for scoring in ("additive", "dot_product"):
            for row, weights in enumerate(document[scoring]["weights"]):
                with self.subTest(scoring=scoring, row=row):
                    weights = np.array(weights)
                    tied = any(scoring == s and row == r for s, r, _ in ties)
                    self.assertEqual(np.count_nonzero(weights == weights.max()), 2 if tied else 1)
                    if not tied:
                        self.assertEqual(document[scoring]["tied_with_largest"][row], [])

    def test_the_scores_that_show_tanh_flattening(self):
        document = run_json("--no-timing")
        scores = document["additive"]["scores"]
        # Eat's query (0, 1) plus its own key (0, 1) is (0, 2): tanh(0) + tanh(2).
        self.assertEqual(document["queries"][1], [0.0, 1.0])
        self.assertEqual(document["keys"][1], [0.0, 1.0])
        self.assertAlmostEqual(scores[1][1], np.tanh(2.0), delta=1e-15)
        self.assertAlmostEqual(scores[0][0], np.tanh(3.0), delta=1e-15)

    def test_the_gaps_in_the_toys_rows_are_far_smaller_than_the_cap_allows(self):
        # Chapter 9's fold on the bound: every score lies within ±‖v‖₁, so "Two scores in one row may lie up to
        # twice the bound apart … But the gaps in the toy's rows are far smaller than the cap allows". The toy's
        # scores from NumPy (W_q = W_k = I, v = (1, 1), as the program's document says); "far smaller" read as
        # below a quarter of 2‖v‖₁ (the book's rows: 0.73, 0.76 and 0.20 against 4).
        document = run_json("--no-timing")
        v = np.array(document["v"])
        np.testing.assert_array_equal(v, np.ones(2))
        for weights in ("W_q", "W_k"):
            np.testing.assert_array_equal(document[weights], np.eye(2))
        scores, _, _ = numpy_additive(TOY_Q, TOY_K, TOY_V, np.eye(2), np.eye(2), v)
        allowed_gap = 2 * np.abs(v).sum()
        for row, row_scores in enumerate(scores):
            with self.subTest(row=document["query_tokens"][row]):
                self.assertLess(row_scores.max() - row_scores.min(), allowed_gap / 4)

    def test_the_cross_example_as_described(self):
        document = run_json("--demo", "cross")
        columns = document["column_sums"]
        self.assertGreater(columns[1], columns[0])  # Katze receives more than die
        self.assertNotAlmostEqual(columns[0], 1.0, places=3)
        weights = document["weights"]
        self.assertGreater(weights[0][0], weights[0][2])  # die, sharing Katze's direction, beats frisst for cat
        # Cat's output row points mostly along Katze's axis, the one axis Katze's vector has.
        self.assertEqual(document["source_tokens"][1], "Katze")
        katze = np.array(document["source"][1])
        self.assertEqual(np.count_nonzero(katze), 1)
        cat_output = np.array(document["output"][0])
        self.assertEqual(int(np.argmax(cat_output)), int(np.flatnonzero(katze)[0]))
        self.assertGreater(cat_output.max(), cat_output.sum() - cat_output.max())

    def test_the_single_product_is_exact_on_small_integers(self):
        # "even one product Concat·W^O agrees (the last line: 0)", "because small integers add exactly in any
        # order": every input and tap of the example is a small integer (checked here), so every partial sum is an
        # integer far below 2⁵³, exact whatever order the matrix library adds in.
        document = run_json("--demo", "convolution")
        numbers = np.concatenate([np.ravel(document["inputs"])] + [np.ravel(tap) for tap in document["taps"]])
        self.assertTrue(np.all(numbers == np.round(numbers)) and np.abs(numbers).max() < 100)
        self.assertEqual(document["single_product_difference"], 0.0)

    def test_a_kernel_of_width_one_copies_the_input(self):
        # "a kernel of width one: one head, offset 0, and the output is the input": x · I = x, and a head whose
        # weight row is one-hot on the token itself copies that token's row exactly.
        document = run_json("--demo", "convolution", "--kernel", "1,0;0,1")
        self.assertEqual(document["offsets"], [0])
        self.assertEqual(len(document["heads"]), 1)
        self.assertEqual(document["attention_output"], document["inputs"])

    def test_cats_query_at_3_3_evens_out_the_additive_weights_only(self):
        # The explorer's caption: "Push both of cat's entries to 3: its additive weights even out, since every tanh
        # nears 1 and no score can pass ‖v‖₁, while the dot-product weights stay uneven." Each additive score of
        # cat is tanh(3 + k₁) + tanh(3 + k₂) with keys ≥ 0: between 2·tanh 3 = 1.990 and 2, so the weights lie
        # within e^0.01 of each other, 1 % of 1/3. The dot product scores 6, 3 and 6 over √2: far apart.
        document = run_json("--q", "3,3;0,1;1,1", "--no-timing")
        queries = np.array([[3.0, 3.0], [0.0, 1.0], [1.0, 1.0]])
        _, additive, _ = numpy_additive(queries, TOY_K, TOY_V, np.eye(2), np.eye(2), np.ones(2))
        dot, _ = numpy_dot(queries, TOY_K, TOY_V)
        np.testing.assert_allclose(document["additive"]["weights"], additive, rtol=0, atol=1e-14)
        np.testing.assert_allclose(document["dot_product"]["weights"], dot, rtol=0, atol=1e-15)
        self.assertLess(np.ptp(document["additive"]["weights"][0]), 0.01)  # cat's row
        self.assertGreater(np.ptp(document["dot_product"]["weights"][0]), 0.3)

    def test_row_by_row_the_additive_weights_are_flatter_but_in_eats_row(self):
        # "In cat's row and fish's row the additive scores lie closer together than the scaled dot products, so
        # their weights are flatter. Eat's row is the exception, by a small margin." From NumPy's scores of the toy:
        # eat's additive gap is tanh 2 + tanh 1 − tanh 2 = tanh 1 = 0.762, its scaled dot products' 1/√2 = 0.707.
        document = run_json("--no-timing")
        additive_scores, additive_weights, _ = numpy_additive(TOY_Q, TOY_K, TOY_V, np.eye(2), np.eye(2), np.ones(2))
        dot_weights, _ = numpy_dot(TOY_Q, TOY_K, TOY_V)
        dot_scores = TOY_Q @ TOY_K.T / np.sqrt(2)
        np.testing.assert_allclose(document["dot_product"]["scaled_scores"], dot_scores, rtol=0, atol=1e-15)
        for row, name in enumerate(("cat", "eat", "fish")):
            with self.subTest(row=name):
                additive_closer = np.ptp(additive_scores[row]) < np.ptp(dot_scores[row])
                self.assertEqual(additive_closer, name != "eat")
                shown = {scoring: np.ptp(document[scoring]["weights"][row]) for scoring in ("additive", "dot_product")}
                self.assertEqual(shown["additive"] < shown["dot_product"], name != "eat")
                self.assertEqual(np.ptp(additive_weights[row]) < np.ptp(dot_weights[row]), name != "eat")
        self.assertAlmostEqual(np.ptp(additive_scores[1]), np.tanh(1.0), delta=1e-15)
        self.assertLess(np.ptp(additive_scores[1]) - np.ptp(dot_scores[1]), 0.1)  # "by a small margin"


class Cross(ProgramTest):
    def test_the_example_against_numpy(self):
        document = run_json("--demo", "cross")
        source = np.array(document["source"])
        target = np.array(document["target"])
        self.assertEqual((document["n"], document["m"]), (3, 4))
        self.assertEqual(np.array(document["weights"]).shape, (3, 4))
        weights, output = numpy_dot(target, source, source)
        np.testing.assert_allclose(document["weights"], weights, rtol=0, atol=1e-15)
        np.testing.assert_allclose(document["output"], output, rtol=0, atol=1e-15)
        np.testing.assert_allclose(document["row_sums"], np.ones(3), rtol=0, atol=1e-15)
        self.assertAlmostEqual(sum(document["column_sums"]), 3.0, delta=1e-14)
        self.assertEqual(document["largest_weight_on"], ["Katze", "frisst", "Fisch"])

    def test_other_lengths_give_other_rectangles(self):
        generator = np.random.default_rng(3)
        for n, m, d in [(1, 7, 2), (5, 2, 3), (2, 2, 1)]:
            source, target = generator.normal(size=(m, d)), generator.normal(size=(n, d))
            document = run_json("--demo", "cross", "--source", matrix_text(source), "--target", matrix_text(target),
                                "--source-tokens", ",".join(f"s{j}" for j in range(m)),
                                "--target-tokens", ",".join(f"t{i}" for i in range(n)))
            weights, output = numpy_dot(target, source, source)
            self.assertEqual(np.array(document["weights"]).shape, (n, m))
            self.assertEqual(np.array(document["output"]).shape, (n, d))
            np.testing.assert_allclose(document["weights"], weights, rtol=1e-13, atol=1e-15)
            np.testing.assert_allclose(document["output"], output, rtol=1e-13, atol=1e-14)
            np.testing.assert_allclose(document["row_sums"], np.ones(n), rtol=0, atol=1e-15)

    def test_one_target_word_as_the_book_invites(self):
        # The chapter's "try it": --target "0,0,1" alone. The default names do not fit one row,
        # so the row is numbered, as chapters 1 to 8 number rows that their default names do not fit.
        document = run_json("--demo", "cross", "--target", "0,0,1")
        source = np.array(document["source"])
        weights, output = numpy_dot(np.array([[0.0, 0.0, 1.0]]), source, source)
        self.assertEqual((document["n"], document["m"]), (1, 4))
        self.assertEqual(document["target_tokens"], ["t1"])
        self.assertEqual(document["source_tokens"], ["die", "Katze", "frisst", "Fisch"])
        np.testing.assert_allclose(document["weights"], weights, rtol=0, atol=1e-15)
        np.testing.assert_allclose(document["output"], output, rtol=0, atol=1e-15)
        self.assertEqual(document["largest_weight_on"], ["Fisch"])
        # Rows of the source, without names, are numbered the same way.
        numbered = run_json("--demo", "cross", "--source", "1,0,0;0,1,0")
        self.assertEqual(numbered["source_tokens"], ["s1", "s2"])
        self.assertEqual(numbered["target_tokens"], ["cat", "eats", "fish"])

    def test_names_the_reader_gives_must_fit(self):
        self.assert_refused(["--demo", "cross", "--target", "0,0,1", "--target-tokens", "cat,eats,fish"],
                            "--target-tokens: 3 names for 1 row of --target")
        self.assert_refused(["--demo", "cross", "--source", "1,0,0", "--source-tokens", "a,b"],
                            "--source-tokens: 2 names for 1 row of --source")

    def test_help_says_how_rows_are_named(self):
        self.assert_help_lists("t1, t2, … when --target has not 3 rows", "s1, s2, … when --source has not 4 rows")

    def test_help_states_the_limits_it_enforces(self):
        self.assert_help_lists("d_a numbers separated by ',' (at most 1024)", "(an odd number, at most 2049)",
                               "at most 1024 rows and 1024 entries per row")
        self.assert_refused(["--wq", ";".join([",".join(["1"] * 1025)] * 2), "--wk", "1;1", "--va", "1"],
                            "at most 1024 rows and 1024 entries per row")
        self.assert_refused(["--demo", "convolution", "--kernel", " | ".join(["1,0;0,1"] * 2051)],
                            "--kernel: too many taps")


class Convolution(ProgramTest):
    def test_the_example_against_numpy(self):
        document = run_json("--demo", "convolution")
        x = np.array(document["inputs"])
        taps = [np.array(tap) for tap in document["taps"]]
        self.assertEqual(document["offsets"], [-1, 0, 1])
        np.testing.assert_array_equal(document["convolution"], numpy_convolution(x, taps))
        self.assertEqual(document["attention_output"], document["convolution"])
        self.assertTrue(document["equal"])
        self.assertEqual(document["largest_difference"], 0.0)
        for head in document["heads"]:
            weights = np.array(head["weights"])
            # Hard attention on one relative position: exactly 1 at (i, i + δ), 0 elsewhere.
            expected = np.zeros_like(weights)
            for i in range(weights.shape[0]):
                if 0 <= i + head["offset"] < weights.shape[0]:
                    expected[i, i + head["offset"]] = 1.0
            np.testing.assert_array_equal(weights, expected)

    def test_random_real_inputs_equal_bit_for_bit(self):
        generator = np.random.default_rng(2020)
        for _ in range(12):
            n, d_in, d_out = (int(s) for s in generator.integers(1, 8, size=3))
            radius = int(generator.integers(0, 4))
            x = generator.normal(size=(n, d_in))
            taps = [generator.normal(size=(d_in, d_out)) for _ in range(2 * radius + 1)]
            document = run_json("--demo", "convolution", "--x", matrix_text(x), "--kernel", kernel_text(taps))
            with self.subTest(n=n, d_in=d_in, d_out=d_out, radius=radius):
                self.assertTrue(document["equal"])
                # JSON numbers read back exactly, so equal lists mean equal doubles.
                self.assertEqual(document["attention_output"], document["convolution"])
                np.testing.assert_allclose(document["convolution"], numpy_convolution(x, taps), rtol=1e-12,
                                           atol=1e-12)


class BadInput(ProgramTest):
    def test_bad_input_is_refused(self):
        cases = [
            (["--demo", "pooling"], "--demo"),
            (["--demo", "cross", "--wq", "1,0;0,1"], "--wq"),
            (["--source", "1,0"], "--source"),
            (["--wq", "1,0,0;0,1,0", "--wk", "1,0,0;0,1,0"], "--va"),
            (["--wq", "1,0;0,1;1,1"], "--wq"),
            (["--wk", "1,0,0;0,1,0"], "--wk"),
            (["--va", "1,x"], "--va"),
            (["--va", "1e308,1e308"], "--va"),
            (["--q", "1e200,0;0,1;1,1", "--k", "0,-1e200;0,1;1,1", "--wq", "1e200,0;0,1", "--wk", "1,0;1e200,1",
              "--no-timing"], "--wq"),
            (["--time-n", "64,16"], "--time-n"),
            (["--time-n", "0"], "--time-n"),
            (["--time-n", "100000"], "--time-n"),
            (["--no-timing", "--time-n", "4"], "--time-n"),
            (["--demo", "cross", "--target", "1,0;0,1"], "--target"),
            (["--demo", "cross", "--source-tokens", "a,b"], "--source-tokens"),
            (["--demo", "cross", "--source", "1e200,0,0;0,0,0", "--source-tokens", "a,b",
              "--target", "1e200,0,0", "--target-tokens", "t"], "--source"),
            (["--demo", "convolution", "--kernel", "1,0;0,1 | 1,0;0,1"], "--kernel"),
            (["--demo", "convolution", "--kernel", "1,0;0,1 | 1;1 | 1,0;0,1"], "--kernel"),
            (["--demo", "convolution", "--kernel", "1,0,0"], "--kernel"),
            (["--demo", "convolution", "--x", "1,nan"], "--x"),
            (["--demo", "convolution", "--x", "1e300,1e300", "--kernel", "1e300;1e300"], "--x"),
            (["--demo", "convolution", "--q", "1,0"], "--q"),
            (["--bogus"], "--bogus"),
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--demo", "--kernel", "--source")


if __name__ == "__main__":
    unittest.main()
