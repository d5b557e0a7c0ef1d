"""Threshold sweeps: rows → per-group score histograms → 2×2 cells per threshold.

A row is predicted positive at threshold θ iff ``score >= θ``. With sorted
thresholds θ_0 < … < θ_{T-1}, a row whose score passes the first ``b`` of them
is positive exactly at thresholds ``t < b``; so one pass counts rows per
(group, b, label), and a suffix sum over b gives every threshold's table:
O(rows + groups·T), never O(rows·T).

Like evaluate's counting (:mod:`batcheval.kernels.count`), the histogram is
filled either in per-thread private tables (:func:`score_histogram`) or, once
it outgrows the caches and rows are shuffled, by radix partitioning. There a
group's cells have a power-of-two stride, so each partition holds whole groups
(:func:`sweep_group_ids`), and :func:`sweep_parts` counts a partition in a table
that stays in cache and writes its groups' tables at once; inputs too long for
one set of id buffers count in row blocks (:func:`sweep_cell_ids`, then the
shared partition and count passes) into a histogram of every group.
The ranges a sweep needs first come from one pass as well (:func:`input_ranges`).
"""

from __future__ import annotations

import math

import numpy as np

from . import wide as _wide
from .binary import EXACT_LIMIT
from .count import row_group, thread_rows
from .jit import jit, jit_inline, jit_parallel, prange
from .ranges import thread_range

#: Integer key columns one :func:`input_ranges` call scans.
RANGE_KEYS = 4
# rows per block of input_ranges: each column's slice of a block is scanned in turn, so the pass
# reads every column's stream at once while each inner loop stays a plain loop over one array
_RANGE_BLOCK = 1 << 15


@jit
def _finite_span(values, lo, hi, a, b, nbad):
    """:func:`batcheval.kernels.ranges.finite_range`'s loop over ``values[lo:hi]``, carried on
    from ``(a, b, nbad)``: rows in the same order, so the same min and max (even of signed zeros)."""
    for i in range(lo, hi):
        v = values[np.uint64(i)]
        if v - v != 0.0:  # NaN or ±inf, without a call per element
            nbad += 1
            continue
        a = min(a, v)
        b = max(b, v)
    return a, b, nbad


@jit
def _int_span(values, lo, hi, a, b):
    """``(min(a, values[lo:hi]), max(b, values[lo:hi]))`` in the array's own dtype, which
    vectorises; called, not inlined, so one compiled loop per dtype serves every slot."""
    if lo >= hi:
        return a, b
    x = values[lo]
    y = x
    for i in range(lo + 1, hi):
        v = values[np.uint64(i)]  # unsigned: no wraparound branch, so the loop vectorises
        x = min(x, v)
        y = max(y, v)
    return min(a, np.int64(x)), max(b, np.int64(y))


@jit
def _class_span(values, lo, hi, a, b, mask):
    """:func:`_int_span` and the bit mask of the values in ``[0, 64)`` (which classes occur)."""
    for i in range(lo, hi):
        v = np.int64(values[np.uint64(i)])
        a = min(a, v)
        b = max(b, v)
        if np.uint64(v) < 64:
            mask |= np.uint64(1) << np.uint64(v)
    return a, b, mask


@jit_inline
def _total(counts):
    """``counts.sum()`` of per-thread counts, in a loop: numba's array sum compiles with its axis
    checks (0.2 s of a first sweep's CPU) for a handful of integers."""
    total = 0
    for t in range(counts.shape[0]):
        total += counts[t]
    return total


@jit_inline
def _at(values, i):
    """``values[i]`` as int64, or the last value of a shorter (unused slot's) array."""
    return np.int64(values[min(i, values.shape[0] - 1)])


@jit_parallel
def input_ranges(score, label, with_label, k0, k1, k2, k3, n_keys, n_threads):
    """Every range a sweep needs before binning, in one pass over its non-empty rows.

    Returns ``(lo, hi, nonfinite, label_min, label_max, mask, keys)``: the min and max of the
    finite scores (``lo > hi`` when none is) and how many are NaN or infinite, as
    :func:`batcheval.kernels.ranges.finite_range` gives them; the min and max of the integer
    ``label`` column when ``with_label``, and the bit mask of its values in ``[0, 64)`` (bit v
    set when v occurs: which classes there are); and ``keys[0, j]``, ``keys[1, j]`` the min and max (int64) of
    the integer key column ``k_j`` for ``j < n_keys`` (pass any 1-d int64 array for the other
    slots, and for ``label`` without ``with_label``). The rows are split over threads as
    ``finite_range`` splits them, so every figure is the one the separate scans give.
    """
    n = score.shape[0]
    lo = np.full(n_threads, np.inf)
    hi = np.full(n_threads, -np.inf)
    bad = np.zeros(n_threads, np.int64)
    part = np.empty((n_threads, 2, RANGE_KEYS + 1), np.int64)
    masks = np.zeros(n_threads, np.uint64)
    for t in prange(n_threads):
        start, stop = thread_rows(t, n, n_threads)
        first = start if start < stop else 0
        a = np.inf
        b = -np.inf
        nbad = 0
        # each thread starts from its first row's values, so an empty slice changes nothing
        la = lb = _at(label, first)
        mask = np.uint64(0)
        a0 = b0 = _at(k0, first)
        a1 = b1 = _at(k1, first)
        a2 = b2 = _at(k2, first)
        a3 = b3 = _at(k3, first)
        for blo in range(start, stop, _RANGE_BLOCK):
            bhi = min(stop, blo + _RANGE_BLOCK)
            a, b, nbad = _finite_span(score, blo, bhi, a, b, nbad)
            if with_label:
                la, lb, mask = _class_span(label, blo, bhi, la, lb, mask)
            if n_keys > 0:
                a0, b0 = _int_span(k0, blo, bhi, a0, b0)
            if n_keys > 1:
                a1, b1 = _int_span(k1, blo, bhi, a1, b1)
            if n_keys > 2:
                a2, b2 = _int_span(k2, blo, bhi, a2, b2)
            if n_keys > 3:
                a3, b3 = _int_span(k3, blo, bhi, a3, b3)
        lo[t] = a
        hi[t] = b
        bad[t] = nbad
        masks[t] = mask
        part[t, 0, 0], part[t, 1, 0] = a0, b0
        part[t, 0, 1], part[t, 1, 1] = a1, b1
        part[t, 0, 2], part[t, 1, 2] = a2, b2
        part[t, 0, 3], part[t, 1, 3] = a3, b3
        part[t, 0, RANGE_KEYS], part[t, 1, RANGE_KEYS] = la, lb
    keys = np.empty((2, RANGE_KEYS + 1), np.int64)
    for j in range(RANGE_KEYS + 1):
        x = part[0, 0, j]
        y = part[0, 1, j]
        for t in range(1, n_threads):
            x = min(x, part[t, 0, j])
            y = max(y, part[t, 1, j])
        keys[0, j] = x
        keys[1, j] = y
    mask = np.uint64(0)
    for t in range(n_threads):
        mask |= masks[t]
    low, high, nbad = thread_range(lo, hi, bad)
    return low, high, nbad, keys[0, RANGE_KEYS], keys[1, RANGE_KEYS], mask, keys


@jit_inline
def _passed(s, thresholds, lo, inv_step, evenly):
    """How many thresholds are <= s (``searchsorted(thresholds, s, 'right')``)."""
    t = thresholds.shape[0]
    if evenly:
        # arithmetic guess, then exact correction against the thresholds themselves
        x = (s - lo) * inv_step
        b = 0 if x < 0.0 else (t if x >= t else int(x) + 1)  # x >= 0: int() is floor
        while b < t and s >= thresholds[b]:
            b += 1
        while b > 0 and s < thresholds[b - 1]:
            b -= 1
        return b
    a = 0
    z = t
    while a < z:
        m = (a + z) >> 1
        if thresholds[m] <= s:
            a = m + 1
        else:
            z = m
    return a


@jit_inline
def _label_side(i, label, vmin, lut, positive):
    """1 for a positive row, 0 for another class, -1 outside the class set."""
    c = lut[np.uint64(np.int64(label[i]) - vmin)]
    if c < 0:
        return -1
    return 1 if c == positive else 0


@jit_parallel
def score_histogram(
    k0,
    k1,
    k2,
    k3,
    offset,
    stride,
    nkeys,
    label,
    vmin,
    lut,
    positive,
    score,
    thresholds,
    lo,
    inv_step,
    evenly,
    bufs,
):
    """``bufs[thread, (g*(T+1) + b)*2 + is_positive] += 1`` for every finite-score row.

    Returns ``(rows with a non-finite score, rows whose label is not a class)``;
    both kinds are skipped.
    """
    n = score.shape[0]
    n_threads = bufs.shape[0]
    width = thresholds.shape[0] + 1
    nonfinite = np.zeros(n_threads, np.int64)
    bad = np.zeros(n_threads, np.int64)
    for t in prange(n_threads):
        buf = bufs[t]
        start, stop = thread_rows(t, n, n_threads)
        for i in range(start, stop):
            s = score[i]
            if not math.isfinite(s):
                nonfinite[t] += 1
                continue
            side = _label_side(i, label, vmin, lut, positive)
            if side < 0:
                bad[t] += 1
                continue
            g = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)
            b = _passed(s, thresholds, lo, inv_step, evenly)
            buf[np.uint64((g * width + b) * 2 + side)] += 1
    return _total(nonfinite), _total(bad)


@jit_parallel
def sweep_cell_ids(
    k0, k1, k2, k3, offset, stride, nkeys, label, vmin, lut, positive,
    score, thresholds, lo, inv_step, evenly, shift, ids, hist,
):  # fmt: skip
    """Radix pass 1 of a sweep: each row's histogram cell ``(g*(T+1) + b)*2 + is_positive``
    into ``ids``, counted per (thread, partition) in ``hist``.

    Rows with a non-finite score or a label outside the class set get the id
    ``bad`` (the dtype's max), stay out of ``hist``, and are counted.
    """
    n = score.shape[0]
    n_threads = hist.shape[0]
    width = thresholds.shape[0] + 1
    bad_id = ids.dtype.type(np.iinfo(ids.dtype).max)
    bad = np.zeros(n_threads, np.int64)
    for t in prange(n_threads):
        start, stop = thread_rows(t, n, n_threads)
        nbad = 0
        for i in range(start, stop):
            s = score[i]
            side = _label_side(i, label, vmin, lut, positive)
            if not math.isfinite(s) or side < 0:
                nbad += 1
                ids[i] = bad_id
                continue
            g = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)
            cell = (g * width + _passed(s, thresholds, lo, inv_step, evenly)) * 2 + side
            ids[i] = cell
            hist[t, np.uint64(cell >> shift)] += 1
        bad[t] = nbad
    return _total(bad)


#: The measures :func:`sweep_columns` computes as it writes the cells, in its ``slots`` order:
#: every measure of a default sweep. Each is the operations, in the order, of
#: :mod:`batcheval.kernels.binary`'s formula for it, so each value has the bits ``binary_measures``
#: gives it.
FUSED = ("recall", "fallout", "precision", "bias", "informedness", "markedness", "f1", "accuracy")
_N_FUSED = len(FUSED)
# tables measured at a time: the scratch block of their values stays in L1
_FUSED_BLOCK = 256


@jit_parallel
def sweep_columns(hist, groups, thresholds, slots, tp, fp, fn, tn, n, threshold, out, wide):
    """Suffix sums of ``hist[G, T+1, 2]`` (per bin: negatives, positives) for the groups listed in
    ``groups``: the cells at every threshold, written straight into the output columns (row
    ``r*T + j`` is threshold j of ``groups[r]``), with the ``threshold`` column and the measures
    of :data:`FUSED` in the same pass: ``out[slots[k], row]`` is measure ``FUSED[k]`` (skipped
    where ``slots[k]`` is -1), NaN for an empty table. ``wide=None`` (the caller's rows are fewer
    than :data:`~.binary.EXACT_LIMIT`, so no table reaches it) compiles the pass without the limbs
    of :func:`~.wide.mul_sub`: numba prunes the branch of an argument that is None, about 1.3 s of
    CPU of a first sweep on an empty cache.

    A default sweep's frame is some 1.2 GB of fresh columns written once; measuring each group's
    tables while its cells are still in L1, rather than in a pass of their own over the cell
    columns, saves reading those back and the per-operation loops of the general program.
    """
    width = hist.shape[1]
    flat = hist.reshape((hist.shape[0], width * 2))
    # a flag started as `slots[0] >= 0`, not as `False`: numba types `measured = False` then
    # `measured |= ...` as the literal False as well as bool and compiled _group_tables for both
    measured = slots[0] >= 0
    for k in range(1, _N_FUSED):
        measured |= slots[k] >= 0
    for r in prange(groups.shape[0]):
        _group_tables(
            flat[groups[r]], r, thresholds, slots, measured, tp, fp, fn, tn, n, threshold, out, wide
        )


@jit_inline
def _group_tables(h, r, thresholds, slots, measured, tp, fp, fn, tn, n, threshold, out, wide):
    """One group's rows of :func:`sweep_columns`: ``h[2*b + is_positive]`` is its histogram over
    bins ``b <= T``, and its tables go to rows ``r*T .. r*T + T - 1``.

    Inlined into its two callers: compiled as a function of its own, it cost a first (400-row)
    sweep 0.8 s more CPU than the same loop written into :func:`sweep_columns` (three
    interleaved runs each, empty cache); only the small kernel compiles it on a small input."""
    n_thr = thresholds.shape[0]
    width = n_thr + 1
    n_fused = _N_FUSED
    nan = np.nan
    pos_total = 0
    neg_total = 0
    for b in range(width):
        neg_total += h[2 * b]
        pos_total += h[2 * b + 1]
    base = r * n_thr
    tp_c = 0
    fp_c = 0
    for j in range(n_thr - 1, -1, -1):
        tp_c += h[2 * (j + 1) + 1]
        fp_c += h[2 * (j + 1)]
        tp[base + j] = tp_c
        fn[base + j] = pos_total - tp_c
        fp[base + j] = fp_c
        tn[base + j] = neg_total - fp_c
        n[base + j] = pos_total + neg_total
    for j in range(n_thr):
        threshold[base + j] = thresholds[j]
    if not measured:
        return
    s = np.empty((n_fused, min(n_thr, _FUSED_BLOCK)))
    for lo in range(0, n_thr, _FUSED_BLOCK):
        m = min(n_thr - lo, _FUSED_BLOCK)
        for j in range(m):
            i = base + lo + j
            ti, fi, ni, ui = tp[i], fp[i], fn[i], tn[i]
            a, b, c, d = float(ti), float(fi), float(ni), float(ui)
            # binary.run_program's determinant: exact in int64 while it fits, in limbs beyond
            det = float(ti * ui - fi * ni)
            if wide is not None:  # pruned when None (sweep_columns)
                if ti + fi + ni + ui >= EXACT_LIMIT:
                    det = _wide.mul_sub(ti, ui, fi, ni)
            pp = a + b
            total = pp + c + d
            rp = a + c
            rn = b + d
            pn = c + d
            den_bm = rp * rn
            den_mk = pp * pn
            a2 = a * 2.0
            den_f1 = a2 + b + c
            # the formulas of binary._formulas, in FUSED order
            v0 = a / rp if rp != 0 else nan
            v1 = b / rn if rn != 0 else nan
            v2 = a / pp if pp != 0 else nan
            v3 = pp / total
            v4 = det / den_bm if den_bm != 0 else 0.0
            v5 = det / den_mk if den_mk != 0 else 0.0
            v6 = a2 / den_f1 if den_f1 != 0 else nan
            v7 = (a + d) / total
            empty = total == 0
            s[0, j] = nan if empty else v0
            s[1, j] = nan if empty else v1
            s[2, j] = nan if empty else v2
            s[3, j] = nan if empty else v3
            s[4, j] = nan if empty else v4
            s[5, j] = nan if empty else v5
            s[6, j] = nan if empty else v6
            s[7, j] = nan if empty else v7
        for k in range(n_fused):
            row = slots[k]
            if row >= 0:
                o = out[row]
                for j in range(m):
                    o[base + lo + j] = s[k, j]


@jit_parallel
def sweep_group_ids(
    k0, k1, k2, k3, offset, stride, nkeys, label, vmin, lut, positive,
    score, thresholds, lo, inv_step, evenly, wbits, shift, ids, hist, seen,
):  # fmt: skip
    """Radix pass 1 of a fused sweep (:func:`sweep_parts`): each row's cell
    ``(g << wbits) | (2*b + is_positive)`` into ``ids``, counted per (thread, partition
    ``cell >> shift``) in ``hist``, and ``seen[thread, g] = 1`` for its group.

    With a power-of-two stride per group, a partition holds whole groups. Rows with a
    non-finite score or a label outside the class set get the id ``bad`` (the dtype's max),
    stay out of ``hist``, and are counted.
    """
    n = score.shape[0]
    n_threads = hist.shape[0]
    bad_id = ids.dtype.type(np.iinfo(ids.dtype).max)
    bad = np.zeros(n_threads, np.int64)
    for t in prange(n_threads):
        start, stop = thread_rows(t, n, n_threads)
        mine = seen[t]
        nbad = 0
        for i in range(start, stop):
            s = score[i]
            side = _label_side(i, label, vmin, lut, positive)
            if not math.isfinite(s) or side < 0:
                nbad += 1
                ids[i] = bad_id
                continue
            g = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)
            cell = (g << wbits) | (_passed(s, thresholds, lo, inv_step, evenly) * 2 + side)
            ids[i] = cell
            hist[t, np.uint64(cell >> shift)] += 1
            mine[np.uint64(g)] = 1
        bad[t] = nbad
    return _total(bad)


@jit_parallel
def sweep_parts(
    grouped, bounds, n_groups, gbits, wbits, rank, thresholds, slots, tp, fp, fn, tn, n, threshold, out, wide
):
    """Radix pass 3 of a fused sweep: partition p owns ``grouped[bounds[p]:bounds[p+1]]``, the cell
    ids of :func:`sweep_group_ids` of groups ``p << gbits`` to ``(p+1 << gbits) - 1``; their
    histogram is counted in a table of the partition's own that stays in cache, and each group's
    tables are written from it at once (:func:`sweep_columns`'s rows and values, group g at rows
    of ``rank[g]``; a group with ``rank[g] < 0`` has no rows). No histogram of every group is
    ever built, written out, and read back. ``wide`` as :func:`sweep_columns`'s.
    """
    # a flag started as `slots[0] >= 0`, not as `False`: numba types `measured = False` then
    # `measured |= ...` as the literal False as well as bool and compiled _group_tables for both
    measured = slots[0] >= 0
    for k in range(1, _N_FUSED):
        measured |= slots[k] >= 0
    per = 1 << gbits
    for p in prange(bounds.shape[0] - 1):
        g0 = p * per
        g1 = min(n_groups, g0 + per)
        local = np.zeros((g1 - g0, 1 << wbits), np.int64)
        flat = local.reshape((g1 - g0) << wbits)
        first = g0 << wbits
        for i in range(bounds[p], bounds[p + 1]):
            flat[np.uint64(np.int64(grouped[i]) - first)] += 1
        for g in range(g0, g1):
            r = rank[g]
            if r >= 0:
                cells = local[g - g0]
                _group_tables(cells, r, thresholds, slots, measured, tp, fp, fn, tn, n, threshold, out, wide)


@jit_parallel
def row_any(table):
    """``table.any(axis=1)`` for a 2-D int64 table, in parallel over rows."""
    out = np.zeros(table.shape[0], np.bool_)
    for g in prange(table.shape[0]):
        for j in range(table.shape[1]):
            if table[g, j] != 0:
                out[g] = True
                break
    return out
