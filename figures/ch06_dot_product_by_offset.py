"""Chapter 6: PE(pos) · PE(pos + k) against the offset k, from the program's
runs with d_model = 8 and d_model = 64. The program computes the dot product
for every pos from 0 to 127 and reports its smallest and largest value for
each k; the two coincide, so each curve is the same for every pos."""
import numpy as np

from figure_style import arguments, load_run, plt, save, with_minus_signs

options = arguments(__doc__)
runs = [load_run(options.outputs, "positional_encoding_heatmap"), load_run(options.outputs, "positional_encoding")]

figure, axes = plt.subplots(figsize=(6.7, 4.2))
for run, colour in zip(runs, ("#1f77b4", "#d62728")):
    similarity = run["similarity"]
    offsets = np.array(similarity["offsets"])
    axes.fill_between(offsets, similarity["smallest"], similarity["largest"], color=colour, alpha=0.25, linewidth=0)
    spread = with_minus_signs(f"{similarity['largest_spread']:.0e}")
    axes.plot(offsets, similarity["at_position_0"], color=colour, linewidth=1.5,
              label=f"d_model = {run['d_model']}: PE(0) · PE(k); over every pos ≤ {similarity['grid_positions'] - 1}"
                    f" it varies by at most {spread}")
axes.axhline(0, color="#7f7f7f", linewidth=0.6)
axes.set_xlabel("offset k")
axes.set_ylabel("PE(pos) · PE(pos + k)")
axes.set_xlim(0, offsets[-1])
axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=9, frameon=False)
save(figure, options.out)
