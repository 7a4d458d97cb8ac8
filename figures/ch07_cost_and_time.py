"""Chapter 7: one self-attention layer against one recurrent layer, at a fixed
width d, over a range of n. Left, the multiply-adds the program counts:
2·n²·d against 2·n·d², equal at n = d. Right, the time each layer took on the
machine that built the book, best of several runs: the curves cross elsewhere."""
from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
run = load_run(options.outputs, "path_length")
timing = run["timing"]
d = timing["d"]
rows = timing["rows"]
lengths = [row["n"] for row in rows]
attention_style = dict(color="#1f77b4", marker="o", label="self-attention")
recurrent_style = dict(color="#d62728", marker="s", label="recurrent")

figure, (counted, timed) = plt.subplots(1, 2, figsize=(11, 4.4))
counted.plot(lengths, [row["attention_operations"] for row in rows], **attention_style)
counted.plot(lengths, [row["recurrent_operations"] for row in rows], **recurrent_style)
counted.axvline(d, color="0.5", linestyle="--", linewidth=1)
counted.text(d, 0.03, f"n = d = {d} ", transform=counted.get_xaxis_transform(), ha="right", fontsize=9, color="0.3")
counted.set_ylabel("multiply-adds of one layer (counted)")
counted.set_title("Counted: 2·n²·d against 2·n·d²")

timed.plot(lengths, [row["attention_seconds"] * 1e3 for row in rows], **attention_style)
timed.plot(lengths, [row["recurrent_seconds"] * 1e3 for row in rows], **recurrent_style)
timed.axvline(d, color="0.5", linestyle="--", linewidth=1)
timed.text(d, 0.03, f"n = d = {d} ", transform=timed.get_xaxis_transform(), ha="right", fontsize=9, color="0.3")
estimate = timing["crossover"]["estimate"]
if estimate is not None:
    timed.axvline(estimate, color="#2ca02c", linewidth=1.5)
    timed.annotate(f"curves cross\nnear n = {estimate:.0f}", xy=(estimate, 0.4), xycoords=timed.get_xaxis_transform(),
                   xytext=(-4, 0), textcoords="offset points", ha="right", va="center", fontsize=9, color="#2ca02c",
                   bbox=dict(facecolor="white", edgecolor="none", pad=1))
timed.set_ylabel("milliseconds, best of %d runs" % timing["repeats"])
timed.set_title("Timed on the machine that built this book")

for axes in (counted, timed):
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xticks(lengths, [str(n) for n in lengths])
    axes.minorticks_off()
    axes.set_xlabel(f"n, the length of the sequence (d = {d})")
    axes.grid(True, color="#eeeeee")
    axes.legend(loc="upper left", frameon=False, fontsize=9)
figure.tight_layout()
save(figure, options.out)
