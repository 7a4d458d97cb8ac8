"""Chapter 12: the teaching version, each fast step and NumPy against the
length n, on log-log axes, from the benchmark run of the build. Left, the
median time with its spread as a bar; right, the extra memory each method
needs beyond its inputs and output (counted from the buffers it allocates;
NumPy's measured with tracemalloc). A method skipped for its memory has no
time at that n, but its counted memory is drawn, hollow. A method whose
memory is the same as one drawn before it (the causal kernel's is the
streaming kernel's) is drawn dashed, with a larger hollow marker, so that
both lines show. One legend names the methods: below both panels, or,
narrow, below the time panel, the first a phone shows."""
import matplotlib.ticker
from matplotlib.lines import Line2D

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, narrow_path, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "fast_attention_benchmark")
STYLES = {
    "teaching": dict(color="#7f7f7f", marker="o", label="teaching version"),
    "buffered": dict(color="#9467bd", marker="v", label="buffered"),
    "buffered_vectorised_exp": dict(color="#8c564b", marker="^", label="buffered, vectorised exp"),
    "streaming_eigen_products": dict(color="#bcbd22", marker="x", label="streaming, Eigen's products"),
    "streaming": dict(color="#1f77b4", marker="s", label="streaming (tiles, online softmax, own products)"),
    "streaming_causal": dict(color="#2ca02c", marker="D", label="streaming, causal"),
    "numpy": dict(color="#d62728", marker="P", label="NumPy + OpenBLAS"),
}
rows = run["rows"]
lengths = run["n"]


def draw(narrow: bool):
    """Side by side; narrow, time above memory, long titles and labels on two lines. Either way one
    legend where it covers no data: below both panels, or, narrow, below the time panel, between it and
    the memory panel, so that the first panel's lines are named where they are first seen; no text
    below 9 pt (narrow, NARROW_SMALL_TEXT)."""
    if narrow:
        figure, (timed, memory) = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.4, 11.0), layout="constrained")
        figure.get_layout_engine().set(hspace=0.08)  # the second title nearer its own panel
    else:
        figure, (timed, memory) = plt.subplots(1, 2, figsize=(11, 5.0), layout="constrained")
    drawn = {}  # a memory curve, as a tuple of byte counts: the method that drew it first
    for method, style in STYLES.items():
        mine = [row for row in rows if row["method"] == method]
        timed_rows = [row for row in mine if row["seconds_median"] is not None]
        if timed_rows:
            medians = [row["seconds_median"] * 1e3 for row in timed_rows]
            below = [m - row["seconds_spread"][0] * 1e3 for m, row in zip(medians, timed_rows)]
            above = [row["seconds_spread"][1] * 1e3 - m for m, row in zip(medians, timed_rows)]
            timed.errorbar([row["n"] for row in timed_rows], medians, yerr=[below, above], capsize=3, markersize=5,
                           **style)
        if mine:
            curve = tuple(row["peak_extra_bytes"] for row in mine)
            first = drawn.setdefault(curve, method)
            twin = {} if first == method else dict(linestyle="--", markerfacecolor="none", markersize=9)
            memory.plot([row["n"] for row in mine], list(curve), **{**style, **twin})
            skipped = [row for row in mine if row["skipped"]]
            if skipped:
                memory.plot([row["n"] for row in skipped], [row["peak_extra_bytes"] for row in skipped],
                            linestyle="none", marker=style["marker"], markersize=10, markerfacecolor="none",
                            markeredgecolor=style["color"])

    line = "\n" if narrow else " "  # narrow: a long label or title on two lines
    timed.set_ylabel(f"milliseconds per call,{line}median of {run['reps']} (log scale)")
    timed.set_title(f"Time, {run['threads']} thread{'' if run['threads'] == 1 else 's'}, d = {run['d']}")
    memory.set_ylabel(f"extra bytes beyond{line}inputs and output (log scale)")
    memory.set_title(f"Memory: n² against n · d{line}(packed copies) or a few tiles")
    for axes in (timed, memory):
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        axes.set_xticks(lengths, [str(n) for n in lengths])
        axes.minorticks_off()
        # Labels at 1, 2 and 5 of each power of ten: with the powers alone, each axis had two labels.
        axes.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1, 2, 5)))
        axes.set_xlabel("n, queries and keys (log scale)")
        axes.grid(True, color="#eeeeee")
    # Milliseconds as plain numbers (0.2, 1, 20); bytes in powers of ten.
    timed.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    memory.yaxis.set_major_formatter(matplotlib.ticker.LogFormatterSciNotation(labelOnlyBase=False, minor_thresholds=(10, 10)))
    # Both panels draw each method alike (a memory curve the same as another's dashed, over it).
    keys = [Line2D([], [], **style) for style in STYLES.values()]
    if narrow:
        # Under the time panel's axis label; the layout makes room for it above the memory panel.
        timed.legend(handles=keys, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=1, frameon=False,
                     fontsize=NARROW_SMALL_TEXT)
    else:
        figure.legend(handles=keys, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncols=3, frameon=False,
                      fontsize=9)
    return figure


save_wide_and_narrow(draw, options.out)

title = "Time and memory of attention against n: the teaching version, each fast step and NumPy"
description = run["summary"]


def escaped(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


for drawing in (options.out, narrow_path(options.out)):
    svg = drawing.read_text()
    opening = svg.index(">", svg.index("<svg")) + 1
    svg = svg[:opening] + f"\n <title>{escaped(title)}</title>\n <desc>{escaped(description)}</desc>" + svg[opening:]
    drawing.write_text(svg)
