"""Chapter 2: the measured variance of q·k against footnote 4's theory, for each
d_k, before scaling (left: it grows like d_k) and after dividing by √dₖ
(right: it stays near 1), for seed 1 and for the reseeded run, seed 2."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
runs = [load_run(options.outputs, name) for name in ("scaling_variance", "scaling_variance_reseed")]
# The seeds in black and grey: orange is the interactive figure's colour for "after dividing".
styles = [dict(marker="o", color="black", markersize=8),
          dict(marker="s", color="0.4", markersize=7, fillstyle="none", markeredgewidth=1.8)]
widths = np.array([row["dk"] for row in runs[0]["rows"]], dtype=float)
line = np.geomspace(widths.min() / 1.5, widths.max() * 1.5, 50)


def draw(narrow: bool):
    """Side by side; narrow, the panel before scaling above the one after."""
    if narrow:
        figure, (before, after) = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.3, 8.0))
    else:
        figure, (before, after) = plt.subplots(1, 2, figsize=(9, 4))

    # Left: Var(q·k) on log–log axes, with the theory line Var = d_k.
    before.plot(line, line, color="0.45", linewidth=1.2, zorder=1, label="theory: Var(q·k) = $d_k$")
    for run, style in zip(runs, styles):
        before.plot([row["dk"] for row in run["rows"]], [row["var_raw"] for row in run["rows"]], linestyle="none",
                    label=f"measured, seed {run['seed']}", zorder=2, **style)
    before.set_xscale("log", base=2)
    before.set_yscale("log", base=2)
    before.set_xlabel("$d_k$, the width of q and k (log scale)")
    before.set_ylabel("variance of q·k (log scale)")
    before.set_title("Before scaling: grows like $d_k$")
    before.legend(loc="upper left", frameon=False)

    # Right: Var(q·k/√dₖ) on a linear axis around 1, with ±2 typical swings (from theory) as grey bars.
    after.axhline(1.0, color="0.45", linewidth=1.2, zorder=1, label="theory: 1")
    for k, row in enumerate(runs[0]["rows"]):
        after.plot([row["dk"]] * 2, [row["two_swings_low"], row["two_swings_high"]], color="0.8", linewidth=10, solid_capstyle="butt",
                   zorder=0, label=f"±2 typical swings ({runs[0]['samples']} samples)" if k == 0 else None)
    for run, style in zip(runs, styles):
        after.plot([row["dk"] for row in run["rows"]], [row["var_scaled"] for row in run["rows"]], linestyle="none",
                   label=f"measured, seed {run['seed']}", zorder=2, **style)
    after.set_xscale("log", base=2)
    after.set_xlabel("$d_k$, the width of q and k (log scale)")
    after.set_ylabel("variance of q·k\nafter dividing by $\\sqrt{d_k}$")
    after.set_title("After dividing by $\\sqrt{d_k}$: stays near 1")
    low = min(1 - 2.5 * row["var_scaled_sd"] for row in runs[0]["rows"])
    high = max(1 + 2.5 * row["var_scaled_sd"] for row in runs[0]["rows"])
    after.set_ylim(min(low, *(row["var_scaled"] for run in runs for row in run["rows"])) - 0.01,
                   max(high, *(row["var_scaled"] for run in runs for row in run["rows"]))
                   + (0.06 if narrow else 0.04))  # narrow, room for the larger legend above the bars
    after.legend(loc="upper right", frameon=False, fontsize=NARROW_SMALL_TEXT if narrow else 9)

    for axes in (before, after):
        axes.set_xticks(widths, [f"{w:g}" for w in widths])
        axes.minorticks_off()
        axes.set_xlim(line[0], line[-1])
    before.set_yticks(widths, [f"{w:g}" for w in widths])
    figure.tight_layout(h_pad=1.5 if narrow else None)  # narrow: each title nearer its own panel
    return figure


save_wide_and_narrow(draw, options.out)
