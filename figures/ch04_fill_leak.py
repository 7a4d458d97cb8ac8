"""Chapter 4: how much weight a finite fill lets through. The largest masked
weight is at most e^(-gap), where the gap is the distance from a row's largest
allowed score down to the fill; in double precision e^(-gap) is exactly 0 once
the gap passes about 745 (in single precision, about 104). The points are
the leak tables of two runs of the chapter's program."""
import math

import numpy as np

from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
toy = load_run(options.outputs, "masking")
anti_aligned = load_run(options.outputs, "masking_anti_aligned")
underflow = toy["underflow"]
double_limit = underflow["double_underflow_gap"]
float_limit = underflow["float_underflow_gap"]

figure, axes = plt.subplots(figsize=(7.8, 4.2))
gaps = np.linspace(-5, 1100, 1200)
log10_bound = np.minimum(0.0, -gaps / math.log(10.0))  # a weight is at most 1
axes.plot(gaps, log10_bound, color="#1f77b4", label="e^(−gap), the most a masked key can get")
axes.axvspan(double_limit, gaps[-1], color="#dddddd", zorder=0)
axes.text(double_limit + 12, -60, f"double precision:\ne^(−gap) is exactly 0\nbeyond a gap of {double_limit:.0f}",
          fontsize=9, va="top")
axes.axvline(float_limit, color="#7f7f7f", linestyle=":", linewidth=1)
axes.text(float_limit + 8, -260, f"single precision\nstops at {float_limit:.0f}", fontsize=9, color="#555555")
bottom = -340
runs = (("toy, causal", toy, "o"), ("cat's query (−700, 0)", anti_aligned, "s"))
# Where each label sits, by (run, fill); the two leaks near a gap of 10 sit one above the other.
offsets = {("toy, causal", -10.0): (60, -48), ("toy, causal", -1000.0): (-190, 18),
           ("cat's query (−700, 0)", -1000.0): (60, -14)}
for name, run, marker in runs:
    for leak in run["leak"]:
        gap = leak["smallest_gap"]
        if leak["fill"] == "-inf" or gap is None or not 0 <= gap <= gaps[-1]:
            continue  # the reference, or off the chart (a fill of −1e9 has a gap of about 1e9)
        weight = leak["largest_masked_weight"]
        y = math.log10(weight) if weight > 0 else bottom
        axes.plot(gap, y, marker, color="#d62728" if weight > 0 else "black",
                  markerfacecolor="#d62728" if weight > 0 else "none", markersize=8)
        fill = f"{leak['fill']:g}".replace("-", "−")
        note = f"{name}, fill {fill}: " + (f"{weight:.1e}".replace("-", "−") if weight > 0 else "exactly 0")
        axes.annotate(note, (gap, y), textcoords="offset points", xytext=offsets.get((name, leak["fill"]), (20, 20)), fontsize=8,
                      arrowprops={"arrowstyle": "-", "color": "#777777", "linewidth": 0.6})
axes.set_ylim(bottom - 15, 30)
axes.set_xlim(gaps[0], gaps[-1])
axes.set_xlabel("gap: largest allowed score in the row minus the fill")
axes.set_ylabel("largest masked weight")
ticks = [0, -100, -200, -300]
axes.set_yticks(ticks + [bottom], [f"10$^{{{t}}}$" for t in ticks] + ["0"])
axes.legend(loc="upper right", fontsize=9)
save(figure, options.out)
