"""Chapter 9's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def additive_scores(queries, keys, w_q, w_k, v):
    # [additive_scores]
    projected_queries = queries @ w_q  # q_i W_q for every i
    projected_keys = keys @ w_k  # k_j W_k for every j
    hidden = projected_queries[:, None, :] + projected_keys[None, :, :]  # [i, j, c]: every pair
    scores = np.tanh(hidden) @ v  # s_ij = Σ_c v_c tanh(...)
    # [additive_scores]
    return projected_queries, projected_keys, scores


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    # The toy's identity W_q and W_k, and W_q, W_k and v that are not (a transposed one would show).
    for name in ("other_layers", "other_layers_additive_weights"):
        document = run(name)
        additive = document["additive"]
        projected_queries, projected_keys, scores = additive_scores(
            np.array(document["queries"]), np.array(document["keys"]), np.array(document["W_q"]),
            np.array(document["W_k"]), np.array(document["v"]))
        yield "additive_scores", f"{name}: q_i W_q", projected_queries, additive["projected_queries"]
        yield "additive_scores", f"{name}: k_j W_k", projected_keys, additive["projected_keys"]
        yield "additive_scores", f"{name}: the additive scores", scores, additive["scores"]
