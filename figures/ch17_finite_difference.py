"""Chapter 17: the central difference (e^(1 + h) - e^(1 - h)) / 2h against
the true derivative e, every number rounded to double, float or bfloat16,
for steps h from 10^-0.5 down to 10^-12, on log-log axes, the smaller steps to
the right. To the left of each dip (large steps) the error is the formula's
own, about h^2 / 6; to the right (small steps) it is rounding, about the
format's spacing divided by h. The dotted lines mark
the cube root of each format's spacing at 1, where the two meet, each named
above the plot."""
from figure_style import arguments, load_run, plt, save, step_axes

options = arguments(__doc__)
run = load_run(options.outputs, "precision")["finite_difference"]
COLOURS = {"double": "#1f77b4", "float": "#2ca02c", "bfloat16": "#d62728"}
MARKERS = {"double": "o", "float": "s", "bfloat16": "^"}  # a shape per format, so they differ by more than colour

figure, axes = plt.subplots(figsize=(4.6, 3.8), layout="constrained")
for curve in run["curves"]:
    colour = COLOURS[curve["format"]]
    errors = [max(error, 1e-17) for error in curve["errors"]]
    axes.loglog(run["steps"], errors, marker=MARKERS[curve["format"]], markersize=5, color=colour,
                label=curve["format"])
    axes.axvline(curve["root"], color=colour, linestyle=":", linewidth=1)
    # Each name on the side of its line away from the next: the leftmost (largest) step's to the left.
    leftmost = curve["root"] == max(other["root"] for other in run["curves"])
    axes.text(curve["root"], 1.01, f" {curve['format']} ", transform=axes.get_xaxis_transform(), va="bottom",
              ha="right" if leftmost else "left", color=colour, fontsize=10)
step_axes(axes, "step h, smaller to the right\n(dotted: cube root of the spacing)", "relative error of the derivative",
          "lower left", small=10)
save(figure, options.out)
