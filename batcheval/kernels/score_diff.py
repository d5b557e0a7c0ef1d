"""Miettinen–Nurminen score interval of a difference of two independent proportions.

For ``x1`` of ``n1`` and ``x0`` of ``n0`` successes and a hypothesised difference
``δ = p1 − p0``, the score statistic is

.. math:: T(δ) = \\frac{x_1/n_1 - x_0/n_0 - δ}{\\sqrt{\\big(\\tilde p_1(1-\\tilde p_1)/n_1
          + \\tilde p_0(1-\\tilde p_0)/n_0\\big)\\,N/(N-1)}}

with ``p̃0, p̃1 = p̃0 + δ`` the maximum-likelihood estimates under ``δ`` (Miettinen &
Nurminen 1985, Statist. Med. 4:213; Farrington & Manning 1990) and ``N = n1 + n0`` (the
``N/(N − 1)`` factor is Miettinen and Nurminen's small-sample correction). statsmodels 0.15 has
``count0`` for ``n0`` in the restricted estimate's cubic (statsmodels issue #10269, fix pending in
PR #10270), so its score interval differs from this one unless ``x0 = n0``. The interval is
``{δ : |T(δ)| ≤ z}``.

The ends are searched along the Lagrange multiplier λ of the constraint instead of along δ. For
a given λ each rate maximises its own likelihood less ``±λ·p``: ``x1/p1 − (n1 − x1)/(1 − p1) = λ``
and ``x0/p0 − (n0 − x0)/(1 − p0) = −λ``, each the root in [0, 1] of a quadratic, and the pair is
the restricted estimate for ``δ(λ) = p1 − p0``, which falls as λ rises. Multiplying out,
``x − n·p = λ·p(1 − p)``, so the numerator of T is ``λ·V`` with ``V = Σ p(1 − p)/n`` its own
variance, and ``T(λ) = λ·√(V·(N − 1)/N)``: no difference of nearly equal numbers anywhere. Each
rate and its complement come from the quadratic's form without cancellation (one square root of
the discriminant serves both; it is also ``|dp/dλ|``'s denominator), and ``δ`` is formed from
them, near −1 as ``(p1 + (1 − p0)) − 1``. The search for the δ by the cubic's trigonometric root
(as before) lost the restricted estimate of a rare event to the cancellation of O(1) terms: at
``x1 = 1`` of 10⁹ against 0 of 10⁹ its interval was (−5.1e-9, 6.9e-9) where the inversion's is
(−2.84e-9, 5.66e-9), and its absolute stopping width (1e-13) was a large share of a narrow
interval. Each end is the root of ``ln T² = 2 ln|λ| + ln V + ln((N − 1)/N) = ln z²``, increasing
in ``ln|λ|``, by Newton's steps in ``ln|λ|`` inside a bracket that every step keeps (a step that
leaves it, or did not halve the excess, bisects), from ``λ = z/√V̂``; once a step is below
:data:`NEWTON_LAST` it is taken linearly on δ (``dδ/dλ = −(V + λ·dV/dλ)``). That is 2.8
evaluations an end on random tables of up to 5,000 a sample (the cubic's search took 5-6), and the
ends are within 3e-11 of the interval's width of a 50-digit inversion from 10 to 10¹² a sample, or
correctly rounded where an end near ±1 has no more digits (2.4e-11 for rates near ½ at 10¹², where
``p1 − p0`` rounds; 1e-9 is what tests/test_score_diff_large_counts.py asks). A rate at a bound
(``x0 = 0``) stays there until |λ| reaches its sample's size, where it leaves it as ``(λ − n0)/λ``:
beyond that kink the search runs in ``ln|λ − n0|``, so that the rate keeps its digits however close
λ is to n0. A bound ±1 is the end where the estimate is that bound (``x1 = 0`` and ``x0 = n0``, or
the reverse), where the statistic is 0 on the whole side. tests/reference/mn_mpmath.py inverts the
test in 150 digits.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_inline, jit_parallel, prange

#: An end's search stops once Newton's step in ``ln|λ|`` is below this, taking that step linearly:
#: its error, and that of the point it reaches, are of order its square, 1e-14 of the end's distance
#: from the estimate (``dδ/d ln|λ| ≈ −λV``) at most, 1e-15 to 1e-16 of it on most tables.
NEWTON_LAST = 1e-7
#: ... or once the bracket of ``ln|λ|`` is this narrow (bisection on a flat or noisy statistic).
LOG_TOL = 1e-14
#: Bracket-halving steps of one end at most (Newton's steps converge in a few; each failed one
#: is a bisection of the bracket in ``ln|λ|``, whose width is at most some 200).
_MAX_STEPS = 200


@jit_inline
def _root_of_discriminant(x: float, n: float, a: float, b_p: float, b_q: float) -> float:
    """``√D`` of ``a·p² − (a + n)·p + x = 0`` (whose root in [0, 1] is the rate of :func:`_rate`) as a
    sum of non-negative terms, ``D = (n − a)² + 4a(n − x)`` for ``a ≥ 0`` and ``(n + a)² − 4a·x``
    below, from ``b_p = n + a`` and ``b_q = n − a`` formed by the caller without rounding where they
    are small. The complement's quadratic (``x → n − x``, ``a → −a``) has the same ``D``; ``√D`` is
    ``−f'(p)``, the denominator of ``|dp/da|``."""
    if a >= 0.0:
        return math.sqrt(b_q * b_q + 4.0 * a * (n - x))
    return math.sqrt(b_p * b_p - 4.0 * a * x)


@jit_inline
def _rate(x: float, a: float, b: float, root: float) -> float:
    """The root in [0, 1] of ``a·p² − b·p + x`` with ``b = a + n`` (``x/p − (n − x)/(1 − p) = a``),
    given ``√D``: ``2x/(b + √D)`` for ``b > 0`` and ``(b − √D)/(2a)`` otherwise (then ``a ≤ −n``),
    the two forms in which the terms never cancel."""
    if b > 0.0:
        return 2.0 * x / (b + root)
    return (b - root) / (2.0 * a)


@jit_inline
def _excess(x1: float, n1: float, x0: float, n0: float, c: float, mu: float, log_k: float):
    """The score statistic at multiplier ``λ = c + mu``: ``(ln T² − ln z², its derivative in
    ln|mu|, δ(λ), dδ/d ln|mu|)``, ``log_k = ln(z²·N/(N − 1))``; −inf where the variance is 0 (a
    side on which both rates stay at bounds for a while). ``c`` is 0 or the multiplier where a rate
    at a bound leaves it (``±n0``, ``±n1``: :func:`_end`), so that ``n ± λ`` is formed without
    rounding from the exact ``n ± c``, and the rate leaving its bound (``mu/λ`` for ``x0 = 0``) is
    resolved to its last digits however close λ is to ``c``."""
    lam = c + mu
    # p1 maximises its likelihood less λ·p1, p0 less −λ·p0: a = λ and −λ, b = n + a, n − a
    bp1, bq1 = (n1 + c) + mu, (n1 - c) - mu
    bp0, bq0 = (n0 - c) - mu, (n0 + c) + mu
    r1 = _root_of_discriminant(x1, n1, lam, bp1, bq1)
    r0 = _root_of_discriminant(x0, n0, -lam, bp0, bq0)
    p1, q1 = _rate(x1, lam, bp1, r1), _rate(n1 - x1, -lam, bq1, r1)
    p0, q0 = _rate(x0, -lam, bp0, r0), _rate(n0 - x0, lam, bq0, r0)
    v1, v0 = p1 * q1, p0 * q0
    v = v1 / n1 + v0 / n0
    # dp1/dλ = −p1(1 − p1)/√D1 and dp0/dλ = p0(1 − p0)/√D0; a double root (√D = 0) is a rate at a bound
    dv = 0.0
    if r1 > 0.0:
        dv -= (q1 - p1) / n1 * v1 / r1
    if r0 > 0.0:
        dv += (q0 - p0) / n0 * v0 / r0
    # δ from the small rates and complements, so that an end near a bound keeps its distance from it
    delta = p1 - p0
    if delta < -0.5:
        delta = (p1 + q0) - 1.0
    elif delta > 0.5:
        delta = 1.0 - (q1 + p0)
    elif p1 + p0 > 1.0:
        delta = q0 - q1  # two rates near 1: their complements carry the digits
    # δ = d̂ − λV (x − n·p = a·p(1 − p) for each rate), so dδ/dλ = −(V + λ·dV/dλ)
    slope = -mu * (v + lam * dv)
    if not v > 0.0:
        return -math.inf, 0.0, delta, slope
    return 2.0 * math.log(abs(lam)) + math.log(v) - log_k, mu * (2.0 / lam + dv / v), delta, slope


@jit
def _end(x1: float, n1: float, x0: float, n0: float, z2: float, side: float) -> float:
    """The end below the estimate (``side`` −1: λ > 0) or above it (``side`` 1: λ < 0)."""
    if side < 0.0 and x1 == 0.0 and x0 == n0:
        return -1.0  # the estimate is −1: T is 0 on the whole side
    if side > 0.0 and x1 == n1 and x0 == 0.0:
        return 1.0
    big_n = n1 + n0
    log_k = math.log(z2 * big_n / (big_n - 1.0))
    sign = -side
    # a rate at a bound on this side stays there until |λ| reaches its sample's size: x0 = 0 and
    # x1 = n1 for λ > 0, x1 = 0 and x0 = n0 for λ < 0. Where the statistic is still below z there,
    # the search runs in ln|λ − c| beyond that kink c instead of in ln|λ|
    k1 = n1 if (x1 == n1 if sign > 0.0 else x1 == 0.0) else 0.0
    k0 = n0 if (x0 == 0.0 if sign > 0.0 else x0 == n0) else 0.0
    c = 0.0
    f_c = 0.0
    for kink in (min(k1, k0), max(k1, k0)):
        if kink > abs(c):
            f_k, _, _, _ = _excess(x1, n1, x0, n0, sign * kink, 0.0, log_k)
            if f_k >= 0.0:
                break
            c, f_c = sign * kink, f_k
    if c == 0.0:
        v_hat = x1 * (n1 - x1) / (n1 * n1 * n1) + x0 * (n0 - x0) / (n0 * n0 * n0)
        s = 0.5 * (log_k - math.log(v_hat))  # |λ| = z/√V̂ (V̂ > 0: else there is a kink)
    else:
        # beyond c the rate leaving its bound adds about |mu|/|c|² to V, which must make up z²/λ²
        s = log_k + math.log(max(-math.expm1(f_c), 1e-300))
    f, df, delta, slope = _excess(x1, n1, x0, n0, c, sign * math.exp(s), log_k)
    # the bracket [lo, hi] of s (f(lo) < 0 <= f(hi)) that the points evaluated so far give
    lo, hi = -math.inf, math.inf
    widen = 1.0
    last = math.inf  # |f| of the point before
    for _ in range(_MAX_STEPS):
        if f >= 0.0:
            hi = s
        else:
            lo = s
        if f == 0.0 or hi - lo <= LOG_TOL:
            break
        step = -f / df if df > 0.0 and f > -math.inf else math.nan
        if abs(step) <= NEWTON_LAST:
            # the last Newton step moves δ linearly: its error is of order step², and the
            # evaluation it spares would only round the same digits again
            return delta + slope * step
        # where a rate at the edge of its range leaves it (x = 1 of 10⁴), the statistic rises like a
        # step, across which Newton's steps bounce from side to side: a step that did not halve |f|
        # is followed by a bisection
        slow = abs(f) > 0.5 * last
        last = abs(f)
        t = s + step
        if slow or not lo < t < hi:  # no finite step, one that leaves the bracket, or a slow one
            if lo == -math.inf:
                t = hi - widen
                widen *= 2.0
            elif hi == math.inf:
                t = lo + widen
                widen *= 2.0
            else:
                t = 0.5 * (lo + hi)
        s = t
        f, df, delta, slope = _excess(x1, n1, x0, n0, c, sign * math.exp(s), log_k)
    return delta


#: Fewer tables than this take the kernel that is cheaper to compile (:func:`_few_intervals`):
#: 0.4 µs more a table, under 2 ms below it.
FEW_TABLES = 4096


# threads from FEW_TABLES on: the default switch (65,536 elements an array) left the
# leaderboard benchmark's 56,961 distinct tables on one thread (49 ms wall of two threads)
@jit_parallel(serial_below=FEW_TABLES)
def _intervals(x1, n1, x0, n0, z, low, high):
    """:func:`score_diff_interval` of many tables, on threads."""
    z2 = z * z
    for g in prange(x1.shape[0]):
        a1, m1, a0, m0 = float(x1[g]), float(n1[g]), float(x0[g]), float(n0[g])
        if m1 <= 0.0 or m0 <= 0.0:
            low[g] = np.nan
            high[g] = np.nan
            continue
        low[g] = _end(a1, m1, a0, m0, z2, -1.0)
        high[g] = _end(a1, m1, a0, m0, z2, 1.0)


@jit
def _few_intervals(x1, n1, x0, n0, z, low, high):
    """:func:`_intervals` for fewer than :data:`FEW_TABLES` tables, serial: the same :func:`_end`
    of each table, so the same ends to the bit, and no parallel kernel to compile for a board of
    a few runs on a fresh machine."""
    z2 = z * z
    for g in range(x1.shape[0]):
        a1, m1, a0, m0 = float(x1[g]), float(n1[g]), float(x0[g]), float(n0[g])
        if m1 <= 0.0 or m0 <= 0.0:
            low[g] = np.nan
            high[g] = np.nan
            continue
        low[g] = _end(a1, m1, a0, m0, z2, -1.0)
        high[g] = _end(a1, m1, a0, m0, z2, 1.0)


def score_diff_interval(
    x1: np.ndarray,
    n1: np.ndarray,
    x0: np.ndarray,
    n0: np.ndarray,
    z: float,
    low: np.ndarray,
    high: np.ndarray,
) -> None:
    """Fill ``low``/``high`` with the score interval of ``x1/n1 − x0/n0`` (NaN where a size is 0).

    Examples
    --------
    >>> low, high = np.empty(1), np.empty(1)
    >>> score_diff_interval(np.array([30]), np.array([50]), np.array([20]), np.array([50]), 1.96, low, high)
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.003, 0.382)
    """
    if x1.shape[0] < FEW_TABLES:
        _few_intervals(x1, n1, x0, n0, z, low, high)
    else:
        _intervals(x1, n1, x0, n0, z, low, high)


# --- the score test of a difference of two such differences (unpaired runs' informedness) ---

#: Newton steps (each falling back to bisection when it leaves the bracket) at most per table.
_MAX_NEWTON = 200


@jit_inline
def _constrained_rate(x: float, n: float, a: float) -> float:
    """The rate of most likelihood for ``x`` of ``n`` with the Lagrange term ``a·p`` subtracted:
    the root in [0, 1] of ``a·p² − (a + n)·p + x`` (``x/p − (n − x)/(1 − p) = a``), in the form
    that does not cancel; ``x = 0`` with ``a < −n`` has it at ``1 + n/a``."""
    b = a + n
    root = math.sqrt(max(b * b - 4.0 * a * x, 0.0))
    if b + root > 0.0:
        p = 2.0 * x / (b + root)
    else:
        p = b / a
    return min(1.0, max(0.0, p))


@jit_inline
def _rate_slope(n: float, a: float, p: float) -> float:
    """``|dp/da|`` of :func:`_constrained_rate` at its root ``p``: ``p(1 − p)/(n + a(1 − 2p))`` by
    implicit differentiation of the quadratic (one division; the denominator is ``−f'(p)``,
    positive at the root in [0, 1]); 0 where ``p`` sits at a bound (it stays there for a small
    change of ``a``)."""
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return p * (1.0 - p) / (n + a * (1.0 - 2.0 * p))


@jit
def constrained_variance(x1, n1, x0, n0, y1, m1, y0, m0):
    """``Σ p̃_i(1 − p̃_i)/n_i`` at the four binomial rates of most likelihood under
    ``p₁ − p₀ − q₁ + q₀ = 0`` (``x1`` of ``n1``, ``x0`` of ``n0``: the run's; ``y1`` of ``m1``,
    ``y0`` of ``m0``: its reference's; every size positive).

    For a multiplier λ each rate maximises its own likelihood less ``λ·c_i·p_i`` (``c`` =
    +1, −1, −1, +1), so ``S(λ) = Σ c_i p_i(λ)`` falls as λ grows, from +2 to −2, and
    ``S(±2N) `` already has the sign of its limit (``N`` the four sizes' sum: each rate is
    then within ``n_i/(n_i + 2N)`` of its bound). Newton's steps on ``S(λ) = 0`` from λ = 0
    (the observed rates), with ``S' = −Σ |dp_i/dλ|``, inside a bracket that every step keeps;
    a step that leaves it, a flat ``S`` or a step that did not halve ``|S|`` bisects instead.
    Once ``|S| ≤ 1e-9`` the last step moves the rates linearly (an error of order ``S²``): 3-4
    evaluations of S on most tables."""
    big = 2.0 * (n1 + n0 + m1 + m0)
    lo, hi = -big, big
    lam = 0.0
    var = 0.0
    last = 4.0  # |S| of the step before
    for _ in range(_MAX_NEWTON):
        p1 = _constrained_rate(x1, n1, lam)
        p0 = _constrained_rate(x0, n0, -lam)
        q1 = _constrained_rate(y1, m1, -lam)
        q0 = _constrained_rate(y0, m0, lam)
        s = p1 - p0 - q1 + q0
        var = p1 * (1.0 - p1) / n1 + p0 * (1.0 - p0) / n0 + q1 * (1.0 - q1) / m1 + q0 * (1.0 - q0) / m0
        if s == 0.0:
            break
        if s > 0.0:
            lo = lam
        else:
            hi = lam
        if hi - lo <= 1e-13 * max(1.0, abs(lam)):
            break
        s1, s0 = _rate_slope(n1, lam, p1), _rate_slope(n0, -lam, p0)
        t1, t0 = _rate_slope(m1, -lam, q1), _rate_slope(m0, lam, q0)
        slope = s1 + s0 + t1 + t0
        if abs(s) <= 1e-9 and slope > 0.0:
            # the last Newton step taken on the rates themselves, linearly (dp_i/dλ = −c_i·slope_i):
            # its error is of order S², so the four square roots of one more evaluation are spared
            h = s / slope
            p1, p0, q1, q0 = p1 - s1 * h, p0 + s0 * h, q1 + t1 * h, q0 - t0 * h
            var = p1 * (1.0 - p1) / n1 + p0 * (1.0 - p0) / n0 + q1 * (1.0 - q1) / m1 + q0 * (1.0 - q0) / m0
            break
        step = lam + s / slope if slope > 0.0 else 0.5 * (lo + hi)
        # a rate leaving its bound (x = 0 or n) puts a kink in S, across which Newton's steps
        # can bounce from side to side: a step that did not halve |S| is followed by a bisection
        slow = abs(s) > 0.5 * last
        last = abs(s)
        lam = step if lo < step < hi and not slow else 0.5 * (lo + hi)
    return var


@jit_parallel
def equal_difference_score_p(cells, ref, markedness, min_margin, p):
    """The score test that two independent 2×2 tables have equal informedness (``markedness``
    false: ``tp/(tp + fn) − fp/(fp + tn)``) or markedness (``tp/(tp + fp) − fn/(fn + tn)``):
    ``p[g] = erfc(|d| / √(2·v))`` with ``d`` the observed difference of table g's value from
    table ``ref[g]``'s and ``v`` :func:`constrained_variance` of their four rates; 1 where both
    are 0. ``cells[G, 4]``: tp, fp, fn, tn. NaN where ``ref[g] < 0``, where a margin of either
    table (real or predicted class size) is below ``min_margin``, or where ``v`` is 0 and ``d``
    is not: the caller's other test applies there."""
    for g in prange(cells.shape[0]):
        p[g] = np.nan
        r = ref[g]
        if r < 0:
            continue
        tp, fp, fn, tn = float(cells[g, 0]), float(cells[g, 1]), float(cells[g, 2]), float(cells[g, 3])
        up, uf, un, ut = float(cells[r, 0]), float(cells[r, 1]), float(cells[r, 2]), float(cells[r, 3])
        least = min(tp + fn, fp + tn, tp + fp, fn + tn, up + un, uf + ut, up + uf, un + ut)
        if not (least >= min_margin) or least <= 0.0:
            continue
        if markedness:
            x1, n1, x0, n0, y1, m1, y0, m0 = tp, tp + fp, fn, fn + tn, up, up + uf, un, un + ut
        else:
            x1, n1, x0, n0, y1, m1, y0, m0 = tp, tp + fn, fp, fp + tn, up, up + un, uf, uf + ut
        d = (x1 / n1 - x0 / n0) - (y1 / m1 - y0 / m0)
        v = constrained_variance(x1, n1, x0, n0, y1, m1, y0, m0)
        if v > 0.0:
            p[g] = math.erfc(abs(d) / math.sqrt(2.0 * v))
        elif abs(d) <= 1e-12:
            p[g] = 1.0
