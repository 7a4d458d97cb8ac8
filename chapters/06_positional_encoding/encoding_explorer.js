// Chapter 6's first interactive figure: the sinusoidal encoding PE as the
// chapter's program (positional_encoding) computes it, for the positions and
// the width d_model the reader picks. A heatmap of the whole table, one row of
// it as numbers, and the pairs' wavelengths; all from the program's JSON.
(function () {
  // Every how-many-th label an axis of `count` bands keeps, so labels do not collide.
  const labelEvery = (count, room) => Math.max(1, Math.ceil(count / Math.max(1, Math.floor(room))));
  const POSITIONS = 16;  // the table's rows at first; the row slider's end follows the table's (render)
  // The position the reader last chose with the row slider: a table made shorter shows its last row for
  // a while, and a table that has the position again brings it back.
  let wanted = 3;

  Book.figure('encoding_explorer', {
    program: 'positional_encoding',
    // The browser's sine and cosine (musl's, compiled into the module) and the
    // native program's (glibc's) differ in the last bit for some angles, e.g.
    // sin 18; over every setting these controls reach, the page's numbers are
    // within 8.7e-13 of the native ones, relatively.
    tolerance: 1e-12,
    controls: [
      { name: 'positions', label: 'positions (--positions)', type: 'range', flag: '--positions', min: 1, max: 64, step: 1, value: POSITIONS },
      { name: 'd_model', label: 'width d_model (--d-model)', type: 'range', flag: '--d-model', min: 2, max: 32, step: 2, value: 16 },
      { name: 'row', label: 'position shown as numbers', type: 'range', min: 0, max: POSITIONS - 1, step: 1, value: wanted,
        changed: (values) => { wanted = Number(values.row); },
        help: 'from the first position to the last of the table' },
    ],
    render(json, view) {
      // The row slider runs from the table's first position to its last, so that all of its travel
      // shows another row; it shows the position chosen, or the table's last if the table is shorter.
      const row = Math.min(wanted, json.pe.length - 1);
      view.control('row').max = String(json.pe.length - 1);
      view.setControl('row', String(row));
      const cells = [];
      json.pe.forEach((row, position) => row.forEach((value, dimension) => cells.push({ position, dimension, value })));
      const dimensions = json.pe[0].map((_, j) => j);
      const positions = json.pe.map((_, i) => i);
      const box = view.slot('heatmap').parentElement.clientWidth || 360;
      const width = Math.min(560, Math.max(280, box - 8));
      const cell = Math.max(4, Math.min(16, Math.floor(420 / positions.length)));
      const everyX = labelEvery(dimensions.length, (width - 60) / 22);
      const everyY = labelEvery(positions.length, (cell * positions.length) / 14);
      // The row written out below as numbers, outlined across the map: white under black, seen on any colour,
      // drawn just outside the row (a negative inset) and thinner where cells are small, so the row shows whole.
      const outline = (stroke, strokeWidth) => window.Plot.cell([row], {
        y: (d) => d, fill: 'none', stroke, strokeWidth, insetTop: -strokeWidth / 2, insetBottom: -strokeWidth / 2,
      });
      const widthScale = cell >= 10 ? 1 : 0.5;
      const marginTop = 34;  // the rows' bands start below it, one cell high each
      view.plot('heatmap', {
        width,
        height: 50 + cell * positions.length,
        marginLeft: 44,
        marginTop,
        padding: 0,
        // Not rounded to whole pixels, so that the cells fill the frame the row's outline spans.
        x: { type: 'band', domain: dimensions, round: false, axis: 'top', label: 'dimension →', tickFormat: (d) => (d % everyX === 0 ? d : '') },
        y: { type: 'band', domain: positions, label: '↓ position', tickFormat: (d) => (d % everyY === 0 ? d : '') },
        color: { type: 'linear', scheme: 'rdbu', reverse: true, domain: [-1, 1], legend: false },
        marks: [
          window.Plot.cell(cells, {
            x: 'dimension', y: 'position', fill: 'value',
            // Edges snapped to whole pixels: cells a fraction of a pixel apart left pale seams between rows.
            shapeRendering: 'crispEdges',
            title: (d) => `PE(${d.position}, ${d.dimension}) = ${view.numberText(d.value)}`,
          }),
          outline('white', 4 * widthScale),
          outline('black', 2 * widthScale),
        ],
      });
      // A click or a tap on a row writes that row out, as the row slider does: a phone shows no hover title.
      // The pointer's height is measured in the map's own units (a narrow screen may draw it smaller).
      const map = view.slot('heatmap').querySelector('svg');
      map.style.cursor = 'pointer';
      map.addEventListener('click', (event) => {
        const box = map.getBoundingClientRect();
        const y = (event.clientY - box.top) * Number(map.getAttribute('height')) / box.height;
        const position = Math.floor((y - marginTop) / cell);
        if (position >= 0 && position < positions.length) view.drive({ row: String(position) });
      });
      const parts = [`The outlined row: PE(${row}) = (`];
      json.pe[row].forEach((value, j) => {
        if (j > 0) parts.push(', ');
        parts.push([value, `/pe/${row}/${j}`]);
      });
      parts.push(')');
      view.sentence('row', parts);
      const wavelengths = [json.pairs.length === 1 ? 'Wavelength of the one pair, in units of 2π: '
        : 'Wavelengths of the pairs (columns 0–1, 2–3, …), in units of 2π: '];
      json.pairs.forEach((pair, i) => {
        if (i > 0) wavelengths.push(', ');
        wavelengths.push([pair.wavelength_over_2pi, `/pairs/${i}/wavelength_over_2pi`]);
      });
      // With one pair (d_model = 2) there is no "one before".
      if (json.pairs.length > 1) wavelengths.push('; each is ', [json.wavelength_ratio, '/wavelength_ratio'], ' times the one before.');
      else wavelengths.push('.');
      view.sentence('wavelengths', wavelengths);
    },
  });
})();
