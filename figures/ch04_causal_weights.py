"""Chapter 4: the toy's attention weights without a mask and under the causal
mask, side by side. Masked cells are hatched: their weight is exactly 0."""
import numpy as np
from matplotlib.patches import Rectangle

from figure_style import (
    NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, ink_on, load_run, panel_figure, save_wide_and_narrow, token_heatmap)

options = arguments(__doc__)
panels = [(load_run(options.outputs, "masking_none"), "no mask"),
          (load_run(options.outputs, "masking"), "causal mask")]


def draw(narrow: bool):
    """Side by side, the colour bar on the right; narrow, one above the other, the colour bar below."""
    figure, axes_pair = panel_figure(2, narrow, wide_size=(8.4, 3.9), narrow_size=(NARROW_WIDTH - 0.4, 8.0))
    for axes, (run, title) in zip(axes_pair, panels):
        weights = np.array(run["weights"])
        allowed = np.array(run["mask"], dtype=bool)
        askers, answerers = run["query_tokens"], run["key_tokens"]
        image = token_heatmap(axes, weights, askers, answerers, vmin=0.0, vmax=1.0,
                              key_label="key: the token looked at")
        axes.set_title(title)
        for i in range(weights.shape[0]):
            for j in range(weights.shape[1]):
                if allowed[i, j]:
                    axes.text(j, i, f"{weights[i, j]:.3f}", ha="center", va="center",
                              color=ink_on(image.cmap(image.norm(weights[i, j]))))
                else:
                    axes.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="#eeeeee", edgecolor="#888888",
                                             hatch="///", linewidth=0.8))
                    axes.text(j, i, "masked\n0", ha="center", va="center", color="#444444",
                              fontsize=NARROW_SMALL_TEXT if narrow else 9,
                              bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"})
    for axes in axes_pair if narrow else axes_pair[:1]:
        axes.set_ylabel("query: the token asking")
    figure.colorbar(image, ax=axes_pair, shrink=0.8, label="weight", location="bottom" if narrow else "right")
    return figure


save_wide_and_narrow(draw, options.out)
