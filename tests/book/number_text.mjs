// The page's number formats held to the book's cases (tests/number_text_cases.json): numberText,
// as the page's tables write numbers, and formatNumber, as the prose's :value: roles with a format
// spec write them, from interactive.js as the page loads it (frame_in_node.mjs).
//
//   node tests/book/number_text.mjs
import fs from 'node:fs';
import path from 'node:path';
import { loadBook, repository } from './frame_in_node.mjs';

const cases = JSON.parse(fs.readFileSync(path.join(repository, 'tests', 'number_text_cases.json'), 'utf8'));
const { numberText, formatNumber, powerOfTen } = loadBook();

const failures = [];
let count = 0;
function check(call, got, expected, why) {
  count++;
  if (got !== expected) failures.push(`${call} gave ${JSON.stringify(got)}, expected ${JSON.stringify(expected)} (${why})`);
}
for (const { value, decimals, text, why } of cases.tables) {
  if (decimals === undefined) check(`numberText(${JSON.stringify(value)})`, numberText(value), text, why);
  else check(`numberText(${JSON.stringify(value)}, ${decimals})`, numberText(value, decimals), text, why);
}
for (const { value, format, text, why } of cases.formats) {
  let got;
  try {
    got = formatNumber(value, format);
  } catch (error) {
    got = `(threw: ${error.message})`;
  }
  check(`formatNumber(${JSON.stringify(value)}, ${JSON.stringify(format)})`, got, text, why);
}
// A log axis's ticks: the exponent written out with the book's minus sign, never an SI prefix.
for (const [value, text] of [[1e-6, '1e−6'], [1e-12, '1e−12'], [1, '1e0'], [1000, '1e3'], [0.09999999999999999, '1e−1']]) {
  check(`powerOfTen(${value})`, powerOfTen(value), text, 'a tick at a power of ten');
}
// A format the book does not use is refused, not guessed at.
for (const [value, format] of [[1.5, '.3'], [1.5, 'x'], [1.5, ','], ['abc', '.1e']]) {
  count++;
  let threw = false;
  try {
    formatNumber(value, format);
  } catch {
    threw = true;
  }
  if (!threw) failures.push(`formatNumber(${JSON.stringify(value)}, ${JSON.stringify(format)}) did not refuse`);
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  console.error(`${failures.length} of ${count} cases wrong`);
  process.exit(1);
}
console.log(`${count} cases as tests/number_text_cases.json writes them`);
