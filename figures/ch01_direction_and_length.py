"""Chapter 1: direction and length. One query as a wide pale band, and the keys
it is scored against as arrows, each labelled with its score q·k: at a right angle
0, opposite negative, the same way positive, and larger for the longer key."""
import numpy as np

from figure_style import arguments, load_run, plt, save, with_minus_signs

options = arguments(__doc__)
run = load_run(options.outputs, "dot_product_one_query")
query = np.array(run["queries"][0])
keys = np.array(run["keys"])
scores = np.array(run["scores"][0])

figure, axes = plt.subplots(figsize=(4.7, 2.6))
axes.axhline(0, color="#cccccc", linewidth=0.8, zorder=0)
axes.axvline(0, color="#cccccc", linewidth=0.8, zorder=0)
# The query first, as a wide pale band, so the keys drawn over it stay in sight; in purple, a colour no score takes.
axes.plot([0, query[0]], [0, query[1]], color="#6a3d9a", linewidth=9, alpha=0.3, solid_capstyle="butt", zorder=1)
axes.text(query[0] * 0.6, query[1] + 0.15, f"query\nq = ({query[0]:g}, {query[1]:g})", ha="center", va="bottom",
          fontsize=11, color="#6a3d9a")
# A key on the positive x-axis other than the query (the query here is (1, 0), so such a key points its way) would
# hide the key equal to the query: it is drawn a little below the axis.
below = np.array([0.0, -0.22])
for key, score in zip(keys, scores):
    # Coloured by the score's sign as the chapter's score tables are: red above 0, blue below.
    colour = "#b2182b" if score > 0 else ("#2166ac" if score < 0 else "#7f7f7f")
    start = below if key[1] == 0 and key[0] > 0 and not np.array_equal(key, query) else np.zeros(2)
    axes.annotate("", xy=start + key, xytext=start, zorder=2,
                  arrowprops={"arrowstyle": "-|>", "color": colour, "linewidth": 2, "shrinkA": 0, "shrinkB": 0})
    label = with_minus_signs(f"k = ({key[0]:g}, {key[1]:g})\nq·k = {score:g}")
    if abs(key[0]) < 0.5:
        # Beside its tip, to the right: above it, the label would sit on the grey vertical axis.
        axes.text(*(key + [0.15, 0.15]), label, ha="left", va="center", fontsize=11, color=colour)
    elif np.array_equal(key, query):
        axes.text(*(key + [0.4, 0.12]), label, ha="left", va="bottom", fontsize=11, color=colour)
    else:
        axes.text(*(start + key + [0.0, -0.55]), label, ha="center", va="center", fontsize=11, color=colour)
axes.set_xlim(min(keys[:, 0].min(), 0) - 0.9, max(keys[:, 0].max(), query[0]) + 0.6)
axes.set_ylim(-1.1, max(1.5, np.abs(keys[:, 1]).max() + 0.75))
axes.set_aspect("equal")
axes.set_xticks([])
axes.set_yticks([])
for side in axes.spines.values():
    side.set_visible(False)
axes.set_title("One query, four keys:\nthe score grows with alignment and length", fontsize=11)
save(figure, options.out)
