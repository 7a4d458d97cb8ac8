"""Chapter 16's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def rms_norm(x, gain, epsilon):
    # [rms_norm]
    mean_square = (x**2).mean(axis=1, keepdims=True)  # one per row, over its d entries
    normalized = x / np.sqrt(mean_square + epsilon)  # no mean subtracted
    output = normalized * gain  # g: one per column, and no bias
    # [rms_norm]
    return mean_square, output


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in run.names:
        norms = run(name)["norms"]
        x = np.array([norms["row"]])  # the worked example: one row
        mean_square, output = rms_norm(x, np.ones(x.shape[1]), norms["epsilon"])
        yield "rms_norm", f"{name}: the row's mean square", mean_square[0, 0], norms["mean_square"]
        yield "rms_norm", f"{name}: RMSNorm of the row, gains 1", output[0], norms["rms_norm"]
