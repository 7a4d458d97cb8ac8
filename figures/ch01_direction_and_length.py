"""Chapter 1: direction and length. One query as an arrow, and the keys it is
scored against as arrows, each labelled with its score q·k: at a right angle
0, opposite negative, the same way positive, and larger for the longer key."""
import numpy as np

from figure_style import arguments, load_run, plt, save, with_minus_signs

options = arguments(__doc__)
run = load_run(options.outputs, "dot_product_one_query")
query = np.array(run["queries"][0])
keys = np.array(run["keys"])
scores = np.array(run["scores"][0])

figure, axes = plt.subplots(figsize=(6.2, 2.9))
reach = max(np.abs(keys).max(), np.abs(query).max()) + 0.6
axes.axhline(0, color="#cccccc", linewidth=0.8, zorder=0)
axes.axvline(0, color="#cccccc", linewidth=0.8, zorder=0)
for key, score in zip(keys, scores):
    colour = "#2ca02c" if score > 0 else ("#d62728" if score < 0 else "#7f7f7f")
    axes.annotate("", xy=key, xytext=(0, 0),
                  arrowprops={"arrowstyle": "-|>", "color": colour, "linewidth": 2, "shrinkA": 0, "shrinkB": 0})
    label = with_minus_signs(f"k = ({key[0]:g}, {key[1]:g})\nq·k = {score:g}")
    offset = np.array([0.0, 0.32]) if key[1] >= 0 and abs(key[0]) < 0.5 else np.array([0.0, -0.55])
    if key[0] == query[0] and key[1] == query[1]:
        offset = np.array([0.0, 0.35])
    axes.text(*(key + offset), label, ha="center", va="center", fontsize=9, color=colour)
axes.annotate("", xy=query, xytext=(0, 0),
              arrowprops={"arrowstyle": "-|>", "color": "#1f77b4", "linewidth": 3.2, "shrinkA": 0, "shrinkB": 0,
                          "alpha": 0.55})
axes.text(query[0] * 0.5, query[1] - 0.28, f"query q = ({query[0]:g}, {query[1]:g})", ha="center", fontsize=9,
          color="#1f77b4")
axes.set_xlim(-reach, reach)
axes.set_ylim(-1.0, max(1.5, np.abs(keys[:, 1]).max() + 0.6))
axes.set_aspect("equal")
axes.set_xticks([])
axes.set_yticks([])
for side in axes.spines.values():
    side.set_visible(False)
axes.set_title("One query, four keys: the score grows with alignment and length", fontsize=10)
save(figure, options.out)
