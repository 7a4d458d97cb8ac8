"""Chapter 15: the score of a turned query with a turned key against their
offset m − n. Top: the toy's query of "fish", (1, 1), and key of "cat",
(2, 0): one pair of coordinates, turning 1 radian per position, so the
score is one wave that repeats every 2π positions, for ever. The line is
the program's score between whole offsets too (the query and the key turned
by fractions of a place, where no token stands); the dots are the whole
offsets, which sample the wave and so reach its tops by varying amounts.
Bottom: a query and a key of 64 ones: 32 pairs turning at 32 speeds, from 1
radian per position down to 1/10000 of it. The waves agree only near offset
0, where the score is highest; further apart they fall out of step and the
score stays lower, with ripples."""
from figure_style import arguments, load_run, plt, save

options = arguments(__doc__)
toy = load_run(options.outputs, "rotary_positions")["turn"]
ones = load_run(options.outputs, "rotary_positions_ones")["turn"]

# One figure for every screen (4.6 in, narrower than NARROW_WIDTH): titles at 11 pt, readable on a phone, and
# room between the panels so that the lower title stays clear of the upper panel's numbers.
figure, panels = plt.subplots(2, 1, figsize=(4.6, 5.4), layout="constrained")
figure.get_layout_engine().set(h_pad=0.15)
for axes, turn, title in [
    (panels[0], toy, "q = (1, 1), k = (2, 0): one pair, one wave\n(dots: whole offsets, where tokens stand)"),
    (panels[1], ones, f"q = k = {len(ones['query'])} ones: {len(ones['angles'])} pairs at {len(ones['angles'])} speeds"),
]:
    axes.axhline(0, color="#999999", linewidth=0.8)
    axes.plot(turn["wave_offsets"], turn["wave_scores"], color="#1f4e8c", linewidth=1.2)
    if turn is toy:
        axes.plot(turn["offsets"], turn["scores"], linestyle="none", color="#c0392b", marker="o", markersize=2.6)
    axes.set_title(title, fontsize=11)
    axes.set_ylabel("turned q · turned k", fontsize=10)
    axes.tick_params(labelsize=10)
    axes.grid(True, color="#eeeeee")
    axes.spines[["top", "right"]].set_visible(False)
panels[-1].set_xlabel("offset m − n (query at m, key at n)", fontsize=10)
save(figure, options.out)
