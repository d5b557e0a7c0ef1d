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


# --- the score test of equal differences of two independent tables (unpaired informedness) ---


def _four_loglik(p: np.ndarray, x: np.ndarray, n: np.ndarray) -> float:
    """The four binomial samples' log-likelihood (``0·log 0 = 0``)."""
    p = np.clip(p, 1e-300, 1 - 1e-16)
    return float(np.sum(x * np.log(p) + (n - x) * np.log1p(-p)))


SIGNS = np.array([1.0, -1.0, -1.0, 1.0])  # p₁ − p₀ − (q₁ − q₀)


def constrained_rates_slsqp(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The four rates of most likelihood under ``Σ c_i p_i = 0`` by scipy's SLSQP on the
    likelihood itself (no multiplier, no closed form), started from the observed rates pulled to
    the constraint, and polished from a few other starts; the best of them."""
    c = SIGNS
    obs = x / n
    starts = [obs - c * (c @ obs) / 4, np.full(4, 0.5), (x + 0.5) / (n + 1)]
    best, best_ll = None, -math.inf
    for start in starts:
        res = optimize.minimize(
            lambda p: -_four_loglik(p, x, n),
            np.clip(start - c * (c @ start) / 4, 1e-6, 1 - 1e-6),
            jac=lambda p: -(x / np.clip(p, 1e-300, None) - (n - x) / np.clip(1 - p, 1e-300, None)),
            method="SLSQP",
            bounds=[(0.0, 1.0)] * 4,
            constraints=[{"type": "eq", "fun": lambda p: c @ p, "jac": lambda p: c}],
            options={"ftol": 1e-15, "maxiter": 1000},
        )
        ll = _four_loglik(res.x, x, n)
        if abs(c @ res.x) < 1e-9 and ll > best_ll:
            best, best_ll = res.x, ll
    assert best is not None
    return best


def equal_difference_p(tables: np.ndarray, measure: str = "informedness") -> float:
    """The score test's p-value of two 2×2 tables ``[real, predicted]`` (positive class 1):
    ``erfc(|d|/√(2v))`` with ``v = Σ p̃(1 − p̃)/n`` at :func:`constrained_rates_slsqp`."""
    (tn, fp), (fn, tp) = tables[0]
    (un, uf), (um, ut) = tables[1]
    if measure == "informedness":
        x = np.array([tp, fp, ut, uf], dtype=float)
        n = np.array([tp + fn, fp + tn, ut + um, uf + un], dtype=float)
    else:  # markedness: given the predicted sizes
        x = np.array([tp, fn, ut, um], dtype=float)
        n = np.array([tp + fp, fn + tn, ut + uf, um + un], dtype=float)
    d = float(SIGNS @ (x / n))
    p = constrained_rates_slsqp(x, n)
    v = float(np.sum(p * (1 - p) / n))
    return math.erfc(abs(d) / math.sqrt(2 * v))


def equal_difference_p_bisection(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The same p-value for many quadruples ``x, n [G, 4]`` (signs ``SIGNS``), in numpy: each rate
    given a Lagrange multiplier λ is the root of ``λc p² − (λc + n) p + x``, and λ is found by
    bisection on ``λ = N·tan u`` (80 halvings of u), where the library takes Newton steps."""
    from scipy import special

    c = SIGNS
    scale = n.sum(axis=1, keepdims=True)

    def rates(u: np.ndarray) -> np.ndarray:
        a = scale * np.tan(u)[:, None] * c
        bq = a + n
        with np.errstate(divide="ignore", invalid="ignore"):
            root = np.sqrt(np.maximum(bq * bq - 4.0 * a * x, 0.0))
            p = np.where(bq + root > 0, 2.0 * x / (bq + root), bq / a)
        return np.clip(np.nan_to_num(p), 0.0, 1.0)

    lo = np.full(len(x), -np.pi / 2 + 1e-12)
    hi = np.full(len(x), np.pi / 2 - 1e-12)
    for _ in range(80):
        mid = (lo + hi) / 2
        up = (rates(mid) * c).sum(axis=1) > 0
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    p = rates((lo + hi) / 2)
    var = (p * (1 - p) / n).sum(axis=1)
    diff = (x / n * c).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = special.erfc(np.abs(diff) / np.sqrt(2 * var))
    return np.where(var > 0, out, np.where(np.abs(diff) < 1e-12, 1.0, np.nan))
