"""Chapter 17: the online softmax's running sum of e^(s - M) over n scores,
kept in three ways: its terms and its sum in float; its terms in bfloat16
and its sum in float; both in bfloat16. Each point is the relative error of
the softmax's denominator against the same sum in double, on log-log axes.
Left, scores with standard deviation 1; right, 4, where a few scores
dominate and the sum stays small."""
from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, panel_figure, save_wide_and_narrow

options = arguments(__doc__)
runs = [load_run(options.outputs, "precision"), load_run(options.outputs, "precision_wide")]
# A shape per line, so the lines differ by more than colour. The key of the figure before it (chapter 17's finite
# differences) gives float a green square and bfloat16 a red triangle: the float sum keeps them, the mixed one its own.
COLOURS = ["#2ca02c", "#9467bd", "#d62728"]
MARKERS = ["s", "D", "^"]


def draw(narrow: bool):
    """Side by side, the legend below the panels, or, narrow, one above the other, the legend above them, so
    that the lines are named where a phone shows them first; either way where it covers no line."""
    figure, panels = panel_figure(2, narrow, wide_size=(7.4, 3.4), narrow_size=(NARROW_WIDTH - 0.3, 7.0), space=0.08,
                                  sharex=narrow, sharey=True)
    small = NARROW_SMALL_TEXT if narrow else 9  # the ticks
    label = 11 if narrow else 10  # the titles and axis labels
    for axes, run in zip(panels, runs):
        n = [row["n"] for row in run["rows"]]
        for k, setup in enumerate(run["setups"]):
            errors = [max(row["sums"][k]["normalizer_error"], 1e-17) for row in run["rows"]]
            axes.loglog(n, errors, marker=MARKERS[k], markersize=4.5, color=COLOURS[k], label=setup["name"])
        axes.set_title(f"scores with spread {run['inputs']['spread']:g}", fontsize=label)
        if not narrow or axes is panels[-1]:
            axes.set_xlabel("n, the number of scores summed", fontsize=label)
        axes.tick_params(labelsize=small)
        axes.grid(True, color="#eeeeee", which="both")
        axes.spines[["top", "right"]].set_visible(False)
    if narrow:
        for axes in panels:
            axes.set_ylabel("relative error of the denominator", fontsize=label)
        figure.legend(*panels[0].get_legend_handles_labels(), loc="lower center", bbox_to_anchor=(0.5, 1.0),
                      frameon=False, fontsize=small)
    else:
        panels[0].set_ylabel("relative error of the denominator", fontsize=10)
        figure.legend(*panels[0].get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3,
                      frameon=False, fontsize=9)
    return figure


save_wide_and_narrow(draw, options.out)
