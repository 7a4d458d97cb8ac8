"""build/bin/dot_product, chapter 1: the score table QKᵀ."""
import unittest

import numpy as np

from harness import ProgramTest, published_run, run, run_json


def matrix_text(matrix: np.ndarray) -> str:
    return ";".join(",".join(repr(float(x)) for x in row) for row in matrix)


class WorkedExample(ProgramTest):
    def test_the_toy_without_arguments(self):
        # The seed's table, worked by hand: q = (1,0), (0,1), (1,1); k = (2,0), (0,1), (1,1).
        document = run_json()
        self.assertEqual(document["scores"], [[2, 0, 1], [0, 1, 1], [2, 1, 2]])
        self.assertEqual(document["query_tokens"], ["cat", "eat", "fish"])
        self.assertEqual(document["queries"], [[1, 0], [0, 1], [1, 1]])
        self.assertEqual(document["keys"], [[2, 0], [0, 1], [1, 1]])

    def test_the_tables_show_the_same_scores(self):
        printed = run().stdout
        self.assertIn("fish asks cat   1×2 + 1×0 = 2", printed)
        self.assertIn("cat  asks fish  1×1 + 0×1 = 1", printed)
        last_rows = printed.strip().splitlines()[-3:]
        self.assertEqual([row.split() for row in last_rows],
                         [["cat", "2", "0", "1"], ["eat", "0", "1", "1"], ["fish", "2", "1", "2"]])

    def test_the_chapter_examples(self):
        self.assertEqual(run_json("--q", "1,2", "--k", "3,1")["scores"], [[5]])
        self.assertEqual(run_json("--q", "1,0", "--k", "0,1;-1,0;3,0;1,0")["scores"], [[0, -1, 3, 1]])

    def test_spaces_and_a_plus_sign_are_accepted(self):
        self.assertEqual(run_json("--q", " 1 , +2 ", "--k", "3,1")["scores"], [[5]])


class Projections(ProgramTest):
    """Q = X W^Q, K = X W^K, V = X W^V: the toy's stated projections, and any others."""

    def test_the_toys_projections_make_its_vectors(self):
        document = run_json()
        projections = document["projections"]
        self.assertEqual(projections["features"], ["animal", "action", "food"])
        embeddings = np.array(projections["embeddings"])
        np.testing.assert_array_equal(embeddings @ np.array(projections["query_weights"]), document["queries"])
        np.testing.assert_array_equal(embeddings @ np.array(projections["key_weights"]), document["keys"])
        # The values are the ones chapters 3 and 4 use: v = (1,0), (0,1), (0.5,0.5).
        self.assertEqual(document["values"], [[1, 0], [0, 1], [0.5, 0.5]])
        np.testing.assert_array_equal(embeddings @ np.array(projections["value_weights"]), document["values"])

    def test_the_tables_show_the_products(self):
        printed = run().stdout
        for title in ("Token vectors X", "W^Q", "W^K", "W^V", "Queries Q = X·W^Q", "Keys K = X·W^K",
                      "Values V = X·W^V"):
            self.assertIn(title, printed)

    def test_other_projections_against_numpy(self):
        generator = np.random.default_rng(2017)
        for n, features, d_k, d_v in [(1, 1, 1, 1), (3, 3, 2, 2), (5, 4, 3, 6)]:
            x = generator.normal(size=(n, features))
            w_q, w_k = generator.normal(size=(features, d_k)), generator.normal(size=(features, d_k))
            w_v = generator.normal(size=(features, d_v))
            with self.subTest(n=n, features=features, d_k=d_k, d_v=d_v):
                document = run_json("--x", matrix_text(x), "--w-q", matrix_text(w_q), "--w-k", matrix_text(w_k),
                                    "--w-v", matrix_text(w_v))
                np.testing.assert_allclose(document["queries"], x @ w_q, rtol=1e-12, atol=1e-12)
                np.testing.assert_allclose(document["values"], x @ w_v, rtol=1e-12, atol=1e-12)
                np.testing.assert_allclose(document["scores"], (x @ w_q) @ (x @ w_k).T, rtol=1e-12, atol=1e-12)

    def test_typed_queries_and_keys_skip_the_projections(self):
        document = run_json("--q", "1,2", "--k", "3,1")
        self.assertNotIn("projections", document)
        self.assertNotIn("values", document)

    def test_bad_projections_are_refused(self):
        self.assert_each_refused([
            (["--w-q", "1,0;0,1"], "--w-q: 2 rows for 3 features"),
            (["--w-v", "1;2;3;4"], "--w-v: 4 rows for 3 features"),
            (["--w-k", "1,0,0;0,1,0;0,0,1"], "--w-k: W^K is 3 wide but W^Q (--w-q) is 2"),
            (["--x", "1,0"], "--w-q: 3 rows for 2 features"),
            (["--x", "1,x,0"], "--x: row 1, entry 2 is 'x'"),
            (["--x", "1e200,0,0", "--w-q", "1e200,0;0,1;0,1"], "--x, --w-q, --w-k, --w-v"),
            (["--x", "1,0,0;0,1,0", "--tokens", "a,b,c"], "--tokens: 3 names for 2 rows of --x"),
            (["--x", "1,0,0", "--q", "1,0"], "--x"),
            (["--w-v", "1,0;0,1;0,1", "--k", "1,0;0,1;1,1"], "--w-v"),
            (["--w-q", ""], "--w-q: empty matrix"),
        ])


class AgreesWithNumPy(ProgramTest):
    def test_random_inputs(self):
        generator = np.random.default_rng(1706)
        for n, m, d in [(1, 1, 1), (3, 3, 2), (4, 7, 5), (12, 9, 16), (2, 30, 64)]:
            queries = generator.normal(size=(n, d)) * 10
            keys = generator.normal(size=(m, d))
            with self.subTest(n=n, m=m, d=d):
                document = run_json("--q", matrix_text(queries), "--k", matrix_text(keys))
                self.assertEqual(np.array(document["queries"]).tolist(), queries.tolist())  # read back exactly
                np.testing.assert_allclose(document["scores"], queries @ keys.T, rtol=1e-12, atol=1e-12)

    def test_swapping_queries_and_keys_transposes(self):
        generator = np.random.default_rng(7)
        a, b = generator.integers(-5, 6, size=(5, 3)), generator.integers(-5, 6, size=(4, 3))
        forward = np.array(run_json("--q", matrix_text(a), "--k", matrix_text(b))["scores"])
        backward = np.array(run_json("--q", matrix_text(b), "--k", matrix_text(a))["scores"])
        np.testing.assert_array_equal(backward, forward.T)


class BadInput(ProgramTest):
    def test_each_bad_input_is_refused_with_one_line(self):
        cases = [
            (["--q", "1,0;0"], "--q: row 2 has 1 entry but row 1 has 2"),  # ragged rows
            (["--q", "1,x"], "--q: row 1, entry 2 is 'x'"),  # not a number
            (["--q", "1,0;;0,1"], "--q: row 2 is empty"),
            (["--q", ""], "--q: empty matrix"),
            (["--k", "1,0,0"], "--k: keys have 3 entries per row but queries (--q) have 2"),  # mismatched widths
            (["--q", "nan,1"], "--q: row 1, entry 1 is 'nan'; expected a finite number"),
            (["--k", "1,-inf"], "--k: row 1, entry 2 is '-inf'; expected a finite number"),
            (["--q", "1e999,0"], "--q: row 1, entry 1 is '1e999', too large"),
            (["--q", ";".join(["1"] * 5000), "--k", "1"], "--q: 5000 × 1 is too large"),
            (["--frobnicate"], "--frobnicate"),  # unknown flag
            (["--q"], "--q"),  # missing value
            (["--tokens", "a,b"], "--tokens: 2 names for 3 rows of --x"),
            (["--tokens", "a,b", "--q", "1,0;0,1;1,1"], "--tokens: 2 names for 3 query rows"),
            (["--tokens", "a,,b"], "--tokens: name 2 is empty"),
            (["--json", "extra"], "extra"),
            (["--q", "0x10,1"], "--q: row 1, entry 1 is '0x10'"),
            (["--q", "1e200", "--k", "-1e200"], "--q, --k: the score of query 1 against key 1 overflows a double"),
            (["--json=0"], "json"),  # a flag takes no value
            (["--q", "1\x01"], "--q: row 1, entry 1 is '1?'"),  # control characters are not echoed
            (["--q", "x" * 5000], " ..."),  # a huge argument is cut short in the message
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--q")

    def test_help_states_the_limits_of_a_matrix(self):
        self.assert_help_lists("at most 1024 rows and 1024 entries per row")
        self.assert_refused(["--q", ";".join(["1,0"] * 1025), "--k", "1,0"], "at most 1024 rows")


class JudgmentsInTheProse(ProgramTest):
    """Chapter 1 says the toy's table is not symmetric and that a longer key in
    the same direction scores differently; the program computes both."""

    def test_the_toys_table_is_not_symmetric(self):
        document = run_json()
        self.assertIs(document["symmetric"], False)
        self.assertEqual(document["symmetry"], "not symmetric")
        self.assertNotEqual(document["scores"][0][2], document["scores"][2][0])  # cat asks fish, fish asks cat
        # cat asks eat and eat asks cat both score 0 ((1, 0) · (0, 1) and (0, 1) · (2, 0)): cat and fish are the first
        # pair, row by row, whose mirror-image entries differ, the pair the page frames.
        self.assertEqual(document["asymmetric_pair"], [0, 2])

    def test_keys_equal_to_the_queries_make_it_symmetric(self):
        document = run_json("--k", "1,0; 0,1; 1,1")
        self.assertIs(document["symmetric"], True)
        self.assertEqual(document["symmetry"], "symmetric")
        self.assertIsNone(document["asymmetric_pair"])

    def test_a_table_that_is_not_square(self):
        document = run_json("--q", "1,0", "--k", "0,1;-1,0;3,0;1,0", "--tokens", "q")
        self.assertIs(document["symmetric"], False)
        self.assertEqual(document["symmetry"], "not square")
        self.assertIsNone(document["asymmetric_pair"])  # no mirror image: the page compares no pair
        # Two queries, three keys: scores (0, 2, 1; 1, 0, 1). The leading 2 x 2 block is not symmetric, but a table
        # that is not square has no mirror image at all.
        document = run_json("--q", "1,0;0,1", "--k", "0,1;2,0;1,1", "--tokens", "a,b")
        self.assertEqual(document["scores"], [[0, 2, 1], [1, 0, 1]])
        self.assertEqual(document["symmetry"], "not square")
        self.assertIsNone(document["asymmetric_pair"])

    def test_symmetry_agrees_with_numpy(self):
        generator = np.random.default_rng(11)
        for trial in range(6):
            queries = generator.integers(-3, 4, size=(4, 2)).astype(float)
            keys = queries if trial % 2 == 0 else generator.integers(-3, 4, size=(4, 2)).astype(float)
            scores = queries @ keys.T
            with self.subTest(trial=trial):
                document = run_json("--q", matrix_text(queries), "--k", matrix_text(keys))
                self.assertEqual(document["symmetric"], bool((scores == scores.T).all()))
                differing = [(i, j) for i in range(4) for j in range(i + 1, 4) if scores[i, j] != scores[j, i]]
                self.assertEqual(document["asymmetric_pair"], list(differing[0]) if differing else None)

    def test_a_longer_key_in_the_same_direction_scores_differently(self):
        document = run_json("--q", "1,0", "--k", "0,1;-1,0;3,0;1,0", "--tokens", "q")
        self.assertEqual(document["keys"][2], [3, 0])
        self.assertEqual(document["keys"][3], [1, 0])
        self.assertNotEqual(document["scores"][0][2], document["scores"][0][3])

    def test_turning_the_key_around_a_half_circle_lowers_the_score(self):
        # The page's Try it: turned from (1, 0) to (−1, 0), "the score falls from 1 through 0 to −1". Each score is
        # q·k from its definition, and falls at every step.
        document = published_run("dot_product_half_circle")
        queries, keys = np.array(document["queries"]), np.array(document["keys"])
        np.testing.assert_array_equal(keys[-1], -keys[0])  # the last key points against the first: half a turn
        np.testing.assert_allclose(document["scores"], queries @ keys.T, rtol=0, atol=1e-15)
        scores = document["scores"][0]
        self.assertTrue(all(a > b for a, b in zip(scores, scores[1:])), scores)
        # By hand, (1, 0) against (1, 0), (0, 1) and (−1, 0): the three scores the sentence names.
        self.assertEqual((scores[0], scores[len(scores) // 2], scores[-1]), (1, 0, -1))


if __name__ == "__main__":
    unittest.main()
