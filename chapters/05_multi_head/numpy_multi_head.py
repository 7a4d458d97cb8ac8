"""Chapter 5's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np

from numpy_softmax import attention  # chapter 3's


def multi_head_attention(queries, keys, values, head_weights, w_o):
    """MultiHead(Q, K, V); head_weights holds (W^Q_i, W^K_i, W^V_i) for each head."""
    # [heads]
    heads = []
    for w_q, w_k, w_v in head_weights:
        q = queries @ w_q
        k = keys @ w_k
        v = values @ w_v
        heads.append(attention(q, k, v))
    # [heads]
    # [concatenate]
    outputs = [head["output"] for head in heads]
    joined = np.concatenate(outputs, axis=1)  # side by side
    output = joined @ w_o
    # [concatenate]
    return heads, joined, output


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    document = run("multi_head")
    x = np.array(document["input"])  # self-attention: Q, K and V are all X
    head_weights = [(np.array(head["W_q"]), np.array(head["W_k"]), np.array(head["W_v"]))
                    for head in document["heads"]]
    heads, joined, output = multi_head_attention(x, x, x, head_weights, np.array(document["W_o"]))
    for number, (ours, theirs) in enumerate(zip(heads, document["heads"]), start=1):
        for step in ("scaled_scores", "weights", "output"):
            yield "heads", f"head {number}'s {step}", ours[step], theirs[step]
    yield "concatenate", "Concat(head_1, ..., head_h)", joined, document["concat"]
    yield "concatenate", "the output, Concat(...) W^O", output, document["output"]
