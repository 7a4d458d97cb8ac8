// Chapter 17's interactive figure: the online softmax's running sum kept in
// float or bfloat16, against double, for scores of the spread and seed the
// reader picks. The chapter's program (precision) computes every sum; the page
// draws the relative errors it returns, on log-log axes.
(function () {
  // The static figure's colours and shapes (figures/ch17_running_sum.py), line for line; a shape per line as well
  // as a colour, so that the lines differ by more than colour.
  const COLOURS = ['#2ca02c', '#9467bd', '#d62728'];
  const SYMBOLS = ['square', 'diamond', 'triangle'];
  Book.figure('running_sum_explorer', {
    program: 'precision',
    controls: [
      { name: 'spread', label: 'spread of the scores (--spread)', type: 'range', flag: '--spread',
        min: 0.5, max: 8, step: 0.5 },
      { name: 'seed', label: 'Seed (--seed)', type: 'number', flag: '--seed',
        samples: ['2', '7'], bad: ['-1', 'x'] },
    ],
    render(json, view) {
      const points = [];
      json.setups.forEach((setup, k) => {
        for (const row of json.rows) {
          points.push({ n: row.n, error: Math.max(row.sums[k].normalizer_error, 1e-17), setup: setup.name });
        }
      });
      // Ticks at the powers of ten, written as the tables write them (1e−6, not 1µ).
      const exponents = points.map((point) => Math.log10(point.error));
      // From 1e−10 to 1 at least, at every spread and seed, so that an error that falls is seen to fall.
      const low = Math.min(-10, Math.floor(Math.min(...exponents)));
      const high = Math.max(0, Math.ceil(Math.max(...exponents)));
      const powers = Array.from({ length: high - low + 1 }, (_, i) => 10 ** (low + i));
      view.plot('errors', {
        title: 'Relative error of the softmax’s denominator against double',
        height: 300,
        marginLeft: 56,
        // Ticks at the lengths summed, written out as the tables write them: the reader finds each row's n. The
        // lengths are powers of 4; in base 10 a log scale's labels skip those whose leading digit is large (64).
        x: { type: 'log', base: 4, label: 'n, scores summed →', grid: true, ticks: json.rows.map((row) => row.n),
          tickFormat: (n) => Book.numberText(n, 0) },
        marginTop: 28,
        y: { type: 'log', label: '↑ relative error', grid: true, domain: [powers[0], powers[powers.length - 1]],
          ticks: powers, tickFormat: Book.powerOfTen },
        // One legend, of coloured shapes: the dots carry both the colour and the shape of their line.
        color: { domain: json.setups.map((s) => s.name), range: COLOURS },
        symbol: { domain: json.setups.map((s) => s.name), range: SYMBOLS, legend: true },
        marks: [
          window.Plot.line(points, { x: 'n', y: 'error', stroke: 'setup', strokeWidth: 1.6 }),
          window.Plot.dot(points, { x: 'n', y: 'error', fill: 'setup', symbol: 'setup', r: 3.5 }),
        ],
      });
      const last = json.rows.length - 1;
      const row = json.rows[last];
      view.sentence('largest', [
        'For ', [row.n, `/rows/${last}/n`], ' scores the double sum L is ', [row.reference_sum, `/rows/${last}/reference_sum`],
        '. With a bfloat16 sum the denominator\'s relative error is ', [row.sums[2].normalizer_error, `/rows/${last}/sums/2/normalizer_error`,
          row.sums[2].normalizer_error < 0.0005 ? '.1e' : '.1%'],
        ': the red line of triangles, the bfloat16 sum. The green squares and the purple diamonds keep the',
        ' sum in float.',
      ]);
    },
  });
})();
