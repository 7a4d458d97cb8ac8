"""Chapter 14: writing n words one at a time, with the cache of keys and
values and by recomputing the whole prefix at every step, from the benchmark
run of the build (an untrained model: the cost does not depend on the
weights). Top, the time for all n words on the machine that built the book:
the median of the repetitions, with their spread as a bar. Bottom, the
multiply-adds of the matrix products, as the program counts them. Both on
log-log axes, so that a power of n is a straight line: a dashed guide of
slope 2 (n², the cache) and of slope 3 (n³, recomputing) ends at each
curve's last point, and the slope written beside that point is the curve's own
between the two longest lengths. At these lengths the work that every word
costs whatever came before it (the projections, the feed-forward network,
the output layer) is still a large share, so the counts run below their
guides' slopes and bend towards them as n grows."""
import numpy as np

from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
run = load_run(options.outputs, "generating_benchmark")
rows = run["lengths"]
lengths = np.array([row["n"] for row in rows], dtype=float)
WAYS = [
    ("cached", "with the cache", "#1f77b4", "o", 2),
    ("recomputed", "recomputing the prefix", "#d62728", "s", 3),
]

figure, (timed, counted) = plt.subplots(2, 1, figsize=(4.6, 6.2), sharex=True, layout="constrained")


def guide(axes, values, power, colour, measured):
    """A dashed line of slope `power` over the upper half of the lengths, ending at the curve's last point,
    labelled under its lower end; and the curve's own slope between its last two points (the program's
    "slopes"), beside that point."""
    start = lengths[len(lengths) // 2]
    x = np.array([start, lengths[-1]])
    y = values[-1] * (x / lengths[-1]) ** power
    axes.plot(x, y, color=colour, linestyle="--", linewidth=1.2, alpha=0.7)
    axes.annotate(f"n{'²' if power == 2 else '³'}: slope {power}", (x[0], y[0]), textcoords="offset points",
                  xytext=(0, -5), ha="left", va="top", fontsize=10, color=colour)
    axes.annotate(f"slope\n{measured:.1f}", (lengths[-1], values[-1]), textcoords="offset points", xytext=(7, 0),
                  ha="left", va="center", fontsize=10, color=colour, fontweight="bold")


for key, name, colour, marker, power in WAYS:
    medians = np.array([row[key]["median"] for row in rows]) * 1e3
    low = np.array([row[key]["low"] for row in rows]) * 1e3
    high = np.array([row[key]["high"] for row in rows]) * 1e3
    timed.errorbar(lengths, medians, yerr=[medians - low, high - medians], color=colour, marker=marker,
                   markersize=5, capsize=3, label=name)
    guide(timed, medians, power, colour, run["slopes"][key]["timed"])
    counts = np.array([row[f"{key}_multiply_adds"] for row in rows])
    counted.plot(lengths, counts, color=colour, marker=marker, markersize=5, label=name)
    guide(counted, counts, power, colour, run["slopes"][key]["counted"])

timed.set_ylabel(f"ms for all n words\n(median of {run['reps']})", fontsize=10)
timed.set_title("Timed on the machine that built this book", fontsize=11)
timed.legend(loc="upper left", frameon=False, fontsize=10)
counted.set_ylabel("multiply-adds for all n words\n(counted)", fontsize=10)
counted.set_title("Counted", fontsize=11)
counted.set_xlabel("n, the words written", fontsize=10)
for axes in (timed, counted):
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xticks(lengths, [f"{n:.0f}" for n in lengths])
    axes.minorticks_off()
    axes.set_xlim(lengths[0] / 1.3, lengths[-1] * 1.9)
    bottom, top = axes.get_ylim()
    axes.set_ylim(bottom / 1.6, top * 2.5)  # room above the last point for its slope, below for a guide's name
    axes.tick_params(labelsize=10)
    axes.grid(True, color="#eeeeee")
    axes.spines[["top", "right"]].set_visible(False)
save(figure, options.out)
