"""The delta method's variance of binary informedness, table by table.

``inference/intervals`` computes the delta-method variance of any chance-corrected
measure with numpy over stacked tables; for binary informedness, the measure of
every leaderboard and interval by default, the temporaries of that numpy code
cost more than the arithmetic (some 80 ms for 100k tables). These kernels do the
same operations in the same order per table, so they give the same bits.
"""

from __future__ import annotations

import numpy as np

from .jit import jit, jit_parallel, prange

#: tables per block of :func:`informedness_variance`; its scratch is made once per block
BLOCK = 1024


@jit
def informedness_gradient(c00, c01, c10, c11, g):
    """``g[i, j]``: the delta-method gradient of informedness of the 2×2 table
    ``c[real, predicted]`` over its cell proportions, each element computed as
    ``inference/intervals.delta_gradient`` computes it over arrays (the same
    operations in the same order, so the same bits). Returns whether it is
    undefined (one real class only)."""
    n = ((c00 + c01) + c10) + c11
    p00, p01, p10, p11 = c00 / n, c01 / n, c10 / n, c11 / n
    r0, r1 = p00 + p01, p10 + p11
    col0, col1 = p00 + p10, p01 + p11
    dtp0, dtp1 = p00 - r0 * col0, p11 - r1 * col1
    inv0 = 1.0 / (1.0 - r0) if r0 < 1.0 else 0.0
    inv1 = 1.0 / (1.0 - r1) if r1 < 1.0 else 0.0
    b0, b1 = r0 * inv0, r1 * inv1
    d0, d1 = dtp0 * inv0 * inv0, dtp1 * inv1 * inv1
    g[0, 0] = ((1.0 - col0) * inv0 - b0) + d0
    g[0, 1] = ((0.0 - col0) * inv0 - b1) + d0
    g[1, 0] = ((0.0 - col1) * inv1 - b0) + d1
    g[1, 1] = ((1.0 - col1) * inv1 - b1) + d1
    return r0 >= 1.0 or r1 >= 1.0


@jit_parallel
def informedness_variance(counts, extra, var, undefined):
    """``var[t]``: ``(Σ π g² − (Σ π g)²) / n`` of the 2×2 table ``counts[t] + extra`` (every
    cell plus ``extra``), with ``g`` its informedness gradient, as
    ``inference/intervals.gradient_variance`` computes it; ``undefined[t]``: one real class
    or no example (numpy's variance is NaN or meaningless there, and its callers mask it)."""
    n_tables = counts.shape[0]
    for b in prange((n_tables + BLOCK - 1) // BLOCK):
        g = np.empty((2, 2))
        for t in range(b * BLOCK, min(n_tables, (b + 1) * BLOCK)):
            c00 = np.float64(counts[t, 0, 0]) + extra
            c01 = np.float64(counts[t, 0, 1]) + extra
            c10 = np.float64(counts[t, 1, 0]) + extra
            c11 = np.float64(counts[t, 1, 1]) + extra
            bad = informedness_gradient(c00, c01, c10, c11, g)
            n = ((c00 + c01) + c10) + c11
            undefined[t] = bad or n == 0.0
            pg00, pg01 = (c00 / n) * g[0, 0], (c01 / n) * g[0, 1]
            pg10, pg11 = (c10 / n) * g[1, 0], (c11 / n) * g[1, 1]
            s1 = ((pg00 + pg01) + pg10) + pg11
            s2 = ((pg00 * g[0, 0] + pg01 * g[0, 1]) + pg10 * g[1, 0]) + pg11 * g[1, 1]
            v = s2 - s1 * s1
            # np.maximum(v, 0.0): NaN and -0.0 kept
            var[t] = (0.0 if v < 0.0 else v) / n
