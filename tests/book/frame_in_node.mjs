// interactive.js run as the page loads it, in a context with just enough of a document for it to
// define window.Book: the frame's pure helpers, for tests that need no browser.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

export const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function loadBook() {
  const window = {};
  const document = {
    currentScript: { src: 'https://book.invalid/_static/interactive.js' },
    readyState: 'loading',
    addEventListener() {},
  };
  vm.runInNewContext(fs.readFileSync(path.join(repository, 'docs', '_static', 'interactive.js'), 'utf8'),
    { window, document, console });
  return window.Book;
}
