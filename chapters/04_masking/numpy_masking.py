"""Chapter 4's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np

from numpy_softmax import softmax_rows  # chapter 3's


def causal_mask(tokens):
    # [causal_mask]
    i, j = np.indices((tokens, tokens))  # row and column numbers
    return j <= i  # as np.tril(np.ones((tokens, tokens), bool))
    # [causal_mask]


def band_mask(tokens, radius):
    # [band_mask]
    i, j = np.indices((tokens, tokens))
    return np.abs(i - j) <= radius  # |i − j| ≤ R
    # [band_mask]


def apply_mask(scores, allowed, fill=-np.inf):
    # [apply_mask]
    return np.where(allowed, scores, fill)
    # [apply_mask]


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in run.names:
        document = run(name)
        if document["mask_spec"] == "causal":
            yield "causal_mask", f"the mask of the run {name}", causal_mask(len(document["queries"])), \
                document["mask"]
        if document["mask_spec"].startswith("band:"):
            radius = int(document["mask_spec"].removeprefix("band:"))
            yield "band_mask", f"the mask of the run {name}", band_mask(len(document["queries"]), radius), \
                document["mask"]
        masked = apply_mask(np.array(document["scaled_scores"]), np.array(document["mask"]), document["fill"])
        yield "apply_mask", f"the masked scores of the run {name}", masked, document["masked_scores"]
        weights = softmax_rows(masked)
        yield "apply_mask", f"the weights of the run {name}", weights, document["weights"]
        yield "apply_mask", f"the output of the run {name}", weights @ np.array(document["values"]), \
            document["output"]
