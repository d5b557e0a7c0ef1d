"""Plain-numpy references for the leaderboard's best set and rank intervals.

Shares no code with ``batcheval``: every pair of runs is held at once (R × R
arrays, R × R × draws for the simulated statistics), with no Pareto frontier
and no kernels. The draws are passed in, so a test can give the reference
the very draws the library makes from the same seed.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


def pair_sd(cov: np.ndarray) -> np.ndarray:
    """``s[i, j] = sd(θ̂_j − θ̂_i)`` from the estimates' covariance."""
    v = np.diag(cov)
    return np.sqrt(np.maximum(v[:, None] + v[None, :] - 2 * cov, 0.0))


def standardized(theta: np.ndarray, cov: np.ndarray, df: np.ndarray | None = None) -> np.ndarray:
    """``T[i, j] = (θ̂_j − θ̂_i)/s_ij``; ±inf for a difference without spread, 0 on the diagonal.
    With ``df[i, j]``: the normal deviate of the same Student-t tail."""
    diff = theta[None, :] - theta[:, None]
    s = pair_sd(cov)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff / s
    with np.errstate(invalid="ignore"):
        t = np.where(s > 0, t, np.sign(diff) * np.inf)
    t[diff == 0] = 0.0
    np.fill_diagonal(t, 0.0)
    if df is not None:
        for i in range(len(theta)):
            for j in range(len(theta)):
                if np.isfinite(t[i, j]) and np.isfinite(df[i, j]) and t[i, j] != 0:
                    t[i, j] = np.sign(t[i, j]) * stats.norm.isf(stats.t.sf(abs(t[i, j]), df[i, j]))
    return t


def welch_df_unpaired(var: np.ndarray, parts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Welch–Satterthwaite degrees of freedom of ``var_i + var_j``, each run's variance
    split over its classes in proportion to ``parts`` (a run with none: all on its
    smallest class), a class of size m counting m − 1 degrees of freedom."""
    r, k = parts.shape
    w = np.zeros(r)
    for i in range(r):
        total = parts[i].sum()
        if total > 0:
            q = parts[i] * var[i] / total
        else:
            q = np.zeros(k)
            q[np.argmin(np.where(sizes[i] > 0, sizes[i], np.inf))] = var[i]
        w[i] = sum(q[c] ** 2 / (sizes[i, c] - 1 if sizes[i, c] > 1 else 1) for c in range(k))
    df = np.full((r, r), np.inf)
    for i in range(r):
        for j in range(r):
            if w[i] + w[j] > 0:
                df[i, j] = (var[i] + var[j]) ** 2 / (w[i] + w[j])
    return df


def welch_df_paired(u: np.ndarray, extra: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Welch–Satterthwaite degrees of freedom of the paired difference's variance:
    its part from each real class's examples (m − 1 degrees of freedom for m
    examples) and the floors ``extra`` (known)."""
    r = len(u)
    df = np.full((r, r), np.inf)
    for i in range(r):
        for j in range(r):
            num, den = extra[i] + extra[j], 0.0
            for c in np.unique(classes[classes >= 0]):
                on = classes == c
                part = float(np.sum((u[i, on] - u[j, on]) ** 2))
                num += part
                den += part**2 / max(int(on.sum()) - 1, 1)
            if den > 0:
                df[i, j] = num**2 / den
    return df


def _max_t_over(draws: np.ndarray, cov: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per draw, ``max_{b ∈ rows, j ≠ b} (D_j − D_b)/s_bj`` (0 weight where s = 0)."""
    s = pair_sd(cov)
    with np.errstate(divide="ignore"):
        inv = np.where(s > 0, 1.0 / s, 0.0)
    z = (draws[:, None, :] - draws[:, rows, None]) * inv[rows][None]  # [M, |rows|, R]
    z[:, np.arange(len(rows)), rows] = -np.inf
    return z.max(axis=(1, 2))


def best_set(
    theta: np.ndarray, cov: np.ndarray, draws: np.ndarray | None, alpha: float, df: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(in_set, p)``: Bonferroni step-down over candidate sets, then (with
    ``draws``) the Monte-Carlo step-down, as the selection module describes."""
    r = len(theta)
    t = standardized(theta, cov, df)
    np.fill_diagonal(t, -np.inf)
    t = np.maximum(t.max(axis=1, initial=-np.inf), 0.0)
    if r == 1:
        return np.array([True]), np.array([1.0])
    single = stats.norm.sf(t)
    cand = np.arange(r)
    while True:
        p = np.where(t > 0, np.minimum(1.0, len(cand) * (r - 1) * single), 1.0)
        keep = cand[p[cand] > alpha]
        if len(keep) == len(cand):
            break
        cand = keep
    if draws is not None:
        m = len(draws)
        while True:
            top = _max_t_over(draws, cov, cand)
            p = np.minimum(1.0, (1.0 + (top[None, :] >= t[:, None]).sum(axis=1)) / (1.0 + m))
            p[t <= 0] = 1.0  # nothing is ahead of a run with no positive gap
            keep = cand[p[cand] > alpha]
            if len(keep) == len(cand) or len(keep) == 0:
                break
            cand = keep
    return p > alpha, p


def rank_intervals(
    theta: np.ndarray, cov: np.ndarray, draws: np.ndarray | None, alpha: float, df: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous rank intervals: two-sided max-t over all pairs (from ``draws``,
    else Bonferroni over the R(R − 1)/2 pairs)."""
    r = len(theta)
    if draws is None:
        c = stats.norm.isf(alpha / (r * (r - 1)))
    else:
        s = pair_sd(cov)
        with np.errstate(divide="ignore"):
            inv = np.where(s > 0, 1.0 / s, 0.0)
        z = np.abs(draws[:, None, :] - draws[:, :, None]) * inv[None]
        top = np.sort(z.max(axis=(1, 2)))
        m = len(top)
        c = top[min(m - 1, max(0, math.ceil((1 - alpha) * (m + 1)) - 1))]
    t = standardized(theta, cov, df)
    np.fill_diagonal(t, 0.0)
    return 1.0 + (t > c).sum(axis=1), r - (-t > c).sum(axis=1)


def informedness_cov(y: np.ndarray, preds: np.ndarray) -> np.ndarray:
    """Delta-method covariance of binary runs' informedness on one test set:
    ``[P(both right | +) − tpr_i tpr_j]/P + [P(both say + | −) − fpr_i fpr_j]/N``."""
    pos, neg = y == 1, y == 0
    right = preds[:, pos] == 1
    false_pos = preds[:, neg] == 1
    n_pos, n_neg = pos.sum(), neg.sum()
    tpr, fpr = right.mean(axis=1), false_pos.mean(axis=1)
    both_tp = right.astype(float) @ right.T.astype(float) / n_pos
    both_fp = false_pos.astype(float) @ false_pos.T.astype(float) / n_neg
    return (both_tp - np.outer(tpr, tpr)) / n_pos + (both_fp - np.outer(fpr, fpr)) / n_neg
