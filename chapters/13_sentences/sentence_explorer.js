// Chapter 13's interactive figure: the reader's own sentence, read by the model
// the chapter trains. The page's module holds the model the build trained
// natively (tools/models_for_the_page.py says why it is not
// trained again here); the chapter's program, compiled to WebAssembly, reads
// each sentence with one forward pass: the tag of each word (or, for
// agreement, the verb's number) and each head's attention weights.
(function () {
  const examples = { tagging: 'I saw a saw', agreement: 'the key to the cabinets' };
  // A new task gets that task's example sentence, since a sentence of one task is rarely an input of the other.
  const switchTask = (values, set) => set('sentence', examples[values.task]);

  Book.figure('sentence_explorer', {
    program: 'sentences',
    worker: true,
    // The native build fuses multiply and add (FMA); the WebAssembly build does not, so a
    // forward pass through the same weights can differ in its last bits.
    tolerance: 1e-12,
    controls: [
      { name: 'task', label: 'Task (--task)', type: 'select', flag: '--task', changed: switchTask,
        options: [['tagging', 'tag every word'], ['agreement', 'the number of the verb after a subject']] },
      { name: 'sentence', label: 'Sentence (--sentence)', type: 'text', flag: '--sentence', value: (defaults) => examples[defaults['--task']],
        help: 'words of the language, separated by spaces; for agreement, a subject with a noun (the model never saw a pronoun subject)',
        samples: ['the flies fly the watches near the park', 'they watch the watches', 'the dogs that saw a cat can the ducks'],
        bad: ['the cat sat on a mat', 'I saw a [verb]'] },
    ],
    render(json, view) {
      const words = json.reading.words;
      const tagging = json.task === 'tagging';
      const answers = json.reading.answers;
      const chosen = (answer) => json.outputs.indexOf(answer);
      if (tagging) {
        const parts = ['Tags: '];
        words.forEach((word, t) => {
          const k = chosen(answers[t]);
          parts.push(`${t ? '; ' : ''}${word} → ${answers[t]} (p = `,
            [json.reading.probabilities[t][k], `/reading/probabilities/${t}/${k}`, '.3f'], ')');
        });
        view.sentence('answer', parts);
      } else {
        const k = chosen(answers[0]);
        view.sentence('answer', [`The verb takes the form for ${answers[0]} (p = `,
          [json.reading.probabilities[0][k], `/reading/probabilities/0/${k}`, '.3f'], ').']);
      }
      // A word that occurs twice gets its position, so that each row and column has a label of its own.
      const labels = words.map((word, t) => (words.indexOf(word) === words.lastIndexOf(word) ? word : `${word} (${t + 1})`));
      const width = view.slot('head_0_0').parentElement.clientWidth;
      const cell = width >= 720 ? Math.max(34, Math.min(48, Math.floor((width / 2 - 120) / words.length))) : undefined;
      // When tagging, each ambiguous word's clue is framed: the word before it, which the chapter's heads learn to read.
      const ambiguous = json.language.ambiguous ?? [];
      const clues = tagging ? words.flatMap((word, t) => (t > 0 && ambiguous.includes(word) ? [[t, t - 1]] : [])) : [];
      json.reading.attention.forEach((layer, l) => layer.forEach((head, h) => {
        view.heatmap(`head_${l}_${h}`, head, {
          rows: labels, columns: labels, cell, dotted: clues,
          title: `Head ${h + 1}${json.reading.attention.length > 1 ? ` of layer ${l + 1}` : ''}: each row is a word reading the others`
            + (clues.length ? '; dotted: the word before each ambiguous word (the first word has none)' : ''),
        });
      }));
      // One row of weights in numbers: for agreement, the slot's; when tagging, the last ambiguous word's after the
      // first (the second saw, whose clue, the word before it, is not the first word), else the second word's.
      const lastAmbiguous = words.reduce((found, word, t) => (t > 0 && ambiguous.includes(word) ? t : found), -1);
      const reader = tagging ? (lastAmbiguous > 0 ? lastAmbiguous : Math.min(1, words.length - 1)) : words.length - 1;
      const parts = [tagging ? `Where "${words[reader]}" (word ${reader + 1}) puts its weight. `
        : `Where the slot "${words[reader]}" (position ${reader + 1}) puts its weight. `];
      json.reading.attention.forEach((layer, l) => layer.forEach((head, h) => {
        parts.push(`Head ${h + 1}${json.reading.attention.length > 1 ? ` of layer ${l + 1}` : ''}: `);
        words.forEach((word, j) => {
          parts.push(`${j ? ', ' : ''}${labels[j]} `, [head[reader][j], `/reading/attention/${l}/${h}/${reader}/${j}`, 2]);
        });
        parts.push('. ');
      }));
      view.sentence('reader_row', parts);
      view.sentence('held_out', tagging
        ? ['Held-out accuracy of this model: all words ', [json.accuracy, '/accuracy', '.1%'],
          ', ambiguous words ', [json.ambiguous.accuracy, '/ambiguous/accuracy', '.1%'], '.']
        : ['Held-out accuracy of this model, over the subjects: ', [json.accuracy, '/accuracy', '.1%'], '.']);
    },
  });
})();
