"""Chapter 12: how much of the machine each method uses. For every timed
method and length, the two products' multiply-adds per second (GFLOP/s, a
multiply-add counting 2) against the yardsticks measured in the same run:
the processor's double-precision multiply-add peak, from a loop of
independent fused multiply-adds in vector registers (the dashed line; per
thread for the one-thread methods), and a 1024 x 1024 matrix product (dgemm)
through Eigen and through NumPy (dotted lines). A rate above the peak is
not a result (the program lists it apart), so it is not drawn."""
from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "fast_attention_benchmark")
METHODS = [
    ("teaching", "teaching", "#7f7f7f"),
    ("buffered", "buffered", "#9467bd"),
    ("buffered_vectorised_exp", "vectorised exp", "#8c564b"),
    ("streaming_eigen_products", "streaming,\nEigen's products", "#bcbd22"),
    ("streaming", "streaming", "#1f77b4"),
    ("streaming_causal", "causal", "#2ca02c"),
    ("tile_products_only", "products only", "#17becf"),
    ("numpy", "NumPy", "#d62728"),
]
rows = [row for row in run["rows"] if row["gflops"] is not None]
lengths = run["n"]
width = 0.8 / len(lengths)

shown = [(key, label, colour) for key, label, colour in METHODS if any(row["method"] == key for row in rows)]
yardsticks = run["yardsticks"]
threads = f"{run['threads']} thread{'s' if run['threads'] > 1 else ''}"


def draw(narrow: bool):
    """One wide plot; narrow, the same plot narrower: the methods' names slanted, the title on two lines.
    Either way the yardsticks are named in a legend below the plot, where no name crosses a bar."""
    if narrow:
        # The legend in a row of its own under the plot, where it covers no bar.
        figure, (axes, legend_row) = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.4, 6.5), layout="constrained",
                                                  height_ratios=[5.0, 0.5])
    else:
        figure, axes = plt.subplots(figsize=(10, 4.0))
    for position, (key, label, colour) in enumerate(shown):
        for index, n in enumerate(lengths):
            match = [row for row in rows if row["method"] == key and row["n"] == n]
            if not match:
                continue
            axes.bar(position - 0.4 + width * (index + 0.5), match[0]["gflops"], width * 0.9, color=colour,
                     alpha=0.45 + 0.55 * (index + 1) / len(lengths))

    def yardstick(value, label, style, colour="0.3"):
        """A horizontal line at a yardstick, named in the legend."""
        axes.axhline(value, color=colour, linestyle=style, linewidth=1, label=label)

    yardstick(run["peak_gflops_one_thread"], "multiply-add peak, 1 thread", "--")
    if run["threads"] > 1:
        yardstick(run["peak_gflops"], f"multiply-add peak, {threads}", "-.")
    if yardsticks["eigen_dgemm_gflops"] is not None:
        yardstick(yardsticks["eigen_dgemm_gflops"], f"dgemm {yardsticks['dgemm_n']}, Eigen, 1 thread", ":", "#8c8c00")
    if yardsticks["numpy_dgemm_gflops"] is not None:
        yardstick(yardsticks["numpy_dgemm_gflops"], f"dgemm {yardsticks['dgemm_n']}, NumPy, {threads}", ":", "#d62728")
    if narrow:
        axes.set_xticks(range(len(shown)), [label.replace("\n", " ") for _, label, _ in shown], rotation=45,
                        ha="right", rotation_mode="anchor")
        legend_row.axis("off")
        legend_row.legend(*axes.get_legend_handles_labels(), loc="upper left", bbox_to_anchor=(-0.2, 1.0),
                          frameon=False, fontsize=NARROW_SMALL_TEXT)
    else:
        axes.set_xticks(range(len(shown)), [label for _, label, _ in shown])
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=4, frameon=False, fontsize=9)
    axes.set_ylabel("GFLOP/s (2 per multiply-add)")
    line = "\n" if narrow else " "  # narrow: the title on two lines
    axes.set_title(f"Throughput at n = {', '.join(str(n) for n in lengths)}{line}(lighter to darker), d = {run['d']}")
    axes.grid(True, axis="y", color="#eeeeee")
    if not narrow:
        figure.tight_layout()
    return figure


save_wide_and_narrow(draw, options.out)
