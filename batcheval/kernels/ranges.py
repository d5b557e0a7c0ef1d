"""Value ranges of integer columns: all key and class columns of a frame in one parallel pass
(:func:`column_ranges`), or one column with its small values' bit mask (:func:`minmax`)."""

from __future__ import annotations

import numpy as np

from .jit import jit, jit_inline, jit_parallel, prange

#: Columns one :func:`column_ranges` call scans (four keys, label and prediction).
RANGE_SLOTS = 6
# rows per block: each column's slice of a block is scanned in turn, so the pass is one sweep
# over the rows with every column's stream in flight, while each inner loop stays a plain
# min/max over one array that vectorises
_RANGE_BLOCK = 1 << 15


@jit
def _span(values, lo, hi, a, b):
    """``(min(a, values[lo:hi]), max(b, values[lo:hi]))`` in the array's own dtype, which
    vectorises (a widening to int64 per element would not); called, not inlined, so one
    compiled loop per dtype serves every slot."""
    if lo >= hi:
        return a, b
    x = values[lo]
    y = x
    for i in range(lo + 1, hi):
        # an unsigned index: a signed one costs a negative-index wraparound branch per element,
        # which kept this loop from vectorising (int8 column 13 ms -> 1 ms for 20M rows)
        v = values[np.uint64(i)]
        x = min(x, v)
        y = max(y, v)
    return min(a, np.int64(x)), max(b, np.int64(y))


@jit
def _first(values, i):
    """``values[i]`` as int64, or the last value of a shorter (unused slot's) array."""
    return np.int64(values[min(i, values.shape[0] - 1)])


@jit_parallel
def column_ranges(c0, c1, c2, c3, c4, c5, n_cols, n_threads):
    """``out[0, j]``, ``out[1, j]``: min and max (int64) of column ``c_j`` for ``j < n_cols``.

    The columns are non-empty integer arrays of one length (uint64 only when known to fit
    int64 and passed as int64); slots from ``n_cols`` on are ignored (pass any 1-d int64
    array). One pass over the rows for all of them instead of one per column.
    """
    n = c0.shape[0]
    part = np.empty((n_threads, 2, RANGE_SLOTS), np.int64)
    step = (n + n_threads - 1) // n_threads
    for t in prange(n_threads):
        start = min(n, t * step)
        stop = min(n, start + step)
        first = start if start < stop else 0
        # each thread starts from its first row's values, so an empty slice changes nothing
        a0 = b0 = _first(c0, first)
        a1 = b1 = _first(c1, first)
        a2 = b2 = _first(c2, first)
        a3 = b3 = _first(c3, first)
        a4 = b4 = _first(c4, first)
        a5 = b5 = _first(c5, first)
        for blo in range(start, stop, _RANGE_BLOCK):
            bhi = min(stop, blo + _RANGE_BLOCK)
            a0, b0 = _span(c0, blo, bhi, a0, b0)
            if n_cols > 1:
                a1, b1 = _span(c1, blo, bhi, a1, b1)
            if n_cols > 2:
                a2, b2 = _span(c2, blo, bhi, a2, b2)
            if n_cols > 3:
                a3, b3 = _span(c3, blo, bhi, a3, b3)
            if n_cols > 4:
                a4, b4 = _span(c4, blo, bhi, a4, b4)
            if n_cols > 5:
                a5, b5 = _span(c5, blo, bhi, a5, b5)
        part[t, 0, 0], part[t, 1, 0] = a0, b0
        part[t, 0, 1], part[t, 1, 1] = a1, b1
        part[t, 0, 2], part[t, 1, 2] = a2, b2
        part[t, 0, 3], part[t, 1, 3] = a3, b3
        part[t, 0, 4], part[t, 1, 4] = a4, b4
        part[t, 0, 5], part[t, 1, 5] = a5, b5
    out = np.empty((2, n_cols), np.int64)
    for j in range(n_cols):
        a = part[0, 0, j]
        b = part[0, 1, j]
        for t in range(1, n_threads):
            a = min(a, part[t, 0, j])
            b = max(b, part[t, 1, j])
        out[0, j] = a
        out[1, j] = b
    return out


@jit_parallel
def minmax(values, n_threads):
    """``(min, max, mask)`` of a non-empty integer array, split over threads:
    min and max as int64, and a bit mask of the values in ``[0, 64)`` (the
    classes of a small label column, found in the same pass)."""
    n = values.shape[0]
    lo = np.empty(n_threads, np.int64)
    hi = np.empty(n_threads, np.int64)
    bits = np.zeros(n_threads, np.uint64)
    step = (n + n_threads - 1) // n_threads
    for t in prange(n_threads):
        start = min(n, t * step)
        stop = min(n, start + step)
        a = np.int64(values[start]) if start < stop else np.int64(values[0])
        b = a
        m = np.uint64(0)
        for i in range(start, stop):
            v = np.int64(values[i])
            a = min(a, v)
            b = max(b, v)
            if np.uint64(v) < 64:
                m |= np.uint64(1) << np.uint64(v)
        lo[t] = a
        hi[t] = b
        bits[t] = m
    mask = np.uint64(0)
    for t in range(n_threads):
        mask |= bits[t]
    low, high = lo[0], hi[0]
    for t in range(1, n_threads):  # lo.min(), hi.max(): numba's array reductions cost 0.5 s to compile
        low = min(low, lo[t])
        high = max(high, hi[t])
    return low, high, mask


@jit_parallel
def finite_range(values, n_threads):
    """``(min, max, count)`` of the finite values of a float array, and how many
    are NaN or infinite; min > max when none is finite."""
    n = values.shape[0]
    lo = np.full(n_threads, np.inf)
    hi = np.full(n_threads, -np.inf)
    bad = np.zeros(n_threads, np.int64)
    step = (n + n_threads - 1) // n_threads
    for t in prange(n_threads):
        a = np.inf
        b = -np.inf
        nbad = 0
        for i in range(min(n, t * step), min(n, (t + 1) * step)):
            v = values[i]
            if v - v != 0.0:  # NaN or ±inf, without a call per element
                nbad += 1
                continue
            a = min(a, v)
            b = max(b, v)
        lo[t] = a
        hi[t] = b
        bad[t] = nbad
    return thread_range(lo, hi, bad)


@jit_inline
def thread_range(lo, hi, bad):
    """``(lo.min(), hi.max(), bad.sum())`` of per-thread partial results (no NaN among them),
    in loops: numba's array reductions (``nditer``, ``take``, comparators, axis checks) cost a
    first sweep some 1.5 s of CPU to compile, for a handful of elements. The first of equal
    values wins, as in ``lo.min()``, so a signed zero comes out the same.

    Examples
    --------
    >>> thread_range(np.array([0.5, -0.0, 0.0]), np.array([1.0, 2.0, 2.0]), np.array([1, 0, 2]))
    (-0.0, 2.0, 3)
    """
    low = lo[0]
    high = hi[0]
    total = bad[0]
    for t in range(1, lo.shape[0]):
        low = min(low, lo[t])
        high = max(high, hi[t])
        total += bad[t]
    return low, high, total
