"""Chapter 1's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def dot_product(query, key):
    # [dot_product]
    products = query * key  # entry by entry
    return products.sum()  # the same as query @ key
    # [dot_product]


def project(embeddings, query_weights, key_weights, value_weights):
    # [project]
    queries = embeddings @ query_weights  # Q = X W^Q
    keys = embeddings @ key_weights       # K = X W^K
    values = embeddings @ value_weights   # V = X W^V
    # [project]
    return queries, keys, values


def scores(queries, keys):
    # [scores]
    return queries @ keys.T  # QKᵀ
    # [scores]


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    toy = run("dot_product")
    x = toy["projections"]
    queries, keys, values = project(np.array(x["embeddings"]), np.array(x["query_weights"]),
                                    np.array(x["key_weights"]), np.array(x["value_weights"]))
    yield "project", "the toy's Q = XW^Q", queries, toy["queries"]
    yield "project", "the toy's K = XW^K", keys, toy["keys"]
    yield "project", "the toy's V = XW^V", values, toy["values"]

    pair = run("dot_product_pair")
    query, key = np.array(pair["queries"][0]), np.array(pair["keys"][0])
    yield "dot_product", "q · k for q = (1, 2), k = (3, 1)", dot_product(query, key), pair["scores"][0][0]
    every_pair = [[dot_product(np.array(q), np.array(k)) for k in toy["keys"]] for q in toy["queries"]]
    yield "dot_product", "the toy's query · key, pair by pair", every_pair, toy["scores"]

    for name in ("dot_product", "dot_product_one_query", "dot_product_keys_equal_queries"):
        document = run(name)
        yield "scores", f"QKᵀ of the run {name}", scores(np.array(document["queries"]), np.array(document["keys"])), \
            document["scores"]
