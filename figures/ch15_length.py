"""Chapter 15: trained on sequences of at most 16 digits, tested on 32. Top:
the share of test sequences in which the model says the digit that stood 3
places back, at each position, for added, rotary and no positions; the line
is the median over the seeds, the band runs from the worst seed to the best.
Right of the dashed line lie the positions no training sequence reached.
Bottom: for each seed of the rotary model, the scaled score that the head
reading 3 places back gives a key at each offset, averaged over the test.
The peak at offset 3 is what training asked for; the other peak lies at an
offset no training sequence had, the dotted line at it; in the top plot, the dotted line marks
the position of the first query with a key that far back."""
from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
run = load_run(options.outputs, "rotary_positions_seeds")
inputs = run["inputs"]
back, longest = inputs["back"], inputs["longest_trained"]
rival = run["schemes"]["rotary"]["first_seed"]["rival_offset"]
COLOURS = {"added": "#d62728", "rotary": "#1f77b4", "none": "#7f7f7f"}
LABELS = {"added": "added positions", "rotary": "rotary positions", "none": "no positions"}

figure, panels = plt.subplots(2, 1, figsize=(4.6, 7.0), layout="constrained")
figure.get_layout_engine().set(h_pad=0.15)  # the lower title clear of the upper panel's axis label
top, bottom = panels
positions = list(range(back, inputs["tested_length"]))
for name in inputs["schemes"]:
    scheme = run["schemes"][name]
    top.fill_between(positions, [scheme["accuracy_worst"][t] * 100 for t in positions],
                     [scheme["accuracy_best"][t] * 100 for t in positions], color=COLOURS[name], alpha=0.18, linewidth=0)
    top.plot(positions, [scheme["accuracy_median"][t] * 100 for t in positions], color=COLOURS[name], linewidth=1.6,
             label=LABELS[name])
top.axvline(longest - 0.5, color="black", linestyle="--", linewidth=1)
# Above the curves at 100, left of the dashed line, its arrow pointing across it: clear of every band.
top.text(longest - 0.8, 125, "longer than any\ntraining sequence →", fontsize=10, ha="right", va="top")
top.set_ylabel("right answers (%)", fontsize=10)
top.set_xlabel("position in the test sequence", fontsize=10)
top.axvline(rival, color="black", linestyle=":", linewidth=1)
top.text(rival + 0.3, 125, f"position {rival}", fontsize=10, va="top")
top.set_ylim(0, 126)
top.set_yticks(range(0, 101, 20))  # the room above 100 is for the notes, not a share
# Between the curves at 100 and the grey one, clear of the first grey point.
top.legend(loc="upper left", bbox_to_anchor=(0, 0.75), frameon=False, fontsize=10)
top.set_title(f"Say the digit {back} places back:\nmedian and spread over {len(inputs['seeds'])} seeds", fontsize=10)

for r in run["runs"]:
    if r["scheme"] != "rotary":
        continue
    bottom.plot(range(len(r["score_by_offset"])), r["score_by_offset"], color=COLOURS["rotary"], linewidth=1, alpha=0.7)
bottom.axvspan(longest - 0.5, inputs["tested_length"] - 0.5, color="#eeeeee", zorder=0)
for offset in (back, rival):
    bottom.axvline(offset, color="black", linestyle=":", linewidth=1)
    bottom.text(offset + 0.3, bottom.get_ylim()[1], f"offset {offset}", fontsize=10, va="top")
bottom.set_xlabel("offset: how many places back the key stands", fontsize=10)
bottom.set_ylabel("mean scaled score", fontsize=10)
# No legend on the lines, which fill the panel: the title says what they are.
bottom.set_title("What the rotary model's reading head learned\n"
                 "(a line per seed; grey: offsets no training sequence had)", fontsize=10)
for axes in panels:
    axes.tick_params(labelsize=10)
    axes.grid(True, color="#eeeeee")
    axes.spines[["top", "right"]].set_visible(False)
save(figure, options.out)
