"""Pairwise loops of the selection-valid leaderboard columns
(:mod:`batcheval.inference.selection`): standardized differences between
runs, counted, maximised over runs, and maximised over simulated draws.

A pair whose difference has no spread (``s = 0``) counts as a certain
difference when the estimates differ and as none when they are equal, as
:func:`batcheval.inference.comparisons.normal_p` reads it.

A standardized difference within :data:`TIE_RTOL` of the critical value is a tie, and does
not exceed it (:func:`beyond`): the studentized bootstrap of small discrete tables reproduces
an observed statistic exactly, and the last bit of either side then decided the comparison.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit_inline, jit_parallel, prange

#: Relative tolerance of a comparison of an observed statistic with a critical value or a bootstrap
#: replicate's statistic: a value within ``TIE_RTOL`` of it (relative) is equal to it. The studentized
#: bootstrap of small discrete tables reproduces the observed statistic exactly, and float rounding
#: then decided the comparison by an ulp or two: a board ranked lowest first (miss_rate, on
#: ``−miss_rate``) and the board of the measure's negative (recall, on ``recall − 1`` to the last
#: bit) had different best sets, ``p_best`` and rank intervals. Far above the rounding of a few
#: operations (1e-16), far below any real gap between two statistics of count tables.
TIE_RTOL = 1e-12


@jit_inline
def beyond(z, c):
    """Whether ``z`` exceeds the critical value ``c`` by more than :data:`TIE_RTOL` of it: a
    ``z`` equal to ``c`` within the tolerance does not exceed it (the side that keeps the level:
    such a pair counts as no evidence). :func:`batcheval.inference.selection` compares its
    numpy arrays with the same bound."""
    return z > c + TIE_RTOL * abs(c)


@jit_inline
def _z(diff, var):
    if var > 0.0:
        return diff / math.sqrt(var)
    if diff > 0.0:
        return np.inf
    if diff < 0.0:
        return -np.inf
    return 0.0


@jit_parallel
def pair_counts(theta, var, cov, paired, c, above, below, tmax):
    """For every run i: ``above[i]``, the runs j with ``(θj − θi)/s_ij > c``;
    ``below[i]``, those with ``(θi − θj)/s_ij > c``, each beyond ``c`` by more than
    :data:`TIE_RTOL` of it (:func:`beyond`); and ``tmax[i] = max_j
    (θj − θi)/s_ij`` (-inf for a single run). ``s_ij² = var_i + var_j − 2·cov_ij``
    (``cov`` is read only when ``paired``). Runs with a NaN estimate or
    variance must be dropped by the caller."""
    r = theta.shape[0]
    for i in prange(r):
        a = 0
        b = 0
        t = -np.inf
        for j in range(r):
            if j == i:
                continue
            v = var[i] + var[j]
            if paired:
                v -= 2.0 * cov[i, j]
            z = _z(theta[j] - theta[i], max(v, 0.0))
            if beyond(z, c):
                a += 1
            if beyond(-z, c):
                b += 1
            t = max(t, z)
        above[i] = a
        below[i] = b
        tmax[i] = t


@jit_parallel
def frontier_tmax(theta, var, front, tmax):
    """``tmax[i] = max_j (θj − θi)/sqrt(var_i + var_j)`` over the runs ``front``
    (unpaired runs: independent estimates). The maximiser of a positive
    difference lies on the Pareto frontier of high θ and low variance, so
    ``front`` need hold only that frontier. (A run no other run beats gets a
    non-positive ``tmax`` that may differ from the maximum over every run;
    the caller clips it at 0.)"""
    r = theta.shape[0]
    for i in prange(r):
        t = -np.inf
        for f in range(front.shape[0]):
            j = front[f]
            if j == i:
                continue
            z = _z(theta[j] - theta[i], var[i] + var[j])
            t = max(t, z)
        tmax[i] = t


@jit_parallel
def max_abs_pair(draws, inv_s, out):
    """``out[m] = max_{i<j} |D[m, i] − D[m, j]| · inv_s[i, j]``: the two-sided max-t
    statistic over every pair of runs in draw m."""
    n_draws, r = draws.shape
    for m in prange(n_draws):
        best = 0.0
        for i in range(r):
            di = draws[m, i]
            for j in range(i + 1, r):
                z = abs(di - draws[m, j]) * inv_s[i, j]
                best = max(best, z)
        out[m] = best


@jit_parallel
def max_vs(draws, cand, inv_s, out):
    """``out[m, c] = max_{j ≠ b} (D[m, j] − D[m, b]) · inv_s[c, j]`` with ``b =
    cand[c]``: the one-sided max-t statistic of every run against candidate b."""
    n_draws, r = draws.shape
    n_cand = cand.shape[0]
    for m in prange(n_draws):
        for c in range(n_cand):
            b = cand[c]
            db = draws[m, b]
            best = -np.inf
            for j in range(r):
                if j == b:
                    continue
                z = (draws[m, j] - db) * inv_s[c, j]
                best = max(best, z)
            out[m, c] = best


@jit_inline
def _record_pair(err, out_vs, m, i, j, v, best):
    """Replicate m's pair (i, j) with variance ``v``: z of j over i into both runs' ``out_vs``;
    returns the running max |z|. A pair whose z or variance is NaN changes nothing."""
    z = _z(err[m, j] - err[m, i], max(v, 0.0))
    if math.isnan(z) or math.isnan(v):
        return best
    out_vs[m, i] = max(out_vs[m, i], z)
    out_vs[m, j] = max(out_vs[m, j], -z)
    return max(best, abs(z))


@jit_parallel
def boot_max_unpaired(err, var, out_abs, out_vs):
    """Studentized bootstrap maxima of independent runs: with ``z_ij = (err[m, j] −
    err[m, i]) / sqrt(var[m, i] + var[m, j])`` in replicate m, ``out_abs[m] = max_{i<j}
    |z_ij|`` and ``out_vs[m, b] = max_{j ≠ b} z_bj`` (how far some run overtakes b).
    A pair whose z is NaN (a replicate where the measure is undefined) is skipped."""
    n_draws, r = err.shape
    for m in prange(n_draws):
        best = 0.0
        for b in range(r):
            out_vs[m, b] = -np.inf
        for i in range(r):
            for j in range(i + 1, r):
                best = _record_pair(err, out_vs, m, i, j, var[m, i] + var[m, j], best)
        out_abs[m] = best


@jit_parallel
def boot_max_paired(err, codes, lut, floor, out_abs, out_vs):
    """:func:`boot_max_unpaired` for runs scored on the same examples. Replicate m's
    runs × examples class pairs are ``codes[m]`` (0: not scored), ``lut[m, r, code]``
    run r's measure gradient at its replicate table; the influence is ``u[r, e] =
    (g − ḡ_r)/n_r`` over the examples r scored, and ``s_ij² = Σ_e (u_ie − u_je)² +
    x_i + x_j`` with ``x_r = max(floor[m, r] − Σ_e u_re², 0)``, the variance the
    observed board is studentized with (:func:`batcheval.inference.selection.paired`)."""
    n_draws, r, e = codes.shape
    for m in prange(n_draws):
        u = np.zeros((r, e))
        extra = np.empty(r)
        for i in range(r):
            n = 0
            total = 0.0
            for k in range(e):
                c = codes[m, i, k]
                if c > 0:
                    n += 1
                    total += lut[m, i, c]
            ss = 0.0
            if n > 0:
                mean = total / n
                for k in range(e):
                    c = codes[m, i, k]
                    if c > 0:
                        u[i, k] = (lut[m, i, c] - mean) / n
                        ss += u[i, k] * u[i, k]
            extra[i] = max(floor[m, i] - ss, 0.0)
            out_vs[m, i] = -np.inf
        best = 0.0
        for i in range(r):
            for j in range(i + 1, r):
                v = extra[i] + extra[j]
                for k in range(e):
                    d = u[i, k] - u[j, k]
                    v += d * d
                best = _record_pair(err, out_vs, m, i, j, v, best)
        out_abs[m] = best


_FLOAT_MAX = 1.7976931348623157e308  # np.nan_to_num's value for inf


@jit_parallel
def binary_class_parts(counts, grad, v, n_k):
    """:func:`batcheval.inference.floors.class_parts` of binary tables ``counts[G, 2, 2]``
    given the gradient ``grad[2, 2, G]`` (cells last): ``v[g, k]`` and ``n_k[g, k]``, with the
    operations of the numpy version in its order (a sum over two cells is ``a + b``), so the
    same bits without its ten temporaries of ``[G, 2, 2]``."""
    g = counts.shape[0]
    big = _FLOAT_MAX
    for i in prange(g):
        a0, b0 = np.float64(counts[i, 0, 0]), np.float64(counts[i, 0, 1])
        a1, b1 = np.float64(counts[i, 1, 0]), np.float64(counts[i, 1, 1])
        n = (a0 + b0) + (a1 + b1)
        nn = n * n
        for k in range(2):
            a = a0 if k == 0 else a1
            b = b0 if k == 0 else b1
            ga, gb = grad[k, 0, i], grad[k, 1, i]
            mean = (a * ga + b * gb) / (a + b)
            da, db = ga - mean, gb - mean
            x = (a * (da * da) + b * (db * db)) / nn
            if np.isnan(x):  # np.nan_to_num's values
                x = 0.0
            elif x == np.inf:
                x = big
            elif x == -np.inf:
                x = -big
            v[i, k] = x
            n_k[i, k] = counts[i, k, 0] + counts[i, k, 1]


@jit_parallel
def binary_welch_weights(parts, sizes, idx, v, w):
    """:func:`batcheval.inference.selection._welch_weights` of two classes: ``w[i] = Σ_k
    s_k²/(n_k − 1)`` (``s_k²`` alone where ``n_k ≤ 1``) for run ``idx[i]``, its parts scaled to
    ``v[i]``, all of it on its smallest non-empty class when no part is positive; the numpy
    version's operations in its order."""
    for i in prange(idx.shape[0]):
        r = idx[i]
        p0, p1 = parts[r, 0], parts[r, 1]
        n0, n1 = np.float64(sizes[r, 0]), np.float64(sizes[r, 1])
        total = p0 + p1
        s0 = s1 = 0.0
        if total > 0:
            f = v[i] / total
            s0, s1 = p0 * f, p1 * f
        elif total <= 0:  # np.argmin over the sizes with empty classes as inf: the first smallest
            m0 = n0 if n0 > 0 else np.inf
            m1 = n1 if n1 > 0 else np.inf
            if m1 < m0:
                s1 = v[i]
            else:
                s0 = v[i]
        w0 = s0 * s0 / max(n0 - 1.0, 1.0) if n0 > 1 else s0 * s0
        w1 = s1 * s1 / max(n1 - 1.0, 1.0) if n1 > 1 else s1 * s1
        w[i] = w0 + w1


@jit_inline
def _room(x, m, target, inv, z, z2):
    """How far the share ``p = x/m`` of a cell can move towards ``target``, as a multiple of
    ``target − p``, and stay within its Wilson interval: the interval's centre is ``(x +
    z²/2)·inv`` and its half-width ``z·sqrt(x(m − x)/m + z²/4)·inv`` with ``inv = 1/(m + z²)``,
    so the room to the end in that direction is ``half ± (centre − p)``, without the
    divisions of the textbook form (inf when p is the target)."""
    p = x / m
    step = target - p
    if step == 0.0:
        return np.inf
    half = z * math.sqrt(max(x * (m - x) / m, 0.0) + 0.25 * z2) * inv
    shift = z2 * (0.5 - p) * inv  # centre − p
    if step > 0.0:
        return (half + shift) / step
    return (half - shift) / -step


@jit_inline
def _table_part(n, ui, uj, z, z2):
    """``m · Var(d)`` of a pair's K×K joint table ``n[a, b]`` on one class (run i predicted a,
    run j b; ``m`` examples), moved towards ``1/K²`` a cell as far as every cell's Wilson
    interval allows, with ``d_ab = uj[b] − ui[a]``."""
    k = n.shape[0]
    m = 0.0
    for a in range(k):
        for b in range(k):
            m += n[a, b]
    if m <= 0.0:
        return 0.0
    inv = 1.0 / (m + z2)
    even = 1.0 / (k * k)
    t = np.inf
    for a in range(k):
        for b in range(k):
            t = min(t, _room(n[a, b], m, even, inv, z, z2))
    t = min(max(t, 0.0), 1.0)
    mean = 0.0
    sq = 0.0
    for a in range(k):
        for b in range(k):
            q = (n[a, b] + t * (even * m - n[a, b])) / m
            d = uj[b] - ui[a]
            mean += q * d
            sq += q * d * d
    return m * max(sq - mean * mean, 0.0)


@jit_parallel
def pair_floor_add(prod, own, dense, lo, ii, jj, u, z2, out):
    """Adds one real class's least-favourable part of the paired variance of each pair p, runs
    ``i = lo + ii[p]`` and ``j = jj[p]``, to ``out[p]``, through :func:`_table_part`:
    ``prod[a·L + b, ii[p], jj[p]]`` the examples of the class run i predicted a and run j b,
    for a, b < L (L = K − 1 when ``dense``: every run scored the class's examples, and the
    last row and column follow from each run's count of each prediction, ``own[c, r]``; else
    L = K), and ``u[r, c]``, run r's ``U`` on the class when it predicts c."""
    k = u.shape[1]
    last = k - 1 if dense else k
    z = math.sqrt(z2)
    for p in prange(ii.shape[0]):
        a, j = ii[p], jj[p]
        i = lo + a
        n = np.empty((k, k))
        for x in range(last):
            for y in range(last):
                n[x, y] = prod[x * last + y, a, j]
        if dense:
            for x in range(k - 1):
                rest = own[x, i]
                for y in range(k - 1):
                    rest -= n[x, y]
                n[x, k - 1] = rest
            for y in range(k):
                rest = own[y, j]
                for x in range(k - 1):
                    rest -= n[x, y]
                n[k - 1, y] = rest
        out[p] += _table_part(n, u[i], u[j], z, z2)


@jit_parallel
def leader_floor(joint, values, leader, rows, z2, out):
    """For each run ``rows[a]``, :func:`_table_part` summed over the real classes against the
    leader, into ``out[a]``: ``joint[g, real, leader's prediction, g's prediction]`` (K classes),
    ``values[g, 1 + real·K + predicted]`` each run's ``U`` by cell (NaN rows give NaN)."""
    z = math.sqrt(z2)
    k = joint.shape[1]
    for a in prange(rows.shape[0]):
        j = rows[a]
        total = 0.0
        for real in range(k):
            lo = 1 + real * k
            total += _table_part(joint[j, real], values[leader, lo : lo + k], values[j, lo : lo + k], z, z2)
        out[a] = total


@jit_parallel
def least_favourable_informedness(counts, z2, out):
    """Binary informedness's variance ``Σ_k p_k(1 − p_k)/n_k`` with each real class's rate
    ``p_k`` of predicting the second class taken at the end of its Wilson interval nearest 1/2
    (1/2 itself where the interval holds it); NaN where a class is empty."""
    g = counts.shape[0]
    z = math.sqrt(z2)
    for t in prange(g):
        total = 0.0
        for k in range(2):
            n = float(counts[t, k, 0] + counts[t, k, 1])
            if n <= 0.0:
                total = np.nan
                break
            p = counts[t, k, 1] / n
            # a binary row's two cells have the same room towards 1/2
            q = p + min(_room(float(counts[t, k, 1]), n, 0.5, 1.0 / (n + z2), z, z2), 1.0) * (0.5 - p)
            total += q * (1.0 - q) / n
        out[t] = total


@jit_parallel
def informedness_cell_values(counts, values):
    """Binary informedness's ``U`` by cell, ``values[g, 1 + real·2 + predicted]``: with ``r_k``
    the rate at which real class k (of ``n_k`` examples) is predicted as class 1, ``B = r_1 −
    r_0``, so a cell of class k adds ``±(1 − r_k)/n_k`` (predicted 1) or ``∓r_k/n_k``
    (predicted 0), + for k = 1; column 0 is 0, and rows where a class is empty are NaN."""
    g = counts.shape[0]
    for t in prange(g):
        values[t, 0] = 0.0
        n0 = float(counts[t, 0, 0] + counts[t, 0, 1])
        n1 = float(counts[t, 1, 0] + counts[t, 1, 1])
        if n0 <= 0.0 or n1 <= 0.0:
            for c in range(5):
                values[t, c] = np.nan
            continue
        r0 = counts[t, 0, 1] / n0
        r1 = counts[t, 1, 1] / n1
        values[t, 1] = r0 / n0
        values[t, 2] = -(1.0 - r0) / n0
        values[t, 3] = -r1 / n1
        values[t, 4] = (1.0 - r1) / n1
