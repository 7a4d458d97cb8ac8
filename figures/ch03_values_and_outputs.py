"""Chapter 3: each value and each output as a point whose two numbers are its
coordinates. An output is a weighted average of the values, so it lies inside
the shape a rubber band stretched around the value points would make (their
convex region): a triangle when the values are three corners, a segment for
the toy, whose values lie on one line."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
triangle = load_run(options.outputs, "softmax_triangle")
panels = [
    (triangle, "values " + ", ".join(f"({first:g}, {second:g})" for first, second in triangle["values"])),
    (load_run(options.outputs, "softmax"), "the toy's values: one line"),
]


def draw(narrow: bool):
    """Side by side, sharing the second number's axis; narrow, one above the other, sharing the first's."""
    if narrow:
        figure, axes = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.4, 7.4), sharex=True, layout="constrained")
        figure.get_layout_engine().set(hspace=0.08)  # each title nearer its own panel than the one above
    else:
        figure, axes = plt.subplots(1, 2, figsize=(8.4, 4.2), sharey=True, layout="constrained")
    small = NARROW_SMALL_TEXT if narrow else 9  # the labels and the legend
    for axis, (run, title) in zip(axes, panels):
        values = np.array(run["values"])
        outputs = np.array(run["output"])
        tokens = run["query_tokens"]
        # The rubber band: the values' corners in order around their centre (for three
        # points on one line, the band is the segment they span).
        centre = values.mean(axis=0)
        order = np.argsort(np.arctan2(values[:, 1] - centre[1], values[:, 0] - centre[0]))
        band = values[order]
        flat = np.linalg.matrix_rank(values - values[0]) < 2  # the values on one line: the band is a segment
        axis.fill(band[:, 0], band[:, 1], color="#c6dbef", edgecolor="#6baed6", linewidth=2.5,
                  label="the band around the values")
        axis.scatter(values[:, 0], values[:, 1], s=70, color="#08519c", zorder=3, label="values")
        axis.scatter(outputs[:, 0], outputs[:, 1], s=70, marker="x", color="#d62728", linewidths=2, zorder=3,
                     label="outputs")
        for token, value, output in zip(tokens, values, outputs):
            axis.annotate(f"{token}'s value", value, xytext=(6, 6), textcoords="offset points", fontsize=small,
                          color="#08519c")
            if flat:
                axis.annotate(f"{token}'s output", output, xytext=(-6, -12), textcoords="offset points", fontsize=small,
                              color="#d62728", ha="right")
                continue
            # A band with an inside: the label down and to the left, out of the band, on a thin line to the
            # cross. Beside the cross, it would reach across the band's edge and blur where the output lies.
            axis.annotate(f"{token}'s output", output, xytext=(-38, -36), textcoords="offset points", fontsize=small,
                          color="#d62728", ha="right", va="top",
                          arrowprops={"arrowstyle": "-", "color": "#d62728", "linewidth": 0.8, "shrinkA": 1,
                                      "shrinkB": 5})
        axis.set_title(title)
        axis.set_xlim(-0.45, 1.45)
        axis.set_ylim(-0.3, 1.3)
        axis.set_aspect("equal")
        if not narrow or axis is axes[-1]:
            axis.set_xlabel("first number")
        axis.set_axisbelow(True)  # the grid under the band, so that every side of it reads alike
        axis.grid(True, color="#eeeeee")
        axis.spines[["top", "right"]].set_visible(False)
    for axis in axes if narrow else axes[:1]:
        axis.set_ylabel("second number")
    # Narrow, on the lower panel, whose lower left is empty: on the upper one it met the label "cat's output".
    (axes[-1] if narrow else axes[0]).legend(loc="lower left", frameon=False, fontsize=small)
    return figure


save_wide_and_narrow(draw, options.out)
