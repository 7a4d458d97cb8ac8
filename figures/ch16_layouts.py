"""Chapter 16: the two places for the norm, one layer each, the residual
routes in red. Post-norm (the paper's) normalises each sum, so the route
from x to the output passes two norms; pre-norm normalises each sub-layer's
input and leaves the route without any."""
from figure_style import NARROW_WIDTH, arguments, layer_diagram, plt, save_wide_and_narrow

options = arguments(__doc__)
TITLES = {"post": "post-norm: y = Norm(x + MultiHead(x)), output = Norm(y + FFN(y))",
          "pre": "pre-norm: h = x + MultiHead(Norm(x)), output = h + FFN(Norm(h))"}


def draw(narrow: bool):
    """One row of boxes per layout; narrow, each layer's two halves on two rows, each title on two lines."""
    if narrow:
        figure, (post, pre) = plt.subplots(2, 1, figsize=(NARROW_WIDTH - 0.2, 6.8), layout="constrained")
    else:
        figure, (post, pre) = plt.subplots(2, 1, figsize=(9.0, 3.9), layout="constrained")
    for axes, layout in ((post, "post"), (pre, "pre")):
        layer_diagram(axes, layout, norm="Norm", two_rows=narrow)
        title = TITLES[layout].replace(", output", ",\noutput") if narrow else TITLES[layout]
        axes.set_title(title, fontsize=10.5)
    return figure


save_wide_and_narrow(draw, options.out)
