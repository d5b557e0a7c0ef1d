"""The best set of boards over ``selection.RANK_LIMIT`` (Stop 37): each paired run against the
leader by its sign-flip test read one-sided at any level (``selection.sign_flip_tail``), and
``compare_auc``'s large boards with the null-centred DeLong spread. Rates are checked on seeded
boards with tolerances of four binomial standard errors of the simulated rate."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from scipy import stats

import batcheval as be
from batcheval.errors import BatchevalWarning
from batcheval.inference import selection

ALPHA = 0.05


def _tolerance(boards: int) -> float:
    return ALPHA + 4 * math.sqrt(ALPHA * (1 - ALPHA) / boards)


def _paired_board(b: np.ndarray, n: int, prevalence: float, rng: np.random.Generator) -> pl.DataFrame:
    """Runs informed with probability ``b[r]`` (else a fair coin) on one shared test set."""
    r, pos = len(b), max(1, round(prevalence * n))
    y = rng.permutation(np.r_[np.ones(pos, np.int8), np.zeros(n - pos, np.int8)])
    pred = np.where(rng.random((r, n)) < b[:, None], y, (rng.random((r, n)) < 0.5).astype(np.int8))
    return pl.DataFrame({
        "run": np.repeat(np.arange(r), n), "example_id": np.tile(np.arange(n), r),
        "label": np.tile(y, r), "prediction": pred.ravel(),
    })  # fmt: skip


def _leaderboard(df: pl.DataFrame, **kw) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BatchevalWarning)  # no rank intervals over the limit
        return be.leaderboard(df, example="example_id", **kw).sort("run")


@pytest.mark.parametrize("m", [1, 5, 20, 80])
def test_sign_flip_tail_bounds_the_exact_one_sided_tail(m):
    # m discordant examples of equal weight: S = 2X − m with X ~ Bin(m, 1/2) under the null. At
    # every attainable s, the exact P(S ≥ s) (scipy) is at most the tail read from the two-sided
    # mid-p value and from the normal tail of x = s/√m, the two forms the sign-flip test gives
    x_count = np.arange(m // 2 + 1, m + 1)
    s = 2 * x_count - m
    exact = stats.binom.sf(x_count - 1, m, 0.5)
    mid_p = 2 * stats.binom.sf(x_count, m, 0.5) + stats.binom.pmf(x_count, m, 0.5)
    normal = 2 * stats.norm.sf(s / math.sqrt(m))
    for p_two in (mid_p, normal):
        tail = selection.sign_flip_tail(p_two)
        assert np.all(tail >= exact * (1 - 1e-12))
        # and it is the smaller of Pinelis's and Hoeffding's bounds (and 1)
        x = stats.norm.isf(p_two / 2)
        expected = np.minimum.reduce([np.ones_like(x), math.e**3 / 9 * p_two, np.exp(-x * x / 2)])
        np.testing.assert_allclose(tail, expected, rtol=1e-12)


def test_paired_family_wise_error_under_the_global_null_above_rank_limit():
    # 6,000 equal runs with 5 positives each: the stop-36 rule (both runs' smoothed variances
    # added to the difference's) lost a run in 9 of these 40 boards, and in 0.27 ± 0.04 of 100
    boards, r = 40, selection.RANK_LIMIT + 1000
    rng = np.random.default_rng(37)
    misses = sum(
        not _leaderboard(_paired_board(np.full(r, 0.5), 100, 0.05, rng), paired="delta", seed=s)[
            "could_be_best"
        ].all()
        for s in range(boards)
    )
    assert misses / boards <= _tolerance(boards)


@pytest.mark.parametrize("paired", ["delta", "bootstrap"])
def test_paired_board_above_rank_limit_excludes_clearly_worse_runs(paired):
    # 100 runs at B = 0.8 and 5,900 at B = 0.55 on 400 examples: nearly every worse run leaves
    # (the stop-36 rule, both runs' smoothed variances added in full, kept 94.8 % of them here;
    # the sign-flip rule 0.9 %; with the pair's least-favourable variance as well, 6.2 %)
    r = selection.RANK_LIMIT + 1000
    b = np.where(np.arange(r) < 100, 0.8, 0.55)
    out = _leaderboard(_paired_board(b, 400, 0.5, np.random.default_rng(7)), paired=paired, seed=0)
    kept = out["could_be_best"].to_numpy()
    assert kept[b == 0.8].all()
    assert kept[b == 0.55].mean() <= 0.10


def _auc_board(auc: np.ndarray, n: int, prevalence: float, rng: np.random.Generator) -> pl.DataFrame:
    """Scores ``δ_r·y + N(0, 1)`` on one shared test set: run r's true AUC is ``Φ(δ_r/√2)``."""
    r, m = len(auc), round(prevalence * n)
    y = np.r_[np.ones(m, np.int8), np.zeros(n - m, np.int8)]
    score = rng.standard_normal((r, n)) + math.sqrt(2) * stats.norm.ppf(auc)[:, None] * y
    return pl.DataFrame({
        "run": np.repeat(np.arange(r), n), "example": np.tile(np.arange(n), r),
        "score": score.ravel(), "label": np.tile(y, r),
    })  # fmt: skip


def test_delong_family_wise_error_under_the_global_null_above_rank_limit():
    # 6,000 runs of AUC 0.75 on 400 examples, 40 positives: DeLong's standard error of the
    # difference with the leader lost a run in 4 of 10 such boards before stop 37
    boards, r = 20, selection.RANK_LIMIT + 1000
    rng = np.random.default_rng(370)
    misses = sum(
        not be.compare_auc(_auc_board(np.full(r, 0.75), 400, 0.1, rng), seed=s)["could_be_best"].all()
        for s in range(boards)
    )
    assert misses / boards <= _tolerance(boards)


def test_delong_board_above_rank_limit_excludes_clearly_worse_runs():
    r = selection.RANK_LIMIT + 1000
    auc = np.where(np.arange(r) < 100, 0.9, 0.6)
    out = be.compare_auc(_auc_board(auc, 400, 0.5, np.random.default_rng(8))).sort("run")
    kept = out["could_be_best"].to_numpy()
    assert kept[auc == 0.9].all()
    assert kept[auc == 0.6].mean() <= 0.02
