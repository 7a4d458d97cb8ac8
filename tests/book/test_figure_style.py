"""The numbers the static heatmaps write on their cells (figures/figure_style.py, cell_numbers)
stand out from the cell: black or white, whichever contrasts more, which on any colour is at
least 4.5 to 1 (WCAG's AA for text; the worst colour, of luminance 0.18, still gives about 4.58)."""
import sys
import unittest
from pathlib import Path

import numpy as np

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "figures"))

from figure_style import cell_numbers, ink_on, plt  # noqa: E402

INK = {"black": (0.0, 0.0, 0.0), "white": (1.0, 1.0, 1.0)}


def luminance(colour) -> float:
    """WCAG 2's relative luminance, written out from its definition."""
    red, green, blue = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in colour[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first, second) -> float:
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


class Ink(unittest.TestCase):
    def test_every_colour_of_the_books_maps_gets_readable_ink(self):
        for name in ("Blues", "RdBu_r"):
            colours = plt.get_cmap(name)(np.linspace(0, 1, 257))
            for colour in colours:
                with self.subTest(map=name, colour=tuple(colour)):
                    self.assertGreaterEqual(contrast(INK[ink_on(colour)], colour), 4.5)

    def test_the_ink_that_contrasts_more_is_chosen(self):
        # A mid blue of luminance near 0.2, where a fixed threshold on the value goes wrong:
        # black stands out 5.1 to 1, white 4.1.
        self.assertEqual(ink_on((0.33, 0.5, 0.7)), "black")
        self.assertEqual(ink_on((0.03, 0.19, 0.42)), "white")
        self.assertEqual(ink_on((0.97, 0.98, 1.0)), "black")

    def test_cell_numbers_read_each_cells_colour_from_the_heatmap(self):
        figure, axes = plt.subplots()
        values = np.array([[0.0, 0.5, 1.0]])
        image = axes.imshow(values, cmap="Blues", vmin=0, vmax=1)
        cell_numbers(axes, values, lambda value: f"{value:.1f}")
        for text, value in zip(axes.texts, values.ravel()):
            colour = image.cmap(image.norm(value))
            self.assertGreaterEqual(contrast(INK[text.get_color()], colour), 4.5, text.get_text())
        self.assertEqual([text.get_color() for text in axes.texts], ["black", "black", "white"])
        plt.close(figure)


if __name__ == "__main__":
    unittest.main()
