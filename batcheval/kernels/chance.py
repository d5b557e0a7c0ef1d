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
  classes present in either margin) the mid-p is exact below :data:`FLOAT_LIMIT` examples at
  any variance, and below :data:`PAIR_LIMIT` while the variance is at most
  :data:`EXACT_VARIANCE` (a rare class of billions of examples is Poisson-like, where the normal
  tail was off fourfold). Each tail is summed from the observed cell outward by the ratio of
  successive terms, or, where that takes more than :data:`LONG_TAIL` terms, by
  :func:`_long_tail`'s Euler–Maclaurin integral: within 1e-9 of the exact mid-p wherever it is at
  least 1e-300 (2e-11 over tests/test_chance_long_tails.py's grid against mpmath). Above a variance
  of 100 the normal tail was used before, which fell far below the exact mid-p in the far tail
  (n = 10⁹, 182 of 10,050 and 10.1e6: 9.7e-16 against 2.35e-13) and was 1-3 % off near 0.003.
- A K×K table with more than one such cell and at most
  :data:`PERMUTATION_MAX_N` examples gets the permutation mid-p itself: exact,
  summed over every table with its margins, while there are at most
  :data:`EXACT_TABLES` of them (2,211 for three classes of 10); else a Monte
  Carlo estimate from up to :data:`PERMUTATIONS` shuffles of its predictions
  against its labels, started from :data:`PERMUTATION_SEED` for every table,
  so a table's p-value depends neither on the other tables nor on the threads.
  The z test below is off by up to a third at such sizes (n = 12: 0.099 where
  the permutation mid-p is 0.066; a 3×3 identity of n = 3 got 0.045, below the
  1/6 that any permutation test of it can reach). Above
  :data:`ALWAYS_EXACT_N` examples a table whose z test is below
  :data:`SHUFFLE_ABOVE` keeps it: far from chance, where shuffles could only
  give a floor.
- Otherwise ``z = T / sd(T)`` with the exact permutation variance is referred
  to the normal (for K = 2, ``z² = (n − 1)·correlation²``, Pearson's χ² with
  the N − 1 factor). benchmarks/calibration_chance.py shows why: the plain
  exact test has size 0.02–0.03 at nominal 0.05 for margins of 10–40, the z
  test 0.063 where the expected cell is 0.25 (n = 100, prevalence = bias =
  0.05); the mid-p stays within target. The K×K floor below is not applied to the binary test,
  whose mid-p is exact.
- A K×K table's z test and shuffles are raised to a floor no permutation mid-p
  can go below: half the null probability of the tables tied with the observed
  one (:func:`log_tied_probability`: the observed table's multivariate
  hypergeometric pmf, or, when every diagonal cell is at ``min(r_k, p_k)`` and
  B and M are at their maximum, that of every table with its diagonal, in
  closed form). At the maximum, where no table is as far below the null, that
  floor is the exact mid-p (``0.5·(m!)^K/(mK)!`` for m·I_K: 2.2e-13 for 6·I₄,
  where the z test gave 9.8e-17). Elsewhere the far tail of the z test can
  still be below the exact mid-p, by a factor of up to about 5 at n = 27–61
  for K = 3, never below the floor. A p-value above the floor is unchanged.
"""

from __future__ import annotations

import math

import numpy as np

from .fisher import log_pmf as saddle_log_pmf
from .fisher import stirlerr
from .jit import jit, jit_inline, jit_parallel, prange, readonly
from .multiclass import table_margins
from .wide import mul_pair, sub_pair

#: From :data:`FLOAT_LIMIT` examples, the largest variance of the hypergeometric cell whose tail
#: is summed exactly; above it the normal approximation is used (below FLOAT_LIMIT: at any variance).
EXACT_VARIANCE = 100.0
#: Multiclass tables of at most this many examples take the permutation mid-p, not the z test.
PERMUTATION_MAX_N = 60
#: A small multiclass table is enumerated while it has at most this many tables of its margins
#: (about 30 operations each: cheaper than the shuffles up to here).
EXACT_TABLES = 30_000
#: Most shuffles a table. They stop at a multiple of :data:`PERMUTATION_BLOCK` once both tests
#: have 100 shuffles at least as far from the null as the observed table (counted as the mid-p
#: counts them): a relative standard error of about 10 %. p = 0.5 takes 1,000 shuffles, p = 0.05
#: 2,000, and p below 0.01 all 10,000 (standard error sqrt(p (1 − p) / 10,000): 0.001 at 0.01).
PERMUTATIONS = 10_000
PERMUTATION_BLOCK = 1_000
PERMUTATION_HITS = 100.0
#: A table of more than ALWAYS_EXACT_N examples is enumerated or shuffled only if its z test gives
#: at least this: below it, 10,000 shuffles could only report a floor of 1/20,000, and the table
#: is far from chance. Tables up to ALWAYS_EXACT_N examples (few tables each) are always enumerated.
SHUFFLE_ABOVE = 1e-4
ALWAYS_EXACT_N = 12
#: Every table's shuffles start from this seed: the same table always gets the same p-value.
PERMUTATION_SEED = 20_260_212
# integer arithmetic of n·x − r·p stays below 2^63 for n below 2^31
INT_LIMIT = 2_147_483_648
# above INT_LIMIT the exact tail forms r·p as a pair of int64 (wide.mul_pair), whose factors are below 2^62
PAIR_LIMIT = 1 << 62
#: From 2^53 examples the tails' counts are no longer whole floats, and the mean's float quotient
#: no longer within one of it: a table of more than :data:`EXACT_VARIANCE` takes the z test there.
FLOAT_LIMIT = 1 << 53
#: What :func:`midp_cell` compiled without its wide tail gives a table that needs it (no p-value),
#: and :func:`_one_table`'s mark of such a table.
WIDE_LEFT = -1.0
WIDE_UNDONE = 2
_SQRT2 = math.sqrt(2.0)


# a table of ln k! is built up to the largest n that takes the exact path, while it has at most
# this many entries per table tested (each entry costs one lgamma; a table saves nine a table)
TABLE_PER_GROUP = 4
TABLE_MIN = 1 << 12
#: From this many examples a tail's first term takes Loader's saddle-point pmf (:mod:`.fisher`):
#: ``lgamma(n + 1) − …`` cancels to about n·u (3e-9 relative at n = 1e6, 4e-6 at 1e9), while
#: the saddle-point form keeps about 1e-14 at any n. Below it the ln k! lookups stay (2e-12 at
#: n = 1,000, 2e-10 at 32,000): the saddle point costs some ten logs a tail, which a table of
#: this size repays many times over in the reading of its rows.
SADDLE_FROM = 1 << 15
_NO_STIRLERR = np.zeros(0)


def saddle_terms(largest_n: int) -> np.ndarray | None:
    """The ``se`` argument of :func:`midp_cell` for tables of at most ``largest_n`` examples: None
    below :data:`SADDLE_FROM`, which compiles the test without the saddle point (numba prunes the
    branch of an argument that is None: about 0.5 s of a first call on an empty cache), else an
    (empty) table of Stirling terms.

    Examples
    --------
    >>> saddle_terms(1000) is None, saddle_terms(1 << 20).shape
    (True, (0,))
    """
    return None if largest_n < SADDLE_FROM else _NO_STIRLERR


@jit_inline
def null_variance(n, r, p):
    """Variance of a table's cell under the permutation null (hypergeometric: n examples, r
    real and p predicted of its class, counts), as a float; :data:`EXACT_VARIANCE` compares with
    it. ``n − r`` and ``n − p`` are formed before they are turned into floats: from 2^53 examples
    the difference of the floats loses them (0 for a class of all but 2 of 2^62, and a p-value NaN)."""
    nf = float(n)
    return float(r) * float(n - r) / nf * (float(p) * float(n - p) / (nf * (nf - 1.0)))


@jit_inline
def summed_exactly(n, r, p):
    """Whether :func:`midp_cell` sums the tail of this table exactly (so it needs ln k! up to n)."""
    if not (0 < r < n and 0 < p < n < PAIR_LIMIT):
        return False
    return n < FLOAT_LIMIT or null_variance(n, r, p) <= EXACT_VARIANCE


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
def _point_pmf(x, n, r, p, log_total, lf, se):
    """``P(X = x)``: from ln k! (``lf`` where it reaches), or by the saddle point of a table of
    at least SADDLE_FROM examples when ``se`` holds its terms (:func:`saddle_terms`)."""
    if se is None:  # pruned at compile time (saddle_terms)
        return math.exp(_log_pmf(x, n, r, p, log_total, lf))
    if n < SADDLE_FROM:
        return math.exp(_log_pmf(x, n, r, p, log_total, lf))
    return math.exp(saddle_log_pmf(x, n, r, p, se))


#: A tail whose terms take more than this many steps of the ratio recurrence to fall to e^-46 of
#: its first (by the slope and curvature of ln pmf there) is integrated instead (:func:`_long_tail`):
#: about 1.5 µs of 20 nodes, what 300 steps of the recurrence cost.
LONG_TAIL = 300.0
#: ln of the share of a tail's first term below which its integral is cut off (e^-46 = 1e-20).
_CUT = 46.0
#: Gauss–Legendre nodes and weights on [0, 1] of :func:`_long_tail`'s integral: exp of a concave
#: function falling by e^-46 over the interval, which 20 nodes integrate to 2e-12 of 64 nodes' over
#: tails of n = 3e4 … 3e9 (16 nodes: 6e-9).
GL_NODES = 20
_GL_X, _GL_W = np.polynomial.legendre.leggauss(GL_NODES)
_GL_X = 0.5 * (_GL_X + 1.0)
_GL_W = 0.5 * _GL_W


@jit_inline
def _log_term_ratio(s, a, b, c, d):
    """``ln(pmf(x + s)/pmf(x))`` of the hypergeometric cell, s real, the table at x having the cells
    a, d (which grow with s) and b, c (which shrink), all a thousand or more: Stirling's form with
    each ``ln Γ(α + s + 1) − ln Γ(α + 1)`` as ``(α + ½)·log1p(s/α) + s·ln(α + s) − s + …``, whose
    ``s`` terms cancel exactly and whose ``s·ln`` terms gather in one logarithm of a ratio, so
    nothing of the size of n·ln n is formed (the lgamma form loses n·u)."""
    h = s * math.log(((b - s) * (c - s)) / ((a + s) * (d + s)))
    h -= (a + 0.5) * math.log1p(s / a) + (d + 0.5) * math.log1p(s / d)
    h -= (b + 0.5) * math.log1p(-s / b) + (c + 0.5) * math.log1p(-s / c)
    # Stirling's error terms at both ends (fisher's, as the first term's saddle point takes them)
    h += stirlerr(a) + stirlerr(d) + stirlerr(b) + stirlerr(c)
    h -= stirlerr(a + s) + stirlerr(d + s) + stirlerr(b - s) + stirlerr(c - s)
    return h


@jit_inline
def _reach(slope, curve):
    """The s where ``slope·s + curve·s²/2`` reaches :data:`_CUT`, in the form that does not cancel."""
    root = math.sqrt(slope * slope + 2.0 * _CUT * curve)
    if slope > 0.0:
        return 2.0 * _CUT / (slope + root)
    return (root - slope) / curve


@jit_inline
def _tail_length(a, b, c, d):
    """About how many terms from the table with cells (a, b, c, d) on (a, d growing) the tail takes
    to fall to e^-46 of its first, by the slope and curvature of ln pmf; 0 when a cell is below a
    thousand (the recurrence is short there, or the support ends)."""
    if min(a, b, c, d) < 1000.0:
        return 0.0
    slope = -math.log((b * c) / ((a + 1.0) * (d + 1.0)))
    return _reach(slope, 1.0 / (a + 1.0) + 1.0 / b + 1.0 / c + 1.0 / (d + 1.0))


@jit
def _long_tail(a, b, c, d):
    """``Σ_{s ≥ 1} pmf(x + s)/pmf(x)`` for a tail of many small steps (:data:`LONG_TAIL`), from the
    table at x with cells (a, b, c, d), a and d growing; -1 where it does not apply (a cell that the
    tail's integral would bring below a thousand: then the recurrence is short and sums it).

    Euler–Maclaurin: ``Σ_{s≥0} F(s) = ∫_0^∞ F + F(0)/2 − F⁽¹⁾(0)/12 + F⁽³⁾(0)/720 − F⁽⁵⁾(0)/30240
    + …`` for the pmf F continued to real s by the gamma function; its next term, F⁽⁷⁾/1209600, is
    below 1e-12 of the sum where the tail is this long (a slope of ln F at most 46/LONG_TAIL). The
    integral, up to where ln F has fallen by 46, by
    Gauss–Legendre over :func:`_log_term_ratio`; F⁽¹⁾ and F⁽³⁾ from ln F's derivatives (the digamma
    function and its derivatives, by their asymptotic series)."""
    ia, ib, ic, id_ = 1.0 / a, 1.0 / b, 1.0 / c, 1.0 / d
    # ψ(z+1) = ln z + 1/(2z) − 1/(12z²) + …, ψ'(z+1) = 1/z − 1/(2z²) + 1/(6z³), ψ''(z+1) = −1/z² + 1/z³
    h1 = math.log((b * c) / (a * d)) + 0.5 * (ib + ic - ia - id_)
    h1 -= (ib * ib + ic * ic - ia * ia - id_ * id_) / 12.0
    h2 = 0.0
    for i in (ia, ib, ic, id_):
        h2 -= i - 0.5 * i * i + i * i * i / 6.0
    h3 = 0.0
    for i in (ib, ic):
        h3 += i * i * i - i * i
    for i in (ia, id_):
        h3 -= i * i * i - i * i
    top = _reach(-h1, -h2)
    # ln F's third derivative bends the quadratic: widen until the integrand has fallen far enough
    for _ in range(20):
        if min(b, c) - top < 1000.0:
            return -1.0
        if _log_term_ratio(top, a, b, c, d) <= 2.0 - _CUT:
            break
        top *= 1.25
    total = 0.0
    for i in range(GL_NODES):
        total += _GL_W[i] * math.exp(_log_term_ratio(top * _GL_X[i], a, b, c, d))
    # less F(0) itself, whose half the integral lacks and Euler–Maclaurin adds
    d1 = h1
    d3 = h3 + 3.0 * h1 * h2 + h1 * h1 * h1
    # F⁽⁵⁾/F by Faà di Bruno, without ln F's fourth and fifth derivatives (of order 1/cell³)
    d5 = h1**5 + 10.0 * h1**3 * h2 + 15.0 * h1 * h2 * h2 + 10.0 * h2 * h3 + 10.0 * h1 * h1 * h3
    return top * total - 0.5 - d1 / 12.0 + d3 / 720.0 - d5 / 30240.0


@jit
def _outer_tail(x, n, r, p, log_total, lf, se):
    """``(P(X = x), P(X > x))`` for x at or above the mode, where the terms only shrink.

    Summed upward with the ratio pmf(k+1)/pmf(k), so one lgamma evaluation a
    tail; the terms are summed from the largest, which keeps a tiny tail's
    relative precision. ``(0, 0)`` above the support.
    """
    hi = min(r, p)
    if x > hi:
        return 0.0, 0.0
    first = _point_pmf(x, n, r, p, log_total, lf, se)
    a, b, c, d = x, r - x, p - x, n - r - p + x
    if _tail_length(a, b, c, d) > LONG_TAIL:
        ratio = _long_tail(a, b, c, d)
        if ratio >= 0.0:
            return first, first * ratio
    term = first
    rest = 0.0
    k = x
    while k < hi and term > (first + rest) * 1e-17:
        term *= (r - k) * (p - k) / ((k + 1.0) * (n - r - p + k + 1.0))
        rest += term
        k += 1.0
    return first, rest


@jit
def _inner_tail(x, n, r, p, log_total, lf, se):
    """``(P(X = x), P(X < x))`` for x at or below the mode, summed downward as :func:`_outer_tail`
    sums upward. ``(0, 0)`` below the support."""
    lo = max(0.0, p - (n - r))
    if x < lo:
        return 0.0, 0.0
    first = _point_pmf(x, n, r, p, log_total, lf, se)
    # downward the cells r − x and p − x grow, x and n − r − p + x shrink
    a, b, c, d = r - x, x, n - r - p + x, p - x
    if _tail_length(a, b, c, d) > LONG_TAIL:
        ratio = _long_tail(a, b, c, d)
        if ratio >= 0.0:
            return first, first * ratio
    term = first
    rest = 0.0
    k = x
    while k > lo and term > (first + rest) * 1e-17:
        term *= k * (n - r - p + k) / ((r - k + 1.0) * (p - k + 1.0))
        rest += term
        k -= 1.0
    return first, rest


@jit
def _wide_midp(x, n, r, p, lf, se):
    """:func:`midp_cell`'s exact tail for n from :data:`INT_LIMIT`, where n·x and r·p pass 2^63.

    The table is first turned so that both margins are at most n/2, by swapping the classes of a
    margin (``X -> p − X`` with ``r -> n − r``, ``X -> r − X`` with ``p -> n − p``: the same
    distribution of the distance from the mean). Then the mean is below four times the variance,
    and every count the tails read as a float is a small one or is far from n: above 2^53 the float
    of n − 5 is n, so the reflection that midp_cell's smaller tables take for their lower tail (to a
    margin of n − p) would leave nothing of n − r − p. The lower tail is summed downward instead.
    """
    if 2 * r > n:
        x, r = p - x, n - r
    if 2 * p > n:
        x, p = r - x, n - p
    nf, rf, pf = float(n), float(r), float(p)
    # the mean as q + m/n with 0 <= m < n: the float quotient is within one of q (the mean is below
    # 4·EXACT_VARIANCE), so the remainder it leaves is between -n and 2n, exact in pairs
    q = np.int64(rf * pf / nf)
    hi, lo = mul_pair(r, p)
    qh, ql = mul_pair(q, n)
    hi, lo = sub_pair(hi, lo, qh, ql)
    m = (hi << 62) + lo
    while m < 0:
        q -= 1
        m += n
    while m >= n:
        q += 1
        m -= n
    # floor(2·mean), and whether 2·mean is whole: then a cell's mirror is a cell, at its distance
    twice = 2 * q + (1 if m >= n - m else 0)
    tied = m == 0 or m == n - m
    if x < q or (x == q and m > 0):
        low, low_tied = x, True
        high, high_tied = (twice - x, True) if tied else (twice - x + 1, False)
    else:
        low, low_tied = twice - x, tied
        high, high_tied = x, True
    log_total = _log_choose(nf, pf, lf)
    same = 0.0
    first, farther = _outer_tail(float(high), nf, rf, pf, log_total, lf, se)
    if high_tied:
        same += first
    else:
        farther += first
    first, rest = _inner_tail(float(low), nf, rf, pf, log_total, lf, se)
    farther += rest
    if low != high:  # else x is the mean itself, counted once above
        if low_tied:
            same += first
        else:
            farther += first
    return min(1.0, farther + 0.5 * same)


@jit
def midp_cell(x, n, r, p, lf, se, wide):
    """Two-sided mid-p of cell ``x`` of a table with n examples, r real and p predicted of its class.

    Distance from the null mean ``r p / n``; exact at any variance below :data:`FLOAT_LIMIT`
    (2^53) examples and below :data:`EXACT_VARIANCE` up to :data:`PAIR_LIMIT` (2^62), else normal: the z
    score of the exact permutation variance, whose deviation
    ``n·x − r·p = x·(n − r − p + x) − (r − x)(p − x)`` is formed from the cells from
    :data:`INT_LIMIT` examples (within a rounding of each product, where ``n·x`` and ``r·p`` as
    floats cancelled: NaN for an independent table of 2^62). 1 when a margin is empty or full
    (nothing to test), NaN for n = 0.
    ``lf``: ln k! for k below its length (``lf[i] = lgamma(i + 1)``), any length. ``se``: None,
    or Stirling terms (:func:`~batcheval.kernels.fisher.stirlerr_table`, any length) for the
    saddle-point first term of a tail from :data:`SADDLE_FROM` examples (:func:`saddle_terms`).
    ``wide``: None or True; with None the exact tail of :data:`INT_LIMIT` examples or more
    (:func:`_wide_midp`, about 1 s of CPU of a first call) is not compiled, and such a table gets
    :data:`WIDE_LEFT` for its caller to run again with True.
    """
    if n == 0:
        return np.nan
    if not (0 < r < n and 0 < p < n):
        return 1.0
    nf, rf, pf = float(n), float(r), float(p)
    if n >= FLOAT_LIMIT and (n >= PAIR_LIMIT or null_variance(n, r, p) > EXACT_VARIANCE):
        # n·(x − mean): exactly while it fits, else the determinant of the cells, x·(n − r − p + x)
        # − (r − x)(p − x), within a rounding of each product (below one in 2^21 of a z score)
        if n < INT_LIMIT:
            dev = float(n * x - r * p)
        else:
            dev = float(x) * float(n - r - p + x) - float(r - x) * float(p - x)
        return math.erfc(abs(dev) / (nf * math.sqrt(null_variance(n, r, p))) / _SQRT2)
    if n >= INT_LIMIT:
        if wide is None:  # numba keeps one branch of the two, by wide's type
            return WIDE_LEFT
        return _wide_midp(x, n, r, p, lf, se)
    rp = r * p
    if n * x < rp:
        # reflect to the upper side: r − X ~ Hypergeometric(n, r, n − p) has mean r − rp/n
        x, p = r - x, n - p
        pf = float(p)
        rp = r * p
    # now x is at or above the mean; its mirror 2·mean − x is below it
    log_total = _log_choose(nf, pf, lf)
    same, farther = _outer_tail(float(x), nf, rf, pf, log_total, lf, se)
    d = n * x - rp
    # below the mean: the lowest cell as far as x or farther is x_l = ceil((rp − d)/n) − 1 plus the mirror
    twice_mean = 2 * rp
    mirror_exact = twice_mean % n == 0
    start = twice_mean // n - x if mirror_exact else -((d - rp) // n) - 1
    if start >= max(0, p - (n - r)):
        # P(X <= start) = P(r − X >= r − start), r − X ~ Hypergeometric(n, r, n − p)
        # log_total serves: C(n, n − p) = C(n, p)
        lo_first, lo_rest = _outer_tail(float(r - start), nf, rf, nf - pf, log_total, lf, se)
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
def binary_chance(tp, fp, fn, tn, out, se, wide):
    """Two-sided mid-p test of informedness = 0 (= markedness = 0 for K = 2) for G 2×2 tables.

    The exact tails take their ln k! from one table (``lf[i] = lgamma(i + 1)``) up to the largest
    n that needs them, within ``TABLE_PER_GROUP`` entries a table: nine lgamma calls a table
    become lookups of the same values. ``se``: :func:`saddle_terms` of the largest table.
    ``wide``: as :func:`midp_cell`'s; returns how many tables it left at :data:`WIDE_LEFT`.
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
    missed = 0
    for g in prange(n_groups):
        p = midp_cell(tp[g], tp[g] + fp[g] + fn[g] + tn[g], tp[g] + fn[g], tp[g] + fp[g], lf, se, wide)
        out[g] = p
        missed += 1 if p == WIDE_LEFT else 0
    return missed


@jit
def _one_table(c, real, pred, out, g, se, no_table, lf, wide):
    """Both tests of table ``c`` into ``out[:, g]``. Returns 1 for a table of at most
    :data:`PERMUTATION_MAX_N` examples that the permutation tests refine (:func:`permutation_tests`),
    left with its z test, :data:`WIDE_UNDONE` for a table that :func:`midp_cell` left to its
    ``wide`` version, else 0: a call on larger tables never compiles them (4 to 5 s of CPU of a
    first multiclass call)."""
    k = c.shape[0]
    n = table_margins(c, real, pred)
    if n == 0:
        out[0, g] = np.nan
        out[1, g] = np.nan
        return 0
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
        return 0
    if varying == 1 or (varying == 2 and k_real == 2 and k_pred == 2):
        # B and M are linear in one hypergeometric cell (in a 2×2 table the other diagonal
        # cell is n − r − p + c): the binary test, exact for small tables
        p = midp_cell(c[first, first], n, real[first], pred[first], no_table, se, wide)
        out[0, g] = p
        out[1, g] = p
        return WIDE_UNDONE if p == WIDE_LEFT else 0
    _z_test(c, real, pred, n, out, g)
    if _permuted(n, out, g):
        return 1
    # the z test's far tail may fall below what the permutation mid-p can be: at least half the
    # probability of the tables tied with the observed one
    _raise_to_floor(c, real, pred, n, out, g, lf)
    return 0


@jit_inline
def _permuted(n, out, g):
    """Whether a table of ``n`` examples whose z tests are in ``out[:, g]`` takes the permutation
    tests: always up to :data:`ALWAYS_EXACT_N` examples, and up to :data:`PERMUTATION_MAX_N` unless
    far from chance (z test below 1 in 10,000), where shuffles could only say "below 1/10,000", a
    floor no multiple-testing correction passes, and enumerating its tables would cost a
    millisecond to refine a p-value no decision turns on."""
    return n <= ALWAYS_EXACT_N or (n <= PERMUTATION_MAX_N and max(out[0, g], out[1, g]) >= SHUFFLE_ABOVE)


@jit
def _refine(c, real, pred, out, g, lf):
    """The permutation mid-p of a table :func:`_one_table` left with its z test in ``out[:, g]``:
    enumerated where its tables are few enough, else (or where enumerating them stops) shuffled
    unless the z test stands, then raised to the floor of any permutation mid-p."""
    n = table_margins(c, real, pred)
    if n <= ALWAYS_EXACT_N and _enumerated_midp(c, real, pred, n, out, g):
        return
    if n <= PERMUTATION_MAX_N and max(out[0, g], out[1, g]) >= SHUFFLE_ABOVE:
        if n > ALWAYS_EXACT_N and _enumerated_midp(c, real, pred, n, out, g):
            return
        _shuffled_midp(c, real, pred, n, out, g)
    _raise_to_floor(c, real, pred, n, out, g, lf)


@jit_inline
def _log_factorial(v, lf):
    """ln v! from the table ``lf`` (``lf[i] = lgamma(i + 1)``) where it reaches, else by lgamma."""
    if v < lf.shape[0]:
        return lf[v]
    return math.lgamma(float(v) + 1.0)


@jit
def log_tied_probability(c, real, pred, n, lf):
    """ln of the permutation probability, given the margins, of tables whose B and M equal the
    observed table's: the observed table itself, ``ln(Π r_i! Π p_j! / (n! Π c_ij!))`` (the
    multivariate hypergeometric pmf of Freeman and Halton), or, when every diagonal cell is at its
    largest ``d_k = min(r_k, p_k)`` (B and M at their maximum given the margins), every table with
    that diagonal: ``Π r! Π p! / (n! Π d_k!) · S! / (Π a_i! Π b_j!)`` with ``a_i = r_i − d_i``,
    ``b_j = p_j − d_j`` and ``S = n − Σ d_k`` (the rows left over and the columns left over are
    of distinct classes, so they fill off-diagonal cells only, in every way: the sum of
    ``1/Π x_ij!`` over their tables is ``S!/(Π a! Π b!)``). ``lf``: ln k! where it reaches (any length).
    """
    k = c.shape[0]
    log_p = -_log_factorial(n, lf)
    at_max = True
    for i in range(k):
        log_p += _log_factorial(real[i], lf) + _log_factorial(pred[i], lf)
        if c[i, i] != min(real[i], pred[i]):
            at_max = False
    if at_max:
        left = np.int64(0)
        for i in range(k):
            d = c[i, i]
            log_p -= _log_factorial(d, lf) + _log_factorial(real[i] - d, lf) + _log_factorial(pred[i] - d, lf)
            left += real[i] - d
        return log_p + _log_factorial(left, lf)
    for i in range(k):
        for j in range(k):
            log_p -= _log_factorial(c[i, j], lf)
    return log_p


@jit
def _raise_to_floor(c, real, pred, n, out, g, lf):
    """Raise B's and M's p-values to half the probability of the tables tied with the observed
    one (:func:`log_tied_probability`), below which no permutation mid-p can be; the exact mid-p
    itself when the statistic is at its maximum and no table reaches as far below the null."""
    if out[0, g] >= 0.5 and out[1, g] >= 0.5:
        return  # the floor is at most 1/2
    floor = 0.5 * math.exp(log_tied_probability(c, real, pred, n, lf))
    for which in range(2):
        out[which, g] = max(out[which, g], floor)


@jit
def _z_test(c, real, pred, n, out, g):
    """``z = T / sd(T)`` of B and M with their exact permutation variance, referred to the normal."""
    k = c.shape[0]
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


@jit_inline
def _bookmaker_times_n(diag, real, pred, n, which):
    """n · (informedness, or markedness for ``which`` = 1) of a table with these margins and diagonal,
    in the operations and order of the observed table's, so equal diagonals give equal bits."""
    stat = 0.0
    for i in range(real.shape[0]):
        m = real[i] if which == 0 else pred[i]
        if m < n:
            stat += float(n * diag[i] - real[i] * pred[i]) / float(n - m)
    return stat


@jit_inline
def _observed(c, real, pred, n):
    """The diagonal of the table (a buffer for the other tables' diagonals after), |n B| and |n M|,
    and how far another table's statistic may differ from them and still count as a tie."""
    k = c.shape[0]
    diag = np.empty(k, np.int64)
    for i in range(k):
        diag[i] = c[i, i]
    observed = np.empty(2)
    tolerance = np.empty(2)
    for which in range(2):
        observed[which] = abs(_bookmaker_times_n(diag, real, pred, n, which))
        # distinct diagonals whose statistics are equal in exact arithmetic may differ in the last bits
        tolerance[which] = 1e-9 * (observed[which] + 1.0)
    return diag, observed, tolerance


@jit_inline
def _sort_by_margin(classes, size, margin):
    """Order the first ``size`` classes by their margin, smallest first (insertion sort: K is small)."""
    for a in range(1, size):
        v = classes[a]
        b = a - 1
        while b >= 0 and margin[classes[b]] > margin[v]:
            classes[b + 1] = classes[b]
            b -= 1
        classes[b + 1] = v


@jit
def _enumerated_midp(c, real, pred, n, out, g):
    """Exact permutation mid-p of B = 0 and M = 0, summed over every table with these margins.

    The free cells (all rows but the last, all columns but the last, of the classes present) run
    through their ranges like an odometer; each row's last cell and the last row follow from the
    margins. Returns False, having written nothing, once there are more than EXACT_TABLES tables.
    """
    k = c.shape[0]
    rows = np.empty(k, np.int64)
    cols = np.empty(k, np.int64)
    n_rows = 0
    n_cols = 0
    for i in range(k):
        if real[i] > 0:
            rows[n_rows] = i
            n_rows += 1
        if pred[i] > 0:
            cols[n_cols] = i
            n_cols += 1
    # the largest row and column last: they are the ones that follow from the others
    _sort_by_margin(rows, n_rows, real)
    _sort_by_margin(cols, n_cols, pred)
    # each free row splits its examples over the columns: at most C(r + C − 1, C − 1) ways, a bound
    # within 2-10x of the count of tables; far above the budget, enumerating would only be wasted
    bound = 1.0
    for a in range(n_rows - 1):
        bound *= math.exp(
            math.lgamma(real[rows[a]] + n_cols) - math.lgamma(real[rows[a]] + 1.0) - math.lgamma(n_cols)
        )
    if bound > 20.0 * EXACT_TABLES:
        return False
    row_left = np.empty(n_rows, np.int64)
    col_left = np.empty(n_cols, np.int64)
    for a in range(n_rows):
        row_left[a] = real[rows[a]]
    for b in range(n_cols):
        col_left[b] = pred[cols[b]]
    lf = np.empty(n + 1)
    for i in range(n + 1):
        lf[i] = math.lgamma(i + 1.0)
    log_const = -lf[n]
    for i in range(k):
        log_const += lf[real[i]] + lf[pred[i]]
    # where each present class sits among the columns (-1: never predicted)
    col_of = np.full(k, -1, np.int64)
    for b in range(n_cols):
        col_of[cols[b]] = b
    diag, observed, tolerance = _observed(c, real, pred, n)
    width = n_cols - 1
    m = (n_rows - 1) * width
    val = np.zeros(max(m, 1), np.int64)
    top = np.zeros(max(m, 1), np.int64)
    last = np.zeros(n_rows, np.int64)  # each free row's cell in the last column
    farther = np.zeros(2)
    same = np.zeros(2)
    tables = 0
    pos = 0
    fresh = True
    while pos >= 0:
        if pos == m:
            tables += 1
            if tables > EXACT_TABLES:
                return False
            log_p = log_const
            for i in range(k):
                diag[i] = 0
            for a in range(n_rows - 1):
                for b in range(width):
                    v = val[a * width + b]
                    log_p -= lf[v]
                    if rows[a] == cols[b]:
                        diag[rows[a]] = v
                log_p -= lf[last[a]]
                if col_of[rows[a]] == width:
                    diag[rows[a]] = last[a]
            for b in range(n_cols):
                log_p -= lf[col_left[b]]  # the last row
            a = rows[n_rows - 1]
            if col_of[a] >= 0:
                diag[a] = col_left[col_of[a]]
            prob = math.exp(log_p)
            for which in range(2):
                d = abs(_bookmaker_times_n(diag, real, pred, n, which)) - observed[which]
                if d > tolerance[which]:
                    farther[which] += prob
                elif d >= -tolerance[which]:
                    same[which] += prob
            pos -= 1
            fresh = False
            continue
        a = pos // width
        b = pos % width
        if fresh:
            right = 0
            for bb in range(b + 1, n_cols):
                right += col_left[bb]
            below = 0
            for aa in range(a + 1, n_rows):
                below += row_left[aa]
            v = max(0, row_left[a] - right, col_left[b] - below)
            top[pos] = min(row_left[a], col_left[b])
        else:
            v = val[pos]
            if b == width - 1:  # the row's last cell goes back first
                row_left[a] += last[a]
                col_left[n_cols - 1] += last[a]
            row_left[a] += v
            col_left[b] += v
            v += 1
        if v > top[pos]:
            pos -= 1
            fresh = False
            continue
        val[pos] = v
        row_left[a] -= v
        col_left[b] -= v
        if b == width - 1:
            last[a] = row_left[a]
            col_left[n_cols - 1] -= last[a]
            row_left[a] = 0
        pos += 1
        fresh = True
    for which in range(2):
        out[which, g] = min(1.0, farther[which] + 0.5 * same[which])
    return True


@jit_inline
def _splitmix64(state):
    """The next state and output of SplitMix64 (Steele, Lea and Flood 2014): a few ns a draw, where
    numba's np.random.randint took some 25 ns, most of the cost of a small table's shuffles."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@jit
def _shuffled_midp(c, real, pred, n, out, g):
    """Monte Carlo permutation mid-p of B = 0 and M = 0 for a small table with too many tables of
    its margins to enumerate. The observed table counts as one more shuffle, tied with itself
    (Phipson and Smyth 2010), so no p-value is 0."""
    k = c.shape[0]
    labels = np.empty(n, np.int64)
    shuffled = np.empty(n, np.int64)
    a = 0
    b = 0
    for i in range(k):
        for _ in range(real[i]):
            labels[a] = i
            a += 1
        for _ in range(pred[i]):
            shuffled[b] = i
            b += 1
    diag, observed, tolerance = _observed(c, real, pred, n)
    farther = np.zeros(2)
    same = np.ones(2)
    state = np.uint64(PERMUTATION_SEED)
    done = 0
    while done < PERMUTATIONS:
        for _ in range(PERMUTATION_BLOCK):
            # Fisher–Yates; a uniform shuffle of the previous shuffle is a uniform shuffle
            for i in range(n - 1, 0, -1):
                state, bits = _splitmix64(state)
                # Lemire's multiply-shift: j uniform on 0..i up to a bias of i / 2^32
                j = np.int64(((bits >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
                shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
            for i in range(k):
                diag[i] = 0
            for i in range(n):
                if labels[i] == shuffled[i]:
                    diag[labels[i]] += 1
            for which in range(2):
                d = abs(_bookmaker_times_n(diag, real, pred, n, which)) - observed[which]
                if d > tolerance[which]:
                    farther[which] += 1.0
                elif d >= -tolerance[which]:
                    same[which] += 1.0
        done += PERMUTATION_BLOCK
        hits = min(farther[0] + 0.5 * same[0], farther[1] + 0.5 * same[1])
        if hits >= PERMUTATION_HITS:
            break
    for which in range(2):
        out[which, g] = min(1.0, (farther[which] + 0.5 * same[which]) / (done + 1.0))
    return True


# a small table may cost milliseconds (its permutation test): threads pay from a few dozen tables
@jit_parallel(serial_below=512)
def multiclass_chance(counts, out, se, undone, wide):
    """``out[0, g]``, ``out[1, g]``: two-sided tests of informedness = 0 and markedness = 0;
    ``se``: :func:`saddle_terms` of the largest table. A small table is left with its z test and
    marked in ``undone[g]`` for :func:`permutation_tests`, one left to the ``wide`` version (as
    :func:`midp_cell`'s) marked :data:`WIDE_UNDONE`; returns whether any was."""
    n_groups, k, _ = counts.shape
    # ln k! up to the largest n (at most K² times the largest cell) within TABLE_PER_GROUP entries a
    # table: the floor's 2K + 1 + K² log-factorials become lookups
    lf = log_factorials(np.int64(np.max(counts)) * k * k, n_groups)
    n_chunks = min(n_groups, 64)
    missed = 0
    for chunk in prange(n_chunks):
        real = np.empty(k, np.int64)
        pred = np.empty(k, np.int64)
        # an empty ln k! table (every lgamma evaluated), allocated here: a global array is
        # read-only to numba, and midp_cell was compiled for it apart from binary_chance's tables
        no_table = np.zeros(0)
        lo = chunk * n_groups // n_chunks
        hi = (chunk + 1) * n_groups // n_chunks
        for g in range(lo, hi):
            left = _one_table(counts[g], real, pred, out, g, se, no_table, lf, wide)
            undone[g] = left
            missed += left
    return missed


# as multiclass_chance: a call of a few hundred small tables compiles only the serial version
@jit_parallel(serial_below=512)
def permutation_tests(counts, at, out):
    """:func:`_refine` the tables ``at`` of ``counts``, in place in ``out``."""
    k = counts.shape[1]
    lf = log_factorials(np.int64(np.max(counts)) * k * k, at.shape[0])
    n_chunks = min(at.shape[0], 64)
    for chunk in prange(n_chunks):
        real = np.empty(k, np.int64)
        pred = np.empty(k, np.int64)
        lo = chunk * at.shape[0] // n_chunks
        hi = (chunk + 1) * at.shape[0] // n_chunks
        for t in range(lo, hi):
            _refine(counts[at[t]], real, pred, out, at[t], lf)


def multiclass_chance_tests(counts: np.ndarray, out: np.ndarray, se: np.ndarray | None) -> None:
    """:func:`multiclass_chance` of every table, then :func:`permutation_tests` of the small tables
    it left with their z tests: the kernel that tables of more than :data:`PERMUTATION_MAX_N`
    examples run never compiles the permutation tests.

    Examples
    --------
    >>> out = np.empty((2, 1))
    >>> multiclass_chance_tests(np.array([[[5, 1, 0], [1, 4, 1], [0, 2, 6]]]), out, None)
    >>> out.round(6).tolist()
    [[0.000121], [0.00021]]
    """
    counts = readonly(counts)  # what the library passes: a caller's writable counts would compile again
    undone = np.zeros(counts.shape[0], np.uint8)
    if multiclass_chance(counts, out, se, undone, None):
        if np.any(undone == WIDE_UNDONE):
            # a table of 2^31 examples or more with one varying cell: all again, by the version that
            # sums its tail (compiled only for such tables)
            multiclass_chance(counts, out, se, undone, True)
        at = np.flatnonzero(undone)
        if len(at):
            # threads by the tables refined, not by the size of the whole tensor
            permutation_tests.by_work(len(at))(counts, at, out)
