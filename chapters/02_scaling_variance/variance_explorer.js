// Chapter 2's interactive figure: footnote 4 as an experiment the reader
// reruns. Choose the widths d_k, the number of samples N and the seed (or
// press "reseed", seed + 1); the chapter's program (scaling_variance) draws
// the random q and k and measures the variance of q·k before and after the
// division by √dₖ, and the histogram of q·k at the largest d_k. Every number
// and every bar comes from its JSON; the page only draws.
(function () {
  const widths = [
    ['2,64,512', '2, 64, 512 (the chapter\'s)'],
    ['2,8,32,128,512', '2, 8, 32, 128, 512'],
    ['1,2,4,8,16,32,64,128,256,512', 'every power of 2 up to 512'],
    ['2', '2 alone'],
    ['64', '64 alone'],
    ['512', '512 alone'],
  ];

  // The table's columns: each width's variance of q·k and the footnote's, before and after the division.
  const columns = [
    ['var_raw', 'variance'], ['var_theory', 'theory'],
    ['var_scaled', 'after ÷√dₖ'], ['var_scaled_theory', 'theory'], ['var_scaled_sd', 'typical swing'],
  ];

  Book.figure('variance_explorer', {
    program: 'scaling_variance',
    // The page's C++ draws its normal numbers with emscripten's libm, whose
    // cos (and, rarely, log) differs from glibc's in the last bit for a few
    // per cent of arguments; a variance over thousands of draws then differs
    // from the native program's by a few units in the last place.
    tolerance: 1e-12,
    controls: [
      { name: 'dk', label: 'widths dₖ (--dk)', type: 'select', flag: '--dk', options: widths },
      { name: 'samples', label: 'samples N per width (--samples)', type: 'range', flag: '--samples',
        min: 100, max: 4000, step: 100 },
      { name: 'seed', label: 'seed (--seed)', type: 'number', flag: '--seed', min: 0, max: 4294967295, step: 1,
        samples: ['2', '1000'], bad: ['-1', '4294967296'], help: 'a whole number from 0 to 4294967295' },
      Book.reseedButton('reseed'),
    ],
    render(json, view) {
      const rows = json.rows;
      // A row per width, a line each (as sentences, ten widths took a phone's whole screen).
      view.records('rows', rows, {
        title: 'The variance of q·k at each width dₖ, and the theory; after dividing by √dₖ, and its typical swing',
        corner: 'dₖ', rows: rows.map((row) => String(row.dk)), columns, pointer: '/rows',
      });

      // The measured variances against the theory: d_k before the division, 1 after. The widths on a
      // logarithmic axis, ticked at the widths the reader chose, so that growing like d_k is a straight line.
      const dks = rows.map((row) => row.dk);
      const paddedLogDomain = (values) => [Math.min(...values) / 1.6, Math.max(...values) * 1.6];
      // The label dₖ, not d_k: Plot cuts the underscore off.
      const x = { type: 'log', base: 2, domain: paddedLogDomain(dks), ticks: dks, tickFormat: String, label: 'dₖ' };
      const varianceTicks = dks.length > 1 ? dks : [dks[0] / 2, dks[0], dks[0] * 2];
      // Plot's own title is a page heading (h2): each plot's title is a sentence above it.
      view.sentence('raw-title', [`Variance of q·k (dots) and the theory (${rows.length > 1 ? 'grey line; ' : ''}a short bar at each dₖ) against dₖ; logarithmic axes:`]);
      view.plot('raw', {
        height: 220, marginLeft: 56, x,
        // With one width alone, ticks at half and twice it too: one tick alone gives the axis no scale.
        y: { type: 'log', base: 2, label: 'variance', grid: true, ticks: varianceTicks, tickFormat: String,
          domain: paddedLogDomain([...rows.flatMap((d) => [d.var_raw, d.var_theory]), ...varianceTicks]) },
        marks: [
          window.Plot.line(rows, { x: 'dk', y: 'var_theory', stroke: 'currentColor', strokeOpacity: 0.45, strokeWidth: 1.2 }),
          window.Plot.ruleY(rows, { x1: (d) => d.dk / 1.3, x2: (d) => d.dk * 1.3, y: 'var_theory', stroke: 'currentColor', strokeOpacity: 0.6, strokeWidth: 2 }),
          window.Plot.dot(rows, { x: 'dk', y: 'var_raw', fill: 'steelblue', r: 5 }),
        ],
      });
      view.sentence('scaled-title', ['Variance of q·k / √dₖ (dots) against the theory (line); grey bars: two typical swings either side:']);
      view.plot('scaled', {
        height: 220, marginLeft: 56, x,
        y: { label: 'variance after ÷√dₖ', grid: true, domain: [
          // Wide enough for the fewest samples, and the same at every setting it covers, so that the swings
          // are seen to shrink as the samples grow.
          Math.min(0.4, ...rows.map((d) => Math.min(d.var_scaled, d.two_swings_low))),
          Math.max(1.6, ...rows.map((d) => Math.max(d.var_scaled, d.two_swings_high))),
        ] },
        marks: [
          window.Plot.ruleY([json.rows[0].var_scaled_theory], { stroke: 'currentColor', strokeOpacity: 0.6, strokeWidth: 2 }),
          window.Plot.ruleX(rows, {
            x: 'dk', y1: 'two_swings_low', y2: 'two_swings_high', stroke: 'gray', strokeOpacity: 0.35, strokeWidth: 10,
          }),
          window.Plot.dot(rows, { x: 'dk', y: 'var_scaled', fill: 'darkorange', r: 5 }),
        ],
      });

      // The histogram the program counted at the largest d_k: the same counts
      // on the axis of q·k and on the axis of q·k / √dₖ.
      const h = json.histogram;
      const bins = h.counts.map((count, i) => ({
        count, raw1: h.edges_raw[i], raw2: h.edges_raw[i + 1], scaled1: h.edges_scaled[i], scaled2: h.edges_scaled[i + 1],
      }));
      view.sentence('histogram-note', [
        'The ', [json.samples, '/samples'], ' dot products at dₖ = ', [h.dk, '/histogram/dk'],
        ', counted in bins a quarter of √dₖ wide (', [h.below, '/histogram/below'], ' below the first edge, ',
        [h.above, '/histogram/above'], ' above the last). Dividing by √dₖ changes the axis, not the shape:',
      ]);
      view.plot('histogram-raw', {
        height: 150, marginLeft: 48,
        x: { label: 'q·k' }, y: { label: 'count', grid: true },
        marks: [
          window.Plot.rectY(bins, { x1: 'raw1', x2: 'raw2', y: 'count', fill: 'steelblue', inset: 0.5 }),
          window.Plot.ruleY([0]),
        ],
      });
      view.plot('histogram-scaled', {
        height: 150, marginLeft: 48,
        x: { label: 'q·k / √dₖ' }, y: { label: 'count', grid: true },
        marks: [
          window.Plot.rectY(bins, { x1: 'scaled1', x2: 'scaled2', y: 'count', fill: 'darkorange', inset: 0.5 }),
          window.Plot.ruleY([0]),
        ],
      });
    },
  });
})();
