"""Chapter 17's program, precision: adding 1 over and over in double, float and bfloat16, and the online softmax's
running sum of chapter 12 kept in float or bfloat16.

The checks here do not trust the program. The counting table follows from the formats alone: a format with p
fraction bits holds every whole number up to 2^(p+1) and, between 2^(p+1) and 2^(p+2), only the even ones; so
bfloat16 (p = 7) counts exactly to 256, and there adding 1 is a tie between 256 and 258 that goes to the even
one, 256, for good; float (p = 23) and double count exactly past the largest count the program takes (10^7 <
2^24). The running sums are recomputed in NumPy from the update's definition, L' = L e^(M − M') + e^(s − M'),
over the same scores (NumPy's default_rng(seed).standard_normal() times the spread): in float64 for the reference,
in NumPy's float32 arithmetic for float, and for bfloat16 by rounding float64 bit patterns to 7 fraction bits,
half to even, on uint64 views. And they are held to bounds that hold whatever the scores: a bfloat16 sum of terms
at most 1 never passes 256; a float sum of n terms is off by at most about 4 n float roundings."""
import math
import unittest

import numpy as np

from harness import ProgramTest, published_run, run
from harness import kept_json as document

SMALL = ("--n", "16,64,256,1024")
WIDE = SMALL + ("--spread", "4", "--seed", "7")
BOOK_LENGTHS = (16, 64, 256, 1024, 4096, 16384, 65536)  # the default --n, the book's runs
FORMATS = ["double", "float", "bfloat16"]
FRACTION_BITS = {"double": 52, "float": 23, "bfloat16": 7}
SETUPS = [("float", "float"), ("bfloat16", "float"), ("bfloat16", "bfloat16")]  # (terms, sum), the program's three
FLOAT_ROUNDING = 2.0 ** -24  # half float's spacing above 1: the largest relative error of one rounding


def bfloat16(x: float) -> float:
    """x rounded to bfloat16 from its float64 bits: keep 7 of the 52 fraction bits, half to even. For the normal
    numbers within bfloat16's range that the sums and the finite differences meet, and 0."""
    if x == 0.0:
        return 0.0
    if x < 0.0:
        return -bfloat16(-x)
    assert 2.0 ** -126 <= x < 2.0 ** 127, x
    bits = int(np.array(x, dtype=np.float64).view(np.uint64))
    cut = 52 - 7
    low, kept = bits & ((1 << cut) - 1), bits >> cut
    half = 1 << (cut - 1)
    if low > half or (low == half and kept & 1):
        kept += 1
    return float(np.array(kept << cut, dtype=np.uint64).view(np.float64))


def to_format(x: float, name: str) -> float:
    return {"double": float, "float": lambda v: float(np.float32(v)), "bfloat16": bfloat16}[name](x)


def scores(seed: int, spread: float, n: int) -> np.ndarray:
    return spread * np.random.default_rng(seed).standard_normal(n)


def running_sum(values: np.ndarray, terms: str, sum_format: str):
    """Chapter 12's update one score at a time, each term e^(s − M') rounded to `terms`, the factor e^(M − M'), the
    product and the sum rounded to `sum_format`. Float sums in NumPy's float32 arithmetic (the product of two
    floats and the sum of a float and a term are rounded once); bfloat16 sums exact in float64, then rounded.
    Returns the sum, the maximum, and how many terms fell below half the spacing of the sum they joined."""
    maximum, total, below = -math.inf, 0.0, 0
    for s in values:
        new_maximum = max(maximum, float(s))
        rescale = to_format(math.exp(maximum - new_maximum), sum_format)
        term = to_format(math.exp(float(s) - new_maximum), terms)
        if sum_format == "float":
            rescaled = float(np.float32(total) * np.float32(rescale))
            below += term < spacing(rescaled, FRACTION_BITS[sum_format]) / 2
            total = float(np.float32(rescaled) + np.float32(term))
        else:
            rescaled = to_format(total * rescale, sum_format)
            below += term < spacing(rescaled, FRACTION_BITS[sum_format]) / 2
            total = to_format(rescaled + term, sum_format)
        maximum = new_maximum
    return total, maximum, below


class Counting(ProgramTest):
    def expected(self, name: str, count: int):
        """(total, stuck_from, spacing_there) from the format alone."""
        p = FRACTION_BITS[name]
        exact_up_to = 2 ** (p + 1)  # 256 for bfloat16; 2^24 and 2^53 beyond any count the program takes
        total = min(count, exact_up_to)
        stuck_from = exact_up_to + 1 if count > exact_up_to else 0
        spacing = 2.0 ** (math.floor(math.log2(total)) - p) if total > 0 else 0.0
        return total, stuck_from, spacing

    def check(self, count: int):
        counting = document("--count", str(count), "--n", "1")["counting"]
        self.assertEqual([c["format"] for c in counting], FORMATS)
        for c in counting:
            name = c["format"]
            with self.subTest(count=count, format=name):
                self.assertEqual(c["fraction_bits"], FRACTION_BITS[name])
                self.assertEqual(c["epsilon"], 2.0 ** -FRACTION_BITS[name])
                self.assertEqual((c["total"], c["stuck_from"], c["spacing_there"]), self.expected(name, count))

    def test_counts_from_the_formats(self):
        for count in (0, 1, 2, 100, 255, 256, 257, 258, 300, 1000, 10_000_000):
            self.check(count)

    def test_bfloat16_counting_step_by_step(self):
        """The same count in the NumPy bfloat16 of these tests: it stops at 256 and stays there."""
        total, stuck = 0.0, 0
        for i in range(1, 301):
            following = bfloat16(total + 1.0)
            if following == total and stuck == 0:
                stuck = i
            total = following
        bfloat = document("--count", "300", "--n", "1")["counting"][2]
        self.assertEqual((bfloat["total"], bfloat["stuck_from"]), (total, stuck))
        self.assertEqual((total, stuck), (256.0, 257))


class RunningSums(ProgramTest):
    def check_against_numpy(self, arguments, seed: int, spread: float, expected_lengths=(16, 64, 256, 1024)):
        result = document(*arguments)
        self.assertEqual(result["inputs"]["seed"], seed)
        self.assertEqual(result["inputs"]["spread"], spread)
        self.assertEqual([(s["terms"], s["sum"]) for s in result["setups"]], SETUPS)
        lengths = [row["n"] for row in result["rows"]]
        self.assertEqual(lengths, list(expected_lengths))
        drawn = scores(seed, spread, max(lengths))
        for row in result["rows"]:
            n = row["n"]
            first = drawn[:n]
            with self.subTest(n=n):
                # The scores are NumPy's: the double sum matches NumPy's float64 one to its rounding.
                reference, maximum, _ = running_sum(first, "double", "double")
                self.assertEqual(row["reference_maximum"], float(first.max()))
                self.assertEqual(maximum, float(first.max()))
                self.assertAlmostEqual(row["reference_sum"] / reference, 1.0, delta=1e-12)
                # ... and the online sum is the softmax's normalizer: M + ln L is logsumexp.
                logsumexp = float(first.max() + np.log(np.sum(np.exp(first - first.max()))))
                self.assertAlmostEqual(row["reference_maximum"] + math.log(row["reference_sum"]), logsumexp,
                                       delta=1e-12 * max(1.0, abs(logsumexp)))
                for (terms, sum_format), kept in zip(SETUPS, row["sums"]):
                    with self.subTest(terms=terms, sum=sum_format):
                        # Every rounding is to a format: the same numbers, exactly (the exponentials in double
                        # differ at most in their last bit, which the rounding to float or bfloat16 drops).
                        ours, _, _ = running_sum(first, terms, sum_format)
                        self.assertEqual(kept["sum"], ours)
                        self.assertEqual(kept["maximum"], row["reference_maximum"])
                        self.assertAlmostEqual(kept["normalizer_error"], abs(ours / reference - 1.0),
                                               delta=1e-9 * abs(ours / reference - 1.0) + 1e-15)

    def test_the_book_setups_against_numpy(self):
        self.check_against_numpy(SMALL, 1, 1.0)

    def test_wider_scores_and_another_seed_against_numpy(self):
        self.check_against_numpy(WIDE, 7, 4.0)

    def test_the_book_runs_against_numpy(self):
        # The chapter's two runs, to n = 65,536: every kept sum the same number as NumPy's loop (about a second).
        for arguments, spread in (((), 1.0), (("--spread", "4"), 4.0)):
            self.check_against_numpy(arguments, 1, spread, BOOK_LENGTHS)

    def test_which_terms_fall_below_half_the_float_sums_spacing(self):
        """The page: in the spread-1 sums, to n = 65,536, the float sum's spacing is so fine that no term falls below
        half of it (none is lost whole), with float terms or bfloat16 ones; with spread 4 many do, and the float
        sums end further off than with spread 1."""
        for arguments, spread in (((), 1.0), (("--spread", "4"), 4.0)):
            longest = document(*arguments)["rows"][-1]
            for setup, terms in ((0, "float"), (1, "bfloat16")):
                total, _, below = running_sum(scores(1, spread, BOOK_LENGTHS[-1]), terms, "float")
                with self.subTest(spread=spread, terms=terms):
                    self.assertEqual(total, longest["sums"][setup]["sum"])  # this loop is the program's sum
                    if spread == 1.0:
                        self.assertEqual(below, 0)
                    else:
                        self.assertGreater(below, BOOK_LENGTHS[-1] // 4)
        spread_one, spread_four = document()["rows"][-1], document("--spread", "4")["rows"][-1]
        for setup in (0, 1):
            self.assertGreater(spread_four["sums"][setup]["normalizer_error"],
                               spread_one["sums"][setup]["normalizer_error"])

    def test_with_spread_four_almost_every_term_is_lost_to_the_bfloat16_sum(self):
        # Chapter 17, of the spread-4 run: "almost every term e^(s−M) is tiny, below half the bfloat16 L's
        # spacing, and lost": of the 65,536 terms, more than 95 %, in the NumPy loop that gives the program's sum.
        total, _, below = running_sum(scores(1, 4.0, BOOK_LENGTHS[-1]), "bfloat16", "bfloat16")
        self.assertEqual(total, document("--spread", "4")["rows"][-1]["sums"][2]["sum"])
        self.assertGreater(below, 0.95 * BOOK_LENGTHS[-1])

    def test_the_answer_that_reads_the_float_sums_spacing(self):
        """The third answer types the power of two the float sum of row 6 lies under: between 2^10 and 2^11, so its
        spacing is 2^(10 - 23)."""
        float_sum = document()["rows"][6]["sums"][1]
        self.assertTrue(2.0 ** 10 <= float_sum["sum"] < 2.0 ** 11)
        self.assertEqual(float_sum["spacing"], 2.0 ** (10 - 23))

    def test_the_spread_four_text_types_the_bfloat16_sums_exponent(self):
        # The text on the spread-4 table types the bfloat16 L's exponent: "the spacing formula, with e = 1".
        bfloat16_sum = published_run("precision_wide")["rows"][6]["sums"][2]
        self.assertTrue(2.0 ** 1 <= bfloat16_sum["sum"] < 2.0 ** 2)
        self.assertEqual(bfloat16_sum["spacing"], 2.0 ** (1 - 7))

    def test_bounds_on_the_book_run(self):
        for arguments in ((), ("--spread", "4")):
            result = document(*arguments)
            self.assertEqual([row["n"] for row in result["rows"]], list(BOOK_LENGTHS))
            for row in result["rows"]:
                n, reference = row["n"], row["reference_sum"]
                floats, bfloat_terms, bfloats = row["sums"]
                with self.subTest(arguments=arguments, n=n):
                    # Each step rounds the term, the factor, the product and the sum: four float roundings.
                    self.assertLessEqual(floats["normalizer_error"], 4 * n * FLOAT_ROUNDING)
                    # bfloat16 terms add at most 2^-8 each, relative, on top.
                    self.assertLessEqual(bfloat_terms["normalizer_error"], 2.0 ** -8 + 4 * n * FLOAT_ROUNDING)
                    # Terms are at most 1, and from 256 on adding at most 1 is at most a tie that stays at 256.
                    self.assertLessEqual(bfloats["sum"], 256.0)
                    self.assertGreaterEqual(bfloats["normalizer_error"], 1.0 - 256.0 / reference - 1e-12)
            # Float's error stays within 10^-4 to n = 1024 (4 · 1024 · 2^-24 is 2.4e-4; one rounding a step, 6e-5).
            for row in result["rows"]:
                if row["n"] <= 1024:
                    self.assertLess(row["sums"][0]["normalizer_error"], 1e-4)

    def test_the_bfloat16_sum_falls_behind(self):
        """In the book's run the double L is past 512 at the longest n, so the bfloat16 sum, held to at most 256, is
        off by more than half there; at n = 16 it is off by no more than its sixteen roundings of 2^-8 could make."""
        rows = document()["rows"]
        first, last = rows[0], rows[-1]
        self.assertGreater(last["reference_sum"], 512.0)
        self.assertGreater(last["sums"][2]["normalizer_error"], 0.5)
        self.assertLess(first["sums"][2]["normalizer_error"], 16 * 2.0 ** -8)
        self.assertGreater(last["sums"][2]["normalizer_error"], 100 * first["sums"][2]["normalizer_error"])
        # float's error at the same n is far below bfloat16's.
        self.assertLess(last["sums"][0]["normalizer_error"], 4 * last["n"] * FLOAT_ROUNDING)

    def test_bfloat16_terms_cost_little_and_a_bfloat16_sum_a_lot(self):
        """The page, of the book's longest spread-1 run: a bfloat16 term is off by at most one part in 256, "And the
        errors go both ways and mostly cancel: the … above is far below 1/256" (here, a tenth of it at most); "So
        bfloat16 terms cost little when L is kept in float, and a bfloat16 L costs a lot" (off by more than half)."""
        longest = published_run("precision")["rows"][-1]
        self.assertLess(longest["sums"][1]["normalizer_error"], 2.0 ** -8 / 10)
        self.assertGreater(longest["sums"][2]["normalizer_error"], 0.5)

    def test_the_bfloat16_sum_along_the_way_up_as_well_as_down(self):
        """The fold: "Rounding to the nearest can go up: after [64] scores the bfloat16 sum is …, above the double
        …. But the terms lost entirely, always downwards, have the larger effect: after [4096] scores the bfloat16
        sum was …, against a double sum of …"."""
        rows = published_run("precision")["rows"]
        after_64, after_4096 = rows[1], rows[4]
        self.assertEqual((after_64["n"], after_4096["n"]), (64, 4096))
        above = after_64["sums"][2]["sum"] / after_64["reference_sum"] - 1
        below = 1 - after_4096["sums"][2]["sum"] / after_4096["reference_sum"]
        self.assertGreater(above, 0)
        self.assertGreater(below, 10 * above)

    def test_spread_four_against_spread_one(self):
        """The page, of the two runs it shows: "In the spread-4 table, the L column goes down as well as up", as it
        may only at a new maximum (without one, L' = L + e^(s − M) only grows); and "From n = 64 up, the last
        columns of the two tables show the bfloat16 sum losing less with spread 4 than with spread 1; at n = 16 it
        loses more". The double sums are recomputed here from the scores: L = Σ e^(s − M)."""
        narrow, wide = published_run("precision")["rows"], published_run("precision_wide")["rows"]
        self.assertEqual([row["n"] for row in narrow], list(BOOK_LENGTHS))
        self.assertEqual([row["n"] for row in wide], list(BOOK_LENGTHS))
        drawn = scores(1, 4.0, BOOK_LENGTHS[-1])
        sums = [float(np.sum(np.exp(drawn[:n] - drawn[:n].max()))) for n in BOOK_LENGTHS]
        maxima = [float(drawn[:n].max()) for n in BOOK_LENGTHS]
        np.testing.assert_allclose([row["reference_sum"] for row in wide], sums, rtol=1e-12, atol=0)
        steps = list(zip(sums, sums[1:], maxima, maxima[1:]))
        self.assertTrue(any(after < before for before, after, _, _ in steps), sums)
        self.assertTrue(any(after > before for before, after, _, _ in steps), sums)
        for before, after, maximum, new_maximum in steps:
            if after < before:
                self.assertGreater(new_maximum, maximum)
        errors = [(one["sums"][2]["normalizer_error"], four["sums"][2]["normalizer_error"])
                  for one, four in zip(narrow, wide)]
        self.assertGreater(errors[0][1], errors[0][0], errors)
        for one, four in errors[1:]:
            self.assertLess(four, one, errors)

    def test_the_term_one_spread_above_the_mean(self):
        """e^(spread − M), recomputed from the scores. In the book's run it is below 1/8 from n = 1024 on (the running
        maximum only rises), half the bfloat16 spacing once L passes 32 (2^(5 − 7) / 2); and about five scores in six
        lie below one spread (their mean is 0), as the page says from the bell curve."""
        for arguments, spread in (((), 1.0), (("--spread", "4"), 4.0)):
            rows = document(*arguments)["rows"]
            drawn = scores(1, spread, rows[-1]["n"])
            for row in rows:
                with self.subTest(spread=spread, n=row["n"]):
                    expected = math.exp(spread - float(drawn[:row["n"]].max()))
                    self.assertAlmostEqual(row["term_at_one_spread"], expected, delta=1e-14 * expected)
        book_rows = document()["rows"]
        from_1024 = [row for row in book_rows if row["n"] >= 1024]
        self.assertEqual(from_1024[0]["n"], 1024)  # the row the page reads
        for row in from_1024:
            self.assertLess(row["term_at_one_spread"], 1 / 8, row["n"])
        longest = book_rows[-1]
        below = float(np.mean(scores(1, 1.0, longest["n"]) < 1.0))
        self.assertAlmostEqual(below, 5 / 6, delta=0.02)

    def test_a_length_alone_is_its_row(self):
        alone = document("--n", "256")["rows"]
        self.assertEqual(alone, [row for row in document(*SMALL)["rows"] if row["n"] == 256])

    def test_tables_show_the_json(self):
        printed = run(*SMALL).stdout
        result = document(*SMALL)
        self.assertIn("  bfloat16         7    256    257         2\n", printed)
        for row in result["rows"]:
            line = next(line for line in printed.splitlines() if line.split()[:1] == [str(row["n"])])
            self.assertEqual(line.split()[2:], [f"{s['normalizer_error']:.1e}" for s in row["sums"]])


def spacing(value: float, bits: int) -> float:
    """The gap from |value| to the next number above it in a format with `bits` fraction bits: 2^(e − p) for
    |value| between 2^e and 2^(e+1), from frexp's exponent; 0 at 0."""
    if value == 0.0:
        return 0.0
    _, exponent = math.frexp(abs(value))  # |value| = m 2^exponent with m in [1/2, 1)
    return 2.0 ** (exponent - 1 - bits)


def finite_difference_estimates(steps, name: str, at: float, difference: str):
    """The difference of e^x at x (as the format holds it) for each step, every number rounded to the format as it
    is made, written from the definitions: central (f(x + h) − f(x − h)) / 2h, forward (f(x + h) − f(x)) / h.
    Returns the estimates and the derivative they estimate, e^x."""

    def r(value):
        return to_format(value, name)

    x = r(at)
    estimates = []
    for h in steps:
        if difference == "central":
            estimates.append(r(r(r(math.exp(r(x + h))) - r(math.exp(r(x - h)))) / r(2.0 * h)))
        else:
            estimates.append(r(r(r(math.exp(r(x + h))) - r(math.exp(x))) / r(h)))
    return estimates, math.exp(x)


def finite_difference_errors(steps, name: str, at: float, difference: str):
    """The relative error of each of finite_difference_estimates()."""
    estimates, derivative = finite_difference_estimates(steps, name, at, difference)
    return [abs(estimate - derivative) / derivative for estimate in estimates]


class FiniteDifference(ProgramTest):
    """Chapter 10's central difference of e^x, and the forward one, every number rounded to the format: against
    the same steps written in NumPy, at x = 1 and elsewhere, and where the best step lies by the arithmetic of the
    two errors (the formula's h^2/6 and rounding's spacing/2h meet near the cube root of the spacing; the forward
    difference's h/2 and spacing/h near its square root)."""

    POINTS = ("0.1", "2.5", "10", "-3")

    def check_against_numpy(self, at: str, difference: str):
        arguments = ("--n", "16", "--at", at, "--difference", difference)
        result = document(*arguments)["finite_difference"]
        self.assertEqual(result["difference"], difference)
        steps = result["steps"]
        np.testing.assert_allclose(steps, [10.0 ** (-k / 4) for k in range(2, 49)], rtol=1e-15, atol=0)
        self.assertEqual([curve["format"] for curve in result["curves"]], FORMATS)
        for curve in result["curves"]:
            name = curve["format"]
            with self.subTest(at=at, difference=difference, format=name):
                self.assertEqual(curve["at"], to_format(float(at), name))
                errors = finite_difference_errors(steps, name, float(at), difference)
                self.assertEqual(curve["errors"], errors)
                best = int(np.argmin(errors))
                self.assertEqual(curve["best_step"], steps[best])
                self.assertEqual(curve["best_error"], errors[best])
        return result

    def test_the_curves_against_numpy(self):
        result = document()["finite_difference"]
        self.assertEqual(result, self.check_against_numpy("1", "central"))

    def test_the_forward_difference_against_numpy(self):
        self.assertEqual(document("--difference", "forward")["finite_difference"],
                         self.check_against_numpy("1", "forward"))

    def test_the_point_moves_the_curves_as_numpy_says(self):
        at_one = {d: document("--n", "16", "--difference", d)["finite_difference"] for d in ("central", "forward")}
        for at in self.POINTS:
            for difference in ("central", "forward"):
                moved = self.check_against_numpy(at, difference)
                # A point of its own: no curve is the one at x = 1.
                for curve, there in zip(moved["curves"], at_one[difference]["curves"]):
                    self.assertNotEqual(curve["errors"], there["errors"])

    def test_the_cliff_is_where_the_points_round_back(self):
        """The interactive figure's caption: "The cliffs of float and bfloat16 … (double's lies past the plot)"; for
        x above 1, the error is 1 (the difference 0) at a step exactly when x + h and x − h both round back to x;
        at 1, the two values of e^x meet sooner, at a step where 1 − h does not round back yet (in float)."""
        for at in ("1", "2.5", "10"):
            finite = document("--n", "16", "--at", at)["finite_difference"]
            for curve in finite["curves"]:
                name = curve["format"]
                x = to_format(float(at), name)
                back = [to_format(x + h, name) == x and to_format(x - h, name) == x for h in finite["steps"]]
                lost = [error == 1.0 for error in curve["errors"]]  # the difference is 0
                with self.subTest(at=at, format=name):
                    if name == "double":  # no step of the grid is small enough against double's spacing
                        self.assertNotIn(True, back)
                        self.assertNotIn(True, lost)
                    elif at == "1":
                        if name == "float":
                            self.assertTrue(any(zero and not rounded for zero, rounded in zip(lost, back)))
                    else:
                        self.assertIn(True, back)
                        self.assertEqual(lost, back)

    def test_the_best_step_is_near_the_cube_root_of_the_spacing(self):
        for curve, bits in zip(document()["finite_difference"]["curves"], (52, 23, 7)):
            with self.subTest(format=curve["format"]):
                root = (2.0 ** -bits) ** (1 / 3)
                self.assertAlmostEqual(curve["root"], root, delta=1e-15 * root)
                # h^2/6 + spacing/h is smallest at h = (3 spacing)^(1/3): within a factor of 4 of the cube root.
                self.assertLess(abs(math.log10(curve["best_step"] / root)), math.log10(4))
                # and there both errors are about root^2: the best error is no larger.
                self.assertLessEqual(curve["best_error"], root ** 2)

    def test_bfloat16s_best_step_is_the_largest_and_beats_the_formulas_own_error(self):
        """The page: bfloat16's best step "is the largest the program tries"; "Its error there … is even below the
        formula's own error at that step", which "equals the double curve's" there; "The formula alone makes the
        estimate too large. Here bfloat16's roundings happen to make the estimate smaller". Without rounding the
        central difference of e^x at 1 is e (e^h − e^−h)/2h = e sinh(h)/h: too large by sinh(h)/h − 1 ≈ h²/6."""
        result = published_run("precision")["finite_difference"]
        largest = result["steps"][0]
        self.assertEqual(largest, max(result["steps"]))
        double, _, bfloat = result["curves"]
        formula = math.sinh(largest) / largest - 1
        self.assertAlmostEqual(formula / (largest ** 2 / 6), 1.0, delta=largest ** 2 / 10)  # the next term, h⁴/120
        estimates, derivative = finite_difference_estimates([largest], "bfloat16", 1.0, "central")
        errors = finite_difference_errors(result["steps"], "bfloat16", 1.0, "central")
        self.assertEqual(bfloat["errors"], errors)
        self.assertEqual(int(np.argmin(errors)), 0, errors)
        self.assertEqual(bfloat["best_step"], largest)
        self.assertLess(bfloat["best_error"], formula)
        self.assertLess(estimates[0], derivative * (1 + formula))
        # The double's roundings at that step are some 10⁻¹⁶ of e: its error is the formula's.
        self.assertAlmostEqual(double["errors"][0], formula, delta=1e-12)

    def test_the_dips_hardly_move_with_x(self):
        """The step explorer: "Move x. The dips hardly move … the error is relative, and the spacing of e^x grows in
        step with e^x". The spacing of e^x over e^x lies between u/2 and u at every x, so the step the arithmetic
        predicts, (3/2 s)^(1/3), moves with x by a factor of at most 2^(1/3) but for the spacing of x ± h itself. The
        error near the dip is rounding noise on a flat floor, so the measured minimum can wander a grid step or two
        either way (the grid's steps are a quarter of a power of ten apart): the best step of double and of float at
        each of the points stays within three grid steps of its best step at 1, on a plot some ten powers wide."""
        at_one = document("--n", "16")["finite_difference"]["curves"]
        for at in self.POINTS:
            moved = document("--n", "16", "--at", at)["finite_difference"]["curves"]
            for curve, there in zip(moved[:2], at_one[:2]):
                with self.subTest(at=at, format=curve["format"]):
                    self.assertLessEqual(abs(math.log10(curve["best_step"] / there["best_step"])), 0.75 + 1e-9)

    def test_the_forward_difference_is_best_near_the_square_root_of_the_spacing(self):
        central = document()["finite_difference"]["curves"]
        forward = document("--difference", "forward")["finite_difference"]["curves"]
        for curve, other, bits in zip(forward, central, (52, 23, 7)):
            with self.subTest(format=curve["format"]):
                root = (2.0 ** -bits) ** (1 / 2)
                self.assertAlmostEqual(curve["root"], root, delta=1e-15 * root)
                # h/2 + spacing/h is smallest at h = (2 spacing)^(1/2): within a factor of 4 of the square root,
                self.assertLess(abs(math.log10(curve["best_step"] / root)), math.log10(4))
                # where both errors are about the root: the best error is no larger.
                self.assertLessEqual(curve["best_error"], root)
                # The square root of a spacing below 1 is below its cube root: a smaller step than the central
                # difference's, and a larger error, since the formula's own error h/2 exceeds h^2/6.
                self.assertLess(curve["best_step"], other["best_step"])
                self.assertGreater(curve["best_error"], other["best_error"])

    def test_the_predicted_step_from_the_spacing_of_the_difference(self):
        """The spacing of one difference, relative to e^x: the spacing of e^x over e^x, plus half the spacing of x
        for each rounded point x ± h (two central, one forward); the predicted step (3/2 s)^(1/3) or (2 s)^(1/2)."""
        for at in ("1",) + self.POINTS:
            for difference, points in (("central", 2), ("forward", 1)):
                curves = document("--n", "16", "--at", at, "--difference", difference)["finite_difference"]["curves"]
                for curve, bits in zip(curves, (52, 23, 7)):
                    with self.subTest(at=at, difference=difference, format=curve["format"]):
                        x = curve["at"]
                        s = spacing(math.exp(x), bits) / math.exp(x) + points * spacing(x, bits) / 2
                        self.assertAlmostEqual(curve["spacing"], s, delta=1e-14 * s)
                        predicted = (1.5 * s) ** (1 / 3) if difference == "central" else (2 * s) ** 0.5
                        self.assertAlmostEqual(curve["predicted_step"], predicted, delta=1e-14 * predicted)
                        # The bound takes every rounding at its worst: the best step lies within a power of ten of it
                        # here (on a grid a quarter of a power of ten apart).
                        self.assertLess(abs(math.log10(curve["best_step"] / predicted)), 1.0)

    def test_tables_name_the_difference_and_the_point(self):
        printed = run("--n", "16", "--difference", "forward", "--at", "2.5").stdout
        self.assertIn("The forward difference of e^x at x = 2.5,\nevery number in the format", printed)
        self.assertIn("(spacing\n", printed)  # the heading (spacing at 1)^(1/2), over two lines
        lines = printed.splitlines()
        header = next(i for i, line in enumerate(lines) if line.endswith("at 1)^(1/2)"))
        curves = document("--n", "16", "--difference", "forward", "--at", "2.5")["finite_difference"]["curves"]
        for line, curve in zip(lines[header + 1:header + 4], curves):
            self.assertEqual(line.split(), [curve["format"], f"{curve['best_step']:.2g}", f"{curve['best_error']:.1e}",
                                            f"{curve['root']:.2g}"])


class Refusals(ProgramTest):
    def test_help(self):
        self.assert_help_lists("--count", "--n", "--seed", "--spread", "--at", "--difference", "--json")

    def test_bad_inputs(self):
        self.assert_each_refused([
            (["--count", "-1"], "--count"),
            (["--count", "x"], "--count"),
            (["--count", "1.5"], "--count"),
            (["--count", "10000001"], "--count"),
            (["--count", ""], "--count"),
            (["--n", "0"], "--n"),
            (["--n", ""], "--n"),
            (["--n", "16,,64"], "--n"),
            (["--n", "-16"], "--n"),
            (["--n", ",".join(["16"] * 13)], "--n"),
            (["--n", str(2 ** 20 + 1)], "--n"),
            (["--n", "many"], "--n"),
            (["--seed", "x"], "--seed"),
            (["--seed", "-1"], "--seed"),
            (["--seed", "1.5"], "--seed"),
            (["--spread", "0"], "--spread"),
            (["--spread", "-1"], "--spread"),
            (["--spread", "nan"], "--spread"),
            (["--spread", "inf"], "--spread"),
            (["--spread", "1000"], "--spread"),
            (["--spread", "wide"], "--spread"),
            (["--at", "21"], "--at"),
            (["--at", "-20.5"], "--at"),
            (["--at", "x"], "--at"),
            (["--at", "nan"], "--at"),
            (["--at", "inf"], "--at"),
            (["--at", ""], "--at"),
            (["--difference", "backward"], "--difference"),
            (["--difference", "Central"], "--difference"),
            (["--difference", ""], "--difference"),
        ])


if __name__ == "__main__":
    unittest.main()
