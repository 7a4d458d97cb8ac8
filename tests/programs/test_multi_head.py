"""build/bin/multi_head, chapter 5: multi-head attention with seeded weights."""
import math
import unittest

import numpy as np

from harness import ProgramTest, published_run, run, run_json

# An independent reimplementation of the draws, in plain Python, written from
# the description in src/attention/random_weights.hpp and chapter 2 (not from
# the C++ code, and not sharing the vectorised generator of
# test_scaling_variance.py): one state of 32 bits, advanced one draw at a time.
MASK = 0xFFFFFFFF


class Mulberry32:
    def __init__(self, seed: int):
        self.state = seed & MASK

    def next_uint32(self) -> int:
        self.state = (self.state + 0x6D2B79F5) & MASK
        a = self.state
        t = ((a ^ (a >> 15)) * (a | 1)) & MASK
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & MASK)) & MASK) ^ t
        return (t ^ (t >> 14)) & MASK

    def uniform(self) -> float:
        return self.next_uint32() / 2.0**32

    def normal(self) -> float:
        """Box–Muller, cosine branch: two uniforms in, one normal out; a first uniform of 0 is read as 2⁻³³."""
        u1 = self.uniform()
        u2 = self.uniform()
        if u1 == 0.0:
            u1 = 2.0**-33
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def matrix(self, rows: int, columns: int, scale: float) -> np.ndarray:
        """Row by row, each draw times scale."""
        return np.array([[self.normal() * scale for _ in range(columns)] for _ in range(rows)]).reshape(rows, columns)


def drawn(seed: int, d_model: int, heads: int, tokens: int) -> dict:
    """The documented order: W_q, W_k, W_v of head 1, of head 2, …, then W_o (entries × 1/√d_model), then X (× 1)."""
    generator = Mulberry32(seed)
    width = d_model // heads
    scale = 1.0 / math.sqrt(d_model)
    head_weights = [{name: generator.matrix(d_model, width, scale) for name in ("W_q", "W_k", "W_v")}
                    for _ in range(heads)]
    w_o = generator.matrix(heads * width, d_model, scale)
    x = generator.matrix(tokens, d_model, 1.0)
    return {"heads": head_weights, "W_o": w_o, "input": x}


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    exponentials = np.exp(scores - scores.max(axis=1, keepdims=True))
    return exponentials / exponentials.sum(axis=1, keepdims=True)


def recompute(document: dict) -> dict:
    """Everything from input, the heads' W_q, W_k, W_v and W_o, in NumPy."""
    x = np.array(document["input"])
    heads = []
    for head in document["heads"]:
        q, k, v = (x @ np.array(head[name]) for name in ("W_q", "W_k", "W_v"))
        scores = q @ k.T
        weights = softmax_rows(scores / math.sqrt(q.shape[1]))
        heads.append({"queries": q, "keys": k, "values": v, "scores": scores, "weights": weights,
                      "output": weights @ v})
    concat = np.hstack([head["output"] for head in heads])
    return {"heads": heads, "concat": concat, "output": concat @ np.array(document["W_o"])}


def head_parts(document: dict) -> list[np.ndarray]:
    """Each head's share of the output: its output times its own block of d_v rows of W_o, recomputed from the
    JSON's head outputs and W_o (not read from the program's part_of_output)."""
    w_o, width = np.array(document["W_o"]), document["d_v"]
    return [np.array(head["output"]) @ w_o[i * width:(i + 1) * width] for i, head in enumerate(document["heads"])]


def names(count: int) -> str:
    return ",".join(f"t{i}" for i in range(1, count + 1))


class Reimplementation(unittest.TestCase):
    """The Python generator against the JavaScript test vector of chapter 2 (tests/unit/test_random.cpp)."""

    def test_it_gives_the_javascript_outputs(self):
        for seed, expected in [(1, [2693262067, 11749833, 2265367787, 4213581821, 4159151403, 1207330352,
                                    2632122864, 3095568220]),
                               (2, [3153583793, 1395857638, 1225337227, 2310499808, 3759333107, 2709408573,
                                    2144054433, 1534354113]),
                               (4294967295, [3850105811, 813802916, 3073704848, 4054706436, 3630262831, 2315588663,
                                             2922715533, 2042566601]),
                               (2463401483, [0, 1144304738, 1416247, 958946056, 627933444, 2007157716, 2340967985,
                                             2642484575])]:
            generator = Mulberry32(seed)
            self.assertEqual([generator.next_uint32() for _ in range(8)], expected, seed)

    def test_a_first_uniform_of_zero_is_read_as_two_to_the_minus_33(self):
        u2 = 1144304738 / 2.0**32
        self.assertEqual(Mulberry32(2463401483).normal(), math.sqrt(66 * math.log(2)) * math.cos(2 * math.pi * u2))


class WorkedExample(ProgramTest):
    def test_the_shapes_of_the_books_source(self):
        # The Korean walkthrough: "I love you", d_model = 4, h = 2: per head Q, K, V are 3 × 2, the concatenation 3 × 4.
        document = run_json()
        self.assertEqual(document["tokens"], ["I", "love", "you"])
        self.assertEqual((document["d_model"], document["h"], document["d_k"], document["d_v"]), (4, 2, 2, 2))
        self.assertEqual(document["seed"], 1)
        self.assertEqual(np.shape(document["input"]), (3, 4))
        self.assertEqual(len(document["heads"]), 2)
        for head in document["heads"]:
            for name in ("W_q", "W_k", "W_v"):
                self.assertEqual(np.shape(head[name]), (4, 2))
            for name in ("queries", "keys", "values", "output"):
                self.assertEqual(np.shape(head[name]), (3, 2))
            self.assertEqual(np.shape(head["weights"]), (3, 3))
        self.assertEqual(np.shape(document["concat"]), (3, 4))
        self.assertEqual(np.shape(document["W_o"]), (4, 4))  # h·d_v × d_model: what the Korean walkthrough leaves out
        self.assertEqual(np.shape(document["output"]), (3, 4))

    def test_the_draws_are_the_documented_ones(self):
        document = run_json()
        expected = drawn(1, 4, 2, 3)
        self.assert_same_draws(document, expected)
        self.assertEqual(document["draws"]["order"],
                         ["W_q of head 1", "W_k of head 1", "W_v of head 1", "W_q of head 2", "W_k of head 2",
                          "W_v of head 2", "W_o", "input"])
        self.assertEqual(document["draws"]["weight_scale"], 0.5)
        self.assertEqual(document["draws"]["uniforms_used"], 2 * (4 * 16 + 3 * 4))

    def assert_same_draws(self, document: dict, expected: dict):
        # Same libm on both sides: the draws agree to the last bit or nearly; allow a few ulps.
        for head, reference in zip(document["heads"], expected["heads"], strict=True):
            for name in ("W_q", "W_k", "W_v"):
                np.testing.assert_allclose(head[name], reference[name], rtol=1e-14, atol=0)
        np.testing.assert_allclose(document["W_o"], expected["W_o"], rtol=1e-14, atol=0)
        np.testing.assert_allclose(document["input"], expected["input"], rtol=1e-14, atol=0)

    def test_the_tables_show_the_json_values(self):
        document = run_json()
        lines = run().stdout.splitlines()
        output_at = next(i for i, line in enumerate(lines) if line.startswith("Output = Concat(head_1, head_2) · W^O"))
        for row, line in zip(document["output"], lines[output_at + 2:output_at + 5]):
            printed = [float(entry) for entry in line.split()[1:]]
            np.testing.assert_allclose(printed, row, rtol=0, atol=5.0001e-5)
        self.assertIn("d_k = d_v = d_model / h = 4 / 2 = 2", lines)


class AgreesWithNumPy(ProgramTest):
    CASES = [  # d_model, h, seed, number of tokens
        (4, 2, 1, 3), (4, 1, 1, 3), (4, 4, 2, 3), (6, 3, 0, 5), (16, 4, 4294967295, 1), (12, 2, 20170612, 9),
        (8, 8, 99, 4), (64, 8, 7, 20), (5, 1, 2463401483, 2),
    ]

    def test_everything_recomputed_from_the_json(self):
        for d_model, heads, seed, tokens in self.CASES:
            with self.subTest(d_model=d_model, h=heads, seed=seed, tokens=tokens):
                document = run_json("--d-model", str(d_model), "--heads", str(heads), "--seed", str(seed),
                                    "--tokens", names(tokens))
                expected = recompute(document)
                for head, reference in zip(document["heads"], expected["heads"], strict=True):
                    for name in ("queries", "keys", "values", "scores", "weights", "output"):
                        np.testing.assert_allclose(head[name], reference[name], rtol=1e-12, atol=1e-12)
                    np.testing.assert_allclose(np.sum(head["weights"], axis=1), 1.0, rtol=0, atol=1e-14)
                    self.assertEqual(head["largest_weight_on"],
                                     [document["tokens"][j] for j in np.argmax(head["weights"], axis=1)])
                np.testing.assert_allclose(document["concat"], expected["concat"], rtol=1e-12, atol=1e-12)
                np.testing.assert_allclose(document["output"], expected["output"], rtol=1e-12, atol=1e-12)

    def test_the_weights_are_the_documented_draws(self):
        for d_model, heads, seed, tokens in self.CASES:
            with self.subTest(d_model=d_model, h=heads, seed=seed, tokens=tokens):
                document = run_json("--d-model", str(d_model), "--heads", str(heads), "--seed", str(seed),
                                    "--tokens", names(tokens))
                WorkedExample.assert_same_draws(self, document, drawn(seed, d_model, heads, tokens))
                self.assertEqual(document["draws"]["uniforms_used"], 2 * (4 * d_model**2 + tokens * d_model))

    def test_the_concatenation_is_the_heads_side_by_side(self):
        document = run_json("--d-model", "6", "--heads", "3", "--seed", "5")
        concat = np.array(document["concat"])
        for i, head in enumerate(document["heads"]):
            np.testing.assert_array_equal(concat[:, 2 * i:2 * i + 2], head["output"])


class Properties(ProgramTest):
    def test_the_weights_do_not_depend_on_the_sentence(self):
        three = run_json("--seed", "8")
        five = run_json("--seed", "8", "--tokens", "I,really,do,love,you")
        self.assertEqual(three["heads"][0]["W_q"], five["heads"][0]["W_q"])
        self.assertEqual(three["W_o"], five["W_o"])
        self.assertEqual(three["input"], five["input"][:3])  # X is drawn last, row by row

    def test_the_blocks_of_w_o_differ(self):
        # "W^O is learned like the projections, and its blocks need not agree (here they differ)": the page's run.
        document = published_run("multi_head")
        w_o, width = np.array(document["W_o"]), document["d_v"]
        self.assertEqual(w_o.shape[0], 2 * width)
        self.assertFalse((w_o[:width] == w_o[width:]).any())

    def test_the_seed_decides_everything(self):
        self.assertEqual(run_json("--seed", "3"), run_json("--seed", "3"))
        self.assertNotEqual(run_json("--seed", "3")["W_o"], run_json("--seed", "4")["W_o"])

    def test_not_an_average_of_the_heads(self):
        # The output is Σ_i head_i · W_o[rows of head i], not the mean of the heads.
        document = run_json()
        parts = head_parts(document)
        np.testing.assert_allclose(document["output"], sum(parts), rtol=1e-12, atol=1e-12)
        # Each head's part, as the program reports it for the prose.
        for head, part in zip(document["heads"], parts):
            np.testing.assert_allclose(head["part_of_output"], part, rtol=1e-12, atol=1e-15)

    def test_a_fourth_token_changes_every_output(self):
        # Try it, --tokens "I,really,love,you": "--tokens changes every output: every token also sees a fourth vector".
        # X's first three rows stay (they belong to positions); every weight is positive, so the fourth row's value
        # enters every output. Attention recomputed over the first three rows alone gives back the old outputs.
        three = run_json()
        four = run_json("--tokens", "I,really,love,you")
        self.assertEqual(four["input"][:3], three["input"])
        changed = np.array(four["output"])[:3] != np.array(three["output"])
        self.assertTrue(changed.all(), changed)
        without_the_fourth = recompute({**four, "input": four["input"][:3]})
        np.testing.assert_allclose(without_the_fourth["output"], three["output"], rtol=1e-12, atol=1e-12)

    def test_large_sizes_print_a_note_instead_of_tables(self):
        printed = run("--d-model", "32", "--heads", "4").stdout
        self.assertIn("too large to print", printed)
        self.assertIn("d_k = d_v = d_model / h = 32 / 4 = 8", printed)
        self.assertNotIn("── Head 1 ──", printed)


class Cost(ProgramTest):
    @staticmethod
    def closed_forms(n: int, d_model: int, heads: int) -> dict:
        width = d_model // heads
        return {"projections": heads * 3 * n * d_model * width, "scores": heads * n * n * width,
                "weighted_sums": heads * n * n * width, "output_projection": n * d_model * d_model,
                "exponentials": heads * n * n}

    def test_the_paper_base_model(self):
        # §3.2.2: h = 8, d_k = d_v = d_model / h = 64 with d_model = 512.
        document = run_json("--d-model", "512", "--heads", "8", "--sizes-only")
        self.assertEqual((document["d_k"], document["d_v"]), (64, 64))
        self.assertNotIn("heads", document)  # nothing drawn
        printed = run("--d-model", "512", "--heads", "8", "--sizes-only").stdout
        self.assertIn("d_k = d_v = d_model / h = 512 / 8 = 64", printed)

    def test_the_counts_are_the_closed_forms(self):
        for d_model, heads, tokens in [(512, 8, 3), (512, 1, 3), (512, 32, 40), (1024, 16, 64), (4, 2, 3),
                                       (6, 3, 1)]:
            with self.subTest(d_model=d_model, h=heads, n=tokens):
                cost = run_json("--d-model", str(d_model), "--heads", str(heads), "--tokens", names(tokens),
                                "--sizes-only")["cost"]
                n = tokens
                for key, config in (("multi_head", heads), ("single_head", 1)):
                    expected = self.closed_forms(n, d_model, config)
                    for name, value in expected.items():
                        self.assertEqual(cost[key][name], value, (key, name))
                    total = 4 * n * d_model**2 + 2 * n * n * d_model  # the same for any h that divides d_model
                    self.assertEqual(cost[key]["total"], total)
                    self.assertEqual(cost[key]["per_token"], 4 * d_model**2)
                    self.assertEqual(cost[key]["per_pair"], 2 * d_model)
                self.assertEqual(cost["multi_head"]["exponentials"], heads * cost["single_head"]["exponentials"])

    def test_the_full_run_reports_the_same_cost(self):
        self.assertEqual(run_json("--d-model", "8", "--heads", "2")["cost"],
                         run_json("--d-model", "8", "--heads", "2", "--sizes-only")["cost"])


class BadInput(ProgramTest):
    def test_each_bad_input_is_refused_with_one_line(self):
        cases = [
            (["--heads", "3"], "--heads: 3 heads do not divide --d-model 4; each head gets d_model / h columns, "
                               "so h must be one of 1, 2 or 4"),
            (["--d-model", "6", "--heads", "4"], "--heads: 4 heads do not divide --d-model 6"),
            (["--d-model", "512", "--heads", "5", "--sizes-only"], "--heads: 5 heads do not divide --d-model 512"),
            (["--heads", "5"], "--heads is 5, more than --d-model 4"),
            (["--heads", "0"], "--heads is 0, too small; expected a whole number from 1 to 1024"),
            (["--heads", "-2"], "--heads is -2, negative"),
            (["--heads", "two"], "--heads is 'two', not a whole number"),
            (["--heads", "1.5"], "--heads is '1.5', not a whole number"),
            (["--d-model", "0"], "--d-model is 0, too small; expected a whole number from 1 to 1024"),
            (["--d-model", "1025", "--sizes-only"], "--d-model is 1025, too large; expected a whole number from 1 to 1024"),
            (["--d-model", "1024", "--heads", "16"], "--d-model is 1024, too large for a run that draws every weight; "
                                                     "expected at most 512 (with --sizes-only, up to 1024)"),
            (["--d-model", "99999999999999999999999"], "--d-model is 99999999999999999999999, too large"),
            (["--d-model", "4e2"], "--d-model is '4e2', not a whole number"),
            (["--d-model", ""], "--d-model is empty"),
            (["--seed", "-1"], "--seed is -1, negative"),
            (["--seed", "4294967296"], "--seed is 4294967296, too large; expected a whole number from 0 to 4294967295"),
            (["--seed", "0x10"], "--seed is '0x10', not a whole number"),
            (["--tokens", "I,,you"], "--tokens: name 2 is empty"),
            (["--tokens", ""], "--tokens: name 1 is empty"),
            (["--tokens", names(65)], "--tokens: 65 names is too many; at most 64"),
            (["--frobnicate"], "--frobnicate"),  # unknown flag
            (["--heads"], "--heads"),  # missing value
            (["--json", "extra"], "extra"),
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--heads", "--d-model", "--seed", "--tokens", "--sizes-only", "--json")


class JudgmentsInTheProse(ProgramTest):
    """Chapter 5's comparisons of the cost columns and of the heads, from the program's own keys."""

    def test_the_matrix_products_cost_the_same_and_the_exponentials_add_a_share(self):
        for d_model, heads, tokens in [(512, 8, 3), (512, 1, 3), (1024, 16, 64), (6, 3, 1)]:
            with self.subTest(d_model=d_model, h=heads, n=tokens):
                cost = run_json("--d-model", str(d_model), "--heads", str(heads), "--tokens", names(tokens),
                                "--sizes-only")["cost"]
                equal = cost["multi_head"]["total"] == cost["single_head"]["total"]
                self.assertIs(cost["matrix_products_equal"], equal)
                self.assertEqual(cost["matrix_products"], "equal" if equal else "different")
                self.assertTrue(equal)  # for every h that divides d_model, as the chapter says
                self.assertEqual(cost["extra_exponentials_per_pair"], heads - 1)
                self.assertAlmostEqual(cost["extra_exponentials_share_per_pair"], (heads - 1) / (2 * d_model),
                                       delta=1e-15)

    def test_love_leans_on_different_tokens_in_the_two_heads(self):
        # The figure's alt text says the outlined cells of rows love and you differ between the heads.
        document = run_json()
        for head in document["heads"]:
            self.assertEqual(head["largest_weight_on"],
                             [document["tokens"][j] for j in np.argmax(head["weights"], axis=1)])
        first, second = (head["largest_weight_on"] for head in document["heads"])
        self.assertNotEqual(first[1], second[1])
        self.assertNotEqual(first[2], second[2])

    def test_loves_last_output_entry_leans_to_head_1(self):
        # "In love's last output entry, head 1's columns contribute … and head 2's …: it leans to head 1's blend."
        document = run_json()
        parts = [part[1, 3] for part in head_parts(document)]
        self.assertAlmostEqual(sum(parts), document["output"][1][3], delta=1e-12)
        self.assertGreater(parts[0] * document["output"][1][3], 0)  # head 1's part has the entry's sign
        self.assertGreater(abs(parts[0]), 2 * abs(parts[1]))  # and is most of it

    def test_loves_third_output_entry_follows_neither_head(self):
        # "love's third entry … has no dominant head: head 2's part … and head 1's … partly cancel" (the fold): the
        # parts have opposite signs, and neither is most of the entry in the sense of the last entry's test (over
        # twice the other).
        document = run_json()
        parts = [part[1, 2] for part in head_parts(document)]
        self.assertAlmostEqual(sum(parts), document["output"][1][2], delta=1e-12)
        self.assertLess(parts[0] * parts[1], 0)
        self.assertLess(max(abs(parts[0]), abs(parts[1])), 2 * min(abs(parts[0]), abs(parts[1])))


if __name__ == "__main__":
    unittest.main()
