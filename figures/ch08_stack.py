"""Chapter 8: the worked example's token vectors through a stack of six
encoder layers: the input x, then each layer's output, one heatmap each
(rows: tokens, columns: the entries of each token's vector), on one colour
scale. Over each layer's output, its gap: the largest difference between two
rows' entries in the same column, the number the prose reads (rows_apart)."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "encoder_layer_stack")
tokens = run["tokens"]
stages = [(np.array(run["x"]), "input x")]
stages += [(np.array(layer["output"]), f"after layer {i + 1}\ngap {gap:.2g}")
           for i, (layer, gap) in enumerate(zip(run["layers"], run["rows_apart"]["by_layer"]))]
limit = max(float(np.max(np.abs(values))) for values, _ in stages)


def draw(narrow: bool):
    """In one row, the colour bar on the right; narrow, the input on top and the layers two by two below it,
    the colour bar below them, the entries named once, under the bottom row, no text below NARROW_SMALL_TEXT."""
    if narrow:
        pairs = [[f"{i}", f"{i}"] + [f"{i + 1}" if i + 1 < len(stages) else "."] * 2 for i in range(1, len(stages), 2)]
        figure, named = plt.subplot_mosaic([[".", "0", "0", "."]] + pairs, figsize=(NARROW_WIDTH - 0.3, 8.2),
                                           constrained_layout=True, sharey=True)
        figure.get_layout_engine().set(hspace=0.06)  # each title nearer its own panel than the one above
        axes_row = [named[f"{i}"] for i in range(len(stages))]
        axes_row[0].tick_params(labelleft=True)  # the input's tokens, as in the first column
        tick_size = NARROW_SMALL_TEXT
        labelled = axes_row[1 + 2 * ((len(stages) - 2) // 2):]  # the bottom row
    else:
        figure, axes_row = plt.subplots(1, len(stages), figsize=(1.35 * len(stages) + 1.2, 2.6),
                                        constrained_layout=True, sharey=True)
        tick_size = 8
        labelled = axes_row
    for axes, (values, title) in zip(axes_row, stages):
        image = axes.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit)
        axes.set_title(title, fontsize=11 if narrow else 10)
        axes.set_xticks(range(values.shape[1]), [f"{j + 1}" for j in range(values.shape[1])], fontsize=tick_size)
        if axes in labelled:
            axes.set_xlabel("entry (column)", fontsize=tick_size if narrow else 9)
    axes_row[0].set_yticks(range(len(tokens)), tokens)
    figure.colorbar(image, ax=axes_row, shrink=0.8 if narrow else 0.6, label="value",
                    location="bottom" if narrow else "right")
    return figure


save_wide_and_narrow(draw, options.out)
