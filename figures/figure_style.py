"""What every figure script shares: its command line, the look, and a
reproducible SVG (no timestamp, fixed ids), so a rebuild writes the same bytes."""
import argparse
import json
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


def save(figure, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
