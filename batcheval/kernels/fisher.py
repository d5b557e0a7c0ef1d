"""Fisher's exact test for many 2×2 tables: the hypergeometric upper tail."""

from __future__ import annotations

import math

import numpy as np

from .jit import jit_inline, jit_parallel, prange


@jit_inline
def _log_choose(n, k):
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@jit_inline
def _upper_tail(x, n, rp, pp):
    """P(X >= x) for X ~ Hypergeometric(population n, successes rp, draws pp)."""
    lo = max(0, pp - (n - rp))
    hi = min(rp, pp)
    if x <= lo:
        return 1.0
    if x > hi:
        return 0.0
    term = math.exp(_log_choose(rp, x) + _log_choose(n - rp, pp - x) - _log_choose(n, pp))
    total = term
    k = x
    while k < hi:
        # pmf(k+1)/pmf(k), so only one lgamma evaluation per table
        term *= (rp - k) * (pp - k) / ((k + 1.0) * (n - rp - pp + k + 1.0))
        total += term
        k += 1
        if term < total * 1e-17 and (rp - k) * (pp - k) < (k + 1.0) * (n - rp - pp + k + 1.0):
            break  # past the mode and negligible: the rest only shrinks
    return min(total, 1.0)


@jit_parallel
def fisher_greater(tp, fp, fn, tn, out):
    """One-sided Fisher exact p-values toward positive association; NaN when n = 0.

    ``tp fp fn tn`` are the int64 cell columns of G tables.
    """
    for g in prange(tp.shape[0]):
        n = tp[g] + fp[g] + fn[g] + tn[g]
        if n == 0:
            out[g] = np.nan
        else:
            out[g] = _upper_tail(tp[g], n, tp[g] + fn[g], tp[g] + fp[g])
