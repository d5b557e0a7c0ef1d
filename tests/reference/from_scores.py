"""Plain reference for the binary kappa_cohen and correlation intervals built on the score
intervals of informedness and markedness (batcheval.inference.intervals.from_scores), one
table at a time, sharing nothing with batcheval: the score ends come from
tests/reference/score_diff.py (restricted MLE by numpy.roots, ends by brentq), the measures
are written from their 2×2 formulas, and the delta-method standard errors take the gradient
by complex-step differentiation (exact to rounding, unlike finite differences).
"""

from __future__ import annotations

import math

import numpy as np

from .score_diff import score_interval


def _measures(p: np.ndarray) -> dict[str, complex]:
    """B, M, kappa and phi of a 2×2 table of (possibly complex) weights, scale-free."""
    n = p.sum()
    (tn, fp), (fn, tp) = p / n
    r0, r1, c0, c1 = tn + fp, fn + tp, tn + fn, fp + tp
    det = tp * tn - fp * fn
    return {
        "informedness": tp / r1 - fp / r0,
        "markedness": tp / c1 - fn / c0,
        "kappa_cohen": 2.0 * det / (r0 * c1 + r1 * c0),
        "correlation": det / np.sqrt(r0 * r1 * c0 * c1),
    }


def delta_se(table: np.ndarray, name: str) -> float:
    """``sqrt((Σ π g² − (Σ π g)²)/n)`` with ``g = ∂f/∂π`` by complex step (``h = 1e-30``)."""
    t = np.asarray(table, dtype=float)
    n = t.sum()
    pi = t / n
    h = 1e-30
    g = np.zeros((2, 2))
    for idx in np.ndindex(2, 2):
        z = pi.astype(complex)
        z[idx] += 1j * h
        g[idx] = _measures(z)[name].imag / h
    s1, s2 = float(np.sum(pi * g)), float(np.sum(pi * g * g))
    return math.sqrt(max(s2 - s1 * s1, 0.0) / n)


def value(table: np.ndarray, name: str) -> float:
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(_measures(np.asarray(table, dtype=float))[name])


def agresti_caffo(table: np.ndarray, name: str, z: float) -> tuple[float, float]:
    """``f(t + 1) ± z·se(t + 1)``, clipped; NaN where ``f(t)`` or its delta SE is undefined."""
    t = np.asarray(table, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        raw, plain = value(t, name), delta_se(t, name)
    if not (math.isfinite(raw) and math.isfinite(plain)):
        return math.nan, math.nan
    centre, se = value(t + 1, name), delta_se(t + 1, name)
    return max(centre - z * se, -1.0), min(centre + z * se, 1.0)


def from_scores(table: np.ndarray, name: str, z: float) -> tuple[float, float]:
    (tn, fp), (fn, tp) = (int(v) for v in np.asarray(table)[0]), (int(v) for v in np.asarray(table)[1])
    t = np.array([[tn, fp], [fn, tp]], dtype=float)
    if min(tp + fn, fp + tn, tp + fp, fn + tn) == 0:  # a class absent: no score interval
        return agresti_caffo(t, name, z)
    lb, ub = score_interval(tp, tp + fn, fp, fp + tn, z)
    lm, um = score_interval(tp, tp + fp, fn, fn + tn, z)
    n = t.sum()
    r0, r1, c0, c1 = (tn + fp) / n, (fn + tp) / n, (tn + fn) / n, (fp + tp) / n
    if name == "kappa_cohen":
        sb, sm = 2 * r0 * r1 / (r0 * c1 + r1 * c0), 2 * c0 * c1 / (r0 * c1 + r1 * c0)
    else:
        sb = math.sqrt(r0 * r1 / (c0 * c1))
        sm = 1.0 / sb
    ratios = []
    # the plain ratio only where the table is neither perfect nor inverted (there every plain
    # standard error is 0)
    for tt in (t + 1, t) if fp + fn > 0 and tp + tn > 0 else (t + 1,):
        se = {m: delta_se(tt, m) for m in ("informedness", "markedness", name)}
        ratios.append(se[name] / (0.5 * (sb * se["informedness"] + sm * se["markedness"])))
    k = max(ratios)
    b, m, f = value(t, "informedness"), value(t, "markedness"), value(t, name)
    low = f - 0.5 * (sb * (b - lb) + sm * (m - lm)) * k
    high = f + 0.5 * (sb * (ub - b) + sm * (um - m)) * k
    return min(max(low, -1.0), 1.0), min(max(high, -1.0), 1.0)
