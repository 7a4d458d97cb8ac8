"""Chapter 9: the heads of the self-attention layer that computes a
convolution. Head δ puts weight exactly 1 on the key δ positions from the
query, and none elsewhere; where that key is beyond the ends, the row is empty."""
import numpy as np

from figure_style import arguments, load_run, plt, save, with_minus_signs

options = arguments(__doc__)
run = load_run(options.outputs, "other_layers_convolution")
heads = run["heads"]
positions = [f"x{i + 1}" for i in range(run["n"])]

figure, axes_row = plt.subplots(1, len(heads), figsize=(3.0 * len(heads), 3.3), constrained_layout=True,
                                squeeze=False)
for axes, head in zip(axes_row[0], heads):
    weights = np.array(head["weights"])
    axes.imshow(weights, cmap="Blues", vmin=0.0, vmax=1.0)
    axes.set_xticks(range(len(positions)), positions, fontsize=8)
    axes.set_yticks(range(len(positions)), positions, fontsize=8)
    axes.xaxis.tick_top()
    offset = head["offset"]
    axes.set_xlabel("key position j", fontsize=9)
    axes.xaxis.set_label_position("top")
    axes.set_title(with_minus_signs(f"head δ = {offset:+d}: key i{offset:+d}"), fontsize=10)
    for i, row in enumerate(weights):
        if not row.any():
            axes.text(len(positions) / 2 - 0.5, i, "no key: zero padding", ha="center", va="center", fontsize=7,
                      color="#555555")
axes_row[0][0].set_ylabel("query position i")
save(figure, options.out)
