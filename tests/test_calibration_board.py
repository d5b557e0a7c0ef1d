"""Size of the leaderboard's pairwise p-values under the null: a seeded subset of
benchmarks/calibration_board.py (table in docs/calibration_board.md).

Two runs of the same true informedness; the second run's ``p_vs_leader`` (and ``p_mcnemar``)
below α is a false rejection. Tolerances are four binomial standard errors of the simulated rate.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest

import batcheval as be


def _board(rng: np.random.Generator, n: int, prevalence: float, b: float, paired: bool) -> pl.DataFrame:
    pos = max(1, round(prevalence * n))
    base = np.r_[np.ones(pos, np.int8), np.zeros(n - pos, np.int8)]
    y0 = rng.permutation(base)
    y1 = y0 if paired else rng.permutation(base)
    preds = [np.where(y == 1, rng.random(n) < (1 + b) / 2, rng.random(n) < (1 - b) / 2) for y in (y0, y1)]
    return pl.DataFrame({
        "run": np.repeat([0, 1], n), "example": np.tile(np.arange(n), 2),
        "label": np.r_[y0, y1], "prediction": np.r_[preds[0], preds[1]].astype(np.int8),
    })  # fmt: skip


def _rejections(mode: str, n: int, prevalence: float, b: float, boards: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    kwargs = {} if mode == "unpaired" else {"example": "example", "paired": mode}
    p = np.full((boards, 2), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)
        for i in range(boards):
            out = be.leaderboard(_board(rng, n, prevalence, b, mode != "unpaired"), seed=i, **kwargs)
            second = out.sort("rank", maintain_order=True).row(1, named=True)
            p[i] = second["p_vs_leader"], second.get("p_mcnemar", np.nan)
    return p


def _bound(alpha: float, boards: int) -> float:
    return 4 * math.sqrt(alpha * (1 - alpha) / boards)


@pytest.mark.parametrize(
    ("mode", "n", "prevalence", "b"),
    [
        ("unpaired", 20, 0.5, 0.5),
        ("unpaired", 100, 0.1, 0.8),
        ("delta", 40, 0.1, 0.5),
        ("bootstrap", 20, 0.5, 0.5),
    ],
)
def test_pairwise_p_values_do_not_exceed_their_level(mode, n, prevalence, b):
    boards = 400
    p = _rejections(mode, n, prevalence, b, boards, seed=n + int(100 * b))
    for alpha in (0.05, 0.01):
        assert np.mean(p[:, 0] < alpha) <= alpha + _bound(alpha, boards)
        if mode != "unpaired":
            assert np.mean(p[:, 1] < alpha) <= alpha + _bound(alpha, boards)


def test_unpaired_p_value_reaches_its_level_at_400_examples():
    # the docs' table: 0.0505 at 0.05 over 2,000 boards; conservative, not dead, where n is large
    boards = 400
    rate = np.mean(_rejections("unpaired", 400, 0.1, 0.5, boards, seed=7)[:, 0] < 0.05)
    assert abs(rate - 0.05) <= _bound(0.05, boards)


@pytest.mark.parametrize("paired", [False, True])
def test_best_set_keeps_its_level_at_20_examples(paired):
    # docs/calibration_leader.md, "Small n": 10 runs of informedness 0.5 (a run copies the label
    # with probability 0.5, else flips a coin), 20 examples, 10 positives; every run is best
    boards, alpha, r, n = 300, 0.05, 10, 20
    rng = np.random.default_rng(31 + paired)
    base = np.r_[np.ones(n // 2, np.int8), np.zeros(n // 2, np.int8)]
    miss_best = miss_rank = 0
    for s in range(boards):
        y = (
            np.tile(rng.permutation(base), (r, 1))
            if paired
            else np.stack([rng.permutation(base) for _ in range(r)])
        )
        pred = np.where(rng.random((r, n)) < 0.5, y, rng.random((r, n)) < 0.5).astype(np.int8)
        df = pl.DataFrame({
            "run": np.repeat(np.arange(r), n), "example": np.tile(np.arange(n), r),
            "label": y.ravel(), "prediction": pred.ravel(),
        })  # fmt: skip
        out = be.leaderboard(df, example="example" if paired else None, paired="delta", seed=s)
        miss_best += not out["could_be_best"].all()
        miss_rank += bool((out["rank_ci_low"] > 1).any() or (out["rank_ci_high"] < r).any())
    assert miss_best / boards <= alpha + _bound(alpha, boards)
    assert miss_rank / boards <= alpha + _bound(alpha, boards)
