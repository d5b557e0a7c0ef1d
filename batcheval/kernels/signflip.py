"""The exact null distribution of a paired sign-flip test of two binary runs.

Under the null, each of the ``m_c`` discordant examples of real class c is the
run's win or the reference's with probability 1/2, independently, so the
statistic is ``D = w_a(2X_a − m_a) + w_b(2X_b − m_b)`` with ``X_c ~ Bin(m_c, 1/2)``.
:func:`two_binomial_tail` sums ``P(X_a = x) · P(|D| ≥ t | X_a = x)`` over x, the inner
probability from the cumulative distribution of ``X_b``: ``O(m_a + m_b)`` per
group (numpy's version of the same sum took 7.7 s for 100k pairs of 200 examples, this 0.3 s).
"""

from __future__ import annotations

import math

import numpy as np

from .binary import measure_value
from .jit import jit, jit_parallel, prange


@jit
def _binomial_half(m: int, out: np.ndarray) -> None:
    """``out[0..m]`` = the Bin(m, 1/2) probabilities, by the ratio recurrence outward
    from the mode and one normalisation: no overflow, and far tails underflow to 0."""
    mode = m // 2
    out[mode] = 1.0
    for j in range(mode, m):
        out[j + 1] = out[j] * (m - j) / (j + 1.0)
    for j in range(mode, 0, -1):
        out[j - 1] = out[j] * j / (m - j + 1.0)
    total = 0.0
    for j in range(m + 1):
        total += out[j]
    for j in range(m + 1):
        out[j] /= total


@jit_parallel
def two_binomial_tail(
    ma: np.ndarray, mb: np.ndarray, wa: np.ndarray, wb: np.ndarray, t: np.ndarray, out: np.ndarray
) -> None:
    """``out[g] = P(|wa(2X_a − ma) + wb(2X_b − mb)| ≥ t)`` for independent
    ``X ~ Bin(m, 1/2)``; ``wa``, ``wb`` ≥ 0, ``t > 0``."""
    for g in prange(len(out)):
        out[g] = _tail(int(ma[g]), int(mb[g]), wa[g], wb[g], t[g])


@jit
def _tables(a, b):
    """``X_a``'s pmf and ``X_b``'s cdf and survival function: what a tail of :func:`_tail_sum` reads."""
    pa = np.empty(a + 1)
    _binomial_half(a, pa)
    out = np.empty(3 * b + 5)
    _fill_tables(b, out)
    return pa, out[b + 1 : 2 * b + 3], out[2 * b + 3 :]


@jit
def _tail_sum(pa, cdf, sf, a, b, wa, wb, t):
    """``P(|D| ≥ t)`` from :func:`_tables`."""
    total = 0.0
    for x in range(a + 1):
        s = wa * (2.0 * x - a)
        if wb > 0.0:
            # X_b >= lo or X_b <= hi
            lo = math.ceil((b + (t - s) / wb) / 2.0)
            hi = math.floor((b + (-t - s) / wb) / 2.0)
            upper = 1.0 if lo <= 0 else (0.0 if lo > b else sf[int(lo)])
            lower = 0.0 if hi < 0 else (1.0 if hi >= b else cdf[int(hi) + 1])
            total += pa[x] * (upper + lower)
        elif abs(s) >= t:
            total += pa[x]
    return min(1.0, max(0.0, total))


@jit
def _tail(a, b, wa, wb, t):
    """:func:`two_binomial_tail` of one group."""
    pa, cdf, sf = _tables(a, b)
    return _tail_sum(pa, cdf, sf, a, b, wa, wb, t)


@jit_parallel
def binary_sign_flip(joint, pos, kind, exact_limit, midp, p, z):
    """The binary sign-flip test of ``inference/paired_se.sign_flip_p`` from flat joint
    tables ``joint[G, 8]`` (``[real, reference's prediction, run's prediction]``), each
    step the numpy version's scalar operation in its order: ``p[g]``, the exact
    two-sided p-value (1 at the observed value 0, NaN where the measure is undefined),
    or, where the class with fewer discordant examples has more than ``exact_limit``,
    ``z[g]``, the continuity-corrected normal statistic whose ``min(1, erfc(z))`` the
    caller takes (``z`` NaN elsewhere). With ``midp`` the mid-p value
    ``P(|D| > |d|) + ½·P(|D| = |d|)`` (still 1 at ``d = 0``), the mean of the tails at
    ``|d| ∓`` the rounding tolerance, and beyond ``exact_limit`` the normal statistic
    without the continuity correction (whose half step the mid-p's half atom replaces).
    ``kind``: the weights of a discordant example of the real positives and negatives,
    0 ``1/n1, 1/n0`` (informedness), 1 half those (auc_single), 2 ``1/n`` both (accuracy),
    3 ``1/n1, 0`` (recall, miss_rate), 4 ``0, 1/n0`` (inverse_recall, fallout).

    The exact tails read the Bin(m, 1/2) tables of each discordant count m once per
    distinct m (:func:`_fill_tables`, into one array), not once per group: runs on one test set share
    them (the leaderboard benchmark's 100k tables, of which 4,096 take the exact tail: 23.7 -> 5.2 ms of one
    thread's CPU), the same tables bit for bit. Where those tables would be large
    (:data:`_SHARED_ENTRIES`), each group builds its own as before."""
    n_groups = joint.shape[0]
    exact = np.full(n_groups, -1, np.int64)  # mb of a group whose tail is exact, else -1
    for g in prange(n_groups):
        undefined, stat, tol, ma, mb, wa, wb = _statistic(joint, g, pos, kind)
        z[g] = np.nan
        if undefined:
            p[g] = np.nan
        elif not (stat > tol):
            p[g] = 1.0
        elif ma <= exact_limit:
            exact[g] = np.int64(mb)
            p[g] = np.nan
        else:
            var = wa * wa * ma + wb * wb * mb
            half_step = min(wa, wb) if wa > 0 and wb > 0 else max(wa, wb)
            d = stat - (0.0 if midp else half_step)
            z[g] = (d if d >= 0.0 else 0.0) / math.sqrt(2.0 * var)
            p[g] = 1.0
    # every m whose table an exact group reads: its mb, and its ma (at most exact_limit), listed
    # sparsely, since one huge mb must not size an array by its value before the entries are known
    n_exact = 0
    top = 0
    for g in range(n_groups):
        if exact[g] >= 0:
            n_exact += 1
            top = max(top, exact[g])
    low = min(max(exact_limit, 0), top)
    ms = np.empty(low + 1 + n_exact, np.int64)
    for m in range(low + 1):
        ms[m] = m
    k = low + 1
    for g in range(n_groups):
        if exact[g] >= 0:
            ms[k] = exact[g]
            k += 1
    ms = np.unique(ms)
    entries = 0
    for m in ms:
        entries += 3 * m + 5
    if entries > _SHARED_ENTRIES:
        for g in prange(n_groups):
            if exact[g] >= 0:
                undefined, stat, tol, ma, mb, wa, wb = _statistic(joint, g, pos, kind)
                pa, cdf, sf = _tables(int(ma), int(mb))
                p[g] = _exact_p(pa, cdf, sf, int(ma), int(mb), wa, wb, stat, tol, midp)
        return
    # the i-th m's tables: pmf, cdf and sf, m + 1, m + 2, m + 2 long, end to end
    start = np.zeros(len(ms) + 1, np.int64)
    for i in range(len(ms)):
        start[i + 1] = start[i] + 3 * ms[i] + 5
    flat = np.empty(start[len(ms)])
    for i in prange(len(ms)):
        _fill_tables(ms[i], flat[start[i] : start[i + 1]])
    for g in prange(n_groups):
        if exact[g] >= 0:
            undefined, stat, tol, ma, mb, wa, wb = _statistic(joint, g, pos, kind)
            a, b = int(ma), int(mb)
            at_a, at_b = start[np.searchsorted(ms, a)], start[np.searchsorted(ms, b)]
            pa = flat[at_a : at_a + a + 1]
            cdf = flat[at_b + b + 1 : at_b + 2 * b + 3]
            sf = flat[at_b + 2 * b + 3 : at_b + 3 * b + 5]
            p[g] = _exact_p(pa, cdf, sf, a, b, wa, wb, stat, tol, midp)


#: Entries (pmf, cdf and sf of every distinct discordant count) past which the exact tails of
#: :func:`binary_sign_flip` build each group's tables on their own: 16M float64, 128 MB
_SHARED_ENTRIES = 1 << 24


@jit
def _fill_tables(m, out):
    """Bin(m, 1/2)'s pmf, cdf and survival function laid end to end in ``out`` (``3m + 5``
    long): ``cdf[j] = P(X <= j - 1)``, ``sf[j] = P(X >= j)``."""
    pb = out[: m + 1]
    _binomial_half(m, pb)
    cdf = out[m + 1 : 2 * m + 3]
    cdf[0] = 0.0
    for j in range(m + 1):
        cdf[j + 1] = cdf[j] + pb[j]
    # the upper tail summed from the top, not 1 − cdf: that loses small tails to cancellation
    # and rounds to −4e-16 where cdf passes 1
    sf = out[2 * m + 3 :]
    sf[m + 1] = 0.0
    for j in range(m, -1, -1):
        sf[j] = sf[j + 1] + pb[j]


@jit
def _exact_p(pa, cdf, sf, a, b, wa, wb, stat, tol, midp):
    """The exact p-value of :func:`binary_sign_flip` from the tables of ``X_a`` and ``X_b``."""
    if midp:
        # the atom at |d| is the difference of the tails either side of it
        at_least = _tail_sum(pa, cdf, sf, a, b, wa, wb, stat - tol)
        beyond = _tail_sum(pa, cdf, sf, a, b, wa, wb, stat + tol)
        return 0.5 * (at_least + beyond)
    return _tail_sum(pa, cdf, sf, a, b, wa, wb, stat - tol)


@jit
def _statistic(joint, g, pos, kind):
    """Group g's ``(undefined, |d|, tolerance, ma, mb, wa, wb)`` for :func:`binary_sign_flip`:
    class a is the one with fewer discordant examples."""
    neg = 1 - pos
    at1, at0 = pos * 4, neg * 4
    n1 = np.float64(joint[g, at1] + joint[g, at1 + 1] + joint[g, at1 + 2] + joint[g, at1 + 3])
    n0 = np.float64(joint[g, at0] + joint[g, at0 + 1] + joint[g, at0 + 2] + joint[g, at0 + 3])
    # discordant examples of each real class, and how many of them the run got right
    c1, b1 = joint[g, pos * 4 + neg * 2 + pos], joint[g, pos * 4 + pos * 2 + neg]
    c0, b0 = joint[g, neg * 4 + pos * 2 + neg], joint[g, neg * 4 + neg * 2 + pos]
    m1, m0 = np.float64(c1 + b1), np.float64(c0 + b0)
    if kind <= 1:
        w1, w0 = 1.0 / n1, 1.0 / n0
        if kind == 1:
            w1, w0 = w1 / 2.0, w0 / 2.0
        undefined = n1 == 0 or n0 == 0
    elif kind == 2:
        w1 = w0 = 1.0 / (n1 + n0)
        undefined = False
    elif kind == 3:
        w1, w0 = 1.0 / n1, 0.0
        undefined = n1 == 0
    else:
        w1, w0 = 0.0, 1.0 / n0
        undefined = n0 == 0
    undefined = undefined or n1 + n0 == 0
    w1 = w1 if m1 > 0 else 0.0
    w0 = w0 if m0 > 0 else 0.0
    stat = abs(w1 * (c1 - b1) + w0 * (c0 - b0))
    if m1 > m0:
        ma, mb, wa, wb = m0, m1, w0, w1
    else:
        ma, mb, wa, wb = m1, m0, w1, w0
    tol = 1e-9 * (wa * ma + wb * mb)
    return undefined, stat, tol, ma, mb, wa, wb


# Bin(m, 1/2) tail mass left out of each side of a swap test's enumeration: at most 4e-16 of a
# p-value in all, below the rounding of the sum itself
_SWAP_TAIL = 1e-16
# the staircase walk of a monotone measure holds two Bin(m, 1/2) tables of this many examples in all
_WALK_LIMIT = 1 << 22


@jit
def _central_range(pmf, m):
    """The smallest ``lo`` with ``P(X < lo) ≤ _SWAP_TAIL`` for ``X ~ Bin(m, 1/2)``; the range
    kept is ``lo..m − lo``, symmetric as the distribution is."""
    lo, below = 0, 0.0
    while lo < m - lo and below + pmf[lo] <= _SWAP_TAIL:
        below += pmf[lo]
        lo += 1
    return lo


@jit
def _swap_value(measure, tp, fp, fn, tn, m1, m0, a, b, b2):
    """The run's value at ``(x₁, x₀) = (a, b)``: the agreed cells plus its share of the discordant ones."""
    return measure_value(measure, tp + a, fp + b, fn + m1 - a, tn + m0 - b, b2)


@jit_parallel(serial_below=4096)
def binary_swap_test(joint, pos, measure, b2, monotone, budget, midp, p, enumerated):
    """The paired randomization (swap) test of any binary measure's difference from flat joint
    tables ``joint[G, 8]`` (``[real, reference's prediction, run's prediction]``), as
    ``inference/paired_se.swap_p`` describes it: ``p[g] = P(|D| ≥ |d|)`` over the swaps of the
    discordant examples, with ``enumerated[g]`` true, where the two classes' kept ranges
    hold at most ``budget`` points (``monotone``: while ``m₁ + m₀`` is at most 2^22);
    elsewhere ``enumerated[g]`` false and ``p[g]`` NaN.

    A table's run and reference are ``measure_value(measure, ·, b2)`` of their 2×2 tables. With
    ``x₁`` of the ``m₁`` discordant positives and ``x₀`` of the ``m₀`` discordant negatives
    predicted positive by the run, the reference's table is the run's at ``(m₁ − x₁, m₀ − x₀)``,
    so ``D(x₁, x₀) = V(x₁, x₀) − V(m₁ − x₁, m₀ − x₀)`` with ``V`` the run's value. A NaN value
    (the measure undefined) counts as less extreme than any number; a NaN observed difference
    gives a NaN p-value.

    Every point is measured (once) unless ``monotone`` says that ``V`` never falls as ``x₁``
    grows nor rises as ``x₀`` does, and is undefined at most at the corners of the
    ``[0, m₁] × [0, m₀]`` box. Then so is ``D``, the points with ``D ≥ t`` form a staircase,
    ``x₁ ≥ a*(x₀)`` with ``a*`` nondecreasing, walked in ``O(m₁ + m₀)`` measures, and
    ``p = 2·P(D ≥ t)`` as ``D`` is symmetric about 0 (the ``D ≤ −t`` half is the mirror image).
    A table with an undefined corner takes the full enumeration.

    ``midp``: the mid-p value ``P(|D| > |d|) + ½·P(|D| = |d|)`` instead (1 at ``|d| ≤ 1e-12``),
    the mean of the sums at ``|d|`` less and more the rounding tolerance (twice the work)."""
    neg = 1 - pos
    for g in prange(joint.shape[0]):
        # the cells where the two runs agree stay put under every swap
        tp = joint[g, pos * 4 + pos * 2 + pos]
        fn = joint[g, pos * 4 + neg * 2 + neg]
        fp = joint[g, neg * 4 + pos * 2 + pos]
        tn = joint[g, neg * 4 + neg * 2 + neg]
        x1, y1 = joint[g, pos * 4 + neg * 2 + pos], joint[g, pos * 4 + pos * 2 + neg]
        x0, y0 = joint[g, neg * 4 + neg * 2 + pos], joint[g, neg * 4 + pos * 2 + neg]
        m1, m0 = x1 + y1, x0 + y0
        d = _swap_value(measure, tp, fp, fn, tn, m1, m0, x1, x0, b2) - _swap_value(
            measure, tp, fp, fn, tn, m1, m0, y1, y0, b2
        )
        enumerated[g] = True
        if math.isnan(d):
            p[g] = np.nan
            continue
        t = abs(d) * (1.0 - 1e-9)  # the observed point itself counts despite rounding
        # a mid-p value at d = 0 is 1; a difference of rounding noise (two equal measures reached
        # by different operations) is 0, else its half-atom would depend on the noise
        if not (t > 0.0) or (midp and abs(d) <= 1e-12):
            p[g] = 1.0
            continue
        walk = monotone and m1 + m0 <= _WALK_LIMIT
        if walk:
            for a, b in ((0, 0), (0, m0), (m1, 0), (m1, m0)):
                if math.isnan(_swap_value(measure, tp, fp, fn, tn, m1, m0, a, b, b2)):
                    walk = False
        p1 = np.empty(m1 + 1)
        _binomial_half(m1, p1)
        p0 = np.empty(m0 + 1)
        _binomial_half(m0, p0)
        lo1 = _central_range(p1, m1)
        lo0 = _central_range(p0, m0)
        w1, w0 = m1 - 2 * lo1 + 1, m0 - 2 * lo0 + 1
        if walk:
            p[g] = _staircase(measure, tp, fp, fn, tn, m1, m0, b2, t, p1, p0, lo1, lo0)
            if midp:
                above = _staircase(
                    measure, tp, fp, fn, tn, m1, m0, b2, abs(d) * (1.0 + 1e-9), p1, p0, lo1, lo0
                )
                p[g] = 0.5 * (p[g] + above)
        elif w1 * w0 <= budget:
            p[g] = _every_point(measure, tp, fp, fn, tn, m1, m0, b2, t, p1, p0, lo1, lo0)
            if midp:
                above = _every_point(
                    measure, tp, fp, fn, tn, m1, m0, b2, abs(d) * (1.0 + 1e-9), p1, p0, lo1, lo0
                )
                p[g] = 0.5 * (p[g] + above)
        else:
            enumerated[g] = False
            p[g] = np.nan


@jit
def _every_point(measure, tp, fp, fn, tn, m1, m0, b2, t, p1, p0, lo1, lo0):
    """``P(|D| ≥ t)`` over every kept point, each measured once."""
    w1, w0 = m1 - 2 * lo1 + 1, m0 - 2 * lo0 + 1
    v = np.empty((w1, w0))
    for i in range(w1):
        for j in range(w0):
            v[i, j] = _swap_value(measure, tp, fp, fn, tn, m1, m0, lo1 + i, lo0 + j, b2)
    total = 0.0
    for i in range(w1):
        row = 0.0
        for j in range(w0):
            # the point (m₁ − a, m₀ − b) sits at index (w − 1 − i, w − 1 − j)
            if abs(v[i, j] - v[w1 - 1 - i, w0 - 1 - j]) >= t:
                row += p0[lo0 + j]
        total += p1[lo1 + i] * row
    return min(1.0, total)


@jit
def _staircase(measure, tp, fp, fn, tn, m1, m0, b2, t, p1, p0, lo1, lo0):
    """``2·P(D ≥ t)`` for a monotone measure: for each ``x₀`` the smallest ``x₁`` with
    ``D ≥ t``, which never decreases as ``x₀`` grows, and the ``X₁`` tail above it."""
    hi1, hi0 = m1 - lo1, m0 - lo0
    tail = np.zeros(hi1 + 2)  # tail[a] = P(a ≤ X₁ ≤ hi1) over the kept range
    for a in range(hi1, lo1 - 1, -1):
        tail[a] = tail[a + 1] + p1[a]
    total = 0.0
    a = lo1
    for b in range(lo0, hi0 + 1):
        while a <= hi1 and (
            _swap_value(measure, tp, fp, fn, tn, m1, m0, a, b, b2)
            - _swap_value(measure, tp, fp, fn, tn, m1, m0, m1 - a, m0 - b, b2)
            < t
        ):
            a += 1
        if a > hi1:
            break  # and so for every greater x₀
        total += p0[b] * tail[a]
    return min(1.0, 2.0 * total)
