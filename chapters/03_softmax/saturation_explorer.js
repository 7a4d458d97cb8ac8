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
      let howFar = [': ', [two.divided_change_over_large_change, '/saturation/slot_two/divided_change_over_large_change', '.4g'],
        ' times as far.'];
      if (two.large_change === 0 && two.divided_change === 0) {
        howFar = [': neither weight moves, to a double\'s precision.'];
      } else if (two.large_change === 0) {
        howFar = [': the weight on the scores as given does not move at all; the divided one does.'];
      } else if (two.divided_change === 0) {
        howFar = [': the weight on the scores divided does not move at all; the one on the scores as given does.'];
      }
      // Four significant digits: a saturated weight such as 3.7e−40 must not read as 0.
      view.sentence('slot-two', [
        'Slot two\'s weight: ', [two.large_before, '/saturation/slot_two/large_before', '.4g'], ' → ',
        [two.large_after, '/saturation/slot_two/large_after', '.4g'], ' for the scores as given, against ',
        [two.divided_before, '/saturation/slot_two/divided_before', '.4g'], ' → ',
        [two.divided_after, '/saturation/slot_two/divided_after', '.4g'], ' for the scores divided by ',
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
      // Slot two's weight at no addition and at the slider's, as the program returned them.
      const marked = [];
      for (const [side, label] of sides) {
        if (s.add >= 0 && s.add <= 2) {
          marked.push({ add: 0, weight: s[`weights_${side}`][1], side: label },
            { add: s.add, weight: s[`weights_${side}_added`][1], side: label });
        }
      }
      // The static figure's colours: slot two red and thicker, slot three grey.
      // Beyond them, six more: up to twelve slots each get a colour of their own (beyond, they repeat).
      const colours = ['#1f77b4', '#d62728', '#7f7f7f', '#2ca02c', '#9467bd', '#8c564b',
        '#e377c2', '#bcbd22', '#17becf', '#ff7f0e', '#393b79', '#637939'];
      // Plot's own title is a page heading (h2): the title is a sentence above it.
      view.sentence('sweep-title', ['Each slot\'s weight against the amount added to slot two, as the program sweeps it (dots: slot two at 0 and at the slider):']);
      view.plot('sweep', {
        height: 230, marginLeft: 44, marginRight: 16,
        // Space between the two panels, so the last tick of one and the first of the other do not run together.
        fx: { label: null, domain: sides.map(([, label]) => label), padding: 0.2 },
        x: { label: 'added to slot two', domain: [0, 2] },
        // A little below 0, so a line at a weight near 0 clears the axis.
        y: { label: 'weight', domain: [-0.03, 1.02], ticks: [0, 0.2, 0.4, 0.6, 0.8, 1], grid: true },
        color: { legend: true, domain: slots, range: slots.map((_, j) => colours[j % colours.length]) },
        marks: [
          window.Plot.line(points.filter((d) => d.slot !== slots[1]), { fx: 'side', x: 'add', y: 'weight', stroke: 'slot', z: 'slot', strokeWidth: 1.6 }),
          window.Plot.line(points.filter((d) => d.slot === slots[1]), { fx: 'side', x: 'add', y: 'weight', stroke: 'slot', strokeWidth: 3 }),
          window.Plot.dot(marked, { fx: 'side', x: 'add', y: 'weight', fill: colours[1], r: 4.5, stroke: 'white' }),
          window.Plot.frame({ strokeOpacity: 0.2 }),
        ],
      });
    },
  });
})();
