"""Chapter 13: where each word of "I saw a saw" looks, in the trained tagger,
one panel per head. A row is the word that reads, with the tag the model gives
it; a column is a word it reads; each row sums to 1. The box marks the largest
weight in each row, and the two "saw" rows are in bold: the word just before
each is what tells a verb from a noun in the chapter's language. The panel
titles give each head's mean weight, over the held-out ambiguous words, from
the ambiguous word to the word before it."""
import numpy as np

from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
run = load_run(options.outputs, "sentences")
reading = run["reading"]
words = reading["words"]
rows = [f"{word} → {tag}" for word, tag in zip(words, reading["answers"])]
ambiguous = set(run["language"]["ambiguous"])
panels = [(np.array(head), f"layer {l + 1}, head {h + 1}", run["heads"][l][h]["mean_weight"])
          for l, layer in enumerate(reading["attention"]) for h, head in enumerate(layer)]

n = len(words)
figure, axes_row = plt.subplots(1, len(panels), figsize=(2.1 * len(panels) + 1.3, 2.7), sharey=True,
                                constrained_layout=True, squeeze=False)
for axes, (weights, title, to_previous) in zip(axes_row[0], panels):
    axes.imshow(weights, cmap="Blues", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            axes.text(j, i, f"{weights[i, j]:.2f}", ha="center", va="center", fontsize=9,
                      color="white" if weights[i, j] > 0.6 else "black")
        j = int(np.argmax(weights[i]))
        axes.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#d62728", linewidth=1.8))
    axes.set_title(f"{title}\nheld-out mean weight\non the word before: {to_previous:.3f}", fontsize=9)
    axes.set_xticks(range(n), words, fontsize=10)
    axes.set_xlabel("the word read", fontsize=8)
    axes.xaxis.tick_top()
    axes.xaxis.set_label_position("top")
    axes.tick_params(length=0)
axes_row[0][0].set_yticks(range(n), rows, fontsize=10)
for label, word in zip(axes_row[0][0].get_yticklabels(), words):
    if word in ambiguous:
        label.set_fontweight("bold")
axes_row[0][0].set_ylabel("the word reading → its tag", fontsize=8)
save(figure, options.out)
