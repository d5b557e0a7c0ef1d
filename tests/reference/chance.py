"""Plain references for the chance tests ``p_informedness`` and ``p_markedness`` (spec §3).

Written from the definitions, not from the kernel: the 2×2 exact mid-p from
:mod:`scipy.stats.hypergeom` over the whole support, the normal test from the
K²×K² covariance matrix of the cells under the permutation null, and a Monte
Carlo permutation test that shuffles the predictions and recomputes B or M.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats

#: from 2^53 examples, above this variance of the cell batcheval takes the z test (the documented rule)
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


def bookmakers(tables: np.ndarray, which: str) -> np.ndarray:
    """:func:`bookmaker` of a stack of tables [G, K, K] at once, by the same definition."""
    t = np.asarray(tables, dtype=float)
    if which == "markedness":
        t = np.swapaxes(t, 1, 2)
    n = t.sum(axis=(1, 2))[:, None]
    real, pred = t.sum(2), t.sum(1)
    diag = np.diagonal(t, axis1=1, axis2=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(real < n, (diag - real * pred / n) / (n - real), 0.0)
    return terms.sum(axis=1)


def midp_2x2(tp: int, n: int, rp: int, pp: int) -> float:
    """Two-sided mid-p of cell tp: P(|X − μ| > |tp − μ|) + ½ P(|X − μ| = |tp − μ|), X hypergeometric."""
    if n == 0:
        return math.nan
    if rp in (0, n) or pp in (0, n):
        return 1.0
    lo, hi = max(0, pp - (n - rp)), min(rp, pp)
    # beyond 40 standard deviations of the mean the pmf is below e^-800 of its peak: the support of
    # a table of 8e9 examples (3e9 values, 24 GB of arange) cut to what carries any probability
    sd = math.sqrt(rp * (n - rp) * pp * (n - pp) / (n * n * (n - 1))) if n > 1 else 0.0
    mean = rp * pp / n
    lo, hi = max(lo, math.floor(mean - 40 * sd - 1)), min(hi, math.ceil(mean + 40 * sd + 1))
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
    """The documented rule: the exact mid-p at any variance below 2^53 examples (the N − 1 χ² test
    only from there, above EXACT_VARIANCE)."""
    n, rp, pp = tp + fp + fn + tn, tp + fn, tp + fp
    if n == 0:
        return math.nan
    if rp in (0, n) or pp in (0, n):
        return 1.0
    var = rp * (n - rp) * pp * (n - pp) / (n * n * (n - 1))
    if n >= 1 << 53 and var > EXACT_VARIANCE:
        return pearson_n1_2x2(tp, fp, fn, tn)
    return midp_2x2(tp, n, rp, pp)


def cell_covariance(real: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Cov(c_ij, c_kl) of the K² cells given the margins, as a K²×K² matrix (row-major cells)."""
    n = float(real.sum())
    k = len(real)
    eye = np.eye(k)
    a = real[:, None] * (eye * n - real[None, :])  # r_i (δ_ik n − r_k)
    b = pred[:, None] * (eye * n - pred[None, :])  # p_j (δ_jl n − p_l)
    cov = np.einsum("ik,jl->ijkl", a, b) / (n * n * (n - 1))
    return cov.reshape(k * k, k * k)


#: batcheval enumerates a small table while it has at most this many tables of its margins
EXACT_TABLES = 30_000


def tables_with_margins(real: np.ndarray, pred: np.ndarray, limit: int | None = None) -> np.ndarray | None:
    """Every table of non-negative integers with these row and column sums, as [T, K, K].

    Built row by row: each partial table is extended by every split of the next row's sum over
    the columns that still fits them; the last row is what the columns have left. None when there
    are more than ``limit`` tables.
    """
    real, pred = [int(v) for v in real], [int(v) for v in pred]
    k = len(pred)
    tables = np.zeros((1, 0, k), dtype=np.int64)
    left = np.array([pred], dtype=np.int64)
    for r in real[:-1]:
        splits = np.array(
            [s for s in itertools.product(range(r + 1), repeat=k) if sum(s) == r], dtype=np.int64
        ).reshape(-1, k)
        fits = (splits[None, :, :] <= left[:, None, :]).all(axis=2)
        which, split = np.nonzero(fits)
        tables = np.concatenate([tables[which], splits[split][:, None, :]], axis=1)
        left = left[which] - splits[split]
        if limit is not None and len(tables) > limit:
            return None
    return np.concatenate([tables, left[:, None, :]], axis=1)


def exact_midp_multiclass(table: np.ndarray, which: str) -> float | None:
    """Two-sided permutation mid-p of B = 0 (or M = 0), summed over every table with the margins;
    None when they are more than :data:`EXACT_TABLES`, or could be by the documented bound
    (batcheval then shuffles).

    A table's probability under the permutation null is Π r_i! Π p_j! / (n! Π c_ij!).
    """
    t = np.asarray(table, dtype=np.int64)
    real, pred, n = t.sum(1), t.sum(0), int(t.sum())
    # the documented shortcut: no enumeration when the rows' splits over the columns, all rows but
    # the largest, could make more than 20 × EXACT_TABLES tables
    rows, n_cols = sorted(int(v) for v in real if v > 0), int((pred > 0).sum())
    if math.prod(math.comb(r + n_cols - 1, n_cols - 1) for r in rows[:-1]) > 20 * EXACT_TABLES:
        return None
    others = tables_with_margins(real, pred, EXACT_TABLES)
    if others is None:
        return None
    log_const = sum(math.lgamma(v + 1) for v in (*real, *pred)) - math.lgamma(n + 1)
    log_fact = np.array([math.lgamma(v + 1) for v in range(n + 1)])
    prob = np.exp(log_const - log_fact[others].sum(axis=(1, 2)))
    observed = abs(bookmaker(t, which))
    d = np.abs(bookmakers(others, which)) - observed
    tol = 1e-9 * (observed + 1.0)
    return float(min(1.0, prob[d > tol].sum() + 0.5 * prob[np.abs(d) <= tol].sum()))


def chance_multiclass(table: np.ndarray, which: str) -> float | None:
    """p_informedness / p_markedness of a K×K table by the documented rule.

    One varying diagonal cell, or a 2×2 table inside the K×K one: :func:`chance_2x2`. Up to 12
    examples the permutation mid-p (:func:`exact_midp_multiclass`). Above 60 examples, or where
    the z test of B or of M is below 1e-4, :func:`z_multiclass`. Otherwise the permutation mid-p
    again; None where batcheval shuffles instead (too many tables to enumerate).
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
    other = "markedness" if which == "informedness" else "informedness"
    z_p, z_other = z_multiclass(t, which), z_multiclass(t, other)
    if n <= 12:  # every table this small is enumerated, where its tables are few enough
        exact = exact_midp_multiclass(t, which)
        if exact is not None:
            return exact
    if n > 60 or max(z_p, z_other) < 1e-4:  # large, or far from chance: the z test
        return z_p
    # None: too many tables to enumerate (batcheval shuffles; compare with permutation_p)
    return exact_midp_multiclass(t, which) if n > 12 else None


def z_multiclass(table: np.ndarray, which: str) -> float:
    """The normal test of B (or M), a linear form in the cells, with the variance ``wᵀ Σ w`` of
    :func:`cell_covariance`."""
    t = np.asarray(table, dtype=np.int64)
    n = int(t.sum())
    real, pred = t.sum(1), t.sum(0)
    margin = real if which == "informedness" else pred
    weights = np.zeros((len(t), len(t)))
    for k in range(len(t)):
        if margin[k] < n:
            weights[k, k] = 1.0 / (n - margin[k])
    w = weights.ravel()
    var = float(w @ cell_covariance(real.astype(float), pred.astype(float)) @ w)
    return float(2 * stats.norm.sf(abs(bookmaker(t, which)) / math.sqrt(var))) if var > 0 else 1.0


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
    values = np.abs(bookmakers(cells.reshape(n_perm, k, k), which))
    tol = 1e-12 * max(1.0, observed)
    return float(((values > observed + tol).sum() + 0.5 * (np.abs(values - observed) <= tol).sum()) / n_perm)
