"""DeLong, DeLong & Clarke-Pearson (1988) by the definition: O(P·N) structural components."""

from __future__ import annotations

import numpy as np
from scipy import optimize, stats


def psi(x: float, y: float) -> float:
    return 1.0 if x > y else (0.5 if x == y else 0.0)


def components(scores, labels):
    """(V10 over positives, V01 over negatives) by comparing every positive with every negative."""
    pos = [s for s, lab in zip(scores, labels, strict=True) if lab]
    neg = [s for s, lab in zip(scores, labels, strict=True) if not lab]
    v10 = np.array([sum(psi(x, y) for y in neg) / len(neg) for x in pos])
    v01 = np.array([sum(psi(x, y) for x in pos) / len(pos) for y in neg])
    return v10, v01


def auc_variance(scores, labels):
    v10, v01 = components(scores, labels)
    return v10.mean(), v10.var(ddof=1) / len(v10) + v01.var(ddof=1) / len(v01)


def paired(scores_a, scores_b, labels):
    """(auc_a − auc_b, var of the difference) with DeLong's covariance of the two AUCs."""
    a10, a01 = components(scores_a, labels)
    b10, b01 = components(scores_b, labels)
    s10 = np.cov(np.vstack([a10, b10]))
    s01 = np.cov(np.vstack([a01, b01]))
    s = s10 / len(a10) + s01 / len(a01)
    return a10.mean() - b10.mean(), s[0, 0] + s[1, 1] - 2 * s[0, 1]


def kernel_matrix(scores, labels) -> np.ndarray:
    """ψ of every (positive, negative) pair: 1, ½ or 0 as the positive scores above, level, below."""
    pos = [s for s, lab in zip(scores, labels, strict=True) if lab]
    neg = [s for s, lab in zip(scores, labels, strict=True) if not lab]
    return np.array([[psi(x, y) for y in neg] for x in pos])


def unbiased_paired(scores_a, scores_b, labels) -> float:
    """The unbiased estimate of var(auc_a − auc_b) from the m·n pairs' kernel differences
    δ = ψ_a − ψ_b, by the moments of a two-sample U-statistic: with S10, S01 the sample variances of
    the row and column means of δ (DeLong's components' differences) and Q = mean(δ²) − mean(δ)²,
    E[S10] = ξ10 + W/n, E[S01] = ξ01 + W/m and E[Q] = ξ10 + ξ01 + W − var(auc_a − auc_b), where
    var(auc_a − auc_b) = ξ10/m + ξ01/n + W/(mn): three linear equations in ξ10, ξ01 and W, solved
    here as they stand (numpy's solver), not through the library's closed form. At least half of
    DeLong's s10/m + s01/n (the library's floor)."""
    d = kernel_matrix(scores_a, labels) - kernel_matrix(scores_b, labels)
    m, n = d.shape
    s10, s01 = d.mean(axis=1).var(ddof=1), d.mean(axis=0).var(ddof=1)
    q = (d * d).mean() - d.mean() ** 2
    # unknowns (ξ10, ξ01, W); E[Q] = ξ10 + ξ01 + W − (ξ10/m + ξ01/n + W/(mn))
    a = np.array([[1.0, 0.0, 1.0 / n], [0.0, 1.0, 1.0 / m], [1 - 1 / m, 1 - 1 / n, 1 - 1 / (m * n)]])
    xi10, xi01, w = np.linalg.solve(a, [s10, s01, q])
    return float(max(xi10 / m + xi01 / n + w / (m * n), (s10 / m + s01 / n) / 2))


def paired_t(scores_a, scores_b, labels) -> tuple[float, float, float]:
    """(z, Welch–Satterthwaite degrees of freedom, two-sided p from Student's t) of the paired test
    of auc_a = auc_b: z over the :func:`unbiased_paired` standard error; the degrees of freedom of
    DeLong's variance, each class's part the sample variance of that class's per-example
    differences of the components over its size."""
    a10, a01 = components(scores_a, labels)
    b10, b01 = components(scores_b, labels)
    parts = [np.var(a - b, ddof=1) / len(a) for a, b in ((a10, b10), (a01, b01))]
    z = (a10.mean() - b10.mean()) / np.sqrt(unbiased_paired(scores_a, scores_b, labels))
    df = sum(parts) ** 2 / (parts[0] ** 2 / (len(a10) - 1) + parts[1] ** 2 / (len(a01) - 1))
    return z, df, 2 * stats.t.sf(abs(z), df)


def hanley_mcneil(theta: float, m: int, n: int) -> float:
    """Hanley & McNeil's (1982) variance of an AUC, Q1 = θ/(2 − θ) and Q2 = 2θ²/(1 + θ), with
    Newcombe's (2006) N* = (m + n)/2 − 1 in place of both m − 1 and n − 1."""
    star = (m + n) / 2 - 1
    q1, q2 = theta / (2 - theta), 2 * theta * theta / (1 + theta)
    return (theta * (1 - theta) + star * (q1 - theta**2) + star * (q2 - theta**2)) / (m * n)


def score_interval(a: float, m: int, n: int, z: float) -> tuple[float, float]:
    """Newcombe's (2006) method 5: the roots of (a − θ)² = z²·V_HM(θ) either side of a (brentq)."""

    def gap(t: float) -> float:
        return (a - t) ** 2 - z * z * hanley_mcneil(t, m, n)

    # at a separated group's end V_HM is 0, so the bracket starts just inside it
    below, above = min(a, 1 - 1e-13), max(a, 1e-13)
    low = a if a <= 0 or gap(0.0) <= 0 else optimize.brentq(gap, 0.0, below, xtol=1e-15, rtol=1e-15)
    high = a if a >= 1 or gap(1.0) <= 0 else optimize.brentq(gap, above, 1.0, xtol=1e-15, rtol=1e-15)
    return (0.0 if a > 0 and gap(0.0) <= 0 else low), (1.0 if a < 1 and gap(1.0) <= 0 else high)


def logit_interval(a: float, v: float, m: int, n: int, z: float) -> tuple[float, float]:
    """The logit-scale interval of an AUC ``a`` with DeLong variance ``v`` floored at half Hanley &
    McNeil's, a separated group placed half a pair from its end, cut to the hull of the unfloored
    logit interval and Newcombe's score interval."""
    t = min(max(a, 0.5 / (m * n)), 1 - 0.5 / (m * n))
    floored = max(v, 0.5 * hanley_mcneil(t, m, n))
    centre, half = np.log(t / (1 - t)), z * np.sqrt(floored) / (t * (1 - t))
    with np.errstate(over="ignore"):  # exp past its range: an end at 0 or 1
        low, high = 1 / (1 + np.exp(half - centre)), 1 / (1 + np.exp(-centre - half))
        if v > 0:
            bare = z * np.sqrt(v) / (a * (1 - a))
            bare_low, bare_high = (
                1 / (1 + np.exp(bare - np.log(a / (1 - a)))),
                1 / (1 + np.exp(-np.log(a / (1 - a)) - bare)),
            )
        else:
            bare_low = bare_high = a
    score_low, score_high = score_interval(a, m, n, z)
    low, high = max(low, min(bare_low, score_low)), min(high, max(bare_high, score_high))
    return (0.0 if a <= 0 else low), (1.0 if a >= 1 else high)


def mover_difference(scores, ref_scores, labels, z: float) -> tuple[float, float]:
    """Zou & Donner's (2008) MOVER interval of AUC(scores) − AUC(ref_scores) on the same examples:
    each run's :func:`logit_interval`, correlated by DeLong's covariance of the two AUCs."""
    a, v = auc_variance(scores, labels)
    b, w = auc_variance(ref_scores, labels)
    d, var_d = paired(scores, ref_scores, labels)
    m = sum(1 for y in labels if y == 1)
    n = len(labels) - m
    r = (v + w - var_d) / (2 * np.sqrt(v * w)) if v > 0 and w > 0 else 0.0
    r = min(max(r, -1.0), 1.0)
    la, ua = logit_interval(a, v, m, n, z)
    lb, ub = logit_interval(b, w, m, n, z)
    low = d - np.sqrt(max((a - la) ** 2 + (ub - b) ** 2 - 2 * r * (a - la) * (ub - b), 0.0))
    high = d + np.sqrt(max((ua - a) ** 2 + (b - lb) ** 2 - 2 * r * (ua - a) * (b - lb), 0.0))
    return float(low), float(high)
