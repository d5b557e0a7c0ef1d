"""Bootstrap kernels: multinomial resampling of count tables, and percentiles.

Reproducibility does not depend on the thread count: every group draws from
its own generator (:mod:`.sampling`), seeded from the user's seed and the
group's index (:func:`group_seeds`), so a group's replicates are the same
however the groups are spread over threads or sliced into chunks.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_inline, jit_parallel, prange
from .sampling import multinomial, seed_state, splitmix64


@jit
def group_seeds(seed, first, n, out):
    """``out[i]`` = 64-bit generator seed of group ``first + i`` under ``seed``."""
    base = splitmix64(np.uint64(seed))
    for i in range(n):
        out[i] = splitmix64(base ^ np.uint64(first + i))


@jit_parallel
def multinomial_resample(counts, n_boot, seeds, out):
    """``out[g, b]`` = a Multinomial(n_g, counts[g] / n_g) draw, for ``b < n_boot``.

    ``counts`` is ``[G, C]`` (a table's cells flattened), ``out`` is
    ``[G, n_boot, C]``.
    """
    n_groups, n_cells = counts.shape
    for g in prange(n_groups):
        state = np.empty(4, np.uint64)
        seed_state(seeds[g], state)
        total = 0
        for c in range(n_cells):
            total += counts[g, c]
        for b in range(n_boot):
            multinomial(counts, g, total, state, out[g, b])


@jit_parallel
def paired_binary_cells(joint, n_boot, seeds, positive, run_cells, lead_cells):
    """Resample binary joint tables and keep only the two 2×2 tables each replicate implies.

    ``joint`` is ``[G, 8]``, the flattened ``[real, leader's prediction, run's
    prediction]`` table. Replicate b of group g is drawn exactly as
    :func:`multinomial_resample` draws it (same seeds, same order), then
    summed into ``run_cells[:, g*n_boot + b]`` and ``lead_cells[...]`` as
    ``(tp, fp, fn, tn)`` with class ``positive`` positive, so the ``[G, B, 8]``
    replicate tensor is never stored.
    """
    n_groups = joint.shape[0]
    p = positive
    q = 1 - positive
    for g in prange(n_groups):
        state = np.empty(4, np.uint64)
        seed_state(seeds[g], state)
        total = 0
        for c in range(8):
            total += joint[g, c]
        cell = np.empty(8, np.int64)
        for b in range(n_boot):
            multinomial(joint, g, total, state, cell)
            r = g * n_boot + b
            # cell index: real*4 + leader*2 + run
            run_cells[0, r] = cell[p * 4 + p] + cell[p * 4 + 2 + p]
            run_cells[1, r] = cell[q * 4 + p] + cell[q * 4 + 2 + p]
            run_cells[2, r] = cell[p * 4 + q] + cell[p * 4 + 2 + q]
            run_cells[3, r] = cell[q * 4 + q] + cell[q * 4 + 2 + q]
            lead_cells[0, r] = cell[p * 4 + p * 2] + cell[p * 4 + p * 2 + 1]
            lead_cells[1, r] = cell[q * 4 + p * 2] + cell[q * 4 + p * 2 + 1]
            lead_cells[2, r] = cell[p * 4 + q * 2] + cell[p * 4 + q * 2 + 1]
            lead_cells[3, r] = cell[q * 4 + q * 2] + cell[q * 4 + q * 2 + 1]


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
