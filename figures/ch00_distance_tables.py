"""Chapter 0: the distance between every pair of words, as one-hot vectors
(left) and as the chapter's illustrative embeddings (right), on one colour
scale. One-hot vectors put every pair of different words at the same
distance; embeddings can put cat nearer to dog than to apple."""
import numpy as np

from figure_style import (
    NARROW_WIDTH, arguments, cell_numbers, load_run, panel_figure, save_wide_and_narrow, token_heatmap)

options = arguments(__doc__)
run = load_run(options.outputs, "sets_of_vectors")
words = run["words"]
panels = [(np.array(run["one_hot"]["distances"]), "one-hot vectors"),
          (np.array(run["embedding"]["distances"]), "embeddings (illustrative)")]
largest = max(float(values.max()) for values, _ in panels)


def draw(narrow: bool):
    """Side by side, the colour bar on the right; narrow, one above the other, the colour bar below."""
    figure, axes_pair = panel_figure(2, narrow, wide_size=(8.8, 4.0), narrow_size=(NARROW_WIDTH - 0.4, 8.4))
    for axes, (distances, title) in zip(axes_pair, panels):
        image = token_heatmap(axes, distances, words, words, vmin=0.0, vmax=largest, key_label="to the word")
        axes.set_title(title)
        cell_numbers(axes, distances, lambda distance: f"{distance:.3f}".rstrip("0").rstrip("."))
    for axes in axes_pair if narrow else axes_pair[:1]:
        axes.set_ylabel("from the word")
    figure.colorbar(image, ax=axes_pair, shrink=0.8, label="distance", location="bottom" if narrow else "right")
    return figure


save_wide_and_narrow(draw, options.out)
