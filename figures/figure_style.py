"""What every figure script shares: its command line, the look, and a
reproducible SVG (no timestamp, fixed ids), so a rebuild writes the same bytes."""
import argparse
import json
import re
from pathlib import Path

import matplotlib

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


def token_heatmap(axes, values, askers, answerers, vmin, vmax, key_label="key: the token answering"):
    """A table of tokens against tokens as colours: a row per token asking,
    a column per token answering, the keys named along the top. Returns the image."""
    image = axes.imshow(values, cmap="Blues", vmin=vmin, vmax=vmax)
    axes.set_xticks(range(len(answerers)), answerers)
    axes.set_yticks(range(len(askers)), askers)
    axes.set_xlabel(key_label)
    axes.xaxis.set_label_position("top")
    axes.xaxis.tick_top()
    return image


def step_axes(axes, xlabel: str, ylabel: str, legend_loc: str) -> None:
    """Log-log axes of an error against a step h, the step shrinking to the
    right (chapters 10 and 17): labels, a frameless legend, a light grid."""
    axes.set_xlabel(xlabel, fontsize=10)
    axes.set_ylabel(ylabel, fontsize=10)
    axes.invert_xaxis()
    axes.legend(loc=legend_loc, frameon=False, fontsize=9)
    axes.tick_params(labelsize=9)
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


def narrow_path(out: Path) -> Path:
    """Where a figure's variant for narrow screens is written: beside it, `NAME.narrow.svg`."""
    return out.with_name(f"{out.stem}.narrow.svg")


def save_wide_and_narrow(draw, out: Path) -> None:
    """A figure whose panels stand side by side, drawn twice: `draw(narrow=False)`
    to `out`, and `draw(narrow=True)`, the same panels one above another and no
    wider than NARROW_WIDTH, to narrow_path(out). The page shows the second on a
    narrow screen (docs/_ext/book.py); the build knows a script draws both by
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
    centres = []
    x = 0.0
    for step in steps:
        size = 0.42 if step == "+" else (0.3 if step == "x" else 0.85 if step == "output" else width)
        centres.append((x + size / 2, size))
        x += size + gap
    for (left, left_size), (right, right_size) in zip(centres, centres[1:]):
        axes.annotate("", xy=(right - right_size / 2, 0), xytext=(left + left_size / 2, 0),
                      arrowprops={"arrowstyle": "->", "color": "#444444", "lw": 1.3})
    half = routes[1][0]
    wire_middle = (centres[half][0] + centres[half][1] / 2 + centres[half + 1][0] - centres[half + 1][1] / 2) / 2
    axes.text(wire_middle, -0.2, name, ha="center", va="center", fontsize=11, style="italic")
    for step, (centre, size) in zip(steps, centres):
        if step == "+":
            axes.add_patch(plt.Circle((centre, 0), size / 2, facecolor="white", edgecolor="#444444", lw=1.3))
            axes.text(centre, 0, "+", ha="center", va="center", fontsize=14)
        elif step in ("x", "output"):
            axes.text(centre, 0, step, ha="center", va="center", fontsize=12, style="italic")
        else:
            axes.add_patch(matplotlib.patches.FancyBboxPatch(
                (centre - size / 2, -0.42), size, 0.84, boxstyle="round,pad=0.02,rounding_size=0.08",
                facecolor=colours[step], edgecolor="#444444", lw=1.0))
            axes.text(centre, 0, step, ha="center", va="center", fontsize=9.5)
    for source, sum_step in routes:
        start = centres[source][0] + centres[source][1] / 2 + gap / 2
        end = centres[sum_step][0]
        axes.plot([start, start, end], [0, 0.8, 0.8], color="#c0392b", lw=1.3)
        axes.annotate("", xy=(end, 0.21), xytext=(end, 0.8),
                      arrowprops={"arrowstyle": "->", "color": "#c0392b", "lw": 1.3})
    axes.set_xlim(-0.1, x - gap + 0.1)
    axes.set_ylim(-0.55, 1.0)
    axes.set_aspect("equal")
    axes.axis("off")
