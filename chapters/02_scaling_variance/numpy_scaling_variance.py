"""Chapter 2's listings in NumPy: the code of the page's NumPy tabs.

The book's build runs this file (tools/check_numpy_listings.py) on the
chapter's own inputs, the programs' captured runs, and stops if a result
differs from the C++ program's: see comparisons() at the end."""
import numpy as np


class Mulberry32:
    """The book's generator (src/attention/mulberry32.hpp), many numbers at a time.

    Its state after n draws is seed + n · 0x6D2B79F5 (mod 2³²), so the next
    `count` states are known at once and mixed together, in unsigned 32-bit
    arithmetic, which wraps around as the C++ does."""

    def __init__(self, seed):
        self.seed, self.drawn = seed, 0

    def uniform(self, count):
        steps = np.arange(self.drawn + 1, self.drawn + count + 1, dtype=np.uint64)
        self.drawn += count
        state = ((self.seed + steps * np.uint64(0x6D2B79F5)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        t = (state ^ (state >> np.uint32(15))) * (state | np.uint32(1))
        t = (t + ((t ^ (t >> np.uint32(7))) * (t | np.uint32(61)))) ^ t
        return (t ^ (t >> np.uint32(14))) / 2.0**32


def standard_normal(generator, count):
    # [standard_normal]
    # the book's generator: NumPy's own draw other streams
    u = generator.uniform(2 * count)  # u1, u2, u1, u2, ...
    u1, u2 = u[0::2], u[1::2]
    u1 = np.where(u1 == 0.0, 2.0**-33, u1)  # ln 0 = -inf
    radius = np.sqrt(-2.0 * np.log(u1))
    return radius * np.cos(2.0 * np.pi * u2)
    # [standard_normal]


def random_dot_products(generator, width, samples):
    # [random_dot_product]
    # q1, k1, q2, k2, ... for every sample at once
    z = standard_normal(generator, 2 * width * samples)
    z = z.reshape(samples, width, 2)  # a row per sample
    q, k = z[:, :, 0], z[:, :, 1]
    return (q * k).sum(axis=1)  # one q · k per sample
    # [random_dot_product]


def population_variance(samples):
    # [population_variance]
    centre = samples.mean()
    # the same as np.var(samples), which also divides by N
    return np.mean((samples - centre) ** 2)
    # [population_variance]


def comparisons(run):
    """Each listing above on the chapter's runs: (listing, what, NumPy's result, the program's)."""
    for name in ("scaling_variance", "scaling_variance_dk64_alone"):
        document = run(name)
        generator = Mulberry32(document["seed"])  # one stream for every d_k, as the program
        for row in document["rows"]:
            width = row["dk"]
            # 500 samples at a time (the same stream, in step): a smaller peak of memory.
            x = np.concatenate([random_dot_products(generator, width, min(500, document["samples"] - start))
                                for start in range(0, document["samples"], 500)])
            what = f"d_k = {width}, run {name}"
            yield ("standard_normal", "random_dot_product"), f"the mean of the q · k, {what}", x.mean(), \
                row["mean_raw"]
            yield "population_variance", f"the variance of q · k, {what}", population_variance(x), row["var_raw"]
