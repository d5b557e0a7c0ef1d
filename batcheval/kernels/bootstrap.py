"""Bootstrap kernels: multinomial resampling of count tables, and percentiles.

Reproducibility does not depend on the thread count: every group reseeds the
generator of whichever thread draws it, with a seed derived from the user's
seed and the group's index (:func:`group_seeds`), so a group's replicates are
the same however the groups are spread over threads.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_inline, jit_parallel, prange

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@jit_inline
def _splitmix64(x):
    # Steele, Lea & Flood (2014): a bijective 64-bit mixer, so distinct
    # (seed, group) pairs give unrelated seeds even when they differ by one bit
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@jit
def group_seeds(seed, first, n, out):
    """``out[i]`` = 32-bit generator seed of group ``first + i`` under ``seed``."""
    base = _splitmix64(np.uint64(seed))
    for i in range(n):
        z = _splitmix64(base ^ np.uint64(first + i))
        out[i] = np.uint32(z >> np.uint64(32))


@jit_parallel
def multinomial_resample(counts, n_boot, seeds, out):
    """``out[g, b]`` = a Multinomial(n_g, counts[g] / n_g) draw, for ``b < n_boot``.

    ``counts`` is ``[G, C]`` (a table's cells flattened), ``out`` is
    ``[G, n_boot, C]``. The draw is a chain of conditional binomials, each
    cell given the mass left after the cells before it, which is exact.
    """
    n_groups, n_cells = counts.shape
    for g in prange(n_groups):
        # numba compiles only the legacy np.random API; its state is per thread
        np.random.seed(seeds[g])  # noqa: NPY002
        total = 0
        for c in range(n_cells):
            total += counts[g, c]
        for b in range(n_boot):
            left = total  # examples still to place
            mass = total  # original counts of the cells not yet drawn
            for c in range(n_cells - 1):
                cell = counts[g, c]
                if left == 0 or cell == 0:
                    x = 0
                elif cell >= mass:
                    x = left
                else:
                    x = np.random.binomial(left, cell / mass)  # noqa: NPY002
                out[g, b, c] = x
                left -= x
                mass -= cell
            out[g, b, n_cells - 1] = left


@jit_inline
def _interpolate(row, m, q):
    """numpy's default ("linear") quantile of the first ``m`` sorted values."""
    h = (m - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, m - 1)
    return row[lo] + (h - lo) * (row[hi] - row[lo])


@jit_parallel
def percentiles(values, q_low, q_high, low, high):
    """Per row of ``values[G, B]``: the two quantiles of its non-NaN entries.

    NaN when a row has no defined value. The rows are sorted in place.
    """
    n_groups = values.shape[0]
    for g in prange(n_groups):
        row = values[g]
        row.sort()  # NaN sorts last
        m = row.shape[0]
        while m > 0 and math.isnan(row[m - 1]):
            m -= 1
        if m == 0:
            low[g] = np.nan
            high[g] = np.nan
        else:
            low[g] = _interpolate(row, m, q_low)
            high[g] = _interpolate(row, m, q_high)


@jit_parallel
def nan_std(values, out):
    """Sample standard deviation (ddof = 1) of each row's non-NaN entries."""
    for g in prange(values.shape[0]):
        row = values[g]
        s = 0.0
        m = 0
        for v in row:
            if not math.isnan(v):
                s += v
                m += 1
        if m < 2:
            out[g] = np.nan
            continue
        mean = s / m
        ss = 0.0
        for v in row:
            if not math.isnan(v):
                ss += (v - mean) * (v - mean)
        out[g] = math.sqrt(ss / (m - 1))
