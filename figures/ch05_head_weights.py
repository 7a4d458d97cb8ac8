"""Chapter 5: each head's attention weights on the worked example, side by
side on one colour scale. Every head looks at the same sentence through its
own projections, so each has a table of its own; the weights are random
(drawn from the seed), so the pattern means nothing learned."""
import numpy as np

from figure_style import (
    NARROW_WIDTH, arguments, cell_numbers, load_run, panel_figure, plt, save_wide_and_narrow, token_heatmap)

options = arguments(__doc__)
run = load_run(options.outputs, "multi_head")
tokens = run["tokens"]
heads = run["heads"]


def draw(narrow: bool):
    """Side by side, the colour bar on the right; narrow, one above another, the colour bar below."""
    figure, panels = panel_figure(len(heads), narrow, wide_size=(3.9 * len(heads) + 0.8, 3.9),
                                    narrow_size=(NARROW_WIDTH - 0.4, 4.0 * len(heads)))
    for number, (axes, head) in enumerate(zip(panels, heads), start=1):
        weights = np.array(head["weights"])
        image = token_heatmap(axes, weights, tokens, tokens, vmin=0.0, vmax=1.0,
                              key_label="key: the token looked at")
        axes.set_title(f"head {number}: softmax(Q$_{number}$K$_{number}^T/\\sqrt{{{run['d_k']}}}$)")
        cell_numbers(axes, weights, lambda weight: f"{weight:.2f}")
        for i in range(weights.shape[0]):  # the largest weight of each row, outlined
            j = int(np.argmax(weights[i]))
            axes.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#d62728", linewidth=2))
    for axes in panels if narrow else panels[:1]:
        axes.set_ylabel("query: the token asking")
    figure.colorbar(image, ax=panels, shrink=0.8, label="weight",
                    location="bottom" if narrow else "right")
    return figure


save_wide_and_narrow(draw, options.out)
