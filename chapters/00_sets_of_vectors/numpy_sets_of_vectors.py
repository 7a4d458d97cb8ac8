"""Chapter 0's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def one_hot(words):
    # [one_hot]
    return np.eye(words)  # row i: a 1 in place i, 0 everywhere else
    # [one_hot]


def euclidean_distance(a, b):
    # [euclidean_distance]
    differences = a[:, None, :] - b[None, :, :]  # every word of a against every word of b
    return np.sqrt((differences**2).sum(axis=2))  # [i, j]: word i of a to word j of b
    # [euclidean_distance]


def layer_on_one_row(inputs, weights, bias):
    # [layer_on_one_row]
    return inputs @ weights + bias  # row t of the output reads only row t of the inputs
    # [layer_on_one_row]


def windows(inputs, radius):
    # [windows]
    n, d = inputs.shape
    zeros = np.zeros((radius, d))  # the neighbours beyond either end
    padded = np.vstack([zeros, inputs, zeros])
    # slot k of row t is row t + k - radius: rows k to k + n - 1 of padded
    return np.hstack([padded[k:k + n] for k in range(2 * radius + 1)])
    # [windows]


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in run.names:
        document = run(name)
        yield "one_hot", f"{name}: the one-hot vectors", one_hot(len(document["words"])), \
            document["one_hot"]["vectors"]
        for kind in ("one_hot", "embedding"):
            vectors = np.array(document[kind]["vectors"])
            yield "euclidean_distance", f"{name}: every pair's distance, {kind}", \
                euclidean_distance(vectors, vectors), document[kind]["distances"]
        tagging = document["tagging"]
        inputs = np.array(tagging["inputs"])
        one_vector = tagging["one_vector"]
        yield "layer_on_one_row", f"{name}: the layer that reads one vector", \
            layer_on_one_row(inputs, np.array(one_vector["weights"]), np.array(one_vector["bias"])), \
            one_vector["outputs"]
        window = tagging["window"]
        stacked = windows(inputs, tagging["radius"])
        yield "windows", f"{name}: each row with its neighbours", stacked, window["inputs"]
        yield "layer_on_one_row", f"{name}: the window layer on the stacked rows", \
            layer_on_one_row(stacked, np.array(window["weights"]), np.array(window["bias"])), window["outputs"]
