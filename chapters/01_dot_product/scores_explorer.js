// Chapter 1's interactive figure: the toy's queries and keys, editable, and
// the score table QKᵀ that the chapter's program (dot_product) computes from
// them. Two sliders move the first query (cat's, with three rows); the text fields take any matrices.
(function () {
  const cat = Book.firstRowSliders({ field: 'q', flag: '--q', names: ['cat_x', 'cat_y'],
    labels: ['first query (the top row), entry 1', 'first query (the top row), entry 2'], min: -3, max: 3, step: 0.5 });

  Book.figure('scores_explorer', {
    program: 'dot_product',
    controls: [
      ...cat.sliders,
      { name: 'q', label: 'Queries Q (--q)', type: 'text', flag: '--q', changed: cat.follow,
        help: Book.matrixFormat },
      { name: 'k', label: 'Keys K (--k)', type: 'text', flag: '--k', help: `${Book.matrixFormat}: as wide as the queries` },
    ],
    render(json, view) {
      // The pair to frame: the program's first pair of differing mirror-image entries; in a symmetric table, the
      // first and last tokens; in a table that is not square, none.
      const last = json.query_tokens.length - 1;
      const pair = json.asymmetric_pair ?? (json.symmetry === 'symmetric' && last > 0 ? [0, last] : null);
      view.heatmap('heatmap', json.scores, {
        rows: json.query_tokens, columns: json.key_tokens, label: 'score',
        title: `Scores QKᵀ: red above 0, blue below, deeper further from 0 (scaled to the table's largest size)${pair ? '; framed: the pair the sentence below compares' : ''}`,
        diverging: true,
        outline: pair ? [pair, [pair[1], pair[0]]] : [],
      });
      view.matrix('table', json.scores, {
        title: 'Scores QKᵀ: row = the token asking, column = the token answering',
        rows: json.query_tokens, columns: json.key_tokens, pointer: '/scores',
      });
      if (pair) {
        const [i, j] = pair;
        view.sentence('asymmetry', [
          `${json.query_tokens[i]} asks ${json.key_tokens[j]}: `, [json.scores[i][j], `/scores/${i}/${j}`],
          `; ${json.query_tokens[j]} asks ${json.key_tokens[i]}: `, [json.scores[j][i], `/scores/${j}/${i}`],
          `. The table is ${json.symmetry}.`,
        ]);
      } else {
        view.sentence('asymmetry', [`The table is ${json.symmetry}.`]);
      }
    },
  });
})();
