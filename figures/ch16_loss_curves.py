"""Chapter 16: the training loss along the way, at the middle learning rate
of the grid, one line per seed: the paper's layout (post-norm, LayerNorm)
without a warm-up and with one, and pre-norm with LayerNorm without one.
The dashed line is ln 10, the loss of a model that gives every digit the
same probability; a run that stays near it has learned nothing."""
from figure_style import NARROW_WIDTH, arguments, load_run, panel_figure, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "norm_placement_grid")
inputs = run["inputs"]
rate = sorted(inputs["learning_rates"])[len(inputs["learning_rates"]) // 2]
warmup = max(inputs["warmups"])
PANELS = [("post_layer_norm", 0, "post-norm, no warm-up"), ("post_layer_norm", warmup, f"post-norm, warm-up {warmup}"),
          ("pre_layer_norm", 0, "pre-norm, no warm-up")]
KEY = "blue, a seed that learned the task; red, one that did not"


def draw(narrow: bool):
    """Side by side, sharing the loss axis; narrow, one above another, sharing the step axis too, every text
    at 11 pt, readable on a phone."""
    text, ticks = (11, 11) if narrow else (10, 9)
    figure, panels = panel_figure(3, narrow, wide_size=(7.6, 2.8), narrow_size=(NARROW_WIDTH - 0.3, 7.4), space=0.08,
                                  sharex=narrow, sharey=True)
    for axes, (layout, w, title) in zip(panels, PANELS):
        for r in run["runs"]:
            if r["layout"] == layout and r["warmup"] == w and r["learning_rate"] == rate:
                axes.plot(r["logged_steps"][:len(r["loss"])], r["loss"], linewidth=1.1,
                          color="#1f77b4" if r["learned"] else "#d62728", alpha=0.85)
        axes.axhline(run["uniform_loss"], color="#777777", linestyle="--", linewidth=1)
        if w:
            axes.axvspan(0, w, color="#eeeeee", zorder=0)
        axes.set_title(title, fontsize=text)
        if not narrow or axes is panels[-1]:
            axes.set_xlabel("step", fontsize=text)
        axes.tick_params(labelsize=ticks)
        axes.grid(True, color="#eeeeee")
        axes.spines[["top", "right"]].set_visible(False)
    for axes in panels if narrow else panels[:1]:
        axes.set_ylabel("training loss per digit", fontsize=text)
    key = KEY.replace("; ", ";\n") if narrow else KEY  # narrow: the key on two lines, clear of the edges
    figure.suptitle(f"Learning rate {rate:g}:{chr(10) if narrow else ' '}{key}", fontsize=text)
    return figure


save_wide_and_narrow(draw, options.out)
