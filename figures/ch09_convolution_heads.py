"""Chapter 9: the heads of the self-attention layer that computes a
convolution. Head δ puts weight exactly 1 on the key δ positions from the
query, and none elsewhere; where that key is beyond the ends, the row is empty."""
import numpy as np

from figure_style import (
    NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow, with_minus_signs)

options = arguments(__doc__)
run = load_run(options.outputs, "other_layers_convolution")
heads = run["heads"]
positions = [f"x{i + 1}" for i in range(run["n"])]


def draw(narrow: bool):
    """Side by side; narrow, one above the other, each with its query label, no text below NARROW_SMALL_TEXT."""
    if narrow:
        figure, axes_column = plt.subplots(len(heads), 1, figsize=(NARROW_WIDTH - 0.4, 2.5 * len(heads)),
                                           constrained_layout=True, squeeze=False)
        figure.get_layout_engine().set(hspace=0.09)  # each title nearer its own panel than the one above
        panels = axes_column[:, 0]
        tick_size = note_size = label_size = NARROW_SMALL_TEXT
    else:
        figure, axes_row = plt.subplots(1, len(heads), figsize=(3.0 * len(heads), 3.3), constrained_layout=True,
                                        squeeze=False)
        panels = axes_row[0]
        tick_size, note_size, label_size = 8, 7, 9
    for axes, head in zip(panels, heads):
        weights = np.array(head["weights"])
        axes.imshow(weights, cmap="Blues", vmin=0.0, vmax=1.0)
        axes.set_xticks(range(len(positions)), positions, fontsize=tick_size)
        axes.set_yticks(range(len(positions)), positions, fontsize=tick_size)
        axes.xaxis.tick_top()
        offset = head["offset"]
        axes.set_xlabel("key position j", fontsize=label_size)
        axes.xaxis.set_label_position("top")
        axes.set_title(with_minus_signs(f"head δ = {offset:+d}: key i{offset:+d}"), fontsize=11 if narrow else 10)
        for i, row in enumerate(weights):
            if not row.any():
                axes.text(len(positions) / 2 - 0.5, i, "no key: zero padding", ha="center", va="center",
                          fontsize=note_size, color="#555555")
    for axes in panels if narrow else panels[:1]:
        axes.set_ylabel("query position i")
    return figure


save_wide_and_narrow(draw, options.out)
