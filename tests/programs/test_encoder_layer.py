"""Chapter 8's program, encoder_layer, against an independent NumPy
implementation written here from the definitions (§3.1, §3.2.2, §3.3 of the
paper; LayerNorm as Ba et al. 2016), with the weights redrawn by NumPy's own
np.random.default_rng in the order the chapter states. The seed's walkthrough
is run here as the seed wrote it, and its printed text must equal the
program's."""
import contextlib
import io
import math
import unittest

import numpy as np

from harness import ProgramTest, run, run_json

EPSILON = 1e-5


def walkthrough_x():
    return np.arange(4 * 6, dtype=np.float64).reshape(4, 6) / 10.0


def seed_walkthrough_text(seed=1337):
    """The seed's code, verbatim but for the seed, and what it prints."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), np.printoptions(precision=2, suppress=True):
        T, C, head = 4, 6, 3
        x = np.arange(T * C, dtype=np.float64).reshape(T, C) / 10.0
        rng = np.random.default_rng(seed)
        Wq = rng.normal(size=(C, head)) * 0.5
        Wk = rng.normal(size=(C, head)) * 0.5
        Wv = rng.normal(size=(C, head)) * 0.5
        q, k, v = x @ Wq, x @ Wk, x @ Wv
        scores = q @ k.T / np.sqrt(head)
        print("scores (raw) =\n", scores)
        mask = np.tril(np.ones((T, T), dtype=bool))
        masked = np.where(mask, scores, -np.inf)
        print("\nscores (after causal mask) =\n", masked)
        e = np.exp(masked - masked.max(axis=-1, keepdims=True))
        w = e / e.sum(axis=-1, keepdims=True)
        print("\nweights (after softmax) =\n", w)
        print("row sums =", w.sum(axis=-1))
        out = w @ v
        print("\nout[0] == v[0] ?", np.allclose(out[0], v[0]))
    return buffer.getvalue()


def draw(seed, d_model, heads, d_ff, layers, scale):
    rng = np.random.default_rng(seed)
    d_k = d_model // heads
    drawn = []
    for _ in range(layers):
        layer = {"heads": []}
        for _ in range(heads):
            layer["heads"].append([scale * rng.normal(size=(d_model, d_k)) for _ in range(3)])
        layer["W_o"] = scale * rng.normal(size=(heads * d_k, d_model))
        layer["W_1"] = scale * rng.normal(size=(d_model, d_ff))
        layer["W_2"] = scale * rng.normal(size=(d_ff, d_model))
        drawn.append(layer)
    return drawn


def softmax(scores):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, epsilon=EPSILON):
    """LayerNorm with γ = 1 and β = 0; another ε (0: none) for the chapter's claim about it."""
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + epsilon)


def head_weights(x, wq, wk, causal):
    """One head's softmax(QKᵀ/√d_k) on x, under the causal mask if asked."""
    q, k = x @ wq, x @ wk
    scores = q @ k.T / math.sqrt(q.shape[1])
    if causal:
        n = x.shape[0]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    return softmax(scores)


def reference_layer(x, layer, causal):
    heads = [head_weights(x, wq, wk, causal) @ (x @ wv) for wq, wk, wv in layer["heads"]]
    attended = np.concatenate(heads, axis=1) @ layer["W_o"]
    y = layer_norm(x + attended)
    hidden = np.maximum(0.0, y @ layer["W_1"])
    ffn = hidden @ layer["W_2"]
    return {"attention": attended, "y": y, "hidden": hidden, "ffn": ffn, "output": layer_norm(y + ffn)}


def matrix(value):
    return np.array(value, dtype=np.float64)


def matrix_text(m):
    return ";".join(",".join(repr(float(v)) for v in row) for row in m)


class EncoderLayer(ProgramTest):
    def assert_close(self, ours, reference, tolerance=1e-10):
        ours, reference = matrix(ours), np.asarray(reference)
        self.assertEqual(ours.shape, reference.shape)
        self.assertLessEqual(float(np.max(np.abs(ours - reference), initial=0.0)), tolerance)

    def test_the_seeds_numbers_as_the_seed_prints_them(self):
        text = run().stdout
        expected = seed_walkthrough_text()
        self.assertIn(expected.strip("\n"), text)
        # The seed's own printed output, as quoted in the source text.
        for line in ("[[-0.14 -0.27 -0.39 -0.52]", " [-0.1  -0.08 -0.06 -0.04]", " [-0.06  0.11  0.28  0.44]",
                     " [-0.02  0.3   0.61  0.93]]", " [[1.   0.   0.   0.  ]", " [0.49 0.51 0.   0.  ]",
                     " [0.28 0.33 0.39 0.  ]", " [0.15 0.2  0.28 0.38]]", "row sums = [1. 1. 1. 1.]",
                     " [-0.1  -0.08  -inf  -inf]", "out[0] == v[0] ? True"):
            self.assertIn(line + "\n", text)

    def test_walkthrough_text_for_other_seeds(self):
        for seed in (0, 1, 2**40 + 3):
            with self.subTest(seed=seed):
                self.assertIn(seed_walkthrough_text(seed).strip("\n"), run("--seed", str(seed)).stdout)

    def test_the_default_run_against_numpy(self):
        document = run_json()
        x = walkthrough_x()
        self.assert_close(document["x"], x, 0)
        drawn = draw(1337, 6, 2, 24, 1, 0.5)
        layer = document["layers"][0]
        for i, head in enumerate(layer["heads"]):
            for name, expected in zip(("W_q", "W_k", "W_v"), drawn[0]["heads"][i]):
                self.assert_close(head[name], expected, 0)  # NumPy's draws, bit for bit
        self.assert_close(layer["W_o"], drawn[0]["W_o"], 0)
        self.assert_close(layer["W_1"], drawn[0]["W_1"], 0)
        self.assert_close(layer["W_2"], drawn[0]["W_2"], 0)
        reference = reference_layer(x, drawn[0], causal=False)
        self.assert_close(layer["attention"], reference["attention"])
        self.assert_close(layer["attention_norm"]["output"], reference["y"])
        self.assert_close(layer["hidden"], reference["hidden"])
        self.assert_close(layer["feed_forward"], reference["ffn"])
        self.assert_close(layer["output"], reference["output"])
        self.assert_close(document["output"], reference["output"])
        # "13 of the 24 entries of token t0 are above zero. The others are cut to 0", and the count of every
        # token: NumPy's hidden entries, the nearest of them 0.018 from 0, far beyond rounding.
        self.assertEqual(layer["active_hidden_units"], (reference["hidden"] > 0).sum(axis=1).tolist())

    def test_epsilon_changes_no_digit_shown_here_but_does_on_the_toy(self):
        # "The small ε, 1e-05 here, is too small to change the digits shown", and "In the larger example ε changed
        # no digit shown; here [the toy] it does". Worked out in NumPy, on NumPy's own draws: LayerNorm with ε and
        # without, rounded to the tables' four decimals. Every entry of the walkthrough lies 5e-7 or more from a
        # rounding boundary, the toy's cat row moves by 3e-4: neither is a matter of rounding.
        def residuals(x, drawn):
            reference = reference_layer(x, drawn, causal=False)
            return {"attention_norm": x + reference["attention"],
                    "feed_forward_norm": reference["y"] + reference["ffn"]}

        def four_decimals_agree(before_norm):
            return np.array_equal(np.round(layer_norm(before_norm, EPSILON), 4),
                                  np.round(layer_norm(before_norm, 0.0), 4))

        walkthrough = residuals(walkthrough_x(), draw(1337, 6, 2, 24, 1, 0.5)[0])
        for norm, before_norm in walkthrough.items():
            with self.subTest(example="walkthrough", norm=norm):
                self.assertTrue(four_decimals_agree(before_norm))
        toy = residuals(np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float64), draw(1337, 2, 1, 8, 1, 0.5)[0])
        self.assertFalse(four_decimals_agree(toy["attention_norm"]))
        # The table the page shows is the one with ε.
        printed = run().stdout.split("Layer 1 y = LayerNorm(x + MultiHead(x, x, x))\n")[1].split("\n\n")[0]
        shown = np.array([[float(entry) for entry in line.split()[1:]] for line in printed.splitlines()[1:]])
        np.testing.assert_array_equal(shown, np.round(layer_norm(walkthrough["attention_norm"], EPSILON), 4))

    def test_random_inputs_against_numpy(self):
        rng = np.random.default_rng(20261130)
        for case in range(12):
            n = int(rng.integers(1, 7))
            heads = int(rng.choice([1, 2, 3]))
            d_model = heads * int(rng.integers(1, 4))
            d_ff = int(rng.integers(1, 20))
            layers = int(rng.integers(1, 4))
            seed = int(rng.integers(0, 2**63))
            causal = bool(rng.integers(0, 2))
            scale = float(rng.uniform(0.1, 1.0))
            x = rng.normal(size=(n, d_model))
            arguments = ["--x", matrix_text(x), "--heads", str(heads), "--d-ff", str(d_ff), "--layers", str(layers),
                         "--seed", str(seed), "--scale", repr(scale)] + (["--causal"] if causal else [])
            with self.subTest(case=case, arguments=arguments):
                document = run_json(*arguments)
                drawn = draw(seed, d_model, heads, d_ff, layers, scale)
                inputs = x
                for l in range(layers):
                    reference = reference_layer(inputs, drawn[l], causal)
                    layer = document["layers"][l]
                    # Every weight matrix of every layer is NumPy's draw, bit for bit.
                    for i, head in enumerate(layer["heads"]):
                        for name, expected in zip(("W_q", "W_k", "W_v"), drawn[l]["heads"][i]):
                            self.assert_close(head[name], expected, 0)
                    for name in ("W_o", "W_1", "W_2"):
                        self.assert_close(layer[name], drawn[l][name], 0)
                    self.assert_close(layer["attention"], reference["attention"], 1e-9)
                    self.assert_close(layer["feed_forward"], reference["ffn"], 1e-8)
                    self.assert_close(layer["output"], reference["output"], 1e-8)
                    inputs = reference["output"]

    def test_layer_norm_rows_have_mean_0_and_variance_about_1(self):
        document = run_json("--layers", "3")
        for layer in document["layers"]:
            for key in ("attention_normalized_moments", "feed_forward_normalized_moments"):
                for mean in layer[key]["mean"]:
                    self.assertAlmostEqual(mean, 0.0, places=12)
                for variance in layer[key]["variance"]:
                    self.assertGreater(variance, 0.999)
                    self.assertLessEqual(variance, 1.0 + 1e-12)

    def test_the_stacks_rows_grow_more_alike_layer_by_layer(self):
        # The chapter says so of its six-layer run (the book's --layers 6): the largest difference between two
        # rows' entries, worked out here from each layer's output, falls at every layer.
        document = run_json("--layers", "6")
        largest = []
        for layer in document["layers"]:
            output = np.array(layer["output"])
            largest.append(float(np.abs(output[:, None, :] - output[None, :, :]).max()))
        self.assertEqual(len(largest), 6)
        for before, after in zip(largest, largest[1:]):
            self.assertLess(after, before, largest)
        # The program's own measure, which the prose quotes, is the same.
        np.testing.assert_allclose(document["rows_apart"]["by_layer"], largest, rtol=0, atol=1e-15)
        np.testing.assert_allclose([document["rows_apart"]["first"], document["rows_apart"]["last"]],
                                   [largest[0], largest[-1]], rtol=0, atol=1e-15)

    def test_layer_norm_removes_the_inputs_shift(self):
        # Chapter 8, the stack's fold: "row t of x is row 0 plus 0.6t in every entry. LayerNorm removes such a
        # shift, so after the first layer the tokens differ only through what attention mixed into them." A row's
        # mean absorbs a constant added to every entry, so LayerNorm(x[t] + a[t]) = LayerNorm(x[0] + a[t]).
        document = run_json("--layers", "6")
        x = matrix(document["x"])
        shifts = 0.6 * np.arange(x.shape[0])[:, None]
        self.assert_close(x - x[0], np.broadcast_to(shifts, x.shape), 1e-12)
        layer = document["layers"][0]
        norm = layer["attention_norm"]
        self.assertTrue(np.all(matrix(norm["gain"]) == 1.0) and np.all(matrix(norm["bias"]) == 0.0))
        attended = matrix(layer["attention"])
        self.assert_close(norm["output"], layer_norm(x[0] + attended), 1e-12)

    def test_hidden_entries_are_printed_for_a_small_d_ff_and_counted_for_a_larger(self):
        # Chapter 8, "The layer in the page": "The hidden entries are printed for a small d_ff; for a larger one,
        # the program prints only how many stay above 0." The program's cut-off is 12 (max_printed_hidden); the
        # numbers are NumPy's, on NumPy's draws. At d_ff 12 every entry lies 1e-6 or more from a rounding boundary
        # of the table's four decimals; at d_ff 13 every entry before the cut lies 0.24 or more from 0, far beyond
        # rounding, so the count above 0 cannot differ.
        def printed_table(d_ff, title):
            printed = run("--d-ff", str(d_ff)).stdout
            self.assertEqual(printed.count("Layer 1 think, hidden"), 1)
            table = printed.split(f"Layer 1 think, hidden: {title} d_ff = {d_ff}\n")[1].split("\n\n")[0]
            return np.array([[float(entry) for entry in line.split()[1:]] for line in table.splitlines()[1:]])

        def hidden(d_ff):
            return reference_layer(walkthrough_x(), draw(1337, 6, 2, d_ff, 1, 0.5)[0], causal=False)["hidden"]

        np.testing.assert_array_equal(printed_table(12, "max(0, y W1 + b1),"), np.round(hidden(12), 4))
        np.testing.assert_array_equal(printed_table(13, "units of max(0, y W1 + b1) above 0, of"),
                                      (hidden(13) > 0).sum(axis=1)[:, None])

    def test_the_feed_forward_network_is_per_token(self):
        for arguments in ([], ["--example", "toy"], ["--layers", "2", "--seed", "5"]):
            with self.subTest(arguments=arguments):
                check = run_json(*arguments)["per_token"]
                self.assertLess(check["permuted_difference"], 1e-12)
                self.assertLess(check["alone_difference"], 1e-12)
                # Nudging the last token moves every row of attention, but only the last row of FFN.
                self.assertTrue(all(change > 1e-6 for change in check["attention_change"]))
                self.assertEqual(check["feed_forward_change"][:-1], [0.0] * (len(check["feed_forward_change"]) - 1))
                self.assertGreater(check["feed_forward_change"][-1], 0.0)

    def test_causal_nudge_leaves_earlier_tokens_alone(self):
        check = run_json("--causal")["per_token"]
        self.assertEqual(check["attention_change"][:-1], [0.0] * 3)
        self.assertGreater(check["attention_change"][-1], 0.0)

    def test_causal_heads_lose_their_upper_right_and_the_graph_chapters_head_stays(self):
        # The explorer's caption: "Tick the causal box: … layer 1's heads lose their upper right. The graph
        # chapter's head is causal either way", and (its page) "with the box ticked, it is the same map as layer
        # 1's head 1". A masked score is −∞ and e^−∞ is 0 exactly (chapter 4); the seed's own NumPy code, run
        # above, prints the walkthrough, and NumPy's causal head 1 is the same three draws under the same mask.
        document = run_json("--causal", "--layers", "3")
        for l, layer in enumerate(document["layers"]):
            for h, head in enumerate(layer["heads"]):
                with self.subTest(layer=l + 1, head=h + 1):
                    weights = matrix(head["weights"])
                    self.assertTrue(np.all(weights[np.triu_indices(weights.shape[0], 1)] == 0.0))
        self.assertIn(seed_walkthrough_text().strip("\n"), run("--causal").stdout)
        self.assertEqual(run_json("--causal")["walkthrough"], run_json()["walkthrough"])
        wq, wk, _ = draw(1337, 6, 2, 24, 1, 0.5)[0]["heads"][0]
        causal_head = head_weights(walkthrough_x(), wq, wk, causal=True)
        self.assert_close(document["walkthrough"]["weights"], causal_head, 1e-12)
        self.assert_close(document["layers"][0]["heads"][0]["weights"], causal_head, 1e-12)

    def test_more_layers_change_only_the_summary_and_the_last_table(self):
        # The explorer's caption: "The layers slider moves only the summary's numbers and the last table." Layer 1
        # reads the same input and the same first draws whatever follows it (the draws are taken layer by layer).
        one, six = run_json(), run_json("--layers", "6")
        for key in ("walkthrough", "per_token", "x"):
            with self.subTest(key=key):
                self.assertEqual(six[key], one[key])
        self.assertEqual(six["layers"][0], one["layers"][0])
        self.assertNotEqual(six["output"], one["output"])

    def test_toy_example(self):
        document = run_json("--example", "toy")
        self.assertEqual(document["tokens"], ["cat", "eat", "fish"])
        self.assertEqual(document["d_model"], 2)
        self.assertEqual(document["h"], 1)
        self.assertEqual(document["d_ff"], 8)
        x = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float64)
        reference = reference_layer(x, draw(1337, 2, 1, 8, 1, 0.5)[0], causal=False)
        self.assert_close(document["output"], reference["output"])

    def test_help(self):
        self.assert_help_lists("--example", "--x", "--seed", "--heads", "--d-ff", "--layers", "--scale", "--causal",
                               "--json")

    def test_inputs_too_large_for_a_double_are_refused(self):
        """--x "1e308,1e308" printed inf and NaN (and wrote "inf", "NaN" and null
        into the JSON) with exit status 0; --x "1e160,1" stopped in softmax with
        the library's message. Both are refused, naming --x and its limit."""
        for x in ("1e308,1e308", "1e160,1", "-1e160,1", "1,2;3,1.000001e6", "1e6,-1000001"):
            self.assert_refused(["--x", x], "--x: ")
            self.assertIn("from -1e6 to 1e6", run("--x", x, check=False).stderr)
        self.assert_help_lists("from -1e6 to 1e6")

    def test_inputs_at_the_limit_give_finite_numbers(self):
        """At the largest entries --x takes, with the largest weights (--scale 10), the widest
        input and network (32 channels, one head of 32, d_ff 256) and the deepest stack,
        every number the program writes is finite (but the walkthrough's masked scores, -inf)."""
        signs = np.random.default_rng(8).choice([-1.0, 1.0], size=(16, 32))
        for entries, seed in ((signs * 1e6, "1"), (np.full((16, 32), -1e6) + np.eye(16, 32) * 2e6, "7")):
            x = ";".join(",".join(f"{value:.17g}" for value in row) for row in entries)
            arguments = ["--x", x, "--scale", "10", "--heads", "1", "--d-ff", "256", "--layers", "12", "--seed", seed]
            not_finite = []
            numbers = 0

            def walk(value, pointer):
                nonlocal numbers
                if isinstance(value, dict):
                    for key, item in value.items():
                        walk(item, f"{pointer}/{key}")
                elif isinstance(value, list):
                    for index, item in enumerate(value):
                        walk(item, f"{pointer}/{index}")
                elif isinstance(value, float):
                    numbers += 1
                    if not math.isfinite(value):
                        not_finite.append(pointer)
                elif value is None or (value in ("inf", "-inf", "NaN")
                                       and not (value == "-inf" and pointer.startswith("/walkthrough/masked_scores/"))):
                    not_finite.append(f"{pointer} = {value}")

            walk(run_json(*arguments), "")
            self.assertGreater(numbers, 100000)
            self.assertEqual(not_finite[:5], [], f"seed {seed}")
            printed = run(*arguments).stdout
            self.assertNotIn("nan", printed)
            self.assertEqual(printed.count("inf"), printed.count("-inf"))  # the walkthrough's masked scores only

    def test_bad_inputs(self):
        self.assert_each_refused([
            (["--example", "cat"], "--example"),
            (["--x", "1,2;3"], "--x"),
            (["--x", "1,nan"], "--x"),
            (["--x", ";".join(["1,2"] * 17)], "--x"),
            # "limited to d_model ≤ 32": 34 entries, which the default 2 heads would divide, refused for the limit.
            (["--x", ",".join(["1"] * 34)], "32 entries"),
            (["--x", "1,2;3,4", "--tokens", "a,b,c"], "--tokens"),
            (["--x", "1,2,3"], "--x"),                     # the default 2 heads do not divide 3: --x is what was typed
            (["--x", "1,2;3,4", "--example", "toy"], "--example"),  # --x replaces the example
            (["--tokens", "a,,b,c"], "--tokens"),
            (["--seed", "-1"], "--seed"),
            (["--seed", str(2**64)], "--seed"),
            (["--heads", "4"], "--heads"),
            (["--heads", "0"], "--heads"),
            (["--d-ff", "0"], "--d-ff"),
            (["--d-ff", "257"], "--d-ff"),
            (["--layers", "0"], "--layers"),
            (["--layers", "13"], "--layers"),
            (["--scale", "0"], "--scale"),
            (["--scale", "inf"], "--scale"),
            (["--scale", "-0.5"], "--scale"),
        ])


if __name__ == "__main__":
    unittest.main()
