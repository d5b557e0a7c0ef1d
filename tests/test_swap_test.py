"""The paired swap (randomization) test of binary measures outside the sign-flip family
(``inference/paired_se.swap_p``, ``kernels/signflip.binary_swap_test``).

Its p-values are checked against brute force: every one of the ``2^m`` ways to swap the two runs'
predictions on the ``m`` examples where they disagree, each measure written out here in
fractions (correlation, which takes square roots, in floats with a relative tie tolerance), so
neither the binomial collapse of the kernel nor the library's measure formulas enter the reference.
The size is checked by seeded simulation, with the tolerance 4 binomial standard errors of the
simulated rate.
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.inference.paired_se import (
    MONOTONE_SWAP,
    SWAP_POINTS,
    delta_se,
    normal_paired_p,
    paired_p,
    swap_p,
)
from batcheval.kernels import binary as kb
from batcheval.kernels.signflip import binary_swap_test
from batcheval.measures import compute


def _ratio(num, den, undefined):
    return num / den if den != 0 else undefined


def _measure(name: str, tp: int, fp: int, fn: int, tn: int):
    """The measure of one table, by its textbook formula (docs/measures.md's degenerate cases:
    chance-corrected coefficients 0 on an empty margin, ratios undefined (None))."""
    a, b, c, d = (Fraction(v) for v in (tp, fp, fn, tn))
    n = a + b + c + d
    if name == "markedness":
        return _ratio(a * d - b * c, (a + b) * (c + d), Fraction(0))
    if name == "precision":
        return _ratio(a, a + b, None)
    if name == "f1":
        return _ratio(2 * a, 2 * a + b + c, None)
    if name == "kappa_cohen":
        po = (a + d) / n
        pe = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n)
        return _ratio(po - pe, 1 - pe, Fraction(0))
    if name == "correlation":
        den = math.sqrt(float((a + b) * (c + d) * (a + c) * (b + d)))
        return float(a * d - b * c) / den if den != 0 else 0.0
    raise AssertionError(name)


def _brute_force(examples: list[tuple[int, int, int]], name: str, mid_p: bool = False) -> float:
    """``P(|D| ≥ |d|)`` over all swaps of the discordant examples ``(real, reference, run)``,
    the undefined differences counted as not extreme; ``mid_p``: ``P(|D| > |d|) + ½·P(|D| = |d|)``
    (1 at |d| ≤ 1e-12)."""

    def difference(rows):
        cells = {}
        for who in (1, 2):
            t = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
            for r in rows:
                y, p = r[0], r[who]
                t[("t" if y == p else "f") + ("p" if p == 1 else "n")] += 1
            cells[who] = _measure(name, t["tp"], t["fp"], t["fn"], t["tn"])
        if cells[1] is None or cells[2] is None:
            return None
        return cells[2] - cells[1]

    d = difference(examples)
    if d is None:
        return math.nan
    disc = [i for i, r in enumerate(examples) if r[1] != r[2]]
    hits = 0
    for flips in itertools.product((False, True), repeat=len(disc)):
        rows = list(examples)
        for i, f in zip(disc, flips, strict=True):
            if f:
                y, p1, p2 = rows[i]
                rows[i] = (y, p2, p1)
        dd = difference(rows)
        if dd is None:
            continue
        if isinstance(dd, float):
            at_least = abs(dd) >= abs(d) * (1 - 1e-9)
            beyond = abs(dd) > abs(d) * (1 + 1e-9)
        else:
            at_least, beyond = abs(dd) >= abs(d), abs(dd) > abs(d)
        hits += (at_least + beyond) / 2 if mid_p else at_least
    if mid_p and abs(d) <= 1e-12:  # the library's mid-p reads rounding noise as 0
        return 1.0
    return hits / 2 ** len(disc)


def _joint(examples: list[tuple[int, int, int]]) -> np.ndarray:
    joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
    for r in examples:
        joint[(0, *r)] += 1
    return joint


MEASURES = ["markedness", "kappa_cohen", "correlation", "precision", "f1"]


@pytest.mark.parametrize("name", sorted(MONOTONE_SWAP))
def test_monotone_measures_never_fall_as_a_discordant_example_turns_right(name):
    """What the staircase walk of ``MONOTONE_SWAP`` relies on, over every swap of random joint
    tables: the run's value never falls as ``x₁`` grows nor rises as ``x₀`` grows, and is
    undefined at most at a corner of the box (or everywhere)."""
    rng = np.random.default_rng(sum(map(ord, name)) + 1)
    for _ in range(200):
        tp, fp, fn, tn = (int(v) for v in rng.integers(0, 6, 4) * rng.integers(0, 2, 4))
        m1, m0 = (int(v) for v in rng.integers(0, 9, 2))
        a, b = np.meshgrid(np.arange(m1 + 1), np.arange(m0 + 1), indexing="ij")
        cells = np.stack([tn + m0 - b, fp + b, fn + m1 - a, tp + a], axis=-1).reshape(-1, 2, 2)
        v = compute(cells, [name], positive=1)[name].reshape(m1 + 1, m0 + 1)
        undefined = np.isnan(v)
        corner = np.zeros_like(undefined)
        corner[np.ix_([0, m1], [0, m0])] = True
        # (undefined everywhere, an empty real class of g_measure, makes the observed value NaN)
        assert undefined.all() or not (undefined & ~corner).any(), (tp, fp, fn, tn, m1, m0)
        with np.errstate(invalid="ignore"):
            assert not (np.diff(v, axis=0) < -1e-12).any(), (tp, fp, fn, tn, m1, m0)
            assert not (np.diff(v, axis=1) > 1e-12).any(), (tp, fp, fn, tn, m1, m0)


@pytest.mark.parametrize("name", sorted(MONOTONE_SWAP))
def test_staircase_walk_equals_every_point(name):
    rng = np.random.default_rng(sum(map(ord, name)) + 2)
    joint = rng.integers(0, 40, size=(300, 8)) * (rng.random((300, 8)) < 0.8)
    m = kb.NAMES.index(name)
    got = {}
    for monotone in (True, False):
        p, enumerated = np.empty(300), np.empty(300, dtype=np.bool_)
        binary_swap_test(joint, 1, m, 1.0, monotone, 1 << 20, False, p, enumerated)
        assert enumerated.all()
        got[monotone] = p
    np.testing.assert_allclose(got[True], got[False], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", MEASURES)
def test_swap_p_equals_enumeration_of_every_swap(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(60):
        n = int(rng.integers(3, 15))
        y = rng.integers(0, 2, n)
        ref = np.where(rng.random(n) < 0.6, y, rng.integers(0, 2, n))
        run = np.where(rng.random(n) < 0.5, y, rng.integers(0, 2, n))
        examples = [(int(a), int(b), int(c)) for a, b, c in zip(y, ref, run, strict=True)]
        for mid_p in (False, True):
            want = _brute_force(examples, name, mid_p)
            got, enumerated = swap_p(_joint(examples), name, mid_p=mid_p)
            assert enumerated[0]
            if math.isnan(want):
                assert math.isnan(got[0]), (examples, got)
            else:
                assert got[0] == pytest.approx(want, rel=1e-12, abs=1e-15), (examples, mid_p)


def test_undefined_points_count_as_not_extreme():
    # every predicted positive is discordant: the swaps that give them all to one run leave
    # the other's precision undefined
    examples = [(1, 0, 1), (0, 0, 1), (1, 1, 0), (0, 0, 0), (1, 0, 0)]
    want = _brute_force(examples, "precision")
    got, _ = swap_p(_joint(examples), "precision")
    assert got[0] == pytest.approx(want, rel=1e-12)
    assert 0 < want < 1


def test_negative_class_as_positive_mirrors_the_tables():
    rng = np.random.default_rng(3)
    joint = rng.integers(0, 6, size=(50, 2, 2, 2))
    mirrored = joint[:, ::-1, ::-1, ::-1]
    np.testing.assert_array_equal(
        swap_p(joint, "precision", pos=0)[0], swap_p(mirrored, "precision", pos=1)[0]
    )


def test_large_tables_are_left_to_the_normal_test():
    joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
    joint[0, 1, 0, 1] = joint[0, 0, 0, 1] = joint[0, 0, 1, 0] = 20_000
    joint[0, 1, 1, 0] = 19_000
    assert "kappa_fleiss" not in MONOTONE_SWAP  # every point measured: too many here
    p, enumerated = swap_p(joint, "kappa_fleiss")
    assert not enumerated[0] and math.isnan(p[0])
    p, enumerated = swap_p(joint, "markedness")  # a staircase of a few thousand points
    assert enumerated[0] and 0 <= p[0] <= 1
    # paired_p falls back on 2·Φ(−|diff|/se) there
    from scipy import stats

    got = paired_p(joint, "kappa_fleiss", 1, np.array([0.02]), np.array([0.01]), "bootstrap")[0]
    assert got == pytest.approx(2 * stats.norm.sf(2.0), rel=1e-12)
    assert SWAP_POINTS >= 100 * 100  # two classes of 100 discordant examples stay exact


@pytest.mark.parametrize(("n", "prevalence", "skill"), [(10, 0.1, 0.9), (20, 0.5, 0.0), (40, 0.1, 0.9)])
def test_paired_markedness_p_holds_its_size(n, prevalence, skill):
    # the points where the normal p-value reached 0.238, 0.068 (bootstrap) and 0.090 (delta)
    boards, alpha = 4000, 0.05
    rng = np.random.default_rng(n + int(100 * skill))
    pos = max(1, round(prevalence * n))
    y = np.zeros((boards, n), dtype=np.int64)
    y[:, :pos] = 1
    preds = [np.where(rng.random(y.shape) < skill, y, rng.integers(0, 2, y.shape)) for _ in range(2)]
    code = y * 4 + preds[0] * 2 + preds[1]
    joint = np.stack([(code == c).sum(axis=1) for c in range(8)], axis=1).reshape(-1, 2, 2, 2)
    p, enumerated = swap_p(joint, "markedness")
    assert enumerated.all()
    rate = float(np.mean(p <= alpha))  # NaN (never here: markedness is 0, not NaN, on a flat margin)
    bound = alpha + 4 * math.sqrt(alpha * (1 - alpha) / boards)
    assert rate <= bound, rate
    # and p_vs_leader, the larger of the mid-p swap test and the normal p-value (delta's)
    run = compute(joint.sum(axis=2), ["markedness"], positive=1)["markedness"]
    lead = compute(joint.sum(axis=3), ["markedness"], positive=1)["markedness"]
    lib = paired_p(joint, "markedness", 1, run - lead, delta_se(joint, "markedness", 1), "delta")
    assert float(np.mean(lib <= alpha)) <= bound


def test_leaderboard_takes_the_larger_of_the_swap_and_the_normal_test_for_paired_markedness():
    examples = [(1, 1, 1)] * 3 + [(0, 0, 0)] * 3 + [(1, 0, 1)] * 2 + [(0, 1, 0)] * 2
    y, ref, run = (np.array(c) for c in zip(*examples, strict=True))
    df = pl.DataFrame({
        "run": ["a"] * 10 + ["b"] * 10, "example_id": list(range(10)) * 2,
        "label": np.concatenate([y, y]), "prediction": np.concatenate([run, ref]),
    })  # fmt: skip
    for paired in ("bootstrap", "delta"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            board = be.leaderboard(df, example="example_id", measure="markedness", paired=paired)
        row = board.filter(pl.col("run") == "b").row(0, named=True)
        exact = _brute_force(examples, "markedness", mid_p=True)
        # the larger of the mid-p swap test and the normal p-value, for runs that are not exchangeable
        assert row["p_vs_leader"] >= exact
        if paired == "delta":
            joint = _joint([(y_, b_, a_) for y_, a_, b_ in examples])  # the leader is run "a"
            se = delta_se(joint, "markedness", 1)
            normal = normal_paired_p(joint, "markedness", 1, np.array([row["diff_vs_leader"]]), se, "delta")[
                0
            ]
            assert row["p_vs_leader"] == pytest.approx(max(exact, normal), rel=1e-12)


def test_paired_markedness_holds_its_size_for_runs_that_are_not_exchangeable():
    """Equal markedness, unequal biases (benchmarks/calibration_swap_unequal.py, prevalence 0.1,
    n = 100): the swap test alone rejected 0.080 of 2,000 pairs there, ``p_vs_leader`` (the larger
    of its mid-p version and the normal p-value) 0.046 (bootstrap) and 0.055 (delta)."""
    boards, alpha, n, prevalence = 2000, 0.05, 100, 0.1
    skill_a, guess_b = 0.6, 0.1

    def markedness(skill, guess):
        tpr, fpr = skill + (1 - skill) * guess, (1 - skill) * guess
        pp = prevalence * tpr + (1 - prevalence) * fpr
        return prevalence * tpr / pp + (1 - prevalence) * (1 - fpr) / (1 - pp) - 1

    from scipy.optimize import brentq

    skill_b = brentq(lambda b: markedness(b, guess_b) - markedness(skill_a, 0.5), 0.0, 0.999)
    rng = np.random.default_rng(11)
    y = np.zeros((boards, n), dtype=np.int64)
    y[:, : round(prevalence * n)] = 1
    pa = np.where(rng.random(y.shape) < skill_a, y, rng.random(y.shape) < 0.5).astype(np.int64)
    pb = np.where(rng.random(y.shape) < skill_b, y, rng.random(y.shape) < guess_b).astype(np.int64)
    code = y * 4 + pa * 2 + pb
    joint = np.stack([(code == c).sum(axis=1) for c in range(8)], axis=1).reshape(-1, 2, 2, 2)
    run = compute(joint.sum(axis=2), ["markedness"], positive=1)["markedness"]
    lead = compute(joint.sum(axis=3), ["markedness"], positive=1)["markedness"]
    p = paired_p(joint, "markedness", 1, run - lead, delta_se(joint, "markedness", 1), "delta")
    rate = float(np.mean(p <= alpha))
    assert rate <= alpha + 4 * math.sqrt(alpha * (1 - alpha) / boards), rate
