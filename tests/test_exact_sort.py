"""The exact AUC's per-group sort and hull thinning (branch ``aucfast``), against numpy's stable
sort, an integer hull built in Python, and scikit-learn's areas."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import batcheval as be
from batcheval.kernels import exact as _exact
from batcheval.scores.exact import group_blocks
from tests.test_edges_kernels import _hull_area_twice, _roc_points


def _scratch(m: int) -> tuple[np.ndarray, ...]:
    """The radix sort's arrays: the sorted scores, their labels, two key buffers, the counts."""
    return _exact.run_scratch(m)[:5]


def _scores(kind: str, rng: np.random.Generator, m: int) -> np.ndarray:
    if kind == "normal":
        return rng.normal(size=m)
    if kind == "ties":
        return np.round(rng.normal(size=m) + 5.0, 1)
    if kind == "few-signed-zeros":  # sort_segment's bucket of the zeros is not crowded
        v = rng.normal(size=m)
        v[rng.choice(m, 6, replace=False)] = [0.0, -0.0, 0.0, -0.0, -0.0, 0.0]
        return v
    if kind == "float32":
        return rng.random(m).astype(np.float32).astype(np.float64)
    if kind == "ordered":
        return np.sort(rng.normal(size=m))
    return rng.integers(-3, 4, m).astype(np.float64) * 0.0 + 7.0  # "constant"


@pytest.mark.parametrize("kind", ["normal", "ties", "few-signed-zeros", "float32", "ordered", "constant"])
@pytest.mark.parametrize("m", [33, 1000, _exact.RADIX_ROWS])
def test_radix_sort_run_is_numpys_stable_sort(kind: str, m: int) -> None:
    """Values in numpy's order, and each row's label (rows from ``negatives`` on positive)
    with it, ties keeping their rows' order as a stable sort does."""
    rng = np.random.default_rng(m)
    v = _scores(kind, rng, m)
    negatives = m // 3
    tmp, lab, keys, spare, counts = _scratch(m)
    assert _exact.radix_sort_run(v, negatives, tmp, lab, keys, spare, counts)
    order = np.argsort(v, kind="stable")
    assert np.array_equal(tmp.view(np.int64), v[order].view(np.int64))
    assert np.array_equal(lab, (order >= negatives).astype(np.uint8))


@pytest.mark.parametrize(
    "v",
    [
        np.arange(32, dtype=np.float64)[::-1].copy(),  # too few rows to pay for the counts
        np.tile([0.0, -0.0, 1.0, -1.0], 25),  # +0.0 and -0.0: equal, but not the same bits
        np.tile([-1e308, 1e308, 0.5, -0.5], 25),  # a range past float64
        np.tile([3e-323, 0.0, 5e-324, 1e-323], 25),  # 65,536 steps of it past float64
        np.concatenate([np.linspace(1, 0, 400) * 1e-9, [1e300]]),  # one step holds 400 rows
    ],
    ids=["short", "signed-zeros", "overflow", "subnormal", "crowded"],
)
def test_radix_sort_run_declines_and_sort_run_sorts(v: np.ndarray) -> None:
    """Where the radix sort declines, sort_run's bucket sort sorts all the same."""
    m = len(v)
    tmp, lab, keys, spare, counts = _scratch(m)
    assert not _exact.radix_sort_run(v, 10, tmp, lab, keys, spare, counts)
    ends = np.empty(_exact.bucket_count(m) + 1, np.int64)
    lab_in = np.empty(m, np.uint8)
    _exact.sort_run(v, 10, tmp, lab, keys, spare, counts, lab_in, ends, np.empty(m, np.int32))
    assert np.array_equal(tmp, np.sort(v))
    pairs = sorted(zip(v.tolist(), (np.arange(m) >= 10).tolist(), strict=True))
    got = sorted(zip(tmp.tolist(), lab.astype(bool).tolist(), strict=True))
    assert got == pairs


@pytest.mark.parametrize("seed", range(30))
def test_walk_hull_area_is_the_integer_hulls(seed: int) -> None:
    """The thinned candidates leave the hull's exact area as the full monotone chain has it."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 3000))
    y = rng.integers(0, 2, m)
    s = np.round(rng.normal(y * rng.uniform(-1, 2), 1.0), int(rng.integers(0, 3)))
    fps, tps = _roc_points(y, s)
    tp_at = np.array(tps, np.int64)
    row_at = np.array([m - t - f for t, f in zip(tps, fps, strict=True)], np.int64)
    p_tot = int(y.sum())
    _area, hull, _ap, _top, _best = _exact.walk_points(tp_at, row_at, len(tps), m, p_tot, m - p_tot)
    assert hull == float(_hull_area_twice(fps, tps))


@pytest.mark.parametrize("kind", ["normal", "ties", "signed-zeros", "crowded"])
def test_auc_on_each_sort_path_matches_sklearn(kind: str) -> None:
    """Groups of 5-40,000 rows (the radix sort's, the buckets' and the tiny groups'
    insertion sort) give scikit-learn's ROC AUC and average precision."""
    rng = np.random.default_rng(3)
    sizes = [5, 31, 40, 700, 2000, 40_000]
    g = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.integers(0, 2, len(g))
    y[np.cumsum(sizes) - 1] = 1 - y[np.cumsum(sizes) - 2]  # both classes in every group
    base = rng.normal(y * 0.7, 1.0)
    if kind == "ties":
        base = np.round(base, 1)
    elif kind == "signed-zeros":
        base = np.where(rng.random(len(g)) < 0.3, np.where(rng.random(len(g)) < 0.5, 0.0, -0.0), base)
    elif kind == "crowded":
        base = base * 1e-9
        base[rng.integers(0, len(g), 6)] = 1e300
    df = pl.DataFrame({"g": g, "label": y, "score": base})
    got = be.auc(df, by="g").sort("g")
    for k, size in enumerate(sizes):
        part = df.filter(pl.col("g") == k)
        yt, st = part["label"].to_numpy(), part["score"].to_numpy()
        assert got["n"][k] == size
        assert got["roc_auc"][k] == pytest.approx(roc_auc_score(yt, st), rel=1e-13, abs=0)
        assert got["pr_auc"][k] == pytest.approx(average_precision_score(yt, st), rel=1e-12, abs=0)


def test_group_blocks_split_rows_evenly() -> None:
    """Runs of whole groups, in order, covering every group, with about equal rows."""
    rng = np.random.default_rng(0)
    sizes = rng.integers(0, 500, 1000)
    starts = np.concatenate(([0], np.cumsum(sizes)))
    blocks = group_blocks(starts, 2)
    assert blocks[0] == 0 and blocks[-1] == 1000 and len(blocks) == 9
    assert np.all(np.diff(blocks) >= 0)
    rows = np.diff(starts[blocks])
    assert rows.max() - rows.min() <= 2 * sizes.max()
    assert group_blocks(np.array([0, 7]), 4).tolist() == [0, 1]
