"""Chapter 0: the distance between every pair of words, as one-hot vectors
(left) and as the chapter's illustrative embeddings (right), on one colour
scale. One-hot vectors put every pair of different words at the same
distance; embeddings can put cat nearer to dog than to apple."""
import numpy as np

from figure_style import NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow, token_heatmap

options = arguments(__doc__)
run = load_run(options.outputs, "sets_of_vectors")
words = run["words"]
panels = [(np.array(run["one_hot"]["distances"]), "one-hot vectors"),
          (np.array(run["embedding"]["distances"]), "embeddings (illustrative)")]
largest = max(float(values.max()) for values, _ in panels)


def draw(narrow: bool):
    """Side by side, the colour bar on the right; narrow, one above the other, the colour bar below."""
    if narrow:
        figure, axes_pair = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.4, 8.4), constrained_layout=True)
        figure.get_layout_engine().set(hspace=0.1)  # each title nearer its own panel than the one above
    else:
        figure, axes_pair = plt.subplots(1, 2, figsize=(8.8, 4.0), constrained_layout=True)
    for axes, (distances, title) in zip(axes_pair, panels):
        image = token_heatmap(axes, distances, words, words, vmin=0.0, vmax=largest, key_label="to the word")
        axes.set_title(title)
        for i in range(distances.shape[0]):
            for j in range(distances.shape[1]):
                axes.text(j, i, f"{distances[i, j]:.3f}".rstrip("0").rstrip("."), ha="center", va="center",
                          color="white" if distances[i, j] > 0.6 * largest else "black")
    for axes in axes_pair if narrow else axes_pair[:1]:
        axes.set_ylabel("from the word")
    figure.colorbar(image, ax=axes_pair, shrink=0.8, label="distance", location="bottom" if narrow else "right")
    return figure


save_wide_and_narrow(draw, options.out)
