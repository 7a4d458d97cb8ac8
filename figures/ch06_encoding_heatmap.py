"""Chapter 6: the sinusoidal encoding of §3.5 as a heatmap, one row per
position and one column per dimension, from the program's run with
--positions 128 --d-model 64. Each column is a sine or a cosine of the
position; the columns on the left turn fastest, those on the right so slowly
that they hardly change over 128 positions. Narrow, for a phone: the same
heatmap narrower, its colour bar below it."""
import numpy as np

from figure_style import NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
run = load_run(options.outputs, "positional_encoding_heatmap")
encoding = np.array(run["pe"])
positions, d_model = encoding.shape


def draw(narrow: bool):
    figure, axes = plt.subplots(figsize=(NARROW_WIDTH - 0.2, 5.4) if narrow else (6.6, 3.6))
    image = axes.imshow(encoding, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
    dimension = f"dimension (0 … {d_model - 1}):\neven = sine, odd = cosine;\nthe rate falls to the right" if narrow \
        else f"dimension (0 … {d_model - 1}): even = sine, odd = cosine;\nthe rate falls to the right"
    axes.set_xlabel(dimension)
    axes.set_ylabel(f"position pos (0 … {positions - 1})")
    axes.set_title(f"PE(pos, ·) for d_model = {d_model}")
    if narrow:
        figure.colorbar(image, ax=axes, location="bottom", shrink=0.8, pad=0.2, label="PE(pos, dimension)")
    else:
        figure.colorbar(image, ax=axes, shrink=0.8, label="PE(pos, dimension)")
    return figure


save_wide_and_narrow(draw, options.out)
