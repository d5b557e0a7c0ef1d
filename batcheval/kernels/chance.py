"""Calibrated chance tests of informedness = 0 and markedness = 0, for every table at once
(docs/measures.md, significance against chance).

Given both margins, informedness B and markedness M are linear in the diagonal
cells: ``B = Σ_k (c_kk − r_k p_k / n) / (n − r_k)`` and the same with
``n − p_k`` for M. Under the permutation null (the table multivariate
hypergeometric given its margins) ``E[c_kk] = r_k p_k / n``, so ``E[B] = 0``,
and the cells' covariance is known exactly:
``Cov(c_ij, c_kl) = r_i (δ_ik n − r_k) p_j (δ_jl n − p_l) / (n² (n − 1))``.

The two-sided p-value counts tables whose statistic is at least as far from
its null mean as the observed one (the convention of the exact χ² permutation
test), with the observed distance counted half (Lancaster's mid-p):
``p = P(|T| > |t|) + P(|T| = |t|) / 2``.

- When the statistic depends on one hypergeometric cell (every 2×2 table; a
  K×K table with one class whose diagonal cell can vary, or with only two
  classes present in either margin) and that cell's variance is at most
  :data:`EXACT_VARIANCE`, the tail is summed exactly.
- Otherwise ``z = T / sd(T)`` with the exact permutation variance is referred
  to the normal (for K = 2, ``z² = (n − 1)·correlation²``, Pearson's χ² with
  the N − 1 factor). benchmarks/calibration_chance.py shows why: the plain
  exact test has size 0.02–0.03 at nominal 0.05 for margins of 10–40, the z
  test 0.063 where the expected cell is 0.25 (n = 100, prevalence = bias =
  0.05); the mid-p stays within target, and above a variance of 100 it and
  the z test agree.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_inline, jit_parallel, prange

#: Largest variance of the hypergeometric cell for which the tail is summed
#: exactly (about 10 standard deviations of terms on each side, so at most a
#: few hundred); above it the normal approximation is used.
EXACT_VARIANCE = 100.0
# integer arithmetic of n·x − r·p stays below 2^63 for n below 2^31
INT_LIMIT = 2_147_483_648
_SQRT2 = math.sqrt(2.0)


# no log-factorial table: every lgamma is evaluated
_NO_TABLE = np.zeros(0)
# a table of ln k! is built up to the largest n that takes the exact path, while it has at most
# this many entries per table tested (each entry costs one lgamma; a table saves nine a table)
TABLE_PER_GROUP = 4
TABLE_MIN = 1 << 12


@jit_inline
def null_variance(nf, rf, pf):
    """Variance of a table's cell under the permutation null (hypergeometric: n examples, r
    real and p predicted of its class), as floats; :data:`EXACT_VARIANCE` compares with it."""
    return rf * (nf - rf) / nf * (pf * (nf - pf) / (nf * (nf - 1.0)))


@jit_inline
def summed_exactly(n, r, p):
    """Whether :func:`midp_cell` sums the tail of this table exactly (so it needs ln k! up to n)."""
    if not (0 < r < n and 0 < p < n < INT_LIMIT):
        return False
    return null_variance(float(n), float(r), float(p)) <= EXACT_VARIANCE


@jit
def log_factorials(top, n_tables):
    """``lf[i] = lgamma(i + 1)`` for i up to ``top`` (the largest n summed exactly, -1 for none),
    at most ``TABLE_PER_GROUP`` entries a table tested: the ln k! :func:`midp_cell` looks up."""
    size = max(min(top + 1, TABLE_PER_GROUP * n_tables + TABLE_MIN), 0)
    lf = np.empty(size, np.float64)
    for i in range(size):
        lf[i] = math.lgamma(float(i) + 1.0)
    return lf


@jit_inline
def _log_choose(n, k, lf):
    """ln C(n, k) of whole numbers (floats); ``lf[i]`` = lgamma(i + 1) where the table reaches,
    computed by the same lgamma, so a lookup gives the bits a call would."""
    if n < lf.shape[0]:
        return lf[np.int64(n)] - lf[np.int64(k)] - lf[np.int64(n - k)]
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@jit_inline
def _log_pmf(x, n, r, p, log_total, lf):
    """log P(X = x), X ~ Hypergeometric(population n, successes r, draws p); ``log_total`` = log C(n, p)."""
    return _log_choose(r, x, lf) + _log_choose(n - r, p - x, lf) - log_total


@jit
def _outer_tail(x, n, r, p, log_total, lf):
    """``(P(X = x), P(X > x))`` for x at or above the mode, where the terms only shrink.

    Summed upward with the ratio pmf(k+1)/pmf(k), so one lgamma evaluation a
    tail; the terms are summed from the largest, which keeps a tiny tail's
    relative precision. ``(0, 0)`` above the support.
    """
    hi = min(r, p)
    if x > hi:
        return 0.0, 0.0
    first = math.exp(_log_pmf(x, n, r, p, log_total, lf))
    term = first
    rest = 0.0
    k = x
    while k < hi and term > (first + rest) * 1e-17:
        term *= (r - k) * (p - k) / ((k + 1.0) * (n - r - p + k + 1.0))
        rest += term
        k += 1.0
    return first, rest


@jit
def midp_cell(x, n, r, p, lf):
    """Two-sided mid-p of cell ``x`` of a table with n examples, r real and p predicted of its class.

    Distance from the null mean ``r p / n``; exact below :data:`EXACT_VARIANCE`,
    normal above. 1 when a margin is empty or full (nothing to test), NaN for n = 0.
    ``lf``: ln k! for k below its length (``lf[i] = lgamma(i + 1)``), any length.
    """
    if n == 0:
        return np.nan
    if not (0 < r < n and 0 < p < n):
        return 1.0
    nf, rf, pf = float(n), float(r), float(p)
    var = null_variance(nf, rf, pf)
    if var > EXACT_VARIANCE or n >= INT_LIMIT:
        dev = float(n * x - r * p) if n < INT_LIMIT else nf * x - rf * pf  # n·(x − mean)
        return math.erfc(abs(dev) / (nf * math.sqrt(var)) / _SQRT2)
    rp = r * p
    if n * x < rp:
        # reflect to the upper side: r − X ~ Hypergeometric(n, r, n − p) has mean r − rp/n
        x, p = r - x, n - p
        pf = float(p)
        rp = r * p
    # now x is at or above the mean; its mirror 2·mean − x is below it
    log_total = _log_choose(nf, pf, lf)
    same, farther = _outer_tail(float(x), nf, rf, pf, log_total, lf)
    d = n * x - rp
    # below the mean: the lowest cell as far as x or farther is x_l = ceil((rp − d)/n) − 1 plus the mirror
    twice_mean = 2 * rp
    mirror_exact = twice_mean % n == 0
    start = twice_mean // n - x if mirror_exact else -((d - rp) // n) - 1
    if start >= max(0, p - (n - r)):
        # P(X <= start) = P(r − X >= r − start), r − X ~ Hypergeometric(n, r, n − p)
        # log_total serves: C(n, n − p) = C(n, p)
        lo_first, lo_rest = _outer_tail(float(r - start), nf, rf, nf - pf, log_total, lf)
        if mirror_exact and start != x:
            same += lo_first
            farther += lo_rest
        elif mirror_exact:
            farther += lo_rest  # x is the mean itself
        else:
            farther += lo_first + lo_rest
    return min(1.0, farther + 0.5 * same)


# some 200-300 ns a table: every thread pays from a few thousand tables
@jit_parallel(serial_below=2048)
def binary_chance(tp, fp, fn, tn, out):
    """Two-sided mid-p test of informedness = 0 (= markedness = 0 for K = 2) for G 2×2 tables.

    The exact tails take their ln k! from one table (``lf[i] = lgamma(i + 1)``) up to the largest
    n that needs them, within ``TABLE_PER_GROUP`` entries a table: nine lgamma calls a table
    become lookups of the same values.
    """
    n_groups = tp.shape[0]
    # the largest n among the tables whose tail midp_cell sums exactly; int64 from the start, since
    # a literal -1 compiled log_factorials a second time for its own type
    top = np.int64(-1)
    for h in range(n_groups):
        n = tp[h] + fp[h] + fn[h] + tn[h]
        if n > top and summed_exactly(n, tp[h] + fn[h], tp[h] + fp[h]):
            top = n
    lf = log_factorials(top, n_groups)
    for g in prange(n_groups):
        out[g] = midp_cell(tp[g], tp[g] + fp[g] + fn[g] + tn[g], tp[g] + fn[g], tp[g] + fp[g], lf)


@jit
def _one_table(c, real, pred, out, g):
    k = c.shape[0]
    # integer sums (any order gives the same integers): a row's in a register, the columns' as a
    # vector add of each row, not a store-to-load chain through real[i] and pred[j] per cell
    for j in range(k):
        pred[j] = 0
    for i in range(k):
        s = 0
        for j in range(k):
            v = c[i, j]
            s += v
            pred[j] += v
        real[i] = s
    n = 0
    for i in range(k):
        n += real[i]
    if n == 0:
        out[0, g] = np.nan
        out[1, g] = np.nan
        return
    # classes whose diagonal cell varies under the null, and the classes present in each margin
    varying = 0
    first = -1
    k_real = 0
    k_pred = 0
    for i in range(k):
        if real[i] > 0:
            k_real += 1
        if pred[i] > 0:
            k_pred += 1
        if 0 < real[i] < n and 0 < pred[i] < n:
            varying += 1
            if first < 0:
                first = i
    if varying == 0:
        out[0, g] = 1.0
        out[1, g] = 1.0
        return
    if varying == 1 or (varying == 2 and k_real == 2 and k_pred == 2):
        # B and M are linear in one hypergeometric cell (in a 2×2 table the other diagonal
        # cell is n − r − p + c): the binary test, exact for small tables
        p = midp_cell(c[first, first], n, real[first], pred[first], _NO_TABLE)
        out[0, g] = p
        out[1, g] = p
        return
    nf = float(n)
    for which in range(2):
        stat = 0.0
        lin = 0.0
        quad = 0.0
        for i in range(k):
            m = real[i] if which == 0 else pred[i]
            if m == n:
                continue
            w = 1.0 / (nf - m)
            r = float(real[i])
            p = float(pred[i])
            if n < INT_LIMIT:
                dev = float(n * c[i, i] - real[i] * pred[i])
            else:
                dev = nf * c[i, i] - r * p
            stat += w * dev
            lin += w * r * p
            quad += w * w * r * p * (nf - r - p)
        # n²·(n − 1)·Var(Σ w c_kk) = n Σ w² r p (n − r − p) + (Σ w r p)²; stat is n·Σ w (c − E)
        var_n2 = (nf * quad + lin * lin) / (nf - 1.0)
        out[which, g] = math.erfc(abs(stat) / math.sqrt(var_n2) / _SQRT2) if var_n2 > 0.0 else 1.0


@jit_parallel
def multiclass_chance(counts, out):
    """``out[0, g]``, ``out[1, g]``: two-sided tests of informedness = 0 and markedness = 0."""
    n_groups, k, _ = counts.shape
    n_chunks = min(n_groups, 64)
    for chunk in prange(n_chunks):
        real = np.empty(k, np.int64)
        pred = np.empty(k, np.int64)
        lo = chunk * n_groups // n_chunks
        hi = (chunk + 1) * n_groups // n_chunks
        for g in range(lo, hi):
            _one_table(counts[g], real, pred, out, g)
