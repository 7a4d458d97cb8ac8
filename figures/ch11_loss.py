"""Chapter 11: the training run the book makes — the training loss (log
scale) and the per-token accuracy on held-out sequences, at each logged step."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "training")
steps = np.array(run["logged_steps"])
loss = np.array(run["loss"])
accuracy = 100.0 * np.array(run["held_out_accuracy"])


def draw(narrow: bool):
    """Side by side; narrow, the loss above the accuracy, each with its own axis labels and no note below
    NARROW_SMALL_TEXT. The loss axis has headroom above the guessing line, and the line's note sits in it, clear of both
    the line and the frame; the first step at 99 % is ringed."""
    if narrow:
        figure, (loss_axes, accuracy_axes) = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.4, 6.0),
                                                          constrained_layout=True)
        figure.get_layout_engine().set(hspace=0.08)
    else:
        figure, (loss_axes, accuracy_axes) = plt.subplots(1, 2, figsize=(7.2, 2.8), constrained_layout=True)
    note = NARROW_SMALL_TEXT if narrow else 8
    loss_axes.semilogy(steps, loss, marker="o", markersize=3)
    guessing = np.log(run["vocabulary"])
    loss_axes.axhline(guessing, color="0.6", linestyle="--", linewidth=1)
    loss_axes.set_ylim(top=guessing * 6)  # on the log axis, room above the line for its note
    loss_axes.annotate(f"guessing: log {run['vocabulary']}", (steps[-1], guessing), xytext=(0, 3),
                       textcoords="offset points", ha="right", va="bottom", fontsize=note, color="0.4")
    loss_axes.set_xlabel("training step")
    loss_axes.set_ylabel("training loss (cross-entropy)")
    accuracy_axes.plot(steps, accuracy, marker="o", markersize=3, color="C2")
    accuracy_axes.axhline(100.0 / run["vocabulary"], color="0.6", linestyle="--", linewidth=1)
    accuracy_axes.axhline(99.0, color="C3", linestyle=":", linewidth=1)
    accuracy_axes.annotate("chance", (steps[-1], 100.0 / run["vocabulary"]), ha="right", va="bottom",
                           fontsize=note, color="0.4")
    # The note a little below its line, clear of the points just above the line.
    accuracy_axes.annotate("99 %", (steps[-1], 99.0), xytext=(0, -4), textcoords="offset points", ha="right", va="top",
                           fontsize=note, color="C3")
    # The step the prose names, where the curve first reaches the dotted line and so is hard to see.
    first = run["first_step_at_99"]
    reached = accuracy[list(steps).index(first)]
    accuracy_axes.plot([first], [reached], marker="o", markersize=9, markerfacecolor="none", color="C3")
    accuracy_axes.annotate(f"first at 99 %:\nstep {first}", (first, reached), xytext=(first + 0.1 * steps[-1], 70),
                           ha="left", va="center", fontsize=note, color="C3",
                           arrowprops={"arrowstyle": "->", "color": "C3", "lw": 1, "shrinkB": 5})
    accuracy_axes.set_ylim(0, 102)
    accuracy_axes.set_xlabel("training step")
    accuracy_axes.set_ylabel("held-out accuracy per digit (%)")
    return figure


save_wide_and_narrow(draw, options.out)
