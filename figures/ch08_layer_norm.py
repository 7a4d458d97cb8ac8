"""Chapter 8: what LayerNorm does to each token of the worked example. Left,
the entries of x + MultiHead(x, x, x) for each token (one dot per channel),
each row with its own mean and spread; right, the same entries after
LayerNorm: every row centred on 0 with variance 1."""
import numpy as np

from figure_style import NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "encoder_layer")
layer = run["layers"][0]
tokens = run["tokens"]
panels = [(np.array(layer["attention_residual"]), "before: x + MultiHead(x, x, x)"),
          (np.array(layer["attention_norm"]["output"]), "after: LayerNorm(x + MultiHead(x, x, x))")]


def draw(narrow: bool):
    """Side by side; narrow, one above the other, each with its token label. The panels share x, so that
    a row's spread before and after reads on one scale."""
    if narrow:
        figure, axes_pair = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.3, 6.0), constrained_layout=True,
                                         sharex=True, sharey=True)
        figure.get_layout_engine().set(hspace=0.08)  # each title nearer its own panel than the one above
    else:
        figure, axes_pair = plt.subplots(1, 2, figsize=(8.4, 3.2), constrained_layout=True, sharex=True,
                                         sharey=True)
    for axes, (values, title) in zip(axes_pair, panels):
        for t, row in enumerate(values):
            axes.scatter(row, np.full(row.shape, t), s=36, color="#1f77b4", zorder=3)
            axes.plot([row.mean()] * 2, [t - 0.3, t + 0.3], color="#d62728", linewidth=2, zorder=2)
        axes.axvline(0.0, color="#888888", linewidth=0.8, zorder=1)
        axes.set_title(title)
        if axes is axes_pair[-1] or not narrow:  # stacked, the x axis is named once, under both
            axes.set_xlabel("entry value (red bar: the row's mean)")
        axes.set_yticks(range(len(tokens)), tokens)
        axes.grid(axis="x", color="#dddddd", linewidth=0.6)
    axes_pair[0].invert_yaxis()  # the first token on top, as in the tables (the axes share y)
    for axes in axes_pair if narrow else axes_pair[:1]:
        axes.set_ylabel("token")
    return figure


save_wide_and_narrow(draw, options.out)
