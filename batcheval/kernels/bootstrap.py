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
from .sampling import POISSON_PARAMS, multinomial, poisson, poisson_setup, seed_state, splitmix64


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
def start_states(seeds, states):
    """``states[g]`` = the xoshiro state seeded by ``seeds[g]``, for kernels that
    draw a group's replicates in several calls and must continue its stream."""
    for g in prange(seeds.shape[0]):
        seed_state(seeds[g], states[g])


@jit_parallel
def paired_poisson_cells(joint, groups, n_rep, states, positive, lin, run_cells, lead_cells, lin_out):
    """Poisson bootstrap of binary joint tables: ``n_rep`` more replicates of each group in ``groups``.

    ``joint`` is ``[G, 8]`` (``[real, leader's prediction, run's prediction]``
    flattened). Every cell of a replicate is an independent Poisson draw with
    the cell's count as its mean. Replicate ``b`` of ``groups[i]`` goes to
    column ``i*n_rep + b`` of ``run_cells`` and ``lead_cells`` as ``(tp, fp,
    fn, tn)`` with class ``positive`` positive, and its linear term
    ``Σ lin[g, c]·(x_c − joint[g, c])`` to ``lin_out``. ``states[g]`` is
    carried over between calls, so a group's replicates are the same however
    many calls draw them.
    """
    p = positive
    q = 1 - positive
    for i in prange(groups.shape[0]):
        g = groups[i]
        state = states[g].copy()  # a local copy: the row is written back once
        params = np.empty((8, POISSON_PARAMS))
        for c in range(8):
            poisson_setup(np.float64(joint[g, c]), params, c)
        cell = np.empty(8, np.int64)
        for b in range(n_rep):
            lsum = 0.0
            for c in range(8):
                x = poisson(params, c, state)
                cell[c] = x
                lsum += lin[g, c] * (x - joint[g, c])
            r = i * n_rep + b
            # cell index: real*4 + leader*2 + run
            run_cells[0, r] = cell[p * 4 + p] + cell[p * 4 + 2 + p]
            run_cells[1, r] = cell[q * 4 + p] + cell[q * 4 + 2 + p]
            run_cells[2, r] = cell[p * 4 + q] + cell[p * 4 + 2 + q]
            run_cells[3, r] = cell[q * 4 + q] + cell[q * 4 + 2 + q]
            lead_cells[0, r] = cell[p * 4 + p * 2] + cell[p * 4 + p * 2 + 1]
            lead_cells[1, r] = cell[q * 4 + p * 2] + cell[q * 4 + p * 2 + 1]
            lead_cells[2, r] = cell[p * 4 + q * 2] + cell[p * 4 + q * 2 + 1]
            lead_cells[3, r] = cell[q * 4 + q * 2] + cell[q * 4 + q * 2 + 1]
            lin_out[r] = lsum
        states[g, :] = state


@jit_parallel
def control_variate_sums(diff, lin, center, groups, n_rep, sums):
    """Add ``n_rep`` replicates of each group in ``groups`` to its running sums.

    Replicate ``r = i*n_rep + b`` of ``groups[i]`` has the statistic
    ``diff[r]`` and the linear term ``lin[r]``; with ``d = diff − center`` and
    ``e = d² − lin²``, ``sums[g]`` holds ``(m, Σd, Σd², Σlin, Σlin², Σe, Σe², Σd⁴)``
    over the ``m`` replicates whose statistic is defined.
    """
    for i in prange(groups.shape[0]):
        g = groups[i]
        for b in range(n_rep):
            r = i * n_rep + b
            t = diff[r]
            if math.isnan(t):
                continue
            d = t - center[g]
            x = lin[r]
            e = d * d - x * x
            sums[g, 0] += 1.0
            sums[g, 1] += d
            sums[g, 2] += d * d
            sums[g, 3] += x
            sums[g, 4] += x * x
            sums[g, 5] += e
            sums[g, 6] += e * e
            sums[g, 7] += d * d * d * d


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
