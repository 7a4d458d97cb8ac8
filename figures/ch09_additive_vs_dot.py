"""Chapter 9: the toy's attention weights under additive scoring and under
scaled dot-product scoring, side by side, from the same queries, keys and values."""
import numpy as np

from figure_style import (
    NARROW_WIDTH, arguments, cell_numbers, load_run, panel_figure, save_wide_and_narrow, token_heatmap)

options = arguments(__doc__)
run = load_run(options.outputs, "other_layers")
panels = [(np.array(run["additive"]["weights"]), "additive: v·tanh(q W_q + k W_k)"),
          (np.array(run["dot_product"]["weights"]), "scaled dot product: q·k/√dₖ")]


def draw(narrow: bool):
    """Side by side, the colour bar on the right; narrow, one above the other, the colour bar below."""
    figure, axes_pair = panel_figure(2, narrow, wide_size=(8.4, 3.9), narrow_size=(NARROW_WIDTH - 0.4, 8.0))
    for axes, (weights, title) in zip(axes_pair, panels):
        image = token_heatmap(axes, weights, run["query_tokens"], run["key_tokens"], vmin=0.0, vmax=1.0,
                              key_label="key: the token looked at")
        axes.set_title(title)
        cell_numbers(axes, weights, lambda weight: f"{weight:.3f}")
    for axes in axes_pair if narrow else axes_pair[:1]:
        axes.set_ylabel("query: the token asking")
    figure.colorbar(image, ax=axes_pair, shrink=0.8, label="weight", location="bottom" if narrow else "right")
    return figure


save_wide_and_narrow(draw, options.out)
