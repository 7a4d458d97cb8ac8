"""Chapter 10's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def softmax_backward(weights, weights_gradient):
    # [softmax_backward]
    weighted_sum = (weights_gradient * weights).sum(axis=1, keepdims=True)  # Σ_j dW_ij W_ij, per row
    return weights * (weights_gradient - weighted_sum)  # dS = W ⊙ (dW − rowsum)
    # [softmax_backward]


def attention_backward(queries, keys, values, weights, mask, output_gradient):
    # [attention_backward]
    values_gradient = weights.T @ output_gradient  # dV = Wᵀ·dO
    weights_gradient = output_gradient @ values.T  # dW = dO·Vᵀ
    scores_gradient = softmax_backward(weights, weights_gradient)  # dS
    scores_gradient = np.where(mask, scores_gradient, 0.0)  # a masked score passes back 0
    scale = 1 / np.sqrt(queries.shape[1])
    queries_gradient = scale * (scores_gradient @ keys)  # dQ = dS·K/√d_k
    keys_gradient = scale * (scores_gradient.T @ queries)  # dK = dSᵀ·Q/√d_k
    # [attention_backward]
    return values_gradient, weights_gradient, scores_gradient, queries_gradient, keys_gradient


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in run.names:
        document = run(name)
        given = document["gradients"]
        ours = attention_backward(np.array(document["queries"]), np.array(document["keys"]),
                                  np.array(document["values"]), np.array(document["weights"]),
                                  np.array(document["mask"], dtype=bool), np.array(given["output"]))
        for gradient, value in zip(("values", "weights", "scores", "queries", "keys"), ours):
            listings = ("softmax_backward", "attention_backward") if gradient == "scores" else "attention_backward"
            yield listings, f"{name}: d{gradient}", value, given[gradient]
