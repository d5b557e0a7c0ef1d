"""Exact coverage of candidate 95 % intervals for binary informedness, n ≤ 100.

Usage::

    python benchmarks/calibration_unconditional.py [--max-n 100] [--methods mn,cz_midp,e_midp,...]
        [--widths] [--widths-max-n 30] [--dense] [--out docs/calibration_unconditional.md]

Why. Counted exactly, batcheval's default interval for binary informedness (Miettinen–Nurminen)
is outside [0.935, 0.965] at two balanced grid points of benchmarks/calibration_intervals.py
(n = 20, B = 0.95: 0.9340; n = 30, B = 0.8: 0.9672; docs/calibration_intervals.md, "Points
outside the band, and why"), and no common scale of its half-widths fixes both. This benchmark
asks whether another standard interval for a difference of two proportions does, in particular
the exact unconditional ones, which are built for small samples.

Model. That of benchmarks/calibration_intervals.py with two classes: an example is positive
with probability ``prevalence``; with probability ``B`` the prediction is its class, otherwise
a guess drawn from the class shares. Informedness (tpr − fpr) is exactly ``B``. Given the class
sizes ``m1`` (positives) and ``m0 = n − m1``, the true and false positives are independent
binomials (m1, tpr) and (m0, fpr), so the estimate is a difference of two independent
proportions and every interval for ``p1 − p0`` applies. The coverage at a grid point is summed
over every class size 1 ≤ m1 ≤ n − 1 (informedness is undefined with an empty class; the sum is
divided by the probability of that) and every pair of counts, with their binomial probabilities:
no Monte-Carlo error. Grid: n ∈ {10, 20, 30, 60, 100} (up to ``--max-n``), prevalence ∈ {0.02,
0.1, 0.3, 0.5}, B ∈ {0, 0.3, 0.6, 0.8, 0.95}; the smallest expected margin is
``n · min(min_k r_k, min_k c_k)``.

Candidates (``--methods``, comma-separated; default all):

- ``mn``: the default, Miettinen & Nurminen's score interval
  (:func:`batcheval.inference.intervals.score_difference`; variance at the restricted
  maximum-likelihood proportions under ``δ``, times ``N/(N − 1)``).
- ``mn_nofactor``: the same score interval without ``N/(N − 1)`` (Mee 1984), by bisection.
- ``newcombe``, ``newcombe_cc``: Newcombe's (1998) hybrid score interval from Wilson's
  intervals of the two proportions, without and with continuity correction (his methods 10, 11).
- ``agresti_caffo``: one success and one failure added to each group, Wald interval.
- ``cz_midp``, ``cz_exact``: Chan & Zhang's (1999) exact unconditional interval: the ``δ`` that
  neither one-sided test at α/2 rejects, tables ordered by the score statistic above (with
  ``N/(N − 1)``), the p-value the largest tail probability over the nuisance ``p0`` (a
  200-point grid over its range under ``δ``, refined by 21 points around each maximiser);
  mid-p counts half the probability of the tables tied with the observed statistic.
- ``e_midp``, ``e_exact``: Krishnamoorthy & Thomson's (2004) E-test inverted the same way: the
  tail probability with the nuisance at the restricted maximum-likelihood estimate of the
  observed table under ``δ`` (an exact parametric bootstrap p-value).
- ``scas``: Laud's (2017, Pharm. Stat. 16:334) skewness-corrected asymptotic score interval,
  the default's score ``s`` (with ``N/(N − 1)``) corrected to the ``z`` solving
  ``s = z + A(z² − 1)``, ``A = μ3 / (6 V^{3/2})`` with the third central moment ``μ3`` of
  ``p̂1 − p̂0`` at the same restricted estimates; built for equal tails.
- ``mover_j``: the MOVER (Newcombe's construction) from Jeffreys' equal-tailed intervals of
  the two proportions (Laud 2017's MOVER-J with the observed proportions as the point
  estimates), ends 0 and 1 at 0 and ``m`` successes.
- ``mn_mj_mean``: the mean of the default's ends and MOVER-J's, an ad-hoc candidate with no
  theory behind it, kept to show what a choice tuned to this grid does off it (``--dense``).

Dense grid (``--dense``): the closed-form candidates at n ∈ {10, 15, 20, 25, 30, 40, 50, 60,
80, 100}, prevalence ∈ {0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5} and B ∈ {0, 0.1, …, 0.9, 0.75,
0.85, 0.95}: the grid points above are a sample of a coverage curve that oscillates with the
parameters, and a candidate that suits the sample may not suit the curve.

The coverage of the test-based candidates needs no interval: a table's set of accepted ``δ``
holds ``B`` iff neither one-sided test rejects ``δ = B``. That set need not be an interval;
``--widths`` counts the tables where it is not.

Widths (``--widths``, slow: about a minute of CPU up to n = 30, the default; more beyond):
the test-based intervals' ends on a ``δ`` grid of step 0.01 with the p-value's crossing of α/2
interpolated linearly (Chan–Zhang with a 120-point nuisance grid refined by 11), and, at every
grid point with margin ≥ 5 and n ≤ ``--widths-max-n``, the probability-weighted median over the
tables (those with probability above 1e-9 at some point of that n) of each candidate's width
divided by the default's.

Targets (issue 20): coverage within [0.935, 0.965] wherever the smallest margin is at least 10,
at least 0.92 from 5.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.special import gammaln
from scipy.stats import beta as beta_dist
from scipy.stats import binom, norm

from batcheval.inference.intervals import score_difference

NS = (10, 20, 30, 60, 100)
PREVALENCES = (0.02, 0.1, 0.3, 0.5)
INFORMEDNESS = (0.0, 0.3, 0.6, 0.8, 0.95)
ALPHA = 0.05
Z = float(norm.ppf(1 - ALPHA / 2))
#: Tolerance of "the interval holds the truth": ends computed by bisection or in closed form can
#: land on a grid value of B up to rounding.
TOL = 1e-12
#: Candidates in table order, with their column labels.
METHODS = {
    "mn": "MN (default)",
    "mn_nofactor": "MN without N/(N−1)",
    "newcombe": "Newcombe",
    "newcombe_cc": "Newcombe cc",
    "agresti_caffo": "Agresti–Caffo",
    "cz_midp": "Chan–Zhang mid-p",
    "cz_exact": "Chan–Zhang exact",
    "e_midp": "E-test mid-p",
    "e_exact": "E-test exact",
    "scas": "SCAS",
    "mover_j": "MOVER-J",
    "mn_mj_mean": "mean of MN and MOVER-J (ad hoc)",
}
CLOSED = ("mn", "mn_nofactor", "newcombe", "newcombe_cc", "agresti_caffo", "scas", "mover_j", "mn_mj_mean")
DENSE_NS = (10, 15, 20, 25, 30, 40, 50, 60, 80, 100)
DENSE_PREVALENCES = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
DENSE_INFORMEDNESS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
#: The test-based families: each computes its mid-p and exact p-values together.
TESTS = {"max": ("cz_midp", "cz_exact"), "est": ("e_midp", "e_exact")}

Interval = tuple[np.ndarray, np.ndarray]


def grid_points(
    ns: tuple[int, ...] = NS,
    prevalences: tuple[float, ...] = PREVALENCES,
    informedness: tuple[float, ...] = INFORMEDNESS,
) -> list[dict]:
    """Every grid point with its smallest expected margin and its true tpr and fpr."""
    pts = []
    for n in ns:
        for prev in prevalences:
            for b in informedness:
                r = np.array([1 - prev, prev])
                pop = r[:, None] * (b * np.eye(2) + (1 - b) * r[None, :])
                # rounded: 10 · 0.5 of a product of shares can come out as 4.999999999999999
                margin = round(n * min(pop.sum(1).min(), pop.sum(0).min()), 9)
                tpr = pop[1, 1] / r[1]
                fpr = pop[0, 1] / r[0]
                pts.append({"n": n, "prev": prev, "B": b, "margin": margin, "tpr": tpr, "fpr": fpr})
    return pts


# ---------------------------------------------------------------- score statistic


def restricted_q0(x1: np.ndarray, n1: int, x0: np.ndarray, n0: int, delta: float | np.ndarray) -> Interval:
    """Maximum-likelihood ``(p0, p1)`` under ``p1 − p0 = δ`` (Miettinen & Nurminen's cubic, in the
    trigonometric form of :mod:`batcheval.kernels.score_diff`, whose jitted function takes one
    table and one ``δ`` at a time; here whole arrays of tables or of ``δ``)."""
    x1, x0 = np.asarray(x1, float), np.asarray(x0, float)
    n1, n0 = float(n1), float(n0)
    delta = np.asarray(delta, float)
    N = n1 + n0
    if np.all(delta == 0):
        q0 = (x1 + x0) / N + 0 * delta
    else:
        a = N
        b = (n1 + 2.0 * n0) * delta - N - (x1 + x0)
        c = (n0 * delta - N - 2.0 * x0) * delta + (x1 + x0)
        d = x0 * delta * (1.0 - delta)
        b3 = b / (3.0 * a)
        v = b3**3 - b * c / (6.0 * a * a) + d / (2.0 * a)
        u = np.sqrt(np.maximum(b3 * b3 - c / (3.0 * a), 0.0))
        u = np.where(v < 0, -u, u)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.clip(v / u**3, -1, 1)
            q0 = np.where(u == 0, -b3, 2.0 * u * np.cos((np.pi + np.arccos(ratio)) / 3.0) - b3)
        q0 = np.where(delta == 0, (x1 + x0) / N, q0)
    q1 = np.clip(q0 + delta, 0, 1)
    q0 = np.clip(q0, 0, 1)
    return q0, q1


def score_statistic(
    x1: np.ndarray,
    n1: int,
    x0: np.ndarray,
    n0: int,
    delta: float | np.ndarray,
    factor: bool = True,
    skew: bool = False,
) -> np.ndarray:
    """``(p̂1 − p̂0 − δ) / sd`` with the variance at the restricted estimates (times ``N/(N − 1)``
    if ``factor``); ±inf where that variance is 0 and the numerator is not, 0 where both are.
    ``skew``: Laud's skewness-corrected ``z`` (``scas`` in the module docstring)."""
    q0, q1 = restricted_q0(x1, n1, x0, n0, delta)
    N = n1 + n0
    var = q1 * (1 - q1) / n1 + q0 * (1 - q0) / n0
    if factor:
        var = var * N / (N - 1)
    num = np.asarray(x1, float) / n1 - np.asarray(x0, float) / n0 - delta
    # x1/n1 − x0/n0 can miss δ by an ulp where they are equal: that table is at the null
    num = np.where(np.abs(num) < 1e-14, 0.0, num)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = num / np.sqrt(np.maximum(var, 0))
    t = np.where(num == 0, 0.0, t)
    with np.errstate(invalid="ignore"):
        t = np.where((var <= 1e-300) & (num != 0), np.sign(num) * np.inf, t)
    if not skew:
        return t
    mu3 = q1 * (1 - q1) * (1 - 2 * q1) / n1**2 - q0 * (1 - q0) * (1 - 2 * q0) / n0**2
    with np.errstate(invalid="ignore", divide="ignore"):
        a = mu3 / (6 * np.maximum(var, 0) ** 1.5)
    a = np.where(np.isfinite(a) & (mu3 != 0) & np.isfinite(t), a, 0.0)
    disc = 1 + 4 * a * (t + a)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (-1 + np.sqrt(np.maximum(disc, 0))) / (2 * a)
    # a negative discriminant: Laud's simplified correction at the quantile
    z = np.where(disc < 0, t - (Z * Z - 1) * a, z)
    return np.where(a == 0, t, z)


# ---------------------------------------------------------------- unconditional p-values


def binom_pmf_matrix(m: int, p: np.ndarray) -> np.ndarray:
    """``pmf[g, x]`` of Binomial(m, p[g]) for x = 0..m, exact 0 and 1 at p ∈ {0, 1} (where
    scipy's log-space form would give NaN)."""
    p = np.asarray(p, float)[:, None]
    x = np.arange(m + 1)[None, :]
    logc = gammaln(m + 1) - gammaln(x + 1) - gammaln(m - x + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.where(x > 0, x * np.log(p), 0.0) + np.where(m - x > 0, (m - x) * np.log1p(-p), 0.0)
    return np.exp(logc + lp)


def group_ties(tsorted: np.ndarray) -> np.ndarray:
    """Start indices of the groups of equal sorted statistics: tables with the same statistic are
    equally extreme, and statistics that differ only by rounding must count as ties."""
    a, b = tsorted[:-1], tsorted[1:]
    with np.errstate(invalid="ignore"):
        same = (a == b) | (np.abs(b - a) <= 1e-9 * (1 + np.abs(a)))
    return np.flatnonzero(np.concatenate([[True], ~same]))


def tail_probs(P: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``P[g, k]``: probabilities in sorted-statistic order; per tie group the mass, P(T ≥ t) and
    P(T ≤ t)."""
    g = np.add.reduceat(P, starts, axis=1)
    ge = np.cumsum(g[:, ::-1], axis=1)[:, ::-1]
    le = np.cumsum(g, axis=1)
    return g, ge, le


def _sorted_tables(m1: int, m0: int, delta: float) -> tuple[np.ndarray, ...]:
    """Every table's counts and statistic, its order and tie groups, and each table's group."""
    X1, X0 = np.meshgrid(np.arange(m1 + 1), np.arange(m0 + 1), indexing="ij")
    x1, x0 = X1.ravel(), X0.ravel()
    T = score_statistic(x1, m1, x0, m0, delta)
    order = np.argsort(T, kind="stable")
    starts = group_ties(T[order])
    grp = np.zeros(len(T), int)
    grp[starts[1:]] = 1
    grp = np.cumsum(grp)
    return x1, x0, order, starts, grp


def pvalues_max(m1: int, m0: int, delta: float, G: int = 200, refine: int = 21) -> tuple[np.ndarray, ...]:
    """Chan–Zhang one-sided p-values of every table, the tail maximised over the nuisance p0:
    mid-p upper, mid-p lower, exact upper, exact lower, each ``(m1 + 1, m0 + 1)``. Upper is the
    evidence for ``p1 − p0 > δ``."""
    x1, x0, order, starts, grp = _sorted_tables(m1, m0, delta)
    i1, i0 = x1[order], x0[order]
    lo, hi = max(0.0, -delta), min(1.0, 1.0 - delta)

    def evalp(p0s: np.ndarray) -> Interval:
        # mid-p and exact side by side, so one maximisation (and one refinement) serves both
        P = binom_pmf_matrix(m1, p0s + delta)[:, i1] * binom_pmf_matrix(m0, p0s)[:, i0]
        g, ge, le = tail_probs(P, starts)
        return np.concatenate([ge - 0.5 * g, ge], 1), np.concatenate([le - 0.5 * g, le], 1)

    if hi - lo < 1e-15:
        u, low = evalp(np.array([lo]))
        U, L = u.max(0), low.max(0)
    else:
        p0s = np.linspace(lo, hi, G)
        u, low = evalp(p0s)
        U, L = u.max(0), low.max(0)
        if refine:
            # the maximum over a grid misses a peak between its points by up to a step
            idx = np.unique(np.concatenate([u.argmax(0), low.argmax(0)]))
            h = p0s[1] - p0s[0]
            fine = (p0s[idx][:, None] + np.linspace(-h, h, refine)[None, :]).ravel()
            fine = np.unique(np.clip(fine, lo, hi))
            for k in range(0, len(fine), 2000):  # bounds the memory of one evaluation
                uf, lf = evalp(fine[k : k + 2000])
                U = np.maximum(U, uf.max(0))
                L = np.maximum(L, lf.max(0))
    ng = len(starts)
    res = []
    for part in (slice(0, ng), slice(ng, 2 * ng)):
        out_u = np.empty(len(grp))
        out_l = np.empty(len(grp))
        out_u[order] = U[part][grp]
        out_l[order] = L[part][grp]
        res += [out_u.reshape(m1 + 1, m0 + 1), out_l.reshape(m1 + 1, m0 + 1)]
    return tuple(res)


def pvalues_est(m1: int, m0: int, delta: float, obs_mask: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """E-test one-sided p-values, the nuisance p0 at the restricted estimate of the observed
    table under ``δ``: mid-p upper, mid-p lower, exact upper, exact lower, each
    ``(m1 + 1, m0 + 1)``; only the tables in ``obs_mask`` (NaN elsewhere)."""
    x1, x0, order, starts, grp = _sorted_tables(m1, m0, delta)
    i1, i0 = x1[order], x0[order]
    grp_of = np.empty(len(grp), int)
    grp_of[order] = grp
    obs = np.arange(len(grp)) if obs_mask is None else np.flatnonzero(obs_mask.ravel())
    out = [np.full(len(grp), np.nan) for _ in range(4)]
    q0, q1 = restricted_q0(x1[obs], m1, x0[obs], m0, delta)
    for k in range(0, len(obs), 1500):  # one distribution per observed table: bounds the memory
        sl = slice(k, k + 1500)
        P = binom_pmf_matrix(m1, q1[sl])[:, i1] * binom_pmf_matrix(m0, q0[sl])[:, i0]
        g, ge, le = tail_probs(P, starts)
        r = np.arange(P.shape[0])
        gi = grp_of[obs[sl]]
        gg, u, low = g[r, gi], ge[r, gi], le[r, gi]
        out[0][obs[sl]] = u - 0.5 * gg
        out[1][obs[sl]] = low - 0.5 * gg
        out[2][obs[sl]] = u
        out[3][obs[sl]] = low
    return tuple(v.reshape(m1 + 1, m0 + 1) for v in out)


# ---------------------------------------------------------------- closed-form intervals


def wilson(x: np.ndarray, m: int, z: float = Z) -> Interval:
    """Wilson's score interval of ``x / m``."""
    x = np.asarray(x, float)
    p = x / m
    c = (p + z * z / (2 * m)) / (1 + z * z / m)
    h = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return c - h, c + h


def wilson_cc(x: np.ndarray, m: int, z: float = Z) -> Interval:
    """Wilson's score interval with continuity correction (Newcombe 1998, method 4)."""
    x = np.asarray(x, float)
    p = x / m
    q = 1 - p
    den = 2 * (m + z * z)
    with np.errstate(invalid="ignore"):
        root_lo = np.sqrt(np.maximum(z * z - 2 - 1 / m + 4 * p * (m * q + 1), 0))
        root_hi = np.sqrt(np.maximum(z * z + 2 - 1 / m + 4 * p * (m * q - 1), 0))
        lo = (2 * m * p + z * z - 1 - z * root_lo) / den
        hi = (2 * m * p + z * z + 1 + z * root_hi) / den
    lo = np.where(x == 0, 0.0, np.clip(lo, 0, 1))
    hi = np.where(x == m, 1.0, np.clip(hi, 0, 1))
    return lo, hi


def newcombe(x1: np.ndarray, m1: int, x0: np.ndarray, m0: int, cc: bool = True) -> Interval:
    """Newcombe's hybrid score interval of ``x1/m1 − x0/m0`` (methods 10 and 11)."""
    f = wilson_cc if cc else wilson
    l1, u1 = f(x1, m1)
    l0, u0 = f(x0, m0)
    p1, p0 = np.asarray(x1) / m1, np.asarray(x0) / m0
    d = p1 - p0
    return d - np.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2), d + np.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2)


def agresti_caffo(x1: np.ndarray, m1: int, x0: np.ndarray, m0: int) -> Interval:
    """Agresti & Caffo's interval: a success and a failure added to each group, then Wald."""
    p1 = (np.asarray(x1) + 1.0) / (m1 + 2)
    p0 = (np.asarray(x0) + 1.0) / (m0 + 2)
    se = np.sqrt(p1 * (1 - p1) / (m1 + 2) + p0 * (1 - p0) / (m0 + 2))
    d = p1 - p0
    return np.clip(d - Z * se, -1, 1), np.clip(d + Z * se, -1, 1)


def jeffreys(x: np.ndarray, m: int) -> Interval:
    """Jeffreys' equal-tailed interval of ``x / m`` (Beta(x + ½, m − x + ½) quantiles), ends 0 and
    1 at ``x = 0`` and ``x = m``."""
    x = np.asarray(x, float)
    lo = np.where(x == 0, 0.0, beta_dist.ppf(ALPHA / 2, x + 0.5, m - x + 0.5))
    hi = np.where(x == m, 1.0, beta_dist.ppf(1 - ALPHA / 2, x + 0.5, m - x + 0.5))
    return lo, hi


def mover_jeffreys(x1: np.ndarray, m1: int, x0: np.ndarray, m0: int) -> Interval:
    """Newcombe's construction (MOVER) of ``x1/m1 − x0/m0`` from Jeffreys' intervals."""
    l1, u1 = jeffreys(x1, m1)
    l0, u0 = jeffreys(x0, m0)
    p1, p0 = np.asarray(x1) / m1, np.asarray(x0) / m0
    d = p1 - p0
    lo = d - np.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2)
    hi = d + np.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2)
    return np.maximum(lo, -1.0), np.minimum(hi, 1.0)


def mn_mover_mean(x1: np.ndarray, m1: int, x0: np.ndarray, m0: int) -> Interval:
    """The mean of the default's ends and MOVER-J's (ad hoc, see the module docstring)."""
    lo1, hi1 = score_difference(x1, np.full(np.size(x1), m1), x0, np.full(np.size(x0), m0))
    lo2, hi2 = mover_jeffreys(x1, m1, x0, m0)
    return 0.5 * (lo1 + lo2), 0.5 * (hi1 + hi2)


def mn_interval(
    x1: np.ndarray,
    m1: int,
    x0: np.ndarray,
    m0: int,
    factor: bool = True,
    iters: int = 60,
    skew: bool = False,
) -> Interval:
    """The score interval by bisection, every table at once; ``factor=False`` drops ``N/(N − 1)``,
    ``skew=True`` makes it SCAS. 60 halvings of a range of at most 2 reach below 1e-17."""
    x1 = np.asarray(x1, float)
    x0 = np.asarray(x0, float)
    d = x1 / m1 - x0 / m0
    out = []
    for side in (-1, 1):
        inside = d.copy()
        outside = np.full_like(d, float(side))
        acc_out = np.abs(score_statistic(x1, m1, x0, m0, outside, factor, skew)) <= Z
        for _ in range(iters):
            mid = 0.5 * (inside + outside)
            acc = np.abs(score_statistic(x1, m1, x0, m0, mid, factor, skew)) <= Z
            inside = np.where(acc, mid, inside)
            outside = np.where(acc, outside, mid)
        out.append(np.where(acc_out, float(side), inside))
    return out[0], out[1]


def closed_intervals(
    a: np.ndarray, m1: int, b: np.ndarray, m0: int, methods: list[str]
) -> dict[str, Interval]:
    """The closed-form candidates in ``methods`` for the tables ``(a, b)`` of class sizes
    ``(m1, m0)``."""
    make: dict[str, Callable[[], Interval]] = {
        "mn": lambda: score_difference(a, np.full(a.size, m1), b, np.full(a.size, m0)),
        "mn_nofactor": lambda: mn_interval(a, m1, b, m0, factor=False),
        "newcombe_cc": lambda: newcombe(a, m1, b, m0, cc=True),
        "newcombe": lambda: newcombe(a, m1, b, m0, cc=False),
        "agresti_caffo": lambda: agresti_caffo(a, m1, b, m0),
        "scas": lambda: mn_interval(a, m1, b, m0, skew=True),
        "mover_j": lambda: mover_jeffreys(a, m1, b, m0),
        "mn_mj_mean": lambda: mn_mover_mean(a, m1, b, m0),
    }
    return {name: make[name]() for name in make if name in methods}


# ---------------------------------------------------------------- coverage and widths


def class_weights(pts: list[dict], idx: list[int], n: int, m1: int) -> dict[int, np.ndarray]:
    """``P(m1 positives, x1 true positives, x0 false positives)`` at each point of ``idx``,
    ``[x1, x0]``."""
    m0 = n - m1
    return {
        i: binom.pmf(m1, n, pts[i]["prev"])
        * np.outer(
            binom.pmf(np.arange(m1 + 1), m1, pts[i]["tpr"]), binom.pmf(np.arange(m0 + 1), m0, pts[i]["fpr"])
        )
        for i in idx
    }


def coverage(
    pts: list[dict], max_n: int, methods: list[str], timing: dict[str, float]
) -> dict[str, np.ndarray]:
    """Exact coverage of every method at every grid point with n ≤ ``max_n`` (NaN above)."""
    res = {m: np.full(len(pts), np.nan) for m in methods}
    closed = [m for m in methods if m in CLOSED]
    tests = {kind: names for kind, names in TESTS.items() if set(names) & set(methods)}
    for n in sorted({p["n"] for p in pts if p["n"] <= max_n}):
        idx = [i for i, p in enumerate(pts) if p["n"] == n]
        for m in methods:
            res[m][idx] = 0.0
        for family in (["closed"] if closed else []) + list(tests):
            t0 = time.process_time()
            for m1 in range(1, n):
                m0 = n - m1
                W = class_weights(pts, idx, n, m1)
                if family == "closed":
                    X1, X0 = np.meshgrid(np.arange(m1 + 1), np.arange(m0 + 1), indexing="ij")
                    a, b = X1.ravel(), X0.ravel()
                    for name, (low, high) in closed_intervals(a, m1, b, m0, closed).items():
                        lo, hi = low.reshape(X1.shape), high.reshape(X1.shape)
                        for i in idx:
                            B = pts[i]["B"]
                            res[name][i] += W[i][(lo <= B + TOL) & (hi >= B - TOL)].sum()
                    continue
                for B in INFORMEDNESS:
                    pv = pvalues_max(m1, m0, B) if family == "max" else pvalues_est(m1, m0, B)
                    for name, U, L in ((tests[family][0], pv[0], pv[1]), (tests[family][1], pv[2], pv[3])):
                        if name not in res:
                            continue
                        acc = (U >= ALPHA / 2) & (L >= ALPHA / 2)
                        for i in idx:
                            if pts[i]["B"] == B:
                                res[name][i] += W[i][acc].sum()
            timing[family] = timing.get(family, 0.0) + time.process_time() - t0
            print(f"coverage {family} n = {n}: {time.process_time() - t0:.1f} s CPU", file=sys.stderr)
        for i in idx:
            # informedness is undefined with an empty class: coverage among the tables with both
            defined = 1 - binom.pmf(0, n, pts[i]["prev"]) - binom.pmf(n, n, pts[i]["prev"])
            for m in methods:
                res[m][i] /= defined
    return res


def ends_from_grid(deltas: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval ends from ``f[d, k]`` (the smaller one-sided p-value minus α/2, accepted where
    ≥ 0) on the grid ``deltas``: the outermost accepted values, moved to the interpolated
    crossing towards their rejected neighbours; and whether the accepted set has gaps."""
    acc = f >= 0
    D, K = f.shape
    any_acc = acc.any(0)
    first = np.argmax(acc, 0)
    last = D - 1 - np.argmax(acc[::-1], 0)
    k = np.arange(K)
    lo = deltas[first].copy()
    hi = deltas[last].copy()
    # a crossing between equal values divides by 0; np.where then keeps the grid end
    with np.errstate(divide="ignore", invalid="ignore"):
        j = first - 1
        ok = j >= 0
        f0, f1 = f[np.maximum(j, 0), k], f[first, k]
        step_lo = deltas[first] - deltas[np.maximum(j, 0)]
        lo = np.where(ok, deltas[np.maximum(j, 0)] + (0 - f0) / (f1 - f0) * step_lo, lo)
        j = last + 1
        ok = j <= D - 1
        jj = np.minimum(j, D - 1)
        f0, f1 = f[last, k], f[jj, k]
        hi = np.where(ok, deltas[last] + (f0 - 0) / (f0 - f1) * (deltas[jj] - deltas[last]), hi)
    gaps = (acc.sum(0) != (last - first + 1)) & any_acc
    return np.where(any_acc, lo, np.nan), np.where(any_acc, hi, np.nan), gaps


def widths(
    pts: list[dict], max_n: int, methods: list[str], step: float, timing: dict[str, float]
) -> tuple[dict[str, dict[int, float]], dict[str, int]]:
    """Per method but the default and grid point (margin ≥ 5, n ≤ ``max_n``): the
    probability-weighted median of the width ratio to the default; and per test-based method
    the number of tables (probability > 1e-6 somewhere) whose accepted set has gaps."""
    w_min = 1e-9  # tables below this probability at every point of n cannot move a median
    sel = [i for i, p in enumerate(pts) if p["margin"] >= 5 and p["n"] <= max_n]
    others = [m for m in methods if m != "mn"]
    parts: dict[str, dict[int, list[np.ndarray]]] = {m: {i: [] for i in sel} for m in others}
    tests = {kind: names for kind, names in TESTS.items() if set(names) & set(methods)}
    gaps = {m: 0 for kind in tests for m in TESTS[kind] if m in methods}
    for n in sorted({pts[i]["n"] for i in sel}):
        t0 = time.process_time()
        idx = [i for i in sel if pts[i]["n"] == n]
        for m1 in range(1, n):
            m0 = n - m1
            W = {i: w.ravel() for i, w in class_weights(pts, idx, n, m1).items()}
            wmax = np.max([W[i] for i in idx], 0)
            rel = wmax > w_min
            if not rel.any():
                continue
            X1, X0 = np.meshgrid(np.arange(m1 + 1), np.arange(m0 + 1), indexing="ij")
            a, b = X1.ravel(), X0.ravel()
            mlo, mhi = score_difference(a, np.full(a.size, m1), b, np.full(a.size, m0))
            # the grid reaches 0.12 past the default's ends, far enough for every candidate's
            dmin = max(-1.0, np.floor((mlo[rel].min() - 0.12) / step) * step)
            dmax = min(1.0, np.ceil((mhi[rel].max() + 0.12) / step) * step)
            deltas = np.unique(np.clip(np.round(np.arange(dmin, dmax + step / 2, step), 10), -1, 1))
            # at δ = ±1 the nuisance has no range; the ends at the bound are set below
            dg = np.clip(deltas, -1 + 1e-9, 1 - 1e-9)
            cands = {}
            for kind, names in tests.items():
                F = {nm: np.empty((len(dg), a.size)) for nm in names}
                for d_i, d in enumerate(dg):
                    if kind == "max":
                        mU, mL, eU, eL = pvalues_max(m1, m0, d, G=120, refine=11)
                    else:
                        mU, mL, eU, eL = pvalues_est(m1, m0, d, obs_mask=rel.reshape(X1.shape))
                    F[names[0]][d_i] = np.minimum(mU, mL).ravel() - ALPHA / 2
                    F[names[1]][d_i] = np.minimum(eU, eL).ravel() - ALPHA / 2
                for nm in names:
                    lo, hi, nc = ends_from_grid(deltas, F[nm][:, rel])
                    lo = np.where((lo <= deltas[0] + 1e-12) & (deltas[0] <= -1 + 1e-9), -1.0, lo)
                    hi = np.where((hi >= deltas[-1] - 1e-12) & (deltas[-1] >= 1 - 1e-9), 1.0, hi)
                    if nm in gaps:
                        gaps[nm] += int((nc & (wmax[rel] > 1e-6)).sum())
                    cands[nm] = (lo, hi)
            for nm, (lo, hi) in closed_intervals(a, m1, b, m0, [m for m in others if m in CLOSED]).items():
                cands[nm] = (lo[rel], hi[rel])
            wmn = (mhi - mlo)[rel]
            for i in idx:
                for nm in others:
                    lo, hi = cands[nm]
                    parts[nm][i].append(np.stack([(hi - lo) / wmn, W[i][rel]]))
        timing["widths"] = timing.get("widths", 0.0) + time.process_time() - t0
        print(f"widths n = {n}: {time.process_time() - t0:.1f} s CPU", file=sys.stderr)
    ratios: dict[str, dict[int, float]] = {m: {} for m in others}
    for nm in others:
        for i in sel:
            r, w = np.concatenate(parts[nm][i], 1)
            o = np.argsort(r)
            cw = np.cumsum(w[o])
            ratios[nm][i] = float(r[o][np.searchsorted(cw, 0.5 * cw[-1])])
    return ratios, gaps


# ---------------------------------------------------------------- report


def flagged(p: dict, c: float) -> bool:
    """Outside the band at margin ≥ 10, below the floor of 0.92 at margin 5-10."""
    return not 0.935 <= c <= 0.965 if p["margin"] >= 10 else c < 0.92


def point_row(p: dict, cells: list[str]) -> str:
    return f"| {p['n']} | {p['prev']:.3g} | {p['B']} | {p['margin']:.1f} | " + " | ".join(cells) + " |"


def coverage_table(pts: list[dict], cov: dict[str, np.ndarray], sel: list[int]) -> list[str]:
    out = [
        "| n | prevalence | B | margin | " + " | ".join(METHODS[m] for m in cov) + " |",
        "|---:|---:|---:|---:|" + "---:|" * len(cov),
    ]
    for i in sel:
        p = pts[i]
        cells = [f"{c[i]:.4f}{' ⚠' if flagged(p, c[i]) else ''}" for c in cov.values()]
        out.append(point_row(p, cells))
    return out


def summary_table(
    pts: list[dict], cov: dict[str, np.ndarray], sel: list[int], ratios: dict[str, dict[int, float]] | None
) -> list[str]:
    big = [i for i in sel if pts[i]["margin"] >= 10]
    mid = [i for i in sel if pts[i]["margin"] < 10]
    head = (
        f"| method | in [0.935, 0.965] (margin ≥ 10, of {len(big)}) | below | above "
        "| min coverage (margin ≥ 10) | max coverage (margin ≥ 10) "
        f"| below 0.92 (margin 5-10, of {len(mid)}) | min coverage (margin 5-10) |"
    )
    out = [
        head + (" width / default's (median, max) |" if ratios else ""),
        "|---|" + "---:|" * (7 + bool(ratios)),
    ]
    for m, c in cov.items():
        cb, cm = c[big], c[mid]
        row = (
            f"| {METHODS[m]} | {np.sum((cb >= 0.935) & (cb <= 0.965))} | {np.sum(cb < 0.935)} "
            f"| {np.sum(cb > 0.965)} | {cb.min():.4f} | {cb.max():.4f} | {np.sum(cm < 0.92)} "
            f"| {cm.min():.4f} |"
        )
        if ratios:
            r = [1.0] if m == "mn" else list(ratios[m].values())
            row += f" {np.median(r):.3f}, {np.max(r):.3f} |"
        out.append(row)
    return out


def ratio_table(pts: list[dict], ratios: dict[str, dict[int, float]]) -> list[str]:
    names = list(ratios)
    out = [
        "| n | prevalence | B | margin | " + " | ".join(METHODS[m] for m in names) + " |",
        "|---:|---:|---:|---:|" + "---:|" * len(names),
    ]
    for i in next(iter(ratios.values())):
        p = pts[i]
        out.append(point_row(p, [f"{ratios[m][i]:.3f}" for m in names]))
    return out


def _point(p: dict) -> str:
    return f"n = {p['n']}, prevalence {p['prev']:.3g}, B = {p['B']}"


def verdict(
    pts: list[dict], cov: dict[str, np.ndarray], sel: list[int], ratios: dict[str, dict[int, float]] | None
) -> list[str]:
    """The verdict in sentences, every figure from the tables above; the comparison of the
    candidates needs all of them and the two points the default misses (n ≥ 30)."""
    big = [i for i in sel if pts[i]["margin"] >= 10]
    inside = {m: len(big) - sum(flagged(pts[i], c[i]) for i in big) for m, c in cov.items()}
    above = {m: sum(c[i] > 0.965 for i in big) for m, c in cov.items()}
    best = max(inside.values())
    out = [
        "## Verdict",
        "",
        ("No candidate puts every" if best < len(big) else "A candidate puts every")
        + f" point with a smallest expected margin ≥ 10 ({len(big)} points) in [0.935, 0.965]; most "
        "points in the band: "
        + ", ".join(f"{METHODS[m]} {inside[m]}" for m in cov if inside[m] == best)
        + ".",
        "",
    ]
    if set(cov) != set(METHODS) or max(pts[i]["n"] for i in sel) < 30:
        return out
    mn_out = [i for i in big if flagged(pts[i], cov["mn"][i])]
    hard = next(i for i in big if (pts[i]["n"], pts[i]["prev"], pts[i]["B"]) == (20, 0.5, 0.95))
    tests = [m for names in TESTS.values() for m in names]
    top = [i for i in sel if pts[i]["B"] == 0.95]
    t_cov = np.array([[cov[m][i] for i in top] for m in tests])
    t_below = sum(cov[m][i] < 0.935 for m in tests for i in big)
    nb = np.array([cov["newcombe"][i] for i in sel])
    ac = np.array([cov["agresti_caffo"][i] for i in sel])
    wider = ""
    if ratios:
        r = np.array(list(ratios["newcombe_cc"].values()))
        n_max = max(pts[i]["n"] for i in ratios["newcombe_cc"])
        wider = (
            f" and is {100 * (np.median(r) - 1):.1f} % wider than the default (median of the width "
            f"ratios, n ≤ {n_max}; {r.min():.3f}-{r.max():.3f})"
        )
    out += [
        f"The default stays. It is in the band at {inside['mn']} of the {len(big)} points and misses "
        + " and ".join(f"{_point(pts[i])} ({cov['mn'][i]:.4f})" for i in mn_out)
        + ". These are steps of the distribution: few tables carry most of the probability there, "
        "and an interval either covers the truth for a kind of table (at n = 20, B = 0.95, those "
        "with two errors) or it does not; the candidates move the same steps, in one direction or "
        "the other.",
        "",
        "The exact unconditional intervals are built to hold at least the nominal level (Chan–Zhang's "
        "exact interval up to its nuisance grid; the E-test and the mid-p versions approximately), "
        f"and at B = 0.95 that costs: at every point with B = 0.95 and margin ≥ 5 they cover "
        f"{t_cov.min():.4f}-{t_cov.max():.4f} (mid-p {t_cov[[0, 2]].min():.4f} and up). They are in the "
        "band at "
        + ", ".join(f"{inside[m]} ({METHODS[m]})" for m in tests)
        + f" of the {len(big)} points, and below it at {t_below or 'none'} (their lowest coverage at "
        f"margin ≥ 10 is {min(cov[m][i] for m in tests for i in big):.4f}).",
        "",
        f"Newcombe's interval with continuity correction puts {_point(pts[hard])} in the band "
        f"({cov['newcombe_cc'][hard]:.4f}), but it over-covers at {above['newcombe_cc']} of the "
        f"{len(big)} points{wider}. Newcombe's plain interval falls to {nb.min():.4f} "
        f"({_point(pts[sel[int(nb.argmin())]])}), far below the band; Agresti–Caffo's "
        f"over-covers up to {ac.max():.4f} ({_point(pts[sel[int(ac.argmax())]])}). Without N/(N − 1) "
        "the score interval misses the same points as the default ("
        + ", ".join(f"{cov['mn_nofactor'][i]:.4f}" for i in mn_out)
        + ") and is in the band at "
        f"{inside['mn_nofactor']}.",
        "",
        f"Laud's skewness-corrected score interval (SCAS), built for equal tails, over-covers: in the "
        f"band at {inside['scas']}, above it at {above['scas']} (up to "
        f"{max(cov['scas'][i] for i in big):.4f}). MOVER-J is in the band at {inside['mover_j']}: it "
        "covers both points the default misses ("
        + ", ".join(f"{cov['mover_j'][i]:.4f}" for i in mn_out)
        + ") and misses others ("
        + ", ".join(
            f"{_point(pts[i])}: {cov['mover_j'][i]:.4f}" for i in big if flagged(pts[i], cov["mover_j"][i])
        )
        + f"). The mean of the two ends is in the band at {inside['mn_mj_mean']}; the dense grid below "
        "shows whether that holds between the grid points.",
        "",
        "Per candidate, the points with margin ≥ 10 outside the band:",
        "",
    ]
    for m in cov:
        miss = [i for i in big if flagged(pts[i], cov[m][i])]
        if len(miss) > 4:
            low = sum(cov[m][i] < 0.935 for i in miss)
            text = f"{len(miss)} points, {low} below and {len(miss) - low} above"
        else:
            text = "; ".join(f"{_point(pts[i])}: {cov[m][i]:.4f}" for i in miss) or "none"
        out.append(f"- {METHODS[m]}: {text}.")
    return out


EXPLANATION = [
    "Exact coverage (no Monte-Carlo error) of 95 % intervals for binary informedness at the grid "
    "of benchmarks/calibration_intervals.py, for the default (Miettinen–Nurminen) and eleven "
    "candidates for a difference of two independent proportions, and of the closed forms on a "
    "denser grid. The default is outside "
    '[0.935, 0.965] at two balanced points (docs/calibration_intervals.md, "Points outside the '
    'band, and why"): n = 20, B = 0.95 (0.9340) needs wider intervals, n = 30, B = 0.8 '
    "(0.9672) narrower ones, so no common scale of its half-widths fixes both. The question here "
    "is whether another standard interval does, in particular the exact unconditional intervals "
    "(Chan–Zhang, and the E-test inverted), which are built for small samples, and Laud's "
    "skewness-corrected score and MOVER-Jeffreys intervals, the two he recommends. Given the class "
    "sizes, the true and false positives are independent binomials, so the coverage of any "
    "interval for p1 − p0 is a finite sum; it is taken over the tables with both classes "
    "non-empty. See the benchmark's docstring for the model and the candidates. Markedness is "
    "informedness of the transposed table, and this model's table has the same distribution "
    "transposed, so its coverage is the same. ⚠: outside [0.935, 0.965] "
    "where the smallest expected margin is ≥ 10, below 0.92 at margins 5-10.",
    "",
]


def dense_report(methods: list[str], timing: dict[str, float]) -> list[str]:
    """The closed-form candidates on the dense grid (module docstring): their summary and every
    point with margin ≥ 10 where the default or the ad-hoc mean is outside the band."""
    closed = [m for m in methods if m in CLOSED]
    pts = grid_points(DENSE_NS, DENSE_PREVALENCES, DENSE_INFORMEDNESS)
    cov = coverage(pts, max(DENSE_NS), closed, timing)
    sel = [i for i, p in enumerate(pts) if p["margin"] >= 5]
    big = [i for i in sel if pts[i]["margin"] >= 10]
    shown = [m for m in ("mn", "mn_mj_mean") if m in cov]
    miss = [i for i in big if any(flagged(pts[i], cov[m][i]) for m in shown)]
    out = [
        "## Dense grid (closed forms)",
        "",
        f"n ∈ {{{', '.join(map(str, DENSE_NS))}}}, "
        f"prevalence ∈ {{{', '.join(map(str, DENSE_PREVALENCES))}}}, "
        f"B ∈ {{{', '.join(f'{b:g}' for b in DENSE_INFORMEDNESS)}}}: {len(big)} points with a smallest "
        f"expected margin ≥ 10, {len(sel) - len(big)} at margins 5-10.",
        "",
        *summary_table(pts, cov, sel, None),
        "",
    ]
    if "mn" in cov and "mn_mj_mean" in cov:
        mn_in = sum(not flagged(pts[i], cov["mn"][i]) for i in big)
        mean_in = sum(not flagged(pts[i], cov["mn_mj_mean"][i]) for i in big)
        worst = min(big, key=lambda i: cov["mn_mj_mean"][i])
        out += [
            f"The default is in the band at {mn_in} of the {len(big)} points (lowest "
            f"{min(cov['mn'][i] for i in big):.4f}); the ad-hoc mean, in the band at every point of the "
            f"grid above, at {mean_in}, and falls to {cov['mn_mj_mean'][worst]:.4f} at {_point(pts[worst])}, "
            f"where the default covers {cov['mn'][worst]:.4f}. Coverage at these n is a sawtooth in the "
            "parameters; a candidate chosen for the grid points moves the teeth, it does not remove them.",
            "",
        ]
    out += [
        "Points with margin ≥ 10 where " + " or ".join(METHODS[m] for m in shown) + " is outside the band:",
        "",
        *coverage_table(pts, cov, miss),
        "",
    ]
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=100, help="grid points up to this n")
    ap.add_argument("--methods", default=",".join(METHODS), help="comma-separated, of: " + ", ".join(METHODS))
    ap.add_argument("--widths", action="store_true", help="also the width ratios to the default (slow)")
    ap.add_argument("--widths-max-n", type=int, default=30, help="width ratios up to this n")
    ap.add_argument("--width-step", type=float, default=0.01, help="step of the δ grid of the widths")
    ap.add_argument("--dense", action="store_true", help="also the closed forms on a dense grid")
    ap.add_argument("--out", default=None, help="write the markdown report here (default: stdout only)")
    args = ap.parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        ap.error(f"unknown method(s) {unknown}; choose from {list(METHODS)}")
    if args.widths and "mn" not in methods:
        methods.insert(0, "mn")  # the widths are ratios to it
    methods = [m for m in METHODS if m in methods]
    t0 = time.process_time()
    timing: dict[str, float] = {}
    pts = grid_points()
    cov = coverage(pts, args.max_n, methods, timing)
    sel = [i for i, p in enumerate(pts) if p["margin"] >= 5 and p["n"] <= args.max_n]
    ratios, gaps = None, {}
    wmax = min(args.widths_max_n, args.max_n)
    if args.widths:
        ratios, gaps = widths(pts, wmax, methods, args.width_step, timing)
    dense = dense_report(methods, timing) if args.dense else []
    cmd = "python benchmarks/calibration_unconditional.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    parts = ", ".join(f"{name} {timing[key]:.0f} s" for key, name in
                      (("closed", "closed forms"), ("est", "E-test"), ("max", "Chan–Zhang"),
                       ("widths", "widths")) if key in timing)  # fmt: skip
    lines = [
        "# Exact coverage of unconditional and other intervals for binary informedness",
        "",
        f"Made by `{cmd.strip()}` ({time.process_time() - t0:.0f} s CPU: {parts}).",
        "",
        *EXPLANATION,
        f"## Coverage (margin ≥ 5, n ≤ {args.max_n})",
        "",
        *coverage_table(pts, cov, sel),
        "",
        "## Summary",
        "",
    ]
    if ratios:
        lines += [
            "Width: the probability-weighted median over the tables of a candidate's width divided by the "
            f"default's, per grid point with margin ≥ 5 and n ≤ {wmax}; the median and the largest of those "
            "over the points (the next section has every point).",
            "",
        ]
    lines += [*summary_table(pts, cov, sel, ratios), ""]
    if ratios:
        lines += [
            f"## Width / default's width (margin ≥ 5, n ≤ {wmax})",
            "",
            "Test-based ends from a δ grid of step "
            f"{args.width_step:g} with linear interpolation. Tables (probability above 1e-6 at some point) "
            "whose set of accepted δ has gaps, where the ends span the gaps: "
            + ", ".join(f"{METHODS[m]} {v}" for m, v in gaps.items())
            + ".",
            "",
            *ratio_table(pts, ratios),
            "",
        ]
    lines += [*verdict(pts, cov, sel, ratios), "", *dense]
    text = "\n".join(lines)
    if args.out:
        Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
