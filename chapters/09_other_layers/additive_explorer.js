// Chapter 9's interactive figure: the toy under additive scoring and under
// scaled dot-product scoring, side by side. Two sliders move cat's query; the
// text fields take other queries and other additive weights W_q, W_k and v.
// The chapter's program (other_layers, --demo additive) computes everything;
// the figure always passes --no-timing, so nothing is timed in the page.
(function () {
  const rows = (text) => text.split(';');
  const withFirstRow = (text, entries) => [entries.join(','), ...rows(text).slice(1)].join(';');
  // An entry of the first row of a matrix's text (say, the program's default --q), for a slider.
  const firstRowEntry = (text, j) => rows(text)[0].split(',')[j].trim();
  const moveCat = (values, set) => set('q', withFirstRow(values.q, [values.cat_x, values.cat_y]));
  const FLAGS = { q: '--q', wq: '--wq', wk: '--wk', va: '--va' };

  Book.figure('additive_explorer', {
    program: 'other_layers',
    controls: [
      { name: 'cat_x', label: "cat's query, entry 1", type: 'range', min: -3, max: 3, step: 0.5, changed: moveCat,
        value: (defaults) => firstRowEntry(defaults['--q'], 0) },
      { name: 'cat_y', label: "cat's query, entry 2", type: 'range', min: -3, max: 3, step: 0.5, changed: moveCat,
        value: (defaults) => firstRowEntry(defaults['--q'], 1) },
      { name: 'q', label: 'Queries Q (--q)', type: 'text', flag: FLAGS.q,
        samples: ['-1,0;0,1;1,1', '3,3;0,1;1,1'], bad: ['1,x;0,1;1,1', '1,0;0;1,1'],
        help: 'rows by ;, entries by ,' },
      { name: 'wq', label: 'W_q (--wq)', type: 'text', flag: FLAGS.wq,
        samples: ['2,0;0,2', '1,1;0,-1'], bad: ['1,0;0,1;1,1', '1,y;0,1'] },
      { name: 'wk', label: 'W_k (--wk)', type: 'text', flag: FLAGS.wk,
        samples: ['0.5,0;0,0.5', '1,-1;1,1'], bad: ['1,0,0;0,1,0', 'z'] },
      { name: 'va', label: 'v (--va)', type: 'text', flag: FLAGS.va,
        samples: ['1,-1', '2,0.5'], bad: ['1,2,3', '1,nan'] },
    ],
    arguments(values) {
      const args = ['--no-timing'];
      // Every field, an empty one too: the program refuses it beside the field.
      for (const [name, flag] of Object.entries(FLAGS)) args.push(flag, String(values[name]));
      return args;
    },
    render(json, view) {
      const rowsOf = json.query_tokens;
      const columns = json.key_tokens;
      view.heatmap('additive_heatmap', json.additive.weights, {
        rows: rowsOf, columns, title: 'Additive weights: softmax of v · tanh(q W_q + k W_k)', domain: [0, 1],
      });
      view.heatmap('dot_heatmap', json.dot_product.weights, {
        rows: rowsOf, columns, title: 'Scaled dot-product weights: softmax of q · k / √d_k', domain: [0, 1],
      });
      view.matrix('additive_scores', json.additive.scores, {
        title: 'Additive scores', rows: rowsOf, columns, pointer: '/additive/scores',
      });
      view.sentence('favourites', [
        `${rowsOf[0]} gives its largest weight to `, [json.additive.largest_weight_on[0], '/additive/largest_weight_on/0'],
        ' under additive scoring (', [json.additive.weights[0][columns.indexOf(json.additive.largest_weight_on[0])],
          `/additive/weights/0/${columns.indexOf(json.additive.largest_weight_on[0])}`],
        ') and to ', [json.dot_product.largest_weight_on[0], '/dot_product/largest_weight_on/0'],
        ' under the dot product (', [json.dot_product.weights[0][columns.indexOf(json.dot_product.largest_weight_on[0])],
          `/dot_product/weights/0/${columns.indexOf(json.dot_product.largest_weight_on[0])}`], ').',
      ]);
      view.sentence('bound', [
        'Largest |additive score|: ', [json.largest_abs_score, '/largest_abs_score'],
        ', below ‖v‖₁ = ', [json.score_bound, '/score_bound'], ', which no additive score reaches.',
      ]);
    },
  });
})();
