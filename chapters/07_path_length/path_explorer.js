// Chapter 7's interactive figure: the counts of the chapter's program
// (path_length, always with --no-timing: a stopwatch in the page would never
// match the native run) for the length n, the kernel width and the radius the
// reader picks. For each layer type: the maximum path length, the layers its
// stack needs, the multiply-adds of one layer and its sequential steps, as a
// table of numbers and as two dot charts.
(function () {
  const LONGEST = 64;  // the longest sequence the n slider reaches
  // The multiply-adds second: the caption's experiment reads them, and on a phone the table scrolls sideways.
  const columns = [
    ['max_path_length', 'max path'],
    ['operations', 'multiply-adds'],
    ['layers', 'layers'],
    ['sequential_steps', 'steps'],
  ];

  Book.figure('path_explorer', {
    program: 'path_length',
    controls: [
      { name: 'n', label: 'sequence length n (--n)', type: 'range', flag: '--n', min: 1, max: LONGEST, step: 1 },
      { name: 'kernel', label: 'kernel width k (--kernel)', type: 'range', flag: '--kernel', min: 3, max: 15, step: 2 },
      { name: 'radius', label: 'radius R (--radius)', type: 'range', flag: '--radius', min: 1, max: 8, step: 1 },
      { name: 'd', label: 'width d (--d)', type: 'select', flag: '--d', options: [['16', '16'], ['64', '64'], ['512', '512']] },
    ],
    arguments(values) {
      return ['--n', values.n, '--d', values.d, '--kernel', values.kernel, '--radius', values.radius, '--no-timing'];
    },
    render(json, view) {
      const rows = json.rows;
      const names = rows.map((row) => row.name);
      view.records('table', rows, {
        title: `n = ${rows[0].n}: layers stacked; multiply-adds and sequential steps of one layer`,
        corner: 'layer', rows: names, columns, pointer: '/rows', format: ',',
      });
      view.plot('paths', {
        height: 200,
        marginLeft: 124,
        // The same axis at every n up to the slider's end, so that a path that grows with n is seen to grow.
        x: { label: 'maximum path length, edges →', grid: true, nice: true,
          domain: [0, Math.max(LONGEST, ...rows.map((r) => r.max_path_length))] },
        y: { domain: names, label: null },
        marks: [
          window.Plot.ruleY(rows, { y: 'name', x1: 0, x2: 'max_path_length', stroke: '#9ab' }),
          window.Plot.dot(rows, { y: 'name', x: 'max_path_length', fill: '#1f4e8c', r: 5 }),
        ],
      });
      // The same axis at every setting the controls reach (from 10 to 10^9 multiply-adds, wider only if a count
      // is not), so that a count that grows is seen to move; ticked at every other power of ten, as the tables write them.
      const operations = rows.map((r) => r.operations);
      const low = Math.min(10, Math.min(...operations) / 2);
      const high = Math.max(1e9, Math.max(...operations) * 2);
      view.plot('operations', {
        height: 200,
        marginLeft: 124,
        x: { type: 'log', label: 'multiply-adds of one layer (log scale) →', grid: true, domain: [low, high],
          ticks: [1e1, 1e3, 1e5, 1e7, 1e9].filter((tick) => tick >= low && tick <= high), tickFormat: Book.powerOfTen },
        y: { domain: names, label: null },
        marks: [
          window.Plot.dot(rows, { y: 'name', x: 'operations', fill: '#c0392b', r: 5 }),
        ],
      });
    },
  });
})();
