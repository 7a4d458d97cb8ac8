"""Chapter 9: the toy's attention weights under additive scoring and under
scaled dot-product scoring, side by side, from the same queries, keys and values."""
import numpy as np

from figure_style import arguments, load_run, plt, save, token_heatmap

options = arguments(__doc__)
run = load_run(options.outputs, "other_layers")
panels = [(np.array(run["additive"]["weights"]), "additive: v·tanh(q W_q + k W_k)"),
          (np.array(run["dot_product"]["weights"]), "scaled dot product: q·k/√dₖ")]

figure, axes_pair = plt.subplots(1, 2, figsize=(8.4, 3.9), constrained_layout=True)
for axes, (weights, title) in zip(axes_pair, panels):
    image = token_heatmap(axes, weights, run["query_tokens"], run["key_tokens"], vmin=0.0, vmax=1.0,
                          key_label="key: the token looked at")
    axes.set_title(title)
    for i in range(weights.shape[0]):
        for j in range(weights.shape[1]):
            axes.text(j, i, f"{weights[i, j]:.3f}", ha="center", va="center",
                      color="white" if weights[i, j] > 0.6 else "black")
axes_pair[0].set_ylabel("query: the token asking")
figure.colorbar(image, ax=axes_pair, shrink=0.8, label="weight")
save(figure, options.out)
