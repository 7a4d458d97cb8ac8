// Chapter 12's interactive figure: step through the tiles of the streaming
// kernel on a small example and watch each query's running maximum M,
// running sum L and output so far change. The chapter's program
// (fast_attention, its trace) computes every state; the page only picks the
// step to show and draws it.
(function () {
  // The toy is the program's defaults (--tokens, --q, --k, --v); the other example is the figure's own.
  const EXAMPLES = {
    eight: {
      tokens: 't1,t2,t3,t4,t5,t6,t7,t8',
      q: '0.5,-1;1.5,0.2;-0.3,0.8;2,1;0,-2;1,1;-1.5,0.5;0.3,0.3',
      k: '0.1,0.2;-1,0.5;0.7,-0.4;1.2,2;-0.5,-0.5;2.5,0.1;0,1;3,3',
      v: '1,0;0,1;1,1;2,0;0,2;-1,1;1,-1;0.5,0.5',
    },
  };
  // The tile sliders' ends: a tile holds at most this many keys, and this many queries.
  const ENDS = { tile: 4, query_tile: 8 };
  // What the reader last asked of each tile slider; a slider at its end asks for "all of them in one tile",
  // as the queries' slider does at first.
  const wanted = { tile: null, query_tile: ENDS.query_tile };
  const ask = (name) => (values, set, defaults, view) => {
    const value = Number(values[name]);
    wanted[name] = value >= Number(view.control(name).max) ? ENDS[name] : value;
  };
  // Each tile slider ends at this example's keys or queries: past them a tile holds them all, and a move
  // would change nothing.
  const showEnds = (view, keys, queries) => {
    const ends = { tile: Math.min(ENDS.tile, keys), query_tile: Math.min(ENDS.query_tile, queries) };
    for (const [name, end] of Object.entries(ends)) view.control(name).max = String(end);
    return ends;
  };
  // New K or Q: the ends move, and each slider shows what the reader asked for, as far as its end allows. Rows
  // are counted as the program counts them; a matrix with an empty row, which it refuses, moves nothing.
  const fitTiles = (q, k, values, set, view) => {
    const [keys, queries] = [Book.matrixRowCount(k), Book.matrixRowCount(q)];
    if (keys === null || queries === null) return;
    const ends = showEnds(view, keys, queries);
    for (const [name, end] of Object.entries(ends)) set(name, String(Math.min(wanted[name] ?? Number(values[name]), end)));
  };
  // (Before the program's defaults have come, the page is still loading: the hooks wait for them.)
  // A typed field makes the example the reader's own: choosing the toy again then brings it back.
  const typed = (values, set) => set('example', 'typed');
  const chooseExample = (values, set, defaults, view) => {
    if (!defaults['--q'] || values.example === 'typed') return;
    const chosen = values.example === 'toy' ? (name) => defaults[`--${name}`] : (name) => EXAMPLES[values.example][name];
    for (const name of ['tokens', 'q', 'k', 'v']) set(name, chosen(name));
    fitTiles(chosen('q'), chosen('k'), values, set, view);
  };
  const fitToMatrices = (values, set, defaults, view) => {
    typed(values, set);
    if (defaults['--q']) fitTiles(values.q, values.k, values, set, view);
  };
  const COLOURS = { current: '#1f77b4', done: '#aec7e8', waiting: '#f2f2f2', skipped: '#ffffff' };

  Book.figure('tile_stepper', {
    program: 'fast_attention',
    tolerance: 1e-12,
    controls: [
      { name: 'example', label: 'Example', type: 'select', value: 'toy', changed: chooseExample,
        options: [['toy', 'the toy: cat, eat, fish'], ['eight', 'eight tokens'], ['typed', 'your own, typed below']] },
      { name: 'tile', label: 'Keys per tile (--tile)', type: 'range', flag: '--tile', min: 1, max: ENDS.tile, step: 1,
        changed: ask('tile'), help: `up to ${ENDS.tile}, and no more than the number of keys` },
      { name: 'query_tile', label: 'Queries per tile (--query-tile)', type: 'range', flag: '--query-tile',
        min: 1, max: ENDS.query_tile, step: 1, changed: ask('query_tile'),
        value: (defaults) => String(Math.min(ENDS.query_tile, Book.matrixRowCount(defaults['--q']))),
        help: `up to ${ENDS.query_tile}, and no more than the number of queries` },
      { name: 'mask', label: 'Mask (--mask)', type: 'select', flag: '--mask',
        options: [['none', 'none'], ['causal', 'causal']] },
      { name: 'step', label: 'Show the state after tile', type: 'range', min: 1, max: 64, step: 1, value: 2,
        help: 'from the first tile to the last of this example' },
      { name: 'tokens', label: 'Tokens (--tokens)', type: 'text', belowOnPhones: true, flag: '--tokens', changed: typed,
        samples: ['a,b,c'], bad: ['a,b'] },
      { name: 'q', label: 'Queries Q (--q)', type: 'text', belowOnPhones: true, flag: '--q', changed: fitToMatrices,
        samples: ['3,0;0,3;1,-1'], bad: ['1,x;0,1;1,1', '1,0;0;1,1'], help: `${Book.matrixFormat}: at most 12 rows, one token name per row, as wide as K (causal: as many rows as K)` },
      { name: 'k', label: 'Keys K (--k)', type: 'text', belowOnPhones: true, flag: '--k', changed: fitToMatrices,
        samples: ['0,0;0,0;5,5'], bad: ['2,0;0,x;1,1', '2,0,1;0,1,0;1,1,1'] },
      { name: 'v', label: 'Values V (--v)', type: 'text', belowOnPhones: true, flag: '--v', changed: typed,
        samples: ['1;2;3'], bad: ['1,0;0,1;x,1', '1,0;0,1', '1e308;1e308;1e308'] },
    ],
    render(json, view, current) {
      const trace = json.trace;
      showEnds(view, trace.key_tokens.length, trace.query_tokens.length);
      const steps = trace.steps;
      const index = Math.min(Number(current.step), steps.length) - 1;
      // The slider runs from the first tile to the last of this example, so that all of its travel shows a tile.
      const slider = view.control('step');
      if (slider.max !== String(steps.length)) {
        slider.max = String(steps.length);
        view.setControl('step', String(index + 1));
      }
      const step = steps[index];
      const base = `/trace/steps/${index}`;
      const queries = trace.query_tokens;
      const keys = trace.key_tokens;
      const rows = step.scores.length;
      const columns = step.scores[0].length;

      // The grid of query tiles × key tiles: which are done, which is being
      // folded in, which wait, which the causal mask skips.
      const status = (qt, kt) => {
        if (trace.skipped.some(([a, b]) => a === qt && b === kt)) return 'skipped';
        const at = steps.findIndex((s) => s.query_tile === qt && s.key_tile === kt);
        if (at === index) return 'current';
        return at < index ? 'done' : 'waiting';
      };
      const cells = [];
      queries.forEach((query, i) => keys.forEach((key, j) => {
        const kind = status(Math.floor(i / trace.query_tile), Math.floor(j / trace.key_tile));
        cells.push({ query, key, kind });
      }));
      // Labels at 12 px; the axes' names a line clear of the tokens: "keys" above the column labels,
      // "queries" left of the row labels.
      const size = Math.max(24, Math.min(40, Math.floor((view.slot('grid').parentElement.clientWidth - 90) / keys.length)));
      const axis = { tickSize: 0, tickPadding: 6, fontSize: 12, labelArrow: 'none' };
      view.plot('grid', {
        caption: `Tile ${index + 1} of ${steps.length} visited` +
          (trace.skipped.length ? `; ${trace.skipped.length} skipped (wholly masked, crossed)` : ''),
        width: 90 + size * keys.length,
        height: 60 + size * queries.length,
        marginTop: 50,
        marginBottom: 10,
        marginLeft: 80,
        marginRight: 10,
        style: { color: '#1a1a1a' },
        x: { domain: keys },
        y: { domain: queries },
        marks: [
          window.Plot.axisX({ ...axis, anchor: 'top', label: 'keys', labelOffset: 40 }),
          window.Plot.axisY({ ...axis, label: 'queries', labelOffset: 70 }),
          window.Plot.cell(cells, { x: 'key', y: 'query', fill: (d) => COLOURS[d.kind], stroke: '#999', strokeWidth: 0.5, inset: 0.5 }),
          window.Plot.text(cells.filter((d) => d.kind === 'skipped'), { x: 'key', y: 'query', text: () => '╳', fill: '#bbb' }),
        ],
      });

      const tileQueries = queries.slice(step.first_query, step.first_query + rows);
      const tileKeys = keys.slice(step.first_key, step.first_key + columns);
      view.matrix('scores', step.scores, {
        title: 'This tile\'s scores s = q·k / √dₖ (−∞: masked)', rows: tileQueries, columns: tileKeys, pointer: `${base}/scores`,
      });
      view.matrix('exponentials', step.exponentials, {
        title: 'e^(s − M), where M is the new running maximum', rows: tileQueries, columns: tileKeys, pointer: `${base}/exponentials`,
      });
      // Every query's running state after this tile; queries whose tile has not started yet have none.
      queries.forEach((query, i) => {
        const name = `state_${i}`;
        if (step.maximum[i] === null) {
          view.sentence(name, [`${query}: not started yet.`]);
          return;
        }
        const inTile = i >= step.first_query && i < step.first_query + rows;
        // A maximum that this tile moved (as far as the page's four decimals show) is said so, with the value
        // before it (the state after the tile before): what the rescaling is for.
        const before = inTile && index > 0 ? steps[index - 1].maximum[i] : null;
        const moved = before !== null && view.numberText(before) !== view.numberText(step.maximum[i]);
        view.sentence(name, [
          ...(moved ? [`${query}: M rose from `, [before, `/trace/steps/${index - 1}/maximum/${i}`], ' to ']
            : [`${query}: M = `]),
          [step.maximum[i], `${base}/maximum/${i}`], ', L = ', [step.sum[i], `${base}/sum/${i}`],
          ...(inTile ? [', rescaled by ', [step.rescale[i - step.first_query], `${base}/rescale/${i - step.first_query}`]] : [' (done)']),
          ', O / L so far (', ...step.output[i].flatMap((x, j) => [j ? ', ' : '', [x, `${base}/output/${i}/${j}`]]), ').',
        ]);
      });
      // Drop the sentences of a longer example shown before.
      const output = view.slot('grid').parentElement;
      for (const box of output.querySelectorAll('[data-slot^="state_"]')) {
        if (Number(box.dataset.slot.slice(6)) >= queries.length) box.remove();
      }
      view.matrix('teaching', trace.teaching_output, {
        title: 'The teaching version\'s output, for comparison', rows: queries,
        columns: trace.teaching_output[0].map((_, j) => `d${j + 1}`), pointer: '/trace/teaching_output',
      });
      // Each query's running state right under the grid, beside the slider that moves it; the tile's
      // scores and exponentials after it.
      for (const name of ['grid', ...queries.map((_, i) => `state_${i}`), 'scores', 'exponentials', 'teaching']) {
        output.append(view.slot(name));
      }
    },
  });
})();
