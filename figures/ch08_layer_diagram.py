"""Chapter 8: the paper's encoder layer (§3.1) as boxes, the residual routes
in red: attention, its input added back, LayerNorm; then the feed-forward
network, its input added back, LayerNorm."""
from figure_style import NARROW_WIDTH, arguments, layer_diagram, plt, save_wide_and_narrow

options = arguments(__doc__)


def draw(narrow: bool):
    """One row of boxes; narrow, the layer's two halves on two rows, the wire carried from one to the next."""
    if narrow:
        figure, axes = plt.subplots(figsize=(NARROW_WIDTH - 0.2, 3.0), layout="constrained")
    else:
        figure, axes = plt.subplots(figsize=(9.0, 1.9), layout="constrained")
    layer_diagram(axes, "post", two_rows=narrow)
    return figure


save_wide_and_narrow(draw, options.out)
