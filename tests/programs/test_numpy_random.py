"""The port of NumPy's generator (src/attention/numpy_random.hpp) against NumPy
itself, live: for several seeds, 100,000 raw, uniform and normal draws each,
and a 1000 x 3 matrix of normals, must be equal bit for bit. NumPy is the independent reference; tests/numpy/numpy_draws.cpp writes
the port's draws as raw 8-byte words."""
import os
import subprocess
import unittest

import numpy as np

DRAWS = os.environ.get("BOOK_NUMPY_DRAWS", "")
SEEDS = [0, 1, 1337, 2**32 + 5, 2**63]
COUNT = 100_000


def port(seed: int, kind: str, count: int) -> np.ndarray:
    if not DRAWS:
        raise RuntimeError("BOOK_NUMPY_DRAWS is not set: run this through ctest")
    result = subprocess.run([DRAWS, str(seed), kind, str(count)], capture_output=True, timeout=60, check=True)
    return np.frombuffer(result.stdout, dtype="<u8")


def bits(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)


class AgainstNumPy(unittest.TestCase):
    def assert_same_bits(self, ours: np.ndarray, numpy_draws: np.ndarray):
        self.assertEqual(ours.shape, numpy_draws.shape)
        mismatches = np.flatnonzero(ours != numpy_draws)
        self.assertEqual(mismatches.size, 0, f"first mismatch at draw {mismatches[:1]}")

    def test_raw_64_bit_draws(self):
        for seed in SEEDS:
            with self.subTest(seed=seed):
                expected = np.random.default_rng(seed).bit_generator.random_raw(COUNT).astype(np.uint64)
                self.assert_same_bits(port(seed, "uint64", COUNT), expected)

    def test_doubles(self):
        for seed in SEEDS:
            with self.subTest(seed=seed):
                self.assert_same_bits(port(seed, "double", COUNT), bits(np.random.default_rng(seed).random(COUNT)))

    def test_standard_normals(self):
        for seed in SEEDS:
            with self.subTest(seed=seed):
                expected = np.random.default_rng(seed).standard_normal(COUNT)
                # The stream must reach the ziggurat's rarer branches: the tail beyond r.
                self.assertGreater(np.count_nonzero(np.abs(expected) > 3.6541528853610088), 0)
                self.assert_same_bits(port(seed, "normal", COUNT), bits(expected))

    def test_normal_matrix_is_in_c_order(self):
        for seed in SEEDS:
            with self.subTest(seed=seed):
                expected = np.random.default_rng(seed).normal(size=(1000, 3))
                self.assert_same_bits(port(seed, "matrix", 1000), bits(expected.reshape(-1)))

    def test_bad_arguments_are_refused(self):
        for arguments in (["-1", "normal", "3"], [str(2**64), "normal", "3"], ["1", "gamma", "3"], ["1", "normal"]):
            with self.subTest(arguments=arguments):
                result = subprocess.run([DRAWS, *arguments], capture_output=True, timeout=60)
                self.assertEqual(result.returncode, 2)
                self.assertEqual(result.stdout, b"")


if __name__ == "__main__":
    unittest.main()
