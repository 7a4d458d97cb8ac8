// The book's small page helpers (no computation happens here).

// Runs layOut once the page is read, and again when the window changes size
// (once a frame at most). Returns that "again at the next frame", for other
// events that change what fits.
function bookLaysOut(layOut) {
  let pending = null;
  const later = () => {
    if (pending) cancelAnimationFrame(pending);
    pending = requestAnimationFrame(layOut);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', layOut);
  else layOut();
  window.addEventListener('resize', later);
  return later;
}

// A formula and the code that computes it sit side by side when both fit;
// when the code is wider than its half of the column, the pair stacks so the
// listing gets the whole width instead of a scrollbar. The code in a tab not
// shown (C++ | NumPy) is measured too, so that choosing it moves nothing.
(function () {
  function layOut() {
    for (const pair of document.querySelectorAll('div.formula-and-code')) {
      pair.classList.remove('stacked');
      const hidden = [...pair.querySelectorAll('[role="tabpanel"][hidden]')];
      for (const panel of hidden) panel.hidden = false;
      const wide = [...pair.querySelectorAll('div.highlight pre')]
        .some((code) => code.scrollWidth > code.clientWidth + 1);
      for (const panel of hidden) panel.hidden = true;
      if (wide) pair.classList.add('stacked');
    }
  }
  bookLaysOut(layOut);
})();

// The copy button sits at a listing's top right. A listing whose first line
// runs under it starts a line lower (on a phone every listing does, book.css),
// so that the button hides none of it. A listing in a tab not shown (C++ |
// NumPy) is measured too, so that choosing the tab shows it right.
(function () {
  function firstLineRight(pre) {
    const range = document.createRange();
    range.setStart(pre, 0);
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const end = walker.currentNode.data.indexOf('\n');
      if (end >= 0) {
        range.setEnd(walker.currentNode, end);
        return range.getBoundingClientRect().right;
      }
    }
    range.selectNodeContents(pre);
    return range.getBoundingClientRect().right;
  }
  function layOut() {
    const hidden = [...document.querySelectorAll('[role="tabpanel"][hidden]')];
    for (const panel of hidden) panel.hidden = false;
    for (const pre of document.querySelectorAll('div.highlight pre')) {
      pre.classList.remove('first-line-lowered');
      if (pre.offsetParent === null || pre.closest('div.program-output')) continue;
      const button = 2.5 * parseFloat(getComputedStyle(pre).fontSize);
      if (firstLineRight(pre) > pre.getBoundingClientRect().right - button) pre.classList.add('first-line-lowered');
    }
    for (const panel of hidden) panel.hidden = true;
  }
  bookLaysOut(layOut);
})();

// On a phone a command wraps (book.css), and a browser may break a line after
// any hyphen, comma or slash: --reps would read "-" on one line and "-reps" on
// the next. Each run of characters between spaces is kept whole instead; the
// text, and what the copy button copies, stay as they were.
(function () {
  function keepWordsWhole() {
    for (const pre of document.querySelectorAll('div.highlight-console pre')) {
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      const texts = [];
      while (walker.nextNode()) texts.push(walker.currentNode);
      for (const text of texts) {
        if (!/[^\s][-,/][^\s]/.test(text.data)) continue;
        const pieces = text.data.split(/(\s+)/).filter((piece) => piece !== '');
        text.replaceWith(...pieces.map((piece) => {
          if (/^\s/.test(piece)) return document.createTextNode(piece);
          const word = document.createElement('span');
          word.className = 'command-word';
          word.textContent = piece;
          return word;
        }));
      }
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', keepWordsWhole);
  else keepWordsWhole();
})();

// A figure never shrinks below 60 % of its drawn size, where its tick labels
// (11 pt) would fall under about 9 px: on a narrow screen it keeps that size
// and scrolls sideways inside the box the page gives it (the caption stays
// still). A tap on the figure opens it alone, at full size, where a phone can
// zoom: a figure drawn also for narrow screens is a <picture>
// (docs/_ext/narrow_figures.py), and the link opens the drawing the screen shows.
(function () {
  const SMALLEST_SCALE = 0.6;
  function loaded(img) {
    if (img.naturalWidth > 0) img.style.minWidth = `${Math.round(img.naturalWidth * SMALLEST_SCALE)}px`;
    const link = img.closest('a.figure-full');
    if (link) link.href = img.currentSrc || img.getAttribute('src');
  }
  function all() {
    for (const img of document.querySelectorAll('figure img')) {
      if (img.complete) loaded(img);
      img.addEventListener('load', () => loaded(img));
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', all);
  else all();
})();

// Wide code, program output, tables, figures, formulas and an interactive
// figure's slots scroll sideways inside their own box. A phone shows no scroll
// bar until the reader scrolls, so the edge that hides more fades out
// (book.css, data-more), and the fade follows the scrolling: "right" at the
// start, "both" in the middle, "left" at the end.
(function () {
  const BOXES = 'article pre, article .table-wrapper, article .figure-scroll, article mjx-container[display="true"], '
    + 'article .interactive-slot';
  function mark(box) {
    const hidden = box.scrollWidth - box.clientWidth;
    const left = hidden > 1 && box.scrollLeft > 1;
    const right = hidden > 1 && box.scrollLeft < hidden - 1;
    const more = left && right ? 'both' : left ? 'left' : right ? 'right' : '';
    if (box.dataset.more !== more) {
      if (more) box.dataset.more = more;
      else delete box.dataset.more;
    }
    // The fade is no wider than what is hidden, so that a box that hides a
    // few pixels is not dimmed by more than it hides.
    if (more) box.style.setProperty('--fade', `${Math.min(40, Math.round(hidden))}px`);
  }
  const later = bookLaysOut(() => {
    for (const box of document.querySelectorAll(BOXES)) mark(box);
  });
  // Opening a fold, choosing a tab or a figure's image arriving changes what fits;
  // so does an interactive figure drawing its slots (again) after each computation.
  for (const type of ['load', 'toggle', 'click']) document.addEventListener(type, later, true);
  const drawn = new MutationObserver((changes) => {
    if (changes.some((change) => change.target instanceof Element && change.target.closest('div.interactive'))) later();
  });
  function watch() {
    for (const article of document.querySelectorAll('article')) drawn.observe(article, { childList: true, subtree: true });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();
  document.addEventListener('scroll', (event) => {
    if (event.target instanceof Element && event.target.matches(BOXES)) mark(event.target);
  }, { capture: true, passive: true });
})();

// A live number's provenance opens below it; near the right edge of the
// screen it shifts left so that it stays inside the screen.
(function () {
  const MARGIN = 8;
  function place(value) {
    const provenance = value.querySelector('.provenance');
    if (!provenance) return;
    provenance.style.left = '0px';
    const box = provenance.getBoundingClientRect();
    const overflow = box.right - (document.documentElement.clientWidth - MARGIN);
    if (overflow > 0) provenance.style.left = `${-Math.min(overflow, box.left - MARGIN)}px`;
  }
  for (const type of ['focusin', 'mouseover']) {
    document.addEventListener(type, (event) => {
      const value = event.target.closest && event.target.closest('span.live-value');
      if (value) place(value);
    });
  }
})();

// The big picture's stages wrap on a narrow screen: an arrow that ends a row
// (or starts one) would point off the edge, so it is hidden; the stages are
// read like lines of text, left to right and then down.
(function () {
  function centre(node) {
    const box = node.getBoundingClientRect();
    return (box.top + box.bottom) / 2;
  }
  function layOut() {
    for (const arrow of document.querySelectorAll('.bp-flow > .bp-arrow')) {
      arrow.style.visibility = '';
      const before = arrow.previousElementSibling;
      const after = arrow.nextElementSibling;
      const beside = (node) => node && Math.abs(centre(node) - centre(arrow)) < arrow.getBoundingClientRect().height;
      if (!beside(before) || !beside(after)) arrow.style.visibility = 'hidden';
    }
  }
  bookLaysOut(layOut);
})();

// Furo's buttons that open the navigation and the contents on a narrow screen are labels of hidden
// checkboxes, which the keyboard does not reach: they become buttons, opened with Enter or Space,
// that say whether their panel is open. Opened from the keyboard, a panel takes the focus (the
// button is under it now); Escape closes it and gives the focus back to its button.
(function () {
  const PANELS = { __navigation: '.sidebar-drawer', __toc: '.toc-drawer' };
  let opener = null;
  for (const label of document.querySelectorAll('label.nav-overlay-icon, label.toc-overlay-icon')) {
    const box = document.getElementById(label.htmlFor);
    if (!box) continue;
    label.tabIndex = 0;
    label.setAttribute('role', 'button');
    const say = () => label.setAttribute('aria-expanded', String(box.checked));
    say();
    box.addEventListener('change', say);
    label.addEventListener('click', () => setTimeout(say));
    label.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' && event.key !== ' ') return;
      event.preventDefault();
      label.click();
      opener = label;
      // After the click has ticked the box, and once the panel is shown (it is hidden while closed).
      setTimeout(() => {
        if (box.checked) document.querySelector(PANELS[box.id])?.querySelector('a[href], button, input')?.focus();
      }, 300);
    });
  }
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    for (const id of Object.keys(PANELS)) {
      const box = document.getElementById(id);
      if (!box?.checked) continue;
      box.checked = false;
      box.dispatchEvent(new Event('change'));
      if (opener?.htmlFor === id && opener.offsetParent !== null) opener.focus();
    }
  });
})();
