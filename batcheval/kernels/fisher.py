"""Fisher's exact test for many 2×2 tables: the hypergeometric upper tail.

The pmf is the saddle-point form of Loader (2000), as R's ``dhyper`` and
scipy compute it: ``lgamma(n + 1) − lgamma(k + 1) − …`` loses
``u·lgamma(n)`` ≈ 3e-8 of relative precision at n = 2e7 to cancellation,
while Stirling's error terms and the deviance ``bd0`` are small numbers
formed without it. The tail is summed away from the mode with a ratio
recurrence (renewed from the pmf every :data:`_RENEW` terms, so its
roundings cannot pile up) and compensated summation: about 1e-14 relative
error at any n.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_inline, jit_parallel, prange

# stirlerr(k) = ln k! − (k + ½) ln k + k − ½ ln 2π for k = 0..15, to 20 digits
_STIRLERR = np.array(
    [
        0.0,
        0.08106146679532725822,
        0.041340695955409294094,
        0.027677925684998339149,
        0.020790672103765093112,
        0.016644691189821192163,
        0.013876128823070747999,
        0.011896709945891770095,
        0.010411265261972096497,
        0.0092554621827127329177,
        0.0083305634333628712565,
        0.007573675487951840795,
        0.0069428401072095298657,
        0.0064089941880042070684,
        0.0059513701127588477356,
        0.005554733551962801371,
    ]
)
_LN_2PI = math.log(2.0 * math.pi)
# ratio-recurrence steps before the term is recomputed from the pmf
_RENEW = 128


#: Counts whose Stirling error term :func:`stirlerr_table` tabulates: above it the series takes
#: two divisions, below it up to five (a chain of some 70 cycles, nine times a pmf).
STIRLERR_TABLE_SIZE = 501


@jit
def stirlerr(k):
    """Stirling's error term of ln k! for a count ``k`` (a float)."""
    if k <= 15.0:
        return _STIRLERR[int(k)]
    kk = k * k
    if k > 500.0:
        return (1.0 / 12 - 1.0 / 360 / kk) / k
    if k > 80.0:
        return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kk) / kk) / k
    if k > 35.0:
        return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - 1.0 / 1680 / kk) / kk) / kk) / k
    return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - 1.0 / 1188 / kk) / kk) / kk) / kk) / k


@jit
def stirlerr_table(top):
    """``stirlerr(k)`` for k = 0 .. min(top, :data:`STIRLERR_TABLE_SIZE` − 1): the same bits,
    looked up (the tables' own n is the largest count a pmf needs)."""
    size = max(0, min(top + 1, STIRLERR_TABLE_SIZE))
    se = np.empty(size, np.float64)
    for k in range(size):
        se[k] = stirlerr(float(k))
    return se


@jit_inline
def _stirlerr_at(k, se):
    """``stirlerr(k)``, from ``se`` where it reaches."""
    if k < se.shape[0]:
        return se[int(k)]
    return stirlerr(k)


@jit
def _bd0(x, m):
    """The deviance term ``x ln(x/m) + m − x``, by its series near ``x = m``."""
    if abs(x - m) < 0.1 * (x + m):
        v = (x - m) / (x + m)
        s = (x - m) * v
        ej = 2.0 * x * v
        v = v * v
        for j in range(1, 1000):
            ej *= v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
        return s
    return x * math.log(x / m) + m - x


@jit
def _log_binom_raw(x, n, n_x, np_, nq, se):
    """ln of the binomial pmf ``C(n, x) p^x q^(n−x)`` with ``n_x = n − x`` (formed by the caller
    from the counts: above 2^53 the float of n − x is not the difference of the floats),
    ``np_ = n·p`` and ``nq = n·q`` (Loader's ``dbinom_raw``, in logs so that no factor underflows)."""
    if x == 0.0:
        if n == 0.0:
            return 0.0
        return -_bd0(n, nq) - np_ if np_ < 0.1 * n else n * math.log(nq / n)
    if n_x == 0.0:
        return -_bd0(n, np_) - nq if nq < 0.1 * n else n * math.log(np_ / n)
    lc = _stirlerr_at(n, se) - _stirlerr_at(x, se) - _stirlerr_at(n_x, se) - _bd0(x, np_) - _bd0(n_x, nq)
    # ln((n − x)/n), not log1p(−x/n): near x = n the rounding of x/n is all that is left of (n − x)/n
    # (2e-10 of the pmf at n = 1e9 for the mirrored tail of a test with few predicted positives)
    return lc - 0.5 * (_LN_2PI + math.log(x) + math.log(n_x / n))


@jit
def log_pmf(k, n, rp, pp, se):
    """ln P(X = k) for X ~ Hypergeometric(population n, successes rp, draws pp),
    for ``max(0, pp − (n − rp)) <= k <= min(rp, pp)`` and ``0 < pp < n``; ``se`` from
    :func:`stirlerr_table` (any length).

    Every difference of counts is formed before it is turned into a float: from 2^53 examples the
    floats of n and pp are no longer whole, and an independent table of 2^54 (pmf 1/4 at k − 1)
    came out with a pmf of 1 there."""
    nf = float(n)
    rpf = float(rp)
    rnf = float(n - rp)
    ppf = float(pp)
    pnf = float(n - pp)
    p = ppf / nf
    q = pnf / nf
    return (
        _log_binom_raw(float(k), rpf, float(rp - k), rpf * p, rpf * q, se)
        + _log_binom_raw(float(pp - k), rnf, float(n - rp - pp + k), rnf * p, rnf * q, se)
        - _log_binom_raw(ppf, nf, pnf, ppf, pnf, se)
    )


@jit_inline
def _up(k, n, rp, pp):
    """pmf(k + 1) / pmf(k)."""
    return float(rp - k) * float(pp - k) / ((k + 1.0) * float(n - rp - pp + k + 1))


@jit_inline
def _down(k, n, rp, pp):
    """pmf(k − 1) / pmf(k)."""
    return k * float(n - rp - pp + k) / (float(rp - k + 1) * float(pp - k + 1))


@jit
def upper_tail(x, n, rp, pp, se):
    """P(X >= x) for X ~ Hypergeometric(population n, successes rp, draws pp); ``se`` from
    :func:`stirlerr_table` (any length: the bits do not depend on it).

    Sums away from the mode, where the terms only shrink: upward from ``x``
    above the mode, else the lower tail downward from ``x - 1`` and one minus
    that (then the answer is at least about 1/3, so the complement costs no
    relative precision). Counts are turned into floats before any product
    (for tables of billions they pass int64), but after any difference.

    Examples
    --------
    >>> round(upper_tail(3, 8, 4, 4, stirlerr_table(8)), 6)  # (4·4 + 1) of the C(8, 4) = 70 draws of 4
    0.242857
    """
    lo = max(0, pp - (n - rp))
    hi = min(rp, pp)
    if x <= lo:
        return 1.0
    if x > hi:
        return 0.0
    # x is above the mode floor((rp + 1)(pp + 1)/(n + 2)) when x(n + 2) > (rp + 1)(pp + 1), that is
    # when the table's determinant tp·tn − fp·fn passes fp + fn + 1: formed from the cells, whose
    # floats multiply within a rounding (the margins' floats lost the cells of 1 from 2^53 examples,
    # and a tail of 1e-16 came out 1 as the complement of the other). One variable for both
    # directions: one loop below, not one for each literal step
    det = float(x) * float(n - rp - pp + x) - float(rp - x) * float(pp - x)
    step = 1 if det > float(rp + pp - 2 * x + 1) else -1
    start = x if step > 0 else x - 1
    stop = hi if step > 0 else lo
    # pmf(start) + pmf(start + step) + … toward stop (inclusive) while the terms still count, as
    # a compensated sum: the terms shrink the whole way, since start is beyond the mode, so the
    # running total is never below the next term and Kahan–Neumaier needs no branch. (Here and
    # not in a jitted helper of its own: numba compiles each such helper apart, at a cost.)
    total = 0.0
    comp = 0.0
    k = start
    term = math.exp(log_pmf(k, n, rp, pp, se))
    renew = _RENEW
    while True:
        t = total + term
        comp += (total - t) + term
        total = t
        # a term of 0 has underflowed, and every later one is smaller: without this test a table of
        # billions far from independence would step through its whole support, a term at a time
        if k == stop or term < total * 1e-17 or term == 0.0:
            break
        if step > 0:
            term *= _up(k, n, rp, pp)
        else:
            term *= _down(k, n, rp, pp)
        k += step
        renew -= 1
        if renew == 0:
            term = math.exp(log_pmf(k, n, rp, pp, se))
            renew = _RENEW
    if step > 0:
        return min(total + comp, 1.0)
    return max(0.0, (1.0 - total) - comp)


# some 200-300 ns a table: every thread pays from a few thousand tables
@jit_parallel(serial_below=2048)
def fisher_greater(tp, fp, fn, tn, out):
    """One-sided Fisher exact p-values toward positive association; NaN when n = 0.

    ``tp fp fn tn`` are the int64 cell columns of G tables.
    """
    top = np.int64(0)  # not a literal 0, whose own type compiled stirlerr_table a second time
    for g in range(tp.shape[0]):
        top = max(top, tp[g] + fp[g] + fn[g] + tn[g])
    se = stirlerr_table(top)
    for g in prange(tp.shape[0]):
        n = tp[g] + fp[g] + fn[g] + tn[g]
        if n == 0:
            out[g] = np.nan
        else:
            out[g] = upper_tail(tp[g], n, tp[g] + fn[g], tp[g] + fp[g], se)
