"""Plain references for interval and multiple-testing code, sharing nothing with batcheval.

The measures are written from their definitions in the spec (§2, §4) as
functions of a float table of cell weights (they are scale-free), so the
delta-method variance can be taken by numerical differentiation; the
multiple-testing corrections are loops over the textbook step-down/step-up
rules.
"""

from __future__ import annotations

import math

import numpy as np


def _one_vs_rest(t: np.ndarray, k: int) -> tuple[float, float, float, float]:
    tp = t[k, k]
    fn = t[k, :].sum() - tp
    fp = t[:, k].sum() - tp
    tn = t.sum() - tp - fn - fp
    return tp, fp, fn, tn


def informedness(t: np.ndarray) -> float:
    """Σ_k prevalence_k · (recall_k + inverse_recall_k − 1) (spec §4; binary: tpr − fpr)."""
    n = t.sum()
    total = 0.0
    for k in range(t.shape[0]):
        tp, fp, fn, tn = _one_vs_rest(t, k)
        if tp + fn > 0 and fp + tn > 0:
            total += (tp + fn) / n * (tp / (tp + fn) + tn / (fp + tn) - 1.0)
    return total


def markedness(t: np.ndarray) -> float:
    """Σ_k bias_k · (precision_k + inverse_precision_k − 1)."""
    n = t.sum()
    total = 0.0
    for k in range(t.shape[0]):
        tp, fp, fn, tn = _one_vs_rest(t, k)
        if tp + fp > 0 and fn + tn > 0:
            total += (tp + fp) / n * (tp / (tp + fp) + tn / (fn + tn) - 1.0)
    return total


def correlation(t: np.ndarray) -> float:
    if t.shape[0] == 2:  # Matthews' phi from the cells
        tn, fp, fn, tp = t[0, 0], t[0, 1], t[1, 0], t[1, 1]
        return (tp * tn - fp * fn) / math.sqrt((tp + fn) * (fp + tn) * (tp + fp) * (fn + tn))
    b, m = informedness(t), markedness(t)
    return math.copysign(math.sqrt(b * m), b + m)


def kappa_cohen(t: np.ndarray) -> float:
    n = t.sum()
    accuracy = np.trace(t) / n
    e = float(np.sum(t.sum(axis=1) / n * (t.sum(axis=0) / n)))
    return (accuracy - e) / (1.0 - e)


MEASURES = {
    "informedness": informedness,
    "markedness": markedness,
    "correlation": correlation,
    "kappa_cohen": kappa_cohen,
}


def delta_variance_numeric(counts: np.ndarray, name: str, h: float = 1e-6) -> float:
    """Multinomial delta-method variance with a central-difference gradient."""
    return delta_variance_of(counts, MEASURES[name], h)


def delta_variance_of(counts: np.ndarray, f, h: float = 1e-6) -> float:
    """Delta-method variance of any scale-free ``f`` of a table of any shape."""
    n = counts.sum()
    pi = counts.astype(float) / n
    grad = np.zeros_like(pi)
    for idx in np.ndindex(pi.shape):
        up, down = pi.copy(), pi.copy()
        up[idx] += h
        down[idx] -= h
        grad[idx] = (f(up) - f(down)) / (2 * h)
    s1 = float(np.sum(pi * grad))
    s2 = float(np.sum(pi * grad * grad))
    return (s2 - s1 * s1) / n


def youden_variance(tp: int, fp: int, fn: int, tn: int) -> float:
    """Youden (1950): var(tpr − fpr) for two independent binomials."""
    tpr, fpr = tp / (tp + fn), fp / (fp + tn)
    return tpr * (1 - tpr) / (tp + fn) + fpr * (1 - fpr) / (fp + tn)


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, NaN left out (one comparison at a time)."""
    items = sorted((v, i) for i, v in enumerate(p) if not math.isnan(v))
    m = len(items)
    out = [math.nan] * len(p)
    running = 0.0
    for rank, (v, i) in enumerate(items, start=1):
        running = max(running, min(1.0, (m - rank + 1) * v))
        out[i] = running
    return out


def benjamini_hochberg(p: list[float]) -> list[float]:
    """Benjamini–Hochberg step-up adjusted p-values, NaN left out."""
    items = sorted((v, i) for i, v in enumerate(p) if not math.isnan(v))
    m = len(items)
    out = [math.nan] * len(p)
    running = 1.0
    for rank in range(m, 0, -1):
        v, i = items[rank - 1]
        running = min(running, m * v / rank)
        out[i] = min(1.0, running)
    return out


def mixture_cells(prevalence: float, chance_bias: float, informed: float) -> np.ndarray:
    """Cell probabilities [[tn, fp], [fn, tp]] of paper 002's informed-plus-chance model.

    A decision is informed with probability |informed| (correct if informed > 0,
    deliberately wrong if < 0) and otherwise a guess of "positive" with
    probability ``chance_bias``, independent of the real class. The model's
    informedness is exactly ``informed``.
    """
    a = abs(informed)
    q = chance_bias
    right, wrong = (a, 0.0) if informed >= 0 else (0.0, a)
    tp = prevalence * (right + (1 - a) * q)
    fn = prevalence * (wrong + (1 - a) * (1 - q))
    fp = (1 - prevalence) * (wrong + (1 - a) * q)
    tn = (1 - prevalence) * (right + (1 - a) * (1 - q))
    return np.array([[tn, fp], [fn, tp]])


def wilson_poisson_one(x: int, m: int, level: float = 0.95) -> tuple[float, float]:
    """Brown, Cai & DasGupta's modified Wilson interval with x* = 1, from statsmodels' Wilson
    interval and scipy's gamma quantile: for 1 success the lower end is the one-sided Poisson
    bound λ/m with P(Poisson(λ) ≥ 1) = 1 − level, i.e. λ the (1 − level)-quantile of Gamma(1);
    for 1 failure the upper end is 1 − λ/m. NaN for m = 0."""
    from scipy import stats
    from statsmodels.stats.proportion import proportion_confint

    if m == 0:
        return math.nan, math.nan
    low, high = proportion_confint(x, m, alpha=1.0 - level, method="wilson")
    poisson = float(stats.gamma.ppf(1.0 - level, 1)) / m
    if x == 1:
        low = poisson
    if m - x == 1:
        high = 1.0 - poisson
    return float(low), float(high)
