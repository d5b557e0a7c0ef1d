"""The clustered kernels against plain numpy (the per-pair loops written out with einsum and
bincount, as batcheval computed them before the kernels)."""

from __future__ import annotations

import numpy as np
import pytest

from batcheval.kernels.clustered import (
    class_codes,
    cluster_score_sums,
    cluster_square_sums,
    compact_pairs,
    dense_codes,
    leveraged_sums,
    pair_tally,
    pairs_holding,
)


def _sparse(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(start, cell, count)``: the cells of ``counts[P, K, K]`` holding a row, as the kernels read them."""
    flat = counts.reshape(len(counts), -1)
    pair, cell = np.nonzero(flat)
    start = np.r_[0, np.cumsum(np.bincount(pair, minlength=len(counts)))]
    return start, cell, flat[pair, cell]


def _flat(u: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(u.reshape(*u.shape[:-2], -1))


def _pairs(k: int, seed: int, n_pairs: int = 500, n_groups: int = 7) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, (n_pairs, k, k)) * (rng.random((n_pairs, k, k)) < 0.4)
    counts[::11] = 0  # pairs with no rows in some cells, and single-row pairs below
    counts[::13] = 0
    counts[::13, 0, k - 1] = 1
    group = np.sort(rng.integers(0, n_groups, n_pairs))
    return counts.astype(np.int64), group.astype(np.int64)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_cluster_score_sums_matches_numpy(k: int) -> None:
    counts, group = _pairs(k, k)
    u = np.random.default_rng(100 + k).standard_normal((7, k, k))
    expected = np.einsum("pij,pij->p", counts.astype(np.float64), u[group])
    got = cluster_score_sums(*_sparse(counts), group, _flat(u), k)
    if k == 2:  # the same order of additions as einsum's
        np.testing.assert_array_equal(got, expected)
    else:  # row-major order, which einsum's SIMD sums differ from in the last bit
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13)
        row_major = [sum(counts[p].ravel() * u[group[p]].ravel()) for p in range(len(group))]
        np.testing.assert_array_equal(got, row_major)


@pytest.mark.parametrize("k", [2, 3])
def test_cluster_square_sums_matches_numpy(k: int) -> None:
    counts, group = _pairs(k, 40 + k)
    u = np.random.default_rng(k).standard_normal((8, k, k))
    s = np.array([sum(counts[p].ravel() * u[group[p]].ravel()) for p in range(len(group))])
    if k == 2:
        s = np.einsum("pij,pij->p", counts.astype(np.float64), u[group])
    expected = np.bincount(group, weights=s * s, minlength=8)
    got = cluster_square_sums(*_sparse(counts), group, _flat(np.stack([u, -3.0 * u])), k, 8)
    np.testing.assert_array_equal(got[0], expected)
    s3 = np.array([sum(counts[p].ravel() * (-3.0 * u[group[p]]).ravel()) for p in range(len(group))])
    if k == 2:
        s3 = np.einsum("pij,pij->p", counts.astype(np.float64), -3.0 * u[group])
    np.testing.assert_array_equal(got[1], np.bincount(group, weights=s3 * s3, minlength=8))


@pytest.mark.parametrize("k", [2, 3])
def test_pairs_holding_matches_numpy(k: int) -> None:
    counts, group = _pairs(k, 60 + k)
    masks = np.stack(
        [np.eye(k, dtype=bool), np.ones((k, k), dtype=bool), np.arange(k * k).reshape(k, k) % 3 == 1]
    )
    got = pairs_holding(*_sparse(counts), group, masks.reshape(len(masks), -1), 9)
    for mask, row in zip(masks, got, strict=True):
        trials = (counts * mask).sum(axis=(1, 2))
        np.testing.assert_array_equal(
            row, np.bincount(group, weights=(trials > 0).astype(np.float64), minlength=9)
        )


def test_cluster_codes_follow_polars_struct_rank() -> None:
    import polars as pl

    from batcheval.inference.clustered import _codes

    rng = np.random.default_rng(7)
    frames = [
        pl.DataFrame({"a": rng.integers(-5, 5, 300), "b": rng.integers(0, 3, 300).astype(np.uint8)}),
        pl.DataFrame({"a": rng.integers(0, 10**12, 300)}),  # range far wider than the data: sorted
        pl.DataFrame({"a": rng.integers(-(2**62), 2**62, 300), "b": rng.integers(-(2**62), 2**62, 300)}),
        pl.DataFrame({"a": rng.integers(0, 4, 300), "s": rng.choice(["x", "yy", "z"], 300)}),  # strings
    ]
    for frame in frames:
        expected = frame.select(pl.struct(frame.columns).rank("dense")).to_series().to_numpy() - 1
        np.testing.assert_array_equal(_codes(frame), expected)


@pytest.mark.parametrize("k", [2, 3])
def test_pair_tally_and_compact_pairs_match_numpy(k: int) -> None:
    rng = np.random.default_rng(80 + k)
    n, n_groups, n_clusters = 2000, 6, 40
    group, cluster = rng.integers(0, n_groups, n), rng.integers(0, n_clusters, n)
    label, prediction = rng.integers(0, k, n), rng.integers(0, k, n)
    expected = np.zeros((n_groups * n_clusters, k * k), dtype=np.int64)
    np.add.at(expected, (group * n_clusters + cluster, label * k + prediction), 1)
    dense = pair_tally(group, cluster, label, prediction, n_groups, n_clusters, k)
    np.testing.assert_array_equal(dense, expected)
    start, cell, count, pair_group, pair_cluster = compact_pairs(dense, n_clusters)
    held = np.flatnonzero(expected.sum(axis=1) > 0)
    counts = np.zeros((len(held), k * k), dtype=np.int64)
    counts[np.repeat(np.arange(len(held)), np.diff(start)), cell] = count
    np.testing.assert_array_equal(counts, expected[held])
    assert (count > 0).all() and (np.diff(start) > 0).all()  # only the cells and pairs that hold rows
    np.testing.assert_array_equal(pair_group, held // n_clusters)
    np.testing.assert_array_equal(pair_cluster, held % n_clusters)


@pytest.mark.parametrize("classes", [2, 3])
def test_cluster_cells_fast_path_matches_the_counting_path(classes: int) -> None:
    import polars as pl

    import batcheval as be
    from batcheval.inference.clustered import cluster_cells, count_cluster_cells

    rng = np.random.default_rng(classes)
    n = 3000
    df = pl.DataFrame({"run": rng.integers(-3, 4, n), "fold": rng.integers(0, 2, n).astype(np.int8),
                       "ex": rng.integers(0, 400, n) * 1000, "label": rng.integers(0, classes, n),
                       "prediction": rng.integers(0, classes, n)})  # fmt: skip
    df = df.with_columns(passage=pl.col("ex") // 7000)
    for keys, units in ((["run", "fold"], ["ex"]), (["run"], ["passage", "ex"]), ([], ["ex"])):
        table = be.ContingencyTable.from_frame(df, by=keys or None)
        fast = cluster_cells(df, keys, units, "label", "prediction", table)
        slow = count_cluster_cells(df, keys, units, "label", "prediction", table)
        for name in ("counts", "group", "cluster"):
            np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name))
        assert fast.counts.dtype == slow.counts.dtype == np.int64


def test_dense_codes_and_class_codes_match_numpy() -> None:
    rng = np.random.default_rng(9)
    for values in (
        rng.integers(-50, 50, 1000),
        rng.integers(0, 3, 10),
        np.array([5]),
        rng.integers(0, 10**6, 50),
    ):
        np.testing.assert_array_equal(dense_codes(values, 1 << 20), np.unique(values, return_inverse=True)[1])
    assert len(dense_codes(np.array([0, 1 << 40]), 1 << 20)) == 0  # too wide: the caller sorts
    lut = np.array([2, -1, 0, 1])
    values = rng.integers(-2, 7, 500)
    at = values - 3
    expected = np.where((at >= 0) & (at < 4), lut[np.clip(at, 0, 3)], -1)
    np.testing.assert_array_equal(class_codes(values, 3, lut), expected)


@pytest.mark.parametrize("k", [2, 3])
def test_leveraged_sums_match_numpy(k: int) -> None:
    counts, group = _pairs(k, 70 + k)
    counts[5] = 0
    counts[5, 0, 0] = 50  # a pair holding all of its group's units of the first set
    group[5] = 7
    rng = np.random.default_rng(k)
    u = rng.standard_normal((3, 8, k, k))
    masks = np.stack([np.ones((k, k), dtype=bool), np.arange(k * k).reshape(k, k) % 2 == 1])
    unit_of = np.array([0, 1, 0])
    totals = np.einsum("pij,dij->dp", counts.astype(float), masks.astype(float))
    totals = np.stack([np.bincount(group, weights=t, minlength=8) for t in totals])
    vc, holding, s2, sq, sq2, mixed = leveraged_sums(
        *_sparse(counts), group, _flat(u), k, unit_of, masks.reshape(2, -1), totals, 8
    )
    units = np.einsum("pij,dij->dp", counts.astype(float), masks.astype(float))
    for m in range(3):
        d = unit_of[m]
        s = np.array([float(np.sum(counts[p] * u[m, group[p]])) for p in range(len(group))])
        h = units[d] / totals[d, group]
        keep = h < 1
        want = np.bincount(group[keep], weights=(s * s / np.where(keep, 1 - h, 1.0))[keep], minlength=8)
        np.testing.assert_allclose(vc[m], want, rtol=1e-12)
    for d in range(2):
        n_c = units[d]
        rest = totals[d, group] - n_c
        q = np.where(rest > 0, n_c * n_c / np.where(rest > 0, rest, 1.0), 0.0)
        np.testing.assert_array_equal(holding[d], np.bincount(group, weights=(n_c > 0) * 1.0, minlength=8))
        np.testing.assert_array_equal(s2[d], np.bincount(group, weights=n_c * n_c, minlength=8))
        np.testing.assert_allclose(sq[d], np.bincount(group, weights=q, minlength=8), rtol=1e-12)
        np.testing.assert_allclose(sq2[d], np.bincount(group, weights=q * q, minlength=8), rtol=1e-12)
    flat = counts.reshape(len(group), -1)
    want_mixed = np.bincount(group, weights=(flat.max(axis=1) < flat.sum(axis=1)) * 1.0, minlength=8)
    np.testing.assert_array_equal(mixed, want_mixed)
