"""Chapter 10: how far central differences are from the analytic gradient, as a
function of the step h, for the first gradient of every layer the chapter
checks (the sweep of the default run). Large steps are off by the Taylor
series' h² term; small steps by the rounding of the two losses, divided by 2h.
The two meet near h ≈ u^(1/3), u the spacing of doubles at 1. Two grey guide lines show the slopes h² and u/h.

An error of exactly 0 (possible where a layer is linear in what is moved, as
the embedding is) has no place on a logarithmic axis and is left out."""
import numpy as np

from figure_style import (
    NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow, with_minus_signs)

MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*"]

options = arguments(__doc__)
run = load_run(options.outputs, "backward_pass")
sweep = run["sweep"]
titles = {layer["key"]: layer["title"] for layer in run["check"]["layers"]}
steps = np.array(sweep["steps"])
epsilon = run["epsilon"]
chosen = run["check"]["step"]


def draw(narrow: bool):
    """One chart; narrow, the same chart narrower: the axis labels on several lines, the legend
    below in one column, no text below NARROW_SMALL_TEXT."""
    note = NARROW_SMALL_TEXT if narrow else 9  # the slopes' and the steps' names, the legend
    figure, axes = plt.subplots(figsize=(NARROW_WIDTH - 0.3, 7.6) if narrow else (7.6, 5.8), constrained_layout=True)
    for index, key in enumerate(sweep["layers"]):
        errors = np.array(sweep["errors"][key], dtype=float)
        shown = errors > 0
        # Hollow markers, neighbours in two sizes: where two layers' errors nearly coincide (attention with and
        # without the mask, say), the smaller shows inside the larger.
        axes.loglog(steps[shown], errors[shown], marker=MARKERS[index % len(MARKERS)],
                    markersize=4 if index % 2 == 0 else 7, linewidth=1.2,
                    markerfacecolor="none", markeredgewidth=1.2, label=f"{titles[key]} ({sweep['parameters'][key]})")
    # The two slopes, a factor of 30 below the attention curve's ends, so that they
    # run beside the data instead of over it.
    attention = np.array(sweep["errors"][sweep["layers"][0]], dtype=float)
    large = steps[:4]
    axes.loglog(large, attention[0] / 30 * (large / steps[0]) ** 2, color="#777777", linestyle="--", linewidth=1.2)
    if narrow:
        # Narrower, the label's usual place crosses its guide: it goes lower, into the corner between the
        # guide, the feed-forward network's fall and its climb.
        axes.text(steps[1], attention[0] / 30 * (large[3] / steps[0]) ** 2 / 3, "slope h²", color="#555555",
                  fontsize=note)
    else:
        axes.text(large[2], attention[0] / 30 * (large[2] / steps[0]) ** 2 / 8, "slope h²", color="#555555",
                  fontsize=note)
    small = steps[-5:]
    axes.loglog(small, attention[-1] / 30 * steps[-1] / small, color="#777777", linestyle=":", linewidth=1.5)
    axes.text(small[2], attention[-1] / 30 * steps[-1] / small[2] / 8, "slope u/h", color="#555555", fontsize=note)
    axes.invert_xaxis()
    # The two steps as lines in no curve's colour, above the grid and under the curves, each named above the
    # axes: the check's to the left of its line, u^(1/3) (the smaller, so further right) to the right of its own.
    gap = "\n" if narrow else " "  # narrow, labels break where the wide figure has a space
    top = axes.get_xaxis_transform()
    axes.axvline(chosen, color="black", linewidth=1, zorder=1.6)
    axes.annotate(with_minus_signs(f"the check's step,{gap}h = {chosen:g}"), (chosen, 1.0), xycoords=top, xytext=(-3, 3),
                  textcoords="offset points", ha="right", va="bottom", multialignment="right", fontsize=note)
    axes.axvline(np.cbrt(epsilon), color="black", linewidth=1, linestyle="-.", zorder=1.6)
    axes.annotate("$u^{1/3}$", (np.cbrt(epsilon), 1.0), xycoords=top, xytext=(3, 3), textcoords="offset points",
                  ha="left", va="bottom", fontsize=note)
    axes.axhline(1e-7, color="#444444", linewidth=0.8, label="1e−7: the bound the tests hold")
    axes.set_xlabel("step h, smaller to the right")
    axes.set_ylabel(gap.join(["max |analytic − numeric|", "/ largest |entry|"]))
    axes.grid(which="major", color="#dddddd", linewidth=0.6)
    if narrow:
        axes.legend(fontsize=note, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=1, frameon=False)
    else:
        axes.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    return figure


save_wide_and_narrow(draw, options.out)
