"""Chapter 14: what sharing keys and values costs. The model trained from
scratch with 4, 2 and 1 key/value heads for its 4 query heads, each from
five seeds, from the seeds run of the build. Along the bottom, the numbers
the cache keeps per word (its keys and values), which shrink with the
key/value heads. Top, the held-out loss per word (lower is better); bottom,
the share of the sentences drawn from the model that the grammar accepts
(higher is better). Each dot is one seed, set a little apart so that equal
values stay visible; the black bar and the number beside it are the median
over the seeds. The pale band spans the seeds of the first grouping (4
key/value heads) across the panel: the ranges, not the medians, decide
whether another grouping is better."""
import numpy as np

from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
run = load_run(options.outputs, "generating_seeds")
groups = run["by_key_value_heads"]
seeds = run["seeds"]
offsets = np.linspace(-0.16, 0.16, len(seeds))
PANELS = [
    ("held_out_loss", 1.0, "held-out loss per word", "Loss on held-out sentences (lower is better)", "{:.3f}"),
    ("grammatical", 100.0, "grammatical (%)",
     f"Grammatical, of {run['inputs']['judged']} sentences drawn (higher is better)", "{:.1f}"),
]

figure, panels = plt.subplots(2, 1, figsize=(4.6, 5.2), sharex=True, layout="constrained")
figure.get_layout_engine().set(h_pad=0.1)  # the lower title clear of the upper panel's axis
for axes, (key, scale, label, title, number) in zip(panels, PANELS):
    for position, group in enumerate(groups):
        mine = {r["seed"]: r[key] * scale for r in run["runs"] if r["key_value_heads"] == group["key_value_heads"]}
        axes.plot(position + offsets, [mine[seed] for seed in seeds], linestyle="none", marker="o", markersize=6,
                  markerfacecolor="none", markeredgecolor="#1f77b4", markeredgewidth=1.3,
                  label="one seed" if position == 0 else None)
        median = group[key]["median"] * scale
        axes.plot([position - 0.26, position + 0.26], [median, median], color="black", linewidth=2,
                  label=f"median of {len(seeds)}" if position == 0 else None)
        axes.annotate(number.format(median), (position + 0.26, median), textcoords="offset points", xytext=(4, 0),
                      ha="left", va="center", fontsize=10)
    first = groups[0]  # its range, against which the others' ranges are compared
    axes.axhspan(first[key]["best"] * scale, first[key]["worst"] * scale, color="#1f77b4", alpha=0.12, linewidth=0,
                 zorder=0, label=f"seeds' range, $h_{{kv}}$ = {first['key_value_heads']}")
    axes.set_ylabel(label, fontsize=10)
    axes.set_title(title, fontsize=10)
    axes.tick_params(labelsize=10)
    axes.grid(True, axis="y", color="#eeeeee")
    axes.spines[["top", "right"]].set_visible(False)
panels[0].legend(loc="upper left", frameon=False, fontsize=10, ncol=2, handlelength=1.2)
bottom, top = panels[0].get_ylim()
panels[0].set_ylim(bottom, top + 0.45 * (top - bottom))  # room for the legend
heads = "$h_{kv}$"  # as the prose writes it, h with kv below
panels[-1].set_xticks(range(len(groups)), [f"{group['cache_numbers_per_word']}\n({heads} = {group['key_value_heads']})"
                                           for group in groups])
panels[-1].set_xlim(-0.5, len(groups) - 0.2)
panels[-1].set_xlabel("numbers in the cache per word (key/value heads)", fontsize=10)
save(figure, options.out)
