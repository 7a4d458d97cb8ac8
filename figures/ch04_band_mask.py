"""Chapter 4: restricted attention as a band mask. Left, which keys each of
eight positions may look at with radius 2; middle and right, the weights
without the band and with it, on the same eight vectors."""
import numpy as np

from figure_style import NARROW_SMALL_TEXT, NARROW_WIDTH, arguments, load_run, plt, save_wide_and_narrow

options = arguments(__doc__)
band = load_run(options.outputs, "masking_band")
unrestricted = load_run(options.outputs, "masking_band_none")
allowed = np.array(band["mask"], dtype=bool)
labels = [str(position + 1) for position in range(allowed.shape[0])]


def draw(narrow: bool):
    """Side by side, the colour bar on the right; narrow, one above another, the colour bar below."""
    if narrow:
        figure, (mask_axes, none_axes, band_axes) = plt.subplots(3, 1, figsize=(NARROW_WIDTH - 0.4, 12.6),
                                                                 constrained_layout=True)
        figure.get_layout_engine().set(hspace=0.06)  # each title nearer its own panel than the one above
    else:
        figure, (mask_axes, none_axes, band_axes) = plt.subplots(1, 3, figsize=(11.5, 4.0), constrained_layout=True)
    mask_axes.imshow(allowed, cmap="Greys", vmin=-0.4, vmax=1.4)
    mask_axes.set_title(f"the mask {band['mask_spec']}\n(dark: may look)")
    for axes, run, title in ((none_axes, unrestricted, "weights, no mask"),
                             (band_axes, band, f"weights, {band['mask_spec']}")):
        image = axes.imshow(np.array(run["weights"]), cmap="Blues", vmin=0.0, vmax=1.0)
        axes.set_title(title)
    for i in range(allowed.shape[0]):
        for j in range(allowed.shape[1]):
            if not allowed[i, j]:
                band_axes.text(j, i, "×", ha="center", va="center", color="#999999",
                               fontsize=NARROW_SMALL_TEXT if narrow else 9)
    for axes in (mask_axes, none_axes, band_axes):
        axes.set_xticks(range(len(labels)), labels)
        axes.set_yticks(range(len(labels)), labels)
        axes.set_xlabel("key position")
    for axes in (mask_axes, none_axes, band_axes) if narrow else (mask_axes,):
        axes.set_ylabel("query position")
    figure.colorbar(image, ax=[none_axes, band_axes], shrink=0.8, label="weight",
                    location="bottom" if narrow else "right")
    return figure


save_wide_and_narrow(draw, options.out)
