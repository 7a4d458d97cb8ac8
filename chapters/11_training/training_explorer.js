// Chapter 11's interactive figure: the chapter's training program, compiled
// to WebAssembly, trains the model in a Web Worker, 25 Adam steps at a time,
// and the figure redraws the held-out example's attention maps, the loss and
// the accuracy after each 25. Each update asks the program for --steps N; the
// program keeps the run between calls and continues it, so the page shows
// exactly what `training --steps N` prints for the same flags. The step slider follows the run, and
// dragged back it asks for fewer steps, which the program trains again from step 0 (the same weights at
// every step, for given flags), pausing the run there so that the reader can watch the maps form.
(function () {
  const CHUNK = 25;   // steps between two redraws, and between two logged points
  const TOTAL = 300;  // where the page stops
  let steps = CHUNK;
  // A reader whose system asks for less motion starts each run with Go on: the maps do not redraw by themselves.
  const stillAtFirst = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
  let paused = stillAtFirst;
  // Training again from step 0 (a press, or a new task, seed or rate): the slider and the pause button say so at
  // once, before the first chunk is drawn, and stay so if the program refuses the new setting.
  const restart = (values, set, defaults, view) => {
    steps = CHUNK;
    paused = stillAtFirst;
    set('step', String(CHUNK));
    const pause = view.control('pause');
    pause.textContent = paused ? 'Go on' : 'Pause';
    pause.setAttribute('aria-disabled', 'false');
  };

  Book.figure('training_explorer', {
    program: 'training',
    worker: true,
    tolerance: 1e-12,
    controls: [
      { name: 'task', label: 'Task (--task)', type: 'select', flag: '--task', changed: restart,
        options: [['reverse', 'reverse the digits'], ['copy', 'copy the digits']] },
      { name: 'seed', label: 'Seed (--seed)', type: 'text', flag: '--seed', changed: restart,
        samples: ['2', '7'], bad: ['-1', 'one'], help: 'one draw of the weights, the held-out set and the training stream' },
      { name: 'learning_rate', label: 'Learning rate (--learning-rate)', type: 'select', flag: '--learning-rate',
        changed: restart, options: [['0.001', '0.001'], ['0.003', '0.003'], ['0.006', '0.006']] },
      { name: 'step', label: 'Show the run at step', type: 'range', min: CHUNK, max: TOTAL, step: CHUNK, value: CHUNK,
        changed: (values) => { steps = Number(values.step); paused = true; },
        help: 'drag back to watch the maps form; Go on continues from there' },
      { name: 'restart', label: 'Train again from step 0', type: 'button', onClick: restart },
      { name: 'pause', label: 'Pause', type: 'button', onClick: () => { paused = !paused; } },
    ],
    arguments(values) {
      return ['--task', values.task, '--seed', values.seed, '--learning-rate', values.learning_rate,
        '--steps', String(steps), '--log-every', String(CHUNK)];
    },
    render(json, view) {
      const positions = json.example.input.map((_, i) => String(i));
      // Each input position with its digit, so that the reader can see which digit a head reads.
      const inputs = json.example.input.map((digit, i) => `${i}:${digit}`);
      // Two maps side by side where the figure is wide enough; one above the other on a phone.
      const width = view.slot('head_0_0').parentElement.clientWidth;
      const cell = width >= 720 ? Math.max(34, Math.min(48, Math.floor((width / 2 - 110) / positions.length))) : undefined;
      json.attention.forEach((layer, l) => layer.forEach((head, h) => {
        view.heatmap(`head_${l}_${h}`, head, {
          rows: positions, columns: inputs, cell,
          // The cells the task asks each output to read (the program's: the mirrored input for reverse).
          outline: json.example.source.map((source, i) => [i, source]),
          // A title no wider than the map, so that the two maps' slots fit side by side.
          title: `Head ${h + 1}${json.attention.length > 1 ? ` of layer ${l + 1}` : ''}: row = output position, column = input position:digit`,
        });
      }));
      const points = json.logged_steps.map((step, i) => ({ step, loss: json.loss[i], accuracy: json.held_out_accuracy[i] }));
      view.plot('curves', {
        title: 'Training loss (blue) and held-out accuracy (green, 1 = 100\u00a0%), per logged step',
        height: 200,
        x: { label: 'Adam step', domain: [0, TOTAL] },
        y: { label: null, domain: [0, Math.max(2.5, ...json.loss)] },
        marks: [
          window.Plot.ruleY([0]),
          window.Plot.line(points, { x: 'step', y: 'loss', stroke: 'steelblue' }),
          window.Plot.dot(points, { x: 'step', y: 'loss', fill: 'steelblue', r: 2 }),
          window.Plot.line(points, { x: 'step', y: 'accuracy', stroke: 'seagreen' }),
          window.Plot.dot(points, { x: 'step', y: 'accuracy', fill: 'seagreen', r: 2 }),
        ],
      });
      const last = json.loss.length - 1;
      view.sentence('summary', [
        'After ', [json.steps, '/steps'], ' steps: mean training loss over steps ', [json.loss_from[last], `/loss_from/${last}`],
        ' to ', [json.logged_steps[last], `/logged_steps/${last}`], ': ', [json.loss[last], `/loss/${last}`, '.3g'],
        ', held-out accuracy per digit ', [json.final_accuracy, '/final_accuracy', '.2%'],
        `; mean weight on the ${json.task === 'reverse' ? 'mirrored' : 'same'} position: head 1 `,
        [json.source_weight[0][0], '/source_weight/0/0'], ', head 2 ', [json.source_weight[0][1], '/source_weight/0/1'],
        '. Held-out sequence: ', json.example.input.join(' '), ' → ', json.example.prediction.join(' '),
        ` (right answer ${json.example.target.join(' ')}).`,
      ]);
      // The run's own clock (the C++'s, over every step trained so far), so that a call that trains
      // nothing (a press once the run is done, a redraw for a new width) leaves the speed as it was.
      view.sentence('speed', json.seconds > 0
        ? ['Training in this page: ', view.measured(json.steps_per_second, '/steps_per_second',
          view.formatNumber(json.steps_per_second, ',.0f')), ' steps per second (',
          view.measured(json.seconds, '/seconds', `${Math.round(1000 * json.seconds)} ms`),
          ` for the ${json.steps} steps so far, held-out evaluation included).`]
        : ['Training in this page…']);
      // The slider shows the step drawn, as the run goes on.
      view.setControl('step', String(json.steps));
      // The pause button says what a press does, and is dimmed once the run has reached its last step.
      const pause = view.control('pause');
      pause.setAttribute('aria-disabled', String(json.steps >= TOTAL));
      pause.textContent = json.steps >= TOTAL ? 'Done' : paused ? 'Go on' : 'Pause';
    },
    next(json) {
      if (paused || json.steps >= TOTAL) return false;
      steps = json.steps + CHUNK;
      return true;
    },
  });
})();
