"""build/bin/backward_pass, chapter 10: the gradient of one output entry followed
back through attention, and every layer's backward pass against central
differences."""
import math
import unittest

import numpy as np

from harness import ProgramTest, run, run_json

TOY_Q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
TOY_K = np.array([[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
TOY_V = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
LAYERS = ["attention", "attention_causal", "multi_head", "layer_norm", "feed_forward", "embedding", "cross_entropy",
          "encoder_layer"]


def matrix_text(matrix) -> str:
    return ";".join(",".join(repr(float(x)) for x in row) for row in np.atleast_2d(matrix))


def numpy_forward(q, k, v, causal):
    """Masked scaled dot-product attention from its definition: W = softmax(QKᵀ/√d), O = W·V."""
    n, m = q.shape[0], k.shape[0]
    allowed = np.tril(np.ones((n, m), dtype=bool)) if causal else np.ones((n, m), dtype=bool)
    scores = np.where(allowed, q @ k.T / math.sqrt(q.shape[1]), -np.inf)
    exponentials = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = exponentials / exponentials.sum(axis=1, keepdims=True)
    return allowed, weights, weights @ v


def numpy_backward(q, k, v, causal, row, column):
    """The gradients of L = O[row][column], written out from the chain rule, entry by entry
    where it is clearer: ∂w_j/∂s_k = w_j (δ_jk − w_k) for the softmax of each row."""
    allowed, weights, output = numpy_forward(q, k, v, causal)
    d_output = np.zeros_like(output)
    d_output[row, column] = 1.0
    d_values = weights.T @ d_output
    d_weights = d_output @ v.T
    d_scores = np.zeros_like(weights)
    for i in range(weights.shape[0]):
        jacobian = np.diag(weights[i]) - np.outer(weights[i], weights[i])  # ∂w_j/∂s_k
        d_scores[i] = jacobian.T @ d_weights[i]
    d_scores[~allowed] = 0.0
    scale = 1.0 / math.sqrt(q.shape[1])
    return {"weights": weights, "output": output, "loss": output[row, column], "values": d_values,
            "dweights": d_weights, "scores": d_scores, "queries": scale * d_scores @ k,
            "keys": scale * d_scores.T @ q}


def inputs(q, k, v) -> list:
    return ["--q", matrix_text(q), "--k", matrix_text(k), "--v", matrix_text(v)]


class WorkedExample(ProgramTest):
    def assert_matches_numpy(self, document, q, k, v, causal, row, column):
        expected = numpy_backward(q, k, v, causal, row, column)
        gradients = document["gradients"]
        np.testing.assert_allclose(document["weights"], expected["weights"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(document["output"], expected["output"], rtol=0, atol=1e-12)
        self.assertAlmostEqual(document["loss"], expected["loss"], delta=1e-12)
        for key, name in [("values", "values"), ("weights", "dweights"), ("scores", "scores"),
                          ("queries", "queries"), ("keys", "keys")]:
            with self.subTest(gradient=key):
                np.testing.assert_allclose(gradients[key], expected[name], rtol=0, atol=1e-12)

    def test_the_toy_against_numpy_every_entry_masked_and_not(self):
        for causal in (False, True):
            for row in range(3):
                for column in range(2):
                    with self.subTest(causal=causal, row=row, column=column):
                        arguments = ["--row", str(row + 1), "--column", str(column + 1)]
                        document = run_json(*arguments, *(["--causal"] if causal else []))
                        self.assertEqual(document["loss_row"], row)
                        self.assertEqual(document["loss_column"], column)
                        self.assertEqual(document["causal"], causal)
                        self.assert_matches_numpy(document, TOY_Q, TOY_K, TOY_V, causal, row, column)

    def test_random_inputs_against_numpy(self):
        generator = np.random.default_rng(10)
        for causal in (False, True):
            n, d, dv = 5, 3, 4
            q, k, v = generator.normal(size=(n, d)), generator.normal(size=(n, d)), generator.normal(size=(n, dv))
            with self.subTest(causal=causal):
                document = run_json(*inputs(q, k, v), "--row", "4", "--column", "3",
                                    *(["--causal"] if causal else []))
                self.assert_matches_numpy(document, q, k, v, causal, 3, 2)

    def test_the_default_is_the_first_entry_of_cats_output(self):
        document = run_json()
        self.assertEqual((document["loss_row"], document["loss_column"], document["loss_token"]), (0, 0, "cat"))
        self.assertEqual(document["gradients"]["output"], [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
        # Only cat's row of dW, dS and dQ can be non-zero: the loss reads cat's output only.
        for key in ("weights", "scores", "queries"):
            self.assertEqual(document["gradients"][key][1:], [[0.0] * len(document["gradients"][key][0])] * 2)
        # dW[cat] is the first column of V, and rowsum(dW ⊙ W) for cat is the loss itself.
        self.assertEqual(document["gradients"]["weights"][0], [1.0, 0.0, 0.5])
        self.assertAlmostEqual(document["gradients"]["weighted_sums"][0], document["loss"], delta=1e-15)
        # dS[cat][k] = W[cat][k] · (V[k][1] − L): a key gains where its value is above the output.
        for key in range(3):
            expected = document["weights"][0][key] * (TOY_V[key, 0] - document["loss"])
            self.assertAlmostEqual(document["gradients"]["scores"][0][key], expected, delta=1e-15)
        # The softmax's gradient sums to 0 along a row: adding a constant to a row of scores changes nothing.
        self.assertAlmostEqual(sum(document["gradients"]["scores"][0]), 0.0, delta=1e-15)

    def test_masked_scores_get_exactly_zero(self):
        document = run_json("--causal", "--row", "2")
        mask = document["mask"]
        self.assertEqual(document["masked_entries"], 3)
        self.assertEqual(document["largest_masked_score_gradient"], 0.0)
        for i in range(3):
            for j in range(3):
                if not mask[i][j]:
                    self.assertEqual(document["gradients"]["scores"][i][j], 0.0)
        self.assertNotEqual(document["gradients"]["scores"][1][0], 0.0)
        # fish is masked for eat: its key gets nothing back, its value nothing either.
        self.assertEqual(document["gradients"]["keys"][2], [0.0, 0.0])
        self.assertEqual(document["gradients"]["values"][2], [0.0, 0.0])

    def test_under_the_causal_mask_cats_scores_pass_back_nothing(self):
        # cat sees only itself: its weight is 1 whatever its score, so Q and K get exactly 0.
        document = run_json("--causal")
        self.assertEqual(document["weights"][0], [1.0, 0.0, 0.0])
        self.assertEqual(document["gradients"]["queries"], [[0.0, 0.0]] * 3)
        self.assertEqual(document["gradients"]["keys"], [[0.0, 0.0]] * 3)
        self.assertEqual(document["gradients"]["values"], [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])

    def test_numpy_central_differences_of_the_toy(self):
        document = run_json()
        h = 1e-6

        def loss(q):
            return numpy_forward(q, TOY_K, TOY_V, False)[2][0, 0]

        numeric = np.zeros_like(TOY_Q)
        for index in np.ndindex(*TOY_Q.shape):
            above, below = TOY_Q.copy(), TOY_Q.copy()
            above[index] += h
            below[index] -= h
            numeric[index] = (loss(above) - loss(below)) / (2 * h)
        analytic = np.array(document["gradients"]["queries"])
        error = np.abs(analytic - numeric).max() / np.abs(analytic).max()
        self.assertLess(error, 1e-8)
        # The program's own check of the toy, at its step, agrees as well.
        for key in ("queries", "keys", "values"):
            self.assertLess(document["toy_check"][key], 1e-7)

    def test_a_saturated_softmax_sends_back_gradients_too_small_for_finite_differences(self):
        # The explorer's caption: "Type entries that saturate the softmax (cat's query 100,0) and a gradient can be
        # so small that its finite differences round to 0 …: the error then reaches 1 with no formula wrong." Cat's
        # scores are 100·(2, 0, 1)/√2: its weight on fish is e^−70.7 ≈ 2e-31 and on itself 1 to the last bit, so
        # its output, and the loss, is 1 exactly for any query or key within the step. NumPy's chain rule gives
        # dQ and dK below 1e-29, not 0: the check's relative error is |analytic − 0| / |analytic| = 1.
        queries = np.array([[100.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        document = run_json("--q", matrix_text(queries), "--no-check")
        expected = numpy_backward(queries, TOY_K, TOY_V, False, 0, 0)
        self.assertEqual(expected["loss"], 1.0)
        for key in ("queries", "keys"):
            with self.subTest(gradient=key):
                self.assertLess(np.abs(expected[key]).max(), 1e-29)
                self.assertGreater(np.abs(expected[key]).max(), 0.0)
                self.assertEqual(document["toy_check"][key], 1.0)
        self.assertLess(document["toy_check"]["values"], 1e-7)  # dV is not small: W[cat] is (1, 0, 0)

    def test_no_check_keeps_the_walkthrough_and_drops_the_check(self):
        full, walkthrough = run_json("--causal", "--row", "3"), run_json("--causal", "--row", "3", "--no-check")
        self.assertNotIn("check", walkthrough)
        self.assertNotIn("sweep", walkthrough)
        self.assertEqual({key: value for key, value in full.items() if key not in ("check", "sweep", "format_sweep")}, walkthrough)
        self.assertNotIn("Gradient check", run("--no-check").stdout)

    def test_the_tables_say_so(self):
        printed = run().stdout
        self.assertIn("L = O[cat][d1] = 0.718\n", printed)
        self.assertIn("dS = W ⊙ (dW − rowsum(dW ⊙ W))", printed)
        self.assertIn("Masked entries: 3; the largest |dS| among them: 0 (exactly)", run("--causal").stdout)
        self.assertIn("Gradient check: every backward pass against central differences, h = 1e-05", printed)


class GradientCheck(ProgramTest):
    def assert_all_below(self, document, bound):
        check = document["check"]
        self.assertEqual([layer["key"] for layer in check["layers"]], LAYERS)
        self.assertEqual(sorted(check["errors"]), sorted(LAYERS))  # a JSON object: keys sorted
        for layer in check["layers"]:
            for parameter in layer["parameters"]:
                with self.subTest(layer=layer["key"], parameter=parameter["name"]):
                    self.assertLess(parameter["error"], bound)
            self.assertEqual(layer["error"], max(p["error"] for p in layer["parameters"]))
        self.assertEqual(check["largest_error"], max(check["errors"].values()))

    def test_every_gradient_below_1e7_at_the_default_step(self):
        document = run_json()
        self.assertEqual(document["check"]["step"], 1e-5)
        self.assert_all_below(document, 1e-7)
        # "The program reports the ReLU input closest to 0 … and the check's step is far smaller": more than the ten
        # steps from the kink that the tests require of a draw before they hold it to 1e-7.
        self.assertGreater(document["check"]["smallest_relu_input"], 10 * document["check"]["step"])
        for layer in document["check"]["layers"]:
            for parameter in layer["parameters"]:
                self.assertGreater(parameter["largest"], 1e-2)  # no gradient near the rounding floor

    def test_with_two_channels_the_encoder_gradient_sinks_to_the_rounding_floor(self):
        # LayerNorm of two entries keeps only their sign (chapter 8): the layer is nearly
        # flat, its gradient tiny, and the relative error measures rounding, not a fault.
        document = run_json("--d-model", "2")
        encoder = document["check"]["layers"][LAYERS.index("encoder_layer")]["parameters"][0]
        self.assertLess(encoder["largest"], 1e-5)
        self.assertGreater(encoder["error"], 1e-7)
        self.assertLess(encoder["error"] * encoder["largest"], 1e-9)  # the absolute difference
        for key in LAYERS[:-1]:
            self.assertLess(document["check"]["errors"][key], 1e-7)

    def test_a_bigger_step_lifts_some_errors_above_1e7_by_truncation(self):
        # "With --step 1e-3 truncation dominates, and some errors rise above 10⁻⁷ although no formula is wrong."
        # Truncation of a central difference is h²·|L‴|/6: a step 10 times smaller divides it by 100. Every layer
        # above 10⁻⁷ at 1e-3 must fall by that factor at 1e-4 (rounding, about u/h, is 10⁻¹² there), and it is
        # below 10⁻⁷ at the default 1e-5 (test above): a wrong formula would not shrink with h.
        coarse, finer = run_json("--step", "1e-3")["check"], run_json("--step", "1e-4")["check"]
        self.assertGreater(coarse["largest_error"], 1e-7)
        above = [key for key, error in coarse["errors"].items() if error > 1e-7]
        self.assertIn("encoder_layer", above)
        for key in above:
            with self.subTest(layer=key):
                self.assertAlmostEqual(math.log10(coarse["errors"][key] / finer["errors"][key]), 2.0, delta=0.15)

    def test_other_seeds_and_sizes(self):
        for arguments in (["--seed", "7"], ["--seed", "4294967295", "--length", "1"],
                          ["--length", "8", "--d-model", "8", "--seed", "3"], ["--d-model", "6", "--step", "2e-5"]):
            with self.subTest(arguments=arguments):
                document = run_json(*arguments)
                if document["check"]["smallest_relu_input"] > 10 * document["check"]["step"]:
                    self.assert_all_below(document, 1e-7)

    def test_every_weight_is_checked(self):
        document = run_json()
        names = {layer["key"]: [p["name"] for p in layer["parameters"]] for layer in document["check"]["layers"]}
        heads = ["W^O", "W^Q_1", "W^K_1", "W^V_1", "W^Q_2", "W^K_2", "W^V_2"]
        self.assertEqual(names["multi_head"], ["x", *heads])
        self.assertEqual(names["layer_norm"], ["x", "gamma", "beta"])
        self.assertEqual(names["feed_forward"], ["x", "W_1", "b_1", "W_2", "b_2"])
        self.assertEqual(names["encoder_layer"],
                         ["x", *heads, "gamma_1", "beta_1", "W_1", "b_1", "W_2", "b_2", "gamma_2", "beta_2"])
        counts = {p["name"]: p["entries"] for p in document["check"]["layers"][7]["parameters"]}
        self.assertEqual(counts["W_1"], 4 * 16)
        self.assertEqual(counts["W^Q_1"], 4 * 2)

    def test_layer_norm_input_gradient_sums_to_zero_along_rows(self):
        for seed in ("1", "5"):
            self.assertLess(run_json("--seed", seed)["check"]["layer_norm_row_sum"], 1e-13)

    def test_the_embedding_sentence_repeats_a_word(self):
        check = run_json("--length", "5")["check"]
        self.assertEqual(len(check["words"]), 5)
        self.assertEqual(check["words"][0], check["words"][-1])
        self.assertTrue(all(0 <= word < check["vocabulary"] for word in check["words"] + check["targets"]))

    def test_the_error_against_the_step_is_a_v(self):
        sweep = run_json()["sweep"]
        self.assertEqual(sweep["steps"], [10.0 ** -p for p in range(1, 11)])
        for key in ("attention", "attention_causal", "multi_head", "layer_norm", "cross_entropy", "encoder_layer"):
            errors = sweep["errors"][key]
            best = int(np.argmin(errors))
            with self.subTest(layer=key):
                # Smallest in the middle (1e-4 … 1e-6), larger at both ends.
                self.assertIn(sweep["steps"][best], (1e-4, 1e-5, 1e-6))
                self.assertGreater(errors[0], 1e3 * errors[best])
                self.assertGreater(errors[-1], 1e3 * errors[best])
                # Truncation: a step 10 times smaller, an error about 100 times smaller.
                self.assertAlmostEqual(math.log10(errors[1] / errors[2]), 2.0, delta=0.1)
                # The figure's "then rises with slope one as h shrinks further": rounding, about u·|L|/h, from
                # h = 1e-6 to 1e-10 gains about four decades. Each error is a draw of that size, so the bound is
                # loose (a slope from 0.6 to 1.4), yet far from truncation's two and from a floor's zero.
                self.assertLess(abs(math.log10(errors[9] / errors[5]) - 4.0), 1.5)
        # "From h = 0.1 to h = 0.01 attention's error falls … a factor of about 100 for a factor of 10 in h":
        # truncation, h², at both steps.
        attention = sweep["errors"]["attention"]
        self.assertAlmostEqual(math.log10(attention[0] / attention[1]), 2.0, delta=0.1)
        # The two other shapes the prose reads. The embedding: rounding alone, climbing from the largest step on.
        # The feed-forward network: on this draw only the largest step crosses a ReLU kink, so its error drops
        # once (truncation gone), then climbs with rounding.
        embedding, feed_forward = sweep["errors"]["embedding"], sweep["errors"]["feed_forward"]
        self.assertTrue(all(later > earlier for earlier, later in zip(embedding, embedding[1:])), embedding)
        self.assertLess(embedding[0], 1e-12)
        self.assertGreater(feed_forward[0], 1e6 * feed_forward[1])
        self.assertTrue(all(later > earlier for earlier, later in zip(feed_forward[1:], feed_forward[2:])), feed_forward)
        # The step the check uses is the sweep's 1e-5: the same numbers.
        document = run_json()
        for key in LAYERS:
            self.assertEqual(sweep["errors"][key][4], document["check"]["layers"][LAYERS.index(key)]["parameters"][0]["error"])


def attention_check_gradients(q, k, v, direction, step, dtype):
    """The attention check of dQ from the definitions, every number of type dtype: L = Σ softmax(QKᵀ/√d)V ⊙ R, its
    gradient dQ = dS·K/√d with dS = W ⊙ (dW − rowsum(dW ⊙ W)) and dW = R·Vᵀ, and (L(q + h) − L(q − h)) / 2h for each
    entry; returns the two, analytic and numeric."""
    q, k, v, direction = (np.array(m, dtype=dtype) for m in (q, k, v, direction))
    h = dtype(step)
    root = np.sqrt(dtype(q.shape[1]))

    def weights_of(queries):
        scores = (queries @ k.T) / root
        exponentials = np.exp(scores - scores.max(axis=1, keepdims=True))
        return exponentials / exponentials.sum(axis=1, keepdims=True)

    def loss(queries):
        return np.sum((weights_of(queries) @ v) * direction, dtype=dtype)

    weights = weights_of(q)
    d_weights = direction @ v.T
    d_scores = weights * (d_weights - np.sum(d_weights * weights, axis=1, keepdims=True, dtype=dtype))
    analytic = (d_scores @ k) / root
    numeric = np.zeros_like(q)
    for index in np.ndindex(*q.shape):
        above, below = q.copy(), q.copy()
        above[index] += h
        below[index] -= h
        numeric[index] = (loss(above) - loss(below)) / (dtype(2) * h)
    return analytic, numeric


def float32_check_error(q, k, v, direction, step):
    """The attention check of dQ in float32 (attention_check_gradients); the error is max |analytic − numeric| over
    the larger of the two maxima."""
    analytic, numeric = attention_check_gradients(q, k, v, direction, step, np.float32)
    assert analytic.dtype == numeric.dtype == np.float32
    scale = max(np.abs(analytic).max(), np.abs(numeric).max())
    return float(np.abs(analytic - numeric).max() / scale)


class FloatAndDouble(ProgramTest):
    """The attention check of dQ once in double and once in float, for steps 10^(−k/4), k = 2 … 48."""

    def test_the_steps_are_four_to_a_decade(self):
        sweep = run_json()["format_sweep"]
        np.testing.assert_allclose(sweep["steps"], [10.0 ** (-k / 4) for k in range(2, 49)], rtol=1e-15)
        self.assertEqual(sweep["formats"]["double"]["spacing"], 2.0 ** -52)
        self.assertEqual(sweep["formats"]["float"]["spacing"], 2.0 ** -23)

    def test_the_inputs_are_the_attention_checks(self):
        document = run_json()
        sweep = document["format_sweep"]
        self.assertEqual(np.array(sweep["inputs"]["queries"]).shape,
                         (document["check"]["length"], document["check"]["d_model"]))
        # In double, at the check's step 1e-5 (k = 20), the sweep's error is the check's own for Q.
        at = 20 - 2
        self.assertAlmostEqual(sweep["steps"][at], document["check"]["step"], delta=1e-20)
        self.assertAlmostEqual(sweep["formats"]["double"]["errors"][at],
                               document["check"]["layers"][0]["parameters"][0]["error"], delta=1e-12)

    def test_float_errors_against_numpy_float32(self):
        sweep = run_json()["format_sweep"]
        inputs = sweep["inputs"]
        errors = sweep["formats"]["float"]["errors"]
        queries = np.array(inputs["queries"], dtype=np.float32)
        expected_errors = []
        unchanged_steps = 0
        for step, error in zip(sweep["steps"], errors):
            expected = float32_check_error(inputs["queries"], inputs["keys"], inputs["values"], inputs["direction"],
                                           step)
            expected_errors.append(expected)
            with self.subTest(step=step):
                # "At the smallest steps the move is too small to change the loss in float: the two losses are
                # equal, the numeric gradient is 0 and the error is exactly 1": where q ± h rounds to q in float
                # for every entry, the two losses are the same computation.
                h = np.float32(step)
                if np.all(queries + h == queries) and np.all(queries - h == queries):
                    unchanged_steps += 1
                    self.assertEqual(expected, 1.0)
                    self.assertEqual(error, 1.0)
                if step >= 0.1:
                    # Truncation (about h²) dominates; the rounding of the two losses, a few times 2⁻²⁴·|L|/h, is
                    # below half a per cent of it here (NumPy measures 0.4 % at h = 0.1, 12 % at 10^-1.5), so both
                    # computations see the same error to a few per cent.
                    self.assertAlmostEqual(error / expected, 1.0, delta=0.05)
                else:
                    # Rounding is no longer negligible (1.6 % of truncation at 10^-1.25, 12 % at 10^-1.5) and then
                    # dominates: NumPy and Eigen add in different orders, so the two errors are draws of the same
                    # size, not the same numbers: within a factor of 10. (Where q ± h rounds to q for
                    # every entry, the numeric gradient is 0 and both errors are exactly 1.)
                    self.assertLess(abs(math.log10(error / expected)), 1.0)
        self.assertGreater(unchanged_steps, 0)
        # "the 10⁻⁷ the tests hold in double is out of reach [in float] at any step": the best error of a central
        # difference is about u^(2/3) times the function's factors, (2⁻²³)^(2/3) = 2.4e-5 in float; NumPy's float32
        # check and the program's both stay far above 10⁻⁷.
        self.assertGreater(min(expected_errors), 1e-7)
        self.assertGreater(min(errors), 1e-7)

    def test_the_best_step_of_each_format_lies_near_the_cube_root_of_its_spacing(self):
        sweep = run_json()["format_sweep"]
        for name in ("double", "float"):
            curve = sweep["formats"][name]
            errors = curve["errors"]
            best = int(np.argmin(errors))
            with self.subTest(format=name):
                self.assertEqual(curve["best_step"], sweep["steps"][best])
                self.assertEqual(curve["best_error"], errors[best])
                self.assertAlmostEqual(curve["cube_root_of_spacing"], curve["spacing"] ** (1 / 3), delta=1e-12)
                # The error is about h²/6·|L‴|/|g| + spacing·|L|/(h·|g|), smallest at
                # h = (3·spacing·|L|/|L‴|)^(1/3): the cube root of the spacing times (3|L|/|L‴|)^(1/3), which
                # stays within a factor of 5 for |L|/|L‴| from 1/40 to 40; the grid adds at most 10^(1/4).
                ratio = curve["best_step"] / curve["cube_root_of_spacing"]
                self.assertLess(abs(math.log10(ratio)), math.log10(5 * 10 ** 0.25))
                # Either side of the best step the error grows: a V, not a floor.
                self.assertGreater(errors[0], 100 * errors[best])
                self.assertGreater(errors[-1], 100 * errors[best])

    def test_floats_best_error_is_far_above_doubles(self):
        sweep = run_json()["format_sweep"]
        double, single = sweep["formats"]["double"], sweep["formats"]["float"]
        # The best error of h²/6·a + spacing·b/h is proportional to spacing^(2/3): float's is
        # (2^29)^(2/3) ≈ 6.5e5 times double's, up to the function's factors; at least 1e4.
        self.assertGreater(single["best_error"], 1e4 * double["best_error"])
        self.assertGreater(single["best_step"], 100 * double["best_step"])
        self.assertAlmostEqual(sweep["best_error_ratio"] / (single["best_error"] / double["best_error"]), 1.0,
                               delta=1e-12)
        self.assertAlmostEqual(sweep["best_step_ratio"] / (single["best_step"] / double["best_step"]), 1.0,
                               delta=1e-12)

    def test_the_dotted_lines_lie_the_cube_root_of_two_to_the_29_apart(self):
        # A float keeps 23 fraction bits and a double 52: float's spacing is 2^29 times a
        # double's, and the ratio of the cube roots of the two spacings is 2^(29/3).
        sweep = run_json()["format_sweep"]
        self.assertAlmostEqual(sweep["cube_root_of_spacing_ratio"], 2 ** (29 / 3), delta=1e-9 * 2 ** (29 / 3))

    def test_each_best_step_is_a_few_times_its_dotted_line_by_about_the_same_factor(self):
        # Chapter 10's fold: "Each best step is a few times its own dotted line", "This factor (best step divided by
        # dotted line) is about the same in both formats … So the two best steps lie about as far apart as the two
        # dotted lines." The dotted line is the cube root of the format's spacing. The factor is (b/2a)^(1/3), the
        # same loss's in both formats; each best step is on the sweep's grid and may be about one step, 10^(1/4), off
        # its curve's minimum, so the two measured factors should differ by about 10^(2/4) at most: an estimate, not
        # a bound (rounding makes each curve's minimum noisy). This run: 2.94 and 3.61.
        sweep = run_json()["format_sweep"]
        factors = {}
        for name in ("double", "float"):
            curve = sweep["formats"][name]
            factors[name] = curve["best_step"] / curve["spacing"] ** (1 / 3)
            with self.subTest(format=name):
                self.assertGreater(factors[name], 1.0)  # "a few times": more than once, less than ten times
                self.assertLess(factors[name], 10.0)
        grid_step = 0.25  # log10 of the sweep's factor between steps
        self.assertLessEqual(abs(math.log10(factors["float"] / factors["double"])), 2 * grid_step + 1e-12)
        # The same, read as distances: between the best steps, and between the dotted lines (2^(29/3) apart).
        self.assertLessEqual(abs(math.log10(sweep["best_step_ratio"]) - math.log10(2 ** (29 / 3))),
                             2 * grid_step + 1e-12)

    def test_at_the_largest_steps_float_and_double_lie_together(self):
        # Chapter 10's caption: "At the largest steps the two lines lie together: truncation is the same in both
        # formats." Truncation is double's error there (its rounding, 2⁻⁵³·|L|/h, is below 1e-11 of it). Float's
        # rounding of the difference quotient, about 2⁻²⁴·|L|/h times a few, is measured here with NumPy (float32
        # against float64 on the same inputs): at the two largest steps it is below 0.5% of truncation (0.01 % and
        # 0.09 % with this NumPy, so another BLAS's rounding has room), and even a rounding draw of the program's ten
        # times NumPy's keeps float's error within 5% of double's.
        sweep = run_json()["format_sweep"]
        inputs = sweep["inputs"]
        in_float, in_double = sweep["formats"]["float"]["errors"], sweep["formats"]["double"]["errors"]
        for at in range(2):
            step = sweep["steps"][at]
            matrices = (inputs["queries"], inputs["keys"], inputs["values"], inputs["direction"])
            analytic, numeric_in_double = attention_check_gradients(*matrices, step, np.float64)
            numeric_in_float = attention_check_gradients(*matrices, step, np.float32)[1].astype(np.float64)
            scale = np.abs(analytic).max()
            truncation = np.abs(analytic - numeric_in_double).max() / scale
            rounding = np.abs(numeric_in_float - numeric_in_double).max() / scale
            with self.subTest(step=step):
                self.assertLess(rounding, 0.005 * truncation)
                self.assertAlmostEqual(in_float[at] / in_double[at], 1.0, delta=0.05)

    def test_the_tables_show_both_formats(self):
        text = run().stdout
        self.assertIn("The attention check's dQ in double and in float", text)
        self.assertIn("float: best step", text)


class BadInput(ProgramTest):
    def test_help(self):
        self.assert_help_lists("--causal", "--no-check", "--row", "--column", "--seed", "--step", "--length", "--d-model", "--json")

    def test_help_states_the_limits_it_enforces(self):
        self.assert_help_lists("--q, --k, --v: at most 16 rows of 16 entries each", "at most 1024 rows and 1024 entries per row")
        self.assert_refused(["--q", ";".join(["1,0"] * 17), "--k", "1,0", "--v", "1"], "at most 16 rows")

    def test_refused(self):
        self.assert_each_refused([
            (["--bogus"], "--bogus"),
            (["--step", "0"], "--step"),
            (["--step", "-1e-5"], "--step"),
            (["--step", "nan"], "--step"),
            (["--step", "tiny"], "--step"),
            (["--step", "2"], "--step"),
            (["--step", "inf"], "--step"),
            (["--seed", "-1"], "--seed"),
            (["--seed", "x"], "--seed"),
            (["--seed", "4294967296"], "--seed"),
            (["--row", "4"], "--row"),
            (["--row", "0"], "--row"),
            (["--column", "3"], "--column"),
            (["--column", "1.5"], "--column"),
            (["--length", "0"], "--length"),
            (["--length", "9"], "--length"),
            (["--d-model", "3"], "--d-model"),
            (["--d-model", "10"], "--d-model"),
            (["--d-model", "0"], "--d-model"),
            (["--causal", "--q", "1,0;0,1"], "--causal"),
            (["--q", "1,x;0,1;1,1"], "--q"),
            (["--v", "1,0;0,1"], "--v"),
            (["--v", "1.7e308,0;-1.7e308,0;0,0"], "--v"),
            (["--tokens", "cat,eat"], "--tokens"),
            (["--q", ";".join(["1,0"] * 17), "--k", ";".join(["1,0"] * 17), "--v", ";".join(["1"] * 17)], "--q"),
        ])


if __name__ == "__main__":
    unittest.main()
