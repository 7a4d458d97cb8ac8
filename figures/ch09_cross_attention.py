"""Chapter 9: encoder–decoder attention, a rectangular map: one row per target
word (the queries), one column per source word (the keys and values)."""
import numpy as np

from figure_style import NARROW_WIDTH, arguments, cell_numbers, load_run, plt, save, token_heatmap

options = arguments(__doc__)
run = load_run(options.outputs, "other_layers_cross")
weights = np.array(run["weights"])

# At most NARROW_WIDTH wide, so that a phone shows it whole at a readable size.
figure, axes = plt.subplots(figsize=(NARROW_WIDTH - 0.3, 3.4), constrained_layout=True)
image = token_heatmap(axes, weights, run["target_tokens"], run["source_tokens"], vmin=0.0, vmax=1.0,
                      key_label="source word: key and value")
cell_numbers(axes, weights, lambda weight: f"{weight:.3f}")
axes.set_ylabel("target word: query")
figure.colorbar(image, ax=axes, shrink=0.8, label="weight")
save(figure, options.out)
