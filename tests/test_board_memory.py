"""Leaderboards of many classes: what their memory is bounded by.

The studentized bootstrap of modest boards draws ``N_BOOT · R · K²`` replicate cells, so its budget
counts the classes (a board of 200 classes, 100 runs and 1,000 examples asked 29.8 GiB); boards
over it take the Gaussian max-t, whose best set is checked here against plain two-proportion
z-tests. A paired board counts a joint table of ``K³`` cells per run: refused with a
``MemoryBudgetError`` where that would not fit, and checked against numpy's counts where it does."""

from __future__ import annotations

import tracemalloc

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.errors import MemoryBudgetError
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


# -- paired boards: the joint tables' G · K³ cells ------------------------------------------------


@pytest.mark.parametrize("paired", ["bootstrap", "delta"])
def test_a_paired_board_of_many_classes_is_refused_before_allocating(paired: str):
    # 20,000 rows, but 10 joint tables of 1,000³ cells: numpy was asked for 37.3 GiB
    df, _ = _many_class_board(1000, 10, 2000)
    with pytest.raises(MemoryBudgetError) as info:
        be.leaderboard(df, run="run", example="example", measure="accuracy", paired=paired)
    message = str(info.value)
    assert "the paired comparisons of 10 runs over 1,000 classes" in message
    assert "10 × 1,000³ cells" in message
    assert "drop example= for unpaired comparisons" in message


def test_the_joint_tables_check_the_memory_available(monkeypatch: pytest.MonkeyPatch):
    from batcheval.core import memory

    df, _ = _many_class_board(60, 20, 500)  # 20 × 60³ cells: 4.3 million, 138 MB with the tests' copies
    monkeypatch.setattr(memory, "available_bytes", lambda: 100 * 2**20)
    with pytest.raises(MemoryBudgetError, match=r"20 runs over 60 classes .* more than the 100\.0 MiB"):
        be.leaderboard(df, run="run", example="example", measure="accuracy", paired="delta")
    monkeypatch.setattr(memory, "available_bytes", lambda: 200 * 2**20)
    board = be.leaderboard(df, run="run", example="example", measure="accuracy", paired="delta")
    assert board.height == 20


def _numpy_joint(y: np.ndarray, pred: np.ndarray, scored: np.ndarray, ref: np.ndarray, k: int) -> np.ndarray:
    """``joint[g, real, ref's prediction, g's prediction]`` over the examples both scored."""
    joint = np.zeros((len(pred), k, k, k), dtype=np.int64)
    for g, r in enumerate(ref):
        if r < 0:
            continue
        both = scored[g] & scored[r]
        np.add.at(joint[g], (y[both], pred[r, both], pred[g, both]), 1)
    return joint


@pytest.mark.parametrize("one_table", [False, True])
@pytest.mark.parametrize("k", [3, 5, 8, 12])
def test_two_pass_joint_tables_match_numpy(monkeypatch: pytest.MonkeyPatch, k: int, one_table: bool):
    from batcheval.inference import comparisons

    r, e = 7, 400
    rng = np.random.default_rng(k)
    y = rng.integers(0, k, e)
    y[:k] = np.arange(k)  # every class present
    pred = np.where(rng.random((r, e)) < 0.6, y, rng.integers(0, k, (r, e)))
    scored = rng.random((r, e)) < 0.9
    run, ex = np.nonzero(scored)
    df = pl.DataFrame({"run": run, "example": ex, "label": y[ex], "prediction": pred[run, ex]})
    # the two-pass count at every K (a one-pass board holds its cells up to 11 classes)
    monkeypatch.setattr(comparisons, "count_with_cells", lambda *a, **kw: None)
    if one_table:  # one table for every thread: the result itself, not per-thread tables summed
        monkeypatch.setattr(comparisons, "_PRIVATE_CELLS", 0)
    table, pairing = comparisons.count_board(df, ["run"], ["example"], "label", "prediction", None)
    assert isinstance(pairing, comparisons.TwoPass)
    assert table.keys["run"].to_list() == list(range(r)) and table.n_classes == k
    for ref in (np.full(r, 2), np.array([-1, 0, 1, 2, 3, 4, 5])):
        got = pairing.joint(ref)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, _numpy_joint(y, pred, scored, ref, k))
