"""Chapter 7: one self-attention layer against one recurrent layer, at a fixed
width d, over a range of n. Left, the multiply-adds the program counts:
2·n²·d against 2·n·d², equal at n = d. Right, the time each layer took on the
machine that built the book: the median of the repetitions, with their spread
as a bar. Where the curves cross, and whether they do, is the program's
comparison of the same run (timing/comparison in its JSON), drawn as it is:
a shaded band between the two timed lengths around each crossing. The SVG's
title and description say the same in words, from the same JSON."""
from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, narrow_path, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "path_length")
timing = run["timing"]
comparison = timing["comparison"]
d = timing["d"]
rows = timing["rows"]
lengths = [row["n"] for row in rows]
# The recurrent layer's squares hollow and larger, so that where the two meet
# (n = d counted, the crossing timed) each mark shows through the other.
attention_style = dict(color="#1f77b4", marker="o", markersize=5, label="self-attention")
recurrent_style = dict(color="#d62728", marker="s", markersize=9, markerfacecolor="none", markeredgewidth=1.5,
                       label="recurrent")


def milliseconds_with_spread(layer):
    medians = [row[layer]["median"] * 1e3 for row in rows]
    below = [median - row[layer]["spread_low"] * 1e3 for median, row in zip(medians, rows)]
    above = [row[layer]["spread_high"] * 1e3 - median for median, row in zip(medians, rows)]
    return medians, [below, above]


def tick_labels(narrow: bool) -> list:
    """Each timed length's label; narrow, only the powers of two keep theirs (384 keeps
    its tick), so that no two labels overlap."""
    return [str(n) if not narrow or n & (n - 1) == 0 else "" for n in lengths]


def draw(narrow: bool):
    """Side by side; narrow, one above the other, sharing the axis of n, its label under the lower one."""
    if narrow:
        figure, (counted, timed) = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.3, 7.8), sharex=True)
    else:
        figure, (counted, timed) = plt.subplots(1, 2, figsize=(11, 4.0))
    small = NARROW_SMALL_TEXT if narrow else 9  # the note at n = d and the legends
    counted.plot(lengths, [row["attention_operations"] for row in rows], **attention_style)
    counted.plot(lengths, [row["recurrent_operations"] for row in rows], **recurrent_style)
    counted.set_ylabel("multiply-adds of one layer\n(counted, log scale)" if narrow
                      else "multiply-adds of one layer (counted, log scale)")
    counted.set_title("Counted: 2·n²·d against 2·n·d²")

    for layer, style in (("attention", attention_style), ("recurrent", recurrent_style)):
        medians, spread = milliseconds_with_spread(layer)
        timed.errorbar(lengths, medians, yerr=spread, capsize=3, **style)
    for index, crossing in enumerate(comparison["crossings"]):
        timed.axvspan(crossing["below_n"], crossing["above_n"], color="#2ca02c", alpha=0.15, linewidth=0,
                      label="the curves cross in here" if index == 0 else None)
    too_close = [row for row in rows if row["faster"] == "too_close"]
    if too_close:
        timed.plot([row["n"] for row in too_close], [row["attention"]["median"] * 1e3 for row in too_close],
                   linestyle="none", marker="o", markersize=17, markeredgewidth=1.5, markerfacecolor="none",
                   markeredgecolor="0.4", zorder=4, label="too close to call")
        timed.margins(y=0.1)  # a ring at the top is not cut by the frame
    timed.set_ylabel(f"milliseconds, median of {timing['repeats']}\n(log scale)" if narrow
                    else f"milliseconds, median of {timing['repeats']} (log scale)")
    timed_title = "Timed on the machine that built this book"
    timed.set_title(timed_title.replace(" that ", "\nthat ") if narrow else timed_title)

    for axes in (counted, timed):
        axes.axvline(d, color="0.5", linestyle="--", linewidth=1)
        axes.text(d, 0.03, f"n = d = {d} ", transform=axes.get_xaxis_transform(), ha="right", fontsize=small,
                  color="0.3")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        axes.set_xticks(lengths, tick_labels(narrow))
        axes.minorticks_off()
        if not narrow or axes is timed:
            axes.set_xlabel(f"n, the length of the sequence\n(d = {d}; log scale)" if narrow
                           else f"n, the length of the sequence (d = {d}; log scale)")
        axes.grid(True, color="#eeeeee")
        axes.legend(loc="upper left", frameon=False, fontsize=small)
    if narrow:
        counted.tick_params(labelbottom=True)  # each panel keeps its lengths, to be read alone
        figure.tight_layout(h_pad=1.2)
    else:
        figure.tight_layout()
    return figure


save_wide_and_narrow(draw, options.out)
# What a reader without the picture gets: the program's own sentence, in the SVG's title and description.
title = "One self-attention layer against one recurrent layer: counted multiply-adds and measured time"
description = comparison["summary"]


def escaped(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


for out in (options.out, narrow_path(options.out)):
    svg = out.read_text()
    opening = svg.index(">", svg.index("<svg")) + 1
    svg = svg[:opening] + f"\n <title>{escaped(title)}</title>\n <desc>{escaped(description)}</desc>" + svg[opening:]
    out.write_text(svg)
