"""The score interval's two kernels: few tables one end after the other (cheaper to compile), many
tables with both ends interleaved. The same steps of each end, so the same ends to the bit; both
against the brentq reference (tests/reference/score_diff.py) on a sample of the tables."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from batcheval.kernels import score_diff
from tests.reference.score_diff import score_interval


def _tables(n: int, seed: int) -> tuple[np.ndarray, ...]:
    """Random tables from 1 to 3,000 a sample, with the edges: empty samples, x = 0, x = n, n = 1."""
    rng = np.random.default_rng(seed)
    n1 = rng.integers(1, 3000, n)
    n0 = rng.integers(1, 3000, n)
    small = rng.random(n) < 0.3
    n1[small] = rng.integers(1, 12, small.sum())
    n0[small] = rng.integers(1, 12, small.sum())
    x1 = rng.binomial(n1, rng.uniform(0.0, 1.0, n))
    x0 = rng.binomial(n0, rng.uniform(0.0, 1.0, n))
    edge = np.array([[0, 10, 0, 10], [10, 10, 0, 10], [0, 10, 10, 10], [5, 10, 5, 10], [1, 1, 0, 1],
                     [0, 0, 3, 7], [3, 7, 0, 0], [0, 0, 0, 0], [2999, 3000, 1, 3000]])  # fmt: skip
    cols = (x1, n1, x0, n0)
    return tuple(np.concatenate([col, edge[:, j]]).astype(np.int64) for j, col in enumerate(cols))


@pytest.mark.parametrize("level", [0.9, 0.95, 0.999])
def test_few_tables_kernel_gives_the_interleaved_kernels_bits(level):
    x1, n1, x0, n0 = _tables(5000, seed=int(level * 1000))
    z = stats.norm.ppf(0.5 + level / 2)
    got = {}
    for name in ("_few_intervals", "_intervals"):
        low, high = np.empty(len(x1)), np.empty(len(x1))
        getattr(score_diff, name)(x1, n1, x0, n0, z, low, high)
        got[name] = (low, high)
    np.testing.assert_array_equal(got["_few_intervals"][0], got["_intervals"][0])
    np.testing.assert_array_equal(got["_few_intervals"][1], got["_intervals"][1])
    low, high = got["_few_intervals"]
    empty = (n1 == 0) | (n0 == 0)
    assert np.isnan(low[empty]).all() and np.isnan(high[empty]).all()
    rng = np.random.default_rng(1)
    for g in [*rng.choice(np.flatnonzero(~empty), 40, replace=False), *np.flatnonzero(~empty)[-7:]]:
        want = score_interval(int(x1[g]), int(n1[g]), int(x0[g]), int(n0[g]), z)
        assert (low[g], high[g]) == pytest.approx(want, abs=1e-9)


def test_score_diff_interval_takes_the_kernel_for_its_size(monkeypatch):
    """Below FEW_TABLES tables the cheaper kernel; from it on the interleaved one."""
    used = []
    for name in ("_few_intervals", "_intervals"):
        real = getattr(score_diff, name)
        monkeypatch.setattr(score_diff, name, lambda *a, real=real, name=name: used.append(name) or real(*a))
    for n in (1, score_diff.FEW_TABLES - 1, score_diff.FEW_TABLES):
        x1, n1, x0, n0 = (np.full(n, v, np.int64) for v in (3, 10, 5, 10))
        low, high = np.empty(n), np.empty(n)
        score_diff.score_diff_interval(x1, n1, x0, n0, 1.96, low, high)
        assert (low[0], high[0]) == pytest.approx(score_interval(3, 10, 5, 10, 1.96), abs=1e-9)
    assert used == ["_few_intervals", "_few_intervals", "_intervals"]
