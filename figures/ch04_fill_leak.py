"""Chapter 4: how much weight a finite fill lets through. The largest masked
weight is at most e^(-gap), where the gap is the distance from a row's largest
allowed score down to the fill; in double precision e^(-gap) is exactly 0 once
the gap passes about 745 (in single precision, about 104). The points are
the leak tables of two runs of the chapter's program.

A weight of exactly 0 has no place on a logarithmic axis, so the figure has
two panels on one gap axis: above, the weights that are positive, on a log
scale; below, a row for the weights that are exactly 0. The bound e^(-gap) is
drawn solid where a double can store it, and continues only as a dotted line
labelled as exact arithmetic where a double stores 0; in that region the
double's own value runs along the zero row. An inset spreads out the gaps
near 10, where the two measured leaks would otherwise sit on one another."""
import math

import numpy as np

from figure_style import (
    NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow, with_minus_signs)

# The two runs, as the chapter's runs block names them, each drawn with its own marker and colour.
SERIES = (
    {"run": "masking", "name": "toy, causal mask", "marker": "o", "color": "#d62728"},
    {"run": "masking_anti_aligned", "name": "cat's query (−700, 0)", "marker": "s", "color": "#9467bd"},
)
GAP_RANGE = (-5.0, 1100.0)
LOG10_BOTTOM, LOG10_TOP = -420.0, 30.0  # the log panel's range, in powers of ten
INSET_GAPS = (8.0, 13.0)  # the gaps the inset enlarges: both measured leaks lie here


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def measured_points(runs: dict) -> list:
    """Every finite fill of each run whose gap lies on the chart, with its weight.

    `runs` maps a run name to its JSON document. A point with weight exactly 0
    belongs to the zero row (on_log_axis False); any other to the log panel."""
    points = []
    for series in SERIES:
        for leak in runs[series["run"]]["leak"]:
            gap, weight, fill = leak.get("smallest_gap"), leak["largest_masked_weight"], leak["fill"]
            # The reference fill −∞ (its gap is "inf"), a run with no gap, and a
            # gap off the chart (a fill of −1e9 has a gap of about 1e9) are left out.
            if not (_is_number(fill) and _is_number(gap) and _is_number(weight)):
                continue
            if not GAP_RANGE[0] <= gap <= GAP_RANGE[1]:
                continue
            points.append({**series, "fill": fill, "gap": gap, "weight": weight, "on_log_axis": weight > 0})
    return points


def bound_curves(double_limit: float, samples: int = 1200) -> dict:
    """The bound e^(−gap) (at most 1) as log10, split where a double stops storing it.

    "double": gaps up to double_limit, where the double's e^(−gap) is the
    exact value (to rounding); "exact_only": beyond it, where only exact
    arithmetic has a positive value. Both as (gaps, log10 of the bound)."""
    gaps = np.linspace(GAP_RANGE[0], GAP_RANGE[1], samples)
    log10_bound = np.minimum(0.0, -gaps / math.log(10.0))
    stored = gaps <= double_limit
    # Each piece ends exactly at the limit, so the two meet without a gap.
    double_gaps = np.append(gaps[stored], double_limit)
    exact_gaps = np.insert(gaps[~stored], 0, double_limit)
    return {
        "double": (double_gaps, np.minimum(0.0, -double_gaps / math.log(10.0))),
        "exact_only": (exact_gaps, np.minimum(0.0, -exact_gaps / math.log(10.0))),
        "all": (gaps, log10_bound),
    }


def _label(point: dict) -> str:
    fill = with_minus_signs(f"{point['fill']:g}")
    weight = with_minus_signs(f"{point['weight']:.1e}") if point["weight"] > 0 else "exactly 0"
    return f"{point['name']}, fill {fill}: {weight}"


def _power_of_ten(exponent: float) -> str:
    return "1" if exponent == 0 else with_minus_signs(f"10$^{{{exponent:.0f}}}$")


def _fills(points: list, series: dict) -> str:
    """The fills of one series' points on the log axis, as the legend of the narrow drawing names them."""
    return ", ".join(with_minus_signs(f"{point['fill']:g}") for point in points
                     if point["run"] == series["run"] and point["on_log_axis"])


def build_figure(runs: dict, narrow: bool = False):
    """The figure, and its panels by name: "log", "zero" and "inset".

    Narrow (for a phone's column, no wider than NARROW_WIDTH): the same plot,
    taller than wide, no font below NARROW_SMALL_TEXT; the legend below the plot, its
    long entries on two lines; the notes in shorter lines; the inset's points
    labelled with their weights only, the legend naming each run's fill."""
    underflow = runs["masking"]["underflow"]
    double_limit = underflow["double_underflow_gap"]
    float_limit = underflow["float_underflow_gap"]
    curves = bound_curves(double_limit)
    points = measured_points(runs)

    if narrow:
        figure, (log_axes, zero_axes) = plt.subplots(
            2, 1, sharex=True, figsize=(NARROW_WIDTH - 0.3, 7.5),
            gridspec_kw={"height_ratios": [6, 1.5], "hspace": 0.04, "left": 0.23, "right": 0.97, "top": 0.98,
                         "bottom": 0.25})
    else:
        figure, (log_axes, zero_axes) = plt.subplots(
            2, 1, sharex=True, figsize=(7.8, 5.0), gridspec_kw={"height_ratios": [6, 1], "hspace": 0.08})
    two_lines = "\n" if narrow else " "  # a long label, narrow, on two lines
    small = NARROW_SMALL_TEXT if narrow else 9  # the notes

    # Above: positive weights, log scale (drawn as log10 on a linear axis, because
    # e^(−gap) for gaps past 745 is below the smallest double and could not be plotted as a number).
    gaps, log10_bound = curves["double"]
    log_axes.plot(gaps, log10_bound, color="#1f77b4", linewidth=2,
                  label=f"e^(−gap) as a double{two_lines}(positive up to a gap of {double_limit:.0f})")
    gaps, log10_bound = curves["exact_only"]
    log_axes.plot(gaps, log10_bound, color="#1f77b4", linewidth=1.2, linestyle=":",
                  label=f"e^(−gap) in exact arithmetic only{two_lines}(a double stores 0)")
    log_axes.axvspan(double_limit, GAP_RANGE[1], color="#e8e8e8", zorder=0)
    if narrow:
        beyond = f"beyond a gap\nof {double_limit:.0f}, a\ndouble stores\ne^(−gap) as\nexactly 0"
        log_axes.text(double_limit + 12, -150, beyond, fontsize=small, va="top")
    else:
        beyond = f"beyond a gap of {double_limit:.0f}:\na double stores\ne^(−gap) as exactly 0"
        log_axes.text(double_limit + 12, -240, beyond, fontsize=9, va="top")
    # The single-precision limit, stopped above the inset so that it does not cross it.
    log_axes.axvline(float_limit, ymin=0.45, color="#7f7f7f", linestyle=":", linewidth=1)
    zero_axes.axvline(float_limit, color="#7f7f7f", linestyle=":", linewidth=1)
    single = f"single precision\nstores 0 beyond\na gap of {float_limit:.0f}"
    # Above the falling line, which would strike through the note lower down.
    log_axes.text(float_limit + 8, -35, single, fontsize=small, color="#555555")
    # The measured leaks lie within a unit of each other on this scale: they are
    # drawn in the inset only, each run with its own marker, and named in the legend.
    for series in SERIES:
        name = f"{series['name']},\nfill {_fills(points, series)}" if narrow else series["name"]
        log_axes.plot([], [], linestyle="none", marker=series["marker"], color=series["color"], markersize=7,
                      label=f"measured, {name} (inset)")
    ticks = [0, -100, -200, -300, -400]
    log_axes.set_yticks(ticks, [_power_of_ten(t) for t in ticks])
    log_axes.set_ylim(LOG10_BOTTOM, LOG10_TOP)
    log_axes.set_ylabel("largest masked weight\n(log scale)")
    if narrow:  # below the plot, under the gap axis's label
        log_axes.legend(loc="upper center", bbox_to_anchor=(0.45, -0.66), bbox_transform=zero_axes.transAxes,
                        fontsize=small, frameon=False)
    else:
        log_axes.legend(loc="upper right", fontsize=8)

    # The inset: the gaps around 10 where both measured leaks lie, enlarged.
    inset = log_axes.inset_axes([0.16, 0.08, 0.34, 0.28] if narrow else [0.07, 0.06, 0.34, 0.36], zorder=10)
    inset.patch.set_facecolor("white")
    inset.patch.set_alpha(1.0)
    low, high = INSET_GAPS
    gaps = np.linspace(low, high, 50)
    inset.plot(gaps, -gaps / math.log(10.0), color="#1f77b4", linewidth=1.5)
    for point in (p for p in points if p["on_log_axis"]):
        y = math.log10(point["weight"])
        inset.plot(point["gap"], y, linestyle="none", marker=point["marker"], color=point["color"], markersize=7)
        if narrow:
            inset.annotate(with_minus_signs(f"{point['weight']:.1e}"), (point["gap"], y), textcoords="offset points",
                           xytext=(6, 3) if point["marker"] == "s" else (4, -14), fontsize=small,
                           ha="left" if point["marker"] == "s" else "right")
        else:
            # On two lines, each in the white on its side of the line: the square's above
            # it, to the right; the circle's below it, to the left.
            above = point["marker"] == "s"
            inset.annotate(_label(point).replace(", fill", ",\nfill"), (point["gap"], y), textcoords="offset points",
                           xytext=(7, 5) if above else (-7, -7), ha="left" if above else "right",
                           va="bottom" if above else "top", fontsize=7)
    inset.set_xlim(low, high)
    inset.set_ylim(-high / math.log(10.0), -low / math.log(10.0))
    exponents = range(math.ceil(-high / math.log(10.0)), math.floor(-low / math.log(10.0)) + 1)
    inset.set_yticks(list(exponents), [_power_of_ten(t) for t in exponents])
    if narrow:
        inset.set_xticks(range(math.ceil(low), math.floor(high) + 1, 2))
    inset.tick_params(labelsize=small if narrow else 7)
    inset.set_title(f"gaps {low:g} to {high:g},{two_lines}enlarged", fontsize=small if narrow else 8)
    # The region enlarged, marked without the lines to the inset's corners, which would read as data.
    _, connectors = log_axes.indicate_inset_zoom(inset, edgecolor="#555555")
    for connector in connectors:
        connector.set_visible(False)

    # Below: the row of weights that are exactly 0, on no scale at all.
    gaps, _ = curves["exact_only"]
    zero_axes.plot(gaps, np.zeros_like(gaps), color="#1f77b4", linewidth=2)
    zero_axes.axvspan(double_limit, GAP_RANGE[1], color="#e8e8e8", zorder=0)
    for point in (p for p in points if not p["on_log_axis"]):
        zero_axes.plot(point["gap"], 0, linestyle="none", marker=point["marker"], markersize=8,
                       color=point["color"], markerfacecolor="white", markeredgewidth=1.5)
        # Narrow, on two lines: on one, it would cross the single-precision line.
        zero_axes.annotate(_label(point).replace(", fill", f",{two_lines}fill"), (point["gap"], 0),
                           textcoords="offset points", xytext=(-10, 6 if narrow else 8), ha="right",
                           fontsize=small if narrow else 8)
    zero_axes.set_ylim(-1, 1)
    zero_axes.set_yticks([0], ["exactly 0"])
    zero_axes.set_xlim(*GAP_RANGE)
    zero_axes.set_xlabel(f"gap: largest allowed score{two_lines}in the row minus the fill")
    # The break between the two panels: the zero row is not the bottom of the log scale.
    log_axes.spines["bottom"].set_visible(False)
    zero_axes.spines["top"].set_visible(False)
    log_axes.tick_params(bottom=False)
    for axes, y in ((log_axes, 0), (zero_axes, 1)):
        axes.plot([0, 0.015], [y - 0.02, y + 0.02], transform=axes.transAxes, color="black", clip_on=False,
                  linewidth=1)
    return figure, {"log": log_axes, "zero": zero_axes, "inset": inset}


def main() -> None:
    options = arguments(__doc__)
    runs = {series["run"]: load_run(options.outputs, series["run"]) for series in SERIES}

    def draw(narrow: bool):
        figure, _ = build_figure(runs, narrow)
        return figure

    save_wide_and_narrow(draw, options.out)


if __name__ == "__main__":
    main()
