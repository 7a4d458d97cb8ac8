"""Chapter 6: PE(pos) · PE(pos + k) against the offset k, from the program's
runs with d_model = 8 and d_model = 64. The program computes the dot product
for every pos from 0 to 127 and reports its smallest and largest value for
each k; the two coincide, so each curve is the same for every pos.

The two offsets the prose compares for d_model = 64 (a farther offset can score
higher) are marked with their values, and a dotted line at the nearer one's
value shows the farther one above it. Narrow, for a phone: the same plot narrower."""
import numpy as np

from figure_style import (
    NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow, with_minus_signs)

# The two entries the prose of chapters/06_positional_encoding/index.rst compares, as its
# :value: roles point at them: /similarity/at_position_0/21 and /101 of the d_model = 64 run,
# the nearer offset, then the farther. Their offsets and values are read from the JSON.
POINTED_AT = (21, 101)

options = arguments(__doc__)
runs = [load_run(options.outputs, "positional_encoding_heatmap"), load_run(options.outputs, "positional_encoding")]
wide_run = runs[0]["similarity"]
marked = {wide_run["offsets"][i]: wide_run["at_position_0"][i] for i in POINTED_AT}
NEARER, FARTHER = marked


def draw(narrow: bool):
    figure, axes = plt.subplots(figsize=(NARROW_WIDTH - 0.3, 3.6) if narrow else (6.7, 4.2))
    small = NARROW_SMALL_TEXT if narrow else 9  # the marked values and the legend
    for run, colour in zip(runs, ("#1f77b4", "#d62728")):
        similarity = run["similarity"]
        offsets = np.array(similarity["offsets"])
        axes.fill_between(offsets, similarity["smallest"], similarity["largest"], color=colour, alpha=0.25,
                          linewidth=0)
        axes.plot(offsets, similarity["at_position_0"], color=colour, linewidth=1.5,
                  label=f"d_model = {run['d_model']}")
    # The nearer offset's value carried right as a dotted line: the farther offset's point lies above it.
    axes.plot([NEARER, FARTHER - 3], [marked[NEARER]] * 2, color="0.3", linestyle=":", linewidth=1)  # stops short of the dot
    axes.plot(list(marked), list(marked.values()), linestyle="none", marker="o", markersize=6, color="black",
              zorder=5)
    for k, value in marked.items():
        axes.annotate(with_minus_signs(f"k = {k}: {value:.2f}"), (k, value), textcoords="offset points",
                      xytext=(0, -30) if k == NEARER else (0, 9), ha="center", fontsize=small,
                      arrowprops=dict(arrowstyle="-", color="0.3", linewidth=0.6, shrinkA=1, shrinkB=4))
    axes.axhline(0, color="#7f7f7f", linewidth=0.6)
    axes.set_xlabel("offset k")
    axes.set_ylabel("PE(pos) · PE(pos + k)")
    axes.set_xlim(0, offsets[-1])
    axes.legend(loc="upper right", fontsize=small, frameon=False)
    return figure


save_wide_and_narrow(draw, options.out)
