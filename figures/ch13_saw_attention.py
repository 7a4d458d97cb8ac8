"""Chapter 13: where each word of "I saw a saw" looks, in the trained tagger,
one panel per head. A row is the word that reads, with the tag the model gives
it; a column is a word it reads; each row sums to 1. The red box marks the
largest weight in each row, the dotted box the weight on the word before, and
the two "saw" rows are in bold: the word just before each is what tells a verb
from a noun in the chapter's language. The panel titles give each head's mean
weight, over the held-out ambiguous words, from the ambiguous word to the word
before it."""
import numpy as np

from figure_style import NARROW_WIDTH, arguments, cell_numbers, load_run, panel_figure, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "sentences")
reading = run["reading"]
words = reading["words"]
rows = [f"{word} → {tag}" for word, tag in zip(words, reading["answers"])]
ambiguous = set(run["language"]["ambiguous"])
panels = [(np.array(head), f"layer {l + 1}, head {h + 1}", run["heads"][l][h]["mean_weight"])
          for l, layer in enumerate(reading["attention"]) for h, head in enumerate(layer)]
n = len(words)


def draw(narrow: bool):
    """Side by side, the rows named once, on the first panel; narrow, one above the other, each panel naming its
    rows, in larger type: the axis labels as large as the words, readable on a phone."""
    small, cells, ticks = (11, 11, 11) if narrow else (8, 9, 10)
    figure, axes_row = panel_figure(len(panels), narrow, wide_size=(2.1 * len(panels) + 1.3, 2.7),
                                    narrow_size=(NARROW_WIDTH - 0.3, 3.8 * len(panels)), space=0.08,
                                    sharey=not narrow)
    for axes, (weights, title, to_previous) in zip(axes_row, panels):
        axes.imshow(weights, cmap="Blues", vmin=0, vmax=1)
        cell_numbers(axes, weights, lambda weight: f"{weight:.2f}", fontsize=cells)
        for i in range(n):
            j = int(np.argmax(weights[i]))
            axes.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#d62728", linewidth=1.8))
            if i > 0:
                # The word before, dotted black on a white line: it shows on the palest and the darkest cells,
                # inside the red box where the two fall on one cell.
                for colour, style, width in (("white", "-", 2.2), ("black", ":", 1.6)):
                    axes.add_patch(plt.Rectangle((i - 1.5 + 0.08, i - 0.5 + 0.08), 0.84, 0.84, fill=False,
                                                 edgecolor=colour, linestyle=style, linewidth=width))
        axes.set_title(f"{title}\nheld-out mean weight\non the word before: {to_previous:.3f}",
                       fontsize=small if narrow else small + 1)
        axes.set_xticks(range(n), words, fontsize=ticks)
        axes.set_xlabel("the word read", fontsize=small)
        axes.xaxis.tick_top()
        axes.xaxis.set_label_position("top")
        axes.tick_params(length=0)
    for axes in axes_row if narrow else axes_row[:1]:
        axes.set_yticks(range(n), rows, fontsize=ticks)
        for label, word in zip(axes.get_yticklabels(), words):
            if word in ambiguous:
                label.set_fontweight("bold")
        axes.set_ylabel("the word reading → its tag", fontsize=small)
    return figure


save_wide_and_narrow(draw, options.out)
