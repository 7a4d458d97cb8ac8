// Chapter 4's interactive figure: choose the mask (none, causal, a band of
// radius R, padding with N real keys) and the fill written into the masked
// scores; the chapter's program (masking) computes the weights, says which
// rows have nothing left to look at, and compares the fill with −∞ and the
// usual finite fills. Queries, keys and values are editable as text.
(function () {
  const FILLS = ['-inf', '-1e9', '-1000', '-10', '-5', '-1', '0'];

  // The select and the slider write the --mask text; the text, typed, moves them back.
  const composeMask = (values, set) => {
    let parameter = Number(values.parameter);
    if (values.kind === 'pad') {
      // pad:N needs N ≤ the number of keys; keep the slider where the program accepts it. A K with a blank
      // row, which the program refuses, moves nothing.
      const keys = Book.matrixRowCount(values.k);
      if (keys !== null) parameter = Math.min(parameter, keys);
      set('parameter', parameter);
    }
    set('mask', values.kind === 'band' || values.kind === 'pad' ? `${values.kind}:${parameter}` : values.kind);
  };
  // A --mask text as the select's kind and the slider's R or N (undefined where it says neither).
  const maskKind = (text) => /^\s*(band|pad):\d+\s*$/.exec(text)?.[1] ??
    (['none', 'causal'].includes(text.trim()) ? text.trim() : undefined);
  const maskParameter = (text) => /^\s*(?:band|pad):(\d+)\s*$/.exec(text)?.[1];
  const readMask = (values, set) => {
    const kind = maskKind(values.mask);
    if (kind) set('kind', kind);
    const parameter = maskParameter(values.mask);
    if (parameter !== undefined) set('parameter', Math.min(Number(parameter), 4));
  };
  const chooseFill = (values, set) => { if (values.fill_choice !== 'typed') set('fill', values.fill_choice); };
  const fillChoice = (text) => (FILLS.includes(text.trim()) ? text.trim() : 'typed');
  const readFill = (values, set) => set('fill_choice', fillChoice(values.fill));

  // Removes the slots a previous, longer answer drew (say, a fifth fill).
  const dropSlots = (view, prefix, keep) => {
    const output = view.slot('weights_heatmap').parentElement;
    for (const box of output.querySelectorAll(`[data-slot^="${prefix}"]`)) {
      if (!keep.includes(box.dataset.slot)) box.remove();
    }
  };
  // A fill as a label: −∞, −1000, and a huge one as −1e9 (not −1000000000).
  const fillText = (fill) => {
    if (fill === '-inf') return '−∞';
    if (typeof fill !== 'number') return String(fill);
    const text = Math.abs(fill) >= 1e5 ? fill.toExponential().replace('e+', 'e') : String(fill);
    return text.replace('-', '−');
  };

  Book.figure('mask_explorer', {
    program: 'masking',
    controls: [
      { name: 'kind', label: 'Mask', type: 'select', value: (defaults) => maskKind(defaults['--mask']), changed: composeMask,
        options: [['none', 'none'], ['causal', 'causal'], ['band', 'band of radius R'], ['pad', 'padding: N real keys']] },
      { name: 'parameter', label: 'band radius R, or real keys N', type: 'range', min: 0, max: 4, step: 1, value: 1, changed: composeMask,
        help: 'the band\'s radius, or how many keys are real (none and causal have neither)' },
      { name: 'mask', label: 'Mask (--mask)', type: 'text', belowOnPhones: true, flag: '--mask', changed: readMask,
        samples: ['band:0', 'pad:2', 'none'], bad: ['band:-1', 'diagonal'],
        help: 'none, causal, band:R or pad:N' },
      { name: 'fill_choice', label: 'Fill', type: 'select', value: (defaults) => fillChoice(defaults['--fill']), changed: chooseFill,
        options: [...FILLS.map((fill) => [fill, fill.replace('-', '−').replace('inf', '∞')]), ['typed', 'as typed below']] },
      { name: 'fill', label: 'Fill (--fill)', type: 'text', belowOnPhones: true, flag: '--fill', changed: readFill,
        samples: ['-10', '-3', '-1e9'], bad: ['minus ten', 'nan'] },
      { name: 'q', label: 'Queries Q (--q)', type: 'text', belowOnPhones: true, flag: '--q',
        samples: ['-1000,0;0,1;1,1', '3,0;0,3;1,-1'], bad: ['1,x;0,1;1,1', '1,0;0;1,1', '1;0;1'],
        help: Book.matrixFormat },
      { name: 'k', label: 'Keys K (--k)', type: 'text', belowOnPhones: true, flag: '--k',
        samples: ['1,0;0,1;1,1', '2,0;0,2;-1,1'], bad: ['2,0;0,x;1,1', '2,0,1;0,1,0;1,1,1'] },
      { name: 'v', label: 'Values V (--v)', type: 'text', belowOnPhones: true, flag: '--v',
        samples: ['1,0;0,1;9,-9', '1;2;3'], bad: ['1,0;0,1;x,1', '1,0;0,1'] },
    ],
    render(json, view) {
      // The radius slider sets nothing under no mask or the causal one: dimmed there, still movable.
      // Only the slider and its value are dimmed: the label, and the help line that says why, stay legible.
      const slider = view.control('parameter');
      const inert = !['band', 'pad'].includes(maskKind(json.mask_spec));
      slider.setAttribute('aria-disabled', String(inert));
      for (const part of [slider, slider.closest('.interactive-control').querySelector('output')]) {
        if (part) part.style.opacity = inert ? '0.5' : '';
      }
      const rows = json.query_tokens;
      const columns = json.key_tokens;
      const cells = [];
      json.weights.forEach((row, i) => row.forEach((value, j) => {
        cells.push({ row: rows[i], column: columns[j], value, masked: !json.mask[i][j] });
      }));
      const size = Math.max(34, Math.min(64, Math.floor((view.slot('weights_heatmap').parentElement.clientWidth - 80) / columns.length)));
      const color = { scheme: 'blues', domain: [0, 1] };
      const ink = view.ink(color);
      view.plot('weights_heatmap', {
        caption: `Weights under the mask ${json.mask_spec}: dashed cells are masked`,
        ariaLabel: `Weights under the mask ${json.mask_spec}, rows: queries, columns: keys`,
        width: 80 + size * columns.length,
        height: 52 + size * rows.length,
        marginLeft: 70,
        marginTop: 42,
        padding: 0.04,
        // Named on the map itself, which way is which: keys along the top, queries down the side.
        x: { domain: columns, axis: 'top', label: 'key', tickSize: 0 },
        y: { domain: rows, label: 'query', tickSize: 0 },
        color,
        marks: [
          window.Plot.cell(cells, { x: 'column', y: 'row', fill: 'value', inset: 0.5 }),
          window.Plot.cell(cells.filter((d) => d.masked), { x: 'column', y: 'row', fill: 'none', stroke: '#d62728', strokeWidth: 2, strokeDasharray: '4,3', inset: 2 }),
          window.Plot.text(cells, { x: 'column', y: 'row', text: (d) => view.numberText(d.value, 3), fill: (d) => ink(d.value) }),
        ],
      });
      view.matrix('weights', json.weights, {
        title: 'Weights: softmax of each row of the masked scores',
        rows, columns, pointer: '/weights',
      });
      view.sentence('mask_summary', [
        `${json.mask_description}: `, [json.allowed_entries, '/allowed_entries'],
        json.allowed_entries === 1 ? ' entry allowed, ' : ' entries allowed, ',
        [json.masked_entries, '/masked_entries'], ' masked. Row sums: ',
        ...json.row_sums.flatMap((sum, i) => [i ? ', ' : '', [sum, `/row_sums/${i}`]]), '.',
      ]);
      const empty = json.fully_masked_rows;
      view.sentence('fully_masked', empty.length === 0
        ? ['No row is fully masked: every query has at least one key to look at.']
        : [empty.length === 1 ? 'Fully masked row (no key to look at; weights ' : 'Fully masked rows (no key to look at; weights ',
          json.fill === '-inf' ? 'all 0, output 0): ' : 'averaged over the forbidden keys, because the fill is finite): ',
          ...empty.flatMap((row, i) => [i ? ', ' : '', [rows[row], `/query_tokens/${row}`]]), '.']);
      view.matrix('output', json.output, {
        title: 'Output = weights · V',
        rows, columns: json.output[0].map((_, j) => `d${j + 1}`), pointer: '/output',
      });

      // The leak: the most any masked key receives, for −∞ and each finite fill.
      // The fill the weights above use is marked "in use" on its row: the plot compares it with the others.
      const leaks = json.leak.map((entry, i) => ({ ...entry, index: i,
        label: `${fillText(entry.fill)}${entry.fill === json.fill ? ' (in use)' : ''}` }));
      const positive = leaks.filter((d) => d.largest_masked_weight > 0);
      const zero = leaks.filter((d) => d.largest_masked_weight === 0);
      const smallest = Math.min(1e-6, ...positive.map((d) => d.largest_masked_weight));
      view.plot('fills_plot', {
        caption: 'Largest weight on a masked key, per fill (log scale; "exactly 0" where nothing leaks)',
        width: 420,
        height: 90 + 22 * leaks.length,
        // Room for the longest fill's label, "−1e9 (in use)" or a longer typed fill (about 7 px a character).
        marginLeft: Math.max(70, 16 + 7 * Math.max(...leaks.map((d) => d.label.length))),
        marginRight: 70,
        x: { type: 'log', domain: [smallest / 3, 1.5], label: 'largest masked weight', grid: true, tickFormat: Book.powerOfTen },
        // No tick marks: after a negative fill, a tick reads as one more minus sign.
        y: { domain: leaks.map((d) => d.label), label: 'fill', tickSize: 0 },
        marks: [
          window.Plot.dot(positive, { x: 'largest_masked_weight', y: 'label', fill: '#d62728', r: 5 }),
          window.Plot.text(positive, { x: 'largest_masked_weight', y: 'label', text: (d) => Book.formatNumber(d.largest_masked_weight, '.2e'), dx: 8, textAnchor: 'start' }),
          // On a white ground (the plots' own), so that the gridline it sits across does not run through it.
          window.Plot.text(zero, { x: smallest / 3, y: 'label', text: () => 'exactly 0', textAnchor: 'start', dx: 4, fill: 'currentColor', stroke: 'white', strokeWidth: 5 }),
        ],
      });
      const shown = leaks.map((entry) => {
        const name = `leak_${entry.index}`;
        const pointer = `/leak/${entry.index}`;
        const parts = [`Fill ${entry.label}: `];
        if (json.masked_entries === 0) {
          parts.push('nothing is masked, so the fill changes nothing');
        } else if (entry.largest_masked_weight === 0) {
          parts.push('every masked weight is ', [0, `${pointer}/largest_masked_weight`], ' exactly');
        } else if (entry.largest_masked_weight >= 5e-5) {
          parts.push([entry.query, `${pointer}/query`], ' gives ', [entry.key, `${pointer}/key`], ', which it must not see, a weight of ',
            [entry.largest_masked_weight, `${pointer}/largest_masked_weight`]);
        } else {
          parts.push([entry.query, `${pointer}/query`], ' gives ', [entry.key, `${pointer}/key`],
            ', which it must not see, a weight too small for four decimals (in the plot)');
        }
        if (typeof entry.smallest_gap === 'number') parts.push('; gap (largest allowed score minus the fill, smallest over the rows) ', [entry.smallest_gap, `${pointer}/smallest_gap`, 2]);
        parts.push('.');
        view.sentence(name, parts);
        return name;
      });
      dropSlots(view, 'leak_', [...shown]);
      // Keep the boxes in reading order (a fill added later would land last).
      const output = view.slot('weights_heatmap').parentElement;
      for (const name of ['weights_heatmap', 'weights', 'mask_summary', 'fully_masked', 'output', 'fills_plot', ...shown]) {
        output.append(view.slot(name));
      }
    },
  });
})();
