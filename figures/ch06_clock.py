"""Chapter 6: the toy's encoding, PE(pos) = (sin pos, cos pos), drawn as a
point on the circle of radius 1, the first number across and the second up:
position 0 at the top, each next one a radian further clockwise. The toy's
three positions are the large dots; the next five show that the hand never
comes back to exactly the same place."""
import numpy as np

from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
points = np.array(load_run(options.outputs, "positional_encoding_circle")["pe"])
toy = len(load_run(options.outputs, "positional_encoding_permutation")["pe"])

figure, axis = plt.subplots(figsize=(4.6, 4.6), layout="constrained")
turn = np.linspace(0, 2 * np.pi, 200)
axis.plot(np.sin(turn), np.cos(turn), color="#bbbbbb", lw=1)
axis.axhline(0, color="#dddddd", lw=0.8)
axis.axvline(0, color="#dddddd", lw=0.8)
for position, (across, up) in enumerate(points):
    mine = position < toy
    axis.plot([0, across], [0, up], color="#1f4e8c" if mine else "#cccccc", lw=1.6 if mine else 0.8)
    axis.scatter([across], [up], s=80 if mine else 30, color="#1f4e8c" if mine else "#999999", zorder=3)
    axis.annotate(f"pos {position}", (across, up), xytext=(across * 1.2, up * 1.2), ha="center", va="center",
                  fontsize=10 if mine else 9, color="#1f4e8c" if mine else "#777777")
# Clockwise: the way the hand turns as pos grows.
axis.annotate("", xy=(1.12 * np.sin(0.45), 1.12 * np.cos(0.45)), xytext=(1.12 * np.sin(0.12), 1.12 * np.cos(0.12)),
              arrowprops={"arrowstyle": "->", "color": "#c0392b", "lw": 1.5, "connectionstyle": "arc3,rad=-0.15"})
axis.set_xlim(-1.45, 1.45)
axis.set_ylim(-1.45, 1.45)
axis.set_aspect("equal")
axis.set_xlabel("first number, sin pos")
axis.set_ylabel("second number, cos pos")
axis.spines[["top", "right"]].set_visible(False)
save(figure, options.out)
