// Chapter 0's interactive figure: the vocabulary as one-hot vectors and as
// embeddings, with the distance between every pair of words, computed by the
// chapter's program (sets_of_vectors). Two sliders move the first word's
// embedding; the text fields take any words and any embeddings. The one-hot
// table does not move: it cannot, whatever the words are.
(function () {
  const first = Book.firstRowSliders({ field: 'embeddings', flag: '--embeddings', names: ['first_x', 'first_y'],
    labels: ["first word's embedding, entry 1", "first word's embedding, entry 2"], min: -1, max: 1, step: 0.05 });
  const largest = (...matrices) => Math.max(1e-9, ...matrices.flat(2).filter((v) => typeof v === 'number'));
  // The plane takes in every point: from -1 to 1 at least, out to the whole numbers beyond the farthest.
  const reach = (vectors) => {
    const entries = vectors.flat().filter(Number.isFinite);
    return [Math.min(-1, Math.floor(Math.min(...entries))), Math.max(1, Math.ceil(Math.max(...entries)))];
  };
  // While the first word is dragged the plane keeps (or widens) its scale: the drag measures the pointer
  // against the plane it started on. Anything else sets it afresh.
  let dragged = false;
  let kept = null;

  // "With the embeddings, cat to dog: 0.1414; cat to apple: 0.9899. Of dog and apple, cat is nearer to dog.",
  // every number from the JSON. The program compares the first word with the second and the third only.
  const comparison = (json, encoding) => {
    const [first, second, third] = json.words;
    const distances = json[encoding].distances;
    const nearer = json[encoding].nearer;
    return [
      `${encoding === 'one_hot' ? 'With one-hot vectors' : 'With the embeddings'}, ${first} to ${second}: `, [distances[0][1], `/${encoding}/distances/0/1`],
      `; ${first} to ${third}: `, [distances[0][2], `/${encoding}/distances/0/2`],
      nearer === 'neither' ? `. ${first} is as near to ${second} as to ${third}.`
        : `. Of ${second} and ${third}, ${first} is nearer to ${nearer}.`,
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
        help: `one row per word: ${Book.matrixFormat}; the plane and the sliders need two entries a row`,
        samples: ['0.25,0.85;0.8,0.3;0.2,0.9;0.3,0.7', '1;2;3;4', '1,0,0;0,1,0;0,0,1;1,1,1'],
        bad: ['1,0;0,1', '1,0;0,x;1,1;0,0'] },
      { name: 'words', label: 'Words (--words)', type: 'text', flag: '--words',
        help: 'one name per row of the embeddings',
        samples: ['lion,tiger,plum,fig', 'cat,apple,dog,pear'], bad: ['cat,dog', 'cat,,dog,pear'] },
    ],
    render(json, view) {
      const words = json.words;
      const onPlane = json.embedding.vectors.every((vector) => vector.length === 2);
      // The sliders move nothing while there is no plane: dimmed then, still movable (as chapter 4's radius).
      first.dim(view, onPlane);
      // The embeddings as points, when they are two numbers wide: drag the
      // first word and watch its distances change. The drag writes the first row of the
      // field, as the sliders do, but anywhere in the plane, beyond the sliders' -1 to 1 too.
      if (onPlane) {
        let range = reach(json.embedding.vectors);
        if (dragged && kept) range = [Math.min(range[0], kept[0]), Math.max(range[1], kept[1])];
        dragged = false;
        kept = range;
        view.scatter('plane', json.embedding.vectors, {
          labels: words, movable: 0, range, title: `The embeddings in the plane (entry 1 across, entry 2 up): drag ${words[0]}`,
          moved: (x, y) => {
            dragged = true;
            view.drive({ embeddings: [`${x},${y}`, ...Book.matrixRows(view.control('embeddings').value).slice(1)].join(';') });
          },
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
