"""Chapter 16: the grid. Each cell is one layout (rows: the norm after each
residual sum, post-norm, or before each sub-layer, pre-norm; LayerNorm or
RMSNorm) trained at one learning rate, without a warm-up or with one
(columns), over five seeds. The number is how many seeds learned to reverse
the digits (at least 90 % of held-out digits right), the shade the same;
below it, the seeds' median final loss."""
import numpy as np

from figure_style import NARROW_WIDTH, arguments, ink_on, load_run, plt, save_wide_and_narrow, with_minus_signs

options = arguments(__doc__)
run = load_run(options.outputs, "norm_placement_grid")
inputs = run["inputs"]
cells = run["cells"]
layouts = inputs["layouts"]
columns = [(w, r) for w in inputs["warmups"] for r in inputs["learning_rates"]]
seeds = len(inputs["seeds"])
learned = np.zeros((len(layouts), len(columns)))
losses = [[None] * len(columns) for _ in layouts]
for cell in cells:
    i = layouts.index(cell["layout"])
    j = columns.index((cell["warmup"], cell["learning_rate"]))
    learned[i, j] = cell["learned"]
    losses[i][j] = cell["median_final_loss"]
NAMES = {"post_layer_norm": "post-norm, LayerNorm\n(the paper's)", "post_rms_norm": "post-norm, RMSNorm",
         "pre_layer_norm": "pre-norm, LayerNorm", "pre_rms_norm": "pre-norm, RMSNorm"}
COLUMN_NAMES = [f"{'no warm-up' if w == 0 else f'warm-up {w}'}\nrate {r:g}" for w, r in columns]
TITLE = f"Seeds that learned the task, of {seeds}, and the median final loss"


def table(axes, chosen: list, loss_size: float, names: dict, tick_size: float = 9, loss_word: str = "loss ") -> None:
    """The cells of the columns `chosen` (indices into `columns`), in that order: shade, count, loss
    (after `loss_word`); the columns' and rows' names at `tick_size`."""
    image = axes.imshow(learned[:, chosen], cmap="Blues", vmin=0, vmax=seeds * 1.25, aspect="auto")
    for i in range(len(layouts)):
        for k, j in enumerate(chosen):
            ink = ink_on(image.cmap(image.norm(learned[i, j])))
            loss = losses[i][j]
            axes.text(k, i - 0.12, f"{int(learned[i, j])} of {seeds}", ha="center", va="center", fontsize=11,
                      color=ink, fontweight="bold")
            axes.text(k, i + 0.22, "stopped" if loss is None else with_minus_signs(f"{loss_word}{loss:.3g}"),
                      ha="center", va="center", fontsize=loss_size, color=ink)
    axes.set_xticks(range(len(chosen)), [COLUMN_NAMES[j] for j in chosen], fontsize=tick_size)
    axes.set_yticks(range(len(layouts)), [names[name] for name in layouts], fontsize=tick_size)


def draw(narrow: bool):
    """One table; narrow, its two halves (without a warm-up, with one) one above the other,
    the layouts' names on more lines, and every text at 11 pt, readable on a phone; so that each loss
    fits its cell at that size, the cells give the loss's number alone, the title saying what it is."""
    if not narrow:
        figure, axes = plt.subplots(figsize=(7.2, 3.6), layout="constrained")
        table(axes, list(range(len(columns))), loss_size=8, names=NAMES)
        axes.axvline(len(inputs["learning_rates"]) - 0.5, color="black", linewidth=1.5)
        axes.axhline(1.5, color="black", linewidth=1.5)
        axes.set_title(TITLE, fontsize=10)
        return figure
    rates = len(inputs["learning_rates"])
    narrow_names = {layout: name.replace(", ", ",\n") for layout, name in NAMES.items()}  # wider cells
    figure, halves = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.2, 7.6), layout="constrained")
    figure.get_layout_engine().set(hspace=0.06)
    for h, axes in enumerate(halves):
        table(axes, list(range(h * rates, (h + 1) * rates)), loss_size=11, names=narrow_names, tick_size=11,
              loss_word="")
        axes.axhline(1.5, color="black", linewidth=1.5)
    figure.suptitle(f"Seeds that learned the task, of {seeds};\nunder it, the seeds' median final loss", fontsize=11)
    return figure


save_wide_and_narrow(draw, options.out)
