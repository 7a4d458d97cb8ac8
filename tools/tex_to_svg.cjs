// TeX to SVG for the book's formulas, at build time (docs/_ext/book_math.py
// calls it), with the MathJax 3 pinned in tools/package-lock.json: the pages
// carry their formulas already drawn and load no MathJax.
//
// stdin:  {"formulas": [{"tex": "...", "display": true|false}, ...]}
// stdout: {"mathjax": VERSION, "stylesheet": CSS,
//          "formulas": [{"svg": "...", "mathml": "...", "glyphs": {ID: PATH}} | {"error": "..."}, ...]}
//
// Each formula's SVG refers to its glyphs by id (<use href="#MJX-TEX-I-1D451">)
// instead of carrying them: the page collects the glyphs of all its formulas
// once, as MathJax's own "global" font cache does in the browser. A TeX error
// (an undefined macro, an unbalanced brace) is reported, not drawn in red.
'use strict';

const fs = require('fs');

const request = JSON.parse(fs.readFileSync(0, 'utf8'));

require('mathjax').init({
  loader: { load: ['input/tex-full', 'output/svg', 'adaptors/liteDOM'], versionWarnings: false },
  // A TeX error throws instead of being drawn as a red box.
  tex: { packages: { '[-]': ['noundefined'] }, formatError: (jax, error) => { throw error; } },
  svg: { fontCache: 'local' },
  startup: { typeset: false },
}).then((MathJax) => {
  const adaptor = MathJax.startup.adaptor;
  const formulas = request.formulas.map(({ tex, display }) => {
    try {
      const container = MathJax.tex2svg(tex, { display });
      const glyphs = {};
      const svg = adaptor.firstChild(container);
      for (const defs of adaptor.tags(svg, 'defs')) {
        for (const path of adaptor.tags(defs, 'path')) {
          // MJX-<formula>-TEX-I-1D451 -> MJX-TEX-I-1D451: a glyph's id names its font and character.
          glyphs[adaptor.getAttribute(path, 'id').replace(/^MJX-\d+-/, 'MJX-')] = adaptor.getAttribute(path, 'd');
        }
        adaptor.remove(defs);
      }
      for (const use of adaptor.tags(svg, 'use')) {
        adaptor.setAttribute(use, 'xlink:href', adaptor.getAttribute(use, 'xlink:href').replace(/^#MJX-\d+-/, '#MJX-'));
      }
      // The SVG is drawn for the eye; readers that speak read the MathML.
      adaptor.setAttribute(svg, 'aria-hidden', 'true');
      adaptor.removeAttribute(svg, 'role');
      // MathML's indentation is dropped: between tags it means nothing.
      const mathml = MathJax.tex2mml(tex, { display }).replace(/\n\s*/g, '');
      return { svg: adaptor.outerHTML(svg), mathml, glyphs };
    } catch (error) {
      return { error: String(error.message || error) };
    }
  });
  process.stdout.write(JSON.stringify({
    mathjax: MathJax.version,
    stylesheet: adaptor.textContent(MathJax.svgStylesheet()),
    formulas,
  }));
}).catch((error) => {
  process.stderr.write(`tex_to_svg: ${error.message || error}\n`);
  process.exit(1);
});
