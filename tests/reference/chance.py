"""Plain references for the chance tests ``p_informedness`` and ``p_markedness`` (spec §3).

Written from the definitions, not from the kernel: the 2×2 exact mid-p from
:mod:`scipy.stats.hypergeom` over the whole support, the normal test from the
K²×K² covariance matrix of the cells under the permutation null, and a Monte
Carlo permutation test that shuffles the predictions and recomputes B or M.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

#: below this variance of the hypergeometric cell batcheval sums the tail exactly (the documented rule)
EXACT_VARIANCE = 100.0


def bookmaker(table: np.ndarray, which: str) -> float:
    """Informedness (``which="informedness"``) or markedness of a K×K table, from its definition."""
    t = np.asarray(table, dtype=float)
    if which == "markedness":
        t = t.T  # markedness is informedness with real and predicted exchanged
    n = t.sum()
    real, pred = t.sum(1), t.sum(0)
    total = 0.0
    for k in range(len(t)):
        if real[k] < n:
            total += (t[k, k] - real[k] * pred[k] / n) / (n - real[k])
    return total


def midp_2x2(tp: int, n: int, rp: int, pp: int) -> float:
    """Two-sided mid-p of cell tp: P(|X − μ| > |tp − μ|) + ½ P(|X − μ| = |tp − μ|), X hypergeometric."""
    if n == 0:
        return math.nan
    if rp in (0, n) or pp in (0, n):
        return 1.0
    lo, hi = max(0, pp - (n - rp)), min(rp, pp)
    x = np.arange(lo, hi + 1)
    pmf = stats.hypergeom.pmf(x, n, rp, pp)
    dist = np.abs(n * x - rp * pp)  # n·|x − μ|, integers
    d = abs(n * tp - rp * pp)
    return float(min(1.0, pmf[dist > d].sum() + 0.5 * pmf[dist == d].sum()))


def pearson_n1_2x2(tp: int, fp: int, fn: int, tn: int) -> float:
    """Pearson's χ² without continuity correction times (N − 1)/N, referred to χ²(1)."""
    n = tp + fp + fn + tn
    chi2 = stats.chi2_contingency([[tn, fp], [fn, tp]], correction=False)[0]
    return float(stats.chi2.sf(chi2 * (n - 1) / n, 1))


def chance_2x2(tp: int, fp: int, fn: int, tn: int) -> float:
    """The documented rule: exact mid-p while Var(tp) ≤ EXACT_VARIANCE, else the N − 1 χ² test."""
    n, rp, pp = tp + fp + fn + tn, tp + fn, tp + fp
    if n == 0:
        return math.nan
    if rp in (0, n) or pp in (0, n):
        return 1.0
    var = rp * (n - rp) * pp * (n - pp) / (n * n * (n - 1))
    return midp_2x2(tp, n, rp, pp) if var <= EXACT_VARIANCE else pearson_n1_2x2(tp, fp, fn, tn)


def cell_covariance(real: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Cov(c_ij, c_kl) of the K² cells given the margins, as a K²×K² matrix (row-major cells)."""
    n = float(real.sum())
    k = len(real)
    eye = np.eye(k)
    a = real[:, None] * (eye * n - real[None, :])  # r_i (δ_ik n − r_k)
    b = pred[:, None] * (eye * n - pred[None, :])  # p_j (δ_jl n − p_l)
    cov = np.einsum("ik,jl->ijkl", a, b) / (n * n * (n - 1))
    return cov.reshape(k * k, k * k)


def chance_multiclass(table: np.ndarray, which: str) -> float:
    """p_informedness / p_markedness of a K×K table by the documented rule.

    One varying diagonal cell, or a 2×2 table inside the K×K one: :func:`chance_2x2`.
    Otherwise a normal test of B (or M), a linear form in the cells, with the
    variance ``wᵀ Σ w`` from :func:`cell_covariance`.
    """
    t = np.asarray(table, dtype=np.int64)
    n = int(t.sum())
    if n == 0:
        return math.nan
    real, pred = t.sum(1), t.sum(0)
    varying = [k for k in range(len(t)) if 0 < real[k] < n and 0 < pred[k] < n]
    if not varying:
        return 1.0
    if len(varying) == 1 or (len(varying) == 2 and (real > 0).sum() == 2 and (pred > 0).sum() == 2):
        k = varying[0]
        tp, rp, pp = int(t[k, k]), int(real[k]), int(pred[k])
        return chance_2x2(tp, pp - tp, rp - tp, n - rp - pp + tp)
    margin = real if which == "informedness" else pred
    weights = np.zeros((len(t), len(t)))
    for k in range(len(t)):
        if margin[k] < n:
            weights[k, k] = 1.0 / (n - margin[k])
    w = weights.ravel()
    var = float(w @ cell_covariance(real.astype(float), pred.astype(float)) @ w)
    stat = bookmaker(t, which)
    return float(2 * stats.norm.sf(abs(stat) / math.sqrt(var)))


def permutation_p(table: np.ndarray, which: str, n_perm: int, rng: np.random.Generator) -> float:
    """Monte Carlo permutation mid-p: shuffle the predictions against the labels, recompute B or M."""
    t = np.asarray(table, dtype=np.int64)
    k = len(t)
    labels = np.repeat(np.arange(k), t.sum(1))
    preds = np.concatenate([np.repeat(np.arange(k), t[i]) for i in range(k)])
    observed = abs(bookmaker(t, which))
    shuffled = rng.permuted(np.broadcast_to(preds, (n_perm, len(preds))), axis=1)
    cells = np.zeros((n_perm, k * k), dtype=np.int64)
    np.add.at(cells, (np.arange(n_perm)[:, None], labels[None, :] * k + shuffled), 1)
    values = np.abs([bookmaker(c.reshape(k, k), which) for c in cells])
    tol = 1e-12 * max(1.0, observed)
    return float(((values > observed + tol).sum() + 0.5 * (np.abs(values - observed) <= tol).sum()) / n_perm)
