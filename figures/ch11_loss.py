"""Chapter 11: the training run the book makes — the training loss (log
scale) and the per-token accuracy on held-out sequences, at each logged step."""
import numpy as np

from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
run = load_run(options.outputs, "training")
steps = np.array(run["logged_steps"])
loss = np.array(run["loss"])
accuracy = 100.0 * np.array(run["held_out_accuracy"])

figure, (loss_axes, accuracy_axes) = plt.subplots(1, 2, figsize=(7.2, 2.8), constrained_layout=True)
loss_axes.semilogy(steps, loss, marker="o", markersize=3)
loss_axes.axhline(np.log(run["vocabulary"]), color="0.6", linestyle="--", linewidth=1)
loss_axes.annotate(f"guessing: log {run['vocabulary']}", (steps[-1], np.log(run["vocabulary"])), ha="right",
                   va="bottom", fontsize=8, color="0.4")
loss_axes.set_xlabel("Adam step")
loss_axes.set_ylabel("training loss (cross-entropy)")
accuracy_axes.plot(steps, accuracy, marker="o", markersize=3, color="C2")
accuracy_axes.axhline(100.0 / run["vocabulary"], color="0.6", linestyle="--", linewidth=1)
accuracy_axes.axhline(99.0, color="C3", linestyle=":", linewidth=1)
accuracy_axes.annotate("chance", (steps[-1], 100.0 / run["vocabulary"]), ha="right", va="bottom", fontsize=8,
                       color="0.4")
accuracy_axes.annotate("99 %", (steps[-1], 99.0), ha="right", va="top", fontsize=8, color="C3")
accuracy_axes.set_ylim(0, 102)
accuracy_axes.set_xlabel("Adam step")
accuracy_axes.set_ylabel("held-out accuracy per digit (%)")
save(figure, options.out)
