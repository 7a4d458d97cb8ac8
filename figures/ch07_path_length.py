"""Chapter 7: the maximum path length between an input and an output position,
counted by breadth-first search, against the sequence length n, for the six
layers of the chapter: self-attention (one layer), recurrent (one layer, one
way and both ways), and
stacks of contiguous convolutions, dilated convolutions and restricted
self-attention deep enough that every output depends on every input.
Each line's value at the largest n is written at its right end, in its colour,
so that the three lines drawn within an edge of each other can be told apart.
Narrow, for a phone: the same plot, its legend below it."""
from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

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

largest = max(sweep["n"])
ends = {row["layer"]: row["max_path_length"] for row in sweep["rows"] if row["n"] == largest}


def end_label_heights(axes, gap: float) -> dict:
    """Where each line's end label sits, in points above or below the line's end: labels
    that would overlap are gathered into a group, spread `gap` points apart about
    their ends' mean height."""
    height = {layer: axes.transData.transform((largest, value))[1] * 72 / axes.figure.dpi
              for layer, value in ends.items()}
    groups = [[layer] for layer in sorted(ends, key=height.get, reverse=True)]

    def placed(group):  # the group's labels, top to bottom, about its ends' mean
        middle = sum(height[layer] for layer in group) / len(group)
        return [middle + gap * ((len(group) - 1) / 2 - k) for k in range(len(group))]

    merged = True
    while merged:
        merged = False
        for k in range(len(groups) - 1):
            if placed(groups[k])[-1] - placed(groups[k + 1])[0] < gap:
                groups[k:k + 2] = [groups[k] + groups[k + 1]]
                merged = True
                break
    return {layer: y - height[layer] for group in groups for layer, y in zip(group, placed(group))}


def draw(narrow: bool):
    """One plot; narrow, the legend goes below it, where it covers no line."""
    figure, axes = plt.subplots(figsize=(NARROW_WIDTH - 0.5, 3.2) if narrow else (6.6, 3.4))
    small = NARROW_SMALL_TEXT if narrow else 9  # the end labels and the legend
    for layer, style in styles.items():
        rows = [row for row in sweep["rows"] if row["layer"] == layer]
        axes.plot([row["n"] for row in rows], [row["max_path_length"] for row in rows], markersize=4, linewidth=1.4,
                  **style)
    axes.set_xlabel("n, the length of the sequence")
    axes.set_ylabel("maximum path length (edges)")
    axes.set_xlim(0, largest * 1.02)
    axes.set_ylim(0, None)
    for layer, offset in end_label_heights(axes, gap=10).items():
        axes.annotate(str(ends[layer]), (largest, ends[layer]), xytext=(9, offset), textcoords="offset points",
                      ha="left", va="center", fontsize=small, color=styles[layer]["color"], annotation_clip=False,
                      arrowprops=dict(arrowstyle="-", color=styles[layer]["color"], linewidth=0.6, shrinkA=0,
                                      shrinkB=1))
    axes.grid(True, color="#eeeeee")
    if narrow:
        axes.legend(loc="upper center", bbox_to_anchor=(0.45, -0.17), frameon=False, fontsize=small, ncols=1)
    else:
        axes.legend(loc="upper left", frameon=False, fontsize=small)
    axes.set_title("Counted on the dependency graphs")
    return figure


save_wide_and_narrow(draw, options.out)
