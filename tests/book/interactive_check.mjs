#!/usr/bin/env node
// The interactive figures against the native programs.
//
//   node tests/book/interactive_check.mjs --site DIR --bin DIR [--page TEXT]
//
// Serves --site on 127.0.0.1 (the browser check's server), opens every page
// that has an interactive figure in headless Chromium, at 1280 px and at
// 390 px, and for each figure:
//   * waits for it to compute (data-state ready), with no console error, no
//     failed or off-machine request;
//   * drives its controls: the defaults; each range at its ends and at three
//     random steps; each other option of a select; each checkbox the other way; each
//     button, as many times in a row as it asks (data-presses, else once),
//     each press having to make the figure compute again (data-updates); each
//     text field's samples (data-samples);
//   * after every change, runs the native program (--bin/<program>) with the
//     same arguments the page sent (data-arguments) and --json (once per
//     distinct command line), and compares
//     every number the figure shows (data-key, a JSON pointer; data-exact, the
//     number as the page got it): the same double, bit for bit, unless the
//     figure declares a tolerance (data-tolerance on its root), and the same
//     text as the programs' tables print; a time the program measured
//     (data-measured, a JSON pointer) must be in the native JSON too, and be a
//     number of seconds in both, but is not compared: the line printed for the
//     figure gives its median in the page;
//   * types each bad value (data-bad) into its control: the figure must show
//     the native program's own message (its stderr line after "<program>: ",
//     exit status 2) next to that control, and keep working afterwards; so
//     too for an empty field and "abc", in the figure's first text field and
//     its first number field: the page must pass them on (left out, they
//     would let the figure show the default's numbers); a field whose program
//     takes an empty value (data-optional) gets the empty value as a setting;
//   * at 1280 px, types a sample other than the text it holds into the figure's
//     first text or number field that has one, key by key, without Enter: the
//     figure must follow once the typing pauses;
//   * at 390 px: the figure fits its column (nothing wider than the screen);
//     there each control is tried with one setting and one bad value only
//     (the numbers are the 1280 px ones again; what is new is the layout);
//   * where a seed printed the default setting's numbers (PUBLISHED), the
//     figure's defaults show them;
//   * each control that starts from the program's default for its flag
//     (data-default="program"; docs/_static/interactive.js) does start from
//     it: at 1280 px, the native program given the page's arguments without
//     that flag and its value gives the same numbers the figure shows (for a
//     flag whose presence changes what the program computes, the control
//     holds the default the page was given, data-defaults); and no
//     control types a value of its own that is the program's default
//     (data-defaults on the figure): it would drift when the default changes.
// Prints one line per figure with the number of settings compared and the
// median update time the page measured, and ends with `N passed, M failed`.
//
// The test suite does not run this file: browser_check.mjs --bin drives the
// figures with checkFiguresOfPage() in the page loads it makes anyway. Run it
// alone while working on a figure (--page 04_masking).
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';

import { startServer, stopServer, listPages, loadPlaywright, isLocal, CHROMIUM } from './browser_check.mjs';

const RANDOM_STEPS = 3;
const WAIT_MS = 30_000;

function usage(message) {
  process.stderr.write(`${message}; usage: node interactive_check.mjs --site DIR --bin DIR [--page TEXT: only pages whose path contains it]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!['--site', '--bin', '--page'].includes(argv[i]) || !argv[i + 1]) usage(`bad argument ${argv[i]}`);
    options[argv[i].slice(2)] = argv[i] === '--page' ? argv[i + 1] : path.resolve(argv[i + 1]);
  }
  if (!options.site || !options.bin) usage('--site and --bin are required');
  return { site: fs.realpathSync(options.site), bin: options.bin, page: options.page ?? '' };
}

// A deterministic generator for the "random" settings, so a failure repeats.
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The native program's answer to the same arguments. Each distinct command
// line runs once: going back to a default, and the 390 px pass, ask again for
// answers already computed (the programs are deterministic for given
// arguments; the keys a run may vary, its timings, are not shown by figures).
// With a cache folder (useNativeCache), an answer is also kept on disk under a
// hash of the program's own bytes and the arguments, so that a later check of
// the same program (a fresh clone builds the same bytes from the same sources)
// does not run it again: chapter 14's figure trains its model natively for
// each of its settings. A program rebuilt with any change is another key. Only
// answers a program gives on purpose are kept: JSON with status 0, or a
// refusal with status 2.
const nativeAnswers = new Map();
let nativeCacheDir = null;
const programHashes = new Map();
export function useNativeCache(folder) {
  nativeCacheDir = folder;
}
function native(bin, program, args) {
  const key = JSON.stringify([program, args]);
  if (!nativeAnswers.has(key)) nativeAnswers.set(key, cachedNative(bin, program, args));
  return nativeAnswers.get(key);
}

async function cachedNative(bin, program, args) {
  if (!nativeCacheDir) return runNative(bin, program, args);
  const file = path.join(bin, program);
  if (!programHashes.has(file)) programHashes.set(file, crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
  const key = crypto.createHash('sha256').update(JSON.stringify([programHashes.get(file), args])).digest('hex');
  const kept = path.join(nativeCacheDir, `${key}.json`);
  if (fs.existsSync(kept)) {
    const now = new Date();
    fs.utimesSync(kept, now, now);
    nativeCacheUse.kept++;
    return JSON.parse(fs.readFileSync(kept, 'utf8'));
  }
  const answer = await runNative(bin, program, args);
  nativeCacheUse.run++;
  if (answer.status === 0 || answer.status === 2) {
    try {
      fs.mkdirSync(nativeCacheDir, { recursive: true });
      const partial = `${kept}.${process.pid}.partial`;
      fs.writeFileSync(partial, JSON.stringify(answer));
      fs.renameSync(partial, kept);
    } catch {
      /* a cache that cannot be written only costs time */
    }
  }
  return answer;
}
// How many native answers were run, and how many read from the cache.
export const nativeCacheUse = { run: 0, kept: 0 };

function runNative(bin, program, args) {
  return new Promise((resolve) => {
    execFile(path.join(bin, program), [...args, '--json'], { encoding: 'utf8', maxBuffer: 256 << 20 }, (error, stdout, stderr) => {
      if (error) {
        resolve({ status: error.code, error: String(stderr || '').trim() });
        return;
      }
      try {
        resolve({ status: 0, json: JSON.parse(stdout) });
      } catch (parseError) {
        resolve({ status: 'unreadable JSON', error: parseError.message });
      }
    });
  });
}

function resolvePointer(document, pointer) {
  let value = document;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (value === null || typeof value !== 'object' || !(key in value)) return undefined;
    value = value[key];
  }
  return value;
}

// As interactive.js writes a number (and the programs' tables print it).
// Whether `text` shows `value` as the book writes numbers, checked from the outside rather
// than by formatting the value again: a minus sign (U+2212), not a hyphen; at most 4
// decimals; from 1e15 up, a mantissa and an exponent ("1.2346e20"); infinities and NaN as
// symbols; and, read back, the exact value rounded to the places shown, or to 2 places if
// fewer are shown (of the mantissa, in scientific notation).
function showsRounded(text, value) {
  if (value === 'inf') return text === '∞';
  if (value === '-inf') return text === '−∞';
  if (value === 'NaN') return text === 'NaN';
  if (typeof value !== 'number') return text === String(value);
  if (text.includes('-')) return false;
  const match = /^(−?)(\d+)(?:\.(\d{1,4}))?(?:e(−?\d+))?$/.exec(text);
  if (!match) return false;
  const [, sign, whole, decimals = '', exponentText] = match;
  const scientific = exponentText !== undefined;
  if (scientific !== (Math.abs(value) >= 1e15)) return false;
  if (decimals.endsWith('0')) return false;  // trailing zeros are dropped
  if (sign && Number(whole) === 0 && !decimals && !scientific) return false;  // no "−0"
  const exponent = scientific ? Number(exponentText.replace('−', '-')) : 0;
  const shown = Number(`${sign ? '-' : ''}${whole}.${decimals || '0'}`) * 10 ** exponent;
  // Shown to k decimals, it is a rounding to k or more places with the zeros after them
  // dropped, and never to fewer than 2: within half a unit of place max(k, 2).
  const place = Math.max(decimals.length, 2);
  return Math.abs(shown - value) <= 0.5 * 10 ** (exponent - place) * (1 + 1e-9);
}

// Whether `text` shows `value` as Python's format(value, spec) would, for a number the figure
// writes with a format the prose uses (data-format: [,][.precision][e|f|g|%|d]), checked from the
// outside as showsRounded is: U+2212 for a minus, and none before only zeros; the places the spec
// asks for, and no more; digits in groups of three after a ","; "e" with a signed exponent of two
// digits or more where the spec is e, or g outside its fixed range; and, read back, the value
// rounded at the last place shown (a whole number with d or "," alone: the value itself).
export function showsFormatted(text, value, spec) {
  if (typeof value !== 'number') return showsRounded(text, value);
  const format = /^(,?)(?:\.(\d+))?([efg%d]?)$/.exec(spec);
  if (!format || text.includes('-')) return false;
  const [, comma, precisionText, type] = format;
  const precision = precisionText === undefined ? 6 : Number(precisionText);
  const match = /^(−?)(\d[\d,]*)(?:\.(\d+))?(?:e([+−])(\d{2,}))?(%?)$/.exec(text);
  if (!match) return false;
  const [, sign, whole, decimals = '', exponentSign, exponentDigits, percent] = match;
  if (comma ? !/^\d{1,3}(,\d{3})*$/.test(whole) : whole.includes(',')) return false;
  if ((percent === '%') !== (type === '%')) return false;
  const digits = whole.replace(/,/g, '') + decimals;
  if (sign && !/[1-9]/.test(digits)) return false;  // no "−0"
  const exponent = exponentDigits === undefined ? 0 : Number(exponentDigits) * (exponentSign === '−' ? -1 : 1);
  const shown = (sign ? -1 : 1) * Number(`${whole.replace(/,/g, '')}.${decimals || '0'}`) * 10 ** exponent /
    (type === '%' ? 100 : 1);
  let place;  // the power of ten of the last digit shown, of the value (not of the percentage)
  if (type === 'd' || type === '') {
    return decimals === '' && exponentDigits === undefined && shown === value;
  } else if (type === 'f' || type === '%') {
    if (exponentDigits !== undefined || decimals.length !== precision) return false;
    place = -precision - (type === '%' ? 2 : 0);
  } else if (type === 'e') {
    if (exponentDigits === undefined || decimals.length !== precision || whole.length !== 1) return false;
    if (whole === '0' && value !== 0) return false;
    place = exponent - precision;
  } else {  // g: p significant digits, trailing zeros dropped; fixed for an exponent from -4 to p - 1
    const significant = Math.max(precision, 1);
    if (decimals.endsWith('0')) return false;
    if (shown === 0) return value === 0 && text.replace('−', '') === '0';
    const magnitude = Math.floor(Math.log10(Math.abs(shown)) + 1e-12);
    if ((exponentDigits !== undefined) !== (magnitude < -4 || magnitude >= significant)) return false;
    if (exponentDigits !== undefined && whole.length !== 1) return false;
    if (digits.replace(/^0+/, '').length > significant) return false;
    place = magnitude - significant + 1;
  }
  return Math.abs(shown - value) <= 0.5 * 10 ** place * (1 + 1e-9);
}

// In the page, in one call: change a control (if `change` says which), wait
// until the figure has settled (ready or error), and read its state and every
// number it shows. One round trip to the browser per setting, not three.
async function settleAndRead({ name, change, timeoutMs }) {
  const root = document.querySelector(`div.interactive[data-figure="${name}"]`);
  const updatesBefore = Number(root.dataset.updates || '0');
  if (change) {
    const input = root.querySelector(`[data-control="${change.control}"]`);
    if (input.tagName === 'BUTTON') {
      input.click();
    } else {
      if (input.type === 'checkbox') input.checked = Boolean(change.value);
      else input.value = String(change.value);
      const event = input.type === 'text' || input.type === 'number' ? 'change' : 'input';
      input.dispatchEvent(new Event(event, { bubbles: true }));
    }
  }
  const started = performance.now();
  while (root.dataset.state !== 'ready' && root.dataset.state !== 'error') {
    if (performance.now() - started > timeoutMs) return { state: `still ${root.dataset.state} after ${timeoutMs} ms`, errors: [] };
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  const numbers = [...root.querySelectorAll('[data-key]')].map((node) => ({
    key: node.dataset.key, exact: node.dataset.exact, text: node.textContent, format: node.dataset.format,
  }));
  const measured = [...root.querySelectorAll('[data-measured]')].map((node) => ({
    key: node.dataset.measured, exact: node.dataset.exact,
  }));
  // A refusal beside a field counts as beside it only if a screen reader hears it there too: the field is
  // marked invalid and described by the message.
  const errors = [...root.querySelectorAll('.interactive-error')].filter((node) => !node.hidden).map((node) => {
    const field = node.closest('.interactive-control')?.querySelector('[data-control]');
    const heard = field && field.getAttribute('aria-invalid') === 'true' &&
      (field.getAttribute('aria-describedby') ?? '').split(' ').includes(node.id);
    return { text: node.textContent, control: heard ? field.dataset.control : null };
  });
  return {
    state: root.dataset.state,
    program: root.dataset.program,
    arguments: JSON.parse(root.dataset.arguments || '[]'),
    milliseconds: Number(root.dataset.milliseconds || 'NaN'),
    tolerance: root.dataset.tolerance ? Number(root.dataset.tolerance) : 0,
    defaults: root.dataset.defaults ? JSON.parse(root.dataset.defaults) : null,
    numbers,
    measured,
    errors,
    overflow: root.scrollWidth - root.clientWidth,
    updated: Number(root.dataset.updates || '0') > updatesBefore,
  };
}

function controlsOf(name) {
  const root = document.querySelector(`div.interactive[data-figure="${name}"]`);
  return [...root.querySelectorAll('[data-control]')].map((input) => ({
    name: input.dataset.control,
    tag: input.tagName.toLowerCase(),
    type: input.type,
    min: input.min, max: input.max, step: input.step,
    options: input.tagName === 'SELECT' ? [...input.options].map((o) => o.value) : [],
    samples: JSON.parse(input.dataset.samples || '[]'),
    bad: JSON.parse(input.dataset.bad || '[]'),
    optional: input.dataset.optional === 'true',
    startsFrom: input.dataset.default ?? 'literal',  // 'program', 'function' (of the program's defaults) or 'literal'
    presses: Number(input.dataset.presses || '1'),
    value: input.type === 'checkbox' ? input.checked : input.value,
    flag: input.dataset.flag || null,
    // The kind of control the figure declared ('text', 'number', ...), from its box's class.
    kind: (input.closest('.interactive-control')?.className.match(/\binteractive-(\w+)$/) ?? [])[1] ?? null,
  }));
}

async function compare(shown, bin, what, problems, stats) {
  const expected = await native(bin, shown.program, shown.arguments);
  if (expected.status !== 0) {
    problems.push(`${what}: the page computed, the native program refused ${JSON.stringify(shown.arguments)}: ${expected.error}`);
    return;
  }
  if (shown.numbers.length === 0) problems.push(`${what}: the figure shows no numbers`);
  for (const number of shown.numbers) {
    const value = resolvePointer(expected.json, number.key);
    if (value === undefined) {
      problems.push(`${what}: ${number.key} is not in the native program's JSON`);
      continue;
    }
    const exact = typeof value === 'number' ? JSON.stringify(value) : String(value);
    stats.compared++;
    if (exact === number.exact) {
      stats.identical++;
    } else if (typeof value === 'number' && shown.tolerance > 0) {
      const difference = Math.abs(Number(number.exact) - value) / Math.max(1e-300, Math.abs(value));
      stats.largest = Math.max(stats.largest, difference);
      if (!(difference <= shown.tolerance)) problems.push(`${what}: ${number.key} is ${number.exact} in the page, ${exact} natively`);
    } else {
      problems.push(`${what}: ${number.key} is ${number.exact} in the page, ${exact} natively (${JSON.stringify(shown.arguments)})`);
      continue;
    }
    // What the page shows must be the number, rounded: read back, within half a unit of its
    // coarsest allowed place (the page writes 4 decimals, or 3 or 2 where a figure asks).
    // A number written with a format spec (data-format), as the prose writes it: read back the same way.
    if (number.format !== undefined ? !showsFormatted(number.text, value, number.format) : !showsRounded(number.text, value)) {
      const how = number.format !== undefined ? ` written as format(…, "${number.format}")` : ' rounded';
      problems.push(`${what}: ${number.key} reads "${number.text}", which is not ${JSON.stringify(value)}${how}`);
    }
  }
  // A time measured while the program ran: the same key natively, seconds in both, the values free.
  const seconds = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
  for (const time of shown.measured) {
    const value = resolvePointer(expected.json, time.key);
    const inPage = Number(time.exact);
    if (!seconds(value)) problems.push(`${what}: the measured ${time.key} is ${JSON.stringify(value)} natively, not a time`);
    if (!seconds(inPage)) problems.push(`${what}: the measured ${time.key} is ${time.exact} in the page, not a time`);
    else (stats.measured[time.key] ??= []).push(inPage);
  }
}

// What the seeds printed, which a figure's defaults must show (to 4 decimals):
// the hand-worked lesson's Figure 1 (variance of q·k before and after ÷√d_k, seed 1, N = 4000)
// and its saturation demo (slot two's weight before and after adding 0.5).
const PUBLISHED = {
  variance_explorer: {
    '/rows/0/var_raw': '1.9705', '/rows/1/var_raw': '63.3198', '/rows/2/var_raw': '496.5016',
    '/rows/0/var_scaled': '0.9853', '/rows/1/var_scaled': '0.9894', '/rows/2/var_scaled': '0.9697',
  },
  saturation_explorer: {
    '/saturation/slot_two/large_before': '0.0180', '/saturation/slot_two/large_after': '0.0293',
    '/saturation/slot_two/divided_before': '0.3072', '/saturation/slot_two/divided_after': '0.4223',
  },
};

function checkPublished(name, shown, what, problems) {
  for (const [key, printed] of Object.entries(PUBLISHED[name] ?? {})) {
    const number = shown.numbers.find((n) => n.key === key);
    if (!number) problems.push(`${what}: shows no ${key}, which the seed printed as ${printed}`);
    else if (Number(number.exact).toFixed(4) !== printed) {
      problems.push(`${what}: ${key} is ${number.exact}, the seed printed ${printed}`);
    }
  }
}

// A matrix or list as text, its spaces around ';' and ',' dropped: "1,0; 0,1" and "1,0;0,1" are one value.
const squeezed = (text) => String(text).replace(/\s*([;,])\s*/g, '$1').trim();

// The controls that start from the program's defaults, held to the native program: left out of the
// arguments, each flag's default gives the numbers the figure shows. And no control with a flag types a
// value that is that flag's default: such a control must leave its value out and take the program's.
async function checkProgramDefaults(name, controls, shown, bin, problems, stats) {
  if (!shown.defaults) {
    if (controls.some((control) => control.flag)) problems.push(`${name}: the figure has controls with flags but no data-defaults`);
    return;
  }
  for (const control of controls.filter((c) => c.flag && c.tag !== 'button' && c.type !== 'checkbox')) {
    const programDefault = shown.defaults[control.flag];
    if (control.startsFrom === 'function') continue;  // from the defaults, through the figure's own function
    if (control.startsFrom !== 'program') {
      if (programDefault !== undefined && programDefault !== '' && squeezed(programDefault) === squeezed(control.value)) {
        problems.push(`${name}: the control ${control.name} types ${JSON.stringify(control.value)}, the default of ` +
          `${control.flag}: leave its value out, so that it takes the program's`);
      }
      continue;
    }
    const at = shown.arguments.findIndex((argument, i) => argument === control.flag && shown.arguments[i + 1] === control.value);
    if (at < 0) {
      problems.push(`${name}: the control ${control.name} starts from the default of ${control.flag}, ` +
        `but the page did not pass ${control.flag} ${JSON.stringify(control.value)} in ${JSON.stringify(shown.arguments)}`);
      continue;
    }
    const without = shown.arguments.filter((_, i) => i !== at && i !== at + 1);
    const expected = await native(bin, shown.program, without);
    if (expected.status !== 0 || shown.numbers.some((number) => resolvePointer(expected.json, number.key) === undefined)) {
      // A flag whose presence chooses what the program computes (chapter 6's --order): left out, the
      // program answers another question. Then the control must hold the default the page was given,
      // which the page-entry test holds to the program's --help.
      if (squeezed(control.value) !== squeezed(programDefault ?? '')) {
        problems.push(`${name}: the control ${control.name} starts at ${JSON.stringify(control.value)}, ` +
          `the program's default for ${control.flag} is ${JSON.stringify(programDefault)}`);
      }
      continue;
    }
    await compare({ ...shown, arguments: without }, bin, `${name}: ${control.flag} left out (the page's ${JSON.stringify(control.value)})`,
      problems, stats);
  }
}

async function checkFigure(page, name, bin, width, problems, report) {
  const stats = { compared: 0, identical: 0, largest: 0, settings: 0, times: [], measured: {} };
  const random = generator(width * 7919 + name.length);
  const settle = (change) => page.evaluate(settleAndRead, { name, change, timeoutMs: WAIT_MS });
  // Apply the change (none: the figure as it is), and compare what the figure then shows.
  const observe = async (what, change) => {
    const shown = await settle(change);
    if (shown.state !== 'ready') {
      problems.push(shown.state === 'error' ? `${what}: the figure shows an error: ${shown.errors.map((e) => e.text).join(' | ')}`
        : `${what}: the figure is ${shown.state}`);
      return shown;
    }
    stats.settings++;
    if (Number.isFinite(shown.milliseconds)) stats.times.push(shown.milliseconds);
    await compare(shown, bin, what, problems, stats);
    if (width < 600 && shown.overflow > 1) problems.push(`${what}: the figure is ${shown.overflow} px wider than its box at ${width} px`);
    return shown;
  };

  const atDefaults = await observe(`${name} at ${width} px, defaults`);
  checkPublished(name, atDefaults, `${name} at ${width} px, defaults`, problems);
  const controls = await page.evaluate(controlsOf, name);
  if (width >= 600 && atDefaults.state === 'ready') await checkProgramDefaults(name, controls, atDefaults, bin, problems, stats);
  const triedEmpty = new Set();  // whether a number field, and a text field, were given '' and 'abc'
  for (const control of controls) {
    const label = `${name} at ${width} px, ${control.name}`;
    if (control.tag === 'button') {
      for (let press = 1; press <= control.presses; press++) {
        const what = `${label} pressed${control.presses > 1 ? ` (${press} of ${control.presses})` : ''}`;
        const shown = await observe(what, { control: control.name, value: null });
        if (!shown.updated) problems.push(`${what}: the figure did not compute again`);
      }
      continue;
    }
    const tries = [];
    if (control.type === 'range') {
      const min = Number(control.min);
      const max = Number(control.max);
      const step = Number(control.step) || 1;
      tries.push(min, max);
      for (let i = 0; i < RANDOM_STEPS; i++) tries.push(min + Math.round((random() * (max - min)) / step) * step);
    } else if (control.tag === 'select') {
      // The other options: choosing the one already chosen changes nothing in a
      // browser, and the default is shown first and again at the end.
      tries.push(...control.options.filter((option) => option !== control.value));
    } else if (control.type === 'checkbox') {
      tries.push(!control.value);  // and back to the default below
    }
    tries.push(...control.samples);
    if (control.optional && !tries.includes('')) tries.push('');
    // At a phone's width the numbers are those already compared at 1280 px (the same arguments give the
    // same JSON); what is new there is the layout. So one setting and one refused value per control.
    const narrow = width < 600;
    for (const value of narrow ? tries.slice(0, 1) : tries) {
      await observe(`${label} = ${JSON.stringify(value)}`, { control: control.name, value });
    }
    // An empty or unreadable field must be refused beside it too, not left out
    // of the arguments (the figure would show the default's numbers): tried on
    // the first text field and the first number field of each figure.
    const emptyAndUnreadable = !narrow && control.flag && ['text', 'number'].includes(control.kind) &&
      !triedEmpty.has(control.kind) ? (control.optional ? ['abc'] : ['', 'abc']) : [];
    if (emptyAndUnreadable.length) triedEmpty.add(control.kind);
    for (const bad of [...(narrow ? control.bad.slice(0, 1) : control.bad), ...emptyAndUnreadable]) {
      const shown = await settle({ control: control.name, value: bad });
      const expected = await native(bin, shown.program, shown.arguments);
      const message = (expected.error || '').replace(new RegExp(`^${shown.program}: `), '');
      if (expected.status !== 2) problems.push(`${label} = ${JSON.stringify(bad)}: the native program exited ${expected.status}, not 2`);
      if (shown.state !== 'error') problems.push(`${label} = ${JSON.stringify(bad)}: the page shows no error`);
      else if (!shown.errors.some((e) => e.text === message && e.control === control.name)) {
        problems.push(`${label} = ${JSON.stringify(bad)}: the page says ${JSON.stringify(shown.errors)}, the program says ${JSON.stringify(message)}`);
      }
      if (emptyAndUnreadable.includes(bad) && !shown.arguments.some((argument, i) => argument === control.flag &&
          shown.arguments[i + 1] === bad)) {
        problems.push(`${label} = ${JSON.stringify(bad)}: the page left ${control.flag} out of its arguments ${JSON.stringify(shown.arguments)}`);
      }
      stats.settings++;
    }
    // Back to the default before the next control.
    await observe(`${label} back to its default`, { control: control.name, value: control.value });
  }
  // A point the reader drags (view.scatter): dragged with the mouse, as a
  // reader would; the controls follow it, and what the figure then shows is
  // compared with the native program like any other setting.
  const handle = page.locator(`div.interactive[data-figure="${name}"] circle.scatter-movable`);
  if (await handle.count()) {
    const before = (await settle(null)).arguments;
    await handle.scrollIntoViewIfNeeded();
    const plane = await page.locator(`div.interactive[data-figure="${name}"] svg.interactive-scatter`).boundingBox();
    const start = await handle.boundingBox();
    await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
    await page.mouse.down();
    await page.mouse.move(plane.x + plane.width * 0.3, plane.y + plane.height * 0.25, { steps: 6 });
    await page.mouse.up();
    const shown = await observe(`${name} at ${width} px, its point dragged`, null);
    if (JSON.stringify(shown.arguments) === JSON.stringify(before)) {
      problems.push(`${name} at ${width} px: dragging its point changed nothing`);
    }
  }
  // A text or number field follows the reader's typing (docs/_static/interactive.js, typingPause):
  // a sample other than what the field holds, typed key by key over the field's selected text, with
  // no Enter and the field not left, updates the figure once the typing pauses, to exactly what was
  // typed; what it then shows is compared like any other setting. At 1280 px, the first such field.
  const typedInto = controls.find((control) => control.tag === 'input' && control.type === 'text' &&
    control.samples.some((sample) => String(sample) !== control.value));
  if (width >= 600 && typedInto) {
    const sample = String(typedInto.samples.find((value) => String(value) !== typedInto.value));
    const field = page.locator(`div.interactive[data-figure="${name}"] [data-control="${typedInto.name}"]`);
    const what = `${name} at ${width} px, ${typedInto.name} typed key by key`;
    const followed = () => page.evaluate(({ figure, flag, text }) => {
      const root = document.querySelector(`div.interactive[data-figure="${figure}"]`);
      const args = JSON.parse(root.dataset.arguments || '[]');
      return ['ready', 'error'].includes(root.dataset.state) && args.some((arg, i) => arg === flag && args[i + 1] === text);
    }, { figure: name, flag: typedInto.flag, text: sample });
    await field.scrollIntoViewIfNeeded();
    await field.focus();
    await field.press('ControlOrMeta+A');  // the first key replaces the text: no empty field in between
    await field.pressSequentially(sample, { delay: 5 });
    const started = Date.now();
    while (!await followed() && Date.now() - started < WAIT_MS) await page.waitForTimeout(50);
    if (!await followed()) problems.push(`${what}: the figure did not follow the typing of ${JSON.stringify(sample)} within ${WAIT_MS} ms`);
    else await observe(what, null);
    await observe(`${what}, back to its default`, { control: typedInto.name, value: typedInto.value });
  }
  const times = stats.times.sort((a, b) => a - b);
  const median = times.length ? times[Math.floor(times.length / 2)] : NaN;
  const measured = Object.entries(stats.measured).map(([key, values]) => {
    const sorted = values.sort((a, b) => a - b);
    return `; ${key} measured in the page: ${sorted[Math.floor(sorted.length / 2)].toExponential(2)} median of ${sorted.length}, ` +
      `${sorted[0].toExponential(2)} to ${sorted[sorted.length - 1].toExponential(2)}`;
  }).join('');
  report.push(`${name} at ${width} px: ${stats.settings} settings, ${stats.compared} numbers compared, ` +
    `${stats.identical} bit-identical` + (stats.largest > 0 ? `, largest relative difference ${stats.largest.toExponential(2)}` : '') +
    `; update ${median.toFixed(1)} ms median, ${times.length ? times[times.length - 1].toFixed(1) : 'NaN'} ms slowest` + measured);
}

// Every interactive figure of the page open in `tab` (loaded at `width`),
// checked as above; each problem goes to fail(), and the report lines (one per
// figure) are returned.
export async function checkFiguresOfPage(tab, bin, width, fail) {
  const report = [];
  const problems = [];
  const figures = await tab.evaluate(() => [...document.querySelectorAll('div.interactive')].map((root) => root.dataset.figure));
  for (const name of figures) {
    try {
      await checkFigure(tab, name, bin, width, problems, report);
    } catch (error) {
      problems.push(`${name} at ${width} px: ${error.message.split('\n')[0]}`);
    }
  }
  problems.forEach((problem) => fail(problem));
  return report;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const pages = listPages(options.site).filter((page) => page.includes(options.page) &&
    fs.readFileSync(path.join(options.site, page), 'utf8').includes('class="interactive" data-figure='));
  const { chromium } = loadPlaywright();
  const server = await startServer(options.site);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const context = { origin, root: options.site };
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  // One tab per width, side by side: while one waits for a figure or a native
  // run, the other works. Results are printed in order at the end.
  const checkAt = async (relative, width) => {
    const problems = [];
    const report = [];
    const tab = await browser.newPage({ viewport: { width, height: width > 600 ? 900 : 844 } });
    await tab.route('**/*', (route) => (isLocal(route.request().url(), context) ? route.continue() : route.abort()));
    tab.on('console', (message) => { if (message.type() === 'error') problems.push(`console error: ${message.text()}`); });
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    tab.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    await tab.goto(`${origin}/${relative}`, { waitUntil: 'load' });
    report.push(...await checkFiguresOfPage(tab, options.bin, width, (problem) => problems.push(problem)));
    await tab.close();
    return { label: `${relative} at ${width} px`, problems, report };
  };
  const results = [];
  try {
    for (const relative of pages) results.push(...await Promise.all([1280, 390].map((width) => checkAt(relative, width))));
  } finally {
    await browser.close();
    await stopServer(server);
  }
  let passed = 0;
  let failed = 0;
  for (const { label, problems } of results) {
    if (problems.length) {
      failed++;
      process.stdout.write(`FAIL ${label}\n`);
      for (const problem of problems.slice(0, 20)) process.stderr.write(`FAIL ${label}: ${problem}\n`);
      if (problems.length > 20) process.stderr.write(`FAIL ${label}: ... and ${problems.length - 20} more\n`);
    } else {
      passed++;
      process.stdout.write(`ok   ${label}\n`);
    }
  }
  const report = results.flatMap((result) => result.report);
  for (const line of report) process.stdout.write(`${line}\n`);
  if (pages.length === 0) {
    process.stdout.write('no page has an interactive figure\n');
    failed++;
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`FAIL (run): ${error.stack || error}\n`);
    process.exitCode = 1;
  });
}
