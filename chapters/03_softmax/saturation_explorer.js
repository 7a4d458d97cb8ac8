// Chapter 3's saturation demo, interactive: a row of scores against the same
// row divided, one slider adding to slot two on both sides. The chapter's
// program (softmax, its --scores --divide --add flags) computes the weights
// before and after the addition on each side and the sweep over added
// amounts from 0 to 2; the page only draws them.
(function () {
  const sides = [
    ['large', 'the scores as given'],
    ['divided', 'the scores divided'],
  ];

  Book.figure('saturation_explorer', {
    program: 'softmax',
    controls: [
      { name: 'add', label: 'add to slot two (--add)', type: 'range', flag: '--add', min: 0.1, max: 2, step: 0.1 },
      { name: 'scores', label: 'scores (--scores)', type: 'text', flag: '--scores',
        help: 'separated by ,', samples: ['8,4,0,2', '3,3,3'], bad: ['8', '8,x,0'] },
      { name: 'divide', label: 'divide by (--divide)', type: 'text', flag: '--divide',
        samples: ['1', '2.5'], bad: ['0', 'inf'] },
    ],
    render(json, view) {
      const s = json.saturation;
      const two = s.slot_two;
      // How many times as far the divided side's weight moves; the ratio is inf or NaN where the other does not move.
      let howFar = [': ', [two.divided_change_over_large_change, '/saturation/slot_two/divided_change_over_large_change'],
        ' times as far.'];
      if (two.large_change === 0 && two.divided_change === 0) {
        howFar = [': neither weight moves (each is 0 or 1 to a double\'s precision).'];
      } else if (two.large_change === 0) {
        howFar = [': the weight on the scores as given does not move at all; the divided one does.'];
      }
      view.sentence('slot-two', [
        'Slot two\'s weight: ', [two.large_before, '/saturation/slot_two/large_before'], ' → ',
        [two.large_after, '/saturation/slot_two/large_after'], ' for the scores as given, against ',
        [two.divided_before, '/saturation/slot_two/divided_before'], ' → ',
        [two.divided_after, '/saturation/slot_two/divided_after'], ' for the scores divided by ',
        [s.divide, '/saturation/divide', 'g'], ...howFar,
      ]);
      const slots = s.scores.map((_, j) => `slot ${j + 1}`);
      // The four rows of weights, each number under its own key.
      const rows = [
        ['Weights, scores as given', 'weights_large'], ['as given, after the addition', 'weights_large_added'],
        ['Weights, scores divided', 'weights_divided'], ['divided, after the addition', 'weights_divided_added'],
      ];
      rows.forEach(([label, key]) => {
        const parts = [`${label}: `];
        s[key].forEach((weight, j) => parts.push(j ? ', ' : '', [weight, `/saturation/${key}/${j}`]));
        view.sentence(key, parts);
      });

      // The sweep the program computed: every slot's weight against the amount added.
      const points = [];
      for (const point of s.sweep) {
        for (const [side, label] of sides) {
          point[`weights_${side}`].forEach((weight, j) => points.push({ add: point.add, weight, slot: slots[j], side: label }));
        }
      }
      const marked = [];
      for (const [side, label] of sides) {
        s[`weights_${side === 'large' ? 'large' : 'divided'}_added`].forEach((weight, j) => {
          if (s.add >= 0 && s.add <= 2) marked.push({ add: s.add, weight, slot: slots[j], side: label });
        });
      }
      // Plot's own title is a page heading (h2): the title is a sentence above it.
      view.sentence('sweep-title', ['Each slot\'s weight against the amount added to slot two, as the program sweeps it (dots: the slider):']);
      view.plot('sweep', {
        height: 230, marginLeft: 44, marginRight: 16,
        fx: { label: null, domain: sides.map(([, label]) => label) },
        x: { label: 'added to slot two', domain: [0, 2] },
        y: { label: 'weight', domain: [0, 1], grid: true },
        color: { legend: true, domain: slots },
        marks: [
          window.Plot.line(points, { fx: 'side', x: 'add', y: 'weight', stroke: 'slot', z: 'slot', strokeWidth: 2 }),
          window.Plot.dot(marked, { fx: 'side', x: 'add', y: 'weight', fill: 'slot', r: 4, stroke: 'white' }),
          window.Plot.frame({ strokeOpacity: 0.2 }),
        ],
      });
    },
  });
})();
