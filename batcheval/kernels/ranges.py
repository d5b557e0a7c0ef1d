"""Value ranges of integer columns, one parallel pass per column."""

from __future__ import annotations

import numpy as np

from .jit import jit_parallel, prange


@jit_parallel
def minmax(values, n_threads):
    """``(min, max)`` of a non-empty integer array as int64, split over threads."""
    n = values.shape[0]
    lo = np.empty(n_threads, np.int64)
    hi = np.empty(n_threads, np.int64)
    step = (n + n_threads - 1) // n_threads
    for t in prange(n_threads):
        start = min(n, t * step)
        stop = min(n, start + step)
        a = np.int64(values[start]) if start < stop else np.int64(values[0])
        b = a
        for i in range(start, stop):
            v = np.int64(values[i])
            a = min(a, v)
            b = max(b, v)
        lo[t] = a
        hi[t] = b
    return lo.min(), hi.max()
