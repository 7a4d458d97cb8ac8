// Chapter 17's second interactive figure: the error of a finite difference of
// e^x against its step h, in double, float and bfloat16, at the point x and
// with the difference (central or forward) the reader picks. The chapter's
// program (precision) computes every error, the best step and the step the
// arithmetic predicts; the page draws them on log-log axes, and names each
// format's best step and predicted step to two significant digits (".2g") and
// the best error in scientific notation (".1e"), as the chapter's prose and
// tables write them: the tables' four decimals would show 1.2e-11 as 0.
(function () {
  const COLOURS = ['#1f77b4', '#2ca02c', '#d62728'];
  // A shape per format as well as a colour, so that the formats differ by more than colour.
  const SYMBOLS = ['circle', 'square', 'triangle'];
  Book.figure('step_explorer', {
    program: 'precision',
    // The predicted step is a cube root (std::cbrt), whose last bit the browser's C library and the
    // native one round differently: the page's numbers agree with the native program's to 1e-12.
    tolerance: 1e-12,
    controls: [
      { name: 'at', label: 'the point x (--at)', type: 'range', flag: '--at', min: 0.1, max: 10, step: 0.1 },
      { name: 'difference', label: 'the difference (--difference)', type: 'select', flag: '--difference',
        options: [['central', 'central: (f(x+h) − f(x−h)) / 2h'], ['forward', 'forward: (f(x+h) − f(x)) / h']] },
    ],
    render(json, view) {
      const run = json.finite_difference;
      const names = run.curves.map((curve) => curve.format);
      // The error axis starts at the same place at every setting, so that a dip that rises is seen to rise; an
      // error below it (a lucky step, or exactly 0) is drawn on the bottom edge.
      const BOTTOM = 10 ** -13.5;
      const points = [];
      run.curves.forEach((curve) => {
        curve.errors.forEach((error, i) => {
          points.push({ step: run.steps[i], error: Math.max(error, BOTTOM), format: curve.format });
        });
      });
      const best = run.curves.map((curve) => ({ step: curve.best_step, error: Math.max(curve.best_error, BOTTOM),
        format: curve.format }));
      const predicted = run.curves.map((curve) => ({ step: curve.predicted_step, format: curve.format }));
      // Up to 3, so that no tick sits on the corner where the step axis's labels are; higher when an error
      // passes 3 (bfloat16 near x = 0.1).
      const top = Math.max(3, 1.5 * Math.max(...points.map((point) => point.error)));
      view.plot('errors', {
        title: `Relative error of the ${run.difference} difference of eˣ at x = ${view.numberText(json.inputs.at)}` +
          ' against the step h; dashed: the predicted best step',
        height: 300,
        marginLeft: 52,
        // Ticks at every third power of ten.
        x: { type: 'log', domain: [1e-12, 1], reverse: true, label: 'step h, smaller to the right →',
          ticks: [1e-12, 1e-9, 1e-6, 1e-3, 1], tickFormat: Book.powerOfTen, grid: true },
        y: { type: 'log', label: '↑ relative error', domain: [BOTTOM, top],
          ticks: [1e-15, 1e-12, 1e-9, 1e-6, 1e-3, 1].filter((tick) => tick > BOTTOM), tickFormat: Book.powerOfTen,
          grid: true },
        // One legend, of coloured shapes: the dots carry both the colour and the shape of their format.
        color: { domain: names, range: COLOURS },
        symbol: { domain: names, range: SYMBOLS, legend: true },
        marks: [
          window.Plot.ruleX(predicted, { x: 'step', stroke: 'format', strokeDasharray: '4 3' }),
          window.Plot.line(points, { x: 'step', y: 'error', stroke: 'format', strokeWidth: 1.6 }),
          window.Plot.dot(points, { x: 'step', y: 'error', fill: 'format', symbol: 'format', r: 2.5 }),
          window.Plot.dot(best, { x: 'step', y: 'error', stroke: 'format', r: 6, strokeWidth: 2 }),
        ],
      });
      const lines = run.curves.map((curve, k) => {
        const at = `/finite_difference/curves/${k}`;
        return Book.element('li', {}, [
          `${curve.format}: best step `, view.number(curve.best_step, `${at}/best_step`, '.2g'),
          ', its error ', view.number(curve.best_error, `${at}/best_error`, '.1e'),
          '; predicted step ', view.number(curve.predicted_step, `${at}/predicted_step`, '.2g'),
        ]);
      });
      view.spokenSlot('best').replaceChildren(Book.element('ul', { class: 'interactive-sentence' }, lines));
    },
  });
})();
