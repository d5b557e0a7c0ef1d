"""Wilcoxon signed-rank sums for many pairs of methods at once (one sort of N differences a pair)."""

from __future__ import annotations

import numpy as np

from .jit import jit_parallel, prange


@jit_parallel
def signed_rank_sums(
    x: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    r_plus: np.ndarray,
    r_minus: np.ndarray,
    count: np.ndarray,
    tie_term: np.ndarray,
) -> None:
    """For pair p, the differences ``x[a[p]] − x[b[p]]`` over the N columns (datasets):
    Wilcoxon's rank sums of the positive and negative ones, zeros dropped (``zero_method="wilcox"``),
    ties given mid-ranks; ``count`` the non-zero differences and ``tie_term`` Σ(t³ − t) over
    groups of tied |differences| (for the variance of the normal approximation)."""
    n = x.shape[1]
    for p in prange(len(a)):
        d = x[a[p]] - x[b[p]]
        mag = np.abs(d)
        order = np.argsort(mag)
        start = 0
        while start < n and mag[order[start]] == 0.0:
            start += 1
        rp = 0.0
        rm = 0.0
        tt = 0.0
        i = start
        while i < n:
            j = i
            while j + 1 < n and mag[order[j + 1]] == mag[order[i]]:
                j += 1
            mid = 0.5 * ((i - start + 1) + (j - start + 1))
            t = j - i + 1
            tt += float(t) * t * t - t
            for q in range(i, j + 1):
                if d[order[q]] > 0:
                    rp += mid
                else:
                    rm += mid
            i = j + 1
        r_plus[p] = rp
        r_minus[p] = rm
        count[p] = n - start
        tie_term[p] = tt


@jit_parallel
def radix_codes(values: np.ndarray, lo: int, lut: np.ndarray, radix: int, codes: np.ndarray) -> None:
    """``codes = codes·radix + lut[values − lo]`` in one pass: a key column's dense codes folded into
    the codes of the columns before it (mixed radix), without int64 copies of a narrow column."""
    for i in prange(len(values)):
        codes[i] = codes[i] * radix + lut[np.int64(values[i]) - lo]
