"""Chapter 15's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def rotate(rows, first_position):
    # [rotate]
    n, width = rows.shape
    positions = first_position + np.arange(n)[:, None]  # row r stands at first_position + r
    omega = 1 / 10000 ** (np.arange(0, width, 2) / width)  # ω_i, one per pair
    angles = positions * omega  # one angle per row and pair
    x, y = rows[:, 0::2], rows[:, 1::2]  # each pair's two coordinates
    turned = np.empty_like(rows)
    turned[:, 0::2] = x * np.cos(angles) + y * np.sin(angles)
    turned[:, 1::2] = -x * np.sin(angles) + y * np.cos(angles)
    # [rotate]
    return omega, turned


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in run.names:
        turn = run(name)["turn"]
        query, key = np.array([turn["query"]]), np.array([turn["key"]])
        omega, _ = rotate(query, 0)
        yield "rotate", f"{name}: the angular frequencies ω_i", omega, turn["angles"]
        for number, placement in enumerate(turn["placements"]):
            _, turned_query = rotate(query, placement["query_position"])
            _, turned_key = rotate(key, placement["key_position"])
            yield "rotate", f"{name}: placement {number}'s turned query", turned_query[0], placement["turned_query"]
            yield "rotate", f"{name}: placement {number}'s turned key", turned_key[0], placement["turned_key"]
        # The score at each offset: the query at max(offset, 0), the key at max(−offset, 0).
        scores = [(rotate(query, max(offset, 0))[1] @ rotate(key, max(-offset, 0))[1].T)[0, 0]
                  for offset in turn["offsets"]]
        yield "rotate", f"{name}: the turned score at each offset", scores, turn["scores"]
