// ESLint's recommended rules over the book's JavaScript (the test hygiene.javascript, tests/CMakeLists.txt):
// the page's scripts and the chapters' figures run in the browser, as scripts, with the page's Book;
// the checks and tools run in Node, and the checks hand functions to the browser (page.evaluate).
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    files: ['docs/_static/**/*.js', 'chapters/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, Book: 'readonly' } },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },
];
