"""Chapter 11: the attention weights the trained model uses on one held-out
sequence, one panel per head, beside the map that solves "reverse" exactly:
output position i reads input position n - 1 - i, the anti-diagonal. On each
head's map that mirrored cell of every row is framed in red, so that a row whose
largest weight sits elsewhere shows."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "training")
n = run["length"]
heads = sum(len(layer) for layer in run["attention"])  # the maps before the exact answer
maps = [(np.array(head), f"layer {l + 1}, head {h + 1}\nmirrored weight {run['source_weight'][l][h]:.3f}")
        for l, layer in enumerate(run["attention"]) for h, head in enumerate(layer)]
maps.append((np.fliplr(np.eye(n)), "the exact answer\n(anti-diagonal)"))


def draw(narrow: bool):
    """Side by side, the colour bar on the right; narrow, one above another, each map with its own
    axis labels, the colour bar below, no text below NARROW_SMALL_TEXT."""
    if narrow:
        figure, axes_row = plt.subplots(len(maps), 1, figsize=(NARROW_WIDTH - 1.2, 3.3 * len(maps) + 0.6),
                                        constrained_layout=True)
        figure.get_layout_engine().set(hspace=0.03)
        title_size, tick_size, label_size = 11, NARROW_SMALL_TEXT, NARROW_SMALL_TEXT
    else:
        figure, axes_row = plt.subplots(1, len(maps), figsize=(2.5 * len(maps), 2.9), constrained_layout=True)
        title_size, tick_size, label_size = 9, 7, 8
    for index, (axes, (weights, title)) in enumerate(zip(axes_row, maps)):
        image = axes.imshow(weights, cmap="Blues", vmin=0, vmax=1)
        for i in range(n if index < heads else 0):
            axes.add_patch(plt.Rectangle((n - 1 - i - 0.45, i - 0.45), 0.9, 0.9, fill=False, edgecolor="#d62728",
                                         linewidth=1.5))
        axes.set_title(title, fontsize=title_size)
        axes.set_xticks(range(n), [str(d) for d in run["example"]["input"]], fontsize=tick_size)
        axes.set_yticks(range(n), [str(d) for d in run["example"]["prediction"]], fontsize=tick_size)
        axes.set_xlabel(f"input digit (key), positions 0 to {n - 1}", fontsize=label_size)
    for axes in axes_row if narrow else axes_row[:1]:
        axes.set_ylabel("predicted digit (row i: query of input i)", fontsize=label_size)
    if narrow:
        figure.colorbar(image, ax=axes_row, shrink=0.8, fraction=0.03, pad=0.02, aspect=15, label="attention weight",
                         location="bottom")
    else:
        figure.colorbar(image, ax=axes_row, shrink=0.7, label="attention weight")
    return figure


save_wide_and_narrow(draw, options.out)
