"""build/bin/sets_of_vectors, chapter 0: words and speech as sets of vectors,
and a layer that reads one vector at a time against one that reads a window."""
import math
import unittest
from fractions import Fraction

import numpy as np

from harness import ProgramTest, published_run, run, run_json
from test_multi_head import Mulberry32  # the independent Python reimplementation of chapter 2's generator

SQRT2 = math.sqrt(2.0)
WORDS = ["cat", "dog", "apple", "pear"]


def fnv1a(word: str) -> int:
    """FNV-1a's 32-bit hash of the word's UTF-8 bytes, from its definition (offset basis 2166136261, prime 16777619)."""
    hash_value = 2166136261
    for byte in word.encode():
        hash_value = ((hash_value ^ byte) * 16777619) % 2**32
    return hash_value


def matrix_text(matrix) -> str:
    return ";".join(",".join(repr(float(x)) for x in row) for row in np.atleast_2d(matrix))


def numpy_distances(vectors: np.ndarray) -> np.ndarray:
    """|a − b| for every pair of rows, from the definition."""
    differences = vectors[:, None, :] - vectors[None, :, :]
    return np.sqrt((differences ** 2).sum(axis=2))


def numpy_windows(x: np.ndarray, radius: int) -> np.ndarray:
    """Each row with `radius` neighbours on either side, zeros beyond the ends, laid end to end."""
    padded = np.vstack([np.zeros((radius, x.shape[1])), x, np.zeros((radius, x.shape[1]))])
    return np.array([padded[t:t + 2 * radius + 1].reshape(-1) for t in range(x.shape[0])])


def frames_by_the_formula(seconds: str, window_ms: int, hop_ms: int) -> int:
    """floor((duration − window) / hop) + 1 in exact fractions; 0 if not even one window fits."""
    duration = Fraction(seconds) * 1000
    if duration < window_ms:
        return 0
    return math.floor((duration - window_ms) / hop_ms) + 1


class OneHotAgainstEmbeddings(ProgramTest):
    def test_one_hot_says_only_that_words_differ(self):
        one_hot = run_json()["one_hot"]
        vectors = np.array(one_hot["vectors"])
        self.assertTrue((vectors == np.eye(len(WORDS))).all())
        dots, distances = np.array(one_hot["dot_products"]), np.array(one_hot["distances"])
        off = ~np.eye(len(WORDS), dtype=bool)
        self.assertTrue((dots[off] == 0.0).all())           # exactly 0
        self.assertTrue((np.diag(dots) == 1.0).all())
        self.assertTrue((distances[off] == SQRT2).all())     # exactly √2 as a double
        self.assertTrue((np.diag(distances) == 0.0).all())
        self.assertEqual(one_hot["nearer"], "neither")

    def test_one_hot_is_flat_whatever_the_vocabulary(self):
        document = run_json("--words", "a,b,c,d,e,f", "--embeddings", "1;2;3;4;5;6")
        distances = np.array(document["one_hot"]["distances"])
        off = ~np.eye(6, dtype=bool)
        self.assertTrue((distances[off] == SQRT2).all())
        self.assertEqual(document["one_hot"]["nearer"], "neither")

    def test_moving_cat_leaves_the_one_hot_table_as_it_was(self):
        # Chapter 0, "The one-hot table never changes, whatever numbers we choose": one-hot is the identity matrix,
        # built from the word list alone, so the Try-it's moved cat changes only the embedding block.
        moved = run_json("--embeddings", "0.25,0.85; 0.8,0.3; 0.2,0.9; 0.3,0.7")
        default = run_json()
        self.assertNotEqual(moved["embedding"]["vectors"], default["embedding"]["vectors"])
        self.assertEqual(moved["one_hot"], default["one_hot"])
        self.assertTrue((np.array(moved["one_hot"]["vectors"]) == np.eye(len(WORDS))).all())

    def test_the_default_embeddings_put_cat_nearer_dog_than_apple(self):
        embedding = run_json()["embedding"]
        distances = np.array(embedding["distances"])
        self.assertLess(distances[0, 1], distances[0, 2])
        self.assertEqual(embedding["nearer"], "dog")
        # and the two fruits nearer each other than either is to cat
        self.assertLess(distances[2, 3], distances[2, 0])

    def test_moving_cat_changes_the_answer(self):
        self.assertEqual(run_json("--embeddings", "0.25,0.85; 0.8,0.3; 0.2,0.9; 0.3,0.7")["embedding"]["nearer"],
                         "apple")
        self.assertEqual(run_json("--words", "x,y,z", "--embeddings", "0;1;-1")["embedding"]["nearer"], "neither")

    def test_distances_equal_but_for_rounding_name_no_winner(self):
        # cat at (0.45, 0.55) lies on the line y = x + 0.1, as far from dog (0.8, 0.3) as from apple (0.2, 0.9):
        # both distances are sqrt(0.185), which a double computes as two neighbouring numbers.
        document = run_json("--embeddings", "0.45,0.55; 0.8,0.3; 0.2,0.9; 0.3,0.7")
        distances = np.array(document["embedding"]["distances"])
        self.assertAlmostEqual(distances[0, 1], np.sqrt(0.185), delta=1e-15)
        self.assertAlmostEqual(distances[0, 2], np.sqrt(0.185), delta=1e-15)
        self.assertEqual(document["embedding"]["nearer"], "neither")
        # a gap far above rounding still names the nearer word
        self.assertEqual(run_json("--embeddings", "0.45,0.5501; 0.8,0.3; 0.2,0.9; 0.3,0.7")["embedding"]["nearer"],
                         "apple")

    def test_agrees_with_numpy(self):
        generator = np.random.default_rng(7)
        for words, width in [(3, 1), (4, 2), (7, 5), (12, 64)]:
            embeddings = generator.normal(size=(words, width))
            names = ",".join(f"w{i}" for i in range(words))
            document = run_json("--words", names, "--embeddings", matrix_text(embeddings))
            vectors = np.array(document["embedding"]["vectors"])
            self.assertTrue((vectors == embeddings).all())  # repr() round-trips
            np.testing.assert_allclose(document["embedding"]["dot_products"], embeddings @ embeddings.T,
                                       rtol=1e-13, atol=1e-13)
            np.testing.assert_allclose(document["embedding"]["distances"], numpy_distances(embeddings),
                                       rtol=1e-13, atol=0)
            distances = np.array(document["embedding"]["distances"])
            self.assertTrue((distances == distances.T).all())
            self.assertTrue((np.diag(distances) == 0.0).all())

    def test_the_tables_show_the_json_values(self):
        text = run().stdout
        self.assertIn("One-hot: distances", text)
        self.assertIn("1.4142", text)
        self.assertIn("Is cat nearer to dog or to apple? neither: the two distances are equal", text)
        self.assertIn("Is cat nearer to dog or to apple? dog", text)

    def test_a_larger_dot_product_is_not_a_nearer_word(self):
        # The page's run: "dog · cat beats dog · dog, though nothing is nearer to dog than dog", and "cat · cat is
        # more than dog · dog: cat is the longer". The products from their definition, on the vectors the page prints.
        embedding = published_run("sets_of_vectors")["embedding"]
        vectors = np.array(embedding["vectors"])
        dots = vectors @ vectors.T
        np.testing.assert_allclose(embedding["dot_products"], dots, rtol=1e-14, atol=0)
        self.assertGreater(dots[1, 0], dots[1, 1])
        self.assertGreater(dots[0, 0], dots[1, 1])
        self.assertGreater(np.linalg.norm(vectors[0]), np.linalg.norm(vectors[1]))


class Frames(ProgramTest):
    def test_one_second_at_25_and_10(self):
        frames = run_json()["frames"]
        self.assertEqual(frames["per_second"], 100)
        self.assertEqual(frames["count"], 98)  # floor((1000 − 25) / 10) + 1
        self.assertEqual(frames["last_start_ms"], 970)
        self.assertEqual(frames["last_end_ms"], 995)
        self.assertEqual(frames["uncovered_ms"], 5)
        self.assertEqual(frames["count_if_end_padded"], 99)

    def test_the_formula_in_exact_fractions(self):
        cases = [("1", 25, 10), ("0.025", 25, 10), ("0.024", 25, 10), ("0.035", 25, 10), ("0.0349", 25, 10),
                 ("2.5", 25, 10), ("10", 25, 10), ("1", 20, 20), ("0.3", 7, 3), ("3600", 25, 10), ("0.1", 1, 1),
                 ("1.234567", 25, 10)]
        for seconds, window, hop in cases:
            with self.subTest(seconds=seconds, window=window, hop=hop):
                frames = run_json("--seconds", seconds, "--window-ms", str(window), "--hop-ms", str(hop))["frames"]
                self.assertEqual(frames["count"], frames_by_the_formula(seconds, window, hop))
                if frames["count"] > 0:
                    self.assertEqual(frames["last_end_ms"], (frames["count"] - 1) * hop + window)
                    self.assertGreaterEqual(frames["uncovered_ms"], 0)
                    self.assertLess(frames["uncovered_ms"], hop)

    def test_no_frame_when_the_window_does_not_fit(self):
        frames = run_json("--seconds", "0.02")["frames"]
        self.assertEqual(frames["count"], 0)
        self.assertEqual(frames["count_if_end_padded"], 1)


class PerVectorLayer(ProgramTest):
    def test_the_draws_and_outputs_agree_with_numpy(self):
        for sentence, width, tags, radius, seed in [("I,saw,a,saw", 4, 4, 1, 1), ("I,saw,a,saw", 3, 2, 2, 9),
                                                     ("the,cat,saw,the,dog", 5, 3, 1, 123), ("x", 1, 1, 0, 0),
                                                     ("café,naïve,café,日本", 4, 3, 1, 4294967295)]:  # bytes ≥ 0x80
            with self.subTest(sentence=sentence, seed=seed):
                tagging = run_json("--sentence", sentence, "--width", str(width), "--tags", str(tags),
                                   "--radius", str(radius), "--seed", str(seed))["tagging"]
                words = sentence.split(",")
                distinct = list(dict.fromkeys(words))
                self.assertEqual(tagging["distinct_words"], distinct)
                # Each word's vector from its own stream, seeded by the seed XOR the word's FNV-1a hash; the
                # weights from the seed's stream.
                table = np.array([Mulberry32(seed ^ fnv1a(word)).matrix(1, width, 1.0)[0] for word in distinct])
                generator = Mulberry32(seed)
                one_scale = 1.0 / math.sqrt(width)
                w_one, b_one = generator.matrix(width, tags, one_scale), generator.matrix(1, tags, one_scale)
                window_scale = 1.0 / math.sqrt((2 * radius + 1) * width)
                w_window = generator.matrix((2 * radius + 1) * width, tags, window_scale)
                b_window = generator.matrix(1, tags, window_scale)
                np.testing.assert_allclose(tagging["word_vectors"], table, rtol=1e-14, atol=0)
                np.testing.assert_allclose(tagging["one_vector"]["weights"], w_one, rtol=1e-14, atol=0)
                np.testing.assert_allclose(tagging["one_vector"]["bias"], b_one[0], rtol=1e-14, atol=0)
                np.testing.assert_allclose(tagging["window"]["weights"], w_window, rtol=1e-14, atol=0)
                np.testing.assert_allclose(tagging["window"]["bias"], b_window[0], rtol=1e-14, atol=0)
                x = table[[distinct.index(word) for word in words]]
                np.testing.assert_allclose(tagging["inputs"], x, rtol=1e-14, atol=0)
                np.testing.assert_allclose(tagging["one_vector"]["outputs"], x @ w_one + b_one, rtol=1e-12, atol=1e-12)
                windows = numpy_windows(x, radius)
                np.testing.assert_allclose(tagging["window"]["inputs"], windows, rtol=1e-14, atol=0)
                np.testing.assert_allclose(tagging["window"]["outputs"], windows @ w_window + b_window,
                                           rtol=1e-12, atol=1e-12)

    def test_the_two_saws_get_the_same_output_bit_for_bit(self):
        tagging = run_json()["tagging"]
        [repeat] = tagging["repeats"]
        self.assertEqual(repeat["word"], "saw")
        self.assertEqual(repeat["positions"], [1, 3])
        one = tagging["one_vector"]["outputs"]
        self.assertEqual(one[1], one[3])  # lists of floats: equal bit for bit
        self.assertEqual(tagging["inputs"][1], tagging["inputs"][3])
        self.assertTrue(repeat["inputs_identical"] and repeat["each_vector_identical"])

    def test_changing_a_word_changes_only_the_outputs_that_read_it(self):
        # The chapter's lesson: a layer that reads one vector computes each output from its own input. A reader who
        # changes a word must see the other words' outputs stay, and a window's output change only where the
        # window reaches the changed word: the weights do not depend on how many different words the sentence has.
        # The changed word is second, so that every word after it comes first in the sentence in another order.
        before = run_json("--sentence", "I,saw,a,saw,a,dog")["tagging"]
        after = run_json("--sentence", "I,cat,a,saw,a,dog")["tagging"]
        for key in ("one_vector", "window"):
            self.assertEqual(before[key]["weights"], after[key]["weights"], key)
            self.assertEqual(before[key]["bias"], after[key]["bias"], key)
        one_before, one_after = before["one_vector"]["outputs"], after["one_vector"]["outputs"]
        self.assertNotEqual(one_before[1], one_after[1])
        for position in (0, 2, 3, 4, 5):
            self.assertEqual(one_before[position], one_after[position], position)
        window_before, window_after = before["window"]["outputs"], after["window"]["outputs"]  # radius 1
        for position in (0, 1, 2):
            self.assertNotEqual(window_before[position], window_after[position], position)
        for position in (3, 4, 5):
            self.assertEqual(window_before[position], window_after[position], position)

    def test_a_window_tells_them_apart(self):
        tagging = run_json()["tagging"]
        window = tagging["window"]["outputs"]
        self.assertNotEqual(window[1], window[3])
        self.assertFalse(tagging["repeats"][0]["window_identical"])
        # every entry differs, not just one
        self.assertTrue(all(a != b for a, b in zip(window[1], window[3])))

    def test_any_seed_same_verdicts(self):
        for seed in ("0", "2", "77", "4294967295"):
            tagging = run_json("--seed", seed)["tagging"]
            repeat = tagging["repeats"][0]
            self.assertTrue(repeat["each_vector_identical"])
            self.assertFalse(repeat["window_identical"])
            # The rows themselves, not only the program's verdicts: the saws at positions 1 and 3.
            with self.subTest(seed=seed):
                self.assertEqual(tagging["one_vector"]["outputs"][1], tagging["one_vector"]["outputs"][3])
                self.assertNotEqual(tagging["window"]["outputs"][1], tagging["window"]["outputs"][3])

    def test_radius_0_is_the_layer_that_reads_one_vector(self):
        repeat = run_json("--radius", "0")["tagging"]["repeats"][0]
        self.assertTrue(repeat["window_identical"])

    def test_a_window_helps_only_where_the_neighbours_differ(self):
        # a saw a saw a: both saws sit between two a's, so radius 1 sees the same window
        tagging = run_json("--sentence", "a,saw,a,saw,a")["tagging"]
        saw = next(r for r in tagging["repeats"] if r["word"] == "saw")
        self.assertTrue(saw["window_identical"])
        saw = next(r for r in run_json("--sentence", "a,saw,a,saw,a", "--radius", "2")["tagging"]["repeats"]
                   if r["word"] == "saw")
        self.assertFalse(saw["window_identical"])

    def test_radius_2_or_more_tells_the_saws_apart(self):
        # Chapter 0's Try it, "radius 2 or more tells them apart": in a,saw,a,saw,a the first saw's window reaches
        # the padding zeros on the left, the second's on the right, so for any radius ≥ 2 the zeros fall in
        # different slots of the two windows.
        for radius in (2, 3, 4):
            with self.subTest(radius=radius):
                tagging = run_json("--sentence", "a,saw,a,saw,a", "--radius", str(radius))["tagging"]
                saw = next(r for r in tagging["repeats"] if r["word"] == "saw")
                self.assertEqual(saw["positions"], [1, 3])
                self.assertFalse(saw["window_identical"])
                windows = tagging["window"]["inputs"]
                self.assertNotEqual(windows[1], windows[3])
                self.assertNotEqual(tagging["window"]["outputs"][1], tagging["window"]["outputs"][3])


class WindowCost(ProgramTest):
    def test_the_counts(self):
        for sentence, width, tags, longest in [("I,saw,a,saw", 4, 4, 1000), ("a,b", 3, 5, 1), ("x", 1, 1, 7),
                                                (",".join("w" * 12), 64, 64, 1000000)]:
            with self.subTest(sentence=sentence, width=width):
                tagging = run_json("--sentence", sentence, "--width", str(width), "--tags", str(tags),
                                   "--longest", str(longest))["tagging"]
                n = len(sentence.split(","))
                expected = [{"radius": r, "window": 2 * r + 1, "parameters": (2 * r + 1) * width * tags + tags,
                             "covers_sentence": r == n - 1} for r in range(n)]
                self.assertEqual(tagging["sizes"], expected)
                self.assertEqual(tagging["longest"], {"words": longest, "radius": longest - 1,
                                                      "window": 2 * longest - 1,
                                                      "parameters": (2 * longest - 1) * width * tags + tags})
                self.assertEqual(tagging["attention_parameters"], 3 * width * width)
                self.assertEqual(tagging["attention_and_layer_parameters"], 3 * width * width + width * tags + tags)

    def test_the_count_grows_linearly_with_the_window(self):
        sizes = run_json()["tagging"]["sizes"]
        steps = {b["parameters"] - a["parameters"] for a, b in zip(sizes, sizes[1:])}
        self.assertEqual(steps, {2 * 4 * 4})


class BadInput(ProgramTest):
    def test_bad_inputs_are_refused_naming_the_flag(self):
        cases = [
            (["--words", "cat,dog"], "--words"),
            (["--words", "cat,,dog"], "--words"),
            (["--words", "cat,dog,cat", "--embeddings", "1;2;3"], "--words"),
            (["--embeddings", "1,0;0,1;1,1"], "--embeddings"),
            (["--embeddings", "1,0;0,1;1;1,1"], "--embeddings"),
            (["--embeddings", "1,0;0,nan;1,1;0,0"], "--embeddings"),
            (["--embeddings", "1e300,0;0,1;1,1;0,0"], "--embeddings"),
            (["--seconds", "0"], "--seconds"),
            (["--seconds", "-1"], "--seconds"),
            (["--seconds", "4000"], "--seconds"),
            (["--seconds", "ten"], "--seconds"),
            (["--seconds", "1e-9"], "--seconds"),
            (["--window-ms", "0"], "--window-ms"),
            (["--window-ms", "2.5"], "--window-ms"),
            (["--hop-ms", "-10"], "--hop-ms"),
            (["--hop-ms", ""], "--hop-ms"),
            (["--sentence", "I,,saw"], "--sentence"),
            (["--sentence", ",".join(["w"] * 13)], "--sentence"),
            (["--width", "0"], "--width"),
            (["--width", "65"], "--width"),
            (["--tags", "x"], "--tags"),
            (["--radius", "-1"], "--radius"),
            (["--radius", "17"], "--radius"),
            (["--seed", "4294967296"], "--seed"),
            (["--seed", "1.5"], "--seed"),
            (["--longest", "0"], "--longest"),
            (["--longest", "1000001"], "--longest"),
            (["--no-such-flag"], "--no-such-flag"),
        ]
        self.assert_each_refused(cases)

    def test_help_is_not_an_error(self):
        self.assert_help_lists("--words", "--embeddings", "--seconds", "--window-ms", "--hop-ms", "--sentence",
                               "--width", "--tags", "--radius", "--seed", "--longest", "--json")

    def test_help_states_the_limits_it_enforces(self):
        self.assert_help_lists("at most 64 entries per row, each from -1e6 to 1e6", "at most 1024 rows and 1024 entries per row")
        self.assert_refused(["--embeddings", ";".join([",".join(["0.5"] * 65)] * 4)], "expected at most 64")
        self.assert_refused(["--embeddings", "1e6,0; 0,1; 1,1; 2e6,0"], "expected entries from -1e6 to 1e6")


if __name__ == "__main__":
    unittest.main()
