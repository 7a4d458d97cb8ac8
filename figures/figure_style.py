"""What every figure script shares: its command line, the look, and a
reproducible SVG (no timestamp, fixed ids), so a rebuild writes the same bytes."""
import argparse
import json
import re
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({
    "svg.hashsalt": "attention-compiled",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 11,
    "axes.titlesize": 12,
    "figure.dpi": 100,
})


def arguments(description: str) -> argparse.Namespace:
    """--outputs: the folder of the programs' captured runs; --out: the SVG to write."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--outputs", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    return parser.parse_args()


def load_run(outputs: Path, run: str) -> dict:
    """The --json document of one captured run."""
    return json.loads((outputs / f"{run}.json").read_text())


def token_heatmap(axes, values, askers, answerers, vmin, vmax, key_label="key: the token answering", cmap="Blues"):
    """A table of tokens against tokens as colours: a row per token asking,
    a column per token answering, the keys named along the top. Returns the image."""
    image = axes.imshow(values, cmap=cmap, vmin=vmin, vmax=vmax)
    axes.set_xticks(range(len(answerers)), answerers)
    axes.set_yticks(range(len(askers)), askers)
    axes.set_xlabel(key_label)
    axes.xaxis.set_label_position("top")
    axes.xaxis.tick_top()
    axes.tick_params(length=0)  # beside a label such as "I", a tick mark reads as part of it
    return image


def ink_on(colour) -> str:
    """Black or white, whichever contrasts more with an RGB(A) colour of channels in [0, 1]
    (WCAG's relative luminance): the page's heatmaps choose the same way."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour[:3]]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "white" if 1.05 / (luminance + 0.05) > (luminance + 0.05) / 0.05 else "black"


def cell_numbers(axes, values, text, **text_options) -> None:
    """Each cell of the heatmap last drawn on `axes` with its number written on it, `text(value)`:
    black or white, whichever stands out more from the cell's colour. `text_options` (a font
    size, say) go to each number's text."""
    image = axes.images[-1]
    for (i, j), value in np.ndenumerate(values):
        colour = image.cmap(image.norm(value))
        axes.text(j, i, text(value), ha="center", va="center", color=ink_on(colour), **text_options)


def step_axes(axes, xlabel: str, ylabel: str, legend_loc: str, small: float = 9) -> None:
    """Log-log axes of an error against a step h, the step shrinking to the
    right (chapters 10 and 17): labels, a frameless legend, a light grid.
    `small` is the legend's and the ticks' size (NARROW_SMALL_TEXT, say, in a narrow drawing)."""
    axes.set_xlabel(xlabel, fontsize=10)
    axes.set_ylabel(ylabel, fontsize=10)
    axes.invert_xaxis()
    axes.legend(loc=legend_loc, frameon=False, fontsize=small)
    axes.tick_params(labelsize=small)
    axes.grid(True, color="#eeeeee", which="major")
    axes.spines[["top", "right"]].set_visible(False)


def with_minus_signs(text: str) -> str:
    """A number's text with the book's minus sign, U+2212, for each hyphen-minus,
    as the prose and the page write numbers."""
    return text.replace("-", "\N{MINUS SIGN}")


def save(figure, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)


NARROW_WIDTH = 4.8
"""The widest a figure for narrow screens is drawn, in inches: on a phone's
column of text (about 360 px) it shows at three quarters of its size or more,
its 11 pt labels at 11 px or more."""

NARROW_SMALL_TEXT = 10.5
"""The smallest text of a figure's narrow drawing, in points: its legends, notes, an inset's
title and ticks. Drawn at NARROW_WIDTH, it shows on a phone at about 11 px; the wide
drawing, seen at its full size, keeps its 8 and 9 pt text."""


def narrow_path(out: Path) -> Path:
    """Where a figure's variant for narrow screens is written: beside it, `NAME.narrow.svg`."""
    return out.with_name(f"{out.stem}.narrow.svg")


def panel_figure(count: int, narrow: bool, wide_size, narrow_size, space: float = 0.1, **options):
    """A figure of `count` panels: side by side in `wide_size` inches, or, narrow, one above
    another in `narrow_size` (at most NARROW_WIDTH wide), with `space` between them, so that
    each title sits nearer its own panel than the one above. `options` go to plt.subplots.
    Returns the figure and its axes, in a flat list."""
    rows, columns, size = (count, 1, narrow_size) if narrow else (1, count, wide_size)
    figure, axes = plt.subplots(rows, columns, figsize=size, constrained_layout=True, squeeze=False, **options)
    if narrow:
        figure.get_layout_engine().set(hspace=space)
    return figure, list(axes.flat)


def save_wide_and_narrow(draw, out: Path) -> None:
    """A figure whose panels stand side by side, drawn twice: `draw(narrow=False)`
    to `out`, and `draw(narrow=True)`, the same panels one above another and no
    wider than NARROW_WIDTH, to narrow_path(out). The page shows the second on a
    narrow screen (docs/_ext/narrow_figures.py); the build knows a script draws both by
    its call of this function (cmake/Book.cmake)."""
    save(draw(narrow=False), out)
    narrow = narrow_path(out)
    save(draw(narrow=True), narrow)
    width = float(re.search(r'<svg[^>]* width="([0-9.]+)pt"', narrow.read_text()).group(1)) / 72
    if width > NARROW_WIDTH:
        raise SystemExit(f"{narrow.name}: drawn {width:.2f} in wide, wider than NARROW_WIDTH ({NARROW_WIDTH} in)")


def layer_diagram(axes, layout: str, norm: str = "LayerNorm", two_rows: bool = False) -> None:
    """One encoder layer as boxes from left to right, the residual routes as
    arcs above them (chapters 8 and 16). `layout` is "post" (the paper's:
    each sum, then its norm) or "pre" (the norm before each sub-layer, the
    sums left alone). `two_rows` (for narrow screens) puts the second half,
    from the wire the second route leaves from, on a row of its own below the
    first, the wire carried from the end of the first row to the start of
    the second."""
    attention, network = "multi-head\nattention", "feed-forward\nnetwork"
    # Each step: a box's label, or "+" for a residual sum; `routes` pairs the
    # step whose output a route leaves from with the sum it joins. The second
    # route leaves from the first half's result, which the formulas name.
    if layout == "post":
        steps = ["x", attention, "+", norm, network, "+", norm, "output"]
        routes = [(0, 2), (3, 5)]
        name = "y"
    elif layout == "pre":
        steps = ["x", norm, attention, "+", norm, network, "+", "output"]
        routes = [(0, 3), (3, 6)]
        name = "h"
    else:
        raise ValueError(f"layout must be 'post' or 'pre', not {layout!r}")
    colours = {norm: "#fdd0a2", attention: "#c6dbef", network: "#c7e9c0"}
    width, gap = 1.25, 0.45
    half = routes[1][0]
    # Each step's centre and size along its row, and the height of its row:
    # on two rows, the second row starts where the first does, after a stretch
    # of wire as long as the first row's "x" and the gap after it.
    drop = 1.95 if two_rows else 0.0
    centres, levels = [], []
    x = 0.0
    extent = 0.0
    for k, step in enumerate(steps):
        if two_rows and k == half + 1:
            x = centres[0][1] + gap
        size = 0.42 if step == "+" else (0.3 if step == "x" else 0.85 if step == "output" else width)
        centres.append((x + size / 2, size))
        levels.append(-drop if two_rows and k > half else 0)
        x += size + gap
        extent = max(extent, x)
    for k, ((left, left_size), (right_centre, right_size)) in enumerate(zip(centres, centres[1:])):
        level = levels[k + 1]
        start = left + left_size / 2
        if level != levels[k]:
            # The wire carried over: right, down between the rows, back left, and down into the second row.
            turn, back = start + gap / 2, 0.15
            axes.plot([start, turn, turn, back, back], [levels[k], levels[k], -0.8, -0.8, level],
                      color="#444444", lw=1.3)
            axes.annotate("", xy=(right_centre - right_size / 2, level), xytext=(back, level),
                          arrowprops={"arrowstyle": "->", "color": "#444444", "lw": 1.3, "shrinkA": 0})
            continue
        axes.annotate("", xy=(right_centre - right_size / 2, level), xytext=(start, level),
                      arrowprops={"arrowstyle": "->", "color": "#444444", "lw": 1.3})
    # On two rows the second route leaves the second row where the first leaves the first.
    second_start = centres[0][1] + gap / 2
    if two_rows:
        wire_middle = second_start
    else:
        wire_middle = (centres[half][0] + centres[half][1] / 2 + centres[half + 1][0] - centres[half + 1][1] / 2) / 2
    axes.text(wire_middle, levels[half + 1] - 0.2, name, ha="center", va="center", fontsize=11, style="italic")
    for step, (centre, size), level in zip(steps, centres, levels):
        if step == "+":
            axes.add_patch(plt.Circle((centre, level), size / 2, facecolor="white", edgecolor="#444444", lw=1.3))
            axes.text(centre, level, "+", ha="center", va="center", fontsize=14)
        elif step in ("x", "output"):
            axes.text(centre, level, step, ha="center", va="center", fontsize=12, style="italic")
        else:
            axes.add_patch(matplotlib.patches.FancyBboxPatch(
                (centre - size / 2, level - 0.42), size, 0.84, boxstyle="round,pad=0.02,rounding_size=0.08",
                facecolor=colours[step], edgecolor="#444444", lw=1.0))
            axes.text(centre, level, step, ha="center", va="center", fontsize=9.5)
    for source, sum_step in routes:
        start = centres[source][0] + centres[source][1] / 2 + gap / 2
        if two_rows and source == half:
            start = second_start
        end, level = centres[sum_step][0], levels[sum_step]
        axes.plot([start, start, end], [level, level + 0.8, level + 0.8], color="#c0392b", lw=1.3)
        axes.annotate("", xy=(end, level + 0.21), xytext=(end, level + 0.8),
                      arrowprops={"arrowstyle": "->", "color": "#c0392b", "lw": 1.3})
    axes.set_xlim(-0.1, extent - gap + 0.1)
    axes.set_ylim(-drop - 0.55, 1.0)
    axes.set_aspect("equal")
    axes.axis("off")
