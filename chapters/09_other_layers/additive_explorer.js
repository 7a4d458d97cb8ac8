// Chapter 9's interactive figure: the toy under additive scoring and under
// scaled dot-product scoring, side by side. Two sliders move the first query (cat's, with three rows); the
// text fields take other queries and other additive weights W_q, W_k and v.
// The chapter's program (other_layers, --demo additive) computes everything;
// the figure always passes --no-timing, so nothing is timed in the page.
(function () {
  const cat = Book.firstRowSliders({ field: 'q', flag: '--q', names: ['cat_x', 'cat_y'],
    labels: ['first query (the framed row), entry 1', 'first query (the framed row), entry 2'], min: -3, max: 3, step: 0.5 });
  // The first query's favourite key under one scoring, any key tied with it and its weight, as a sentence's
  // parts: "cat (tied with fish) under the dot product (0.4717)". The program names both.
  const favourite = (json, scoring, how) => {
    const word = json[scoring].largest_weight_on[0];
    const j = json.key_tokens.indexOf(word);
    const weights = json[scoring].weights[0];
    const tied = json[scoring].tied_with_largest[0];
    return [[word, `/${scoring}/largest_weight_on/0`], tied.length ? ` (tied with ${tied.join(' and ')})` : '',
      ` under ${how} (`, [weights[j], `/${scoring}/weights/0/${j}`], ')'];
  };
  const FLAGS = { q: '--q', wq: '--wq', wk: '--wk', va: '--va' };

  Book.figure('additive_explorer', {
    program: 'other_layers',
    controls: [
      ...cat.sliders,
      { name: 'q', label: 'Queries Q (--q)', type: 'text', belowOnPhones: true, flag: FLAGS.q, changed: cat.follow,
        samples: ['-1,0;0,1;1,1', '3,3;0,1;1,1'], bad: ['1,x;0,1;1,1', '1,0;0;1,1'],
        help: `${Book.matrixFormat}: 2 entries a row (the keys, fixed here, are 2 wide); 3 rows keep the names cat, eat, fish` },
      { name: 'wq', label: 'Query matrix W_q (--wq)', type: 'text', belowOnPhones: true, flag: FLAGS.wq,
        samples: ['2,0;0,2', '1,1;0,-1'], bad: ['1,0;0,1;1,1', '1,y;0,1'] },
      { name: 'wk', label: 'Key matrix W_k (--wk)', type: 'text', belowOnPhones: true, flag: FLAGS.wk,
        samples: ['0.5,0;0,0.5', '1,-1;1,1'], bad: ['1,0,0;0,1,0', 'z'] },
      { name: 'va', label: 'Scoring vector v (--va)', type: 'text', belowOnPhones: true, flag: FLAGS.va,
        samples: ['1,-1', '2,0.5', '1e-5,0'], bad: ['1,2,3', '1,nan'] },
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
        rows: rowsOf, columns, title: `Additive weights: softmax of v · tanh(q W_q + k W_k); framed: ${rowsOf[0]}'s row`,
        domain: [0, 1], outline: columns.map((_, j) => [0, j]),
      });
      view.heatmap('dot_heatmap', json.dot_product.weights, {
        rows: rowsOf, columns, title: `Scaled dot-product weights: softmax of q · k / √dₖ; framed: ${rowsOf[0]}'s row`,
        domain: [0, 1], outline: columns.map((_, j) => [0, j]),
      });
      view.matrix('additive_scores', json.additive.scores, {
        title: 'Additive scores', rows: rowsOf, columns, pointer: '/additive/scores',
      });
      view.sentence('favourites', [
        `${rowsOf[0]} gives its largest weight to `, ...favourite(json, 'additive', 'additive scoring'),
        ' and to ', ...favourite(json, 'dot_product', 'the dot product'), '.',
      ]);
      view.sentence('bound', [
        'Largest |additive score|: ', [json.largest_abs_score, '/largest_abs_score', '.4g'],
        '; no additive score passes ‖v‖₁ = ', [json.score_bound, '/score_bound', '.4g'], '.',
      ]);
    },
  });
})();
