// Chapter 14's interactive figure: the reader writes a sentence with the
// chapter's model, one word per press of "Next word". The page's module holds
// the model the book's build trained natively (tools/models_for_the_page.py
// says why it is not trained again here); each press calls the chapter's
// program, compiled to WebAssembly, with the same prompt and settings and one
// more step (--steps k for k presses). The run is deterministic, so the first
// k - 1 words are the ones already shown, and the newest is drawn as the
// native program draws it. The page draws what the program returns: the
// sentence, the newest word's likeliest three, where the position that chose
// it looked, the cache of keys and values, and the time per word the C++
// clock measured here.
(function () {
  const MOST_WORDS = 40;  // presses the page goes up to (the program allows 200)
  let steps = 1;
  let ended = false;      // the last sentence shown ended with "."
  let calls = 0;          // calls drawn so far: the first runs while the browser still readies the module
  // A new prompt, temperature, top-k or seed writes the sentence again from the prompt, one word long: the
  // sentence shown is the one the new setting writes, from its first word.
  const fromTheStart = () => { steps = 1; };

  const { element } = Book;
  const quoted = (word) => `“${word}”`;
  // A weight as a shade of blue on the figure's white sheet, with text that stays readable on it.
  const shaded = (cell, weight) => {
    const level = Math.max(0, Math.min(1, weight));
    cell.style.background = `rgba(31, 119, 180, ${level.toFixed(3)})`;
    cell.style.color = level > 0.55 ? '#ffffff' : '#1a1a1a';
  };

  Book.figure('next_word', {
    program: 'generating',
    worker: true,
    // The native build fuses multiply and add; the WebAssembly build does not, so the same weights can
    // give other last bits.
    tolerance: 1e-12,
    controls: [
      { name: 'prompt', label: 'Prompt (--prompt)', type: 'text', flag: '--prompt', value: 'the key to the cabinets',
        optional: true, changed: fromTheStart, help: 'the first words, from chapter 13’s language; empty: the model starts the sentence',
        samples: ['the dogs that', 'I saw'], bad: ['the cat sat on a mat', 'I saw a .'] },
      { name: 'temperature', label: 'Temperature (--temperature)', type: 'range', flag: '--temperature',
        min: 0, max: 2, step: 0.1, value: 1, changed: fromTheStart, help: '0: always the likeliest word' },
      { name: 'top_k', label: 'Top-k (--top-k)', type: 'range', flag: '--top-k', min: 0, max: 10, step: 1, value: 5, changed: fromTheStart,
        help: 'draw among the k likeliest words; 0: among all' },
      { name: 'seed', label: 'Seed (--seed)', type: 'number', flag: '--seed', value: '3', changed: fromTheStart,
        help: 'of the draws', samples: ['1', '7'], bad: ['-1', '18446744073709551616'] },
      // The two buttons together, after the settings: placed among them, a button reads as part of the
      // control beside it. (The order is the page's only: arguments() below names each flag.)
      { name: 'next', label: 'Next word', type: 'button', presses: 4,
        onClick: () => { if (!ended && steps < MOST_WORDS) steps += 1; } },
      { name: 'again', label: 'Start again', type: 'button', onClick: () => { steps = 1; } },
    ],
    arguments(values) {
      return ['--prompt', values.prompt, '--temperature', values.temperature, '--top-k', values.top_k,
        '--seed', values.seed, '--steps', String(steps)];
    },
    render(json, view) {
      // "T = 0.7 among the 5 likeliest" or "T = 1 among every word", each number live at its pointer.
      const drawnAt = (temperature, temperaturePointer, topK, topKPointer) => [
        'T = ', view.number(temperature, temperaturePointer), ' among ',
        ...(topK === 0 ? ['every word'] : ['the ', view.number(topK, topKPointer), ' likeliest'])];
      const generation = json.generation;
      const words = generation.words;
      const last = words.length - 1;
      const newest = words[last];
      const at = `/generation/words/${last}`;
      ended = generation.ended;
      const nextButton = view.control('next');
      nextButton.setAttribute('aria-disabled', String(ended || steps >= MOST_WORDS));

      // The sentence: the prompt, then the words written, the newest marked.
      const prompt = generation.prompt ? generation.prompt.split(' ') : [];
      const chips = [
        ...prompt.map((word) => element('span', { class: 'next-word-chip next-word-prompt', text: word })),
        ...words.map((word, i) => element('span', {
          class: `next-word-chip next-word-written${i === last ? ' next-word-newest' : ''}`, text: word.word,
        })),
      ];
      const line = element('p', { class: 'next-word-sentence' }, chips);
      line.setAttribute('aria-label', `The sentence: ${[...prompt, ...words.map((word) => word.word)].join(' ')}`);
      // Another sentence needs a draw: at T = 0, or among one word, the seed changes nothing.
      const drawn = json.inputs.temperature > 0 && json.inputs.top_k !== 1;
      const status = ended
        ? `The model wrote “.”: the sentence has ended, and the grammar ${generation.grammatical ? 'accepts it' : 'does not accept it'}. `
          + (drawn ? 'Change the seed for another sentence. '
            : json.inputs.temperature === 0 ? 'Raise T above 0 for another sentence. '
              : 'Set top-k to 0 or above 1 for another sentence. ')
          + 'Start again goes back to the first word; Next word then gives the same words.'
        : steps >= MOST_WORDS ? `Not ended after ${MOST_WORDS} words, where the page stops.`
          : 'Not ended yet: press Next word for one more.';

      // The newest word: how it was chosen, and the three words the model gave most.
      const inputs = json.inputs;
      const how = inputs.temperature === 0 ? ['the likeliest word (T = 0)']
        : inputs.top_k === 1 ? ['the likeliest word (top-k = 1: nothing to draw among)']
        : ['drawn at ', ...drawnAt(inputs.temperature, '/inputs/temperature', inputs.top_k, '/inputs/top_k'),
          ', with probability ', view.number(newest.drawn_with, `${at}/drawn_with`, '.3g'),
          // A draw: the u that chose the word, inside the word's stretch of the line from 0 to 1.
          ...(newest.u === undefined ? [] : ['; u = ', view.number(newest.u, `${at}/u`, 3),
            ' fell in its stretch, from ', view.number(newest.stretch[0], `${at}/stretch/0`, 3),
            ' to ', view.number(newest.stretch[1], `${at}/stretch/1`, 3)])];
      const top = element('table', { class: 'next-word-top' }, [
        element('caption', { text: 'The model’s likeliest three, before T and top-k' }),
        ...newest.top.map((candidate, i) => {
          const bar = element('span', { class: 'next-word-bar' });
          bar.style.width = `${(100 * candidate.probability).toFixed(1)}%`;
          return element('tr', { class: candidate.word === newest.word ? 'next-word-chosen' : '' }, [
            element('th', { scope: 'row', text: candidate.word }),
            element('td', { class: 'next-word-bar-cell' }, [bar]),
            element('td', {}, [view.number(candidate.probability, `${at}/top/${i}/probability`, '.3g')]),
          ]);
        }),
      ]);
      view.spokenSlot('sentence').replaceChildren(line, element('p', { class: 'next-word-status', text: status }),
        element('p', { class: 'interactive-sentence' }, [
          element('strong', { text: `Word ${last + 1}: ${quoted(newest.word)}` }), ', ', ...how,
          '; the model gave it ', view.number(newest.probability, `${at}/probability`, '.3g'), '.',
        ]));
      // A draw's line from 0 to 1, after T and top-k: each kept word's stretch as wide as its chance, the drawn
      // word's darker, and u as a tick. Raise T and the stretches even out; lower it, or top-k, and the likeliest
      // words take the line. Drawn from the JSON's stretches; no number is written on it.
      const strip = [];
      if (newest.u !== undefined && newest.line) {
        const segments = newest.line.map((piece, i) => {
          const segment = element('span', {
            class: `next-word-stretch${piece.word === newest.word ? ' next-word-stretch-drawn' : ''}${i % 2 ? ' next-word-stretch-odd' : ''}`,
            title: piece.word,
          });
          segment.style.left = `${100 * piece.from}%`;
          segment.style.width = `${100 * (piece.to - piece.from)}%`;
          if (piece.to - piece.from >= 0.08) segment.textContent = piece.word;
          return segment;
        });
        const tick = element('span', { class: 'next-word-u' });
        tick.style.left = `${100 * newest.u}%`;
        strip.push(element('p', { class: 'next-word-line-title', text: 'The line the draw used, after T and top-k: a stretch per word it kept; the tick is u' }),
          element('div', { class: 'next-word-line', role: 'img',
            'aria-label': `The line from 0 to 1 split among ${newest.line.length} words; u fell in the stretch of ${newest.word}` },
          [...segments, tick]),
          // A stretch too narrow for its word is named here too (a phone shows no hover title).
          element('p', { class: 'next-word-line-title', text: json.inputs.top_k === 0
            ? `Every word kept (${newest.line.length}); the likeliest have the widest stretches.`
            : `Kept, left to right: ${newest.line.map((piece) => piece.word).join(', ')}.` }));
      }
      view.slot('newest').replaceChildren(top, ...strip);

      // Where the position that chose it looked, over the words read so far: a row per head
      // (on a narrow screen a row per word), the last layer.
      const layer = newest.attention.length - 1;
      const heads = newest.attention[layer];
      const reads = newest.reads;
      const narrow = view.slot('attention').parentElement.clientWidth < 600;
      const cell = (h, j) => {
        const td = element('td', {}, [view.number(heads[h][j], `${at}/attention/${layer}/${h}/${j}`, 2)]);
        shaded(td, heads[h][j]);
        return td;
      };
      const headNames = heads.map((_, h) => `head ${h + 1}`);
      const rows = narrow
        ? [element('tr', {}, [element('th'), ...headNames.map((name) => element('th', { scope: 'col', text: name }))]),
          ...reads.map((word, j) => element('tr', {}, [element('th', { scope: 'row', text: word }), ...heads.map((_, h) => cell(h, j))]))]
        : [element('tr', {}, [element('th'), ...reads.map((word) => element('th', { scope: 'col', class: 'next-word-column', text: word }))]),
          ...heads.map((_, h) => element('tr', {}, [element('th', { scope: 'row', text: headNames[h] }), ...reads.map((_, j) => cell(h, j))]))];
      const layers = newest.attention.length > 1 ? `, layer ${layer + 1} of ${newest.attention.length}` : '';
      view.slot('attention').replaceChildren(element('table', { class: 'next-word-attention' }, [
        element('caption', { text: `Where the position that chose ${quoted(newest.word)} looked${layers}: each head’s weights over the words it read (the first “.” is the start)` }),
        ...rows,
      ]));

      // The cache: a row per word read, a key and a value per key/value head; this step's row is new.
      const cached = ended ? reads : [...reads, newest.word];
      const blocks = json.inputs.key_value_heads;
      const grid = element('div', { class: 'next-word-cache-grid', role: 'img' });
      grid.setAttribute('aria-label', `The cache holds a row for each of ${cached.length} words: ${cached.join(' ')}`);
      cached.forEach((word, t) => {
        const row = element('div', { class: `next-word-cache-row${!ended && t === cached.length - 1 ? ' next-word-cache-new' : ''}` },
          [element('span', { class: 'next-word-cache-word', text: word })]);
        for (const kind of ['key', 'value']) {
          for (let b = 0; b < blocks; b++) row.append(element('span', { class: `next-word-cache-${kind}` }));
        }
        grid.append(row);
      });
      view.slot('cache').replaceChildren(
        element('p', {
          class: 'interactive-plot-title next-word-narrow',
          text: 'The cache: a row per word read, holding a key (dark) and a value (light) for each key/value head; ' +
            (ended ? 'the final “.” is not read, so it gets no row' : 'this step’s row in orange'),
        }),
        grid,
        element('p', { class: 'interactive-sentence next-word-narrow' }, [
          'It holds ', view.number(newest.cache_numbers, `${at}/cache_numbers`), ' numbers, ',
          view.number(newest.cache_bytes, `${at}/cache_bytes`), ' bytes; ',
          view.number(json.cache_numbers_per_word, '/cache_numbers_per_word'), ' more per word, for ',
          view.number(blocks, '/inputs/key_value_heads'), ' key/value heads.',
        ]));

      view.slot('timing').replaceChildren(element('p', { class: 'interactive-sentence' }, [
        'Time per word written, measured in this page by the C++ clock: ',
        view.measured(json.seconds_per_word, '/seconds_per_word', `${view.numberText(json.seconds_per_word * 1e6, 1)} µs`),
        ` (the ${words.length} word${words.length === 1 ? '' : 's'} of this call, the prompt read first; `,
        'the browser rounds this clock, to a tenth of a millisecond or coarser, so the time over a few words is rough)',
        calls++ === 0 ? '. This first call ran while the browser was still compiling the module’s code: press Next word a few times for a steadier time.' : '.',
      ]));
      view.slot('model').replaceChildren(element('p', { class: 'interactive-sentence' }, [
        'The model was trained by the book’s build, natively (', view.number(inputs.training_steps, '/inputs/training_steps'),
        ' steps); its held-out loss per word is ', view.number(json.quality.held_out_loss, '/quality/held_out_loss'),
        ' (a model that gives every position the same probabilities: at best ', view.number(json.quality.no_context_loss, '/quality/no_context_loss'),
        '). Of ', view.number(inputs.judged, '/inputs/judged'), ' sentences it wrote at ',
        ...drawnAt(json.quality.judged_temperature, '/quality/judged_temperature', json.quality.judged_top_k,
          '/quality/judged_top_k'), ', cut at ',
        view.number(inputs.judged_words, '/inputs/judged_words'), ' words, the share that are grammatical is ', view.number(json.quality.grammatical, '/quality/grammatical'),
        '.',
      ]));
    },
  });
})();
