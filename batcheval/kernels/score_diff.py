"""Miettinen–Nurminen score interval of a difference of two independent proportions.

For ``x1`` of ``n1`` and ``x0`` of ``n0`` successes and a hypothesised difference
``δ = p1 − p0``, the score statistic is

.. math:: T(δ) = \\frac{x_1/n_1 - x_0/n_0 - δ}{\\sqrt{\\big(\\tilde p_1(1-\\tilde p_1)/n_1
          + \\tilde p_0(1-\\tilde p_0)/n_0\\big)\\,N/(N-1)}}

with ``p̃0, p̃1 = p̃0 + δ`` the maximum-likelihood estimates under ``δ`` (the root
of a cubic, solved in closed form with the trigonometric formula of Miettinen &
Nurminen 1985, Statist. Med. 4:213, appendix; Farrington & Manning 1990) and
``N = n1 + n0`` (the ``N/(N − 1)`` factor is Miettinen and Nurminen's small-sample
correction). statsmodels 0.15 has ``count0`` for ``n0`` in the cubic's linear
coefficient (statsmodels issue #10269, fix pending in PR #10270), so its score
interval differs from this one unless ``x0 = n0``. The interval is
``{δ : |T(δ)| ≤ z}``; ``T`` falls as ``δ`` rises, so each end is found by
bisection on ``[−1, d̂]`` and ``[d̂, 1]``, to the last bit of a float64. This is statsmodels'
``confint_proportions_2indep(method="score", compare="diff")`` (which inverts the
test with ``brentq``) with that coefficient corrected, for every table at once.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_inline, jit_parallel, prange


@jit_inline
def _rejects(x1: float, n1: float, x0: float, n0: float, delta: float, z2: float) -> bool:
    """Whether the score test rejects ``p1 − p0 = delta`` at ``|T| > z``."""
    big_n = n1 + n0
    diff = x1 / n1 - x0 / n0 - delta
    if delta == 0.0:  # the pooled estimate (the cubic's root, without its rounding)
        q0 = (x1 + x0) / big_n
        q1 = q0
    else:
        a = big_n
        b = (n1 + 2.0 * n0) * delta - big_n - (x1 + x0)
        c = (n0 * delta - big_n - 2.0 * x0) * delta + (x1 + x0)
        d = x0 * delta * (1.0 - delta)
        b3 = b / (3.0 * a)
        v = b3 * b3 * b3 - b * c / (6.0 * a * a) + d / (2.0 * a)
        u = math.sqrt(max(b3 * b3 - c / (3.0 * a), 0.0))
        if v < 0.0:
            u = -u
        if u == 0.0:
            q0 = -b3
        else:
            ratio = min(1.0, max(-1.0, v / (u * u * u)))
            q0 = 2.0 * u * math.cos((math.pi + math.acos(ratio)) / 3.0) - b3
        q1 = q0 + delta
        # rounding can push the root a hair outside [0, 1]
        q0 = min(1.0, max(0.0, q0))
        q1 = min(1.0, max(0.0, q1))
    var = (q1 * (1.0 - q1) / n1 + q0 * (1.0 - q0) / n0) * big_n / (big_n - 1.0)
    if var <= 0.0:
        return diff != 0.0
    return diff * diff > z2 * var


@jit
def _end(x1: float, n1: float, x0: float, n0: float, inside: float, outside: float, z2: float) -> float:
    """The interval's end between an accepted ``inside`` and the parameter's bound ``outside``."""
    if not _rejects(x1, n1, x0, n0, outside, z2):
        return outside
    for _ in range(200):
        mid = 0.5 * (inside + outside)
        if mid in (inside, outside):  # no float left between them
            break
        if _rejects(x1, n1, x0, n0, mid, z2):
            outside = mid
        else:
            inside = mid
    return inside


@jit_parallel
def score_diff_interval(
    x1: np.ndarray,
    n1: np.ndarray,
    x0: np.ndarray,
    n0: np.ndarray,
    z: float,
    low: np.ndarray,
    high: np.ndarray,
) -> None:
    """Fill ``low``/``high`` with the score interval of ``x1/n1 − x0/n0`` (NaN where a size is 0)."""
    z2 = z * z
    for g in prange(x1.shape[0]):
        a1, m1, a0, m0 = float(x1[g]), float(n1[g]), float(x0[g]), float(n0[g])
        if m1 <= 0.0 or m0 <= 0.0:
            low[g] = np.nan
            high[g] = np.nan
            continue
        d = a1 / m1 - a0 / m0
        low[g] = _end(a1, m1, a0, m0, d, -1.0, z2)
        high[g] = _end(a1, m1, a0, m0, d, 1.0, z2)
