"""Plain-numpy reference for the studentized bootstrap behind the leaderboard's best
set and rank intervals on modest boards, for binary informedness.

Shares no code with ``batcheval``: the informedness of a table is ``tpr − fpr``, its
variance the Agresti–Caffo ``t̃(1 − t̃)/P̃ + f̃(1 − f̃)/Ñ`` of the table plus one in each
cell, a paired run's influence on an example ``(1[+] − tpr)/P`` for a positive example
and ``−(1[+] − fpr)/N`` for a negative one, and every pair of runs is held at once
(replicates × R × R arrays). The replicate boards are passed in, so a test can give the
reference the very replicates the library draws from the same seed.
"""

from __future__ import annotations

import math

import numpy as np


def rates(t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(tpr, fpr, P, N)`` of tables ``t[..., real, predicted]`` (class 1 positive)."""
    p, n = t[..., 1, :].sum(-1), t[..., 0, :].sum(-1)
    return t[..., 1, 1] / p, t[..., 0, 1] / n, p, n


def informedness(t: np.ndarray) -> np.ndarray:
    tpr, fpr, _, _ = rates(np.asarray(t, float))
    return tpr - fpr


def variance(t: np.ndarray) -> np.ndarray:
    """Agresti–Caffo variance of informedness: the table plus one per cell."""
    tpr, fpr, p, n = rates(np.asarray(t, float) + 1.0)
    return tpr * (1 - tpr) / p + fpr * (1 - fpr) / n


def law(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(smoothed positive-prediction rates ``[R, 2]`` per real class, true informedness
    of the bootstrap world): ``(x + 1)/(m + 2)`` per class."""
    c = np.asarray(counts, float)
    rate = (c[:, :, 1] + 1.0) / (c.sum(axis=2) + 2.0)
    return rate, rate[:, 1] - rate[:, 0]


def max_stats(err: np.ndarray, pair_var: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(max_{i<j} |z_ij|, max_j z_bj)`` per replicate with ``z_ij = (err_j − err_i)/s_ij``
    and ``pair_var[m, i, j] = s_ij²``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (err[:, None, :] - err[:, :, None]) / np.sqrt(pair_var)
    r = err.shape[1]
    z[:, np.arange(r), np.arange(r)] = -np.inf
    return np.abs(np.where(np.isinf(z), 0.0, z)).max(axis=(1, 2)), z.max(axis=2)


def unpaired_stats(counts: np.ndarray, reps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bootstrap maxima of independent runs from replicate tables ``reps[M, R, 2, 2]``."""
    _, truth = law(counts)
    err = informedness(reps) - truth[None, :]
    v = variance(reps)
    return max_stats(err, v[:, :, None] + v[:, None, :])


def influence(codes: np.ndarray) -> np.ndarray:
    """``u[..., r, e]`` of binary codes ``1 + real·2 + predicted`` (every example scored)."""
    real, said = (codes - 1) // 2, (codes - 1) % 2
    pos = real == 1
    p, n = pos.sum(-1, keepdims=True), (~pos).sum(-1, keepdims=True)
    tpr = np.where(pos, said, 0).sum(-1, keepdims=True) / p
    fpr = np.where(~pos, said, 0).sum(-1, keepdims=True) / n
    return np.where(pos, (said - tpr) / p, -(said - fpr) / n)


def tables(codes: np.ndarray) -> np.ndarray:
    """``[..., 2, 2]`` counts of binary codes ``[..., E]``."""
    out = np.zeros((*codes.shape[:-1], 2, 2))
    for real in (0, 1):
        for said in (0, 1):
            out[..., real, said] = (codes == 1 + 2 * real + said).sum(-1)
    return out


def paired_variance(codes: np.ndarray) -> np.ndarray:
    """``s_ij²[..., i, j] = Σ_e (u_ie − u_je)² + x_i + x_j``, ``x = max(floor − Σ_e u², 0)``."""
    u = influence(codes)
    extra = np.maximum(variance(tables(codes)) - (u * u).sum(-1), 0.0)
    d = u[..., :, None, :] - u[..., None, :, :]
    return (d * d).sum(-1) + extra[..., :, None] + extra[..., None, :]


def paired_stats(codes: np.ndarray, reps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bootstrap maxima of runs on one test set from replicate codes ``reps[M, R, E]``."""
    _, truth = law(tables(codes))
    err = informedness(tables(reps)) - truth[None, :]
    return max_stats(err, paired_variance(reps))


def select(
    theta: np.ndarray, pair_var: np.ndarray, stat_abs: np.ndarray, stat_vs: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(in_set, p_best, rank_low, rank_high)`` from the bootstrap maxima: the rank
    intervals' critical value is the Monte-Carlo ``1 − α`` quantile of ``stat_abs``;
    the best set steps down over candidate sets from every run."""
    r, m = len(theta), len(stat_abs)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (theta[None, :] - theta[:, None]) / np.sqrt(pair_var)
    np.fill_diagonal(t, 0.0)
    top = np.sort(stat_abs)
    c = top[min(m - 1, max(0, math.ceil((1 - alpha) * (m + 1)) - 1))]
    low, high = 1.0 + (t > c).sum(axis=1), r - (-t > c).sum(axis=1)
    np.fill_diagonal(t, -np.inf)
    tmax = np.maximum(t.max(axis=1), 0.0)
    cand = np.arange(r)
    while True:
        worst = stat_vs[:, cand].max(axis=1)
        p = np.minimum(1.0, (1.0 + (worst[None, :] >= tmax[:, None]).sum(axis=1)) / (1.0 + m))
        p[tmax <= 0] = 1.0  # nothing is ahead of a run with no positive gap
        keep = cand[p[cand] > alpha]
        if len(keep) == len(cand) or len(keep) == 0:
            break
        cand = keep
    return p > alpha, p, low, high
