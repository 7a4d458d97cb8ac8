"""Chapter 3: the saturation demo across a range of added amounts. Left, the
large scores; right, the same scores divided; each line is one slot's weight
as the amount added to slot two grows. The program computes every point
(its `saturation.sweep`); this script only draws them."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, panel_figure, save_wide_and_narrow

options = arguments(__doc__)
demo = load_run(options.outputs, "softmax_saturation")["saturation"]
sweep = demo["sweep"]
added = np.array([point["add"] for point in sweep])


def numbers(values) -> str:
    return "(" + ", ".join(f"{value:g}" for value in values) + ")"


panels = [
    ("weights_large", f"large scores {numbers(demo['scores'])}"),
    ("weights_divided", f"divided by {demo['divide']:g}: {numbers(demo['divided'])}"),
]
colours = ["#1f77b4", "#d62728", "#7f7f7f", "#2ca02c", "#9467bd", "#8c564b"]


def draw(narrow: bool):
    """Side by side, sharing the weight axis; narrow, one above the other, sharing both axes."""
    figure, axes = panel_figure(2, narrow, wide_size=(9.0, 3.8), narrow_size=(NARROW_WIDTH - 0.4, 7.0), space=0.08,
                                sharex=narrow, sharey=True)
    for axis, (key, title) in zip(axes, panels):
        weights = np.array([point[key] for point in sweep])
        for slot in range(weights.shape[1]):
            axis.plot(added, weights[:, slot], color=colours[slot % len(colours)], linewidth=2.4 if slot == 1 else 1.4,
                      label=f"slot {slot + 1}" + (" (gets the added amount)" if slot == 1 else ""))
        before, after = demo[key][1], demo[key + "_added"][1]
        axis.plot([0, demo["add"]], [before, after], "o", color=colours[1], markersize=6, zorder=3)
        # A label just below the point would cross slot one's line: it goes lower, between slots one and three.
        below = -40
        axis.annotate(f"{before:.4f} → {after:.4f}", (demo["add"], after), xytext=(10, 10 if after < 0.3 else below),
                      textcoords="offset points", color=colours[1])
        axis.axvline(demo["add"], color="black", linestyle=":", linewidth=1)
        axis.set_title(title)
        if not narrow or axis is axes[-1]:
            axis.set_xlabel("amount added to slot two")
        axis.set_ylim(-0.03, 1.02)  # a little below 0, so a line at a weight near 0 clears the axis
        axis.grid(alpha=0.3)
    for axis in axes if narrow else axes[:1]:
        axis.set_ylabel("weight")
    axes[0].legend(loc="center right", fontsize=NARROW_SMALL_TEXT if narrow else 9)
    return figure


save_wide_and_narrow(draw, options.out)
