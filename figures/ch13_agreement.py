"""Chapter 13: the trained model on agreement. Left, accuracy on the held-out
sentences grouped by the number of attractors (nouns between the subject and
the slot whose number differs from the subject's), for the model and for the
rule "the verb takes the number of the last noun before it"; the count of
sentences in each group is under its label. Right, where the slot "[verb]"
looks in the example sentence, one row of bars per head: the slot's row of
attention weights over the words, with each head's mean weight from the slot
to the subject's noun on the held-out sentences."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "sentences_agreement")
groups = run["by_attractors"]
reading = run["reading"]
words = reading["words"]
heads = [(np.array(head)[-1], f"layer {l + 1}, head {h + 1}", run["heads"][l][h]["mean_weight"])
         for l, layer in enumerate(reading["attention"]) for h, head in enumerate(layer)]
answer = reading["answers"][0]
confidence = reading["probabilities"][0][run["outputs"].index(answer)]


def draw(narrow: bool):
    """Side by side; narrow, the accuracy above the heads' bars, each head's panel with its words, no text
    below NARROW_SMALL_TEXT."""
    if narrow:
        figure = plt.figure(figsize=(NARROW_WIDTH - 0.4, 7.4), layout="constrained")
        left, right = figure.subfigures(2, 1, height_ratios=[1.0, 1.25], hspace=0.04)
    else:
        figure = plt.figure(figsize=(7.0, 3.3), layout="constrained")
        left, right = figure.subfigures(1, 2, width_ratios=[1.0, 1.15])
    small, smaller = (NARROW_SMALL_TEXT, NARROW_SMALL_TEXT) if narrow else (8, 7)
    label = NARROW_SMALL_TEXT if narrow else 9  # the accuracy's ticks and axis labels, the words
    heading = 11 if narrow else 10  # the titles
    sep = "\n" if narrow else "; "  # narrow, a head's title on two lines

    # Left: accuracy by attractors, the model against the last-noun rule.
    accuracy_axes = left.subplots()
    x = np.arange(len(groups))
    width = 0.38
    series = [("model", "the model", "#1f77b4"), ("nearest_noun", "rule: last noun", "0.65")]
    for offset, (key, name, colour) in zip((-width / 2, width / 2), series):
        values = [100.0 * group[key] for group in groups]
        bars = accuracy_axes.bar(x + offset, values, width, color=colour, label=name)
        # A whole number only where it is exact: 99.7 printed as 100 would hide the one mistake.
        labels = [f"{value:.0f}" if value in (0.0, 100.0) else f"{value:.1f}" for value in values]
        accuracy_axes.bar_label(bars, labels, fontsize=smaller, padding=1)
    accuracy_axes.set_xticks(x, [f"{group['label']}\n({group['count']})" for group in groups], fontsize=label)
    accuracy_axes.set_xlabel("attractors (sentences)", fontsize=label)
    accuracy_axes.set_ylabel("held-out accuracy (%)", fontsize=label)
    accuracy_axes.set_ylim(0, 125)
    accuracy_axes.set_yticks(range(0, 101, 25))
    accuracy_axes.tick_params(axis="y", labelsize=label)
    accuracy_axes.legend(loc="upper center", ncol=2, frameon=False, fontsize=small, handlelength=1.2,
                         columnspacing=1.0)
    accuracy_axes.set_title("Accuracy by attractors", fontsize=heading)
    accuracy_axes.spines[["top", "right"]].set_visible(False)

    # Right: the slot's row of attention weights in the example sentence, per head.
    positions = np.arange(len(words))
    head_axes = right.subplots(len(heads), 1, squeeze=False)[:, 0]
    for row, (axes, (weights, title, to_subject)) in enumerate(zip(head_axes, heads)):
        bars = axes.bar(positions, weights, 0.6, color="#1f77b4")
        axes.bar_label(bars, [f"{weight:.2f}" for weight in weights], fontsize=smaller, padding=1)
        axes.set_ylim(0, 1.3)
        axes.set_yticks([0, 0.5, 1])
        axes.tick_params(labelsize=small)
        axes.set_xticks(positions, words if row == len(heads) - 1 else [], fontsize=label)
        axes.set_title(f"{title}{sep}to the subject's noun, on average: {to_subject:.3f}", fontsize=small, loc="left")
        axes.set_ylabel("weight", fontsize=small)
        axes.spines[["top", "right"]].set_visible(False)
    right.suptitle(f"\"{' '.join(words)}\" → {answer}, p = {confidence:.3f}", fontsize=heading)
    return figure


save_wide_and_narrow(draw, options.out)
