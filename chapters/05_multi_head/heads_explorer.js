// Chapter 5's interactive figure: choose the number of heads h, the width
// d_model and the seed; the chapter's program (multi_head) draws the input
// and every weight matrix, runs each head and joins them. Each head's
// weights as a heatmap, then the concatenation and the output Concat · W^O.
// The sliders keep h a divisor of d_model (the program refuses otherwise;
// the typed --heads field shows its message).
(function () {
  const MAX_WIDTH = 12;
  // The heads slider reaches as far as the d_model slider: every h the program takes with some
  // d_model up to 12 (h divides d_model, so h ≤ d_model) has a place on it, and a number typed
  // in the field that the program takes moves the slider there.
  const MAX_HEADS = MAX_WIDTH;
  // The number of heads the reader last asked for, with the slider or the field: a d_model that it does not
  // divide lowers h for a while, and the next d_model it divides brings it back.
  let wanted = null;
  // h moved: bring d_model up to the next multiple of h, or down to the largest multiple of h
  // within the d_model slider (h = 5 on d_model 12: 10) when the next one is beyond it.
  const fitWidth = (values, set) => {
    const h = Number(values.heads_slider);
    const width = Number(values.d_model);
    wanted = h;
    set('heads', h);
    if (width % h !== 0) {
      const up = Math.ceil(width / h) * h;
      set('d_model', up <= MAX_WIDTH ? up : Math.floor(MAX_WIDTH / h) * h);
    }
  };
  // d_model moved: take the largest number of heads, at most the one asked for, that divides it.
  const fitHeads = (values, set) => {
    const width = Number(values.d_model);
    let h = Math.min(wanted ?? Number(values.heads), MAX_HEADS);
    while (h > 1 && width % h !== 0) h -= 1;
    set('heads', h);
    set('heads_slider', h);
  };
  // h typed: the slider shows it when the program takes it with this d_model.
  const readHeads = (values, set) => {
    const h = Number(values.heads);
    if (Number.isInteger(h) && h >= 1 && h <= MAX_HEADS && Number(values.d_model) % h === 0) {
      wanted = h;
      set('heads_slider', h);
    }
  };

  Book.figure('heads_explorer', {
    program: 'multi_head',
    controls: [
      { name: 'heads_slider', label: 'Heads h', type: 'range', min: 1, max: MAX_HEADS, step: 1, changed: fitWidth,
        value: (defaults) => defaults['--heads'],
        help: 'moves d_model to a multiple of\u00a0h' },
      { name: 'd_model', label: 'd_model (--d-model)', type: 'range', flag: '--d-model', min: 1, max: MAX_WIDTH, step: 1,
        changed: fitHeads, help: 'h drops to a divisor of d_model, and comes back when it can' },
      { name: 'heads', label: 'Heads, typed (--heads)', type: 'number', flag: '--heads', min: 1, max: MAX_HEADS, step: 1,
        changed: readHeads, samples: ['1', '4'], bad: ['3', '0'], help: 'must divide d_model' },
      { name: 'seed', label: 'Seed (--seed)', type: 'number', flag: '--seed', min: 0, max: 4294967295, step: 1,
        samples: ['2', '4294967295'], bad: ['-1', '4294967296'] },
      Book.reseedButton('Reseed'),
    ],
    // Native builds with -march=native let Eigen sum the products in vector
    // packets (and fused multiply-adds); the WebAssembly module sums them one
    // by one. The results agree to a few units in the last place.
    tolerance: 1e-12,
    render(json, view) {
      const tokens = json.tokens;
      const output = view.slot('summary').parentElement;
      view.sentence('summary', [
        [json.h, '/h'], json.h === 1 ? ' head of width dₖ = dᵥ = ' : ' heads of width dₖ = dᵥ = ', [json.d_k, '/d_k'], ' on d_model = ', [json.d_model, '/d_model'],
        ', seed ', [json.seed, '/seed'], '. Row: the token asking; column: the token looked at.',
      ]);
      const names = ['summary', 'heads'];
      // Each head a card, its map over its sentence; the cards side by side as far as the figure's width
      // allows (book.css), so that twelve heads do not make a column twelve maps long. Smaller cells on a
      // phone, so that two cards fit across it.
      const cards = view.slot('heads');
      const cell = output.clientWidth >= 600 ? 48 : 32;
      json.heads.forEach((head, i) => {
        const card = cards.children[i] ?? cards.appendChild(Book.element('div', { class: 'heads-card' }));
        view.slot(`head_${i}`, card);
        view.slot(`head_${i}_largest`, card);
        // Each row's largest weight framed, as the static figure above frames it.
        view.heatmap(`head_${i}`, head.weights, {
          rows: tokens, columns: tokens, domain: [0, 1], cell,
          outline: head.largest_weight_on.map((name, t) => [t, tokens.indexOf(name)]),
        });
        view.sentence(`head_${i}_largest`, [
          `Head ${i + 1} (above), largest weight in each row: `,
          ...head.largest_weight_on.flatMap((name, t) => [t ? ', ' : '', `${tokens[t]} → `, [name, `/heads/${i}/largest_weight_on/${t}`]]),
          ...(tokens.length > 1 ? [`; ${tokens[1]}'s row: `] : []),
          ...(tokens.length > 1 ? head.weights[1].flatMap((w, j) => [j ? ', ' : '', [w, `/heads/${i}/weights/1/${j}`]]) : []),
          '.',
        ]);
      });
      // Fewer heads than last time: drop the cards of the heads that are gone. No card is narrower than a map.
      for (const card of [...cards.children].slice(json.heads.length)) card.remove();
      cards.style.setProperty('--card-width', `${cards.querySelector('svg').getAttribute('width')}px`);
      // Columns named as the program prints them: hi.j, column j of head i; d1 … of the output.
      const headColumns = json.heads.flatMap((_, i) => Array.from({ length: json.d_v }, (__, j) => `h${i + 1}.${j + 1}`));
      view.matrix('concat', json.concat, {
        title: 'Concat(head 1, …, head h): column hi.j is column j of head i',
        rows: tokens, columns: headColumns, pointer: '/concat',
      });
      view.matrix('output', json.output, {
        title: 'Output = Concat · W^O',
        rows: tokens, columns: json.output[0].map((_, j) => `d${j + 1}`), pointer: '/output',
      });
      // The second token's output row (love's, in the chapter's sentence), split by head: W^O's rows for head i's
      // columns give head i's part of each entry, and the parts add up to the row. Up to four heads: beyond, --json.
      const asked = tokens.length > 1 ? 1 : 0;
      view.sentence('parts', json.h > 4
        ? [`With more than four heads, each head's part of ${tokens[asked]}'s output entries is in the program's JSON `
          + `(build/bin/multi_head --heads ${json.h} --d-model ${json.d_model} --seed ${json.seed} --json, part_of_output).`]
        : [`${tokens[asked]}'s output, entry by entry, split by head (the parts add up to its row of the Output table): `,
          ...json.heads.flatMap((head, i) => [i ? '; ' : '', `head ${i + 1} `,
            ...head.part_of_output[asked].flatMap((part, j) => [j ? ', ' : '', [part, `/heads/${i}/part_of_output/${asked}/${j}`]])]),
          json.h === 1 ? '. With one head, its part is the whole row.'
            : ". Where one head's part is much the largest in size, the entry follows that head; "
              + 'parts of opposite sign partly cancel.']);
      names.push('concat', 'output', 'parts');
      for (const name of names) output.append(view.slot(name));
    },
  });
})();
