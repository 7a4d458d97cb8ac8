"""Chapter 7: the maximum path length between an input and an output position,
counted by breadth-first search, against the sequence length n, for the six
layers of the chapter: self-attention (one layer), recurrent (one layer, one
way and both ways), and
stacks of contiguous convolutions, dilated convolutions and restricted
self-attention deep enough that every output depends on every input."""
from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
sweep = load_run(options.outputs, "path_length_sweep")
kernel, radius = sweep["kernel"], sweep["radius"]
styles = {
    "recurrent": dict(color="#d62728", marker="o", label="recurrent"),
    "bidirectional_recurrent": dict(color="#8c564b", marker="x", linestyle=":", label="recurrent, both ways"),
    "convolutional": dict(color="#ff7f0e", marker="s", linestyle="--", label=f"convolutions, contiguous, k = {kernel}"),
    "restricted_self_attention": dict(color="#9467bd", marker="D",
                                      label=f"self-attention, restricted, R = {radius}"),
    "convolutional_dilated": dict(color="#2ca02c", marker="^", label=f"convolutions, dilated, k = {kernel}"),
    "self_attention": dict(color="#1f77b4", marker="v", label="self-attention"),
}

figure, axes = plt.subplots(figsize=(6.6, 3.4))
for layer, style in styles.items():
    rows = [row for row in sweep["rows"] if row["layer"] == layer]
    axes.plot([row["n"] for row in rows], [row["max_path_length"] for row in rows], markersize=4, linewidth=1.4,
              **style)
axes.set_xlabel("n, the length of the sequence")
axes.set_ylabel("maximum path length (edges)")
axes.set_xlim(0, max(sweep["n"]) * 1.02)
axes.set_ylim(0, None)
axes.grid(True, color="#eeeeee")
axes.legend(loc="upper left", frameon=False, fontsize=9)
axes.set_title("Counted on the dependency graphs")
save(figure, options.out)
