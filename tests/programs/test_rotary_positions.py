"""Chapter 15's program, rotary_positions: a query and a key turned by their positions, and a small Transformer
trained to say the digit that stood a few places back, with added, rotary or no positions.

The checks here do not trust the program. The turn is recomputed in NumPy from its definition: pair i of
coordinates (2i, 2i + 1) turns by position · θ_i, θ_i = 10000^(−2i/d), the way chapter 6's shift map carries the
encoding of one position to the next (itself checked here against chapter 6's sines and cosines); the score of a
turned query with a turned key against a closed form in the offset alone. The training's numbers are held to
what follows from the task: no answer before position `back`, accuracies that are counts over the test
sequences, summaries that are the means, medians and extremes of the rows, a verdict that follows the book's
spread rule. And to one bound that holds for any model without positions, trained or not: with one layer and the
causal mask, position t sees the set of its words and nothing of their order, so the best it can say for the
word `back` places back is the commonest of the t words before it; no such model is right more often than that
word's expected share, worked out here exactly.

The book's run (1000 steps, three trainings, about 3 s) is held to floors, and so are the two seeds of 300 steps.
Under the sanitizers (BOOK_SANITIZE=1, about 25 times slower) the trainings are a few steps on short sequences:
enough for every check of the program's bookkeeping and for the bound, which holds for an untrained model too;
the floors are skipped."""
import math
import os
import re
import unittest

import numpy as np

from harness import ProgramTest, published_run
from harness import kept_json as document
from harness import kept_tables_and_json as tables_and_document

SLOW = os.environ.get("BOOK_SANITIZE", "0") == "1"
# The book's model and task (chapters/15_rotary_positions/rotary_positions.hpp, Inputs): digits 0 to 9, one layer.
DIGITS, HEADS, LAYERS = 10, 2, 1
BACK, LONGEST_TRAINED, TESTED_LENGTH, TESTED = 3, 16, 32, 200
SCHEMES = ["added", "rotary", "none"]
TIMING_KEYS = ("seconds",)
# Small trainings: 300 steps; under the sanitizers 20 steps on sequences of at most 8 digits, tested on 12.
SMALL = ("--training-steps", "20", "--longest-trained", "8", "--tested-length", "12") if SLOW \
    else ("--training-steps", "300")
SEEDS = SMALL + ("--seeds", "1,2")
ALONE = SMALL + ("--schemes", "rotary", "--seeds", "2")
# A turn of width 8, four pairs turning at 1, 0.1, 0.01 and 0.001 radians per position, at placements near the
# start and far from it, three of them at the offset 3 and two at the offset 0.
WIDE_Q = [0.5, -1.0, 2.0, 0.25, 1.0, 1.0, -3.0, 0.5]
WIDE_K = [1.0, 2.0, -0.5, 1.0, 0.0, 3.0, 1.0, -1.0]
WIDE_PLACEMENTS = [(0, 0), (1, 0), (0, 1), (40, 37), (1003, 1000), (100000, 99997), (0, 100000), (100000, 100000)]
WIDE = ("--no-training", "--q", ",".join(map(str, WIDE_Q)), "--k", ",".join(map(str, WIDE_K)),
        "--placements", ";".join(f"{m},{n}" for m, n in WIDE_PLACEMENTS), "--largest-offset", "100")


def seeds_document():
    """The run over two seeds, whose tables are checked against its document too."""
    return tables_and_document(*SEEDS)[1]


def without_timing(document):
    return {key: value for key, value in document.items() if key not in TIMING_KEYS}


# ---- the turn, from its definition ----

def frequencies(d):
    """θ_i = 1/10000^(2i/d) radians per position, for the d/2 pairs of coordinates."""
    return np.array([1.0 / 10000.0 ** (2 * i / d) for i in range(d // 2)])


def turned(vector, position):
    """The vector turned by its position: pair i, (x, y) in coordinates 2i and 2i + 1, turned by b = position·θ_i
    the way chapter 6's shift map carries (sin a, cos a) to (sin(a + b), cos(a + b)):
    x' = x cos b + y sin b, y' = y cos b − x sin b."""
    vector = np.asarray(vector, dtype=float)
    b = position * frequencies(len(vector))
    x, y = vector[0::2], vector[1::2]
    result = np.empty_like(vector)
    result[0::2] = x * np.cos(b) + y * np.sin(b)
    result[1::2] = y * np.cos(b) - x * np.sin(b)
    return result


def score_at_offset(q, k, offset):
    """(q turned at m) · (k turned at n) with m − n = δ, worked out by hand: the turns by mθ and nθ leave a turn by
    δθ between them, so each pair gives (q_x k_x + q_y k_y) cos δθ + (q_y k_x − q_x k_y) sin δθ, whatever m is."""
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    angle = offset * frequencies(len(q))
    qx, qy, kx, ky = q[0::2], q[1::2], k[0::2], k[1::2]
    return float(np.sum((qx * kx + qy * ky) * np.cos(angle) + (qy * kx - qx * ky) * np.sin(angle)))


def paper_turned(vector, position):
    """The vector turned as Su et al. (RoFormer) turn a column, R_m v: pair i, (x, y), turned counter-clockwise by
    b = position·θ_i, x' = x cos b − y sin b, y' = x sin b + y cos b. That is turned() by −b: cos(−b) = cos b and
    sin(−b) = −sin b."""
    return turned(vector, -position)


def chapter_6_encoding(position, d):
    """PE(position): sine and cosine of position·θ_i in coordinates 2i and 2i + 1 (§3.5 of the paper)."""
    encoding = np.empty(d)
    encoding[0::2] = np.sin(position * frequencies(d))
    encoding[1::2] = np.cos(position * frequencies(d))
    return encoding


# ---- what no model without positions can do ----

def commonest_share(t, digits=DIGITS):
    """The expected share of the commonest digit among t drawn uniformly: E[max count]/t. The chance that no digit
    comes more than c times is t!/digits^t times the coefficient of x^t in (Σ_{i≤c} x^i/i!)^digits (the counts'
    multinomial), and E[max count] = Σ_{c≥0} P(max count > c)."""
    expected = 0.0
    for c in range(t):
        truncated = np.array([1.0 / math.factorial(i) for i in range(c + 1)])
        power = np.array([1.0])
        for _ in range(digits):
            power = np.convolve(power, truncated)[:t + 1]
        coefficient = power[t] if len(power) > t else 0.0
        expected += 1.0 - math.factorial(t) / digits ** t * coefficient
    return expected / t


def best_without_positions(t):
    """The most often a model with one layer, the causal mask and no positions can say the word `back` places
    before position t. Its logits at t are a function of word t and of the set of words 0 … t (attention sums
    over the keys whatever their order): of word t and the set of the t words before it. Those t words are drawn
    independently, so given their set every order of them is as likely, and word t − back is any one of them
    with its count's share: the commonest is the best guess."""
    return commonest_share(t)


def last_held(accuracy, back, holds):
    """The last position from `back` on before the accuracy first falls below `holds` (back - 1 if it starts
    below; the last position if it never falls)."""
    below = [t for t in range(back, len(accuracy)) if accuracy[t] < holds]
    return (below[0] if below else len(accuracy)) - 1


def hold_summary(fewest, most, back):
    """How far the seeds hold, as the prose reads it after "the seeds hold", from the fewest and the most
    positions held (last_held(): back - 1 when none is)."""
    if most < back:
        return "at no position"
    if fewest == most:
        return f"all to position {most}"
    if fewest < back:
        return f"to no position at the least and to {most} at the most"
    return f"to position {fewest} at the least and {most} at the most"


def runs_of(document, scheme):
    return [row for row in document["runs"] if row["scheme"] == scheme]


class Turn(ProgramTest):
    def check_turn(self, turn_document, q, k, placements, largest_offset):
        turn = turn_document["turn"]
        d = len(q)
        scale = np.linalg.norm(q) * np.linalg.norm(k)
        self.assertEqual(turn["query"], q)
        self.assertEqual(turn["key"], k)
        self.assertAlmostEqual(turn["unturned_score"], float(np.dot(q, k)), delta=1e-12 * scale)
        np.testing.assert_allclose(turn["angles"], frequencies(d), rtol=1e-15, atol=0)
        self.assertEqual([(row["query_position"], row["key_position"]) for row in turn["placements"]], placements)
        for row in turn["placements"]:
            m, n = row["query_position"], row["key_position"]
            # Rounding: an angle p·θ is rounded to within p·2⁻⁵³ radians, here and in the program alike.
            tolerance = 1e-14 * (1 + max(m, n)) * scale
            with self.subTest(d=d, m=m, n=n):
                self.assertEqual(row["offset"], m - n)
                np.testing.assert_allclose(row["turned_query"], turned(q, m), rtol=0,
                                           atol=1e-14 * (1 + m) * np.linalg.norm(q))
                np.testing.assert_allclose(row["turned_key"], turned(k, n), rtol=0,
                                           atol=1e-14 * (1 + n) * np.linalg.norm(k))
                self.assertAlmostEqual(row["score"], float(np.dot(turned(q, m), turned(k, n))), delta=tolerance)
                self.assertAlmostEqual(row["score"], score_at_offset(q, k, m - n), delta=tolerance)
                # A turn keeps the length.
                self.assertAlmostEqual(np.linalg.norm(row["turned_query"]), np.linalg.norm(q), delta=1e-13 * scale)
        # Equal offsets, equal scores, wherever the two stand.
        by_offset = {}
        for row in turn["placements"]:
            by_offset.setdefault(row["offset"], []).append(row)
        for offset, rows in by_offset.items():
            farthest = max(max(row["query_position"], row["key_position"]) for row in rows)
            scores = [row["score"] for row in rows]
            with self.subTest(d=d, offset=offset):
                self.assertLessEqual(max(scores) - min(scores), 1e-14 * (1 + farthest) * scale)
        # The score against the offset.
        self.assertEqual(turn["offsets"], list(range(-largest_offset, largest_offset + 1)))
        np.testing.assert_allclose(turn["scores"], [score_at_offset(q, k, offset) for offset in turn["offsets"]],
                                   rtol=0, atol=1e-13 * (1 + largest_offset) * scale)
        # The wave between whole offsets: up to 8 points a place, fewer past 100 places, at least 1; through every
        # whole offset's score, bit for bit, and at every point the closed form in the offset, whole or not.
        samples = turn["wave_samples"]
        self.assertEqual(samples, min(8, max(1, 800 // largest_offset)))
        last = largest_offset * samples
        self.assertEqual(turn["wave_offsets"], [j / samples for j in range(-last, last + 1)])
        self.assertEqual(turn["wave_scores"][::samples], turn["scores"])
        np.testing.assert_allclose(turn["wave_scores"],
                                   [score_at_offset(q, k, offset) for offset in turn["wave_offsets"]],
                                   rtol=0, atol=1e-13 * (1 + largest_offset) * scale)
        return by_offset

    def test_the_reference_turns_chapter_6s_encoding_from_one_position_to_another(self):
        # The reference above, before it judges the program: turning PE(a) by b gives PE(a + b).
        for d in (2, 8, 64):
            for a, b in ((0, 0), (0, 5), (3, 1), (250, 600)):
                np.testing.assert_allclose(turned(chapter_6_encoding(a, d), b), chapter_6_encoding(a + b, d),
                                           rtol=0, atol=1e-12)
        # And its closed form in the offset is the dot product of the two turned vectors.
        generator = np.random.default_rng(15)
        q, k = generator.normal(size=16), generator.normal(size=16)
        for m, n in ((0, 0), (7, 2), (2, 7), (500, 31)):
            self.assertAlmostEqual(score_at_offset(q, k, m - n), float(np.dot(turned(q, m), turned(k, n))), delta=1e-11)

    def test_the_toys_query_and_key(self):
        # The toy's fish query (1, 1) and cat key (2, 0), at the default placements.
        turn_document = document("--no-training")
        self.assertFalse(turn_document["inputs"]["train"])
        self.assertNotIn("runs", turn_document)
        by_offset = self.check_turn(turn_document, [1.0, 1.0], [2.0, 0.0],
                                    [(0, 0), (2, 0), (5, 3), (12, 10), (0, 2), (7, 9)], 40)
        self.assertEqual(sorted(len(rows) for rows in by_offset.values()), [1, 2, 3])
        # Width 2: one pair, turning by one radian per position; at (0, 0) nothing turns: exactly q · k = 2.
        self.assertEqual(by_offset[0][0]["score"], 2.0)
        # The offset's sign matters: turned the other way, the score is another.
        self.assertGreater(abs(by_offset[2][0]["score"] - by_offset[-2][0]["score"]), 1.0)
        # The default run that trains turns the same.
        self.assertEqual(seeds_document()["turn"], turn_document["turn"])

    def test_the_papers_turn_gives_the_opposite_offset_the_same_score(self):
        # Chapter 15's fold on which way the turn goes: "the paper's turn gives offset +2 the score this chapter
        # gives offset −2". The paper's query at n and key at m stand at the offset n − m.
        for arguments, q, k in ((("--no-training",), [1.0, 1.0], [2.0, 0.0]), (WIDE, WIDE_Q, WIDE_K)):
            turn = document(*arguments)["turn"]
            for row in turn["placements"]:
                m, n = row["query_position"], row["key_position"]
                paper_score = float(np.dot(paper_turned(q, n), paper_turned(k, m)))
                with self.subTest(q=q, m=m, n=n):
                    self.assertAlmostEqual(row["score"], paper_score,
                                           delta=1e-14 * (1 + max(m, n)) * np.linalg.norm(q) * np.linalg.norm(k))
            for offset, score in zip(turn["offsets"], turn["scores"]):
                self.assertAlmostEqual(score, float(np.dot(paper_turned(q, 0), paper_turned(k, offset))), delta=1e-12)
        # And the sign matters: with the toy's q and k the paper's +2 is not the chapter's +2.
        toy = {row["offset"]: row["score"] for row in document("--no-training")["turn"]["placements"]}
        self.assertGreater(abs(toy[2] - float(np.dot(paper_turned([1.0, 1.0], 2), paper_turned([2.0, 0.0], 0)))), 1.0)

    def test_a_wider_turn_near_the_start_and_far_from_it(self):
        by_offset = self.check_turn(document(*WIDE), WIDE_Q, WIDE_K, WIDE_PLACEMENTS, 100)
        self.assertEqual(len(by_offset[3]), 3)
        self.assertEqual(len(by_offset[0]), 2)
        # Far from the start the turned vectors are nothing like the unturned ones, yet the score is the offset's.
        far = by_offset[3][2]
        self.assertEqual(far["query_position"], 100000)
        self.assertGreater(np.abs(np.array(far["turned_query"]) - WIDE_Q).max(), 0.5)

    def test_the_turn_of_the_book_runs_four_coordinates_wide(self):
        # The chapter's run rotary_positions_turn: q = k = (1, 0, 0, 1), offsets up to 64.
        turn_document = document("--no-training", "--q", "1,0,0,1", "--k", "1,0,0,1", "--largest-offset", "64")
        self.check_turn(turn_document, [1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0],
                        [(0, 0), (2, 0), (5, 3), (12, 10), (0, 2), (7, 9)], 64)
        # q = k: at the offset 0 the score is |q|² = 2, and no other offset reaches it (cos δ + cos δ/100 < 2).
        scores = dict(zip(turn_document["turn"]["offsets"], turn_document["turn"]["scores"]))
        self.assertAlmostEqual(scores[0], 2.0, delta=1e-15)
        self.assertLess(max(score for offset, score in scores.items() if offset != 0), 2.0 - 1e-3)

    def test_the_turn_of_the_book_runs_sixty_four_ones(self):
        # The chapter's run rotary_positions_ones: q = k = 64 ones, 32 pairs at 32 speeds, offsets up to 200.
        turn_document = document("--no-training", "--ones", "64", "--largest-offset", "200")
        self.check_turn(turn_document, [1.0] * 64, [1.0] * 64, [(0, 0), (2, 0), (5, 3), (12, 10), (0, 2), (7, 9)], 200)
        # "all 32 waves start at their top, and the score there is 64. Further apart, the waves disagree: the score
        # stays lower": Σ 2 cos(δ θ_i) over the 32 pairs is 61.83 at δ = ±1 and lower at every other whole offset
        # up to 200 (worked out in NumPy), so below 64 − 2, a whole pair's share, everywhere but at 0.
        scores = dict(zip(turn_document["turn"]["offsets"], turn_document["turn"]["scores"]))
        self.assertAlmostEqual(scores[0], 64.0, delta=1e-12)
        self.assertLess(max(score for offset, score in scores.items() if offset != 0), 64.0 - 2.0)


class Training(ProgramTest):
    def check_runs(self, run_document):
        """What every run's rows must be, whatever was learned."""
        inputs = run_document["inputs"]
        back, longest, tested_length, tested = (inputs[key] for key in ("back", "longest_trained", "tested_length",
                                                                        "tested"))
        self.assertEqual((inputs["vocabulary"], inputs["heads"], inputs["layers"]), (DIGITS, HEADS, LAYERS))
        plan = [(scheme, seed) for scheme in inputs["schemes"] for seed in inputs["seeds"]]
        self.assertEqual([(row["scheme"], row["seed"]) for row in run_document["runs"]], plan)
        steps = inputs["training_steps"]
        for row in run_document["runs"]:
            accuracy = np.array(row["accuracy"])
            with self.subTest(scheme=row["scheme"], seed=row["seed"]):
                self.assertEqual(row["logged_steps"], sorted(set(range(100, steps + 1, 100)) | {steps}))
                self.assertEqual(len(row["loss"]), len(row["logged_steps"]))
                self.assertTrue(all(math.isfinite(loss) and loss > 0 for loss in row["loss"]))
                self.assertEqual(len(accuracy), tested_length)
                # No answer before position `back`: nothing to get right there.
                self.assertEqual(accuracy[:back].tolist(), [0.0] * back)
                # A share of the test sequences: a whole count over `tested`.
                counts = accuracy * tested
                np.testing.assert_allclose(counts, np.round(counts), rtol=0, atol=1e-9)
                self.assertTrue(np.all((accuracy >= 0) & (accuracy <= 1)))
                # The two summaries are the means over the positions they name.
                self.assertAlmostEqual(row["accuracy_trained"], float(np.mean(accuracy[back:longest])), delta=1e-12)
                if tested_length > longest:
                    self.assertAlmostEqual(row["accuracy_beyond"], float(np.mean(accuracy[longest:])), delta=1e-12)
                weights = np.array(row["attention_on_answer"])
                self.assertEqual(len(weights), tested_length)
                self.assertEqual(weights[:back].tolist(), [0.0] * back)
                self.assertTrue(np.all((weights >= 0) & (weights <= 1 + 1e-12)))
                self.assertIn(row["looking_head"], range(HEADS))
                self.assertEqual(len(row["score_by_offset"]), tested_length)
                self.assertTrue(all(math.isfinite(score) for score in row["score_by_offset"]))
                # The rival: the highest score at any offset but `back`; how far each pair of the head turns
                # between the two, against a whole number of turns (pair i turns 10000^(-2i/d_k) per place).
                scores = np.array(row["score_by_offset"])
                others = [offset for offset in range(tested_length) if offset != back]
                self.assertEqual(row["rival_offset"], max(others, key=lambda offset: (scores[offset], -offset)))
                gap = row["rival_offset"] - back
                self.assertAlmostEqual(row["turn_between"], gap, delta=1e-12)  # pair 0: 1 radian per place
                self.assertEqual(row["full_turns"], round(gap / (2 * math.pi)))
                head_width = inputs["head_width"]
                turns = gap * 10000.0 ** (-2.0 * np.arange(head_width // 2) / head_width)
                expected = np.abs(turns - 2 * math.pi * np.round(turns / (2 * math.pi)))
                np.testing.assert_allclose(row["pair_turns_from_answer"], expected, rtol=0, atol=1e-12)
        for scheme in inputs["schemes"]:
            first = runs_of(run_document, scheme)[0]
            summary = run_document["schemes"][scheme]
            with self.subTest(scheme=scheme):
                self.assertEqual(summary["first_seed"]["seed"], inputs["seeds"][0])
                for key in ("rival_offset", "turn_between", "full_turns", "pair_turns_from_answer"):
                    self.assertEqual(summary["first_seed"][key], first[key])
                offsets = [row["rival_offset"] for row in runs_of(run_document, scheme)]
                self.assertEqual(summary["rival_offsets"], offsets)
                if len(set(offsets)) == 1:
                    self.assertTrue(summary["rival_summary"].startswith(f"offset {offsets[0]}"))
                else:
                    self.assertTrue(summary["rival_summary"].startswith("offsets "))
        self.assertGreater(run_document["seconds"], 0)

    def check_no_positions_bound(self, run_document):
        """A model without positions is right no more often than the commonest earlier word allows, at each
        position (up to four standard deviations of a share of `tested` sequences), and on average (to 0.05)."""
        inputs = run_document["inputs"]
        back, longest, tested = inputs["back"], inputs["longest_trained"], inputs["tested"]
        for row in runs_of(run_document, "none"):
            accuracy = row["accuracy"]
            bounds = [best_without_positions(t) for t in range(back, len(accuracy))]
            for t, bound in zip(range(back, len(accuracy)), bounds):
                with self.subTest(seed=row["seed"], position=t):
                    self.assertLessEqual(accuracy[t], bound + 4 * math.sqrt(bound * (1 - bound) / tested))
            self.assertLessEqual(row["accuracy_trained"], np.mean(bounds[:longest - back]) + 0.05)

    def check_verdict(self, run_document, printed):
        """The spread rule: one way of giving positions is better beyond the trained lengths only if every seed of
        it did better there than every seed of the other; the same rule on how far each seed holds the task; the
        tables say the same."""
        for key, verdict, line in (("accuracy_beyond", "better_beyond", "Better beyond the trained lengths"),
                                   ("holds_up_to", "holds_further",
                                    "Holds the task (accuracy ≥ 0.9) to a later position")):
            rotary = [row[key] for row in runs_of(run_document, "rotary")]
            added = [row[key] for row in runs_of(run_document, "added")]
            expected = ("rotary" if min(rotary) > max(added) else "added" if min(added) > max(rotary)
                        else "too close to call")
            self.assertEqual(run_document[verdict], expected, (key, rotary, added))
            # A verdict goes on, where it is wrapped, on a line indented by four.
            self.assertIn(f"{line}, by the spread rule: {expected}\n", re.sub(r"\n    (?=\S)", " ", printed))
        # Each seed's share beyond the trained lengths, the numbers the reason below names, in a table of its own.
        seed_table = printed.split(",\nseed by seed\n")[1].splitlines()
        schemes = seed_table[0].split()[1:]
        for seed_line in seed_table[1:]:
            seed, *shares = seed_line.split()
            runs = {row["scheme"]: row for row in run_document["runs"] if row["seed"] == int(seed)}
            self.assertEqual(shares, [text for scheme in schemes
                                      for text in (f"{100 * runs[scheme]['accuracy_beyond']:.1f}", "%")])
        self.assertEqual(len(seed_table) - 1, len(run_document["inputs"]["seeds"]))
        # Why: the worst seed of the way with the higher median, against the best of the other.
        runs = {scheme: sorted(runs_of(run_document, scheme), key=lambda row: row["accuracy_beyond"])
                for scheme in ("rotary", "added")}
        leader, other = ("rotary", "added")
        if np.median([row["accuracy_beyond"] for row in runs[other]]) > np.median(
                [row["accuracy_beyond"] for row in runs[leader]]):
            leader, other = other, leader
        worst, best = runs[leader][0], runs[other][-1]
        first = (f"the worst {leader} seed, seed {worst['seed']}, is right {100 * worst['accuracy_beyond']:.1f}% "
                 "of the time")
        if worst["seed"] == best["seed"]:
            expected = (f"seed {worst['seed']} is both the worst {leader} seed and the best {other} one: right "
                        f"{100 * worst['accuracy_beyond']:.1f}% of the time with {leader} positions and "
                        f"{100 * best['accuracy_beyond']:.1f}% with {other} ones")
            if worst["accuracy_beyond"] <= best["accuracy_beyond"]:
                expected += ", so the two spreads overlap"
        elif worst["accuracy_beyond"] > best["accuracy_beyond"]:
            self.assertEqual(run_document["better_beyond"], leader)
            expected = (f"{first}, above the best {other} seed, seed {best['seed']}, "
                        f"at {100 * best['accuracy_beyond']:.1f}%")
        else:
            self.assertEqual(run_document["better_beyond"], "too close to call")
            expected = (f"{first}, and the best {other} seed, seed {best['seed']}, "
                        f"{100 * best['accuracy_beyond']:.1f}%: the two spreads overlap")
        self.assertEqual(run_document["better_beyond_because"], expected)

    def test_the_verdict_follows_the_spread_rule_near_chance(self):
        # After one or three steps every model is near chance (0.1) and the seeds' accuracies beyond the trained
        # lengths lie close together: here the rule must tell an overlap, which a rule on the medians would call,
        # from a lead. (The trained models of the other runs are far apart.)
        for steps in ("1", "3"):
            printed, run_document = tables_and_document("--training-steps", steps, "--seeds", "1,2",
                                                        "--schemes", "rotary,added")
            with self.subTest(steps=steps):
                self.check_runs(run_document)
                self.check_verdict(run_document, printed)

    def test_the_bound_without_positions_by_hand(self):
        # Three digits: all different (72 %), one pair (27 %), all three equal (1 %): E[max count] = 1.29.
        self.assertAlmostEqual(commonest_share(3), (0.72 * 1 + 0.27 * 2 + 0.01 * 3) / 3, delta=1e-15)
        self.assertAlmostEqual(commonest_share(1), 1.0, delta=1e-15)
        self.assertAlmostEqual(commonest_share(2), (0.9 * 1 + 0.1 * 2) / 2, delta=1e-15)
        # Against counting: 20 000 draws of 12 digits.
        draws = np.random.default_rng(3).integers(0, DIGITS, size=(20000, 12))
        counted = np.mean([np.bincount(draw, minlength=DIGITS).max() for draw in draws]) / 12
        self.assertAlmostEqual(commonest_share(12), counted, delta=0.005)

    @unittest.skipIf(SLOW, "three trainings of 1000 steps take over a minute under the sanitizers")
    def test_the_books_run(self):
        run_document = document()
        inputs = run_document["inputs"]
        self.assertEqual(inputs["schemes"], SCHEMES)
        self.assertEqual(inputs["seeds"], [1])
        self.assertEqual((inputs["training_steps"], inputs["back"], inputs["longest_trained"], inputs["tested_length"],
                          inputs["tested"]), (1000, BACK, LONGEST_TRAINED, TESTED_LENGTH, TESTED))
        self.check_runs(run_document)
        self.check_no_positions_bound(run_document)
        best_trained_without = float(np.mean([best_without_positions(t) for t in range(BACK, LONGEST_TRAINED)]))
        for scheme in ("added", "rotary"):
            (row,) = runs_of(run_document, scheme)
            with self.subTest(scheme=scheme):
                # A model with positions can copy the word `back` places back exactly; after 1000 steps both get it
                # right at least 9 times in 10 at every length they were trained on: three times what no model
                # without positions can do there (about 0.30), and nine times chance (0.1).
                self.assertGreaterEqual(min(row["accuracy"][BACK:LONGEST_TRAINED]), 0.9)
                self.assertGreater(row["accuracy_trained"], 3 * best_trained_without)
                self.assertLess(row["loss"][-1], row["loss"][0] / 10)
                self.assertGreater(row["accuracy_trained"], runs_of(run_document, "none")[0]["accuracy_trained"] + 0.5)
                # Its summary says it holds every trained position.
                self.assertGreaterEqual(run_document["schemes"][scheme]["holds_up_to"], LONGEST_TRAINED - 1)
        self.assertIn(run_document["better_beyond"], ("added", "rotary", "too close to call"))

    def test_over_seeds_the_summaries_and_the_verdict_follow_from_the_rows(self):
        printed, run_document = tables_and_document(*SEEDS)
        self.check_runs(run_document)
        self.check_no_positions_bound(run_document)
        inputs = run_document["inputs"]
        self.assertEqual(inputs["seeds"], [1, 2])
        back, holds = inputs["back"], run_document["holds"]
        self.assertEqual(sorted(run_document["schemes"]), sorted(SCHEMES))
        for scheme in SCHEMES:
            rows = runs_of(run_document, scheme)
            summary = run_document["schemes"][scheme]
            with self.subTest(scheme=scheme):
                self.assertEqual(len(rows), 2)
                for key in ("accuracy_trained", "accuracy_beyond"):
                    values = [row[key] for row in rows]
                    self.assertAlmostEqual(summary[key]["median"], float(np.median(values)), delta=1e-15)
                    self.assertEqual((summary[key]["best"], summary[key]["worst"]), (max(values), min(values)))
                accuracy = np.array([row["accuracy"] for row in rows])
                np.testing.assert_allclose(summary["accuracy_median"], np.median(accuracy, axis=0), rtol=0, atol=1e-15)
                self.assertEqual(summary["accuracy_best"], accuracy.max(axis=0).tolist())
                self.assertEqual(summary["accuracy_worst"], accuracy.min(axis=0).tolist())
                np.testing.assert_allclose(summary["attention_on_answer_median"],
                                           np.median([row["attention_on_answer"] for row in rows], axis=0),
                                           rtol=0, atol=1e-15)
                self.assertEqual(summary["holds_up_to"], last_held(np.median(accuracy, axis=0), back, holds))
                # Each seed's own last position held, and the fewest and the most of them.
                each = [last_held(row["accuracy"], back, holds) for row in rows]
                self.assertEqual([row["holds_up_to"] for row in rows], each)
                self.assertEqual(summary["seeds_hold_up_to"], {"fewest": min(each), "most": max(each)})
        self.check_verdict(run_document, printed)
        if not SLOW:
            # 300 steps: twice what no model without positions can do at the trained lengths, on every seed.
            best_trained_without = float(np.mean([best_without_positions(t) for t in range(BACK, LONGEST_TRAINED)]))
            for scheme in ("added", "rotary"):
                for row in runs_of(run_document, scheme):
                    self.assertGreater(row["accuracy_trained"], 2 * best_trained_without)

        # The tables are the document's: the turn's scores to 4 decimals, each scheme's median [worst, best] to 0.1 %.
        placements = run_document["turn"]["placements"]
        turn_lines = printed.split("turned q · turned k\n")[1].split("\n\n")[0].splitlines()
        self.assertEqual(len(turn_lines), len(placements))
        for line, row in zip(turn_lines, placements):
            m, n, offset, score = line.split()
            self.assertEqual((int(m), int(n), int(offset)), (row["query_position"], row["key_position"], row["offset"]))
            self.assertAlmostEqual(float(score), row["score"], delta=5e-5)
        # A row for each way of giving positions under each range of positions, the trained range first; then a row
        # for each under how far it holds the task.
        found = {}
        for line in printed.splitlines():
            match = re.fullmatch(r"  (added|rotary|none) +(\S+) % \[ *(\S+), +(\S+)\]", line)
            if match:
                found.setdefault(match[1], []).extend(float(value) for value in match.groups()[1:])
        for line in printed.splitlines():
            match = re.fullmatch(r"  (added|rotary|none) +(\d+|-) +(\d+|-)(?: to (\d+|-))?", line)
            if match:
                found[match[1]] += [match[2], match[3], match[4]]
        self.assertEqual({scheme: len(values) for scheme, values in found.items()}, {scheme: 9 for scheme in found})
        self.assertEqual(sorted(found), sorted(SCHEMES))
        for scheme, values in found.items():
            summary = run_document["schemes"][scheme]
            shown = [100 * summary[key][which] for key in ("accuracy_trained", "accuracy_beyond")
                     for which in ("median", "worst", "best")]
            np.testing.assert_allclose(values[:6], shown, rtol=0, atol=0.05 + 1e-9)
            # The last position held, or "-" when not even the first position with an answer is.
            fewest, most = summary["seeds_hold_up_to"]["fewest"], summary["seeds_hold_up_to"]["most"]
            for shown, held in ((values[6], summary["holds_up_to"]), (values[7], fewest), (values[8] or values[7], most)):
                if shown == "-":
                    self.assertLess(held, inputs["back"])
                else:
                    self.assertEqual(int(shown), held)
            self.assertEqual(values[8] is None, fewest == most)

    def test_the_books_seeds_keep_their_books(self):
        # The run over five seeds the page shows (rotary_positions_seeds), whose rows TheBooksSeeds reads: its rows
        # are what every run's must be, and its model without positions keeps under the bound.
        seeds = published_run("rotary_positions_seeds")
        self.check_runs(seeds)
        self.check_no_positions_bound(seeds)

    def test_a_training_alone_is_its_row_of_the_table(self):
        # Trained alone, in a process of its own, or beside five others on the processors: the same numbers.
        alone = document(*ALONE)
        self.check_runs(alone)
        self.assertEqual(alone["inputs"]["schemes"], ["rotary"])
        self.assertNotIn("better_beyond", alone)  # only one way of giving positions: nothing to compare
        self.assertEqual(list(alone["schemes"]), ["rotary"])
        (row,) = alone["runs"]
        (beside,) = [other for other in runs_of(seeds_document(), "rotary") if other["seed"] == 2]
        self.assertEqual(row, beside)
        # The document --json-file writes beside the tables is the one --json prints, but for the seconds it took.
        self.assertEqual(without_timing(tables_and_document(*ALONE)[1]), without_timing(alone))

    def test_other_lengths_and_another_task(self):
        # Say the digit 5 places back, trained on up to 9 digits and tested on 9.
        steps = "10" if SLOW else "100"
        run_document = document("--back", "5", "--longest-trained", "9", "--tested-length", "9",
                                "--schemes", "none,added", "--training-steps", steps)
        self.assertEqual((run_document["inputs"]["back"], run_document["inputs"]["tested_length"]), (5, 9))
        self.check_runs(run_document)
        self.check_no_positions_bound(run_document)
        self.assertNotIn("better_beyond", run_document)


class TheBooksSeeds(ProgramTest):
    """What the chapter's prose says of the run it shows over five seeds (rotary_positions_seeds), held on that run
    as the build captured it. Each check names the words it keeps true: when one fails, those words must change."""

    def setUp(self):
        self.seeds = published_run("rotary_positions_seeds")
        inputs = self.seeds["inputs"]
        self.back, self.holds = inputs["back"], self.seeds["holds"]
        self.last_trained, self.tested_length = inputs["last_trained_position"], inputs["tested_length"]
        self.assertEqual(len(inputs["seeds"]), 5)

    def test_without_positions_above_chance_best_at_the_first_positions(self):
        # "Without positions the model gets …, above chance (a guess among ten digits is right one time in ten)":
        # above 0.1 by five standard deviations of a share of 200 sequences over the 13 trained positions.
        trained_positions = self.last_trained + 1 - self.back
        chance = 1 / DIGITS
        floor = chance + 5 * math.sqrt(chance * (1 - chance) / (TESTED * trained_positions))
        self.assertGreater(self.seeds["schemes"]["none"]["accuracy_trained"]["median"], floor)
        # "does best at the first positions, where few digits came before … As more digits come before, its share
        # goes down": the best any model without positions can do, the commonest earlier digit's share, falls as
        # the digits before grow in number; the median seed follows it, best at the first position with an answer
        # and lower over the last five than over the first three.
        bounds = [best_without_positions(t) for t in range(self.back, self.tested_length)]
        self.assertTrue(all(later < earlier for earlier, later in zip(bounds, bounds[1:])))
        median = np.array(self.seeds["schemes"]["none"]["accuracy_median"][self.back:])
        self.assertEqual(int(np.argmax(median)), 0, median)
        self.assertGreater(median[:3].mean(), median[-5:].mean())

    def test_both_models_fail_soon_after_the_trained_lengths(self):
        # "Why does the added model fail so soon?", "both models fail soon after the trained lengths": the median
        # seed of each stops holding the task within the first half of the longer positions, and over all of
        # them is right less often than the holding share.
        first_half_ends = self.last_trained + (self.tested_length - 1 - self.last_trained) // 2
        for scheme in ("added", "rotary"):
            summary = self.seeds["schemes"][scheme]
            with self.subTest(scheme=scheme):
                self.assertLess(summary["holds_up_to"], first_half_ends)
                self.assertLess(summary["accuracy_beyond"]["median"], self.holds)

    def test_the_added_models_median_recovers_and_falls_again(self):
        # "(The added model's median then recovers for a few positions and falls again, as the top plot shows …)":
        # after it first falls below the holding share, the median climbs back by at least 0.3 at some later
        # position, and falls by at least 0.3 after that.
        median = self.seeds["schemes"]["added"]["accuracy_median"]
        fell_at = self.seeds["schemes"]["added"]["holds_up_to"] + 1
        self.assertLess(median[fell_at], self.holds)
        rises = [(low, high) for low in range(fell_at, self.tested_length)
                 for high in range(low + 1, self.tested_length) if median[high] - median[low] >= 0.3]
        self.assertTrue(rises, median)
        peak = max((high for _, high in rises), key=lambda position: median[position])
        self.assertLessEqual(min(median[peak + 1:], default=1.0), median[peak] - 0.3, median)

    def test_the_rotary_reading_head_and_its_rival(self):
        for row in runs_of(self.seeds, "rotary"):
            scores = np.array(row["score_by_offset"])
            accuracy = row["accuracy"]
            rival = row["rival_offset"]
            with self.subTest(seed=row["seed"]):
                # "a wave whose peaks come back every six or so places, as the fastest pair, at 1 radian per
                # position, comes full circle every 2π positions": sampled at whole offsets, the peaks of a wave of
                # period 2π ≈ 6.28 stand 6 or 7 apart; the slower pairs may shift one by a place.
                peaks = [offset for offset in range(1, len(scores) - 1)
                         if scores[offset] > max(scores[offset - 1], scores[offset + 1])]
                self.assertGreaterEqual(len(peaks), 3, scores)
                self.assertTrue(all(5 <= gap <= 8 for gap in np.diff(peaks)), peaks)
                # "Apart from offset 3, the head scores highest at …, about as high as the right one": within a tenth.
                self.assertLess(abs(scores[rival] - scores[self.back]), 0.1 * abs(scores[self.back]))
                # "the first query with a key that far back stands at position [the rival offset]. From there on the
                # head's softmax can share its weight between the right digit and the one that stood that far back":
                # from there on the seed no longer holds the task at any position, and it held it up to a position
                # past its trained lengths, before the rival.
                self.assertTrue(all(share < self.holds for share in accuracy[rival:]), accuracy[rival:])
                self.assertGreater(row["holds_up_to"], self.last_trained)
                self.assertLess(row["holds_up_to"], rival)

    def test_why_that_offset_the_first_seeds_pairs(self):
        # "pair 0 turns … full turns to within … radian, and pair 1 comes within … radian of a whole turn: these two
        # hardly tell the offsets apart. Pairs 2 and 3 end far from a whole turn …, beyond the … they turn from
        # offset 3 to the farthest trained offset (pairs 4 and up turn past training too, but by little …)".
        # What a pair turns between offsets a and b is (b − a)·10000^(−2i/d_k); "hardly" is here under half a
        # radian (cos 0.5 ≈ 0.88), and "by little" under a quarter of one beyond training.
        first = self.seeds["schemes"]["rotary"]["first_seed"]
        head_width = self.seeds["inputs"]["head_width"]
        speeds = 10000.0 ** (-2.0 * np.arange(head_width // 2) / head_width)
        in_training = (self.last_trained - self.back) * speeds
        np.testing.assert_allclose(self.seeds["pair_turns_in_training"], in_training, rtol=1e-12, atol=0)
        turns = (first["rival_offset"] - self.back) * speeds
        from_whole = np.abs(turns - 2 * math.pi * np.round(turns / (2 * math.pi)))
        self.assertTrue(np.all(from_whole[:2] < 0.5), from_whole)
        self.assertTrue(np.all(from_whole[2:4] > in_training[2:4]), (from_whole, in_training))
        self.assertTrue(np.all(from_whole[2:4] > 0.5), from_whole)
        self.assertTrue(np.all(from_whole[4:] - in_training[4:] < 0.25), (from_whole, in_training))


class CommandLine(ProgramTest):
    def test_help(self):
        self.assert_help_lists("--q", "--k", "--placements", "--largest-offset", "--schemes", "--seeds",
                               "--training-steps", "--back", "--longest-trained", "--tested-length", "--no-training",
                               "--json", "--json-file")

    def test_bad_inputs(self):
        self.assert_each_refused([
            (["--q", "1,2,3"], "--q"),                        # an odd width: a coordinate without its pair
            (["--q", "1,2,3,4", "--k", "1,2"], "--k"),        # widths differ
            (["--k", "1,2,3,4"], "--k"),                      # against the default query, 2 wide
            (["--q", "nan,1"], "--q"),
            (["--k", "1,inf"], "--k"),
            (["--q", "1e7,0"], "--q"),
            (["--q", ",".join(["1"] * 66)], "--q"),
            (["--placements", "0,-1"], "--placements"),      # a negative position
            (["--placements", "1.5,0"], "--placements"),      # not a whole number
            (["--placements", "1,2,3"], "--placements"),      # three columns
            (["--placements", "1,2;3"], "--placements"),      # a row short
            (["--placements", "nan,0"], "--placements"),
            (["--placements", "100001,0"], "--placements"),
            (["--placements", ";".join(["1,1"] * 21)], "--placements"),
            (["--largest-offset", "0"], "--largest-offset"),
            (["--largest-offset", "1001"], "--largest-offset"),
            (["--schemes", "added,rotery"], "--schemes"),    # unknown
            (["--schemes", "rotary,none,rotary"], "--schemes"),  # repeated
            (["--schemes", ""], "--schemes"),
            (["--seeds", "one"], "--seeds"),
            (["--seeds", "1,,2"], "--seeds"),
            (["--seeds", "-1"], "--seeds"),
            (["--seeds", ",".join(map(str, range(11)))], "--seeds"),
            (["--training-steps", "0"], "--training-steps"),
            (["--training-steps", "20001"], "--training-steps"),
            (["--back", "0"], "--back"),
            (["--back", "9"], "--back"),
            (["--back", "5", "--longest-trained", "5"], "--longest-trained"),  # below --back + 1
            (["--longest-trained", "3"], "--longest-trained"),                 # below the default --back + 1
            (["--longest-trained", "20", "--tested-length", "19"], "--tested-length"),  # below --longest-trained
            (["--longest-trained", "64"], "--longest-trained"),  # past the default --tested-length, never typed
            (["--tested-length", "15"], "--tested-length"),
            (["--tested-length", "129"], "--tested-length"),
            (["--no-training", "--seeds", "1"], "--seeds"),
            (["--no-training", "--schemes", "rotary"], "--schemes"),
        ])
        # The refusal names what was typed.
        self.assert_refused(["--schemes", "added,rotery"], "rotery")
        self.assert_refused(["--schemes", "rotary,none,rotary"], "twice")


if __name__ == "__main__":
    unittest.main()
