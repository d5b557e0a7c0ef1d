"""Leaderboards of many classes: what their memory is bounded by.

The studentized bootstrap of modest boards draws ``N_BOOT · R · K²`` replicate cells, so its budget
counts the classes (a board of 200 classes, 100 runs and 1,000 examples asked 29.8 GiB); boards
over it take the Gaussian max-t, whose best set is checked here against plain two-proportion
z-tests."""

from __future__ import annotations

import tracemalloc

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.inference import board_bootstrap


def _many_class_board(k: int, r: int, e: int, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray]:
    """``r`` runs on the same ``e`` examples of ``k`` classes, run i right with probability
    ``skill[i]`` (else a uniform class); returns the frame and each run's plain accuracy."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, e)
    skill = np.linspace(0.55, 0.80, r)[rng.permutation(r)]
    right = rng.random((r, e)) < skill[:, None]
    pred = np.where(right, y[None, :], rng.integers(0, k, (r, e)))
    acc = (pred == y[None, :]).mean(axis=1)
    df = pl.DataFrame({
        "run": np.repeat(np.arange(r), e),
        "example": np.tile(np.arange(e), r),
        "label": np.tile(y, r),
        "prediction": pred.ravel(),
    })  # fmt: skip
    return df, acc


# -- the unpaired bootstrap's budget counts the classes --------------------------------------------


def test_the_bootstrap_budget_counts_the_replicate_cells():
    n = board_bootstrap.N_BOOT
    # 20 runs are far within the pairs' budget whatever the classes
    assert n * 20 * 20 <= board_bootstrap.BOOT_BUDGET
    assert board_bootstrap.bootstrap_fits(20, 1, 2)
    assert board_bootstrap.bootstrap_fits(20, 1, 20)  # 8 million cells
    assert not board_bootstrap.bootstrap_fits(20, 1, 40)  # 32 million cells
    assert not board_bootstrap.bootstrap_fits(100, 1, 200)  # 4 billion cells: 29.8 GiB of float64
    counts = np.ones((20, 40, 40), dtype=np.int64)
    assert not board_bootstrap.bootable(board_bootstrap.Tables(counts, "accuracy", 1), 20, 1)
    assert board_bootstrap.bootable(board_bootstrap.Tables(counts[:, :3, :3], "accuracy", 1), 20, 1)


def _spy_resampling(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    calls: list[tuple[int, ...]] = []
    real = board_bootstrap.resample_unpaired

    def spy(counts: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
        calls.append((m, *np.shape(counts)))
        return real(counts, m, rng)

    monkeypatch.setattr(board_bootstrap, "resample_unpaired", spy)
    return calls


def test_an_unpaired_board_of_many_classes_is_not_bootstrapped(monkeypatch: pytest.MonkeyPatch):
    calls = _spy_resampling(monkeypatch)
    df, _ = _many_class_board(3, 20, 300)
    be.leaderboard(df.drop("example"), run="run", measure="accuracy", seed=0)
    assert calls == [(board_bootstrap.N_BOOT, 20, 3, 3)]  # the spy sees a modest board's bootstrap
    calls.clear()
    # few runs and examples (a 0.2 MB frame) but 40 classes: 32 million replicate cells
    df, _ = _many_class_board(40, 20, 300)
    be.leaderboard(df.drop("example"), run="run", measure="accuracy", seed=0)
    assert calls == []


def test_a_many_class_unpaired_board_stays_small_and_keeps_the_best_run():
    k, r, e = 60, 30, 1000  # the old budget drew 108 million replicate cells (about 1.8 GB)
    df, acc = _many_class_board(k, r, e, seed=3)
    be.leaderboard(df.head(2000).drop("example"), run="run", measure="accuracy", seed=0)  # compiled
    tracemalloc.start()
    try:
        board = be.leaderboard(df.drop("example"), run="run", measure="accuracy", seed=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200e6, peak
    got = dict(zip(board["run"].to_list(), board["could_be_best"].to_list(), strict=True))
    np.testing.assert_allclose(board.sort("run")["accuracy"].to_numpy(), acc)
    top = int(np.argmax(acc))
    assert got[top]
    # an independent check: a run whose accuracy is below the leader's by a pooled two-proportion
    # z-test at z > 6 (one-sided p < 1e-9, far past any multiplicity over 30 runs) is excluded
    pooled = (acc[top] + acc) / 2
    z = (acc[top] - acc) / np.sqrt(pooled * (1 - pooled) * 2 / e)
    clearly_worse = np.flatnonzero(z > 6)
    assert len(clearly_worse) >= 10
    assert not any(got[i] for i in clearly_worse)
