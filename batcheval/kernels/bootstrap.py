"""Bootstrap kernels: multinomial resampling of count tables, the paired
Poisson bootstrap of joint tables (:func:`paired_poisson_se`), and percentiles.

Reproducibility does not depend on the thread count: every group draws from
its own generator (:mod:`.sampling`), seeded from the user's seed and the
group's index (:func:`group_seeds`), so a group's replicates are the same
however the groups are spread over threads or sliced into chunks. The paired
Poisson bootstrap seeds a group from its table instead, and shares some draws
between groups (:func:`paired_poisson_se`).
"""

from __future__ import annotations

import math

import numpy as np

from . import wide as _wide
from .binary import EXACT_LIMIT, NAMES, measure_value, unit
from .jit import jit, jit_inline, jit_parallel, prange
from .sampling import (
    POISSON_PARAMS,
    multinomial,
    poisson,
    poisson_inverted,
    poisson_setup,
    seed_state,
    splitmix64,
    uniform,
)

_INFORMEDNESS = NAMES.index("informedness")


@jit
def group_seeds(seed, first, n, out):
    """``out[i]`` = 64-bit generator seed of group ``first + i`` under ``seed``."""
    base = splitmix64(np.uint64(seed))
    for i in range(n):
        out[i] = splitmix64(base ^ np.uint64(first + i))


@jit
def id_seeds(seed, ids, out):
    """``out[i]`` = the seed :func:`group_seeds` gives group ``ids[i]``: any int64 numbers, without
    a table of every number below the largest (a group's per-class tables are numbered sparsely)."""
    base = splitmix64(np.uint64(seed))
    for i in range(ids.shape[0]):
        out[i] = splitmix64(base ^ np.uint64(ids[i]))


@jit_parallel
def multinomial_resample(counts, pseudo, n_boot, seeds, out):
    """``out[g, b]`` = a Multinomial(n_g, (counts[g] + pseudo) / (n_g + C·pseudo)) draw, for
    ``b < n_boot``: the plain bootstrap of each table at ``pseudo = 0``, the smoothed one of
    ``evaluate(ci=)`` (the table plus ``pseudo`` in each of its ``C`` cells) above.

    ``counts`` is ``[G, C]`` (a table's cells flattened), ``out`` is
    ``[G, n_boot, C]``.
    """
    for g in prange(counts.shape[0]):
        _resample_group(counts, pseudo, g, n_boot, seeds[g], out[g])


@jit
def _resample_group(counts, pseudo, g, n_boot, seed, out):
    # a function of its own: numba's parallel pass fails on a tuple (the
    # generator state) assigned in a prange body
    state = seed_state(seed)
    total = 0
    for c in range(counts.shape[1]):
        total += counts[g, c]
    for b in range(n_boot):
        state = multinomial(counts, g, pseudo, total, state, out[b])


@jit
def start_state(seed, state):
    """``state[0:4]``: the generator state that :func:`multinomial_resample` starts a group
    with seed ``seed`` from, for :func:`resample_more` to draw its replicates in parts."""
    s0, s1, s2, s3 = seed_state(seed)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3


@jit
def resample_more(counts, g, pseudo, n, state, out):
    """``out[b]`` for ``b < n``: the next ``n`` replicates of table ``g`` of ``counts[G, C]``,
    drawn from ``state`` (:func:`start_state`), which it leaves at the draw after them. Parts
    of ``n_1, n_2, ...`` replicates from one :func:`start_state` are, in order, the
    replicates that :func:`multinomial_resample` draws for the group at once, bit for bit."""
    total = 0
    for c in range(counts.shape[1]):
        total += counts[g, c]
    s = (state[0], state[1], state[2], state[3])
    for b in range(n):
        s = multinomial(counts, g, pseudo, total, s, out[b])
    state[0] = s[0]
    state[1] = s[1]
    state[2] = s[2]
    state[3] = s[3]


@jit_inline
def _spread_estimate(sums, v_lin, tried):
    """``(variance, relative standard error of the standard error)`` from the
    running sums ``(m, Σd, Σd², Σlin, Σlin², Σe, Σe², Σd⁴)`` of ``tried`` replicates.

    The control variate's estimate ``V_L + Var(d) − Var(lin)`` needs every
    replicate (``V_L`` is lin's variance over all of them), so a group with an
    undefined replicate, or whose estimate is not positive, takes the plain
    variance of d. Fewer than two defined replicates: NaN, and not yet precise.
    """
    m = sums[0]
    if m < 2.0:
        return np.nan, np.inf
    var_t = (sums[2] - sums[1] * sums[1] / m) / (m - 1.0)
    var_l = (sums[4] - sums[3] * sums[3] / m) / (m - 1.0)
    controlled = v_lin + var_t - var_l
    if controlled > 0.0 and m == tried:
        var = controlled
        spread = sums[6] - sums[5] * sums[5] / m  # of e = d² − lin², what the estimate averages
    else:
        var = var_t
        spread = sums[7] - sums[2] * sums[2] / m
    if not (var > 0.0):
        return var, 0.0
    spread = spread if spread > 0.0 else 0.0
    # se = √var, so its relative error is half that of var
    return var, 0.5 * math.sqrt(spread / (m - 1.0) / m) / var


@jit_inline
def _cell_maps(p, at):
    """``at[0, c]`` and ``at[1, c]``: the cell of the run's and of the leader's
    table, ``[tp, fp, fn, tn]`` with class ``p`` positive, that joint cell
    ``c = real*4 + leader*2 + run`` adds to."""
    for c in range(8):
        real = 0 if c >> 2 == p else 1
        at[0, c] = real + (0 if c & 1 == p else 2)
        at[1, c] = real + (0 if (c >> 1) & 1 == p else 2)


@jit_inline
def _split(x, p, tables):
    """``tables[0]`` and ``tables[1]``: the run's and the leader's tables ``[tp, fp, fn, tn]``
    (class ``p`` positive) of the joint cells ``x``, summed in registers as
    :func:`_difference_of` sums them (scattered adds through ``at`` waited on each other)."""
    f = 0 if p == 1 else 7  # with class 0 positive, every class index flipped
    x0, x1, x2, x3 = x[0 ^ f], x[1 ^ f], x[2 ^ f], x[3 ^ f]
    x4, x5, x6, x7 = x[4 ^ f], x[5 ^ f], x[6 ^ f], x[7 ^ f]
    tables[0, 0], tables[0, 1], tables[0, 2], tables[0, 3] = x5 + x7, x1 + x3, x4 + x6, x0 + x2
    tables[1, 0], tables[1, 1], tables[1, 2], tables[1, 3] = x6 + x7, x2 + x3, x4 + x5, x0 + x1


@jit_inline
def _difference_of(x, p, measure):
    """The run's measure less the leader's on the joint cells ``x`` (class ``p`` positive):
    the tables of :func:`_split`, summed in registers. (``_split``'s scattered adds
    through memory waited on each other: about half of a replicate's cost besides its
    draws.) Integer sums, so the same tables and the same bits."""
    f = 0 if p == 1 else 7  # with class 0 positive, every class index flipped
    x0, x1, x2, x3 = x[0 ^ f], x[1 ^ f], x[2 ^ f], x[3 ^ f]
    x4, x5, x6, x7 = x[4 ^ f], x[5 ^ f], x[6 ^ f], x[7 ^ f]
    if measure == _INFORMEDNESS:
        total = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7
        if 0 < total < EXACT_LIMIT:
            # informedness_value's operations; the two tables share their real margins (integer
            # sums, so the same doubles whichever cells are added first): one divisor for both
            den = float(x4 + x5 + x6 + x7) * float(x0 + x1 + x2 + x3)
            if den == 0.0:
                return 0.0
            run = float((x5 + x7) * (x0 + x2) - (x1 + x3) * (x4 + x6)) / den
            return run - float((x6 + x7) * (x0 + x1) - (x2 + x3) * (x4 + x5)) / den
    run = measure_value(measure, x5 + x7, x1 + x3, x4 + x6, x0 + x2, 1.0)
    return run - measure_value(measure, x6 + x7, x2 + x3, x4 + x5, x0 + x1, 1.0)


@jit_inline
def informedness_value(tp, fp, fn, tn):
    """``binary.measure_value`` of informedness, the same operations in the same order (so the
    same bits: ``tests/test_paired_se.py``) without its branch over the measures or the
    margins other measures share: the paired bootstrap measures eight neighbours of each
    table, and each replicate twice, all informedness on the default board.

    Examples
    --------
    >>> informedness_value(30, 12, 30, 28)  # 30/60 - 12/40
    0.2
    """
    a, b, c, d = float(tp), float(fp), float(fn), float(tn)
    if a + b + c + d == 0:
        return np.nan
    det = float(tp * tn - fp * fn) if tp + fp + fn + tn < EXACT_LIMIT else _wide.mul_sub(tp, tn, fp, fn)
    den = (a + c) * (b + d)
    return unit(det / den if den != 0 else 0.0)


@jit_inline
def _measure_of(t, measure):
    if measure == _INFORMEDNESS:
        return informedness_value(t[0], t[1], t[2], t[3])
    return measure_value(measure, t[0], t[1], t[2], t[3], 1.0)


@jit_inline
def _table_slopes(t, measure, slope):
    """``slope[i]``: the measure's secant slope in cell i of the table
    ``t = [tp, fp, fn, tn]``, over one count either side (one side from an empty
    cell). False where the measure is undefined there. ``t`` is left as it was."""
    if measure == _INFORMEDNESS:
        return _informedness_slopes(t[0], t[1], t[2], t[3], slope)
    ok = True
    for i in range(4):
        t[i] += 1
        up = _measure_of(t, measure)
        if t[i] > 1:
            t[i] -= 2
            slope[i] = 0.5 * (up - _measure_of(t, measure))
            t[i] += 1
        else:
            t[i] -= 1
            slope[i] = up - _measure_of(t, measure)
        ok = ok and not math.isnan(slope[i])
    return ok


@jit_inline
def _informedness_slopes(tp, fp, fn, tn, slope):
    """:func:`_table_slopes` of informedness, the neighbouring tables in registers rather than
    written into ``t`` and read back, and :func:`informedness_value` rather than
    ``measure_value``: the same values from the same operations."""
    ok = True
    for i in range(4):
        e0, e1, e2, e3 = int(i == 0), int(i == 1), int(i == 2), int(i == 3)  # the cell stepped
        up = informedness_value(tp + e0, fp + e1, fn + e2, tn + e3)
        if tp * e0 + fp * e1 + fn * e2 + tn * e3 > 0:
            slope[i] = 0.5 * (up - informedness_value(tp - e0, fp - e1, fn - e2, tn - e3))
        else:
            slope[i] = up - informedness_value(tp, fp, fn, tn)
        ok = ok and not math.isnan(slope[i])
    return ok


@jit_inline
def _linear_part(x, p, cells, at, measure, lin, tables, slopes, held):
    """``lin[c]``: the paired difference's secant slope in each joint cell c of
    ``cells``, the slope of the run's table in the cell c adds to less the
    leader's; all 0 where either measure is undefined near ``x``. Returns their
    Poisson-bootstrap variance ``Σ lin[c]²·x[c]``. ``tables`` and ``slopes``
    (``[2, 4]``) are scratch, kept from one group to the next: ``held[:4]`` is the
    reference's table whose slopes ``slopes[1]`` holds and ``held[4]`` whether they
    are defined (-1: none held). With all 8 cells drawn, every run of a board has the
    same reference, most often with the same table, whose slopes are then worked out once."""
    _split(x, p, tables)
    ok = _table_slopes(tables[0], measure, slopes[0])
    if cells.shape[0] < 8:
        # agreement summed into one cell of each pair: the "leader's table" of x then holds
        # the run's agreeing cells too, so it changes from run to run and is not held (the
        # test whether it did took more than the slopes: 100k tables 21.5 -> 10 ms)
        ok = _table_slopes(tables[1], measure, slopes[1]) and ok
    elif ok:
        same = held[4] >= 0
        for i in range(4):
            same = same and held[i] == tables[1, i]
        if not same:
            held[4] = 1 if _table_slopes(tables[1], measure, slopes[1]) else 0
            for i in range(4):
                held[i] = tables[1, i]
        ok = held[4] == 1
    variance = 0.0
    for c in cells:
        lin[c] = slopes[0, at[0, c]] - slopes[1, at[1, c]] if ok else 0.0
        variance += lin[c] * lin[c] * x[c]
    return variance


# groups per block of paired_poisson_se: a block allocates its scratch once
_BLOCK = 256


@jit_parallel
def paired_poisson_se(joint, base, positive, measure, cells, center, n_boot, first, doubt, target, setups,
                      inversions, cdf, guide, pool, se, drawn):  # fmt: skip
    """Sequential Poisson bootstrap of binary joint tables with a control variate:
    ``se[g]``, the standard error of the paired difference, and ``drawn[g]``, the
    replicates group g took.

    ``joint`` is ``[G, 8]`` (``[real, leader's prediction, run's prediction]``
    flattened). A replicate draws every cell as an independent Poisson with the
    cell's count as its mean, and measures (``binary.NAMES[measure]``, class
    ``positive`` positive) the run's and the leader's tables it sums to.
    ``cells`` lists the cells drawn: all 8, or 6 for a measure that sees the
    cells where the two agree only through their sum within each real class;
    then each such pair is drawn as one Poisson of the summed count, at the
    ``y00`` cell (the ``y11`` cell left empty): the same distribution in 6 draws.

    The control variate is the difference's linear part
    ``lin = Σ_c s_c·(x_c − joint[g, c])``, with ``s_c`` the secant slope over
    one count either side, whose Poisson-bootstrap variance ``Σ s_c²·joint[g, c]``
    is known. Per replicate, ``d = T(run) − T(leader) − center[g]``. A group draws
    ``first`` replicates, then doubles what it has, until the relative error of
    its estimate times ``doubt[m]`` (m replicates defined) is at most ``target``,
    or ``n_boot`` are drawn.

    Shared draws: for every mean m drawn in cell c that has an inversion table, ``pool[c, m]``
    holds :data:`POOL` independent draws of it (:func:`pool_draws`), and a group's replicate
    ``r < POOL`` takes entry ``(a + r·b) mod POOL`` of it, with an offset ``a`` and an odd
    stride ``b`` per cell drawn by the group: a permutation of the pool, so the group's
    replicates are still independent Poisson draws. Groups that share a mean and stop after a
    few replicates use few of the same draws; groups that reach ``POOL`` replicates use all
    ``POOL`` of them, each in its own order, so small tables (which draw more replicates)
    share more (runs scored on one test set share their cell counts: the leaderboard
    benchmark's 100,000 groups draw some 1,000 means a cell). Later replicates, and the
    other cells, draw from the group's own generator. It is seeded from ``base`` and the
    group's drawn counts (:func:`table_seed`), so a group's standard error depends on its
    table and the seed, not on its position, the other groups or the threads (unless
    the inversion tables ran out of room), and equal tables get equal ones.

    ``setups[m]`` is :func:`~batcheval.kernels.sampling.poisson_setup` of the mean m
    (:func:`poisson_setups`), for the means below its length: a cell's setup (a square
    root and two logarithms) is looked up rather than redone for each group. Larger means
    are set up in place.

    ``inversions[m]`` is ``(low, start, size)`` of the mean m's inversion table in ``cdf`` and
    ``guide`` (:func:`~batcheval.kernels.sampling.poisson_tables`), for the means below
    its length whose size is not 0: such a cell is drawn from one uniform by
    :func:`~batcheval.kernels.sampling.poisson_inverted`. Other cells take ``setups``'
    transformed rejection.
    """
    n_groups = joint.shape[0]
    for b in prange((n_groups + _BLOCK - 1) // _BLOCK):
        _paired_block(joint, base, positive, measure, cells, center, n_boot, first, doubt, target, setups,
                      inversions, cdf, guide, pool, se, drawn, b * _BLOCK,
                      min(n_groups, (b + 1) * _BLOCK))  # fmt: skip


#: shared draws per mean and cell (a power of 2): int16 entries, one 64-byte cache line
POOL = 32


@jit_inline
def table_seed(base, x):
    """The generator seed of a group whose drawn cells are ``x`` (8 counts), under ``base``."""
    h = base
    for c in range(8):
        h = splitmix64(h ^ np.uint64(x[c]))
    return h


@jit_inline
def pool_seed(base, c, m, j):
    """The generator seed of entry j of the pool of mean m in cell c, under ``base``."""
    return splitmix64(splitmix64(base ^ _POOL_STREAMS) ^ np.uint64((m * 8 + c) * POOL + j))


# keeps the pools' seeds apart from the groups' (table_seed)
_POOL_STREAMS = np.uint64(0x5DEECE66D)


@jit
def _paired_block(joint, base, p, measure, cells, center, n_boot, first, doubt, target, setups, inversions,
                  cdf, guide, pool, se, drawn, lo, hi):  # fmt: skip
    """Groups ``lo..hi-1`` of :func:`paired_poisson_se`. (A function of its own:
    numba's parallel pass fails on a tuple, the generator state, assigned in a
    prange body.)"""
    mean = np.empty(8, np.int64)
    x = np.zeros(8, np.int64)
    lin = np.zeros(8)
    sums = np.empty(8)
    kind = np.zeros(8, np.int64)  # per cell: 0 pooled (then its inversion table), 2 by rejection, 3 mean 0
    offset = np.zeros(8, np.int64)
    stride = np.zeros(8, np.int64)
    params = np.empty((8, POISSON_PARAMS))
    table = np.zeros((8, 3), np.int64)  # per cell: its inversion table's low, start and size
    tables = np.empty((2, 4), np.int64)
    slopes = np.empty((2, 4))
    held = np.full(5, -1, np.int64)
    at = np.empty((2, 8), np.int64)
    _cell_maps(p, at)
    for g in range(lo, hi):
        for i in range(mean.shape[0]):  # a loop, not a slice copy: that compiles numba's shape-error text
            mean[i] = joint[g, i]
        if cells.shape[0] == 6:
            for y in range(2):
                mean[y * 4] += mean[y * 4 + 3]
                mean[y * 4 + 3] = 0
        state = seed_state(table_seed(base, mean))
        v_lin = _linear_part(mean, p, cells, at, measure, lin, tables, slopes, held)
        for c in cells:
            m = mean[c]
            u, state = uniform(state)
            v, state = uniform(state)
            offset[c] = np.int64(u * POOL)
            stride[c] = 2 * np.int64(v * (POOL // 2)) + 1
            if m < inversions.shape[0] and inversions[m, 2] > 0:
                kind[c] = 0
                for q in range(3):
                    table[c, q] = inversions[m, q]
            elif m == 0:
                kind[c] = 3
            else:
                kind[c] = 2
                if m < setups.shape[0]:
                    for q in range(POISSON_PARAMS):
                        params[c, q] = setups[m, q]
                else:
                    poisson_setup(np.float64(m), params, c)
        sums[:] = 0.0
        tried = 0
        n_rep = min(n_boot, first)
        while True:
            for r in range(tried, tried + n_rep):
                lsum = 0.0
                for c in cells:
                    if kind[c] == 0 and r < POOL:
                        k = np.int64(pool[c, mean[c], (offset[c] + r * stride[c]) & (POOL - 1)])
                    elif kind[c] == 0:
                        k, state = poisson_inverted(table[c, 1], table[c, 2], table[c, 0], cdf, guide, state)
                    elif kind[c] == 2:
                        k, state = poisson(params, c, state)
                    else:
                        k = 0
                    x[c] = k
                    lsum += lin[c] * (k - mean[c])
                t = _difference_of(x, p, measure)
                if math.isnan(t):
                    continue
                d = t - center[g]
                e = d * d - lsum * lsum
                sums[0] += 1.0
                sums[1] += d
                sums[2] += d * d
                sums[3] += lsum
                sums[4] += lsum * lsum
                sums[5] += e
                sums[6] += e * e
                sums[7] += d * d * d * d
            tried += n_rep
            if tried >= n_boot:
                break
            rel_error = _spread_estimate(sums, v_lin, tried)[1]
            if not (rel_error * doubt[int(sums[0])] > target):
                break
            n_rep = min(tried, n_boot - tried)
        var = _spread_estimate(sums, v_lin, tried)[0]
        se[g] = math.sqrt(var) if var > 0.0 else (0.0 if var <= 0.0 else np.nan)
        drawn[g] = tried


@jit_parallel
def pool_draws(used, inversions, cdf, guide, base, pool):
    """``pool[c, m, j]``: :func:`paired_poisson_se`'s shared draws of mean m in cell c, for every
    ``used[c, m]`` with an inversion table (``inversions[m, 2] > 0``); other entries
    are left as they are. Entry j is the first draw from the generator of :func:`pool_seed`."""
    for m in prange(pool.shape[1]):
        _pool_mean(used, inversions, cdf, guide, base, pool, m)


@jit
def _pool_mean(used, inversions, cdf, guide, base, pool, m):
    if inversions[m, 2] == 0:
        return
    for c in range(8):
        if used[c, m]:
            for j in range(POOL):
                state = seed_state(pool_seed(base, c, m, j))
                pool[c, m, j] = poisson_inverted(inversions[m, 1], inversions[m, 2], inversions[m, 0], cdf,
                                                 guide, state)[0]  # fmt: skip


@jit
def drawn_means(joint, cells, used):
    """``used[c, m]`` set True for every mean ``m < used.shape[1]`` that :func:`paired_poisson_se`
    draws from in cell c (of ``cells``; a summed pair's mean is the sum of its two
    cells, drawn at the pair's first cell)."""
    summed = cells.shape[0] == 6
    for g in range(joint.shape[0]):
        for c in cells:
            m = joint[g, c]
            if summed and (c == 0 or c == 4):  # noqa: PLR1714 (a set would cost numba a typed set)
                m += joint[g, c + 3]
            if m < used.shape[1]:
                used[c, m] = True


@jit
def poisson_setups(out, first=0):
    """``out[m]`` = :func:`~batcheval.kernels.sampling.poisson_setup` of the mean m, for
    every row ``m >= first`` of ``out`` (``[M, POISSON_PARAMS]``, zeroed: means below 10 set two)."""
    for m in range(first, out.shape[0]):
        poisson_setup(np.float64(m), out, m)


@jit_inline
def _interpolate(row, m, q):
    """numpy's default ("linear") quantile of the first ``m`` sorted values, and its limit where
    they end in +inf: the lower value where it falls on one (or on two equal ones, +inf and +inf,
    whose difference is NaN), +inf where it falls between a finite value and +inf."""
    h = (m - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, m - 1)
    if h == lo or row[hi] == row[lo]:
        return row[lo]
    return row[lo] + (h - lo) * (row[hi] - row[lo])


@jit_parallel
def percentiles(values, q_low, q_high, low, high):
    """Per row of ``values[G, B]``: the two quantiles of its non-NaN entries, +inf among them
    (a ratio whose denominator a resample made 0) ranked above every finite one.

    NaN when a row has no defined value. The rows are sorted in place.
    """
    n_groups = values.shape[0]
    for g in prange(n_groups):
        row = values[g]
        row.sort()  # NaN sorts last
        m = row.shape[0]
        while m > 0 and math.isnan(row[m - 1]):
            m -= 1
        if m == 0:
            low[g] = np.nan
            high[g] = np.nan
        else:
            low[g] = _interpolate(row, m, q_low)
            high[g] = _interpolate(row, m, q_high)


@jit_parallel
def nan_std(values, out):
    """Sample standard deviation (ddof = 1) of each row's non-NaN entries."""
    for g in prange(values.shape[0]):
        row = values[g]
        s = 0.0
        m = 0
        for v in row:
            if not math.isnan(v):
                s += v
                m += 1
        if m < 2:
            out[g] = np.nan
            continue
        mean = s / m
        ss = 0.0
        for v in row:
            if not math.isnan(v):
                ss += (v - mean) * (v - mean)
        out[g] = math.sqrt(ss / (m - 1))
