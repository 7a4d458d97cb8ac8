"""Chapter 9: encoder–decoder attention, a rectangular map: one row per target
word (the queries), one column per source word (the keys and values)."""
import numpy as np

from figure_style import arguments, load_run, plt, save, token_heatmap

options = arguments(__doc__)
run = load_run(options.outputs, "other_layers_cross")
weights = np.array(run["weights"])

figure, axes = plt.subplots(figsize=(5.6, 3.4), constrained_layout=True)
image = token_heatmap(axes, weights, run["target_tokens"], run["source_tokens"], vmin=0.0, vmax=1.0,
                      key_label="source word: key and value")
for i in range(weights.shape[0]):
    for j in range(weights.shape[1]):
        axes.text(j, i, f"{weights[i, j]:.3f}", ha="center", va="center",
                  color="white" if weights[i, j] > 0.6 else "black")
axes.set_ylabel("target word: query")
figure.colorbar(image, ax=axes, shrink=0.8, label="weight")
save(figure, options.out)
