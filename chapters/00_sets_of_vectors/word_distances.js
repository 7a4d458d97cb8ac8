// Chapter 0's interactive figure: the vocabulary as one-hot vectors and as
// embeddings, with the distance between every pair of words, computed by the
// chapter's program (sets_of_vectors). Two sliders move the first word's
// embedding; the text fields take any words and any embeddings. The one-hot
// table does not move: it cannot, whatever the words are.
(function () {
  const first = Book.firstRowSliders({ field: 'embeddings', flag: '--embeddings', names: ['first_x', 'first_y'],
    labels: ["first word's embedding, entry 1", "first word's embedding, entry 2"], min: -1, max: 1, step: 0.05 });
  const largest = (...matrices) => Math.max(1e-9, ...matrices.flat(2).filter((v) => typeof v === 'number'));

  // "With the embeddings, cat to dog: 0.1414; cat to apple: 0.9899. cat is nearer to dog.", every number from the JSON.
  const comparison = (json, encoding) => {
    const [first, second, third] = json.words;
    const distances = json[encoding].distances;
    const nearer = json[encoding].nearer;
    return [
      `${encoding === 'one_hot' ? 'With one-hot vectors' : 'With the embeddings'}, ${first} to ${second}: `, [distances[0][1], `/${encoding}/distances/0/1`],
      `; ${first} to ${third}: `, [distances[0][2], `/${encoding}/distances/0/2`],
      nearer === 'neither' ? '. Neither is nearer.' : `. ${first} is nearer to ${nearer}.`,
    ];
  };

  Book.figure('word_distances', {
    program: 'sets_of_vectors',
    // The native build fuses multiply and add (FMA, -march=native); the WebAssembly build
    // does not, so a distance can differ in its last bit.
    tolerance: 1e-12,
    controls: [
      ...first.sliders,
      { name: 'embeddings', label: 'Embeddings (--embeddings)', type: 'text', flag: '--embeddings', changed: first.follow,
        help: 'one row per word: rows by ;, entries by ,',
        samples: ['0.25,0.85;0.8,0.3;0.2,0.9;0.3,0.7', '1;2;3;4', '1,0,0;0,1,0;0,0,1;1,1,1'],
        bad: ['1,0;0,1', '1,0;0,x;1,1;0,0'] },
      { name: 'words', label: 'Words (--words)', type: 'text', flag: '--words',
        help: 'one name per row of the embeddings',
        samples: ['lion,tiger,plum,fig', 'cat,apple,dog,pear'], bad: ['cat,dog', 'cat,,dog,pear'] },
    ],
    render(json, view) {
      const words = json.words;
      // The embeddings as points, when they are two numbers wide: drag the
      // first word and watch its distances change.
      if (json.embedding.vectors.every((vector) => vector.length === 2)) {
        view.scatter('plane', json.embedding.vectors, {
          labels: words, movable: 0, title: `The embeddings in the plane (entry 1 across, entry 2 up): drag ${words[0]}`,
          moved: (x, y) => view.drive({ first_x: x, first_y: y }),
        });
      } else {
        view.slot('plane').replaceChildren();
      }
      // The embeddings' distances first, beside the plane (under it on a phone): they are what a drag moves.
      // The one-hot table after them: its numbers never change (its shades share the embeddings' scale).
      const domain = [0, largest(json.one_hot.distances, json.embedding.distances)];
      view.heatmap('embedding', json.embedding.distances, {
        rows: words, columns: words, label: 'distance', domain, title: 'Embeddings: distances',
      });
      view.sentence('embedding_sentence', comparison(json, 'embedding'));
      // Distances, not dot products: a sum of squares never cancels, so the last-bit
      // difference FMA makes stays relative; a dot product can cancel to 0 in one build
      // and to 1e-17 in the other.
      view.matrix('embedding_table', json.embedding.distances, {
        title: 'Embeddings: distances, to four decimals', rows: words, columns: words, pointer: '/embedding/distances',
      });
      view.heatmap('one_hot', json.one_hot.distances, {
        rows: words, columns: words, label: 'distance', domain, title: 'One-hot vectors: distances',
      });
      view.sentence('one_hot_sentence', comparison(json, 'one_hot'));
    },
  });
})();
