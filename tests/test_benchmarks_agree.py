"""benchmarks/bench_sweep.py's comparators compute what ``be.sweep`` computes, on small seeded data.

Case A times polars, duckdb, numpy and hard predictions against ``be.sweep``; a ratio means something
only when each gives the same table: one row per (group, threshold) of the same grid
(``numpy.linspace`` over the scores' min and max), with ``tp fp fn tn`` of ``score >= threshold``,
empty bins included. ``be.sweep`` is itself checked against plain numpy, one threshold at a time.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import batcheval as be

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
CELLS = ["tp", "fp", "fn", "tn"]
KEYS = ["run", "fold", "threshold"]


def _load_benchmark():
    sys.path.insert(0, str(BENCHMARKS))  # bench_sweep imports bench_evaluate as a script does
    try:
        spec = importlib.util.spec_from_file_location("bench_sweep", BENCHMARKS / "bench_sweep.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


bench = _load_benchmark()


def _on_the_thresholds(t: int, seed: int = 5) -> pl.DataFrame:
    """Scores at the thresholds themselves, a float either side and rounded to 3 decimals (where a
    bin of ``floor((score - lo) / step)`` and ``score >= threshold`` part), in 50 groups."""
    lo, hi = -5.109, 6.144
    grid = np.linspace(lo, hi, t)
    near = np.concatenate([grid, np.nextafter(grid, -np.inf), np.nextafter(grid, np.inf), grid.round(3)])
    near = near[(near >= lo) & (near <= hi)]
    rng = np.random.default_rng(seed)
    score = np.concatenate([[lo, hi], rng.choice(near, 20_000)])  # lo and hi: the grid is this one
    gid = rng.integers(0, 50, len(score))
    label = rng.integers(0, 2, len(score))
    return pl.DataFrame(
        {"run": gid // bench.FOLDS, "fold": gid % bench.FOLDS, "label": label, "score": score}
    )


CASES = {
    "make_scores, 200k rows, 1k groups, T = 100": (lambda: bench.make_scores(200_000, 1_000), 100),
    "make_scores, 3k rows, 40 groups, T = 13": (lambda: bench.make_scores(3_000, 40, seed=3), 13),
    "scores on the thresholds, T = 100": (lambda: _on_the_thresholds(100), 100),
}


@pytest.fixture(scope="module", params=list(CASES), ids=list(CASES))
def case(request) -> tuple[pl.DataFrame, int, pl.DataFrame]:
    make, t = CASES[request.param]
    df = make()
    swept = be.sweep(df, by=["run", "fold"], thresholds=t, measures=[])
    return df, t, swept.select(*KEYS, *CELLS).sort(KEYS)


def _counts(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.select(*KEYS, *CELLS).cast(dict.fromkeys(CELLS, pl.Int64)).sort(KEYS)


def test_sweep_is_plain_numpy(case):
    """The reference itself: ``be.sweep``'s grid and cells, one threshold at a time in numpy."""
    df, t, want = case
    score, label = df["score"].to_numpy(), df["label"].to_numpy()
    gid = (df["run"] * bench.FOLDS + df["fold"]).to_numpy()
    n_groups = int(gid.max()) + 1
    grid = np.linspace(score.min(), score.max(), t)
    groups = np.arange(n_groups)
    rows = []
    for thr in grid:
        above, positive = score >= thr, label == 1
        masks = (above & positive, above & ~positive, ~above & positive, ~above & ~positive)
        cells = {name: np.bincount(gid[m], minlength=n_groups) for name, m in zip(CELLS, masks, strict=True)}
        rows.append(
            pl.DataFrame(
                {"run": groups // bench.FOLDS, "fold": groups % bench.FOLDS, "threshold": thr, **cells}
            )
        )
    present = df.select("run", "fold").unique()
    assert_frame_equal(_counts(pl.concat(rows).join(present, on=["run", "fold"])), want)


def test_polars(case):
    df, t, want = case
    assert_frame_equal(_counts(bench.polars_binned(df, t)), want)


def test_duckdb(case):
    pytest.importorskip("duckdb")
    df, t, want = case
    assert_frame_equal(_counts(pl.from_arrow(bench.duckdb_binned(df, t)())), want)


def test_numpy(case):
    df, t, want = case
    tp, fp, fn, tn = bench.numpy_binned(df, t)()  # [group, threshold], group run * FOLDS + fold
    gid = (want["run"] * bench.FOLDS + want["fold"]).to_numpy().reshape(-1, t)[:, 0]
    for name, got in zip(CELLS, (tp, fp, fn, tn), strict=True):
        np.testing.assert_array_equal(got[gid].reshape(-1), want[name].to_numpy(), err_msg=name)


def test_hard_predictions(case):
    df, t, want = case
    grid = np.linspace(df["score"].min(), df["score"].max(), t)
    some = grid[:: max(1, t // 7)]  # a threshold group_by at a time: a few of them
    got = bench.hard_predictions(df, some)
    assert_frame_equal(_counts(got), want.filter(pl.col("threshold").is_in(some.tolist())))


def test_sklearn_sample_takes_whole_groups():
    """Case B extrapolates the scikit-learn loop from 200 groups to all of them, so each must be a
    whole group (the first 800k rows of the shuffled frame gave every group some 81 rows of 2,000)."""
    groups, per = 1_000, 40
    df = bench.make_scores(groups * per, groups, seed=12).with_columns(
        (pl.col("run") * bench.FOLDS + pl.col("fold")).alias("group")
    )
    assert df.group_by("group").len()["len"].unique().to_list() == [per]
    sample = bench.sklearn_sample(df, 200)
    assert [(len(label), len(score)) for label, score in sample] == [(per, per)] * 200
    # each the rows of one group, 200 groups in all
    rows_of = {g: sorted(zip(p["score"], p["label"], strict=True)) for (g,), p in df.group_by("group")}
    group_of = {tuple(rows): g for g, rows in rows_of.items()}
    taken = [group_of.get(tuple(sorted(zip(score, label, strict=True)))) for label, score in sample]
    assert None not in taken
    assert len(set(taken)) == 200
