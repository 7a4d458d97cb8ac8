"""Chapter 13: chapter 7's path-length argument, measured. Held-out accuracy
on agreement against the distance from the subject's noun to the verb's slot,
for the small Transformer (one step from any word to any other) and for
chapter 7's recurrent layer (one step per word), both trained on subjects
with up to 8 phrases after the noun, from five seeds each. A line is the
median over the seeds, the band runs from the worst seed to the best; the
grey line is the rule "the verb takes the number of the last noun"."""
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.legend_handler import HandlerTuple
from matplotlib.patches import Patch

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
both = load_run(options.outputs, "sentences_long_seeds")
series = [("attention", "attention", "#1f77b4", "o"), ("recurrent", "recurrent layer", "#d62728", "s")]
HATCHES = {"attention": None, "recurrent": "////"}  # where the two bands overlap, the hatched one still shows


def band_style(model, colour):
    """A band's look: the first filled light, the second hatched without fill, each edged with thin lines in its
    model's colour."""
    # The hatched band has no fill: filled, the SVG drew its hatching at the fill's 15 % opacity, too faint to see.
    return dict(facecolor="none" if HATCHES[model] else to_rgba(colour, 0.15), edgecolor=to_rgba(colour, 0.8),
                linewidth=0.7, hatch=HATCHES[model])


def by_label(run, key):
    """Per distance group (in order of distance), the value of `key` in each seed."""
    labels = []
    for seed in run["runs"]:
        labels += [group["label"] for group in seed["by_distance"] if group["label"] not in labels]
    labels.sort(key=lambda label: int(label.split("-")[0].rstrip("+")))
    values = [[100.0 * group[key] for seed in run["runs"] for group in seed["by_distance"] if group["label"] == label]
              for label in labels]
    return labels, values


rule_labels, rule = by_label(both["attention"], "nearest_noun")


def spreads(run):
    """Per distance group, the program's median, worst and best over the seeds (in %), on the rule's groups."""
    groups = run["by_distance"]
    if [group["label"] for group in groups] != rule_labels:
        raise SystemExit(f"ch13_path_length: distance groups {[group['label'] for group in groups]} "
                         f"are not the rule's {rule_labels}")
    return ([100.0 * group[key] for group in groups] for key in ("median", "worst", "best"))


def draw(narrow: bool):
    """Side by side; narrow, the whole axis above the one from 90 %, each with its own axis labels, no text
    below NARROW_SMALL_TEXT. Each panel has a legend, and both name the bands."""
    if narrow:
        figure, (whole, near) = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.4, 6.4), layout="constrained")
        figure.get_layout_engine().set(hspace=0.08)
    else:
        figure, (whole, near) = plt.subplots(1, 2, figsize=(7.0, 3.0), layout="constrained", width_ratios=[1.0, 1.0])
    small = NARROW_SMALL_TEXT if narrow else 8
    label = NARROW_SMALL_TEXT if narrow else 9  # the axis labels and the y ticks
    heading = 11 if narrow else 10  # the titles
    for axes, low in ((whole, 0), (near, 90)):
        for model, name, colour, marker in series:
            median, worst, best = spreads(both[model])
            x = np.arange(len(rule_labels))
            axes.fill_between(x, worst, best, **band_style(model, colour))
            axes.plot(x, median, color=colour, marker=marker, markersize=4, label=f"{name} (median)")
        # The bands' key: a piece of each band side by side.
        bands = tuple(Patch(**band_style(model, colour)) for model, _, colour, _ in series)
        if low == 0:
            axes.plot(np.arange(len(rule_labels)), [np.median(v) for v in rule], color="0.55", linestyle="--",
                      marker=".", label="rule: the last noun")
            handles, labels = axes.get_legend_handles_labels()
            axes.legend(handles + [bands], labels + ["band: worst to best seed"], loc="lower left", frameon=False,
                        fontsize=small, handler_map={tuple: HandlerTuple(ndivide=None, pad=0)})
            axes.set_title("Accuracy by distance", fontsize=heading)
        else:
            # Short names, to fit under the bands (narrow, in one column, at the left, where the bands stay
            # high); the lines are the medians, as above.
            handles, _ = axes.get_legend_handles_labels()
            axes.legend(handles + [bands], [name for _, name, _, _ in series] + ["band: worst to best seed"],
                        loc="lower left", ncols=1 if narrow else 2, frameon=False, fontsize=small, columnspacing=1.2,
                        handler_map={tuple: HandlerTuple(ndivide=None, pad=0)})
            axes.set_title("The same, from 90 %", fontsize=heading)
        axes.set_xticks(np.arange(len(rule_labels)), rule_labels, fontsize=small)
        axes.set_xlabel("positions from the subject's noun to the verb", fontsize=label)
        axes.set_ylim(low, 100.8 if low else 105)
        axes.tick_params(axis="y", labelsize=label)
        axes.spines[["top", "right"]].set_visible(False)
    for axes in (whole, near) if narrow else (whole,):
        axes.set_ylabel("held-out accuracy (%)", fontsize=label)
    return figure


save_wide_and_narrow(draw, options.out)
