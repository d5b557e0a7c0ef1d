"""+0.0 and -0.0 are one score: equal under ``==`` but not in their bits.

A sort or rank that read the sign bit (the float's bits as an integer key, a radix of them, a
heap sort's unstable moves across the two) would put every -0.0 apart from every +0.0, and a
group whose negatives score -0.0 and positives +0.0 would count those pairs as ordered rather
than tied. scikit-learn and numpy's ``>=`` treat them as equal; so must the exact AUC, the
exact sweep and a grid of thresholds, on every sort path (a group of at most 32 rows, the radix
sort, and the bucket sort the radix sort declines to, past ``RADIX_ROWS``).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import batcheval as be
from batcheval.kernels import exact as _exact

SIZES = [20, 300, _exact.RADIX_ROWS + 4_000]


def _frame(layout: str) -> pl.DataFrame:
    rng = np.random.default_rng(11)
    g = np.repeat(np.arange(len(SIZES)), SIZES)
    y = rng.integers(0, 2, len(g))
    s = np.round(rng.normal(0.6 * y, 1.0), 1)
    zero = rng.random(len(g)) < 0.4
    if layout == "negatives -0":  # ordered apart, the zeros would rank every positive first
        s = np.where(zero, np.where(y == 1, 0.0, -0.0), s)
    elif layout == "positives -0":
        s = np.where(zero, np.where(y == 1, -0.0, 0.0), s)
    else:
        s = np.where(zero, np.where(rng.random(len(g)) < 0.5, 0.0, -0.0), s)
    return pl.DataFrame({"g": g, "label": y, "score": s})


LAYOUTS = ["negatives -0", "positives -0", "mixed"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_exact_auc_ties_signed_zeros(layout: str) -> None:
    df = _frame(layout)
    got = be.auc(df, by="g").sort("g")
    for k in range(len(SIZES)):
        part = df.filter(pl.col("g") == k)
        y, s = part["label"].to_numpy(), part["score"].to_numpy()
        assert got["roc_auc"][k] == pytest.approx(roc_auc_score(y, s), rel=1e-13, abs=0)
        assert got["pr_auc"][k] == pytest.approx(average_precision_score(y, s), rel=1e-12, abs=0)
        # Youden's point from numpy's >= at each distinct score (np.unique merges the zeros)
        p, n = y.sum(), len(y) - y.sum()
        grid = np.unique(s)
        j = np.array([((s >= t) & (y == 1)).sum() / p - ((s >= t) & (y == 0)).sum() / n for t in grid])
        best = grid[np.flatnonzero(j == j.max())[-1]]
        assert got["best_informedness"][k] == pytest.approx(j.max(), rel=1e-13, abs=1e-15)
        assert got["best_threshold"][k] == best


@pytest.mark.parametrize("layout", LAYOUTS)
def test_exact_sweep_has_one_point_for_both_zeros(layout: str) -> None:
    df = _frame(layout)
    got = be.sweep(df, by="g", thresholds="exact")
    for k in range(len(SIZES)):
        part = df.filter(pl.col("g") == k)
        y, s = part["label"].to_numpy(), part["score"].to_numpy()
        rows = got.filter(pl.col("g") == k).sort("threshold", descending=True)
        thr = rows["threshold"].to_numpy()
        assert np.array_equal(thr, np.unique(s)[::-1])  # one row for 0: -0.0 == 0.0
        tp = np.array([((s >= t) & (y == 1)).sum() for t in thr])
        fp = np.array([((s >= t) & (y == 0)).sum() for t in thr])
        assert np.array_equal(rows["tp"].to_numpy(), tp)
        assert np.array_equal(rows["fp"].to_numpy(), fp)


@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_threshold_grid_counts_both_zeros_at_either_zero(zero: float) -> None:
    df = _frame("mixed")
    got = be.sweep(df, by="g", thresholds=[-1.0, zero, 1.0]).sort("g", "threshold")
    for k in range(len(SIZES)):
        part = df.filter(pl.col("g") == k)
        y, s = part["label"].to_numpy(), part["score"].to_numpy()
        rows = got.filter(pl.col("g") == k)
        assert rows["threshold"].to_list() == [-1.0, 0.0, 1.0]
        for t, tp, fp in zip(rows["threshold"], rows["tp"], rows["fp"], strict=True):
            assert tp == ((s >= t) & (y == 1)).sum()
            assert fp == ((s >= t) & (y == 0)).sum()
