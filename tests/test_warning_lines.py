"""Warnings name the user's line, not batcheval's source (issue #23: no library source line)."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import batcheval as be


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    return pl.DataFrame({
        "run": np.repeat([1, 2], 100), "seed": np.tile([0, 1], 100), "label": y,
        "prediction": np.where(rng.random(200) < 0.8, y, 1 - y), "score": rng.random(200) + y,
    })  # fmt: skip


CASES = {
    "evaluate drops null labels": lambda df: be.evaluate(
        df.with_columns(label=pl.when(pl.col("seed") == 0).then(None).otherwise("label")),
        by="run", drop_nulls=True,
    ),
    "sweep drops non-finite scores": lambda df: be.sweep(
        df.with_columns(score=pl.when(pl.col("seed") == 0).then(np.inf).otherwise("score")),
        by="run", drop_nonfinite=True,
    ),
    "auc drops null scores": lambda df: be.auc(
        df.with_columns(score=pl.when(pl.col("seed") == 0).then(None).otherwise("score")),
        by="run", drop_nulls=True,
    ),
    "pooled seeds without example=": lambda df: be.evaluate(df, by="run", pool="seed", ci=0.95),
    "leaderboard pooled seeds": lambda df: be.leaderboard(df, pool="seed"),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_warning_points_at_the_calling_line(case):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CASES[case](_frame())
    ours = [w for w in caught if issubclass(w.category, be.BatchevalWarning)]
    assert ours, "expected a BatchevalWarning"
    for w in ours:
        assert w.filename == __file__, (str(w.message), w.filename)
