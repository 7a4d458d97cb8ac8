#!/usr/bin/env node
// Browser check for the Sphinx-rendered HTML book.
//
//   node tests/book/browser_check.mjs --site DIR --screenshots DIR [--bin DIR] [--page TEXT]
//
// Serves --site from a private static server on 127.0.0.1 (ephemeral port),
// opens every content page in headless Chromium (Debian's chromium-headless-shell,
// driven by playwright-core; one browser for each width, a few tabs at a time)
// and checks, per page:
//   * no request leaves the local server (the book must work offline);
//   * no failed request and no HTTP status >= 400 (a figure's drawing for the other
//     width, which Chromium may start to fetch and then drop, is not a failure);
//   * no console error and no uncaught page error;
//   * every <img> has loaded (complete && naturalWidth > 0);
//   * the formulas, drawn when the book was built: every .math element holds
//     one, with a size, its glyphs and its MathML; no TeX error, no raw TeX
//     left in the visible text, no MathJax loaded;
//   * every same-origin <a href> points at an existing file, and its
//     #fragment (if any) exists as an id/name in the target file;
// and, at each of two widths (a laptop, 1280 x 900, and a phone, 390 x 844
// with touch), that the page reads there:
//   * one viewport tag, pinch-zoom allowed (no maximum-scale, no user-scalable=no);
//   * the page never scrolls sideways, nor does its column of text (a word
//     or an inline formula wider than a phone's line);
//   * no code block hides anything: at 1280 px every listing and every output
//     (collapsed ones opened and every tab shown for the check) fits its
//     column; at 390 px each fits or scrolls with a scrollbar that takes
//     visible room;
//   * no display formula is cut off (a wide one scrolls in its own box);
//   * every figure is drawn at 60 % of its size or more, so its 11 pt labels
//     stay readable (a wide one scrolls inside its own box); at 390 px a
//     figure drawn also for narrow screens shows that drawing, whole;
//   * every live number shows its provenance on keyboard focus (a tap focuses
//     it too), inside the screen, one in a closed fold with its fold opened;
//   * at 390 px the contents sidebar is off-screen behind its button;
//   * at 390 px every control of an interactive figure is 24 by 24 px or larger, a finger's target;
//   * in the dark scheme, each figure sits on a white sheet;
// then writes full-page PNG screenshots of the page, light and dark, at that
// width (<page>-<width>-<scheme>.png), and prints each page's height at
// 1280 px. index.html is loaded once more over file:// to prove the book is
// readable straight from disk.
//
// With --bin DIR (the chapter programs), it then drives every interactive
// figure of the page at that width, in the same tab, against the native
// programs: interactive_check.mjs says what is checked. A page load costs
// about 2.5 s of processor time here, so the figures are driven in the loads
// this check makes anyway rather than in loads of their own.
//
// A full-page capture is the slowest part of the check (2 s for a chapter,
// 10 s for the API page, on this book's 2-core machine). So captures are kept
// in the book's cache, under a hash of everything the picture is made from:
// the page's address, the width and scheme, Chromium's version, this file,
// the content of every local file the page loaded (its HTML, styles,
// scripts, figures, fonts) and the page as its scripts left it at the moment
// of the capture (its serialised DOM: every number and mark the interactive
// figures drew). The WebAssembly module is not in the key: it changes with
// any chapter's C++, and what it computes for a page is in that page's DOM.
// A page whose files and drawing did not change is not captured again; its
// picture is copied from the cache (a check that runs makes every check above;
// a page's pass may be kept whole, below). The cache is the folder screenshots/
// of the book's cache, which tools/cached_command.py finds and prunes ($BOOK_CACHE_DIR,
// else $XDG_CACHE_HOME/attention-compiled or ~/.cache/attention-compiled;
// files not used for 14 days are removed). The system's fonts are not in the
// key: after installing or removing fonts, delete the folder.
//
// The native programs' answers to the figures' settings are kept the same way,
// in the folder native-answers/, under a hash of the program's bytes and its
// arguments (interactive_check.mjs, useNativeCache).
//
// A page's whole check at one width that passed is kept too, in the folder
// browser-passes/, and not made again while nothing it rests on has changed:
// the check's own files (this one, interactive_check.mjs, number_text.mjs),
// Chromium's and Node's versions, the pinned npm packages, whether --bin was
// given, the page's HTML, every file of the site's _static folder, the
// content of every local file the page loaded (the WebAssembly module among
// them), the anchors of every page it links to, and, for a page with an
// interactive figure, the native programs' bytes. The check is deterministic
// for given inputs (its "random" settings come from a seeded generator), so a
// kept pass is the pass it would make again. The record brings back what the
// check reported: the page's height, its figures' lines and its pictures
// (from the screenshot cache). A check that failed is never kept, and
// index.html over file:// is always checked. BOOK_CHECK_AGAIN=1 in the
// environment checks every page again.
//
// Output: `FAIL <page>: <what>` lines on stderr, a summary on stdout ending
// with `N passed, M failed` (pages). Exit 0 if all pass, 1 if any fail,
// 2 on bad usage.
//
// playwright-core is resolved from ../../tools/node_modules (relative to this
// file), or from $NODE_MODULES_DIR if set. No other dependencies.

import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import http from 'node:http';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';

import { checkFiguresOfPage, useNativeCache, nativeCacheUse } from './interactive_check.mjs';

// Debian's chromium-headless-shell: Chromium's engine without its browser
// window. Chromium's own headless mode (/usr/bin/chromium --headless) draws a
// window nobody sees, and opens two renderers for its address bar with every
// tab: a page load here cost about 6 s of processor time that way, 2.7 s this
// way. (The binary itself: /usr/bin/chromium-headless-shell is a shell script
// that does not exec it.)
const CHROMIUM = '/usr/lib/chromium/chromium-headless-shell';
const PAGE_TIMEOUT_MS = 30_000;     // budget for loading one page, and for one screenshot
const CHECK_TIMEOUT_MS = 360_000;   // whole budget for one page's check (screenshots wait their turn)
const SCREENSHOT_TIMEOUT_MS = 120_000;  // a full-page capture of a tall page is slow on a busy machine
// A full-page picture ends this far down. Every chapter is shorter, at both widths (the tallest, about 25,000 px
// at 390 px); the API reference is about 100,000 px tall at 1280 px and 165,000 px at 390 px, and its four whole
// pictures took about a quarter of a cold check's picture time (54 of 195 s). Its entries below this height look
// like those above.
const PICTURE_HEIGHT = 40_000;
const IMAGE_TIMEOUT_MS = 10_000;    // wait for <img> loads after scrolling
const FIGURES_TIMEOUT_MS = 15_000;  // wait for the interactive figures to be drawn before the pictures
// Pages checked side by side (each width's browser takes its screenshots one at a time): one per processor,
// at most 3. On a 2-processor machine, 3 kept both busy with Chromium's processes competing, and cost more
// processor time than 2 for a check no quicker (README, under tools/run-tests). BOOK_BROWSER_PAGES=N sets it,
// to measure.
const CONCURRENCY = Number(process.env.BOOK_BROWSER_PAGES) || Math.min(3, os.availableParallelism());
const EXCLUDED_FILES = new Set(['genindex.html', 'search.html', 'py-modindex.html']);
const EXCLUDED_DIRS = new Set(['_static', '_sources', '_images']);
const FILE_ENTRY = 'index.html (file://)';
const VIEWPORTS = {
  1280: { viewport: { width: 1280, height: 900 } },
  // A phone's width, with touch. Not Chromium's mobile emulation: that draws
  // overlay scrollbars, and whether a listing shows that it scrolls is part
  // of the check.
  390: { viewport: { width: 390, height: 844 }, hasTouch: true },
};
const SMALLEST_FIGURE_SCALE = 0.6;  // book.js keeps figures at least this large

const USAGE = 'usage: node browser_check.mjs --site DIR --screenshots DIR [--bin DIR: drive the interactive figures against these programs] [--page TEXT: only pages whose path contains it]';

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

function usageError(msg) {
  process.stderr.write(`${msg}; ${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (arg === '-h' || arg === '--help') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    }
    if (!['--site', '--screenshots', '--page', '--bin'].includes(arg)) usageError(`unknown argument: ${argv[i]}`);
    if (value === undefined) {
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) usageError(`${arg} needs a value`);
      value = argv[++i];
    }
    if (!value) usageError(`${arg} needs a value`);
    opts[arg.slice(2)] = value;
  }
  if (!opts.site) usageError('missing --site');
  if (!opts.screenshots) usageError('missing --screenshots');
  const site = path.resolve(opts.site);
  if (!fs.existsSync(path.join(site, 'index.html'))) usageError(`--site ${opts.site} has no index.html`);
  // The book's cache (made, and pruned of entries not used for 14 days, by tools/cached_command.py).
  const cachedCommand = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tools', 'cached_command.py');
  const folder = (name) => execFileSync('/usr/bin/python3', [cachedCommand, '--folder', name], { encoding: 'utf8' }).trim();
  if (opts.bin && !fs.existsSync(opts.bin)) usageError(`--bin ${opts.bin} does not exist`);
  return {
    site: fs.realpathSync(site), screenshots: path.resolve(opts.screenshots), page: opts.page ?? '',
    cache: path.resolve(folder('screenshots')), nativeCache: opts.bin ? path.resolve(folder('native-answers')) : null,
    passes: path.resolve(folder('browser-passes')),
    bin: opts.bin ? path.resolve(opts.bin) : null,
  };
}

// ---------------------------------------------------------------------------
// playwright-core
// ---------------------------------------------------------------------------

function loadPlaywright() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dir = process.env.NODE_MODULES_DIR || path.join(here, '..', '..', 'tools', 'node_modules');
  // createRequire needs a file path inside the directory whose node_modules
  // lookup we want; resolve playwright-core from `dir` explicitly.
  const require = createRequire(path.join(path.resolve(dir), 'noop.js'));
  try {
    return require(require.resolve('playwright-core', { paths: [path.resolve(dir)] }));
  } catch (err) {
    throw new Error(`cannot load playwright-core from ${dir} (set NODE_MODULES_DIR?): ${err.message.split('\n')[0]}`);
  }
}

// ---------------------------------------------------------------------------
// Static file server
// ---------------------------------------------------------------------------

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.eot': 'application/vnd.ms-fontobject',
  '.pdf': 'application/pdf',
  '.inv': 'application/octet-stream', // Sphinx objects.inv (zlib-compressed)
  '.wasm': 'application/wasm',
};

function contentType(file) {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream';
}

// Map a URL path to a file inside `root`, or null if it would escape `root`.
function safeJoin(root, urlPath) {
  if (urlPath.includes('\0')) return null;
  const full = path.resolve(root, '.' + path.posix.normalize('/' + urlPath));
  if (full !== root && !full.startsWith(root + path.sep)) return null;
  return full;
}

function startServer(root) {
  const server = http.createServer(async (req, res) => {
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
      let urlPath;
      try {
        urlPath = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
      } catch {
        return send(400, 'bad request\n');
      }
      let file = safeJoin(root, urlPath);
      if (!file) return send(403, 'forbidden\n');
      let st = await fsp.stat(file).catch(() => null);
      if (st && st.isDirectory()) {
        // Directory: redirect to the slash form, then serve its index.html.
        if (!urlPath.endsWith('/')) return send(301, '', { Location: encodeURI(urlPath) + '/' });
        file = path.join(file, 'index.html');
        st = await fsp.stat(file).catch(() => null);
      }
      if (!st || !st.isFile()) return send(404, 'not found\n');
      // Symlinks must not lead outside the site either.
      const real = await fsp.realpath(file);
      if (real !== root && !real.startsWith(root + path.sep)) return send(403, 'forbidden\n');
      res.writeHead(200, {
        'Content-Type': contentType(file),
        'Content-Length': st.size,
        // The site does not change during a run: let Chromium cache assets
        // (the WebAssembly module is 1.6 MB) across pages.
        'Cache-Control': 'max-age=3600',
      });
      if (req.method === 'HEAD') return res.end();
      fs.createReadStream(file).on('error', () => res.destroy()).pipe(res);
    } catch (err) {
      if (!res.headersSent) send(500, `server error: ${err.message}\n`);
      else res.destroy();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function stopServer(server) {
  if (!server || !server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

// ---------------------------------------------------------------------------
// Site helpers
// ---------------------------------------------------------------------------

// All content pages: every .html under the site minus the Sphinx index/search
// pages and the asset folders. Relative POSIX paths, sorted, index.html first.
function listPages(root) {
  const pages = [];
  const walk = (dir, rel) => {
    for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
      const relPath = rel ? `${rel}/${ent.name}` : ent.name;
      if (ent.isDirectory()) {
        if (!rel && EXCLUDED_DIRS.has(ent.name)) continue;
        walk(path.join(dir, ent.name), relPath);
      } else if (ent.isFile() && ent.name.endsWith('.html')) {
        if (!rel && EXCLUDED_FILES.has(ent.name)) continue;
        pages.push(relPath);
      }
    }
  };
  walk(root, '');
  pages.sort((a, b) => (a === 'index.html' ? -1 : b === 'index.html' ? 1 : (a < b ? -1 : a > b ? 1 : 0)));
  return pages;
}

// chapters/01_dot_product/index.html -> chapters_01_dot_product_index.png
function screenshotName(relPage, used) {
  let base = relPage.replace(/\.html?$/, '').replace(/[/\\]/g, '_').replace(/[^A-Za-z0-9._-]/g, '_');
  let name = `${base}.png`;
  for (let n = 2; used.has(name); n++) name = `${base}-${n}.png`;
  used.add(name);
  return name;
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function decodeEntities(s) {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(cp) ? String.fromCodePoint(cp) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

// Set of id="..." / name="..." values found in the start tags of an HTML file.
const anchorCache = new Map();
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const html = fs.readFileSync(file, 'utf8').replace(/<!--[\s\S]*?-->/g, '');
  const ids = new Set();
  const tagRe = /<[A-Za-z][^>]*>/g;
  const attrRe = /\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;
  for (const [tag] of html.matchAll(tagRe)) {
    for (const m of tag.matchAll(attrRe)) ids.add(decodeEntities(m[1] ?? m[2] ?? m[3]));
  }
  anchorCache.set(file, ids);
  return ids;
}

// The file at `file`, or the index.html in it if it is a folder; null if there is none.
function servedFile(file) {
  if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) file = path.join(file, 'index.html');
  return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ? file : null;
}

// The file the site serves at a URL's path, or why there is none.
function siteFile(root, pathname) {
  let rel;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    return { error: `malformed link path ${pathname}` };
  }
  const joined = safeJoin(root, rel);
  if (!joined) return { error: `link escapes the site: ${pathname}` };
  const file = servedFile(joined);
  return file ? { file } : { error: `missing target ${rel.replace(/^\/+/, '')}` };
}

// Check one resolved same-origin link; return an error string or null.
function checkLink(root, url) {
  const { file, error } = siteFile(root, url.pathname);
  if (error) return error;
  let frag = url.hash.slice(1);
  if (!frag) return null;
  try {
    frag = decodeURIComponent(frag);
  } catch {
    /* keep raw */
  }
  if (frag.toLowerCase() === 'top') return null; // browsers scroll to top without an element
  if (!/\.html?$/i.test(file)) return null;      // fragments into non-HTML files are not checked
  if (!anchorsOf(file).has(frag)) return `missing anchor #${frag} in ${path.relative(root, file).split(path.sep).join('/')}`;
  return null;
}

// ---------------------------------------------------------------------------
// In-page probes (run inside Chromium)
// ---------------------------------------------------------------------------

// Every interactive figure drawn at the width its box now has, with no redraw waiting for a width to settle
// (data-resizing), or showing its error. A figure that trains in a worker goes on drawing; its first drawing is
// enough.
function figuresSettled() {
  return [...document.querySelectorAll('div.interactive')].every((root) =>
    root.dataset.state === 'error' ||
    (root.dataset.drawnWidth !== undefined &&
      (root.dataset.runs === 'worker' ||
        (root.dataset.state === 'ready' && root.dataset.resizing === undefined &&
          Number(root.dataset.drawnWidth) === root.clientWidth))));
}

// Scroll through the page so lazy images start loading, then wait (bounded)
// for every <img> to settle and report the ones that did not load.
async function probeImages(timeoutMs) {
  const step = Math.max(200, window.innerHeight);
  for (let y = 0; y < document.documentElement.scrollHeight; y += step) {
    window.scrollTo(0, y);
    await new Promise((r) => setTimeout(r, 10));
  }
  window.scrollTo(0, 0);
  const imgs = [...document.images];
  const settle = (img) =>
    img.complete
      ? Promise.resolve()
      : new Promise((r) => {
          img.addEventListener('load', r, { once: true });
          img.addEventListener('error', r, { once: true });
        });
  await Promise.race([
    Promise.all(imgs.map(settle)),
    new Promise((r) => setTimeout(r, timeoutMs)),
  ]);
  return imgs
    .filter((img) => !(img.complete && img.naturalWidth > 0))
    .map((img) => `${img.getAttribute('src')} (${img.complete ? 'broken' : 'not loaded'})`);
}

// The formulas, drawn when the book was built (docs/_ext/book_math.py): every
// .math element holds one drawn formula with its MathML for screen readers,
// each drawing has a size and finds every glyph it uses in the page, none is a
// TeX error, no raw TeX is left in the visible text, and no MathJax is loaded.
function probeMath() {
  const mathEls = [...document.querySelectorAll('.math')];
  const problems = [];
  if (window.MathJax || document.querySelector('script[src*="mathjax" i]')) {
    problems.push('the page loads MathJax: its formulas should be drawn when the book is built');
  }
  if (mathEls.length === 0) return problems;
  let undrawn = 0;
  let unsized = 0;
  let unspoken = 0;
  let mathmlInSight = 0;
  const missingGlyphs = new Set();
  for (const el of mathEls) {
    const svg = el.querySelector(':scope > mjx-container > svg');
    if (!svg) {
      undrawn += 1;
      continue;
    }
    const mathml = el.querySelector(':scope > mjx-container > mjx-assistive-mml');
    if (!mathml || !mathml.querySelector(':scope > math')) unspoken += 1;
    else if (getComputedStyle(mathml).position !== 'absolute') mathmlInSight += 1;
    const box = svg.getBoundingClientRect();
    if (el.checkVisibility() && !(box.width > 0 && box.height > 0)) unsized += 1;
    for (const use of svg.querySelectorAll('use')) {
      const href = use.getAttribute('xlink:href') || use.getAttribute('href') || '';
      if (!href.startsWith('#') || !document.getElementById(href.slice(1))) missingGlyphs.add(href);
    }
    const error = svg.querySelector('[data-mml-node="merror"]');
    if (error) problems.push(`TeX error drawn in a formula: ${error.textContent.trim().slice(0, 80)}`);
  }
  if (undrawn) problems.push(`${undrawn} of ${mathEls.length} .math elements hold no drawn formula`);
  if (unsized) problems.push(`${unsized} of ${mathEls.length} formulas are drawn with no size`);
  if (unspoken) problems.push(`${unspoken} of ${mathEls.length} formulas have no MathML for screen readers`);
  if (mathmlInSight) problems.push(`${mathmlInSight} of ${mathEls.length} formulas show their MathML beside the drawing`);
  for (const href of [...missingGlyphs].slice(0, 5)) problems.push(`a formula uses the glyph ${href}, which the page lacks`);

  // Raw TeX delimiters in visible body text, outside code listings.
  const SKIP = 'script, style, noscript, template, textarea, pre, code, .highlight, mjx-container';
  const raw = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.nodeValue;
    if (!/\\[()[\]]/.test(text)) continue;
    const parent = n.parentElement;
    if (!parent || parent.closest(SKIP)) continue;
    if (parent.checkVisibility && !parent.checkVisibility()) continue;
    const m = text.match(/\\[()[\]]/);
    raw.push(text.slice(Math.max(0, m.index - 20), m.index + 40).replace(/\s+/g, ' ').trim());
  }
  for (const r of raw.slice(0, 5)) problems.push(`raw TeX in page text: "${r}"`);
  if (raw.length > 5) problems.push(`... and ${raw.length - 5} more raw TeX fragments`);
  return problems;
}

// Every <a href>, raw attribute plus the browser-resolved URL.
function probeLinks() {
  return [...document.querySelectorAll('a[href]')].map((a) => ({ raw: a.getAttribute('href'), abs: a.href }));
}

// Does the page read at this width? Returns a list of problems.
async function probeLayout({ width, smallestFigureScale }) {
  const problems = [];
  const describe = (el) => {
    const text = (el.textContent || '').trim().split('\n')[0].slice(0, 60);
    const id = el.closest('[id]')?.id;
    return `${id ? `#${id} ` : ''}"${text}"`;
  };

  const viewports = [...document.querySelectorAll('meta[name="viewport"]')];
  if (viewports.length !== 1) problems.push(`${viewports.length} viewport meta tags (want exactly 1)`);
  for (const meta of viewports) {
    const content = (meta.getAttribute('content') || '').replace(/\s+/g, '').toLowerCase();
    if (/maximum-scale|user-scalable=(no|0)/.test(content)) problems.push(`viewport forbids zooming: "${content}"`);
  }

  // A keyboard reaches the text in one key: the first stop of Tab skips past the navigation to it; on a phone the
  // closed navigation and contents are hidden, so that Tab does not walk through them unseen.
  // (Furo's search and index pages write their own content, without the link: _templates/page.html.)
  const text = document.getElementById('the-text');
  const firstStop = document.querySelector('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])');
  if (!/\/(search|genindex)\.html$/.test(location.pathname) && (!text || !firstStop?.matches('a.skip-to-text[href="#the-text"]'))) {
    problems.push(`the first stop of Tab is ${firstStop ? describe(firstStop) : 'nothing'}, not a link that skips to the text`);
  }
  for (const [box, drawer] of [['__navigation', '.sidebar-drawer'], ['__toc', '.toc-drawer']]) {
    const panel = document.querySelector(drawer);
    if (width < 600 && panel && !document.getElementById(box)?.checked && getComputedStyle(panel).visibility !== 'hidden') {
      problems.push(`the closed ${drawer} is not hidden: Tab walks through its links unseen`);
    }
  }

  const page = document.documentElement;
  // clientWidth: the window less a vertical scrollbar, the width the page has.
  if (page.scrollWidth > page.clientWidth + 1) {
    const widest = [...document.body.querySelectorAll('*')]
      .filter((node) => node.getBoundingClientRect().right > page.clientWidth + 1)
      .map((node) => `${node.tagName.toLowerCase()}.${[...node.classList].join('.')}`).slice(0, 3).join(', ');
    problems.push(`the page scrolls sideways: ${page.scrollWidth} px wide in ${page.clientWidth} px (${widest})`);
  }

  // Code: open every collapsed output and show every tab (C++ | NumPy), measure, close again.
  const closed = [...document.querySelectorAll('details:not([open])')];
  for (const details of closed) details.open = true;
  const hiddenTabs = [...document.querySelectorAll('[role="tabpanel"][hidden]')];
  for (const panel of hiddenTabs) panel.hidden = false;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const pre of document.querySelectorAll('article pre')) {
    const hidden = pre.scrollWidth - pre.clientWidth;
    if (hidden <= 1) continue;
    if (width >= 1280) {
      problems.push(`code block clipped by ${hidden} px at ${width} px: ${describe(pre)}`);
      continue;
    }
    const style = getComputedStyle(pre);
    const scrolls = style.overflowX === 'auto' || style.overflowX === 'scroll';
    const scrollbar = pre.offsetHeight - pre.clientHeight - parseFloat(style.borderTopWidth) - parseFloat(style.borderBottomWidth);
    if (!scrolls || scrollbar < 4) {
      problems.push(`code block hides ${hidden} px with no visible scrollbar at ${width} px: ${describe(pre)}`);
    }
  }
  // The column of text itself (Furo's .content scrolls below 52em): a line
  // wider than the column, an inline formula or a word, would make a sideways
  // swipe move the whole chapter. Wide code, tables and figures scroll in their
  // own boxes instead.
  for (const column of document.querySelectorAll('.content')) {
    const hidden = column.scrollWidth - column.clientWidth;
    if (hidden > 1) {
      // Name the text that sticks out past the column's content box.
      const right = column.getBoundingClientRect().right - parseFloat(getComputedStyle(column).paddingRight);
      const texts = document.createTreeWalker(column, NodeFilter.SHOW_TEXT);
      const range = document.createRange();
      const widest = [];
      while (texts.nextNode() && widest.length < 2) {
        range.selectNodeContents(texts.currentNode);
        if (range.getBoundingClientRect().right > right + 1) widest.push(describe(texts.currentNode.parentElement));
      }
      problems.push(`the text column scrolls sideways by ${hidden} px at ${width} px: ${widest.join('; ')}`);
    }
  }
  for (const details of closed) details.open = false;
  for (const panel of hiddenTabs) panel.hidden = true;

  for (const formula of document.querySelectorAll('article mjx-container[display="true"]')) {
    const hidden = formula.scrollWidth - formula.clientWidth;
    const overflowX = getComputedStyle(formula).overflowX;
    if (hidden > 1 && overflowX !== 'auto' && overflowX !== 'scroll') {
      problems.push(`formula clipped by ${hidden} px at ${width} px: ${describe(formula)}`);
    }
    const box = formula.getBoundingClientRect();
    if (box.right > (formula.closest('article')?.getBoundingClientRect().right ?? window.innerWidth) + 1) {
      problems.push(`formula runs ${Math.round(box.right - window.innerWidth)} px past its column at ${width} px: ${describe(formula)}`);
    }
  }

  for (const img of document.querySelectorAll('article figure img')) {
    if (!(img.naturalWidth > 0)) continue;  // reported by the image check
    const scale = img.getBoundingClientRect().width / img.naturalWidth;
    if (scale < smallestFigureScale - 0.01) {
      problems.push(`figure ${img.getAttribute('src')} drawn at ${(scale * 100).toFixed(0)} % of its size (labels too small)`);
    }
    // A figure drawn also for narrow screens (a <picture>) shows that drawing on
    // a phone, and it fits the column: nothing to scroll.
    const narrow = img.closest('picture')?.querySelector('source')?.getAttribute('srcset');
    if (narrow && width < 600) {
      const box = img.closest('.figure-scroll');
      const hidden = box ? box.scrollWidth - box.clientWidth : 0;
      if (img.currentSrc !== new URL(narrow, document.baseURI).href) problems.push(`figure ${img.getAttribute('src')} shows ${img.currentSrc} at ${width} px, not its narrow drawing ${narrow}`);
      else if (hidden > 1) problems.push(`figure ${narrow} scrolls by ${hidden} px at ${width} px: its narrow drawing is too wide`);
    }
  }

  for (const value of document.querySelectorAll('span.live-value')) {
    const provenance = value.querySelector('.provenance');
    if (!provenance || value.tabIndex < 0) {
      problems.push(`live value ${describe(value)} cannot be focused to show where it came from`);
      break;
    }
    // A screen reader reads the number itself, and the command as its description.
    if (value.hasAttribute('aria-label') || value.hasAttribute('role') || !provenance.id
        || value.getAttribute('aria-describedby') !== provenance.id || provenance.getAttribute('aria-hidden') !== 'true') {
      problems.push(`live value ${describe(value)}: a screen reader does not read its number with the command as its description`);
      break;
    }
    // A value in a closed fold ("How we know", a complete output) is read
    // with the fold open, as its reader sees it.
    const folds = [];
    for (let fold = value.closest('details:not([open])'); fold; fold = fold.parentElement.closest('details:not([open])')) {
      fold.open = true;
      folds.push(fold);
    }
    value.focus();
    const box = provenance.getBoundingClientRect();
    const shown = box.width > 0 && box.height > 0 && getComputedStyle(provenance).visibility !== 'hidden';
    const inside = box.left >= -1 && box.right <= window.innerWidth + 1;
    value.blur();
    for (const fold of folds) fold.open = false;
    if (!shown || !inside) {
      problems.push(`live value ${describe(value)}: provenance ${shown ? 'runs off the screen' : 'not shown'} on focus`);
      break;  // one report per page is enough
    }
  }

  if (width < 600) {
    const sidebar = document.querySelector('.sidebar-drawer');
    const buttons = [...document.querySelectorAll('label[for="__navigation"]')];
    if (!sidebar || sidebar.getBoundingClientRect().right > 1) problems.push('the contents sidebar is on screen at phone width');
    if (!buttons.some((button) => button.getBoundingClientRect().width > 0)) problems.push('no visible button opens the contents');
  }
  return problems;
}

// Every control of an interactive figure is at least 24 by 24 CSS px, the minimum target size of the
// Web Content Accessibility Guidelines 2.2 (success criterion 2.5.8), so that a finger can hit it.
function probeControlSizes() {
  const problems = [];
  for (const control of document.querySelectorAll('div.interactive-control :is(input, select, button)')) {
    const box = control.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // not shown
    if (box.width < 23.5 || box.height < 23.5) {
      const figure = control.closest('div.interactive')?.dataset.figure;
      const kind = control.tagName === 'INPUT' ? control.type : control.tagName.toLowerCase();
      problems.push(`figure ${figure}: a ${kind} measures ${box.width.toFixed(1)} by ${box.height.toFixed(1)} px, under 24 by 24`);
    }
  }
  return problems;
}

// The drawings a figure drawn twice does not show at this width: each <source> of a
// <picture> whose image shows another one (docs/_ext/narrow_figures.py).
function unshownDrawings() {
  return [...document.querySelectorAll('picture')].flatMap((picture) => {
    const shown = picture.querySelector('img')?.currentSrc;
    return [...picture.querySelectorAll('source[srcset]')]
      .map((source) => new URL(source.getAttribute('srcset'), document.baseURI).href)
      .filter((url) => url !== shown);
  });
}

// In the dark scheme every SVG figure must sit on a white sheet.
// The numbers written on a coloured map's cells (an interactive figure's heatmap) stand out from their cell:
// a contrast of at least 4.5 to 1 (WCAG's AA for text), which black or white always reaches on any colour.
function probeCellInk() {
  const problems = [];
  const luminance = (colour) => {
    const [r, g, b] = (colour.match(/[\d.]+/g) ?? []).slice(0, 3).map((c) => {
      const v = Number(c) / 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  for (const svg of document.querySelectorAll('div.interactive svg')) {
    const cells = [...svg.querySelectorAll('g[aria-label="cell"] rect')].filter((rect) => getComputedStyle(rect).fill.startsWith('rgb('));
    for (const text of svg.querySelectorAll('g[aria-label="text"] text')) {
      const box = text.getBoundingClientRect();
      const [x, y] = [(box.left + box.right) / 2, (box.top + box.bottom) / 2];
      const cell = cells.find((rect) => {
        const r = rect.getBoundingClientRect();
        return x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
      });
      if (!cell) continue;
      const [a, b] = [luminance(getComputedStyle(text).fill), luminance(getComputedStyle(cell).fill)];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 4.5) {
        const figure = svg.closest('div.interactive')?.dataset.figure;
        problems.push(`figure ${figure}: the number "${text.textContent}" stands out from its cell by ${ratio.toFixed(2)} to 1, under 4.5`);
        break;
      }
    }
  }
  return problems;
}

function probeDarkFigures() {
  const problems = [];
  for (const img of document.querySelectorAll('article figure img[src$=".svg"]')) {
    const background = getComputedStyle(img).backgroundColor;
    if (background !== 'rgb(255, 255, 255)') problems.push(`figure ${img.getAttribute('src')} has background ${background} in the dark scheme`);
  }
  return problems;
}

function pageHeight() {
  return document.documentElement.scrollHeight;
}

// ---------------------------------------------------------------------------
// Per-page check
// ---------------------------------------------------------------------------

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000} s`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

// Is a request URL allowed? Only our server (or, for the file:// entry, files
// inside the site); data:/blob:/about: never touch the network.
function isLocal(urlStr, ctx) {
  let u;
  try {
    u = new URL(urlStr);
  } catch {
    return false;
  }
  if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'about:') return true;
  if (u.origin === ctx.origin) return true;
  if (u.protocol === 'file:') {
    const p = fileURLToPath(u);
    return p === ctx.root || p.startsWith(ctx.root + path.sep);
  }
  return false;
}

const isFavicon = (urlStr) => {
  try {
    return new URL(urlStr).pathname === '/favicon.ico';
  } catch {
    return false;
  }
};

// ---------------------------------------------------------------------------
// Screenshot cache
// ---------------------------------------------------------------------------

const contentHashes = new Map(); // file -> sha256 of its content

function hashFile(file) {
  if (!contentHashes.has(file)) {
    contentHashes.set(file, crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
  }
  return contentHashes.get(file);
}

// The local file a request read, or null (data: URLs carry their content in
// the address; blob: URLs are made in the page from files already listed).
function requestedFile(urlStr, ctx) {
  try {
    const u = new URL(urlStr);
    if (u.protocol === 'file:') return servedFile(fileURLToPath(u));
    if (u.origin === ctx.origin) return siteFile(ctx.root, u.pathname).file ?? null;
  } catch {
    /* not a URL this page could have loaded a file from */
  }
  return null;
}

// The page as its scripts drew it, without what differs from load to load and is not the page's content: the
// address the check serves the book from; what the theme sets as the page scrolls (the classes scroll-current,
// scrolled, active and show-back-to-top, an emptied style); how many times the figures updated and how long the
// last update took (data-updates, data-milliseconds); a time the page measured and shows (a data-measured
// number); and the inside and the data- attributes of a figure that trains a model in a worker (chapters 11, 13,
// 14 and 16), whose picture shows one moment of a training that goes on while the page is open. A picture kept
// from an earlier load shows an earlier measurement or moment; what every figure computes is compared with the
// native program on every run.
const SCROLL_CLASSES = new Set(['scroll-current', 'scrolled', 'active', 'show-back-to-top']);

// In the page: the document as its scripts left it, the figures that train in a worker emptied, and stripped of
// what their training sets on them (data-state, busy or ready, and the arguments of the step drawn last).
function drawnCopy() {
  const copy = document.documentElement.cloneNode(true);
  for (const figure of copy.querySelectorAll('.interactive[data-runs="worker"]')) {
    figure.replaceChildren();
    for (const { name } of [...figure.attributes]) if (name.startsWith('data-') && name !== 'data-figure') figure.removeAttribute(name);
  }
  return copy.outerHTML;
}

function drawnPage(html, origin) {
  return html
    .split(origin).join('')
    .replace(/ class="([^"]*)"/g, (_, classes) => {
      const kept = classes.split(/\s+/).filter((name) => name && !SCROLL_CLASSES.has(name));
      return kept.length ? ` class="${kept.join(' ')}"` : '';
    })
    .replace(/ style=""/g, '')
    .replace(/ data-(milliseconds|updates)="[^"]*"/g, '')
    .replace(/(<[^>]* data-measured="[^"]*")[^>]*>[^<]*</g, '$1><');
}

// The page's module: the chapters' C++ compiled to WebAssembly (docs/CMakeLists.txt).
const PAGE_MODULE = path.join('_static', 'page', 'book_module.js');

// The cache key of one picture: what it is made from (see the top of this file).
function screenshotKey(ctx, { url, requested, width, scheme, drawn }) {
  const hash = crypto.createHash('sha256');
  // The page by its file in the site, as each file it asked for below: a clone in another folder takes the same
  // picture, whether the page was served or opened as a file.
  const pageFile = requestedFile(url, ctx);
  const page = pageFile ? path.relative(ctx.root, pageFile) : url;
  hash.update(JSON.stringify([ctx.chromiumVersion, ctx.checkHash, page, width ?? 'file', scheme]));
  const parts = [];
  for (const address of requested) {
    if (address.startsWith('data:')) { parts.push(address); continue; }
    if (address.startsWith('blob:')) continue;
    const file = requestedFile(address, ctx);
    const name = file ? path.relative(ctx.root, file) : null;
    if (name === PAGE_MODULE) { parts.push(name); continue; }  // what it computed is in `drawn`
    parts.push(file ? `${name} ${hashFile(file)}` : address);
  }
  for (const part of parts.sort()) hash.update(`${part}\n`);
  hash.update(drawn);
  return hash.digest('hex');
}

// Kept passes (see the top of this file)
// ---------------------------------------------------------------------------

const CHECK_FILES = ['browser_check.mjs', 'interactive_check.mjs', 'number_text.mjs'];

function hashText(text) {
  return crypto.createHash('sha256').update(text).digest('hex');
}

// The anchors of a page a link points at, as what a kept pass rests on.
function anchorsHash(file) {
  return hashText(JSON.stringify([...anchorsOf(file)].sort()));
}

// Every native program, once per check: a figure's numbers are held to them.
let binHash = null;
function programsHash(bin) {
  if (binHash === null) {
    const names = fs.readdirSync(bin).filter((name) => fs.statSync(path.join(bin, name)).isFile()).sort();
    binHash = hashText(names.map((name) => `${name} ${hashFile(path.join(bin, name))}`).join('\n'));
  }
  return binHash;
}

// Every file of the site's _static folder but the page's module (held by its hash in each record): the theme's
// and the book's scripts and styles, a figure's worker among them, whether or not a page's own requests showed it.
function staticHash(root) {
  const names = [];
  const walk = (dir, rel) => {
    for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
      const relPath = `${rel}/${ent.name}`;
      if (ent.isDirectory()) {
        if (relPath !== '_static/page') walk(path.join(dir, ent.name), relPath);
      } else if (ent.isFile()) names.push(`${relPath} ${hashFile(path.join(dir, ent.name))}`);
    }
  };
  walk(path.join(root, '_static'), '_static');
  return hashText(names.sort().join('\n'));
}

// Node's version and the pinned npm packages (playwright-core among them), which drive the check.
function toolsHash() {
  const lock = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'tools', 'package-lock.json');
  return hashText(JSON.stringify([process.version, fs.existsSync(lock) ? hashFile(lock) : null]));
}

function passFile(ctx, { label, width }) {
  // With --bin or without it: a pass without it drove no figure.
  const key = hashText(JSON.stringify([ctx.chromiumVersion, ctx.checkFilesHash, ctx.toolsHash, ctx.staticHash,
    Boolean(ctx.bin), label, width, hashFile(path.join(ctx.root, label))]));
  return path.join(ctx.passDir, `${key}.json`);
}

// The kept pass of this page at this width, if nothing it rests on changed; else null.
function keptPass(ctx, job) {
  if (!ctx.passDir || process.env.BOOK_CHECK_AGAIN) return null;
  const file = passFile(ctx, job);
  let record;
  try {
    record = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  for (const [name, hash] of Object.entries(record.files)) {
    const loaded = path.join(ctx.root, name);
    if (!fs.existsSync(loaded) || hashFile(loaded) !== hash) return null;
  }
  for (const [name, hash] of Object.entries(record.anchors)) {
    const target = path.join(ctx.root, name);
    if (!fs.existsSync(target) || anchorsHash(target) !== hash) return null;
  }
  if (record.programs !== null && (!ctx.bin || record.programs !== programsHash(ctx.bin))) return null;
  if (!record.pictures.every(({ key }) => fs.existsSync(path.join(ctx.cacheDir, `${key}.png`)))) return null;
  const now = new Date();
  fs.utimesSync(file, now, now);
  return record;
}

// What the check of a page that passed reported, brought back: its pictures, its height and its figures' lines.
function replayPass(ctx, job, record) {
  for (const { name, key } of record.pictures) {
    fs.copyFileSync(path.join(ctx.cacheDir, `${key}.png`), path.join(path.dirname(job.shot), name));
    ctx.screenshots.fromCache++;
  }
  if (record.height !== null && job.heights) job.heights.set(job.label, record.height);
  ctx.figureReports.push(...record.figureLines.map((line) => ({ label: job.label, width: job.width, line })));
  ctx.keptPasses++;
}

function keepPass(ctx, job, { requested, linked, pictures, figureLines }) {
  if (!ctx.passDir) return;
  const files = {};
  for (const address of requested) {
    const file = requestedFile(address, ctx);
    if (file) files[path.relative(ctx.root, file)] = hashFile(file);
  }
  const anchors = {};
  for (const file of linked) anchors[path.relative(ctx.root, file)] = anchorsHash(file);
  const record = {
    files, anchors, pictures, figureLines,
    programs: figureLines.length && ctx.bin ? programsHash(ctx.bin) : null,
    height: job.width === 1280 && job.heights?.has(job.label) ? job.heights.get(job.label) : null,
  };
  try {
    fs.mkdirSync(ctx.passDir, { recursive: true });
    const file = passFile(ctx, job);
    fs.writeFileSync(`${file}.${process.pid}.partial`, JSON.stringify(record));
    fs.renameSync(`${file}.${process.pid}.partial`, file);
  } catch {
    /* a cache that cannot be written only costs time */
  }
}

// Copy the picture from the cache if it is there; else capture it and keep it.
async function screenshotCached(page, ctx, { key, file, stats }) {
  const cached = path.join(ctx.cacheDir, `${key}.png`);
  if (fs.existsSync(cached)) {
    fs.copyFileSync(cached, file);
    const now = new Date();
    fs.utimesSync(cached, now, now);
    stats.fromCache++;
    return;
  }
  // Its width as a full-page picture's: the page's, without the scrollbar.
  const { width, height } = await page.evaluate(() =>
    ({ width: document.documentElement.clientWidth, height: document.documentElement.scrollHeight }));
  const clip = height > PICTURE_HEIGHT ? { x: 0, y: 0, width, height: PICTURE_HEIGHT } : undefined;
  await page.screenshot({ path: file, fullPage: true, clip, timeout: SCREENSHOT_TIMEOUT_MS });
  stats.taken++;
  stats.takenFiles.push(path.basename(file));
  try {
    fs.mkdirSync(ctx.cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.partial`;
    fs.copyFileSync(file, partial);
    fs.renameSync(partial, cached);
  } catch {
    /* a cache that cannot be written only costs time */
  }
}

// Runs tasks one after another in each browser context, in the order they ask: a
// full-page capture must be of the tab in front, and a background tab's comes out
// garbled. Each width has a browser of its own (main()), so the two widths' pictures
// are taken side by side; they come out the same, byte for byte, as one at a time.
const queues = new WeakMap(); // context -> the promise of its last task
function oneAtATime(context, task) {
  const turn = (queues.get(context) ?? Promise.resolve()).then(task, task);
  queues.set(context, turn.catch(() => {}));
  return turn;
}

async function checkPage(context, ctx, { label, url, shot, checkLinks, width, heights }) {
  const failures = [];
  const fail = (msg) => failures.push(msg);
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  const badUrls = new Set(); // URLs already reported by the network checks
  const linked = new Set(); // the pages its links point at, whose anchors were checked
  const pictures = []; // { name, key } of each picture, in the screenshot cache
  const figureLines = [];

  // Network: anything not local was blocked by the context route (see main);
  // report it here, once, for the page that asked for it.
  const requested = new Set(); // every address the page asked for: what its pictures are made from
  page.on('request', (req) => {
    requested.add(req.url());
    if (!isLocal(req.url(), ctx)) {
      badUrls.add(req.url());
      fail(`external request blocked: ${req.url()}`);
    }
  });
  // Check: no failed requests (connection errors, aborted, file:// missing).
  // An aborted one is judged once the page has settled (unshownDrawings, below).
  const aborted = [];
  page.on('requestfailed', (req) => {
    if (badUrls.has(req.url()) || isFavicon(req.url())) return;
    const error = req.failure()?.errorText ?? 'unknown error';
    if (error === 'net::ERR_ABORTED') {
      aborted.push(req.url());
      return;
    }
    badUrls.add(req.url());
    fail(`request failed: ${req.url()} (${error})`);
  });
  // Check: no HTTP error status (>= 400), except a browser-initiated /favicon.ico.
  page.on('response', (res) => {
    if (res.status() >= 400 && !isFavicon(res.url())) {
      badUrls.add(res.url());
      fail(`HTTP ${res.status()} for ${res.url()}`);
    }
  });
  // Check: no console errors. "Failed to load resource" duplicates a network
  // failure already reported above (or the ignored favicon), so skip those.
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    const loc = msg.location()?.url ?? '';
    if (/^Failed to load resource/.test(text) && (badUrls.has(loc) || isFavicon(loc) || (loc && !isLocal(loc, ctx)))) return;
    fail(`console error: ${text}${loc ? ` [${loc}]` : ''}`);
  });
  // Check: no uncaught exceptions in page scripts.
  page.on('pageerror', (err) => fail(`uncaught page error: ${err.message.split('\n')[0]}`));

  const run = async () => {
    const resp = await page.goto(url, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
    if (resp && resp.status() >= 400) return; // already reported by the response handler

    // Check: every <img> loaded.
    for (const bad of await page.evaluate(probeImages, IMAGE_TIMEOUT_MS)) fail(`image not loaded: ${bad}`);

    // Check: the formulas are drawn, whole, and speak to screen readers.
    for (const problem of await page.evaluate(probeMath)) fail(problem);

    // Check: internal links resolve to existing files and anchors. External
    // http(s) links are allowed in the text but never fetched.
    if (checkLinks) {
      const seen = new Set();
      for (const { raw, abs } of await page.evaluate(probeLinks)) {
        let u;
        try {
          u = new URL(abs);
        } catch {
          fail(`unparsable link href="${raw}"`);
          continue;
        }
        if (u.origin !== ctx.origin) continue; // mailto:, tel:, javascript:, other hosts
        u.search = '';
        if (seen.has(u.href)) continue;
        seen.add(u.href);
        const err = checkLink(ctx.root, u);
        if (err) fail(`broken link href="${raw}": ${err}`);
        const target = siteFile(ctx.root, u.pathname).file;
        if (target && /\.html?$/i.test(target)) linked.add(target);
      }
    }

    // Check: the page reads at this width.
    if (width) {
      for (const problem of await page.evaluate(probeLayout, { width, smallestFigureScale: SMALLEST_FIGURE_SCALE })) {
        fail(`at ${width} px: ${problem}`);
      }
      if (width === 1280 && heights) heights.set(label, await page.evaluate(pageHeight));
    }

    // Full-page screenshots, one at a time in this width's browser and of the tab in
    // front (oneAtATime). Light, then dark.
    // Each picture waits for the figures to be drawn at the width of their box (a figure drawn before the
    // page's scrollbar came, or while switching the scheme took it away for a moment, is drawn again): the
    // pictures show what a reader sees once the page has settled. A figure that never settles is the
    // interactive check's to report, below; the pictures do not wait for it past the timeout.
    const figuresDrawn = () => page.waitForFunction(figuresSettled, null, { timeout: FIGURES_TIMEOUT_MS }).catch(() => {});
    await figuresDrawn();
    if (width === 1280) for (const problem of await page.evaluate(probeCellInk)) fail(`at ${width} px: ${problem}`);
    if (width < 600) for (const problem of await page.evaluate(probeControlSizes)) fail(`at ${width} px: ${problem}`);
    await oneAtATime(context, async () => {
      await page.bringToFront();
      const picture = async (scheme, file) => {
        // From the top of the page, as a reader arrives: the checks above scrolled it, and the theme draws a
        // scrolled page with a button (back to top) that a full-page picture would show.
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.waitForTimeout(100);
        await figuresDrawn();
        const drawn = drawnPage(await page.evaluate(drawnCopy), ctx.origin);
        const key = screenshotKey(ctx, { url, requested, width, scheme, drawn });
        await screenshotCached(page, ctx, { key, file, stats: ctx.screenshots });
        pictures.push({ name: path.basename(file), key });
      };
      if (!width) {
        await picture('light', shot);
        return;
      }
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.waitForTimeout(50);
        if (scheme === 'dark') for (const problem of await page.evaluate(probeDarkFigures)) fail(`at ${width} px: ${problem}`);
        await picture(scheme, shot.replace(/\.png$/, `-${width}-${scheme}.png`));
      }
      await page.emulateMedia({ colorScheme: 'light' });
    });

    // The interactive figures, driven against the native programs (after the
    // pictures, which show their defaults).
    if (ctx.bin && width) {
      const report = await checkFiguresOfPage(page, ctx.bin, width, fail);
      ctx.figureReports.push(...report.map((line) => ({ label, width, line })));
      figureLines.push(...report);
    }

    // An aborted request is a failure, but for a figure's other drawing: Chromium may start to
    // fetch a <picture>'s <source> for a narrow screen before it knows the page is wide, and
    // drop it when it does. The drawing the page shows must have come, and did (image check).
    const unshown = new Set(await page.evaluate(unshownDrawings));
    for (const url of aborted) {
      if (!unshown.has(url) && !badUrls.has(url)) fail(`request failed: ${url} (net::ERR_ABORTED)`);
    }
  };

  try {
    await withTimeout(run(), CHECK_TIMEOUT_MS, 'page check');
  } catch (err) {
    fail(`check aborted: ${err.message.split('\n')[0]}`);
  } finally {
    await page.close().catch(() => {});
  }
  return { label, failures, record: { requested, linked, pictures, figureLines } };
}

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.nativeCache) useNativeCache(opts.nativeCache);
  const pages = listPages(opts.site).filter((page) => page.includes(opts.page));
  fs.mkdirSync(opts.screenshots, { recursive: true });

  const labels = [...pages, FILE_ENTRY];
  const results = new Map(); // label -> failures[]
  const heights = new Map(); // label -> height in px at 1280 px
  const started = Date.now();
  const figureReports = []; // one line per interactive figure and width (--bin)
  let server, stats;
  const browsers = [];
  let jobCount = 0;
  let keptCount = 0;

  const cleanup = async () => {
    await Promise.all(browsers.map((browser) => browser.close().catch(() => {})));
    await stopServer(server);
  };
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      cleanup().finally(() => process.exit(130));
    });
  }

  try {
    const { chromium } = loadPlaywright();
    server = await startServer(opts.site);
    const origin = `http://127.0.0.1:${server.address().port}`;
    const ctx = {
      origin, root: opts.site, cacheDir: opts.cache,
      checkHash: hashFile(fileURLToPath(import.meta.url)),
      checkFilesHash: hashText(CHECK_FILES.map((name) => hashFile(path.join(path.dirname(fileURLToPath(import.meta.url)), name))).join(' ')),
      passDir: opts.passes, keptPasses: 0, staticHash: staticHash(opts.site), toolsHash: toolsHash(),
      screenshots: { taken: 0, fromCache: 0, takenFiles: [] },
      bin: opts.bin, figureReports,
    };
    stats = ctx.screenshots;

    // A browser for each width, so that their full-page pictures can be taken side by side (oneAtATime).
    const contexts = {};
    for (const [width, options] of Object.entries(VIEWPORTS)) {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        // Scrollbars are part of what is checked (and what a reader sees).
        ignoreDefaultArgs: ['--hide-scrollbars'],
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
          '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      browsers.push(browser);
      const context = await browser.newContext({ ...options, serviceWorkers: 'block' });
      // Offline: only our server (and local files) may be reached. Everything
      // else is aborted here and reported by the page's request handler.
      await context.route('**/*', (route) =>
        isLocal(route.request().url(), ctx) ? route.continue() : route.abort('blockedbyclient'),
      );
      contexts[width] = context;
    }
    ctx.chromiumVersion = browsers[0].version();
    const context = contexts[1280];

    // A few pages at a time (each in its own tab, with its own listeners);
    // Loading the page and its figures dominates per-page time.
    const usedNames = new Set();
    const jobs = [];
    for (const rel of pages) {
      const shot = path.join(opts.screenshots, screenshotName(rel, usedNames));
      for (const width of Object.keys(VIEWPORTS).map(Number).sort((a, b) => b - a)) {
        jobs.push({
          label: rel,
          url: origin + '/' + rel.split('/').map(encodeURIComponent).join('/'),
          shot,
          checkLinks: width === 1280,
          width,
          heights,
        });
      }
    }
    const worker = async () => {
      for (let job = jobs.shift(); job; job = jobs.shift()) {
        const kept = keptPass(ctx, job);
        if (kept) {
          replayPass(ctx, job, kept);
          results.set(job.label, results.get(job.label) ?? []);
          continue;
        }
        const r = await checkPage(contexts[job.width], ctx, job);
        results.set(job.label, [...(results.get(job.label) ?? []), ...r.failures]);
        if (r.failures.length === 0) keepPass(ctx, job, r.record);
      }
    };
    jobCount = jobs.length;
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    keptCount = ctx.keptPasses;

    // The book must also read from disk: index.html over file://.
    const fileShot = path.join(opts.screenshots, screenshotName('index_file.html', usedNames));
    const r = await checkPage(context, ctx, {
      label: FILE_ENTRY,
      url: pathToFileURL(path.join(opts.site, 'index.html')).href,
      shot: fileShot,
      checkLinks: false,
    });
    results.set(FILE_ENTRY, r.failures);
  } catch (err) {
    // Setup or browser crash: every page not checked yet counts as failed.
    for (const label of labels) {
      if (!results.has(label)) results.set(label, [`not checked: ${err.message.split('\n')[0]}`]);
    }
  } finally {
    await cleanup();
  }

  let passed = 0;
  let failed = 0;
  for (const label of labels) {
    const failures = results.get(label) ?? ['not checked'];
    if (failures.length === 0) {
      passed++;
      process.stdout.write(`ok   ${label}\n`);
    } else {
      failed++;
      process.stdout.write(`FAIL ${label} (${failures.length} problem${failures.length > 1 ? 's' : ''})\n`);
      for (const f of failures) process.stderr.write(`FAIL ${label}: ${f}\n`);
    }
  }
  for (const [label, height] of [...heights].sort()) process.stdout.write(`height at 1280 px: ${String(height).padStart(6)} px  ${label}\n`);
  // The figures' lines in the order of the pages, the wider width first.
  figureReports.sort((a, b) => labels.indexOf(a.label) - labels.indexOf(b.label) || b.width - a.width);
  for (const report of figureReports) process.stdout.write(`${report.line}\n`);
  if (opts.bin && !opts.page && figureReports.length === 0) {
    process.stdout.write('FAIL --bin was given, and no page of the book has an interactive figure\n');
    failed++;
  }
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(`screenshots: ${opts.screenshots}: ${stats?.taken ?? 0} taken, ${stats?.fromCache ?? 0} ` +
    `from the cache ${opts.cache} (${secs} s)\n`);
  process.stdout.write(`pages checked at a width: ${jobCount - keptCount} checked, ${keptCount} kept from an earlier ` +
    `pass in ${opts.passes} (nothing they rest on changed; BOOK_CHECK_AGAIN=1 checks them again)\n`);
  // Which pictures were new, when few were: a page taken again at every build has something in it that changes.
  if (stats?.taken && stats.taken <= 12) process.stdout.write(`taken: ${stats.takenFiles.sort().join(', ')}\n`);
  if (opts.bin) {
    process.stdout.write(`native answers: ${nativeCacheUse.run} run, ${nativeCacheUse.kept} from the cache ${opts.nativeCache}\n`);
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

// Helpers are exported for ad-hoc testing; main() runs only when executed.
export { startServer, stopServer, listPages, screenshotName, checkLink, contentType, loadPlaywright, isLocal, CHROMIUM };

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  main().catch((err) => {
    process.stderr.write(`FAIL (run): ${err && err.stack ? err.stack : err}\n`);
    process.exitCode = 1;
  });
}
