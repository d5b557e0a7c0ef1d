"""The delta method's variance of the chance-corrected measures, table by table.

``inference/intervals`` computes the delta-method gradient of any chance-corrected measure with
numpy over stacked tables. For binary informedness, the measure of every leaderboard and interval
by default, the temporaries of that numpy code cost more than the arithmetic (some 80 ms for 100k
tables): :func:`informedness_variance` does the same operations in the same order per table, so it
gives the same bits. With many classes the numpy code held several ``[K, K, G]`` float arrays
(an ImageNet board of 100 runs × 1,000 classes: 0.8 GB each, 9 GB at its peak and 25× the time of
the point estimates), though the callers only need the variance: :func:`chance_variance` and
:func:`least_favourable_chance` compute it from the counts in three passes over each table's
cells, with the gradient of a cell made as it is read (every chance-corrected gradient is a
function of the cell's row and column margins), and :func:`least_favourable_tables` moves each
row within its cells' Wilson intervals without the numpy code's seven temporaries. Their sums
run in the order of ``inference/intervals.ordered_sum``, so they agree with the numpy code to a
few ulps (tests/test_chance_delta_kernel.py).
"""

from __future__ import annotations

import numpy as np

from .jit import jit, jit_inline, jit_parallel, prange

#: tables per block of :func:`informedness_variance`; its scratch is made once per block
BLOCK = 1024


@jit
def informedness_gradient(c00, c01, c10, c11, g):
    """``g[i, j]``: the delta-method gradient of informedness of the 2×2 table
    ``c[real, predicted]`` over its cell proportions, each element computed as
    ``inference/intervals.delta_gradient`` computes it over arrays (the same
    operations in the same order, so the same bits). Returns whether it is
    undefined (one real class only)."""
    n = ((c00 + c01) + c10) + c11
    p00, p01, p10, p11 = c00 / n, c01 / n, c10 / n, c11 / n
    r0, r1 = p00 + p01, p10 + p11
    col0, col1 = p00 + p10, p01 + p11
    dtp0, dtp1 = p00 - r0 * col0, p11 - r1 * col1
    inv0 = 1.0 / (1.0 - r0) if r0 < 1.0 else 0.0
    inv1 = 1.0 / (1.0 - r1) if r1 < 1.0 else 0.0
    b0, b1 = r0 * inv0, r1 * inv1
    d0, d1 = dtp0 * inv0 * inv0, dtp1 * inv1 * inv1
    g[0, 0] = ((1.0 - col0) * inv0 - b0) + d0
    g[0, 1] = ((0.0 - col0) * inv0 - b1) + d0
    g[1, 0] = ((0.0 - col1) * inv1 - b0) + d1
    g[1, 1] = ((1.0 - col1) * inv1 - b1) + d1
    return r0 >= 1.0 or r1 >= 1.0


@jit_parallel
def informedness_variance(counts, extra, var, undefined):
    """``var[t]``: ``(Σ π g² − (Σ π g)²) / n`` of the 2×2 table ``counts[t] + extra`` (every
    cell plus ``extra``), with ``g`` its informedness gradient, as
    ``inference/intervals.gradient_variance`` computes it; ``undefined[t]``: one real class
    or no example (numpy's variance is NaN or meaningless there, and its callers mask it)."""
    n_tables = counts.shape[0]
    for b in prange((n_tables + BLOCK - 1) // BLOCK):
        g = np.empty((2, 2))
        for t in range(b * BLOCK, min(n_tables, (b + 1) * BLOCK)):
            c00 = np.float64(counts[t, 0, 0]) + extra
            c01 = np.float64(counts[t, 0, 1]) + extra
            c10 = np.float64(counts[t, 1, 0]) + extra
            c11 = np.float64(counts[t, 1, 1]) + extra
            bad = informedness_gradient(c00, c01, c10, c11, g)
            n = ((c00 + c01) + c10) + c11
            undefined[t] = bad or n == 0.0
            pg00, pg01 = (c00 / n) * g[0, 0], (c01 / n) * g[0, 1]
            pg10, pg11 = (c10 / n) * g[1, 0], (c11 / n) * g[1, 1]
            s1 = ((pg00 + pg01) + pg10) + pg11
            s2 = ((pg00 * g[0, 0] + pg01 * g[0, 1]) + pg10 * g[1, 0]) + pg11 * g[1, 1]
            v = s2 - s1 * s1
            # np.maximum(v, 0.0): NaN and -0.0 kept
            var[t] = (0.0 if v < 0.0 else v) / n


#: measure codes of :func:`chance_variance` (``inference/intervals.DELTA_MEASURES`` by name)
INFORMEDNESS, MARKEDNESS, KAPPA, CORRELATION = 0, 1, 2, 3
#: tables of up to this many cells are summed in plain C order (``inference/intervals._SEQUENTIAL_CELLS``)
SEQUENTIAL_CELLS = 64


@jit_inline
def _cell(t, i, j, extra):
    return np.float64(t[i, j]) + extra


@jit
def _table_total(t, extra, acc):
    """The sum of the cells of ``t`` (plus ``extra`` each) in ``ordered_sum``'s order: C order up to
    :data:`SEQUENTIAL_CELLS` cells, else each column's sum down the rows, then the columns'."""
    k = t.shape[0]
    total = 0.0
    if k * k <= SEQUENTIAL_CELLS:
        for i in range(k):
            for j in range(k):
                total += _cell(t, i, j, extra)
        return total
    acc[:] = 0.0
    for i in range(k):
        for j in range(k):
            acc[j] += _cell(t, i, j, extra)
    for j in range(k):
        total += acc[j]
    return total


@jit_inline
def _gradient(i, j, measure, s, root, kappa, pe):
    """The gradient of the measure at cell ``(i, j)`` from the margins' terms in ``s``
    (:func:`chance_table_variance`), with ``inference/intervals._chance_gradient``'s operations."""
    delta = 1.0 if i == j else 0.0
    if measure == KAPPA:
        return (delta - (1.0 - kappa) * (s[_COL, i] + s[_ROW, j])) / (1.0 - pe)
    gi = 0.0
    gm = 0.0
    if measure != MARKEDNESS:
        gi = ((delta - s[_COL, i]) * s[_INV, i] - s[_RINV, j]) + s[_DTPI, i]
        if measure == INFORMEDNESS:
            return gi
    gm = ((delta - s[_ROW, j]) * s[_INVM, j] - s[_CINVM, i]) + s[_DTPM, j]
    if measure == MARKEDNESS:
        return gm
    return 0.5 * (root * gi + gm / root)


# rows of the scratch of chance_table_variance: the margins and the gradient's terms per class
_ROW, _COL, _INV, _RINV, _DTPI, _INVM, _CINVM, _DTPM, _ACC1, _ACC2 = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
#: rows of that scratch
SCRATCH_ROWS = 10


@jit
def chance_margins(t, extra, measure, s):
    """The margins of one K×K table ``t[real, predicted]`` plus ``extra`` in every cell and the
    terms of the measure's gradient by class, into the scratch ``s`` (``[SCRATCH_ROWS, K]``), with
    ``inference/intervals._chance_gradient``'s operations and sums in ``ordered_sum``'s order.
    Returns ``(n, root, kappa, pe, b, m, held_rows, held_cols, undefined)``: the total, the
    correlation's ``sqrt(M/B)``, kappa and its chance agreement, B and M, the classes held by each
    margin, and whether the measure's gradient is undefined."""
    k = t.shape[0]
    n = _table_total(t, extra, s[_ACC1])
    row, col = s[_ROW], s[_COL]
    col[:] = 0.0
    for i in range(k):
        total = 0.0
        for j in range(k):
            p = _cell(t, i, j, extra) / n
            total += p
            col[j] += p
        row[i] = total
    held_rows = 0
    held_cols = 0
    pe = 0.0
    po = 0.0
    b_val = 0.0
    m_val = 0.0
    for i in range(k):
        if row[i] > 0.0:
            held_rows += 1
        if col[i] > 0.0:
            held_cols += 1
        diagonal = _cell(t, i, i, extra) / n
        dtp = diagonal - row[i] * col[i]
        inv = 1.0 / (1.0 - row[i]) if row[i] < 1.0 else 0.0
        invm = 1.0 / (1.0 - col[i]) if col[i] < 1.0 else 0.0
        s[_INV, i] = inv
        s[_RINV, i] = row[i] * inv
        s[_DTPI, i] = dtp * inv * inv
        s[_INVM, i] = invm
        s[_CINVM, i] = col[i] * invm
        s[_DTPM, i] = dtp * invm * invm
        pe += row[i] * col[i]
        po += diagonal
        b_val += dtp / (1.0 - row[i]) if row[i] < 1.0 else 0.0
        m_val += dtp / (1.0 - col[i]) if col[i] < 1.0 else 0.0
    kappa = (po - pe) / (1.0 - pe)
    root = 1.0
    if measure == INFORMEDNESS:
        undefined = held_rows < 2
    elif measure == MARKEDNESS:
        undefined = held_cols < 2
    elif measure == KAPPA:
        undefined = pe >= 1.0
    else:
        if k == 2:  # M/B is a ratio of margins for 2×2 tables, defined even at B = M = 0
            ratio = (row[0] * row[1]) / (col[0] * col[1])
        else:
            ratio = m_val / b_val if b_val * m_val > 0.0 else np.nan
        root = np.sqrt(ratio)
        undefined = held_rows < 2 or held_cols < 2 or not np.isfinite(ratio)
    return n, root, kappa, pe, b_val, m_val, held_rows, held_cols, undefined or n == 0.0


@jit
def chance_table_variance(t, extra, measure, s):
    """``(var, undefined)`` of one K×K table ``t[real, predicted]`` plus ``extra`` in every cell:
    ``var = max(Σ π g² − (Σ π g)², 0)/n`` with ``g`` the delta-method gradient of the measure
    (a code: :data:`INFORMEDNESS` …), as ``inference/intervals.gradient_variance`` of
    ``gradient_cells_last`` computes it, without the gradient's array; ``undefined`` where that
    gives its flag. ``s``: a ``[SCRATCH_ROWS, K]`` float64 scratch."""
    k = t.shape[0]
    n, root, kappa, pe, _, _, _, _, undefined = chance_margins(t, extra, measure, s)
    s1 = 0.0
    s2 = 0.0
    if k * k <= SEQUENTIAL_CELLS:
        for i in range(k):
            for j in range(k):
                g = _gradient(i, j, measure, s, root, kappa, pe)
                pg = (_cell(t, i, j, extra) / n) * g
                s1 += pg
                s2 += pg * g
    else:
        acc1, acc2 = s[_ACC1], s[_ACC2]
        acc1[:] = 0.0
        acc2[:] = 0.0
        for i in range(k):
            for j in range(k):
                g = _gradient(i, j, measure, s, root, kappa, pe)
                pg = (_cell(t, i, j, extra) / n) * g
                acc1[j] += pg
                acc2[j] += pg * g
        for j in range(k):
            s1 += acc1[j]
            s2 += acc2[j]
    v = s2 - s1 * s1
    # np.maximum(v, 0.0): NaN kept
    return (0.0 if v < 0.0 else v) / n, undefined


@jit_parallel
def chance_variance(counts, extra, measure, var, undefined):
    """``var[t]``, ``undefined[t]``: :func:`chance_table_variance` of every table ``counts[t] + extra``
    (``[G, K, K]``, whole or float counts), one table a thread at a time."""
    k = counts.shape[1]
    for t in prange(counts.shape[0]):
        s = np.empty((SCRATCH_ROWS, k))
        var[t], undefined[t] = chance_table_variance(counts[t], extra, measure, s)


#: numpy's pairwise summation: blocks of up to this many values are summed in eight lanes
_PAIRWISE_BLOCK = 128


@jit
def _block_sum(a, lo, n):
    """numpy's pairwise sum of a block of at most :data:`_PAIRWISE_BLOCK` values."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += np.float64(a[i])
        return res
    r0, r1 = np.float64(a[lo]), np.float64(a[lo + 1])
    r2, r3 = np.float64(a[lo + 2]), np.float64(a[lo + 3])
    r4, r5 = np.float64(a[lo + 4]), np.float64(a[lo + 5])
    r6, r7 = np.float64(a[lo + 6]), np.float64(a[lo + 7])
    i = 8
    while i < n - (n % 8):
        r0 += np.float64(a[lo + i])
        r1 += np.float64(a[lo + i + 1])
        r2 += np.float64(a[lo + i + 2])
        r3 += np.float64(a[lo + i + 3])
        r4 += np.float64(a[lo + i + 4])
        r5 += np.float64(a[lo + i + 5])
        r6 += np.float64(a[lo + i + 6])
        r7 += np.float64(a[lo + i + 7])
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += np.float64(a[lo + i])
        i += 1
    return res


@jit
def pairwise_sum(a, lo, n):
    """The sum of ``a[lo : lo + n]`` as float64 in numpy's order for a contiguous axis (its
    ``pairwise_sum``: eight lanes within blocks of up to 128 values, longer runs halved at a
    multiple of 8 and their halves' sums added), so that a row's total has the bits of
    ``c.sum(axis=2)``: the least-favourable move of a float row is ill-conditioned where a
    correlation's B and M near 0 (one ulp of a row's total moved such a variance by half).

    The halving runs on an explicit stack: numba's disk cache does not relink a function that
    calls itself (a recursive version crashed when loaded from the cache)."""
    if n <= _PAIRWISE_BLOCK:
        # an int64 start, as the halving below passes: the callers' literal 0 compiled a twin
        return _block_sum(a, np.int64(lo), n)
    # tasks: (lo, n) to sum, or n = -1 to add the top two partial sums (a + b has the bits of b + a)
    task_lo = np.empty(192, np.int64)
    task_n = np.empty(192, np.int64)
    sums = np.empty(96)
    tasks = 1
    held = 0
    task_lo[0], task_n[0] = lo, n
    while tasks:
        tasks -= 1
        here, size = task_lo[tasks], task_n[tasks]
        if size < 0:
            held -= 1
            sums[held - 1] = sums[held - 1] + sums[held]
        elif size <= _PAIRWISE_BLOCK:
            sums[held] = _block_sum(a, here, size)
            held += 1
        else:
            half = size // 2
            half -= half % 8
            task_n[tasks] = -1
            task_lo[tasks + 1], task_n[tasks + 1] = here + half, size - half
            task_lo[tasks + 2], task_n[tasks + 2] = here, half
            tasks += 3
    return sums[0]


@jit
def move_table(t, z, out):
    """``out``: the K×K table ``t`` with each real-class row moved towards even (``1/K`` a cell)
    as far as every cell's Wilson interval at the critical value ``z`` allows, with
    ``inference/floors.least_favourable_table``'s operations (0 in a row without examples)."""
    k = t.shape[0]
    z2 = z * z
    even = 1.0 / k
    for i in range(k):
        m = pairwise_sum(t[i], 0, k)
        if not m > 0.0:
            out[i, :] = 0.0
            continue
        room = np.inf
        for j in range(k):
            p = np.float64(t[i, j]) / m
            step = even - p
            if step == 0.0:
                continue
            centre = (p + z2 / (2.0 * m)) / (1.0 + z2 / m)
            half = z / (1.0 + z2 / m) * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m))
            if step > 0.0:
                here = (min(centre + half, 1.0) - p) / step
            else:
                here = (p - max(centre - half, 0.0)) / -step
            if np.isnan(here):  # np.min keeps a NaN, and nan_to_num makes it 0
                room = 0.0
                break
            room = min(room, here)
        share = min(max(room, 0.0), 1.0)
        for j in range(k):
            p = np.float64(t[i, j]) / m
            out[i, j] = m * (p + share * (even - p))


@jit_parallel
def least_favourable_tables(counts, z, out):
    """``out[t]``: :func:`move_table` of every table ``counts[t]`` (``[G, K, K]``)."""
    for t in prange(counts.shape[0]):
        move_table(counts[t], z, out[t])


@jit_parallel
def least_favourable_chance(counts, measure, z, var):
    """``var[t]``: the delta-method variance of the measure at ``counts[t]`` moved by
    :func:`move_table`, at least that at ``counts[t]`` itself, NaN where the measure's variance
    is undefined at ``counts[t]`` (``inference/floors.least_favourable_variance``), without the
    moved tables' array: each thread moves one table at a time into its own scratch."""
    k = counts.shape[1]
    for t in prange(counts.shape[0]):
        s = np.empty((SCRATCH_ROWS, k))
        plain, undefined = chance_table_variance(counts[t], 0.0, measure, s)
        if undefined or np.isnan(plain):
            var[t] = np.nan
            continue
        moved = np.empty((k, k))
        move_table(counts[t], z, moved)
        here, _ = chance_table_variance(moved, 0.0, measure, s)
        var[t] = max(here, plain) if not np.isnan(here) else plain


@jit_parallel
def chance_class_parts(counts, measure, parts):
    """``parts[t, k]``: table ``counts[t]``'s delta variance of the measure within real class k,
    ``Σ_p c[k,p] (g[k,p] − ḡ[k])² / n²`` with ``ḡ[k]`` the class's mean gradient, summed as numpy's
    ``sum(axis=2)`` sums (``inference/floors.class_parts``; NaN kept)."""
    k = counts.shape[1]
    for t in prange(counts.shape[0]):
        s = np.empty((SCRATCH_ROWS, k))
        table = counts[t]
        _, root, kappa, pe, _, _, _, _, _ = chance_margins(table, 0.0, measure, s)
        sizes = np.empty(k)
        for i in range(k):
            sizes[i] = pairwise_sum(table[i], 0, k)
        total = pairwise_sum(sizes, 0, k)
        buf = np.empty(k)
        for i in range(k):
            for j in range(k):
                buf[j] = np.float64(table[i, j]) * _gradient(i, j, measure, s, root, kappa, pe)
            mean = pairwise_sum(buf, 0, k) / sizes[i]
            for j in range(k):
                d = _gradient(i, j, measure, s, root, kappa, pe) - mean
                buf[j] = np.float64(table[i, j]) * (d * d)
            parts[t, i] = pairwise_sum(buf, 0, k) / (total * total)


@jit_parallel
def chance_values(counts, extra, values):
    """``values[:, t]``: informedness, markedness, kappa_cohen and correlation of ``counts[t] + extra``
    (``inference/intervals.chance_values`` of one table: NaN where a denominator vanishes)."""
    k = counts.shape[1]
    for t in prange(counts.shape[0]):
        s = np.empty((SCRATCH_ROWS, k))
        # an int64, not the global's Literal[int](0): numba compiled chance_margins twice for it
        _, _, kappa, _, b, m, held_rows, held_cols, _ = chance_margins(
            counts[t], extra, np.int64(INFORMEDNESS), s
        )
        if held_rows < 2:
            b = np.nan
        if held_cols < 2:
            m = np.nan
        values[0, t] = b
        values[1, t] = m
        values[2, t] = kappa
        values[3, t] = np.sign(b + m) * np.sqrt(abs(b * m)) if b * m >= 0.0 else np.nan
