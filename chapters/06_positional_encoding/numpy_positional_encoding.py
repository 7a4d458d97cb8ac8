"""Chapter 6's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np

from numpy_softmax import attention  # chapter 3's


def angular_frequency(pair, d_model):
    # [angular_frequency]
    two_i = 2 * pair  # pair can be one number or an array of them
    return 1.0 / 10000.0 ** (two_i / d_model)
    # [angular_frequency]


def positional_encoding(positions, d_model):
    # [positional_encoding]
    pos = np.arange(positions)[:, np.newaxis]  # a column
    # one rate per pair, as a row
    omega = angular_frequency(np.arange(d_model // 2), d_model)
    encoding = np.empty((positions, d_model))
    encoding[:, 0::2] = np.sin(pos * omega)  # columns 2i
    encoding[:, 1::2] = np.cos(pos * omega)  # columns 2i + 1
    return encoding
    # [positional_encoding]


def add_positional_encoding(embeddings):
    # [add_positional_encoding]
    positions, d_model = embeddings.shape
    return embeddings + positional_encoding(positions, d_model)
    # [add_positional_encoding]


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in ("positional_encoding", "positional_encoding_heatmap"):
        document = run(name)
        d_model = document["d_model"]
        yield "angular_frequency", f"the rate of each pair, run {name}", \
            angular_frequency(np.arange(d_model // 2), d_model), [pair["frequency"] for pair in document["pairs"]]
        yield "positional_encoding", f"the table, run {name}", positional_encoding(document["positions"], d_model), \
            document["pe"]

    # The toy with positions added to its queries, keys and values, in its order and in --order's.
    document = run("positional_encoding_permutation")
    queries, keys, values = (np.array(document[name]) for name in ("queries", "keys", "values"))
    yield "positional_encoding", "the toy's two-column table", positional_encoding(len(queries), 2), document["pe"]
    rows = np.array(document["order"]) - 1  # --order counts from 1
    for when, order in (("before", slice(None)), ("after", rows)):
        steps = attention(add_positional_encoding(queries[order]), add_positional_encoding(keys[order]),
                          add_positional_encoding(values[order]))
        for step in ("weights", "output"):
            yield "add_positional_encoding", f"the toy's {step} with positions, {when} reordering", steps[step], \
                document["with_positions"][when][step]
