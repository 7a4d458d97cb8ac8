// Chapter 1's interactive figure: the toy's queries and keys, editable, and
// the score table QKᵀ that the chapter's program (dot_product) computes from
// them. Two sliders move cat's query; the text fields take any matrices.
(function () {
  const cat = Book.firstRowSliders({ field: 'q', flag: '--q', names: ['cat_x', 'cat_y'],
    labels: ["cat's query, entry 1", "cat's query, entry 2"], min: -3, max: 3, step: 0.5 });
  const minimum = (matrix) => Math.min(...matrix.flat().filter((v) => typeof v === 'number'));
  const maximum = (matrix) => Math.max(...matrix.flat().filter((v) => typeof v === 'number'));

  Book.figure('scores_explorer', {
    program: 'dot_product',
    controls: [
      ...cat.sliders,
      { name: 'q', label: 'Queries Q (--q)', type: 'text', flag: '--q', changed: cat.follow,
        help: 'rows by ;, entries by ,' },
      { name: 'k', label: 'Keys K (--k)', type: 'text', flag: '--k' },
    ],
    render(json, view) {
      const tokens = json.query_tokens;
      const last = tokens.length - 1;
      const hasMirrorPair = json.scores.length > last && json.scores[0].length > last && last > 0;
      view.heatmap('heatmap', json.scores, {
        rows: json.query_tokens, columns: json.key_tokens, label: 'score',
        title: hasMirrorPair ? 'Scores QKᵀ, darker for larger; framed: the pair the sentence below compares' : 'Scores QKᵀ, darker for larger',
        domain: [Math.min(0, minimum(json.scores)), Math.max(1e-9, maximum(json.scores))],
        outline: hasMirrorPair ? [[0, last], [last, 0]] : [],
      });
      view.matrix('table', json.scores, {
        title: 'Scores QKᵀ: row = the token asking, column = the token answering',
        rows: json.query_tokens, columns: json.key_tokens, pointer: '/scores',
      });
      if (hasMirrorPair) {
        view.sentence('asymmetry', [
          `${tokens[0]} asks ${json.key_tokens[last]}: `, [json.scores[0][last], `/scores/0/${last}`],
          `; ${tokens[last]} asks ${json.key_tokens[0]}: `, [json.scores[last][0], `/scores/${last}/0`],
          json.scores[0][last] === json.scores[last][0] && !json.symmetric
            ? `. Another pair of mirror-image entries differs: the table is ${json.symmetry}.`
            : `. The table is ${json.symmetry}.`,
        ]);
      } else {
        view.sentence('asymmetry', [`The table is ${json.symmetry}.`]);
      }
    },
  });
})();
