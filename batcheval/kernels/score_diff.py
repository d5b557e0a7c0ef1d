"""Miettinen–Nurminen score interval of a difference of two independent proportions.

For ``x1`` of ``n1`` and ``x0`` of ``n0`` successes and a hypothesised difference
``δ = p1 − p0``, the score statistic is

.. math:: T(δ) = \\frac{x_1/n_1 - x_0/n_0 - δ}{\\sqrt{\\big(\\tilde p_1(1-\\tilde p_1)/n_1
          + \\tilde p_0(1-\\tilde p_0)/n_0\\big)\\,N/(N-1)}}

with ``p̃0, p̃1 = p̃0 + δ`` the maximum-likelihood estimates under ``δ`` (the root
of a cubic, solved in closed form with the trigonometric formula of Miettinen &
Nurminen 1985, Statist. Med. 4:213, appendix; Farrington & Manning 1990) and
``N = n1 + n0`` (the ``N/(N − 1)`` factor is Miettinen and Nurminen's small-sample
correction). statsmodels 0.15 has ``count0`` for ``n0`` in the cubic's linear
coefficient (statsmodels issue #10269, fix pending in PR #10270), so its score
interval differs from this one unless ``x0 = n0``. The interval is
``{δ : |T(δ)| ≤ z}``; ``T`` falls as ``δ`` rises, so each end is the root of the
continuous ``g(δ) = (x1/n1 − x0/n0 − δ)² − z²·var(δ)`` on ``[−1, d̂]`` and ``[d̂, 1]``. Each step
takes ``var`` as linear in ``δ`` through the last two points evaluated and solves the quadratic,
inside a bracket that every step keeps (an accepted and a rejected ``δ``), with a bisection step
whenever three steps fail to halve it, down to a width of :data:`END_TOL`. That takes 5–6
evaluations of ``g`` per end on tables of hundreds to thousands, where bisection to the last bit of
a float64 took 55 and more (the leaderboard's intervals then cost 3.7× its evaluate; issues #20,
#24). Where ``g`` is well conditioned no end moves by more than :data:`END_TOL` from bisection's;
where it is rounding noise (ends near ±1, samples of very unequal size) both are noise of the same
size (docs/performance.md). This is statsmodels'
``confint_proportions_2indep(method="score", compare="diff")`` (which inverts the
test with ``brentq``) with that coefficient corrected, for every table at once.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_inline, jit_parallel, prange

#: Width of the final bracket of each end: the end returned (its accepted side) is within it of the
#: exact inversion, far below any interval's meaning and any test's tolerance.
END_TOL = 1e-13


@jit_inline
def _gap(x1: float, n1: float, x0: float, n0: float, delta: float, z2: float) -> float:
    """``diff² − z²·var`` of the score test of ``p1 − p0 = delta``: positive where it rejects at
    ``|T| > z``, continuous in ``delta`` (the root finder interpolates it)."""
    big_n = n1 + n0
    diff = x1 / n1 - x0 / n0 - delta
    if delta == 0.0:  # the pooled estimate (the cubic's root, without its rounding)
        q0 = (x1 + x0) / big_n
        q1 = q0
    else:
        a = big_n
        b = (n1 + 2.0 * n0) * delta - big_n - (x1 + x0)
        c = (n0 * delta - big_n - 2.0 * x0) * delta + (x1 + x0)
        d = x0 * delta * (1.0 - delta)
        b3 = b / (3.0 * a)
        v = b3 * b3 * b3 - b * c / (6.0 * a * a) + d / (2.0 * a)
        u = math.sqrt(max(b3 * b3 - c / (3.0 * a), 0.0))
        if v < 0.0:
            u = -u
        if u == 0.0:
            q0 = -b3
        else:
            ratio = min(1.0, max(-1.0, v / (u * u * u)))
            q0 = 2.0 * u * math.cos((math.pi + math.acos(ratio)) / 3.0) - b3
        q1 = q0 + delta
        # rounding can push the root a hair outside [0, 1]
        q0 = min(1.0, max(0.0, q0))
        q1 = min(1.0, max(0.0, q1))
    var = (q1 * (1.0 - q1) / n1 + q0 * (1.0 - q0) / n0) * big_n / (big_n - 1.0)
    # a variance of 0 (or a hair below it) rejects every δ but the estimate itself
    return diff * diff - z2 * max(var, 0.0)


@jit_inline
def _end_start(x1: float, n1: float, x0: float, n0: float, inside: float, outside: float, z2: float):
    """The search for the end between an accepted ``inside`` (the estimate) and the parameter's
    bound ``outside``, set up: ``(done, inside, outside, h_a, v_a, h_b, v_b)``, where ``done``
    means that the bound itself is accepted (then ``inside`` is the end)."""
    diff_out = x1 / n1 - x0 / n0 - outside
    if abs(diff_out) > 1e-6:
        # at δ = ±1 the restricted estimates are 0 and 1 and var(±1) = 0 (the cubic's rounding
        # leaves it below 1e-15): the bound is rejected without evaluating g there
        g_out = diff_out * diff_out
    else:
        g_out = _gap(x1, n1, x0, n0, outside, z2)
        if g_out <= 0.0:
            return True, outside, outside, 0.0, 0.0, 0.0, 0.0
    est = inside
    # g = h² − z²·var with h = |δ − d̂|: the predictor takes var linear in h through the last two
    # points evaluated, and solves the quadratic; on smooth tables that is secant-fast on a nearly
    # straight line, where regula falsi on the curved g creeps from one side
    # at δ = d̂ the restricted estimates are the observed proportions: var(d̂) without the cubic
    p1, p0 = x1 / n1, x0 / n0
    h_a, v_a = 0.0, (p1 * (1.0 - p1) / n1 + p0 * (1.0 - p0) / n0) * (n1 + n0) / (n1 + n0 - 1.0)
    h_b, v_b = abs(outside - est), ((outside - est) ** 2 - g_out) / z2
    return False, inside, outside, h_a, v_a, h_b, v_b


@jit_inline
def _end_step(x1, n1, x0, n0, z2, est, side, inside, outside, h_a, v_a, h_b, v_b, ref_width, steps):
    """One step of an end's search (:func:`_ends`): ``(done, inside, outside, h_a, v_a, h_b, v_b,
    ref_width, steps)``, ``done`` once the bracket is closed (the end is ``inside``)."""
    width = abs(outside - inside)
    if width <= END_TOL:
        return True, inside, outside, h_a, v_a, h_b, v_b, ref_width, steps
    mid = 0.5 * (inside + outside)
    if mid in (inside, outside):  # no float left between them
        return True, inside, outside, h_a, v_a, h_b, v_b, ref_width, steps
    # a bisection step when three steps did not halve the bracket (a flat or noisy g)
    bisect = False
    if steps == 3:
        bisect = width > 0.5 * ref_width
        ref_width = width
        steps = 0
    steps += 1
    trial = mid
    if not bisect:
        slope = (v_b - v_a) / (h_b - h_a) if h_b != h_a else 0.0
        q = z2 * slope
        disc = q * q + 4.0 * z2 * (v_a - slope * h_a)
        if disc >= 0.0:
            t = est + side * 0.5 * (q + math.sqrt(disc))
            lo, hi = min(inside, outside), max(inside, outside)
            # a step that lands next to a bracket end goes just past it, so that the
            # bracket closes to END_TOL instead of creeping
            if abs(t - inside) < 0.5 * END_TOL:
                t = inside + side * 0.5 * END_TOL
            elif abs(t - outside) < 0.5 * END_TOL:
                t = outside - side * 0.5 * END_TOL
            if lo < t < hi:
                trial = t
    g = _gap(x1, n1, x0, n0, trial, z2)
    h_a, v_a = h_b, v_b
    h_b, v_b = abs(trial - est), ((trial - est) ** 2 - g) / z2
    if g > 0.0:
        outside = trial
    else:
        inside = trial
    return False, inside, outside, h_a, v_a, h_b, v_b, ref_width, steps


#: Steps of one end's search at most (each closes or halves the bracket at least every fourth).
_MAX_STEPS = 200


@jit
def _ends(x1: float, n1: float, x0: float, n0: float, d: float, z2: float) -> tuple[float, float]:
    """The interval's two ends, each between the estimate ``d`` (accepted) and the parameter's
    bound -1 or 1: both searches step by step in one loop, the same operations on each. Each
    step waits on the last (a cubic's root by acos and cos, a square root, divisions):
    interleaved, the two ends' chains overlap in the CPU (the leaderboard benchmark's 56,961
    distinct tables, one thread: 76-78 ms one end after the other, 48-52 ms interleaved)."""
    ref_lo = abs(-1.0 - d)
    ref_hi = abs(1.0 - d)
    done_lo, in_lo, out_lo, ha_lo, va_lo, hb_lo, vb_lo = _end_start(x1, n1, x0, n0, d, -1.0, z2)
    done_hi, in_hi, out_hi, ha_hi, va_hi, hb_hi, vb_hi = _end_start(x1, n1, x0, n0, d, 1.0, z2)
    steps_lo = 0
    steps_hi = 0
    for _ in range(_MAX_STEPS):
        if done_lo and done_hi:
            break
        if not done_lo:
            done_lo, in_lo, out_lo, ha_lo, va_lo, hb_lo, vb_lo, ref_lo, steps_lo = _end_step(
                x1, n1, x0, n0, z2, d, -1.0, in_lo, out_lo, ha_lo, va_lo, hb_lo, vb_lo, ref_lo, steps_lo
            )
        if not done_hi:
            done_hi, in_hi, out_hi, ha_hi, va_hi, hb_hi, vb_hi, ref_hi, steps_hi = _end_step(
                x1, n1, x0, n0, z2, d, 1.0, in_hi, out_hi, ha_hi, va_hi, hb_hi, vb_hi, ref_hi, steps_hi
            )
    return in_lo, in_hi


#: Fewer tables than this take the kernel that is cheaper to compile (:func:`_few_intervals`):
#: 0.4 µs more a table, under 2 ms below it.
FEW_TABLES = 4096


# threads from FEW_TABLES on: the default switch (65,536 elements an array) left the
# leaderboard benchmark's 56,961 distinct tables on one thread (49 ms wall of two threads)
@jit_parallel(serial_below=FEW_TABLES)
def _intervals(x1, n1, x0, n0, z, low, high):
    """:func:`score_diff_interval` of many tables: both ends of a table at once (:func:`_ends`)."""
    z2 = z * z
    for g in prange(x1.shape[0]):
        a1, m1, a0, m0 = float(x1[g]), float(n1[g]), float(x0[g]), float(n0[g])
        if m1 <= 0.0 or m0 <= 0.0:
            low[g] = np.nan
            high[g] = np.nan
            continue
        low[g], high[g] = _ends(a1, m1, a0, m0, a1 / m1 - a0 / m0, z2)


@jit
def _few_intervals(x1, n1, x0, n0, z, low, high):
    """:func:`_intervals` for fewer than :data:`FEW_TABLES` tables, one end after the other.

    Each end's search is a chain of its own, which :func:`_ends` only overlaps in the CPU: here
    the same steps of each end run in turn, so the ends are the same to the bit, from one inlined
    copy of each step instead of two, in one function instead of two. 1.5× the time a table,
    and 0.9 s less CPU to compile, which is what a board of a few runs pays on a fresh machine."""
    z2 = z * z
    for g in range(x1.shape[0]):
        a1, m1, a0, m0 = float(x1[g]), float(n1[g]), float(x0[g]), float(n0[g])
        if m1 <= 0.0 or m0 <= 0.0:
            low[g] = np.nan
            high[g] = np.nan
            continue
        d = a1 / m1 - a0 / m0
        for k in range(2):
            bound = -1.0 if k == 0 else 1.0
            done, inside, outside, h_a, v_a, h_b, v_b = _end_start(a1, m1, a0, m0, d, bound, z2)
            ref_width = abs(bound - d)
            steps = 0
            for _ in range(_MAX_STEPS):
                if done:
                    break
                done, inside, outside, h_a, v_a, h_b, v_b, ref_width, steps = _end_step(
                    a1, m1, a0, m0, z2, d, bound, inside, outside, h_a, v_a, h_b, v_b, ref_width, steps
                )
            if k == 0:
                low[g] = inside
            else:
                high[g] = inside


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
