// Chapter 10's interactive figure: choose which entry of the output is the
// loss (its row and column) and whether the causal mask is on; the chapter's
// program (backward_pass) follows that one number back through attention and
// returns dW, dS, dQ, dK and dV, drawn here as tables and dS as a map, and
// how far each of dQ, dK and dV is from central finite differences of the loss
// (a relative difference near 1e-11, written as the prose writes it: ".1e").
// Queries, keys and values are editable as text.
(function () {
  // A slider's last step follows the matrices as typed, its value taken down with it: typed with fewer
  // rows (or value columns) than the slider shows, the matrices would otherwise be refused for the
  // slider's number, a mistake the reader did not make. The row and column the reader last chose with
  // the sliders (at first, where they started) come back when the matrices have them again: a field
  // updates as the reader types, through shorter matrices.
  const wanted = { row: null, column: null };
  const choose = (name) => (values) => { wanted[name] = Number(values[name]); };
  const reach = (set, view, name, count) => {
    const slider = view.control(name);
    wanted[name] ??= Number(slider.value);
    slider.max = String(count);
    set(name, String(Math.min(wanted[name], count)));
  };
  const followQ = (values, set, defaults, view) => reach(set, view, 'row', Book.matrixRows(values.q).length);
  const followV = (values, set, defaults, view) => reach(set, view, 'column', Book.matrixRows(values.v)[0].split(',').length);

  Book.figure('gradient_explorer', {
    program: 'backward_pass',
    // The figure shows the walkthrough only: the random check and the sweep are left to the page's tables.
    arguments(values) {
      return ['--row', String(values.row), '--column', String(values.column), ...(values.causal ? ['--causal'] : []),
        '--q', values.q, '--k', values.k, '--v', values.v, '--no-check'];
    },
    controls: [
      { name: 'row', label: 'Loss row (--row, the query)', type: 'range', flag: '--row', min: 1, max: 3, step: 1,
        changed: choose('row') },
      { name: 'column', label: 'Loss column (--column)', type: 'range', flag: '--column', min: 1, max: 2, step: 1,
        changed: choose('column') },
      { name: 'causal', label: 'Causal mask (--causal)', type: 'checkbox', flag: '--causal', value: false },
      { name: 'q', label: 'Queries Q (--q)', type: 'text', flag: '--q', changed: followQ,
        samples: ['3,0;0,3;1,-1', '0,0;0,0;0,0'], bad: ['1,x;0,1;1,1', '1,0,0;0,1;1,1'],
        help: Book.matrixFormat },
      { name: 'k', label: 'Keys K (--k)', type: 'text', flag: '--k',
        samples: ['1,0;0,1;1,1', '2,0;0,2;-1,1'], bad: ['2,0;0,x;1,1', '2,0,1;0,1,0;1,1,1'] },
      { name: 'v', label: 'Values V (--v)', type: 'text', flag: '--v', changed: followV,
        samples: ['1,0;0,1;9,-9', '0.718,0;0,1;0.5,0.5'], bad: ['1,0;0,1;x,1', '1,0;0,1'] },
    ],
    render(json, view) {
      const rows = json.query_tokens;
      const keys = json.key_tokens;
      const width = json.queries[0].map((_, j) => `d${j + 1}`);
      const valueColumns = json.values[0].map((_, j) => `d${j + 1}`);
      const g = json.gradients;
      // The loss's sliders reach the last query and the last value column of the matrices as typed.
      view.control('row').max = String(rows.length);
      view.control('column').max = String(valueColumns.length);
      view.sentence('loss', [
        `L = O[${rows[json.loss_row]}][d${json.loss_column + 1}] = `, [json.loss, '/loss'],
        json.causal ? ', under the causal mask. ' : ', without a mask. ',
        json.causal ? 'Masked entries: ' : '',
        ...(json.causal ? [[json.masked_entries, '/masked_entries'], '; the largest |dS| among them: ',
          [json.largest_masked_score_gradient, '/largest_masked_score_gradient'], '.'] : []),
      ]);
      // dS as a map: blue where raising the score would raise L, red where it would lower it.
      const cells = [];
      g.scores.forEach((row, i) => row.forEach((value, j) => {
        cells.push({ row: rows[i], column: keys[j], value, masked: !json.mask[i][j] });
      }));
      const largest = Math.max(1e-12, ...cells.map((d) => Math.abs(d.value)));
      const output = view.slot('loss').parentElement;
      const size = Math.max(34, Math.min(64, Math.floor((output.clientWidth - 80) / keys.length)));
      const color = { type: 'linear', scheme: 'rdbu', domain: [largest, -largest] };
      const ink = view.ink(color);
      view.plot('scores_map', {
        title: 'dS, the gradient of each scaled score, rows: queries, columns: keys (blue: raising the score raises L; red: lowers it; dashed: masked, exactly 0)',
        width: 80 + size * keys.length,
        height: 40 + size * rows.length,
        marginLeft: 70,
        padding: 0.04,
        x: { domain: keys, axis: 'top', label: null },
        y: { domain: rows, label: null },
        color,
        marks: [
          window.Plot.cell(cells, { x: 'column', y: 'row', fill: 'value', inset: 0.5 }),
          window.Plot.cell(cells.filter((d) => d.masked), { x: 'column', y: 'row', fill: 'none', stroke: '#555', strokeWidth: 2, strokeDasharray: '4,3', inset: 2 }),
          window.Plot.text(cells, { x: 'column', y: 'row', text: (d) => view.numberText(d.value, 3), fill: (d) => ink(d.value) }),
        ],
      });
      view.matrix('weights', json.weights, { title: 'Weights W', rows, columns: keys, pointer: '/weights' });
      view.matrix('d_weights', g.weights, { title: 'dW = dO·Vᵀ', rows, columns: keys, pointer: '/gradients/weights' });
      view.matrix('d_scores', g.scores, { title: 'dS = W ⊙ (dW − rowsum(dW ⊙ W))', rows, columns: keys, pointer: '/gradients/scores' });
      view.matrix('d_queries', g.queries, { title: 'dQ = dS·K/√dₖ', rows, columns: width, pointer: '/gradients/queries' });
      view.matrix('d_keys', g.keys, { title: 'dK = dSᵀ·Q/√dₖ', rows: keys, columns: width, pointer: '/gradients/keys' });
      view.matrix('d_values', g.values, { title: 'dV = Wᵀ·dO', rows: keys, columns: valueColumns, pointer: '/gradients/values' });
      const check = json.toy_check;
      view.sentence('toy_check', [
        'With each entry of Q, K and V moved up and down by h = ', [check.step, '/toy_check/step', '.0e'],
        ', the largest relative differences from these gradients are ',
        [check.queries, '/toy_check/queries', '.1e'], ' for dQ, ', [check.keys, '/toy_check/keys', '.1e'],
        ' for dK and ', [check.values, '/toy_check/values', '.1e'], ' for dV.',
      ]);
    },
  });
})();
