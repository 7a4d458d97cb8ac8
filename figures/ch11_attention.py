"""Chapter 11: the attention weights the trained model uses on one held-out
sequence, one panel per head, beside the map that solves "reverse" exactly:
output position i reads input position n - 1 - i, the anti-diagonal."""
import numpy as np

from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
run = load_run(options.outputs, "training")
n = run["length"]
maps = [(np.array(head), f"layer {l + 1}, head {h + 1}\nmirrored weight {run['source_weight'][l][h]:.2f}")
        for l, layer in enumerate(run["attention"]) for h, head in enumerate(layer)]
maps.append((np.fliplr(np.eye(n)), "the exact answer\n(anti-diagonal)"))

figure, axes_row = plt.subplots(1, len(maps), figsize=(2.5 * len(maps), 2.9), constrained_layout=True)
for axes, (weights, title) in zip(axes_row, maps):
    image = axes.imshow(weights, cmap="Blues", vmin=0, vmax=1)
    axes.set_title(title, fontsize=9)
    axes.set_xticks(range(n), [str(d) for d in run["example"]["input"]], fontsize=7)
    axes.set_yticks(range(n), [str(d) for d in run["example"]["prediction"]], fontsize=7)
    axes.set_xlabel("input digit (key)", fontsize=8)
axes_row[0].set_ylabel("predicted digit (query)", fontsize=8)
figure.colorbar(image, ax=axes_row, shrink=0.7, label="attention weight")
save(figure, options.out)
