"""Plain reference for the Miettinen–Nurminen score interval of ``p1 − p0``, sharing nothing
with batcheval: the restricted maximum-likelihood estimate is the best of the score
equation's real roots (``numpy.roots``) and the ends of the feasible range, by the
log-likelihood itself, and the interval's ends are found with ``scipy.optimize.brentq``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize


def _loglik(x1: int, n1: int, x0: int, n0: int, p0: float, d: float) -> float:
    def term(x: int, m: int, p: float) -> float:
        out = 0.0
        if x:
            out += x * math.log(p) if p > 0 else -math.inf
        if m - x:
            out += (m - x) * math.log(1 - p) if p < 1 else -math.inf
        return out

    return term(x1, n1, p0 + d) + term(x0, n0, p0)


def restricted_mle(x1: int, n1: int, x0: int, n0: int, d: float) -> float:
    """``p0`` maximising the likelihood of both samples under ``p1 = p0 + d``."""
    lo, hi = max(0.0, -d), min(1.0, 1.0 - d)
    # p0(1 − p0)(x1 − n1 p1) + p1(1 − p1)(x0 − n0 p0) = 0, multiplied out (sympy), as a cubic in p0
    coef = [
        -(n1 + n0),
        (n1 + n0) + x1 + x0 - d * (n1 + 2 * n0),
        -(d * d) * n0 + d * (n1 + n0 + 2 * x0) - x1 - x0,
        d * x0 * (d - 1),
    ]
    cands = [lo, hi] + [r.real for r in np.roots(coef) if abs(r.imag) < 1e-9 and lo <= r.real <= hi]
    return max(cands, key=lambda p: _loglik(x1, n1, x0, n0, p, d))


def score_statistic(x1: int, n1: int, x0: int, n0: int, d: float) -> float:
    """``(x1/n1 − x0/n0 − d) / sd`` with the variance at the restricted estimate times N/(N − 1)."""
    p0 = restricted_mle(x1, n1, x0, n0, d)
    p1 = p0 + d
    n = n1 + n0
    var = (p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0) * n / (n - 1)
    diff = x1 / n1 - x0 / n0 - d
    if var <= 0:
        return 0.0 if diff == 0 else math.copysign(math.inf, diff)
    return diff / math.sqrt(var)


def score_interval(x1: int, n1: int, x0: int, n0: int, z: float) -> tuple[float, float]:
    """``{d : |T(d)| ≤ z}`` by brentq on each side of the estimate."""
    est = x1 / n1 - x0 / n0

    def f(d: float) -> float:
        return abs(score_statistic(x1, n1, x0, n0, d)) - z

    ends = []
    for bound in (-1.0, 1.0):
        if f(bound) <= 0:
            ends.append(bound)
            continue
        # the statistic is infinite at the bound itself (zero variance): start a hair inside
        edge = bound - math.copysign(1e-13, bound)
        ends.append(optimize.brentq(f, est, edge, xtol=1e-14, rtol=1e-15) if f(edge) > 0 else edge)
    return ends[0], ends[1]
