"""Chapter 10: the attention check's dQ against central differences, run once
in double and once in float (every number of the check in that format), for
steps h from 10^-0.5 down to 10^-12, on log-log axes, the smaller steps to the
right. To the left of each dip (large steps) the error is the central
difference's own, about h^2; to the right (small steps) it is the rounding of
the two losses, about the format's spacing divided by h. The
dotted lines mark the cube root of each format's spacing at 1, where the two
meet; the open circle marks each format's best step.

An error of exactly 0 has no place on a logarithmic axis and is left out."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow, step_axes

options = arguments(__doc__)
sweep = load_run(options.outputs, "backward_pass")["format_sweep"]
COLOURS = {"double": "#1f77b4", "float": "#2ca02c"}
steps = np.array(sweep["steps"])


def draw(narrow: bool):
    """One chart; narrow, the same chart narrower, its x label on two lines, no text below NARROW_SMALL_TEXT."""
    figure, axes = plt.subplots(figsize=(NARROW_WIDTH - 0.3, 3.8) if narrow else (5.8, 3.8), layout="constrained")
    for name, curve in sweep["formats"].items():
        colour = COLOURS[name]
        errors = np.array(curve["errors"], dtype=float)
        shown = errors > 0
        axes.loglog(steps[shown], errors[shown], marker="o", markersize=3, color=colour, label=name)
        axes.axvline(curve["cube_root_of_spacing"], color=colour, linestyle=":", linewidth=1)
        axes.plot([curve["best_step"]], [curve["best_error"]], marker="o", markersize=9, markerfacecolor="none",
                  markeredgecolor=colour)
    gap = "\n" if narrow else " "
    step_axes(axes, f"step h, smaller to the right{gap}(dotted: cube root of the spacing)", "relative error of dQ",
              "upper left", small=NARROW_SMALL_TEXT if narrow else 9)
    return figure


save_wide_and_narrow(draw, options.out)
