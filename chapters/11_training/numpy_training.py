"""Chapter 11's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


def adam_on_lone_weights(gradients, learning_rate, beta1, beta2, epsilon):
    """Adam from θ = 0, one row of @p gradients per step: θ after each step."""
    theta = np.zeros(len(gradients[0]))
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    after = []
    for t, g in enumerate(np.asarray(gradients, dtype=float), start=1):
        # [adam_step]
        m = beta1 * m + (1 - beta1) * g  # the running mean of g
        v = beta2 * v + (1 - beta2) * g**2  # the running mean of g², entry by entry
        theta = theta - learning_rate * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + epsilon)
        # [adam_step]
        after.append(theta)
    return np.array(after)


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in run.names:
        document = run(name)
        if "adam_example" not in document:  # a run over several seeds prints no lone-weights example
            continue
        example, adam = document["adam_example"], document["adam"]
        after = adam_on_lone_weights(example["gradients"], adam["learning_rate"], adam["beta1"], adam["beta2"],
                                     adam["epsilon"])
        yield "adam_step", f"{name}: the lone weights after each step", after, example["weights"]
