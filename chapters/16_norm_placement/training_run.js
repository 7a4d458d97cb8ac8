// Chapter 16's interactive figure: one run of the grid, from the chapter's
// program (norm_placement), compiled to WebAssembly: the layout, the warm-up,
// the learning rate and the seed are the reader's. The module holds the runs
// the build trained natively for the book's grid (models_for_the_page.py), so
// the page shows the book's numbers and trains nothing. The page draws
// the training loss the program logged along the way, against ln 10 (a model
// that guesses) and the untrained model's loss, and says whether the run learned
// the task. The page computes nothing; every number is the JSON's.
(function () {
  Book.figure('training_run', {
    program: 'norm_placement',
    worker: true,
    controls: [
      { name: 'layout', label: 'Layout (--layouts)', type: 'select', flag: '--layouts', value: 'post_layer_norm',
        options: [['post_layer_norm', 'post-norm, LayerNorm (the paper’s)'], ['post_rms_norm', 'post-norm, RMSNorm'],
          ['pre_layer_norm', 'pre-norm, LayerNorm'], ['pre_rms_norm', 'pre-norm, RMSNorm']] },
      { name: 'warmup', label: 'Warm-up steps (--warmups)', type: 'select', flag: '--warmups', value: '0',
        options: [['0', 'none'], ['150', '150 steps']] },
      { name: 'rate', label: 'Learning rate (--rates)', type: 'select', flag: '--rates',
        options: [['0.005', '0.005'], ['0.01', '0.01'], ['0.03', '0.03']] },
      // The five seeds of the book's grid: the page shows the runs the build trained natively.
      { name: 'seed', label: 'Seed (--seeds)', type: 'select', flag: '--seeds',
        options: [['1', '1'], ['2', '2'], ['3', '3'], ['4', '4'], ['5', '5']] },
    ],
    render(json, view) {
      const run = json.runs[0];
      const points = run.loss.map((loss, i) => ({ step: run.logged_steps[i], loss }));
      view.plot('loss', {
        title: 'Training loss per digit against the step',
        height: 260,
        marginLeft: 48,
        x: { label: 'step →', grid: true, domain: [0, json.inputs.training_steps] },
        // The same axis for the runs the controls reach, which start near a uniform guess's loss, so that runs
        // compare by eye: up to a third above that loss, or higher for a run that passes it.
        y: { label: '↑ loss', grid: true,
          domain: [0, Math.max(json.uniform_loss * 4 / 3, ...[run.untrained_loss, ...run.loss].map((loss) => loss * 1.05))] },
        marks: [
          // The warm-up's steps, shaded as in the chapter's static figure, named at the foot, below the loss there.
          ...(run.warmup > 0 ? [
            window.Plot.rect([{ from: 0, to: run.warmup }],
              { x1: 'from', x2: 'to', fill: '#999999', fillOpacity: 0.18 }),
            window.Plot.text(['warm-up'], { x: run.warmup / 2, frameAnchor: 'bottom', dy: -6, fill: '#555555' }),
          ] : []),
          window.Plot.ruleY([json.uniform_loss], { stroke: '#777777', strokeDasharray: '5 4' }),
          window.Plot.line(points, { x: 'step', y: 'loss', stroke: run.learned ? '#1f77b4' : '#d62728', strokeWidth: 1.8 }),
          // The untrained model's loss, at step 0: where the run starts from.
          window.Plot.dot([{ step: 0, loss: run.untrained_loss }], { x: 'step', y: 'loss', fill: '#555555', r: 4 }),
        ],
      });
      // A run that stopped (a loss, a gradient or a weight no longer a finite number) has no final loss, and the
      // program measured no accuracy for it.
      const stopped = run.stopped_at !== 0;
      const ending = stopped
        ? ['Training stopped at step ', [run.stopped_at, '/runs/0/stopped_at', 'd'],
          ': a loss, a gradient or a weight was no longer a finite number, so no held-out digit was read. ']
        : ['After ', [json.inputs.training_steps, '/inputs/training_steps'],
          ' steps the final loss (the mean of the last ', [json.inputs.final_points, '/inputs/final_points', 'd'],
          ' logged losses) is ', [run.final_loss, '/runs/0/final_loss', '.3g'],
          ', and ', [run.accuracy, '/runs/0/accuracy', '.1%'], ' of the held-out digits are right. '];
      view.sentence('result', [
        'The untrained model\'s loss (the dot at step 0, measured on the held-out sequences) is ',
        [run.untrained_loss, '/runs/0/untrained_loss'], '. Each point of the line is the mean training loss of the ',
        [json.inputs.log_every, '/inputs/log_every', 'd'], ' steps before it. ', ...ending,
        ...(run.learned ? ['It learned the task: the line is blue.']
          : stopped ? ['It did not learn the task: the line is red.']
          : ['It did not learn the task (to learn it, a run needs at least ', [json.inputs.learned_accuracy, '/inputs/learned_accuracy', '.0%'],
            ' of the held-out digits right after the last step): the line is red.']),
        ' The dashed line is ln 10 = ', [json.uniform_loss, '/uniform_loss'], ', the loss of a uniform guess.',
        run.warmup > 0 ? ' The shaded steps are the warm-up.' : '',
      ]);
    },
  });
})();
