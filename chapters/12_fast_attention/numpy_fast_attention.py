"""Chapter 12's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def online_softmax(queries, keys, values, key_tile, scale):
    """Attention a tile of keys at a time, never holding the n × n table; each tile's M, L, rescale and O / L."""
    steps = []
    # [online_softmax]
    maximum = np.full(len(queries), -np.inf)  # M, one per query
    total = np.zeros(len(queries))  # L
    output = np.zeros((len(queries), values.shape[1]))  # O, not yet divided by L
    for k0 in range(0, len(keys), key_tile):
        scores = scale * (queries @ keys[k0:k0 + key_tile].T)  # s for this tile's keys
        new_maximum = np.maximum(maximum, scores.max(axis=1))  # M'
        rescale = np.exp(maximum - new_maximum)  # e^(M − M'): 0 while M = −∞
        exponentials = np.exp(scores - new_maximum[:, None])  # e^(s − M')
        total = total * rescale + exponentials.sum(axis=1)  # L'
        output = output * rescale[:, None] + exponentials @ values[k0:k0 + key_tile]  # O'
        maximum = new_maximum
        # [online_softmax]
        steps.append((maximum, total, rescale, output / total[:, None]))
    return output / total[:, None], steps


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in run.names:
        trace = run(name).get("trace")
        if trace is None or trace["mask"] != "none" or trace["query_tiles"] != 1:
            continue  # the timed runs trace nothing; a masked trace skips tiles this listing does not
        output, steps = online_softmax(np.array(trace["queries"]), np.array(trace["keys"]),
                                       np.array(trace["values"]), trace["key_tile"], trace["scale"])
        for ours, theirs in zip(steps, trace["steps"], strict=True):
            for value, key in zip(ours, ("maximum", "sum", "rescale", "output")):
                yield "online_softmax", f"{name}: tile {theirs['step']}'s {key}", value, theirs[key]
        yield "online_softmax", f"{name}: the output, O / L", output, trace["output"]
        yield "online_softmax", f"{name}: the teaching version's output", output, trace["teaching_output"]
