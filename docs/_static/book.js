// The book's small page helpers (no computation happens here).
//
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
  let pending = null;
  function later() {
    if (pending) cancelAnimationFrame(pending);
    pending = requestAnimationFrame(layOut);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', layOut);
  else layOut();
  window.addEventListener('resize', later);
})();

// A figure never shrinks below 60 % of its drawn size, where its tick labels
// (11 pt) would fall under about 9 px: on a narrow screen it keeps that size
// and scrolls sideways inside its own box instead.
(function () {
  const SMALLEST_SCALE = 0.6;
  function floor(img) {
    if (img.naturalWidth > 0) img.style.minWidth = `${Math.round(img.naturalWidth * SMALLEST_SCALE)}px`;
  }
  function all() {
    for (const img of document.querySelectorAll('figure img')) {
      if (img.complete) floor(img);
      else img.addEventListener('load', () => floor(img), { once: true });
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', all);
  else all();
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
