// Chapter 8's interactive figure: the graph chapter's walkthrough and the encoder layer
// around it, computed in the page by the chapter's program (encoder_layer).
// Choose the input (the graph chapter's x or the toy), the seed of
// np.random.default_rng, the number of layers, and whether the layers'
// attention is causal. Shown: which rows move when the last token moves, each head's
// weights in layer 1, the walkthrough's causal weights (head 1 of layer 1, always causal,
// as the graph chapter computes them), and the stack's output.
(function () {
  // The program takes any seed from 0 to 2^64 − 1, beyond a double's whole numbers (2^53).
  const LARGEST_SEED = 2n ** 64n - 1n;

  Book.figure('layer_explorer', {
    program: 'encoder_layer',
    controls: [
      { name: 'example', label: 'Input (--example)', type: 'select', flag: '--example',
        options: [['walkthrough', "the graph chapter's x = arange(24)/10"], ['toy', 'the toy: cat eat fish']] },
      { name: 'seed', label: 'Seed of default_rng (--seed)', type: 'number', flag: '--seed', min: 0,
        max: String(LARGEST_SEED), step: 1, samples: ['0', '42', String(LARGEST_SEED)], bad: ['-1', '1.5'],
        help: '0 to 2⁶⁴ − 1; past the largest, Reseed gives 0' },
      Book.reseedButton('Reseed', LARGEST_SEED),
      { name: 'layers', label: 'Layers N (--layers)', type: 'range', flag: '--layers', min: 1, max: 6, step: 1 },
      { name: 'causal', label: 'Causal attention in the layers (--causal)', type: 'checkbox', flag: '--causal',
        value: false },
    ],
    // Native builds with -march=native let Eigen sum the products in vector
    // packets (and fused multiply-adds); the WebAssembly module sums them one
    // by one. The results agree to a few units in the last place.
    tolerance: 1e-12,
    render(json, view, values) {
      const tokens = json.tokens;
      const output = view.slot('summary').parentElement;
      // The seed whole: the JSON's number where the page reads it exactly and the tables write it whole
      // (below 1e15); a larger one, parsed as a double, has lost its last digits, and is written from the
      // field's text the program read (a whole number, which it took).
      const seedShown = json.seed < 1e15 ? [json.seed, '/seed'] : BigInt(values.seed.trim()).toString();
      view.sentence('summary', [
        [json.n, '/n'], ' tokens of d_model = ', [json.d_model, '/d_model'], ', ', [json.h, '/h'],
        json.h === 1 ? ' head of dₖ = ' : ' heads of dₖ = ', [json.d_k, '/d_k'], ', d_ff = ', [json.d_ff, '/d_ff'], ', ',
        [json.layers_count, '/layers_count'], json.layers_count === 1 ? ' layer' : ' layers',
        json.causal ? ' with causal attention' : '', '; weight matrices ', [json.draws.scale, '/draws/scale'], ' × draws of default_rng(', seedShown, '). ',
        // What the layers slider changes, said where the slider is: the table it changes is far below.
        'After the last layer the rows differ by at most ', [json.rows_apart.last, '/rows_apart/last', '.2g'],
        ...(json.layers_count > 1 ? [' in any column (after layer 1: ', [json.rows_apart.first, '/rows_apart/first', '.2g'], ').']
          : [' in any column.']),
      ]);
      // The nudge comes second, next to the controls, so that ticking the causal box
      // shows at once what it changes, on a phone too.
      const last = tokens.length - 1;
      view.sentence('nudge', [
        `Add 1 to every entry of ${tokens[last]}'s row of x. Largest change per row, through layer 1's attention: `,
        ...json.per_token.attention_change.flatMap((c, t) => [t ? ', ' : '', `${tokens[t]} `, [c, `/per_token/attention_change/${t}`]]),
        '; through layer 1\'s feed-forward network alone, given the same nudged x: ',
        ...json.per_token.feed_forward_change.flatMap((c, t) => [t ? ', ' : '', `${tokens[t]} `, [c, `/per_token/feed_forward_change/${t}`]]),
        '.',
      ]);
      const names = ['summary', 'nudge'];
      // Layer 1's heads first, under the controls: the causal box changes them. The graph chapter's head
      // after them is causal whatever the box says.
      json.layers[0].heads.forEach((head, i) => {
        view.heatmap(`head_${i}`, head.weights, {
          rows: tokens, columns: tokens, domain: [0, 1],
          title: `Layer 1, head ${i + 1}: communicate${json.causal ? ' (causal)' : ''}`,
        });
        names.push(`head_${i}`);
      });
      for (const box of output.querySelectorAll('[data-slot^="head_"]')) {
        if (!names.includes(box.dataset.slot)) box.remove();
      }
      view.heatmap('walkthrough', json.walkthrough.weights, {
        rows: tokens, columns: tokens, domain: [0, 1],
        title: (json.example === 'walkthrough' ? "The graph chapter's head: head 1 of layer 1 under a causal mask"
          : 'Head 1 of layer 1 under a causal mask, as in the graph chapter')
          + (json.causal ? '; with the box ticked, it is the same map as layer 1\'s head 1 above' : ''),
      });
      view.sentence('walkthrough_sums', [
        'Row sums: ', ...json.walkthrough.row_sums.flatMap((s, i) => [i ? ', ' : '', [s, `/walkthrough/row_sums/${i}`]]),
        '. out[0] == v[0]: ', json.walkthrough.out0_equals_v0 ? 'True' : 'False', '.',
      ]);
      names.push('walkthrough', 'walkthrough_sums');
      const channels = json.output[0].map((_, j) => `d${j + 1}`);
      view.matrix('stack_output', json.output, {
        title: `Output of layer ${json.layers_count}: LayerNorm(y + FFN(y))`, rows: tokens, columns: channels,
        pointer: '/output',
      });
      names.push('stack_output');
      for (const name of names) output.append(view.slot(name));
    },
  });
})();
