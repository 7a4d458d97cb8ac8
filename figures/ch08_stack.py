"""Chapter 8: the worked example's token vectors through a stack of six
encoder layers: the input x, then each layer's output, one heatmap each
(rows: tokens, columns: channels), on one colour scale."""
import numpy as np

from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
run = load_run(options.outputs, "encoder_layer_stack")
tokens = run["tokens"]
stages = [(np.array(run["x"]), "input x")]
stages += [(np.array(layer["output"]), f"after layer {i + 1}") for i, layer in enumerate(run["layers"])]
limit = max(float(np.max(np.abs(values))) for values, _ in stages)

figure, axes_row = plt.subplots(1, len(stages), figsize=(1.35 * len(stages) + 1.2, 2.6), constrained_layout=True,
                                sharey=True)
for axes, (values, title) in zip(axes_row, stages):
    image = axes.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit)
    axes.set_title(title, fontsize=10)
    axes.set_xticks(range(values.shape[1]), [f"{j + 1}" for j in range(values.shape[1])], fontsize=8)
    axes.set_xlabel("channel", fontsize=9)
axes_row[0].set_yticks(range(len(tokens)), tokens)
figure.colorbar(image, ax=axes_row, shrink=0.6, label="entry")
save(figure, options.out)
