"""Chapter 3: the toy's attention weights with and without the division by
√dₖ, as two heatmaps on one colour scale, so that the same colour means the
same weight on both sides."""
import numpy as np

from figure_style import (
    NARROW_WIDTH, arguments, cell_numbers, load_run, panel_figure, save_wide_and_narrow, token_heatmap)

options = arguments(__doc__)
run = load_run(options.outputs, "softmax")
askers, answerers = run["query_tokens"], run["key_tokens"]
scaled, unscaled = np.array(run["scaled"]["weights"]), np.array(run["unscaled"]["weights"])
# What to look for, said only where this run shows it: in every row the largest weight larger without the
# division, and the smallest smaller.
leans = (unscaled.max(axis=1) > scaled.max(axis=1)).all() and (unscaled.min(axis=1) < scaled.min(axis=1)).all()
panels = [
    (scaled, "softmax(QKᵀ/√dₖ)"),
    (unscaled, "softmax(QKᵀ), no scale" + (":\nlargest weights larger, smallest smaller" if leans else "")),
]
top = max(weights.max() for weights, _ in panels)


def draw(narrow: bool):
    """Side by side, the colour bar on the right; narrow, one above the other, the colour bar below."""
    figure, axes = panel_figure(2, narrow, wide_size=(8.4, 3.9), narrow_size=(NARROW_WIDTH - 0.4, 8.0),
                                sharey=not narrow)
    for axis, (weights, title) in zip(axes, panels):
        image = token_heatmap(axis, weights, askers, answerers, vmin=0.0, vmax=top)
        axis.set_title(title, pad=30)
        cell_numbers(axis, weights, lambda weight: f"{weight:.3f}")
    for axis in axes if narrow else axes[:1]:
        axis.set_ylabel("query: the token asking")
    figure.colorbar(image, ax=axes, shrink=0.8, label="weight (each row sums to 1)",
                    location="bottom" if narrow else "right")
    return figure


save_wide_and_narrow(draw, options.out)
