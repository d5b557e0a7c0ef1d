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


def standardized(theta: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """``T[i, j] = (θ̂_j − θ̂_i)/s_ij``; ±inf for a difference without spread, 0 on the diagonal."""
    diff = theta[None, :] - theta[:, None]
    s = pair_sd(cov)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff / s
    with np.errstate(invalid="ignore"):
        t = np.where(s > 0, t, np.sign(diff) * np.inf)
    t[diff == 0] = 0.0
    np.fill_diagonal(t, 0.0)
    return t


def _max_t_over(draws: np.ndarray, cov: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per draw, ``max_{b ∈ rows, j ≠ b} (D_j − D_b)/s_bj`` (0 weight where s = 0)."""
    s = pair_sd(cov)
    with np.errstate(divide="ignore"):
        inv = np.where(s > 0, 1.0 / s, 0.0)
    z = (draws[:, None, :] - draws[:, rows, None]) * inv[rows][None]  # [M, |rows|, R]
    z[:, np.arange(len(rows)), rows] = -np.inf
    return z.max(axis=(1, 2))


def best_set(
    theta: np.ndarray, cov: np.ndarray, draws: np.ndarray | None, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(in_set, p)``: Bonferroni step-down over candidate sets, then (with
    ``draws``) the Monte-Carlo step-down, as the selection module describes."""
    r = len(theta)
    t = np.maximum(standardized(theta, cov).max(axis=1, initial=-np.inf), 0.0)
    if r == 1:
        return np.array([True]), np.array([1.0])
    single = stats.norm.sf(t)
    cand = np.arange(r)
    while True:
        p = np.minimum(1.0, len(cand) * (r - 1) * single)
        keep = cand[p[cand] > alpha]
        if len(keep) == len(cand):
            break
        cand = keep
    if draws is not None:
        m = len(draws)
        while True:
            top = _max_t_over(draws, cov, cand)
            p = np.minimum(1.0, (1.0 + (top[None, :] >= t[:, None]).sum(axis=1)) / (1.0 + m))
            keep = cand[p[cand] > alpha]
            if len(keep) == len(cand) or len(keep) == 0:
                break
            cand = keep
    return p > alpha, p


def rank_intervals(
    theta: np.ndarray, cov: np.ndarray, draws: np.ndarray | None, alpha: float
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
    t = standardized(theta, cov)
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
