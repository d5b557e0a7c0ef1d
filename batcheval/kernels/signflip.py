"""The exact null distribution of a paired sign-flip test of two binary runs.

Under the null, each of the ``m_c`` discordant examples of real class c is the
run's win or the reference's with probability 1/2, independently, so the
statistic is ``D = w_a(2X_a − m_a) + w_b(2X_b − m_b)`` with ``X_c ~ Bin(m_c, 1/2)``.
:func:`two_binomial_tail` sums ``P(X_a = x) · P(|D| ≥ t | X_a = x)`` over x, the inner
probability from the cumulative distribution of ``X_b``: ``O(m_a + m_b)`` per
group (numpy's version of the same sum took 7.7 s for 100k pairs of 200 examples, this 0.3 s).
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_parallel, prange


@jit
def _binomial_half(m: int, out: np.ndarray) -> None:
    """``out[0..m]`` = the Bin(m, 1/2) probabilities, by the ratio recurrence outward
    from the mode and one normalisation: no overflow, and far tails underflow to 0."""
    mode = m // 2
    out[mode] = 1.0
    for j in range(mode, m):
        out[j + 1] = out[j] * (m - j) / (j + 1.0)
    for j in range(mode, 0, -1):
        out[j - 1] = out[j] * j / (m - j + 1.0)
    total = 0.0
    for j in range(m + 1):
        total += out[j]
    for j in range(m + 1):
        out[j] /= total


@jit_parallel
def two_binomial_tail(
    ma: np.ndarray, mb: np.ndarray, wa: np.ndarray, wb: np.ndarray, t: np.ndarray, out: np.ndarray
) -> None:
    """``out[g] = P(|wa(2X_a − ma) + wb(2X_b − mb)| ≥ t)`` for independent
    ``X ~ Bin(m, 1/2)``; ``wa``, ``wb`` ≥ 0, ``t > 0``."""
    for g in prange(len(out)):
        a, b = int(ma[g]), int(mb[g])
        pa = np.empty(a + 1)
        _binomial_half(a, pa)
        pb = np.empty(b + 1)
        _binomial_half(b, pb)
        cdf = np.zeros(b + 2)  # cdf[j] = P(X_b <= j - 1)
        for j in range(b + 1):
            cdf[j + 1] = cdf[j] + pb[j]
        # the upper tail summed from the top, not 1 − cdf: that loses small tails to cancellation
        # and rounds to −4e-16 where cdf passes 1
        sf = np.zeros(b + 2)  # sf[j] = P(X_b >= j)
        for j in range(b, -1, -1):
            sf[j] = sf[j + 1] + pb[j]
        total = 0.0
        for x in range(a + 1):
            s = wa[g] * (2.0 * x - a)
            if wb[g] > 0.0:
                # X_b >= lo or X_b <= hi
                lo = math.ceil((b + (t[g] - s) / wb[g]) / 2.0)
                hi = math.floor((b + (-t[g] - s) / wb[g]) / 2.0)
                upper = 1.0 if lo <= 0 else (0.0 if lo > b else sf[int(lo)])
                lower = 0.0 if hi < 0 else (1.0 if hi >= b else cdf[int(hi) + 1])
                total += pa[x] * (upper + lower)
            elif abs(s) >= t[g]:
                total += pa[x]
        out[g] = min(1.0, max(0.0, total))
