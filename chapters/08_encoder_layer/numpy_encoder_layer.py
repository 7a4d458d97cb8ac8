"""Chapter 8's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def feed_forward(x, w1, b1, w2, b2):
    # [feed_forward]
    widened = x @ w1 + b1  # b1, one row, is added to every row
    hidden = np.maximum(widened, 0)  # ReLU
    output = hidden @ w2 + b2
    # [feed_forward]
    return widened, hidden, output


def layer_norm(x, gain, bias, epsilon):
    # [layer_norm]
    mean = x.mean(axis=1, keepdims=True)  # μ: one per row, over its d entries
    centred = x - mean
    variance = (centred**2).mean(axis=1, keepdims=True)  # σ²: divided by d
    normalized = centred / np.sqrt(variance + epsilon)
    output = normalized * gain + bias  # γ and β: one per column
    # [layer_norm]
    return mean, variance, normalized, output


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in run.names:
        document = run(name)
        epsilon = document["epsilon"]
        for number, layer in enumerate(document["layers"], start=1):
            where = f"{name}, layer {number}"
            # Post-norm, as the paper: each sub-layer's residual sum is normalised.
            for residual, norm in (("attention_residual", "attention_norm"),
                                   ("feed_forward_residual", "feed_forward_norm")):
                steps = layer[norm]
                mean, variance, normalized, output = layer_norm(
                    np.array(layer[residual]), np.array(steps["gain"]), np.array(steps["bias"]), epsilon)
                yield "layer_norm", f"{where}: {norm}'s row means", mean[:, 0], steps["mean"]
                yield "layer_norm", f"{where}: {norm}'s row variances", variance[:, 0], steps["variance"]
                yield "layer_norm", f"{where}: {norm}'s normalised rows", normalized, steps["normalized"]
                yield "layer_norm", f"{where}: {norm}'s output", output, steps["output"]
            # The feed-forward network reads the first norm's output.
            widened, hidden, output = feed_forward(
                np.array(layer["attention_norm"]["output"]), np.array(layer["W_1"]), np.array(layer["b_1"]),
                np.array(layer["W_2"]), np.array(layer["b_2"]))
            yield "feed_forward", f"{where}: xW_1 + b_1", widened, layer["widened"]
            yield "feed_forward", f"{where}: the ReLU", hidden, layer["hidden"]
            yield "feed_forward", f"{where}: FFN(x)", output, layer["feed_forward"]
