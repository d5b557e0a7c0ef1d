"""Fisher's exact test for many 2×2 tables: the hypergeometric upper tail."""

from __future__ import annotations

import math

import numpy as np

from .jit import jit_inline, jit_parallel, prange


@jit_inline
def _log_choose(n, k):
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@jit_inline
def _pmf(k, n, rp, pp):
    return math.exp(_log_choose(rp, k) + _log_choose(n - rp, pp - k) - _log_choose(n, pp))


@jit_inline
def _upper_tail(x, n, rp, pp):
    """P(X >= x) for X ~ Hypergeometric(population n, successes rp, draws pp).

    Sums away from the mode, where the terms only shrink: upward from ``x``
    above the mode, else the lower tail downward from ``x - 1`` and one minus
    that. Summing upward from far below the mode would start from a pmf that
    underflows to 0 and return 0 for a table whose answer is 1. Cell products
    are formed in floats: for tables of billions they pass int64.
    """
    lo = max(0, pp - (n - rp))
    hi = min(rp, pp)
    if x <= lo:
        return 1.0
    if x > hi:
        return 0.0
    mode = math.floor((rp + 1.0) * (pp + 1.0) / (n + 2.0))
    if x > mode:
        term = _pmf(x, n, rp, pp)
        total = term
        k = x
        while k < hi and term >= total * 1e-17:
            # pmf(k+1)/pmf(k), so only one lgamma evaluation per table
            term *= float(rp - k) * float(pp - k) / ((k + 1.0) * float(n - rp - pp + k + 1))
            total += term
            k += 1
        return min(total, 1.0)
    k = x - 1
    term = _pmf(k, n, rp, pp)
    below = term
    while k > lo and term >= below * 1e-17:
        # pmf(k-1)/pmf(k)
        term *= k * float(n - rp - pp + k) / (float(rp - k + 1) * float(pp - k + 1))
        below += term
        k -= 1
    return max(0.0, 1.0 - below)


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
