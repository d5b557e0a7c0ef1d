"""The leaderboard's default p-values against independent oracles: the mid-p sign-flip test of
paired runs (scipy's binomial distribution, exact enumeration with fractions), the mid-p swap
test (enumeration), and the unpaired score test of equal informedness or markedness (scipy's
SLSQP on the four binomial likelihoods, and a numpy bisection on the Lagrange multiplier).
docs/calibration_leader.md, "The board's p-value columns", shows their size."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from scipy import stats

import batcheval as be
from batcheval.inference import comparisons as cmp
from batcheval.inference.paired_se import sign_flip_p, swap_p
from batcheval.kernels import binary as kb
from batcheval.kernels.signflip import binary_swap_test
from batcheval.measures import compute
from tests.reference import score_diff as ref


def _midp_mcnemar(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Fagerland, Lydersen & Laake's mid-p McNemar test from scipy: the exact two-sided
    binomial p-value less the probability of the observed count, 1 where b = c."""
    m, x = b + c, np.minimum(b, c)
    exact = np.array(
        [stats.binomtest(int(k), int(n), 0.5).pvalue if n else 1.0 for k, n in zip(x, m, strict=True)]
    )
    return np.where(2 * x == m, 1.0, exact - stats.binom.pmf(x, m, 0.5))


def _joints(n: int, g: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, rng.dirichlet(np.full(8, 1.0)), g).reshape(-1, 2, 2, 2)


@pytest.mark.parametrize("n", [12, 60, 400])  # 400: the smaller class often past 50 discordant
def test_midp_sign_flip_of_accuracy_is_the_midp_mcnemar_test(n):
    joint = _joints(n, 300, n)
    both = np.einsum("gyyy->g", joint)
    b, c = np.einsum("gyyp->g", joint) - both, np.einsum("gyly->g", joint) - both
    got = sign_flip_p(joint, "accuracy", mid_p=True)
    expect = _midp_mcnemar(b, c)
    # enumerated tables to rounding; the normal tail (no continuity correction) beyond 50
    # discordant examples in the smaller class to 2e-3
    small = (joint[:, 0, 0, 1] + joint[:, 0, 1, 0] <= 50) | (joint[:, 1, 0, 1] + joint[:, 1, 1, 0] <= 50)
    np.testing.assert_allclose(got[small], expect[small], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(got[~small], expect[~small], atol=2e-3)
    assert small.any() and (n < 400 or (~small).any())


def _enumerated_midp(joint: np.ndarray, w1: Fraction, w0: Fraction) -> float:
    """``P(|D| > |d|) + ½·P(|D| = |d|)`` (1 at d = 0) of one table by enumerating every
    (x₁, x₀), in fractions: D = w₁(2x₁ − m₁) + w₀(2x₀ − m₀)."""
    run1, ref1 = int(joint[1, 0, 1]), int(joint[1, 1, 0])  # real positives: only the run / reference right
    run0, ref0 = int(joint[0, 1, 0]), int(joint[0, 0, 1])
    m1, m0 = run1 + ref1, run0 + ref0
    d = abs(w1 * (run1 - ref1) + w0 * (run0 - ref0))
    if d == 0:
        return 1.0
    total = Fraction(0)
    for x1 in range(m1 + 1):
        for x0 in range(m0 + 1):
            v = abs(w1 * (2 * x1 - m1) + w0 * (2 * x0 - m0))
            weight = Fraction(math.comb(m1, x1) * math.comb(m0, x0), 2 ** (m1 + m0))
            total += weight if v > d else (weight / 2 if v == d else 0)
    return float(total)


@pytest.mark.parametrize("measure", ["informedness", "auc_single", "recall", "fallout"])
def test_midp_sign_flip_equals_enumeration(measure):
    joint = _joints(30, 60, 3)
    got = sign_flip_p(joint, measure, mid_p=True)
    for g, j in enumerate(joint):
        n1, n0 = int(j[1].sum()), int(j[0].sum())
        if n1 == 0 or n0 == 0:
            assert measure in ("recall", "fallout") or math.isnan(got[g])
            continue
        w = {
            "informedness": (Fraction(1, n1), Fraction(1, n0)),
            "auc_single": (Fraction(1, 2 * n1), Fraction(1, 2 * n0)),
            "recall": (Fraction(1, n1), Fraction(0)),
            "fallout": (Fraction(0), Fraction(1, n0)),
        }[measure]
        assert got[g] == pytest.approx(_enumerated_midp(j, *w), rel=1e-9, abs=1e-15), (measure, g)


def _marked(tp: int, fp: int, fn: int, tn: int) -> float:
    pp, pn = tp + fp, fn + tn
    return (tp / pp if pp else 0.0) + (tn / pn if pn else 0.0) - 1.0 if pp and pn else 0.0


def _swapped_difference(agreed: tuple[int, ...], a: int, b: int) -> float:
    """Markedness of the run less the reference's when the run predicts positive for ``a`` of the
    ``m₁`` discordant positives and ``b`` of the ``m₀`` discordant negatives."""
    tp, fp, fn, tn, m1, m0 = agreed
    return _marked(tp + a, fp + b, fn + m1 - a, tn + m0 - b) - _marked(
        tp + m1 - a, fp + m0 - b, fn + a, tn + b
    )


@pytest.mark.parametrize("monotone", [True, False])  # the staircase walk and every point measured
def test_midp_swap_test_equals_enumeration(monotone):
    joint = _joints(24, 40, 5)
    flat = np.ascontiguousarray(joint.reshape(-1, 8))
    p, enumerated = np.empty(len(flat)), np.empty(len(flat), dtype=np.bool_)
    binary_swap_test(flat, 1, kb.NAMES.index("markedness"), 1.0, monotone, 1 << 20, True, p, enumerated)
    assert enumerated.all()
    for g, j in enumerate(joint):
        tp, fn, fp, tn = int(j[1, 1, 1]), int(j[1, 0, 0]), int(j[0, 1, 1]), int(j[0, 0, 0])
        x1, y1, x0, y0 = int(j[1, 0, 1]), int(j[1, 1, 0]), int(j[0, 0, 1]), int(j[0, 1, 0])
        m1, m0 = x1 + y1, x0 + y0
        agreed = (tp, fp, fn, tn, m1, m0)
        d = abs(_swapped_difference(agreed, x1, x0))
        if d < 1e-12:
            assert p[g] == 1.0
            continue
        total = 0.0
        for a in range(m1 + 1):
            for b in range(m0 + 1):
                v = abs(_swapped_difference(agreed, a, b))
                w = math.comb(m1, a) * math.comb(m0, b) / 2 ** (m1 + m0)
                total += w if v > d * (1 + 1e-9) else (w / 2 if v >= d * (1 - 1e-9) else 0.0)
        assert p[g] == pytest.approx(total, rel=1e-9, abs=1e-15), g
    # and it is the library's swap_p(mid_p=True)
    np.testing.assert_array_equal(swap_p(joint, "markedness", mid_p=True)[0], p)


def _pairs(g: int, seed: int, low: int = 20, high: int = 400) -> np.ndarray:
    """``[2G, 2, 2]`` tables: run 2i and run 2i + 1 a pair of random tables."""
    rng = np.random.default_rng(seed)
    n = rng.integers(low, high, 2 * g)
    probs = rng.dirichlet(np.full(4, 2.0), 2 * g)
    return np.stack([rng.multinomial(k, p) for k, p in zip(n, probs, strict=True)]).reshape(-1, 2, 2)


@pytest.mark.parametrize("measure", ["informedness", "markedness"])
def test_equal_difference_p_matches_slsqp(measure):
    counts = _pairs(12, 8 + (measure == "markedness"), 80, 300)
    counts[0, 0, 1] = 0  # a rate at its bound: no false positive
    counts[3, 1, 0] = 0
    ref_idx = np.arange(len(counts)) ^ 1
    got = cmp.equal_difference_p(counts, measure, ref_idx)
    for g in range(0, len(counts), 2):
        if np.isnan(got[g]):
            continue
        expect = ref.equal_difference_p(np.stack([counts[g], counts[g + 1]]), measure)
        assert got[g] == pytest.approx(expect, rel=1e-6, abs=1e-12), g
        assert got[g + 1] == pytest.approx(got[g], rel=1e-12)  # symmetric in the two runs (to rounding)
    assert (~np.isnan(got)).sum() >= 16


@pytest.mark.parametrize("measure", ["informedness", "markedness"])
def test_equal_difference_p_matches_bisection_on_many_tables(measure):
    counts = _pairs(1500, 17)
    ref_idx = np.arange(len(counts)) ^ 1
    got = cmp.equal_difference_p(counts, measure, ref_idx)
    tp, fp, fn, tn = counts[:, 1, 1], counts[:, 0, 1], counts[:, 1, 0], counts[:, 0, 0]
    if measure == "informedness":
        x1, n1, x0, n0 = tp, tp + fn, fp, fp + tn
    else:
        x1, n1, x0, n0 = tp, tp + fp, fn, fn + tn
    x = np.stack([x1, x0, x1[ref_idx], x0[ref_idx]], axis=1).astype(float)
    n = np.stack([n1, n0, n1[ref_idx], n0[ref_idx]], axis=1).astype(float)
    expect = ref.equal_difference_p_bisection(x, n)
    margins = np.concatenate([counts.sum(axis=1), counts.sum(axis=2)], axis=1).min(axis=1)
    held = np.minimum(margins, margins[ref_idx]) >= cmp.SCORE_MARGIN
    assert held.sum() > 1000 and (~held).sum() > 50
    np.testing.assert_allclose(got[held], expect[held], rtol=1e-9, atol=1e-12)
    assert np.isnan(got[~held]).all()  # below the margin the caller's other test applies


def test_equal_difference_p_edges():
    counts = np.array([[[50, 0], [0, 50]], [[50, 0], [0, 50]], [[40, 10], [10, 40]], [[8, 1], [3, 30]]])
    p = cmp.equal_difference_p(counts, "informedness", np.array([1, 0, -1, 2]))
    assert p[0] == p[1] == 1.0  # two perfect runs: no difference, no spread
    assert np.isnan(p[2]) and np.isnan(p[3])  # no reference; a margin of 9 (the reference's is 12)
    with pytest.raises(ValueError, match="kappa_cohen"):
        cmp.equal_difference_p(counts, "kappa_cohen", np.array([1, 0, -1, 2]))


def _unpaired_board(sizes: list[tuple[int, int]], seed: int) -> tuple[pl.DataFrame, np.ndarray]:
    """Runs on test sets of their own, and their tables ``[run, real, predicted]``."""
    rng = np.random.default_rng(seed)
    frames, tables = [], []
    for r, (pos, neg) in enumerate(sizes):
        y = np.r_[np.ones(pos, np.int8), np.zeros(neg, np.int8)]
        pred = np.where(rng.random(len(y)) < 0.4 + 0.1 * r, y, rng.integers(0, 2, len(y))).astype(np.int8)
        frames.append(pl.DataFrame({"run": np.full(len(y), r), "label": y, "prediction": pred}))
        tables.append([[np.sum((y == a) & (pred == b)) for b in (0, 1)] for a in (0, 1)])
    return pl.concat(frames), np.array(tables)


@pytest.mark.parametrize("measure", ["informedness", "markedness"])
def test_unpaired_leaderboard_uses_the_score_test_where_margins_hold_10(measure):
    # run 3 has 6 positives: below the margin its p-values keep the z-test of the adjusted tables
    df, tables = _unpaired_board([(60, 80), (50, 90), (70, 70), (6, 120), (40, 40)], seed=4)
    board = be.leaderboard(df, measure=measure, adjacent=True).sort("rank")
    counts = tables[board["run"].to_numpy()]
    value = compute(counts, [measure], positive=1)[measure]
    se = cmp.unpaired_se(counts, measure, "wilson_delta", 200, 0, 1)
    centre = cmp.unpaired_centre(counts, measure, "wilson_delta", value)
    margins = np.concatenate([counts.sum(axis=1), counts.sum(axis=2)], axis=1).min(axis=1)
    for col, refs in (
        ("p_vs_leader", np.zeros(len(counts), int)),
        ("p_vs_above", np.arange(len(counts)) - 1),
    ):
        z_test = cmp.versus(value, se, refs, "x", centre)["p_vs_x"]
        for g in range(1, len(counts)):
            got = board[col][g]
            if min(margins[g], margins[refs[g]]) >= cmp.SCORE_MARGIN:
                expect = ref.equal_difference_p(np.stack([counts[g], counts[refs[g]]]), measure)
                assert got == pytest.approx(expect, rel=1e-6), (col, g)
            else:
                assert got == z_test[g], (col, g)
    assert (margins < cmp.SCORE_MARGIN).sum() == 1


def test_paired_leaderboard_p_vs_leader_is_the_midp_test():
    rng = np.random.default_rng(9)
    n, runs = 60, 4
    y = rng.integers(0, 2, n).astype(np.int8)
    pred = np.where(rng.random((runs, n)) < 0.5, y, rng.integers(0, 2, (runs, n))).astype(np.int8)
    df = pl.DataFrame({
        "run": np.repeat(np.arange(runs), n), "example_id": np.tile(np.arange(n), runs),
        "label": np.tile(y, runs), "prediction": pred.ravel(),
    })  # fmt: skip
    for measure in ("accuracy", "informedness"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            board = be.leaderboard(df, example="example_id", measure=measure, adjacent=True)
        b, c = board["n_leader_only"].to_numpy()[1:], board["n_run_only"].to_numpy()[1:]
        exact = np.array(
            [stats.binomtest(int(cc), int(bb + cc), 0.5).pvalue for bb, cc in zip(b, c, strict=True)]
        )
        np.testing.assert_allclose(board["p_mcnemar"].to_numpy()[1:], exact, rtol=1e-9)  # still exact
        if measure == "accuracy":  # its sign-flip test is McNemar's: the mid-p McNemar test
            np.testing.assert_allclose(board["p_vs_leader"].to_numpy()[1:], _midp_mcnemar(b, c), rtol=1e-9)
        else:
            lead = pred[int(board["run"][0])]
            for i in range(1, runs):
                joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
                np.add.at(joint, (0, y, lead, pred[int(board["run"][i])]), 1)
                w = (Fraction(1, int((y == 1).sum())), Fraction(1, int((y == 0).sum())))
                assert board["p_vs_leader"][i] == pytest.approx(_enumerated_midp(joint[0], *w), rel=1e-9)
