// Chapter 15's interactive figure: a query at position m and a key at position
// n, each turned by its position, as the chapter's program (rotary_positions,
// with --no-training) turns them. Left, the first pair of coordinates of each,
// before (pale) and after the turn (the same hues, full); right, the score of
// the turned pair against the offset m − n, with the reader's offset marked.
// Moving m and n together (a button moves both by up to 5) turns both arrows and leaves the score where it was.
// The page computes no turn and no score; they are the JSON's.
(function () {
  const LARGEST_OFFSET = 40;
  const STEP = 5;
  // How far both positions can move on together: 5, or less near the sliders' end (0 at it).
  const room = (values) => Math.max(0, Math.min(STEP, LARGEST_OFFSET - Math.max(Number(values.m), Number(values.n))));
  const moveLabel = (by) => (by === STEP ? `Add ${STEP} to m and n`
    : by > 0 ? `Add ${by} to m and n (to the sliders' end)`
      : `m or n at the end (${LARGEST_OFFSET}): move one back`);
  const arrow = (vector, label, colour, labelColour = colour) => ({ x2: vector[0], y2: vector[1], label, colour, labelColour });

  Book.figure('turn_explorer', {
    program: 'rotary_positions',
    // The browser's sine and cosine (musl's) and the native program's (glibc's) can differ in the last bit.
    tolerance: 1e-12,
    controls: [
      { name: 'm', label: 'query position m', type: 'range', min: 0, max: LARGEST_OFFSET, step: 1, value: 5 },
      { name: 'n', label: 'key position n', type: 'range', min: 0, max: LARGEST_OFFSET, step: 1, value: 3 },
      // Both positions on by the same amount, which the caption asks the reader to try: by 5, or,
      // near the sliders' end, by what is left before the farther one reaches it, so that the offset
      // m − n never changes. At the end the button is dimmed and says so (render, below).
      { name: 'both', label: moveLabel(STEP), type: 'button', presses: 3,
        onClick: (values, set) => {
          const m = Number(values.m);
          const n = Number(values.n);
          const by = room(values);
          set('m', m + by);
          set('n', n + by);
        } },
      { name: 'q', label: 'Query q (--q)', type: 'text', belowOnPhones: true, flag: '--q', value: '1,1',
        help: 'an even number of entries; the arrows show the first two', samples: ['1,0', '0,2'], bad: ['1,2,3', ''] },
      { name: 'k', label: 'Key k (--k)', type: 'text', belowOnPhones: true, flag: '--k', value: '2,0', samples: ['0,1', '-1,1'],
        help: 'as many entries as the query' },
    ],
    arguments(values) {
      return ['--no-training', '--q', values.q, '--k', values.k, '--placements', `${values.m},${values.n}`,
        '--largest-offset', String(LARGEST_OFFSET)];
    },
    render(json, view, values) {
      // The button says how far a press moves both positions, and is dimmed when they cannot move on.
      const both = view.control('both');
      both.textContent = moveLabel(room(values));
      both.setAttribute('aria-disabled', String(room(values) === 0));
      const turn = json.turn;
      const placed = turn.placements[0];
      const offset = placed.offset;
      const arrows = [
        // Before the turn, paler versions of the turned arrows' colours: each arrow's hue names q or k.
        // Their labels in the full colours, which read on white where the pale ones do not.
        arrow(turn.query, 'q', '#8dbbe0', '#1f77b4'), arrow(turn.key, 'k', '#ec9494', '#d62728'),
        arrow(placed.turned_query, `q at ${placed.query_position}`, '#1f77b4'),
        arrow(placed.turned_key, `k at ${placed.key_position}`, '#d62728'),
      ];
      // A zero arrow has no length to scale by: the plane then reaches 1, and the arrows sit at its centre.
      const longest = Math.max(...arrows.map((a) => Math.hypot(a.x2, a.y2)));
      const reach = (longest > 0 ? longest : 1) * 1.45;
      view.plot('arrows', {
        title: 'The first pair of coordinates, before (faded) and after turning clockwise by m and n radians',
        width: 280,
        height: 280,
        x: { domain: [-reach, reach], label: null },
        y: { domain: [-reach, reach], label: null },
        marks: [
          window.Plot.ruleX([0], { stroke: '#cccccc' }),
          window.Plot.ruleY([0], { stroke: '#cccccc' }),
          window.Plot.arrow(arrows, { x1: 0, y1: 0, x2: 'x2', y2: 'y2', stroke: 'colour', strokeWidth: 2 }),
          // Each label just past its arrow's tip, along the arrow, so that no label sits on an arrow. An arrow of
          // length 0 has no tip to label: its label would pile onto the others at the centre.
          ...['start', 'end'].map((side) => window.Plot.text(arrows.filter((a) => (a.x2 !== 0 || a.y2 !== 0)
            && (a.x2 < 0) === (side === 'end')),
            { x: (a) => a.x2 * 1.15, y: (a) => a.y2 * 1.15, text: 'label', fill: 'labelColour', textAnchor: side })),
        ],
      });
      const points = turn.offsets.map((o, i) => ({ offset: o, score: turn.scores[i] }));
      const wave = turn.wave_offsets.map((o, i) => ({ offset: o, score: turn.wave_scores[i] }));
      const index = turn.offsets.indexOf(offset);
      const chosen = index >= 0 ? [points[index]] : [];
      view.plot('curve', {
        title: 'turned q · turned k against the offset m − n',
        height: 240,
        marginLeft: 44,
        x: { label: 'offset m − n →', grid: true },
        y: { label: '↑ score', grid: true },
        marks: [
          window.Plot.ruleY([0], { stroke: '#999999' }),
          window.Plot.line(wave, { x: 'offset', y: 'score', stroke: '#1f4e8c', strokeWidth: 1.2 }),
          window.Plot.dot(points, { x: 'offset', y: 'score', fill: '#1f4e8c', r: 1.6 }),
          window.Plot.ruleX(chosen, { x: 'offset', stroke: '#c0392b', strokeDasharray: '4 3' }),
          window.Plot.dot(chosen, { x: 'offset', y: 'score', fill: '#c0392b', r: 4 }),
        ],
      });
      view.sentence('score', [
        'The query at ', [placed.query_position, '/turn/placements/0/query_position'],
        ' and the key at ', [placed.key_position, '/turn/placements/0/key_position'],
        ': the offset m − n is ', [offset, '/turn/placements/0/offset'], '. Turned, their score is ',
        [placed.score, '/turn/placements/0/score'], '; unturned it was ', [turn.unturned_score, '/turn/unturned_score'],
        // Wider than one pair, the score sums every pair's product, and the arrows show only the first pair.
        turn.query.length > 2
          ? ` (summed over ${turn.query.length === 4 ? 'both' : `all ${turn.query.length / 2}`} pairs; the arrows show the first only)` : '',
        '. Move m and n by the same amount and the score stays.',
      ]);
    },
  });
})();
