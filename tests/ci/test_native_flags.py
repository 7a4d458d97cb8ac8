"""The build's written-out -march=native (cmake/NativeFlags.cmake) means what
-march=native means: GCC reports the same target settings for both. ccache keys
objects on these flags, so a cache restored on another processor is missed,
never run."""
import os
import subprocess
import unittest

COMPILER = os.environ["BOOK_CXX"]
FLAGS = os.environ["BOOK_NATIVE_FLAGS"].split()


def target_settings(flags):
    result = subprocess.run([COMPILER, *flags, "-Q", "--help=target"],
                            capture_output=True, text=True, check=True)
    return result.stdout


class NativeFlags(unittest.TestCase):
    def test_the_flags_are_written_out(self):
        self.assertNotIn("-march=native", FLAGS)
        self.assertTrue(any(flag.startswith("-march=") for flag in FLAGS), FLAGS)

    def test_they_mean_what_native_means(self):
        self.assertEqual(target_settings(FLAGS), target_settings(["-march=native"]))

    def test_the_comparison_can_tell_a_difference(self):
        # Without the extension flags, only the architecture's name: a
        # different set of settings on any processor newer than its name says.
        self.assertNotEqual(target_settings(FLAGS), target_settings(["-march=x86-64"]))


if __name__ == "__main__":
    unittest.main()
