"""Chapter 8: the paper's encoder layer (§3.1) as boxes, the residual routes
in red: attention, its input added back, LayerNorm; then the feed-forward
network, its input added back, LayerNorm."""
from figure_style import arguments, layer_diagram, plt, save

options = arguments(__doc__)
figure, axes = plt.subplots(figsize=(9.0, 1.9), layout="constrained")
layer_diagram(axes, "post")
save(figure, options.out)
