"""High-precision Miettinen–Nurminen score interval of ``p1 − p0``, sharing nothing with batcheval:
mpmath at 150 digits by default, the restricted maximum-likelihood estimate from the real roots of
the score equation's cubic in ``p0`` (``mpmath.polyroots``) and the ends of the feasible range,
chosen by the log-likelihood, and each end of the interval where ``T(δ) = ±z`` by bracketing root
search in ``δ`` (``mpmath.findroot``, Anderson–Björck). For rare events at large counts, where float
arithmetic does not resolve the interval (tests/reference/score_diff.py is float64 throughout).
"""

from __future__ import annotations

import mpmath


def _loglik(x1: int, n1: int, x0: int, n0: int, p0, d):
    def term(x: int, m: int, p):
        out = mpmath.mpf(0)
        if x:
            out += x * mpmath.log(p) if p > 0 else -mpmath.inf
        if m - x:
            out += (m - x) * mpmath.log(1 - p) if p < 1 else -mpmath.inf
        return out

    return term(x1, n1, p0 + d) + term(x0, n0, p0)


def restricted_mle(x1: int, n1: int, x0: int, n0: int, d):
    """``p0`` maximising the likelihood of both samples under ``p1 = p0 + d`` (mpmath numbers)."""
    lo, hi = max(mpmath.mpf(0), -d), min(mpmath.mpf(1), 1 - d)
    # p0(1 − p0)(x1 − n1 p1) + p1(1 − p1)(x0 − n0 p0) = 0 with p1 = p0 + d, as a cubic in p0
    coef = [
        -(n1 + n0),
        (n1 + n0) + x1 + x0 - d * (n1 + 2 * n0),
        -(d * d) * n0 + d * (n1 + n0 + 2 * x0) - x1 - x0,
        d * x0 * (d - 1),
    ]
    roots = mpmath.polyroots(coef, maxsteps=400, extraprec=4 * mpmath.mp.prec)
    tiny = mpmath.mpf(10) ** (-mpmath.mp.dps // 2)
    cands = [lo, hi] + [mpmath.re(r) for r in roots if abs(mpmath.im(r)) < tiny and lo <= mpmath.re(r) <= hi]
    return max(cands, key=lambda p: _loglik(x1, n1, x0, n0, p, d))


def score_statistic(x1: int, n1: int, x0: int, n0: int, d):
    """``(x1/n1 − x0/n0 − d)/sd``, the variance at the restricted estimate times N/(N − 1)."""
    p0 = restricted_mle(x1, n1, x0, n0, d)
    p1 = p0 + d
    n = n1 + n0
    var = (p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0) * mpmath.mpf(n) / (n - 1)
    diff = mpmath.mpf(x1) / n1 - mpmath.mpf(x0) / n0 - d
    if var <= 0:
        return mpmath.mpf(0) if diff == 0 else mpmath.inf * mpmath.sign(diff)
    return diff / mpmath.sqrt(var)


def mn_interval(x1: int, n1: int, x0: int, n0: int, z: float, dps: int = 150) -> tuple[float, float]:
    """``{δ : |T(δ)| ≤ z}``, its ends rounded to floats; ``z`` is taken as the float it is."""
    with mpmath.workdps(dps):
        zz = mpmath.mpf(z)
        est = mpmath.mpf(x1) / n1 - mpmath.mpf(x0) / n0
        ends = []
        for bound in (-1, 1):
            if est == bound:  # the statistic is 0 on the whole side
                ends.append(float(bound))
                continue

            def f(d, bound=bound):
                return -bound * score_statistic(x1, n1, x0, n0, d) - zz

            # just inside the bound the variance is tiny and |T| is far above z
            edge = bound - bound * mpmath.mpf(10) ** (-dps // 2)
            root = mpmath.findroot(f, (est, edge), solver="anderson", tol=mpmath.mpf(10) ** (-dps + 10))
            ends.append(float(root))
        return ends[0], ends[1]
