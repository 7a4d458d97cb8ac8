// The interactive figures' frame. It loads the book's WebAssembly module (the
// chapter programs' own C++, src/page/) and the plotting library once, builds
// each figure's controls, calls the chapter's program with the arguments the
// controls say, and shows the numbers the program returns, or the program's
// own error message next to the control it names. It computes nothing itself:
// every number on screen comes from the C++.
//
// A chapter's figure (chapters/NN_slug/<figure>.js, placed in the page by the
// `.. interactive:: <figure>` directive) calls
//
//   Book.figure('<figure>', {
//     program: 'dot_product',                 // the chapter program to call
//     controls: [{ name, label, type, flag, value, min, max, step, options, help }],
//     arguments(values) { return [...]; },    // optional; default: each control's flag and value
//     render(json, view) { ... },             // draws the program's JSON with the view's helpers
//     tolerance: 1e-12,                       // optional: relative agreement with native, if not bit for bit
//     worker: true,                           // optional: call the program in a Web Worker (long computations)
//     next(json, values) { return false; },   // optional: true asks for another update after this one,
//                                              // made once the figure is on screen
//   });
//
// A control with a flag and no value starts from the program's own default
// for that flag (what its --help shows), which the page asks the C++ for
// (book_call with "defaults": true) before the figure's first update; a
// control's value may also be a function of those defaults, (defaults) =>
// value, defaults mapping each flag to its default's text (say, a slider
// that starts at the first entry of the default --q). So a figure types no
// default of its own: change a program's default, and the figure follows.
// A flag the program does not have, a flag without a default, or a default
// the control cannot show (a select without that option) stops the figure
// with an error that names it, instead of showing an empty box.
//
// Control types: 'range', 'number' (a text field for a number: what is typed
// goes to the program as typed), 'text', 'select' (options: [[value, label], ...]),
// 'checkbox' (adds its flag when ticked), 'button' (calls onClick(values, set));
// buttons listed one after another are kept together, on one line where it fits.
// A text or number field updates the figure when the reader pauses in typing,
// presses Enter or leaves the field, each time its text differs from the text
// the figure last used (Enter on the same text computes nothing again); a
// refusal goes beside the field the reader changed if it names that field's
// flag, else beside the flag it starts with.
// A control may list samples (values the tests try) and bad (values the
// program must refuse, its message then shown next to the control).
// A text field whose flag takes an empty value (say, no prompt) says
// optional: true; a button a reader presses again and again says how many
// presses the tests make in a row (presses: 4). A field a reader types in
// less often than the sliders beside it move (the matrices under chapter 9's
// query sliders) says belowOnPhones: true: on a narrow screen it comes after
// the figure's output, so that a slider and the numbers it moves are seen
// together (book.css).
// A control's changed(values, set, defaults, view) runs before the update: it may set other
// controls (set(name, value)), e.g. a slider that edits one row of a matrix,
// or a choice of example that puts the program's defaults back; `view`, the one render()
// gets, lets it change a control's element (a slider's range). Two sliders that
// edit a matrix field's first row (or the row a figure chooses, chapter 3), and
// follow it when it is typed, come from Book.firstRowSliders (chapters 0, 1, 3
// and 9); a button that moves a seed on by one, back to 0 after its largest,
// from Book.reseedButton (chapters 2, 5 and 8).
//
// What a test reads (tests/book/interactive_check.mjs): the figure's root
// element carries data-state (loading | busy | ready | error), data-program,
// data-arguments (the JSON list of arguments of the last call),
// data-milliseconds (how long the last update took), data-defaults (the JSON
// of the program's defaults, flag → text; each control that started from one
// carries data-default="program", one whose value is a function of them
// data-default="function") and data-updates (how
// many updates it has made, so that a test sees a button press compute
// again even where the arguments stay the same); every number shown
// carries data-key (a JSON pointer into the program's JSON) and data-exact
// (the number exactly as the program returned it), and one written with a
// format spec (view.number(value, pointer, '.1e')) data-format, except a time the program
// measured while it ran (a wall clock, different at every run), which carries
// data-measured (its JSON pointer) and data-exact instead.
(function () {
  'use strict';
  const here = document.currentScript.src.replace(/[^/]*$/, '');  // .../_static/
  let moduleLoading = null;
  let plotLoading = null;

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.onload = resolve;
      script.onerror = () => reject(new Error(`could not load ${src}`));
      document.head.appendChild(script);
    });
  }

  // The module and the plotting library, each loaded once per page, and only
  // when a figure needs it (a figure whose program runs in a worker does not
  // need the module in the page).
  function loadModule() {
    moduleLoading ??= loadScript(`${here}page/book_module.js`).then(() => startModule(window));
    return moduleLoading;
  }
  // The module's script holds the WebAssembly as base64 (bookModuleWasm) and emscripten's
  // loader (createBookModule; tools/link_page_module.py). Handed the bytes, the loader
  // compiles them at once; it fetches nothing, so this works from file:// too.
  function startModule(scope) {
    const text = scope.bookModuleWasm;
    const bytes = typeof Uint8Array.fromBase64 === 'function' ? Uint8Array.fromBase64(text)
      : Uint8Array.from(scope.atob(text), (character) => character.charCodeAt(0));
    return scope.createBookModule({ wasmBinary: bytes });
  }
  function loadPlot() {
    plotLoading ??= loadScript(`${here}plot/d3.min.js`).then(() => loadScript(`${here}plot/plot.umd.min.js`));
    return plotLoading;
  }

  // One request to the module: { program, arguments } to compute, or
  // { program, defaults: true } for the defaults of the program's flags.
  function call(module, request) {
    return JSON.parse(module.ccall('book_call', 'string', ['string'], [JSON.stringify(request)]));
  }

  // The same module in a Web Worker, for a figure whose calls take long (a
  // training run): the page stays responsive while the C++ runs. A page read
  // from file:// cannot start one in some browsers; then call() returns null
  // and the figure calls the module in the page instead.
  const workerSource = `
    let module = null;
    self.onmessage = async (event) => {
      const { id, url, request } = event.data;
      try {
        if (!module) {
          importScripts(url);
          module = await (${startModule})(self);
        }
        self.postMessage({ id, response: module.ccall('book_call', 'string', ['string'], [request]) });
      } catch (error) {
        self.postMessage({ id, failure: String((error && error.message) || error) });
      }
    };`;
  function startWorker() {
    let worker;
    try {
      worker = new Worker(URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' })));
    } catch {  // the browser refused the worker: the figure computes in the page itself
      return null;
    }
    const waiting = new Map();
    let next = 0;
    let broken = false;
    const fail = () => {
      broken = true;
      for (const resolve of waiting.values()) resolve(null);
      waiting.clear();
    };
    worker.onerror = (event) => { event.preventDefault(); fail(); };
    worker.onmessage = (event) => {
      const resolve = waiting.get(event.data.id);
      waiting.delete(event.data.id);
      if (event.data.failure !== undefined) {
        fail();
        worker.terminate();
      }
      if (resolve) resolve(event.data.failure !== undefined ? null : JSON.parse(event.data.response));
    };
    return {
      call(request) {
        if (broken) return Promise.resolve(null);
        const id = next++;
        const url = new URL('page/book_module.js', here).href;
        return new Promise((resolve) => {
          waiting.set(id, resolve);
          worker.postMessage({ id, url, request: JSON.stringify(request) });
        });
      },
    };
  }

  // How the book writes numbers: the rules, and the cases that hold the page to them, are in
  // tests/number_text_cases.json, shared with the programs' program::number_text
  // (src/program/table.cpp) and the prose's format_value (docs/_ext/book.py);
  // tests/book/number_text.mjs holds numberText and formatNumber to those cases. Every rounding
  // is of the double's exact value, to the nearest, a tie to the even digit, as fmt and Python
  // round (JavaScript's toFixed takes a tie up: 2.5 as 3, 0.125 as 0.13). Formatting only: the
  // numbers come from the C++.

  // |x| as m · 2^e with m and e whole: a finite double's exact value.
  function exactParts(x) {
    const bytes = new DataView(new ArrayBuffer(8));
    bytes.setFloat64(0, Math.abs(x));
    const bits = bytes.getBigUint64(0);
    const biased = Number(bits >> 52n);
    const fraction = bits & ((1n << 52n) - 1n);
    return biased === 0 ? { m: fraction, e: -1074 } : { m: fraction | (1n << 52n), e: biased - 1075 };
  }

  // |x| · 10^k rounded to a whole number (a BigInt): the nearest, a tie to the even one.
  function roundedScaled(x, k) {
    const { m, e } = exactParts(x);
    const numerator = m * 10n ** BigInt(Math.max(k, 0)) * 2n ** BigInt(Math.max(e, 0));
    const denominator = 10n ** BigInt(Math.max(-k, 0)) * 2n ** BigInt(Math.max(-e, 0));
    const whole = numerator / denominator;
    const twice = 2n * (numerator % denominator);
    return twice > denominator || (twice === denominator && whole % 2n === 1n) ? whole + 1n : whole;
  }

  // The whole number n with its last `places` digits after a point: 1234n, 2 → "12.34".
  function withPoint(n, places) {
    const digits = n.toString().padStart(places + 1, '0');
    return places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  }

  // |x| in scientific notation, `places` digits after the mantissa's point: [mantissa text, exponent].
  function scientificParts(x, places) {
    if (x === 0) return [withPoint(0n, places), 0];
    let exponent = Math.floor(Math.log10(Math.abs(x)));
    let n = roundedScaled(x, places - exponent);
    // log10 may be one off near a power of ten, and the rounding may carry (9.96 as 10.0): settle the exponent.
    for (;;) {
      if (n >= 10n ** BigInt(places + 1)) exponent += 1;
      else if (n < 10n ** BigInt(places)) exponent -= 1;
      else break;
      n = roundedScaled(x, places - exponent);
    }
    return [withPoint(n, places), exponent];
  }

  // "2.5000" as "2.5", "2.0000" as "2".
  const shortened = (text) => (text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text);

  // The sign (U+2212) before the digits of |value|, unless every digit before an exponent is 0: no "−0".
  function signed(value, text) {
    const negative = value < 0 || Object.is(value, -0);
    return negative && /[1-9]/.test(text.split('e')[0]) ? `−${text}` : text;
  }

  // The JSON's "inf", "-inf", "NaN" (and a non-finite number) as symbols; undefined for a finite number.
  function symbol(value) {
    if (value === 'inf' || value === Infinity) return '∞';
    if (value === '-inf' || value === -Infinity) return '−∞';
    if (value === 'NaN' || (typeof value === 'number' && Number.isNaN(value))) return 'NaN';
    return undefined;
  }

  // A number as the programs' tables print it (program::number_text): rounded once to
  // `decimals` places, trailing zeros dropped; from 1e15 up in size, in scientific notation
  // with `decimals` places in the mantissa ("1.2346e20", "1e308").
  function numberText(value, decimals = 4) {
    if (symbol(value) !== undefined) return symbol(value);
    if (typeof value !== 'number') return String(value);
    if (Math.abs(value) >= 1e15) {
      const [mantissa, exponent] = scientificParts(value, decimals);
      return signed(value, `${shortened(mantissa)}e${exponent}`);
    }
    return signed(value, shortened(withPoint(roundedScaled(value, decimals), decimals)));
  }

  // A number as Python's format(value, spec) writes it, for the specs the prose's :value: roles
  // use: [,][.precision][e|f|g|%|d], and "," alone for a whole number; the minus sign as U+2212,
  // none before only zeros. So a figure's sentence states 1.2e−11 where numberText would show 0.
  function formatNumber(value, spec) {
    if (symbol(value) !== undefined) return symbol(value);
    const match = /^(,?)(?:\.(\d+))?([efg%d]?)$/.exec(spec);
    if (typeof value !== 'number' || !match || (match[3] === '' && match[2] !== undefined)) {
      throw new Error(`formatNumber(${JSON.stringify(value)}, ${JSON.stringify(spec)}): a number and a format ` +
        'of [,][.precision][e|f|g|%|d] expected');
    }
    const [, comma, precisionText, type] = match;
    const precision = precisionText === undefined ? 6 : Number(precisionText);
    const exponentText = (exponent) => `e${exponent < 0 ? '−' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
    let text;
    if (type === 'd' || type === '') {
      if (!Number.isInteger(value)) throw new Error(`formatNumber: "${spec}" writes whole numbers, not ${value}`);
      text = BigInt(Math.abs(value)).toString();
    } else if (type === 'f') {
      text = withPoint(roundedScaled(value, precision), precision);
    } else if (type === '%') {
      text = `${withPoint(roundedScaled(value * 100, precision), precision)}%`;
    } else if (type === 'e') {
      const [mantissa, exponent] = scientificParts(value, precision);
      text = mantissa + exponentText(exponent);
    } else {  // 'g': p significant digits, fixed if the exponent is from -4 to p - 1, trailing zeros dropped
      const digits = Math.max(precision, 1);
      const [mantissa, exponent] = scientificParts(value, digits - 1);
      text = exponent >= -4 && exponent < digits
        ? shortened(withPoint(roundedScaled(value, digits - 1 - exponent), digits - 1 - exponent))
        : shortened(mantissa) + exponentText(exponent);
    }
    if (comma) text = text.replace(/^\d+/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','));
    return signed(value, text);
  }

  // A power of ten as a log axis's tick: 1e−6, 1e3, 1e0 (Plot's own ticks would write 1µ and 1k).
  function powerOfTen(value) {
    const exponent = Math.round(Math.log10(value));
    return `1e${exponent < 0 ? '−' : ''}${Math.abs(exponent)}`;
  }

  // Black or white, whichever contrasts more with a colour written "rgb(r, g, b)" (WCAG's relative luminance).
  function inkOn(colour) {
    const channels = (String(colour).match(/[\d.]+/g) ?? []).slice(0, 3).map((c) => {
      const v = Number(c) / 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    if (channels.length < 3) return 'black';
    const luminance = 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2];
    return (1.05 / (luminance + 0.05)) > ((luminance + 0.05) / 0.05) ? 'white' : 'black';
  }

  function element(tag, attributes = {}, children = []) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) {
      if (key === 'text') node.textContent = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child);
    return node;
  }

  // How wide a text is drawn in the plots' font (Observable Plot's system-ui), in pixels.
  let measuring = null;
  function textWidth(text, fontSize) {
    measuring ??= document.createElement('canvas').getContext('2d');
    measuring.font = `${fontSize}px system-ui, sans-serif`;
    return measuring.measureText(text).width;
  }

  // One number on screen, with where it came from: `format` is a number of decimals (numberText)
  // or a format spec as the prose's :value: roles take (formatNumber), then carried as data-format.
  function numberNode(tag, value, pointer, format) {
    const exact = typeof value === 'number' ? JSON.stringify(value) : String(value);
    if (typeof format === 'string') {
      return element(tag, { 'data-key': pointer, 'data-exact': exact, 'data-format': format,
        text: formatNumber(value, format) });
    }
    return element(tag, { 'data-key': pointer, 'data-exact': exact, text: numberText(value, format) });
  }

  // A matrix helper's labels: one per row and one per column, or an error that says so.
  function requireLabels(helper, name, matrix, rows, columns) {
    const wanted = [matrix.length, matrix.length ? matrix[0].length : 0];
    if (!Array.isArray(rows) || !Array.isArray(columns) || rows.length !== wanted[0] || columns.length !== wanted[1]) {
      throw new Error(`view.${helper}('${name}'): needs rows and columns, a label for each of the ` +
        `${wanted[0]} rows and ${wanted[1]} columns`);
    }
  }

  // Helpers a figure's render() draws with. Each slot is a named box inside the figure: made, the first time,
  // at the end of the figure's output, or of `parent` (a box of the figure's own, say a card per head).
  function makeView(root, drive, set) {
    const slot = (name, parent) => {
      let box = root.querySelector(`[data-slot="${name}"]`);
      if (!box) {
        box = element('div', { class: 'interactive-slot', 'data-slot': name });
        (parent ?? root.querySelector('.interactive-output')).append(box);
      }
      return box;
    };
    // A slot a screen reader reads out when it changes, as a sighted reader sees it change: a sentence, not a
    // table of numbers.
    const spokenSlot = (name, parent) => {
      const box = slot(name, parent);
      box.setAttribute('aria-live', 'polite');
      return box;
    };
    return {
      slot,
      spokenSlot,
      // A control's own element (its input, select or button), for a figure whose drawing
      // changes it: a button's text or dimming, a slider's range.
      control(name) {
        const input = root.querySelector(`[data-control="${name}"]`);
        if (!input) throw new Error(`view.control('${name}'): the figure has no such control`);
        return input;
      },
      // Sets a control as moving it would (a slider's shown value too), without asking the
      // program again: for a drawing that keeps a control in step with what it drew.
      setControl(name, value) {
        this.control(name);
        set(name, value);
      },
      numberText,
      formatNumber,
      // For numbers written on a map's cells: ink(color)(value) is black or white, whichever stands out more
      // from the colour the plot's color scale (the same options) gives that value.
      ink(color) {
        const scale = window.Plot.scale({ color });
        return (value) => inkOn(scale.apply(value));
      },
      // One number, as an element to place in a figure's own drawing: to `format` decimals (4 if
      // not given), or in a format the prose uses (".1e", ".3g", ".1%", ",", ...).
      number(value, pointer, format = 4) {
        return numberNode('span', value, pointer, format);
      },
      // A time the program measured while it ran, written as `text` (say, in
      // microseconds): the tests check that the native program has it too, not its value.
      measured(value, pointer, text) {
        return element('span', { 'data-measured': pointer, 'data-exact': JSON.stringify(value), text });
      },
      // A matrix as a table of numbers: a row per row label, a column per column label (records() below,
      // each row a record whose keys are its column indices).
      matrix(name, matrix, { title, rows, columns, pointer, decimals = 4 }) {
        requireLabels('matrix', name, matrix, rows, columns);
        this.records(name, matrix, { title, rows, columns: columns.map((label, j) => [j, label]), pointer, format: decimals });
      },
      // A table of records (a program's rows as objects, which matrix() cannot take): a row per record,
      // labelled rows[i], a column per [key, label] of `columns`, each number under `${pointer}/${i}/${key}`,
      // written with `format` (decimals, or a format spec such as ','); `corner` heads the row labels.
      records(name, records, { title, corner = '', rows, columns, pointer, format = 4 }) {
        const table = element('table', { class: 'interactive-numbers' });
        if (title) table.append(element('caption', { text: title }));
        table.append(element('tr', {}, [element('th', { text: corner }), ...columns.map(([, label]) => element('th', { text: label }))]));
        records.forEach((record, i) => {
          table.append(element('tr', {}, [
            element('th', { text: rows[i] }),
            ...columns.map(([key]) => numberNode('td', record[key], `${pointer}/${i}/${key}`, format)),
          ]));
        });
        slot(name).replaceChildren(table);
      },
      // A sentence with live numbers: parts are strings or [value, pointer] or [value, pointer, format].
      sentence(name, parts) {
        const paragraph = element('p', { class: 'interactive-sentence' });
        for (const part of parts) {
          paragraph.append(Array.isArray(part) ? numberNode('span', part[0], part[1], part[2]) : part);
        }
        spokenSlot(name).replaceChildren(paragraph);
      },
      // A figure drawn by Observable Plot.
      // A title is written as a caption line above the plot: Observable Plot
      // renders its own title as an h2, a page-sized heading inside the figure.
      plot(name, options) {
        // One picture to a screen reader, named by its title or its axes, rather than a list of tick labels.
        const { title, ...rest } = options;
        const width = Math.min(rest.width ?? 560, Math.max(280, root.clientWidth - 8));
        const axes = [rest.y?.label, rest.x?.label].filter(Boolean);
        const ariaLabel = rest.ariaLabel ?? title ?? (axes.length === 2 ? `Plot of ${axes[0]} against ${axes[1]}` : 'Plot');
        const drawn = window.Plot.plot({ ...rest, width, ariaLabel });
        // With a legend, Plot returns a figure whose first svg is a swatch: the plot is the svg it named.
        (drawn.tagName === 'svg' ? drawn : drawn.querySelector('svg[aria-label]'))?.setAttribute('role', 'img');
        slot(name).replaceChildren(...(title ? [element('p', { class: 'interactive-plot-title', text: title })] : []), drawn);
      },
      // Points in a plane, each labelled, drawn as SVG; the point at index
      // `movable` can be dragged (mouse, pen or finger), and a drag calls
      // `moved(x, y)` with the new coordinates, rounded to `step`, which sets
      // the figure's controls as if they had been moved: the numbers still
      // come from the program.
      scatter(name, points, { labels, title, range = [-1, 1], step = 0.05, movable, moved }) {
        const size = Math.min(320, Math.max(220, root.clientWidth - 16));
        const pad = 28;
        const scale = (size - 2 * pad) / (range[1] - range[0]);
        const toScreen = ([x, y]) => [pad + (x - range[0]) * scale, size - pad - (y - range[0]) * scale];
        const fromScreen = (sx, sy) => [range[0] + (sx - pad) / scale, range[0] + (size - pad - sy) / scale];
        const ns = 'http://www.w3.org/2000/svg';
        const svg = document.createElementNS(ns, 'svg');
        svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
        svg.setAttribute('width', size);
        svg.setAttribute('height', size);
        svg.setAttribute('class', 'interactive-scatter');
        svg.setAttribute('role', 'img');
        svg.setAttribute('aria-label', `${title ?? 'points'}: ` + points.map((p, i) => `${labels[i]} at (${p.map((v) => numberText(v, 2)).join(', ')})`).join('; '));
        const draw = (tag, attributes) => {
          const node = document.createElementNS(ns, tag);
          for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
          svg.append(node);
          return node;
        };
        const [x0, y0] = toScreen([range[0], range[0]]);
        const [x1, y1] = toScreen([range[1], range[1]]);
        const [zx, zy] = toScreen([0, 0]);
        draw('rect', { x: x0, y: y1, width: x1 - x0, height: y0 - y1, class: 'scatter-frame' });
        if (range[0] < 0) {
          draw('line', { x1: x0, y1: zy, x2: x1, y2: zy, class: 'scatter-axis' });
          draw('line', { x1: zx, y1: y0, x2: zx, y2: y1, class: 'scatter-axis' });
        }
        // The scale: the range's ends, and 0 where the axes cross, under the frame and left of it.
        const marks = range[0] < 0 && range[1] > 0 ? [range[0], 0, range[1]] : range;
        for (const value of marks) {
          const [sx, sy] = toScreen([value, value]);
          const across = draw('text', { x: sx, y: y0 + 16, class: 'scatter-tick', 'text-anchor': 'middle' });
          across.textContent = numberText(value, 2);
          const up = draw('text', { x: x0 - 6, y: sy + 4, class: 'scatter-tick', 'text-anchor': 'end' });
          up.textContent = numberText(value, 2);
        }
        points.forEach((point, i) => {
          const [sx, sy] = toScreen(point);
          draw('circle', { cx: sx, cy: sy, r: i === movable ? 9 : 6, class: i === movable ? 'scatter-point scatter-movable' : 'scatter-point' });
          const right = point[0] > (range[0] + range[1]) / 2 + (range[1] - range[0]) / 4;  // near the right edge: label to the left
          const text = draw('text', { x: right ? sx - 11 : sx + 11, y: sy + 4, class: 'scatter-label', 'text-anchor': right ? 'end' : 'start' });
          text.textContent = labels[i];
        });
        if (movable !== undefined && moved) {
          svg.style.touchAction = 'none';
          // Each move computes again and draws a new picture, so the drag
          // listens on the window and measures whatever picture is there now.
          svg.addEventListener('pointerdown', (event) => {
            event.preventDefault();
            const to = (at) => {
              const box = (slot(name).querySelector('svg') ?? svg).getBoundingClientRect();
              const [x, y] = fromScreen((at.clientX - box.left) * size / box.width, (at.clientY - box.top) * size / box.height);
              const snap = (v) => Math.min(range[1], Math.max(range[0], Math.round(v / step) * step));
              moved(Number(snap(x).toFixed(10)), Number(snap(y).toFixed(10)));
            };
            const stop = () => {
              window.removeEventListener('pointermove', to);
              window.removeEventListener('pointerup', stop);
              window.removeEventListener('pointercancel', stop);
            };
            window.addEventListener('pointermove', to);
            window.addEventListener('pointerup', stop);
            window.addEventListener('pointercancel', stop);
            to(event);
          });
        }
        slot(name).replaceChildren(...(title ? [element('p', { class: 'interactive-plot-title', text: title })] : []), svg);
      },
      // Set controls as a reader would, and compute again: `changes` maps a
      // control's name to its new value.
      drive,
      // A table of tokens against tokens as colours, each cell's number written in it.
      // `cell` fixes the side of a cell in pixels (say, to fit two maps side by side);
      // `outline` lists cells [row index, column index] to frame in red (dark, when diverging), as the static figures
      // frame theirs (say, the ones a sentence or the title names); `dotted`, cells to frame with a
      // dotted line, as chapter 13's static figure frames the word before an ambiguous word.
      // `diverging` colours a table of either sign as the static figures do (RdBu reversed): the sign as the hue,
      // red above 0 and blue below, the size as the depth, on one scale for both signs; its outline is dark on a
      // white line, which shows on red cells.
      heatmap(name, matrix, { rows, columns, title, label = 'weight', domain, cell, outline = [], dotted = [], diverging = false }) {
        requireLabels('heatmap', name, matrix, rows, columns);
        const cells = [];
        matrix.forEach((row, i) => row.forEach((value, j) => {
          if (typeof value === 'number') cells.push({ row: rows[i], column: columns[j], value });
        }));
        // The labels at 12 px, dark; the row labels' margin as wide as the longest of them
        // (at least 24 px), so that one-digit labels do not cost a fifth of a phone's width.
        const labelFont = 12;
        const widest = (labels, fontSize) => Math.max(0, ...labels.map((text) => textWidth(String(text), fontSize)));
        const marginLeft = Math.max(24, Math.ceil(widest(rows, labelFont)) + 12);
        // Cells as wide as the figure has room for (the row labels' margin and 10 px on
        // the right taken off), between 20 and 64 px; the numbers in them are written
        // smaller when a cell is narrow, so that neighbours never touch.
        const room = Math.max(280, (root.clientWidth || 360) - 8);
        let size = cell ?? Math.max(20, Math.min(64, Math.floor((room - marginLeft - 10) / columns.length)));
        // Column labels wider than a cell are written a point smaller, and if that is not
        // enough, turned, so that they do not run into each other; turned, they take the
        // height of their diagonal, and the last ones may stick out past the last column
        // (the right margin then makes room for them, the cells a little narrower).
        const columnFont = widest(columns, labelFont) > size - 4 && widest(columns, labelFont - 1) <= size - 4
          ? labelFont - 1 : labelFont;
        const longestLabel = widest(columns, columnFont);
        const turned = longestLabel > size - 4;
        const labelHeight = turned ? Math.ceil((longestLabel + columnFont) * Math.SQRT1_2) + 4 : 0;
        const beyond = (side) => Math.max(0, ...columns.map((column, j) => Math.ceil(
          (textWidth(String(column), columnFont) + columnFont / 2) * Math.SQRT1_2 - (columns.length - j - 0.5) * side)));
        let marginRight = 10;
        for (let pass = 0; turned && pass < 3; pass++) {
          marginRight = Math.max(10, beyond(size) + 4);
          if (cell !== undefined) break;
          size = Math.max(20, Math.min(size, Math.floor((room - marginLeft - marginRight) / columns.length)));
        }
        const reach = Math.max(1e-9, ...cells.map((d) => Math.abs(d.value)));
        const colour = diverging ? { type: 'diverging', scheme: 'rdbu', reverse: true, domain: [-reach, reach], pivot: 0, legend: false, label }
          : { scheme: 'blues', domain: domain ?? [0, 1], legend: false, label };
        const ink = this.ink(colour);
        // The numbers as large as fits between a cell's edges, or, where cells are framed, between the frame's
        // inner edges: how far a frame reaches into its cell on each side (its inset and half its widest line).
        const frameReach = dotted.length > 0 ? 4.75 : outline.length === 0 ? 0 : diverging ? 3.25 : 2;
        const clearance = 4 + 2 * frameReach;
        const widestNumber = Math.max(1, ...cells.map((d) => textWidth(numberText(d.value, 3), 12)));
        const fontSize = Math.max(7, Math.min(12, Math.floor((12 * (size - clearance)) / widestNumber)));
        const framed = (indices) => indices.map(([i, j]) => ({ row: rows[i], column: columns[j] }));
        // A frame of dark on a white line, solid or dashed: it shows on the palest cells and the darkest.
        const lined = (indices, strokeDasharray, inset) => [['#ffffff', 3.5, null], ['#1a1a1a', 2, strokeDasharray]].map(
          ([stroke, strokeWidth, dash]) => window.Plot.cell(framed(indices),
            { x: 'column', y: 'row', fill: 'none', stroke, strokeWidth, strokeDasharray: dash, inset }));
        this.plot(name, {
          title,
          // The picture's numbers, row by row, as a screen reader reads them: the cells' own labels, in Plot's
          // drawing, come as a flat list with its axes' ticks.
          ariaLabel: `${title ?? `Map of each ${label}`}. Columns ${columns.join(', ')}. ` +
            rows.map((row, i) => `Row ${row}: ${matrix[i].map((value) => numberText(value, 3)).join(', ')}`).join('. '),
          width: marginLeft + marginRight + size * columns.length,
          height: 40 + labelHeight + size * rows.length,
          marginLeft,
          marginRight,
          marginTop: 30 + labelHeight,
          padding: 0.04,
          style: { color: '#1a1a1a' },
          x: { domain: columns, label: null },
          y: { domain: rows, label: null },
          color: colour,
          marks: [
            // No tick marks: beside a label such as "I" a tick reads as part of it.
            window.Plot.axisX({ anchor: 'top', label: null, tickSize: 0, tickPadding: 6, fontSize: columnFont,
              ...(turned ? { tickRotate: -45 } : {}) }),
            window.Plot.axisY({ label: null, tickSize: 0, tickPadding: 6, fontSize: labelFont }),
            window.Plot.cell(cells, { x: 'column', y: 'row', fill: 'value', inset: 0.5 }),
            window.Plot.text(cells, {
              x: 'column', y: 'row', text: (d) => numberText(d.value, 3), fontSize,
              fill: (d) => ink(d.value),
            }),
            ...(diverging ? lined(outline, null, 1.5) : [window.Plot.cell(framed(outline), {
              x: 'column', y: 'row', fill: 'none', stroke: '#d62728', strokeWidth: 2, inset: 1,
            })]),
            // Dotted black on a white line, as the static figure draws it: it shows on the palest cells and the darkest.
            ...lined(dotted, '3 2', 3),
          ],
        });
      },
    };
  }

  // Where a control's first value comes from: typed in the figure ('literal'),
  // the program's default for its flag ('program'), or a function of the
  // program's defaults ('function'). A checkbox starts unticked unless it says.
  function startsAs(control) {
    if (typeof control.value === 'function') return 'function';
    if (control.value === undefined && control.flag && !['checkbox', 'button'].includes(control.type)) return 'program';
    return 'literal';
  }

  // How long a reader's pause in typing is, in milliseconds: long enough not to
  // run the program at every key, short enough to feel like an answer.
  const typingPause = 500;

  // Controls are numbered in the order the page builds them, so that the page
  // comes out the same at every load (the browser check keys its pictures on it).
  let controlsMade = 0;

  function controlNode(control, onChange) {
    const id = `control-${++controlsMade}`;
    // A flag at the end of a label, "Queries Q (--q)", is kept on one line: a break after "(--" reads as a typo.
    const [, words, flagged] = /^(.*?)(\(--[^)]*\))?$/s.exec(control.label);
    const label = element('label', { for: id },
      flagged ? [words, element('span', { class: 'interactive-flag', text: flagged })] : [control.label]);
    let input;
    if (control.type === 'select') {
      input = element('select', { id });
      for (const [value, text] of control.options) input.append(element('option', { value, text }));
      if (startsAs(control) === 'literal') input.value = control.value;
    } else if (control.type === 'button') {
      input = element('button', { id, type: 'button', text: control.label });
    } else if (control.type === 'number') {
      // A text field, not <input type="number">: the browser hands a script an
      // empty value for what such a field cannot read ("abc", "-", "1e400"), and
      // the program must see what was typed to say what is wrong with it.
      input = element('input', { id, type: 'text', inputmode: 'numeric' });
      if (startsAs(control) === 'literal') input.value = control.value;
      input.setAttribute('spellcheck', 'false');
      input.setAttribute('autocomplete', 'off');
    } else {
      input = element('input', { id, type: control.type === 'checkbox' ? 'checkbox' : control.type });
      for (const key of ['min', 'max', 'step']) if (control[key] !== undefined) input.setAttribute(key, control[key]);
      if (control.type === 'checkbox') input.checked = Boolean(control.value);
      else if (startsAs(control) === 'literal') input.value = control.value;
      if (control.type === 'text') {
        input.setAttribute('spellcheck', 'false');
        input.setAttribute('autocomplete', 'off');
      }
    }
    input.dataset.control = control.name;
    if (control.flag) input.dataset.flag = control.flag;
    // For the tests: values worth trying, and values the program must refuse.
    if (control.samples) input.dataset.samples = JSON.stringify(control.samples);
    if (control.bad) input.dataset.bad = JSON.stringify(control.bad);
    if (control.optional) input.dataset.optional = 'true';
    if (control.presses) input.dataset.presses = String(control.presses);
    // A slider's value, written under it; a screen reader hears the slider's own value, not this a second time.
    const shown = control.type === 'range' ? element('output', { for: id, text: input.value, 'aria-hidden': 'true' }) : null;
    // A refusal beside the control, which describes it (showError); the figure's announcer reads it out.
    const error = element('div', { class: 'interactive-error', id: `${id}-error`, hidden: '' });
    const help = control.help ? element('div', { class: 'interactive-help', id: `${id}-help`, text: control.help }) : null;
    // The help under a control describes it to a screen reader too (and a refusal, while there is one: showError).
    if (help) input.setAttribute('aria-describedby', help.id);
    const box = element('div', { class: `interactive-control interactive-${control.type}` },
      control.type === 'button' ? [input, error] : [label, input, ...(shown ? [shown] : []), ...(help ? [help] : []), error]);
    // A button is pressed (a click, or Enter or Space on it), a text field changed, anything else moved.
    const typed = control.type === 'text' || control.type === 'number';
    const event = control.type === 'button' ? 'click' : typed ? 'change' : 'input';
    let typing = null;  // a text field's update waiting for the reader to pause
    // A field's text as the figure last used it (set() keeps it too): leaving the field, or pressing
    // Enter, after a pause has updated the figure changes nothing, and must not update it again (in
    // chapter 11 that would start the training over).
    input.usedText = input.value;
    const changed = () => {
      clearTimeout(typing);
      if (typed && input.value === input.usedText) return;
      input.usedText = input.value;
      if (shown) shown.textContent = input.value;
      onChange(control);
    };
    input.addEventListener(event, changed);
    if (typed) {
      input.addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.isComposing) changed(); });
      // As the reader types: the figure follows once they pause, without waiting for Enter
      // or for them to leave the field (either still updates at once). A character still
      // being composed (an input method's, for Thai or Chinese) waits until it is done.
      const wait = () => {
        clearTimeout(typing);
        typing = setTimeout(changed, typingPause);
      };
      input.addEventListener('input', (e) => { if (!e.isComposing) wait(); });
      input.addEventListener('compositionend', wait);
    }
    return { box, input, error, shown, help };
  }

  function mount(root, name, definition) {
    root.dataset.program = definition.program;
    root.dataset.state = 'loading';
    // A figure whose numbers may differ from the native program's in the last
    // bits (say, Eigen summing in another order) declares by how much, relatively.
    if (definition.tolerance) root.dataset.tolerance = String(definition.tolerance);
    const status = root.querySelector('.interactive-status');
    const controls = element('div', { class: 'interactive-controls' });
    const fields = element('div', { class: 'interactive-controls interactive-below-on-phones' });
    const topError = element('div', { class: 'interactive-error', hidden: '' });
    // A refusal is read out once the reader pauses, not as an alarm (it can come while they type), from a
    // region that is always there: one that appears with its text is often not read at all.
    const announcer = element('div', { class: 'visually-hidden', role: 'status' });
    // The output is not read out whole at each change (a figure's tables can hold hundreds of numbers):
    // its sentences are (view.sentence), as they change.
    const output = element('div', { class: 'interactive-output' });
    root.append(controls, ...(definition.controls.some((control) => control.belowOnPhones) ? [fields] : []), topError, output,
      announcer);
    const nodes = new Map();
    let lastChanged = null;  // the name of the control the reader changed last, for showError
    const values = () => {
      const result = {};
      for (const [key, node] of nodes) {
        if (node.input.type === 'checkbox') result[key] = node.input.checked;
        else if (node.input.tagName !== 'BUTTON') result[key] = node.input.value;
      }
      return result;
    };
    const set = (key, value) => {
      const node = nodes.get(key);
      if (node.input.type === 'checkbox') node.input.checked = Boolean(value);
      else node.input.value = value;
      node.input.usedText = node.input.value;
      if (node.shown) node.shown.textContent = node.input.value;
    };
    const defaultArguments = (current) => {
      const args = [];
      for (const control of definition.controls) {
        if (!control.flag) continue;
        const value = current[control.name];
        // An empty field is passed as it is, for the program to refuse beside
        // it, like any other value it cannot use: left out, it would silently
        // show the default's numbers.
        if (control.type === 'checkbox') {
          if (value) args.push(control.flag);
        } else if (value !== undefined) {
          args.push(control.flag, String(value));
        }
      }
      return args;
    };
    // What a figure's own drawing (a dragged point) uses to set controls: each
    // one set, its hook run, and one update scheduled, as if it had been moved.
    const drive = (changes) => {
      for (const [key, value] of Object.entries(changes)) {
        set(key, value);
        lastChanged = key;
        const control = definition.controls.find((c) => c.name === key);
        const hook = control?.onClick ?? control?.changed;
        if (hook) hook(values(), set, programDefaults, view);
      }
      schedule();
    };
    const view = makeView(root, drive, set);
    let programDefaults = {};  // the program's defaults, flag → text, once asked for
    let module = null;
    let loaded = false;  // the plotting library (and the module, if the page calls it) has loaded
    let drawnWidth = null;  // the width of the figure's box when it was last drawn
    let worker = definition.worker ? startWorker() : null;
    root.dataset.runs = worker ? 'worker' : 'page';

    async function ask(request) {
      if (worker) {
        const response = await worker.call(request);
        if (response) return response;
        worker = null;  // it could not start: from now on, in the page
        root.dataset.runs = 'page';
      }
      module ??= await loadModule();
      return call(module, request);
    }
    const callProgram = (args) => ask({ program: definition.program, arguments: args });

    // Each control that starts from the program's defaults gets its value;
    // returns what is wrong (a message naming the flag), or null.
    async function startFromDefaults() {
      if (!definition.controls.some((control) => control.flag || startsAs(control) === 'function')) return null;
      const response = await ask({ program: definition.program, defaults: true });
      if (response.status !== 0) return `the defaults of ${definition.program}: ${response.error}`;
      const defaults = response.defaults;
      programDefaults = defaults;
      root.dataset.defaults = JSON.stringify(defaults);
      for (const control of definition.controls) {
        const kind = startsAs(control);
        if (kind === 'literal') continue;
        let value;
        if (kind === 'function') {
          value = control.value(defaults);
          if (value === undefined || value === null || value === '') {
            return `${control.name}: its value from ${definition.program}'s defaults is empty`;
          }
        } else if (!(control.flag in defaults)) {
          return `${control.flag}: ${definition.program} has no such flag (or it takes no value); the figure's control ${control.name} starts from its default`;
        } else {
          value = defaults[control.flag];
          if (value === '') return `${control.flag}: ${definition.program} has no default for it; give the figure's control ${control.name} a value`;
        }
        set(control.name, value);
        const node = nodes.get(control.name);
        if (node.input.value !== String(value)) {
          return `${control.flag ?? control.name}: the control ${control.name} cannot show ${JSON.stringify(String(value))}` +
            (control.type === 'select' ? ' (no such option)' : ` (it shows ${JSON.stringify(node.input.value)})`);
        }
        node.input.dataset.default = kind;  // 'program', or 'function' (of the program's defaults)
      }
      return null;
    }

    function showError(message) {
      for (const node of nodes.values()) {
        node.error.hidden = true;
        node.input.removeAttribute('aria-invalid');
        if (node.help) node.input.setAttribute('aria-describedby', node.help.id);
        else node.input.removeAttribute('aria-describedby');
      }
      topError.hidden = true;
      // Numbers the program has not recomputed are dimmed, and a screen reader skips them.
      if (message) output.setAttribute('aria-hidden', 'true');
      else output.removeAttribute('aria-hidden');
      if (announcer.textContent !== (message ?? '')) announcer.textContent = message ?? '';
      if (!message) return;
      // Beside the field the reader just changed, if the message names its flag: a message about
      // two flags ("--k: keys have 2 entries per row but queries (--q) have 1") starts with one of
      // them, not always the one typed in. Otherwise beside the flag it starts with ("--q: ...").
      // names(node, before): the node's flag, whole (--q is not --quiet), after the pattern `before`.
      const names = (node, before) => Boolean(node?.input.dataset.flag) &&
        new RegExp(`${before}${node.input.dataset.flag}(?![\\w-])`).test(message);
      const changedNode = nodes.get(lastChanged);
      const target = names(changedNode, '(^|[\\s(,])') ? changedNode
        : [...nodes.values()].find((node) => names(node, '^'));
      const box = target ? target.error : topError;
      box.textContent = message;
      box.hidden = false;
      if (target) {
        target.input.setAttribute('aria-invalid', 'true');
        target.input.setAttribute('aria-describedby', [target.error.id, target.help?.id].filter(Boolean).join(' '));
      }
    }

    async function update() {
      if (!loaded) return;
      const started = performance.now();
      const current = values();
      const args = (definition.arguments ?? defaultArguments)(current);
      root.dataset.state = 'busy';
      const response = await callProgram(args);
      root.dataset.arguments = JSON.stringify(args);
      // What went wrong: the program's refusal, or the figure's own mistake in drawing the answer.
      let problem = response.status === 0 ? null : response.error;
      if (problem === null) {
        showError(null);
        root.classList.remove('interactive-has-error');
        drawnWidth = root.clientWidth;
        root.dataset.drawnWidth = String(drawnWidth);
        try {
          definition.render(response.json, view, current);
        } catch (failure) {
          // A view helper without the labels it needs, say: said in the figure and on the console,
          // so the browser check fails with it at once.
          console.error(`interactive figure ${name}: ${failure.message}`);
          problem = `The figure could not draw the program's answer: ${failure.message}`;
        }
      }
      if (problem !== null) {
        showError(problem);
        root.classList.add('interactive-has-error');
      }
      root.dataset.state = problem === null ? 'ready' : 'error';
      root.dataset.milliseconds = (performance.now() - started).toFixed(2);
      root.dataset.updates = String(Number(root.dataset.updates || '0') + 1);
      // A figure that goes on by itself (chapter 11's training) goes on while the reader can see
      // it: off screen it waits, so a page left open on other text does not keep computing.
      // While it goes on by itself, its sentences are not read out at each redraw, only once it stops (aria-busy).
      if (root.dataset.state === 'ready' && definition.next && definition.next(response.json, current)) {
        output.setAttribute('aria-busy', 'true');
        onceOnScreen(schedule);
      } else {
        output.removeAttribute('aria-busy');
      }
    }
    let onScreen = false;
    let waitingForScreen = null;
    function onceOnScreen(go) {
      if (onScreen) go();
      else waitingForScreen = go;
    }
    if (definition.next) {
      new IntersectionObserver((entries) => {
        onScreen = entries[entries.length - 1].isIntersecting;
        if (onScreen && waitingForScreen) {
          const go = waitingForScreen;
          waitingForScreen = null;
          go();
        }
      }).observe(root);
    }

    // Changes that arrive while a frame is pending make one update, with the
    // controls as they then are: dragging a slider over a slow computation
    // (chapter 2's 4.6 million draws) redraws as often as it can, and never
    // works through a queue of stale positions.
    // An update that waits for a worker finishes before the next one starts.
    let pending = false;
    let running = null;
    function schedule() {
      root.dataset.state = 'busy';
      if (pending) return;
      pending = true;
      requestAnimationFrame(async () => {
        if (running) await running;
        pending = false;
        running = update();
        await running;
        running = null;
      });
    }

    for (const control of definition.controls) {
      const node = controlNode(control, (changed) => {
        lastChanged = changed.name;
        // A control may change others first (a slider that edits a row of a matrix).
        const hook = changed.onClick ?? changed.changed;
        if (hook) hook(values(), set, programDefaults, view);
        schedule();
      });
      nodes.set(control.name, node);
      const into = control.belowOnPhones ? fields : controls;
      // Buttons listed one after another share a box, which wraps as one: a button
      // left alone at a line's end reads as part of the control beside it.
      const before = into.lastElementChild;
      if (control.type === 'button' && before?.classList.contains('interactive-buttons')) {
        before.append(node.box);
      } else if (control.type === 'button' && before?.classList.contains('interactive-button')) {
        const together = element('div', { class: 'interactive-buttons' });
        before.replaceWith(together);
        together.append(before, node.box);
      } else {
        into.append(node.box);
      }
    }
    Promise.all([worker ? null : loadModule(), loadPlot()]).then(async ([pageModule]) => {
      module = pageModule;
      const wrong = await startFromDefaults();
      if (wrong) {
        // Loudly: the figure cannot start as the program would, so it does not start.
        console.error(`interactive figure ${name}: ${wrong}`);
        if (status) status.remove();
        topError.textContent = wrong;
        topError.hidden = false;
        root.dataset.state = 'error';
        return;
      }
      loaded = true;
      if (status) status.remove();
      schedule();
    }, (failure) => {
      if (status) status.textContent = `The interactive figure could not start: ${failure.message}`;
      root.dataset.state = 'error';
    });
    // A figure is drawn to fit its box, so it is drawn again when the box's width changes: the window was
    // resized, or the page's scrollbar came or went as the page grew.
    // data-resizing is there while a redraw waits for the width to settle.
    let resizing = null;
    new ResizeObserver(() => {
      if (drawnWidth === null || root.clientWidth === drawnWidth) return;
      clearTimeout(resizing);
      root.dataset.resizing = '';
      resizing = setTimeout(() => {
        delete root.dataset.resizing;
        if (root.dataset.state === 'ready' && root.clientWidth !== drawnWidth) schedule();
      }, 150);
    }).observe(root);
  }

  const pending = [];
  function start() {
    for (const { name, definition } of pending.splice(0)) {
      const root = document.querySelector(`div.interactive[data-figure="${name}"]`);
      if (root) mount(root, name, definition);
    }
  }

  // A matrix field's rows as typed (Book.matrixFormat): the text between the ;s, blanks kept.
  const matrixRows = (text) => String(text).split(';');
  // How many rows the program will read, or null if one is blank: the program refuses such a matrix,
  // and a control that follows the rows should stay where it is until the reader mends it.
  const matrixRowCount = (text) => {
    const rows = matrixRows(text);
    return rows.every((row) => row.trim() !== '') ? rows.length : null;
  };

  // Two sliders that edit the first row of a matrix field (cat's query, the first row of --q), both
  // ways: a slider moved rewrites the row's two entries; a first row typed in the field moves the
  // sliders to it when they can show it (each entry within min to max, on a step). While the row is
  // not two entries wide a move changes nothing: it would write a row of another width, a mistake the
  // reader did not make. Returns the two slider controls, which start from the program's default for
  // the field's flag; `follow`, the field's changed hook, which dims the sliders and their values while
  // the typed row is not two entries wide (the labels, and the help line that says why, stay legible);
  // and `dim(view, usable)`, for a render() that has a reason of its own (chapter 0: no plane).
  // The sliders edit the first row, or the row row(values) says (0 for the first; chapter 3's asking
  // word), which must be a row of the field's text.
  function firstRowSliders({ field, flag, names, labels, min, max, step, row = () => 0 }) {
    // Slider j moved: entry j of the row becomes its value, and the other entries stay as typed
    // (say, 0.3, between two of the other slider's steps); a row of another length is written whole.
    const move = (j) => (values, set) => {
      const all = matrixRows(values[field]);
      const i = row(values);
      const entries = all[i].split(',');
      if (entries.length !== names.length) return;
      all[i] = entries.map((entry, k) => (k === j ? String(values[names[j]]) : entry.trim())).join(',');
      set(field, all.join(';'));
    };
    const onStep = (x) => x >= min && x <= max && Math.abs((x - min) / step - Math.round((x - min) / step)) < 1e-9;
    const dim = (view, usable) => {
      for (const name of names) {
        const slider = view.control(name);
        slider.setAttribute('aria-disabled', String(!usable));
        for (const part of [slider, slider.closest('.interactive-control').querySelector('output')]) {
          if (part) part.style.opacity = usable ? '' : '0.5';
        }
      }
    };
    // The field's hook: also dims the sliders at once while the row is not two entries wide, for a row the
    // program refuses is drawn by no render() (given the view: a figure's own hook may call it without).
    const follow = (values, set, defaults, view) => {
      const entries = matrixRows(values[field])[row(values)].split(',').map((entry) => (entry.trim() === '' ? NaN : Number(entry)));
      if (view) dim(view, entries.length === names.length);
      if (entries.length === names.length && entries.every(onStep)) names.forEach((name, j) => set(name, entries[j]));
    };
    const sliders = names.map((name, j) => ({
      name, label: labels[j], type: 'range', min, max, step, changed: move(j),
      value: (defaults) => matrixRows(defaults[flag])[0].split(',')[j].trim(),
    }));
    return { sliders, follow, dim };
  }

  // A button that moves the seed field on by one, back to 0 after `largest`, so that it never sends a
  // seed the program refuses: counted as a BigInt, since a program may take seeds beyond a double's whole
  // numbers (chapter 8's, up to 2^64 − 1). Text that is not a whole number counts as 0: the press gives 1.
  function reseedButton(label, largest = 2n ** 32n - 1n) {
    const next = (text) => {
      const seed = /^\s*\+?\d+\s*$/.test(text) ? BigInt(text.trim()) : 0n;
      return String(seed < largest ? seed + 1n : 0n);
    };
    return { name: 'reseed', label: `${label} (seed + 1)`, type: 'button', onClick: (values, set) => set('seed', next(values.seed)) };
  }

  window.Book = {
    figure(name, definition) {
      pending.push({ name, definition });
      if (document.readyState !== 'loading') start();
    },
    element,  // element(tag, attributes, children): a figure's own markup, built as the frame builds its own
    numberText,  // numberText(value, decimals): a number as the tables write it
    formatNumber,  // formatNumber(value, spec): a number as the prose's :value: role with that format writes it
    powerOfTen,  // powerOfTen(value): a log axis's tick at a power of ten, as 1e−6
    inkOn,  // inkOn('rgb(r, g, b)'): black or white, whichever stands out more from that colour
    firstRowSliders,  // firstRowSliders({ field, flag, names, labels, min, max, step, row }): sliders for a matrix's first row (or row(values))
    matrixFormat: 'rows separated by\u00a0;, entries by\u00a0,',  // how a matrix field is typed: the start of its help
    matrixRows,  // matrixRows(text): a matrix field's rows as typed
    matrixRowCount,  // matrixRowCount(text): the rows the program will read, or null if one is blank
    reseedButton,  // reseedButton(label, largest): seed + 1, and 0 after largest (2^32 − 1 unless said), for a field named 'seed'
  };
  document.addEventListener('DOMContentLoaded', start);
})();
