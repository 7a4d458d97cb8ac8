// Chapter 3's toy, interactive: choose the word that asks, move its query
// (two sliders rewrite its row of --q), leave out the division by
// √dₖ (--no-scale) and hide the next words (--causal, the mask of chapter 4).
// The chapter's program (softmax) runs the whole formula
// softmax(QKᵀ/√dₖ)V, and always both ways, with and without the division;
// the page shows the run the toggle asks for and the two side by side.
(function () {
  // The row that asks: the one the reader last chose (chosen) if Q has it, else row 1. A Q typed with
  // fewer rows falls back to row 1 for a while, and a Q that has the row again brings it back (a field
  // updates as the reader types, through shorter Qs). The select shows it once render() has offered
  // Q's rows: set on the old options, a row beyond them would leave the select blank beside a refusal.
  let chosen = 0;
  const asking = (values) => (chosen < Book.matrixRows(values.q).length ? chosen : 0);
  // Two sliders on the asking row of --q: a slider writes its entry and keeps the other as typed; a
  // row typed that they can show exactly (within −5 to 5, on their steps) goes on them.
  const query = Book.firstRowSliders({ field: 'q', flag: '--q', names: ['query_x', 'query_y'],
    labels: ["the asking word's query, entry 1", "the asking word's query, entry 2"], min: -5, max: 5, step: 0.5,
    row: asking });
  // A word chosen: its row goes on the sliders.
  const choose = (values, set, defaults, view) => {
    chosen = Number(values.asking);
    query.follow(values, set, defaults, view);
  };

  // Two slots side by side (wrapping on a narrow screen), inside one slot.
  function pair(view, name, left, right) {
    const box = view.slot(name);
    box.style.display = 'flex';
    box.style.flexWrap = 'wrap';
    box.style.gap = '0 1.5em';
    for (const inner of [left, right]) view.slot(inner, box);
  }

  // One row of numbers as a sentence, each under its JSON pointer.
  const listed = (row, pointer) => {
    const parts = ['('];
    row.forEach((value, j) => parts.push(j ? ', ' : '', [value, `${pointer}/${j}`]));
    parts.push(')');
    return parts;
  };

  Book.figure('softmax_toy', {
    program: 'softmax',
    controls: [
      // Three rows, as the program's default Q has; render() names them as the program does, and follows Q.
      { name: 'asking', label: 'the word that asks', type: 'select', value: '0', changed: choose,
        options: [0, 1, 2].map((i) => [String(i), `row ${i + 1}`]) },
      ...query.sliders,
      { name: 'no_scale', label: 'leave out ÷√dₖ (--no-scale)', type: 'checkbox', flag: '--no-scale', value: false },
      { name: 'causal', label: 'hide the next words (--causal)', type: 'checkbox', flag: '--causal', value: false },
      { name: 'q', label: 'Queries Q (--q)', type: 'text', flag: '--q', changed: query.follow,
        help: `${Book.matrixFormat}: 2 entries a row (the keys, fixed here, are 2 wide)`, samples: ['1,0;0,1;5,5', '3,0;0,1;1,1'], bad: ['1,0;0,1;1', '1,0;0,x;1,1'] },
    ],
    render(json, view, values) {
      // One choice per row of Q, under the program's name for it ("cat (row 1)", or "q4 (row 4)").
      const select = view.control('asking');
      const texts = json.query_tokens.map((token, i) => `${token} (row ${i + 1})`);
      if (Array.from(select.options, (option) => option.text).join('\n') !== texts.join('\n')) {
        select.replaceChildren(...texts.map((text, i) => Book.element('option', { value: String(i), text })));
      }
      const r = Math.min(asking(values), json.query_tokens.length - 1);
      view.setControl('asking', String(r));
      const word = json.query_tokens[r];
      const keys = json.key_tokens;
      const scaled = json.scale;

      // The run the toggle asks for: this word's scores, weights and output.
      view.sentence('run', [
        `${word} asks${json.causal ? ' (the words after it hidden)' : ''}, ${scaled ? 'scores divided by √dₖ = ' : 'scores not divided: '}`,
        ...(scaled ? [[json.sqrt_d_k, '/sqrt_d_k'], ': '] : []),
        ...listed(json.scaled_scores[r], `/scaled_scores/${r}`), '; weights on ', keys.join(', '), ': ',
        ...listed(json.weights[r], `/weights/${r}`), '; output ', ...listed(json.output[r], `/output/${r}`), '.',
      ]);
      // Plot's own title is a page heading (h2): each plot's title is a sentence above it.
      // Each plot's title goes with it (a sentence slot of its own would sit beside the plot, not above it).
      view.heatmap('weights', json.weights, {
        rows: json.query_tokens, columns: keys, outline: keys.map((_, j) => [r, j]),
        title: `${scaled ? 'Weights softmax(QKᵀ/√dₖ)' : 'Weights softmax(QKᵀ)'}, row = the token asking; framed: ${word}'s row`
          + (json.causal ? '; above the diagonal, the hidden words: weight 0' : ''),
      });

      // Both ways, side by side: this word's weights with and without the division.
      const bars = [];
      for (const [run, label] of [['scaled', 'with ÷√dₖ'], ['unscaled', 'without']]) {
        json[run].weights[r].forEach((weight, j) => bars.push({ key: keys[j], weight, run: label }));
      }
      view.plot('compare', {
        title: `${word}'s weights with the division (left bar) and without it (right bar)`,
        height: 200, marginLeft: 44,
        fx: { label: null, domain: keys },
        x: { axis: null, domain: ['with ÷√dₖ', 'without'] },
        // From 0 to 1, whatever the weights: a weight that grows must be seen to grow.
        y: { label: 'weight', domain: [0, 1], grid: true },
        color: { legend: true, domain: ['with ÷√dₖ', 'without'], range: ['steelblue', 'darkorange'] },
        marks: [
          window.Plot.barY(bars, { fx: 'key', x: 'run', y: 'weight', fill: 'run' }),
          window.Plot.ruleY([0]),
        ],
      });
      pair(view, 'both', 'both-scaled', 'both-unscaled');
      view.sentence('both-scaled', [
        'With ÷√dₖ: weights ', ...listed(json.scaled.weights[r], `/scaled/weights/${r}`),
        ', output ', ...listed(json.scaled.output[r], `/scaled/output/${r}`),
      ]);
      view.sentence('both-unscaled', [
        'Without: weights ', ...listed(json.unscaled.weights[r], `/unscaled/weights/${r}`),
        ', output ', ...listed(json.unscaled.output[r], `/unscaled/output/${r}`),
      ]);
      view.matrix('output', json.output, {
        title: scaled ? 'Output softmax(QKᵀ/√dₖ)V, one row per token asking' : 'Output softmax(QKᵀ)V, one row per token asking',
        rows: json.query_tokens, columns: json.output[0].map((_, j) => `d${j + 1}`), pointer: '/output',
      });
    },
  });
})();
