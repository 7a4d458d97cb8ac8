"""Chapter 11's program, training: it learns, the same seed gives the same bits,
its JSON weights rerun in NumPy give its numbers, and bad input is refused.

Under the sanitizers (BOOK_SANITIZE=1, built at -O1 with every memory access
checked, about 25 times slower) the runs are
smaller: a narrower model and fewer steps, with the same kinds of assertion."""
import json
import math
import os
import pty
import subprocess
import unittest

import numpy as np

from harness import PROGRAM, ProgramTest, run, run_json

SLOW = os.environ.get("BOOK_SANITIZE", "0") == "1"
SMALL = ["--d-model", "8", "--batch", "8"] if SLOW else []  # for the runs that need not learn much
SHORT_STEPS = "80" if SLOW else "300"


def without_timing(document):
    """The JSON with the two wall-clock numbers left out: everything else must repeat bit for bit."""
    return {key: value for key, value in document.items() if key not in ("seconds", "seconds_at_99")}


# ---- an independent forward pass, written from the definitions (chapters 5, 6 and 8) ----

def positional_encoding(n, d):
    position = np.arange(n)[:, None]
    frequency = 1.0 / 10000.0 ** (np.arange(0, d, 2) / d)
    encoding = np.zeros((n, d))
    encoding[:, 0::2] = np.sin(position * frequency)
    encoding[:, 1::2] = np.cos(position * frequency)
    return encoding


def layer_norm(x, gain, bias, epsilon=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(variance + epsilon) * gain + bias


def softmax(scores):
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def model_forward(weights, words):
    """Logits and every head's attention weights, per layer."""
    matrix = lambda key_or_value: np.array(key_or_value, dtype=float)  # noqa: E731
    vector = lambda value: np.array(value, dtype=float).reshape(-1)  # noqa: E731
    x = matrix(weights["embedding"])[words] + positional_encoding(len(words), len(weights["embedding"][0]))
    maps = []
    for layer in weights["layers"]:
        heads, layer_maps = [], []
        for head in layer["heads"]:
            q, k, v = x @ matrix(head["query"]), x @ matrix(head["key"]), x @ matrix(head["value"])
            attention = softmax(q @ k.T / math.sqrt(q.shape[1]))
            layer_maps.append(attention)
            heads.append(attention @ v)
        y = layer_norm(x + np.concatenate(heads, axis=1) @ matrix(layer["output"]),
                       vector(layer["attention_norm"]["gain"]), vector(layer["attention_norm"]["bias"]))
        ffn = layer["feed_forward"]
        hidden = np.maximum(0.0, y @ matrix(ffn["w1"]) + vector(ffn["b1"]))
        x = layer_norm(y + hidden @ matrix(ffn["w2"]) + vector(ffn["b2"]),
                       vector(layer["feed_forward_norm"]["gain"]), vector(layer["feed_forward_norm"]["bias"]))
        maps.append(layer_maps)
    return x @ matrix(weights["readout"]) + vector(weights["readout_bias"]), maps


class TrainingTest(ProgramTest):
    @classmethod
    def setUpClass(cls):
        cls.short = run_json("--steps", SHORT_STEPS, "--log-every", "20", "--weights")

    def test_a_short_run_learns(self):
        # The loss starts near log 10 ≈ 2.30 (a uniform guess) and must fall at least tenfold in 300 steps
        # (SLOW, 80 steps: by a third); held-out accuracy must beat chance (10 %) by 60 points (SLOW: by 30).
        loss = self.short["loss"]
        self.assertAlmostEqual(loss[0], math.log(10), delta=0.4)
        self.assertLess(loss[-1], loss[0] / (1.5 if SLOW else 10.0))
        self.assertGreater(self.short["final_accuracy"], 0.1 + (0.3 if SLOW else 0.6))
        self.assertEqual(self.short["steps"], int(SHORT_STEPS))
        self.assertEqual(self.short["logged_steps"], list(range(20, int(SHORT_STEPS) + 1, 20)))

    @unittest.skipIf(SLOW, "600 steps of the full model take 20 s under the sanitizers")
    def test_the_learned_attention_is_the_anti_diagonal(self):
        # Averaged over the 200 held-out sequences and the 8 output positions, each head puts more than half
        # of its weight on the mirrored input position (chance: 1/8 of it), and so does every row on average.
        document = run_json("--steps", "600")
        self.assertGreaterEqual(document["final_accuracy"], 0.99)
        for head in document["source_weight"][0]:
            self.assertGreater(head, 0.5)
        n = document["length"]
        for head in document["attention"][0]:
            weights = np.array(head)
            self.assertLess(np.abs(weights.sum(axis=1) - 1).max(), 1e-12)
            mirrored = weights[np.arange(n), n - 1 - np.arange(n)]
            self.assertGreater(mirrored.mean(), 0.5)

    def test_copy_is_learned_without_attending_to_the_same_position(self):
        document = run_json("--task", "copy", "--steps", "60" if SLOW else SHORT_STEPS, *SMALL)
        self.assertGreater(document["final_accuracy"], 0.1 + (0.3 if SLOW else 0.6))
        self.assertEqual(document["example"]["target"], document["example"]["input"])

    def test_the_same_seed_gives_the_same_bits_and_another_seed_does_not(self):
        if SLOW:  # a cheaper run, twice
            first, again = (run_json("--steps", "30", "--weights", *SMALL) for _ in range(2))
            self.assertEqual(without_timing(again), without_timing(first))
        else:
            again = run_json("--steps", SHORT_STEPS, "--log-every", "20", "--weights")
            self.assertEqual(without_timing(again), without_timing(self.short))
        other = run_json("--steps", "20", "--seed", "2", *SMALL)
        self.assertNotEqual(other["example"], self.short["example"])

    def test_a_forward_pass_in_numpy_from_the_json_weights(self):
        weights = self.short["weights"]
        example = self.short["example"]
        logits, maps = model_forward(weights, example["input"])
        self.assertEqual(list(logits.argmax(axis=1)), example["prediction"])
        for layer, layer_maps in zip(self.short["attention"], maps):
            for shown, computed in zip(layer, layer_maps):
                self.assertLess(np.abs(np.array(shown) - computed).max(), 1e-10)

    def test_the_example_is_held_out_and_its_target_is_reversed(self):
        example = self.short["example"]
        self.assertEqual(example["target"], example["input"][::-1])
        self.assertEqual(len(self.short["position_accuracy"]), 8)
        self.assertAlmostEqual(np.mean(self.short["position_accuracy"]), self.short["final_accuracy"], places=12)
        self.assertEqual(self.short["held_out"], 200)
        for mistake in self.short["mistakes"]:
            self.assertNotEqual(mistake["prediction"], mistake["target"])

    def test_a_tiny_vocabulary_keeps_half_the_sequences_for_training(self):
        # V = 2, n = 3: 8 sequences in all, 4 held out; training draws only the other 4.
        document = run_json("--vocab", "2", "--length", "3", "--steps", "5", *SMALL)
        self.assertEqual(document["held_out"], 4)

    def test_divergence_stops_with_one_line(self):
        result = run("--learning-rate", "1e200", "--steps", "5", *SMALL, check=False)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")
        self.assertEqual(len(result.stderr.splitlines()), 1)
        self.assertRegex(result.stderr, r"^training: training diverged at step [12]: ")
        self.assertIn("--learning-rate", result.stderr)

    def test_progress_goes_to_a_terminal_only(self):
        self.assertEqual(run("--steps", "4", "--log-every", "2", *SMALL).stderr, "")
        leader, follower = pty.openpty()
        process = subprocess.run([PROGRAM, "--steps", "4", "--log-every", "2", "--json", *SMALL],
                                 stdout=subprocess.PIPE, stderr=follower, timeout=120)
        os.close(follower)
        shown = os.read(leader, 4096).decode()
        os.close(leader)
        self.assertEqual(process.returncode, 0)
        self.assertIn("step 4/4", shown)
        self.assertIn("held-out accuracy", shown)
        self.assertEqual(json.loads(process.stdout)["steps"], 4)  # stdout is the JSON alone

    def test_help(self):
        self.assert_help_lists("--task", "--length", "--vocab", "--steps", "--seed", "--learning-rate", "--json")

    def test_help_states_the_limits_it_enforces(self):
        self.assert_help_lists("a number above 0 and at most 1e300")
        self.assert_refused(["--learning-rate", "1e301"], "expected a number above 0 and at most 1e300")

    def test_bad_inputs(self):
        self.assert_each_refused([
            (["--task", "sort"], "--task"),
            (["--length", "0"], "--length"),
            (["--length", "100000"], "--length"),
            (["--vocab", "1"], "--vocab"),
            (["--steps", "0"], "--steps"),
            (["--steps", "-5"], "--steps"),
            (["--seed", "x"], "--seed"),
            (["--learning-rate", "0"], "--learning-rate"),
            (["--learning-rate", "-0.1"], "--learning-rate"),
            (["--learning-rate", "nan"], "--learning-rate"),
            (["--learning-rate", "fast"], "--learning-rate"),
            (["--batch", "0"], "--batch"),
            (["--layers", "9"], "--layers"),
            (["--d-model", "6"], "--d-model"),
            (["--log-every", "5000"], "--log-every"),
            (["--epochs", "3"], "--epochs"),
        ])


if __name__ == "__main__":
    unittest.main()
