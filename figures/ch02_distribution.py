"""Chapter 2: the distribution of q·k at the largest d_k, before scaling (top)
and after dividing by √dₖ (bottom), on one shared axis, with the normal
densities footnote 4 predicts: N(0, d_k) and N(0, 1). An inset zooms in on the
scaled scores: the same counts, the same shape, on an axis √dₖ times narrower."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "scaling_variance")
histogram = run["histogram"]
width, samples = histogram["dk"], run["samples"]
counts = np.array(histogram["counts"], dtype=float)
edges_raw, edges_scaled = np.array(histogram["edges_raw"]), np.array(histogram["edges_scaled"])
SCALED = "darkorange"  # the interactive figure's colour for the scores after dividing


def normal_density(x, variance):
    return np.exp(-x * x / (2 * variance)) / np.sqrt(2 * np.pi * variance)


def histogram_and_density(axes, edges, variance, colour, label, theory):
    bin_width = edges[1] - edges[0]
    axes.bar(edges[:-1], counts / (samples * bin_width), width=bin_width, align="edge", color=colour, alpha=0.55,
             edgecolor=colour, linewidth=0.6, label=label)
    x = np.linspace(edges[0], edges[-1], 400)
    axes.plot(x, normal_density(x, variance), color="black", linewidth=1.3, label=theory)
    axes.set_ylim(0, None)


def draw(narrow: bool):
    """One plot 8 in wide; narrow, the same plot narrower: each legend entry on two lines,
    room above the curves for the legends, a larger inset, no text below NARROW_SMALL_TEXT."""
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.3, 6.4) if narrow else (8, 5.6),
                                         sharex=True)
    panels = [
        (top, edges_raw, width, "#1f77b4", f"q·k, unscaled ($d_k$ = {width})", f"N(0, {width})"),
        (bottom, edges_scaled, 1, SCALED, f"q·k / √{width}", "N(0, 1)"),
    ]
    samples_joint = ":\n" if narrow else ": "
    small = NARROW_SMALL_TEXT if narrow else 9
    for axes, edges, variance, colour, label, theory in panels:
        histogram_and_density(axes, edges, variance, colour, f"{label}{samples_joint}{samples} samples",
                              f"density of {theory}")
        axes.set_ylabel("density")
        axes.legend(loc="upper left", frameon=False, fontsize=small)
        axes.set_ylim(0, (1.6 if narrow else 1.3)
                      * max(counts.max() / (samples * (edges[1] - edges[0])), normal_density(0.0, variance)))
        axes.spines[["top", "right"]].set_visible(False)
    bottom.set_xlim(edges_raw[0], edges_raw[-1])
    bottom.set_xlabel("score before softmax")

    zoom = bottom.inset_axes([0.62, 0.2, 0.38, 0.62] if narrow else [0.64, 0.22, 0.34, 0.74])
    histogram_and_density(zoom, edges_scaled, 1, SCALED, None, None)
    zoom.set_xlim(edges_scaled[0], edges_scaled[-1])
    zoom.set_title("the same,\nzoomed in" if narrow else "the same, zoomed in", fontsize=small)
    zoom.tick_params(labelsize=small if narrow else 8)
    figure.tight_layout()
    return figure


save_wide_and_narrow(draw, options.out)
