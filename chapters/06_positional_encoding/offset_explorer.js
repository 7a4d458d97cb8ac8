// Chapter 6's second interactive figure: PE(pos) · PE(pos + k) against the
// offset k, as the chapter's program (positional_encoding) computes it over its
// grid of positions: the value at pos = 0 as a line, the smallest to the
// largest over every pos as a band, and the offset the reader picks (--shift)
// as numbers. The page computes no dot product; they are the JSON's.
(function () {
  Book.figure('offset_explorer', {
    program: 'positional_encoding',
    // The browser's sine and cosine (musl's, compiled into the module) and the
    // native program's (glibc's) differ in the last bit for some angles, e.g.
    // sin 18; over every setting these controls reach, the page's numbers are
    // within 8.7e-13 of the native ones, relatively.
    tolerance: 1e-12,
    controls: [
      { name: 'd_model', label: 'width d_model (--d-model)', type: 'range', flag: '--d-model', min: 2, max: 64, step: 2 },
      { name: 'k', label: 'offset k (--shift)', type: 'range', flag: '--shift', min: 0, max: 127, step: 1 },
    ],
    render(json, view) {
      const s = json.similarity;
      const points = s.offsets.map((offset, i) => ({
        offset, value: s.at_position_0[i], smallest: s.smallest[i], largest: s.largest[i],
      }));
      const k = json.shift.k;
      const index = s.offsets.indexOf(k);
      const chosen = index >= 0 ? [points[index]] : [];
      view.plot('curve', {
        height: 260,
        marginLeft: 44,
        x: { label: 'offset k →', grid: true },
        y: { label: '↑ PE(pos) · PE(pos + k)', grid: true, nice: true },
        marks: [
          window.Plot.ruleY([0], { stroke: '#999999' }),
          window.Plot.areaY(points, { x: 'offset', y1: 'smallest', y2: 'largest', fill: '#4c78a8', fillOpacity: 0.3 }),
          window.Plot.line(points, { x: 'offset', y: 'value', stroke: '#1f4e8c', strokeWidth: 1.5 }),
          window.Plot.ruleX(chosen, { x: 'offset', stroke: '#c0392b', strokeDasharray: '4 3' }),
          // The chosen offset's value carried across, so that an offset above or below it shows at a glance.
          window.Plot.ruleY(chosen, { y: 'value', stroke: '#c0392b', strokeDasharray: '1 3' }),
          window.Plot.dot(chosen, { x: 'offset', y: 'value', fill: '#c0392b', r: 4 }),
        ],
      });
      if (index >= 0) {
        // A spread over pos that is rounding alone is not given: "between 3.5353 and 3.5353" would read as a glitch.
        const same = view.numberText(s.smallest[index]) === view.numberText(s.largest[index]);
        view.sentence('chosen', [
          'At k = ', [k, '/shift/k'], ': PE(0) · PE(k) = ', [s.at_position_0[index], `/similarity/at_position_0/${index}`],
          '; over the first ', [s.grid_positions, '/similarity/grid_positions'],
          ...(same
            ? [' positions pos it is ', [s.smallest[index], `/similarity/smallest/${index}`], ' at every pos, to four decimals.']
            : [' positions pos it lies between ', [s.smallest[index], `/similarity/smallest/${index}`], ' and ',
              [s.largest[index], `/similarity/largest/${index}`], '.']),
        ]);
      } else {
        view.sentence('chosen', ['k = ', [k, '/shift/k'], ' lies beyond the offsets the program computes.']);
      }
      view.sentence('start', [
        'At k = 0 the dot product is ', [s.at_position_0[0], '/similarity/at_position_0/0'],
        ', one for each of the d_model / 2 pairs; d_model = ', [json.d_model, '/d_model'], '.',
      ]);
    },
  });
})();
