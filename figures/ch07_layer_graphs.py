"""Chapter 7: one layer of each kind in Table 1 as its dependency graph, as
the program builds it (path_length --draw): the inputs along the bottom, the
outputs along the top, a line for each edge. The edges into one output are
drawn dark, so that its taps stand out. A node that holds no position (the
recurrent layer's starting state h_0) sits left of the first output."""
from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "path_length_graphs")
drawn = run["drawn"]
n = drawn["n"]
shown_output = n // 2 - 1  # output n/2, counted from 1: its taps lie inside the sentence
titles = {
    "self_attention": "self-attention",
    "recurrent": "recurrent",
    "convolutional": f"convolution, k = {run['kernel']}",
    "convolutional_dilated": "dilated convolution, k = {kernel}, taps {dilation} apart",
    "restricted_self_attention": f"restricted self-attention, R = {run['radius']}",
}

layers = drawn["layers"]


def draw(narrow: bool):
    """The graphs one above another; narrow, the same graphs narrower."""
    if narrow:
        figure, all_axes = plt.subplots(len(layers), 1, figsize=(NARROW_WIDTH - 0.3, 1.5 * len(layers)))
    else:
        figure, all_axes = plt.subplots(len(layers), 1, figsize=(7.8, 1.25 * len(layers)))
    small = NARROW_SMALL_TEXT if narrow else 9  # the ticks, h₀ and the note below
    for axes, layer in zip(all_axes, layers):
        place = {}
        for position, node in enumerate(layer["inputs"]):
            place[node] = (position, 0.0)
        for position, node in enumerate(layer["outputs"]):
            place[node] = (position, 1.0)
        for node in range(layer["nodes"]):  # the nodes of no position: one step left of the first output they feed
            if node not in place:
                readers = [place[to][0] for source, to in layer["edges"] if source == node and to in place]
                place[node] = (min(readers) - 1, 1.0)
        shown = layer["outputs"][shown_output]
        for source, to in sorted(layer["edges"], key=lambda edge: edge[1] == shown):
            (x0, y0), (x1, y1) = place[source], place[to]
            dark = to == shown
            axes.plot([x0, x1], [y0, y1], color="#1f4e79" if dark else "#b9cbe0", linewidth=1.8 if dark else 0.9,
                      zorder=2 if dark else 1)
        for node, (x, y) in place.items():
            axes.scatter([x], [y], s=70, color="white", edgecolors="#333333", linewidths=1.0, zorder=3)
            if node not in layer["inputs"] and node not in layer["outputs"]:
                axes.annotate("h₀", (x, y), textcoords="offset points", xytext=(0, 8), ha="center", fontsize=small)
        axes.set_xlim(-1.6, n - 0.4)
        axes.set_ylim(-0.35, 1.45)
        axes.set_yticks([0, 1], ["inputs", "outputs"], fontsize=small)
        axes.set_xticks(range(n), [str(position + 1) for position in range(n)], fontsize=small)
        axes.tick_params(length=0)
        axes.spines[["top", "right", "left", "bottom"]].set_visible(False)
        title = titles[layer["layer"]].format(kernel=run["kernel"], dilation=layer["dilation"])
        axes.set_title(f"{title}: {len(layer['edges'])} edges", fontsize=small if narrow else 10, loc="left")
    between = ";\n" if narrow else "; "  # narrow, on two lines
    all_axes[-1].set_xlabel(f"position (n = {n}){between}dark: the edges into output {shown_output + 1}",
                           fontsize=small)
    # Narrow, more room between graphs: each title nearer its own graph than the position numbers above it.
    figure.tight_layout(h_pad=1.6 if narrow else 0.4)
    return figure


save_wide_and_narrow(draw, options.out)
