// Chapter 6's third interactive figure: the toy "cat eat fish" in another
// order, through self-attention without and with the positional encoding, as
// the chapter's program computes it in its permutation mode (--order). The
// outputs in the old order and in the new, side by side, and the largest change.
(function () {
  const orders = [
    ['3,2,1', 'fish eat cat'], ['2,3,1', 'eat fish cat'], ['3,1,2', 'fish cat eat'],
    ['1,3,2', 'cat fish eat'], ['2,1,3', 'eat cat fish'], ['1,2,3', 'cat eat fish (unchanged)'],
    ['typed', 'as typed below'],
  ];
  // The select writes the --order text; the text, typed, moves the select back.
  const orderChoice = (text) => {
    const order = text.replace(/\s/g, '');
    return orders.some(([value]) => value === order && value !== 'typed') ? order : 'typed';
  };
  // Named as the program prints them: columns d1, d2, …; with positions, each row
  // as its position (its place in the order, from 0) and its token, "0 cat".
  const columns = (matrix) => matrix[0].map((_, j) => `d${j + 1}`);
  const rowNames = (tokens, positions) => (positions ? tokens.map((token, i) => `${i} ${token}`) : tokens);

  Book.figure('permutation_explorer', {
    program: 'positional_encoding',
    controls: [
      { name: 'preset', label: 'new order', type: 'select', options: orders, value: (defaults) => orderChoice(defaults['--order']),
        changed: (values, set) => { if (values.preset !== 'typed') set('order', values.preset); } },
      { name: 'order', label: 'each token\'s old place, in the new order (--order)', type: 'text', flag: '--order',
        changed: (values, set) => set('preset', orderChoice(values.order)),
        samples: ['2,3,1', '1,2,3'], bad: ['1,1,2', '4,2,1'], help: 'places from 1, separated by ,' },
    ],
    render(json, view) {
      // A largest change without positions: 0 exactly, or a difference of rounding alone, in scientific notation.
      const withoutPositions = (key) => {
        const value = json.without_positions[key];
        return [[value, `/without_positions/${key}`, value === 0 ? 4 : '.1e'], value === 0 ? ' (exactly)' : ' (rounding only)'];
      };
      for (const [key, title] of [['without_positions', 'without positions'], ['with_positions', 'with positions']]) {
        const comparison = json[key];
        view.matrix(`${key}_before`, comparison.before.output, {
          title: `Outputs ${title}, old order`, rows: rowNames(json.tokens, key === 'with_positions'),
          columns: columns(comparison.before.output), pointer: `/${key}/before/output`,
        });
        view.matrix(`${key}_after`, comparison.after.output, {
          title: `Outputs ${title}, new order`, rows: rowNames(json.reordered_tokens, key === 'with_positions'),
          columns: columns(comparison.after.output), pointer: `/${key}/after/output`,
        });
      }
      view.sentence('change', [
        'Largest change of any entry of a token\'s output: without positions ',
        ...withoutPositions('largest_output_difference'), ', with positions ',
        [json.with_positions.largest_output_difference, '/with_positions/largest_output_difference'],
        json.with_positions.largest_output_difference > 0
          ? ` (in the output of ${json.with_positions.largest_output_difference_token}).` : '.',
      ]);
      // The weights, as the chapter says, change too: the largest change of any token's weight on any token.
      view.sentence('weights_change', [
        'Largest change of any weight a token gives any token (itself included): without positions ',
        ...withoutPositions('largest_weight_difference'), ', with positions ',
        [json.with_positions.largest_weight_difference, '/with_positions/largest_weight_difference'], '.',
      ]);
    },
  });
})();
