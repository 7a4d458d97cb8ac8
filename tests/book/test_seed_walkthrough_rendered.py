"""Chapter 8's page shows the graph chapter's NumPy walkthrough digit for digit. The
expected lines are the graph chapter's own printed output (its section 9.2),
typed here as the independent reference; the page's text comes from the
program's captured run, so this checks the port of NumPy's generator, the
layer's head and the NumPy-style printing together, as rendered."""
import html
import os
import re
import unittest
from pathlib import Path

SEED_OUTPUT = """\
scores (raw) =
 [[-0.14 -0.27 -0.39 -0.52]
 [-0.1  -0.08 -0.06 -0.04]
 [-0.06  0.11  0.28  0.44]
 [-0.02  0.3   0.61  0.93]]

scores (after causal mask) =
 [[-0.14  -inf  -inf  -inf]
 [-0.1  -0.08  -inf  -inf]
 [-0.06  0.11  0.28  -inf]
 [-0.02  0.3   0.61  0.93]]

weights (after softmax) =
 [[1.   0.   0.   0.  ]
 [0.49 0.51 0.   0.  ]
 [0.28 0.33 0.39 0.  ]
 [0.15 0.2  0.28 0.38]]
row sums = [1. 1. 1. 1.]

out[0] == v[0] ? True"""


class SeedWalkthroughRendered(unittest.TestCase):
    def test_each_block_of_the_seeds_output_is_on_the_page(self):
        page = Path(os.environ["BOOK_HTML_DIR"]) / "chapters" / "08_encoder_layer" / "index.html"
        blocks = [html.unescape(re.sub(r"<[^>]+>", "", block))
                  for block in re.findall(r"<pre[^>]*>(.*?)</pre>", page.read_text(), re.S)]
        for expected in SEED_OUTPUT.split("\n\n"):
            with self.subTest(block=expected.splitlines()[0]):
                self.assertTrue(any(expected in block for block in blocks), f"not on the page: {expected!r}")


if __name__ == "__main__":
    unittest.main()
