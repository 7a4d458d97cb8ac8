"""Chapter 16: the two places for the norm, one layer each, the residual
routes in red. Post-norm (the paper's) normalises each sum, so the route
from x to the output passes two norms; pre-norm normalises each sub-layer's
input and leaves the route without any."""
from figure_style import arguments, layer_diagram, plt, save

options = arguments(__doc__)
figure, (post, pre) = plt.subplots(2, 1, figsize=(9.0, 3.9), layout="constrained")
layer_diagram(post, "post", norm="Norm")
post.set_title("post-norm: y = Norm(x + MultiHead(x)), output = Norm(y + FFN(y))", fontsize=10.5)
layer_diagram(pre, "pre", norm="Norm")
pre.set_title("pre-norm: h = x + MultiHead(Norm(x)), output = h + FFN(Norm(h))", fontsize=10.5)
save(figure, options.out)
