// Book.firstRowSliders (docs/_static/interactive.js): two sliders that edit a matrix field's first
// row (or the row a figure names), and follow that row typed in the field when they can show it. The
// figures of chapters 0, 1, 3 and 9 use it.
//
//   node tests/book/first_row_sliders.mjs
import assert from 'node:assert/strict';
import { loadBook } from './frame_in_node.mjs';

const { firstRowSliders } = loadBook();
const cat = firstRowSliders({ field: 'q', flag: '--q', names: ['cat_x', 'cat_y'],
  labels: ["cat's query, entry 1", "cat's query, entry 2"], min: -3, max: 3, step: 0.5 });

// What a hook sets, as [name, value] pairs in order.
function setBy(hook, values) {
  const changes = [];
  hook(values, (name, value) => changes.push([name, value]), {});
  return changes;
}

const failures = [];
function check(what, test) {
  try {
    test();
  } catch (error) {
    failures.push(`${what}: ${error.message}`);
  }
}

check('the sliders are the two controls named, each a range with the bounds given', () => {
  assert.deepEqual(cat.sliders.map((s) => [s.name, s.label, s.type, s.min, s.max, s.step]),
    [['cat_x', "cat's query, entry 1", 'range', -3, 3, 0.5], ['cat_y', "cat's query, entry 2", 'range', -3, 3, 0.5]]);
});
check("each slider starts at its entry of the default's first row", () => {
  const defaults = { '--q': ' 1.5, -2 ; 0,1;1,1' };
  assert.deepEqual(cat.sliders.map((s) => s.value(defaults)), ['1.5', '-2']);
});
check('a slider moved rewrites its entry of the first row and keeps the other rows as typed', () => {
  assert.deepEqual(setBy(cat.sliders[0].changed, { cat_x: '2', cat_y: '0', q: '1,0; 0,1;1,1' }),
    [['q', '2,0; 0,1;1,1']]);
});
check('a slider moved changes only its own entry: the other stays as typed, off the sliders\' steps too', () => {
  assert.deepEqual(setBy(cat.sliders[1].changed, { cat_x: '0', cat_y: '1.5', q: '0.3, 0;0,1;1,1' }),
    [['q', '0.3,1.5;0,1;1,1']]);
});
for (const [q, why] of [['1;2;3', 'one entry'], ['1,0,0;0,1,0;1,1,1', 'three entries']]) {
  check(`a slider moved while the row is not two entries wide (${why}) writes nothing: it would change the row's width`, () => {
    assert.deepEqual(setBy(cat.sliders[0].changed, { cat_x: '1', cat_y: '0', q }), []);
  });
}
check('a typed first row the sliders can show moves both', () => {
  assert.deepEqual(setBy(cat.follow, { q: '3, -2.5;0,1;1,1' }), [['cat_x', 3], ['cat_y', -2.5]]);
  assert.deepEqual(setBy(cat.follow, { q: '0,0' }), [['cat_x', 0], ['cat_y', 0]]);
  assert.deepEqual(setBy(cat.follow, { q: '-3,3;0,1' }), [['cat_x', -3], ['cat_y', 3]]);  // both ends are on the sliders
});
for (const [q, why] of [['3.5,0;0,1', 'past the largest'], ['-4,0;0,1', 'below the smallest'],
  ['0.3,0;0,1', 'between two steps'], ['1;2;3', 'one entry, not two'], ['1,0,1;0,1,0', 'three entries'],
  [',1;0,1', 'an empty entry'], ['x,1;0,1', 'not a number'], ['', 'an empty field']]) {
  check(`a first row the sliders cannot show (${why}: "${q}") leaves them`, () => {
    assert.deepEqual(setBy(cat.follow, { q }), []);
  });
}
check('steps are counted from the smallest value, with a step that is not a power of two', () => {
  const first = firstRowSliders({ field: 'e', flag: '--e', names: ['x', 'y'], labels: ['x', 'y'], min: -1, max: 1, step: 0.05 });
  assert.deepEqual(setBy(first.follow, { e: '0.85,-0.35;1,1' }), [['x', 0.85], ['y', -0.35]]);
  assert.deepEqual(setBy(first.follow, { e: '0.851,0;1,1' }), []);
});
check('given row(values), the sliders edit and follow that row, the others kept as typed', () => {
  const third = firstRowSliders({ field: 'q', flag: '--q', names: ['x', 'y'], labels: ['x', 'y'], min: -5, max: 5,
    step: 0.5, row: (values) => Number(values.asking) });
  assert.deepEqual(setBy(third.sliders[0].changed, { x: '2', y: '0', asking: '2', q: '1,0;0,1; 1, 1' }),
    [['q', '1,0;0,1;2,1']]);
  assert.deepEqual(setBy(third.follow, { asking: '1', q: '1,0;-2.5,4;1,1' }), [['x', -2.5], ['y', 4]]);
  assert.deepEqual(setBy(third.follow, { asking: '1', q: '1,0;0.3,4;1,1' }), []);
});

if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log('firstRowSliders: every case as expected');
