"""Value ranges of integer columns, one parallel pass per column."""

from __future__ import annotations

import numpy as np

from .jit import jit_parallel, prange


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
    return lo.min(), hi.max(), mask


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
    return lo.min(), hi.max(), bad.sum()
