"""Chapter 1: the toy's raw scores QKᵀ as a heatmap, with the two cells that
break symmetry (cat asks fish, fish asks cat) outlined."""
import numpy as np
from matplotlib.patches import Rectangle

from figure_style import arguments, cell_numbers, load_run, plt, save, token_heatmap

options = arguments(__doc__)
run = load_run(options.outputs, "dot_product")
scores = np.array(run["scores"])
askers, answerers = run["query_tokens"], run["key_tokens"]

figure, axes = plt.subplots(figsize=(4.6, 3.8))
# Scores have either sign: red above 0, blue below, on one scale for both (as chapter 6's and the page's).
reach = max(1e-9, float(np.abs(scores).max()))
image = token_heatmap(axes, scores, askers, answerers, vmin=-reach, vmax=reach, cmap="RdBu_r")
axes.set_ylabel("query: the token asking")
cell_numbers(axes, scores, lambda score: f"{score:g}")
# Outline the pair the program names: the first whose mirror-image entries differ (the page frames the same one),
# dark on a white line, which shows on the reddest cells.
if run["asymmetric_pair"] is not None:
    i, j = run["asymmetric_pair"]
    for row, column in ((i, j), (j, i)):
        for colour, width in (("#ffffff", 4.5), ("#1a1a1a", 2.5)):
            axes.add_patch(Rectangle((column - 0.5, row - 0.5), 1, 1, fill=False, edgecolor=colour, linewidth=width))
figure.colorbar(image, ax=axes, shrink=0.8, label="score q·k")
save(figure, options.out)
