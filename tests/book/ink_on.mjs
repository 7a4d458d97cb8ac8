// Book.inkOn (docs/_static/interactive.js): the numbers on the page's maps are written black or white,
// whichever stands out more from the cell's colour, as figures/figure_style.py's ink_on chooses for the
// static figures. Held to WCAG's contrast, written out here from its definition: the ink chosen gives
// at least 4.5 to 1 on any colour (the worst, of luminance near 0.18, still gives about 4.58), and
// never less than the other ink would.
//
//   node tests/book/ink_on.mjs
import { loadBook } from './frame_in_node.mjs';

const { inkOn } = loadBook();

const luminance = ([red, green, blue]) => {
  const linear = (c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue);
};
const contrast = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
const INK = { black: 0, white: 1 };

const failures = [];
let count = 0;
for (let red = 0; red <= 255; red += 15) {
  for (let green = 0; green <= 255; green += 15) {
    for (let blue = 0; blue <= 255; blue += 15) {
      count++;
      const cell = luminance([red, green, blue]);
      const ink = inkOn(`rgb(${red}, ${green}, ${blue})`);
      const chosen = contrast(INK[ink], cell);
      const other = contrast(INK[ink === 'black' ? 'white' : 'black'], cell);
      if (!(ink in INK) || chosen < 4.5 || chosen < other) {
        failures.push(`inkOn(rgb(${red}, ${green}, ${blue})) gave ${ink}: ${chosen.toFixed(2)} to 1, the other ${other.toFixed(2)}`);
      }
    }
  }
}
// Mid-tones, where a wrong curve or a flipped comparison shows: a muted red of luminance 0.223 (black
// 5.46 to 1, white 3.85), a mid blue (black), and the darkest blue of the maps (white).
for (const [colour, ink] of [['rgb(200, 100, 100)', 'black'], ['rgb(84, 128, 179)', 'black'], ['rgb(8, 48, 107)', 'white']]) {
  count++;
  if (inkOn(colour) !== ink) failures.push(`inkOn(${colour}) gave ${inkOn(colour)}, expected ${ink}`);
}

if (failures.length > 0) {
  console.error(failures.slice(0, 20).join('\n'));
  process.exit(1);
}
console.log(`inkOn: ${count} colours, each with the ink that stands out more, at least 4.5 to 1`);
