"""Chapter 3's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def softmax_rows(scores):
    """Softmax of each row; a row whose every score is -inf gets weights of 0, as the library's does."""
    with np.errstate(invalid="ignore"):  # such a row computes -inf - (-inf): NaN, replaced below
        # [softmax_row]
        exponentials = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights = exponentials / exponentials.sum(axis=1, keepdims=True)
        # [softmax_row]
    every_key_masked = np.isneginf(scores).all(axis=1, keepdims=True)
    return np.where(every_key_masked, 0.0, weights)


def attention(queries, keys, values, scale=True, mask=None, fill=-np.inf):
    """softmax(QKᵀ/√d_k)V, with every step kept, as the library's AttentionSteps."""
    # [attention]
    scores = queries @ keys.T
    d_k = queries.shape[1]
    scaled_scores = scores / np.sqrt(d_k) if scale else scores
    masked_scores = scaled_scores if mask is None else np.where(mask, scaled_scores, fill)
    weights = softmax_rows(masked_scores)
    output = weights @ values
    # [attention]
    return {"scores": scores, "scaled_scores": scaled_scores, "masked_scores": masked_scores,
            "weights": weights, "output": output}


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    toy = run("softmax")
    queries, keys, values = (np.array(toy[name]) for name in ("queries", "keys", "values"))
    for kind, scale in (("scaled", True), ("unscaled", False)):
        steps = attention(queries, keys, values, scale=scale)
        for step in ("scaled_scores", "weights", "output"):
            yield "attention", f"the toy's {step}, {kind}", steps[step], toy[kind][step]
        yield "softmax_row", f"the toy's weights, {kind}, from its scores", \
            softmax_rows(np.array(toy[kind]["scaled_scores"])), toy[kind]["weights"]

    # The sweeps of saturation: large scores and the same divided, one slot raised step by step.
    for name in ("softmax_saturation", "softmax_huge", "softmax_very_negative"):
        saturation = run(name)["saturation"]
        scores = np.array(saturation["scores"])
        for point in saturation["sweep"]:
            large, divided = scores.copy(), scores / saturation["divide"]
            large[1] += point["add"]
            divided[1] += point["add"]
            rows = softmax_rows(np.array([large, divided]))
            yield "softmax_row", f"the run {name}, adding {point['add']:g}", \
                rows, [point["weights_large"], point["weights_divided"]]
