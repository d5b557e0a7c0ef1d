"""Threshold sweeps: rows → per-group score histograms → 2×2 cells per threshold.

A row is predicted positive at threshold θ iff ``score >= θ``. With sorted
thresholds θ_0 < … < θ_{T-1}, a row whose score passes the first ``b`` of them
is positive exactly at thresholds ``t < b``; so one pass counts rows per
(group, b, label), and a suffix sum over b gives every threshold's table:
O(rows + groups·T), never O(rows·T).

Like evaluate's counting (:mod:`batcheval.kernels.count`), the histogram is
filled either in per-thread private tables (:func:`score_histogram`) or, once
it outgrows the caches and rows are shuffled, by radix partitioning
(:func:`sweep_cell_ids`, then the shared partition and count passes).
"""

from __future__ import annotations

import math

import numpy as np

from .binary import EXACT_LIMIT
from .count import row_group, thread_rows
from .jit import jit_inline, jit_parallel, prange


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
    return nonfinite.sum(), bad.sum()


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
    return bad.sum()


#: The measures :func:`sweep_columns` computes as it writes the cells, in its ``slots`` order:
#: every measure of a default sweep. Each is the operations, in the order, of
#: :mod:`batcheval.kernels.binary`'s formula for it, so each value has the bits ``binary_measures``
#: gives it.
FUSED = ("recall", "fallout", "precision", "bias", "informedness", "markedness", "f1", "accuracy")
_N_FUSED = len(FUSED)
# tables measured at a time: the scratch block of their values stays in L1
_FUSED_BLOCK = 256


@jit_parallel
def sweep_columns(hist, groups, thresholds, slots, tp, fp, fn, tn, n, threshold, out):
    """Suffix sums of ``hist[G, T+1, 2]`` (per bin: negatives, positives) for the groups listed in
    ``groups``: the cells at every threshold, written straight into the output columns (row
    ``r*T + j`` is threshold j of ``groups[r]``), with the ``threshold`` column and the measures
    of :data:`FUSED` in the same pass: ``out[slots[k], row]`` is measure ``FUSED[k]`` (skipped
    where ``slots[k]`` is -1), NaN for an empty table.

    A default sweep's frame is some 1.2 GB of fresh columns written once; measuring each group's
    tables while its cells are still in L1, rather than in a pass of their own over the cell
    columns, saves reading those back and the per-operation loops of the general program.
    """
    width = hist.shape[1]
    n_thr = width - 1
    n_fused = _N_FUSED
    measured = False
    for k in range(n_fused):
        measured |= slots[k] >= 0
    nan = np.nan
    for r in prange(groups.shape[0]):
        g = groups[r]
        pos_total = 0
        neg_total = 0
        for b in range(width):
            neg_total += hist[g, b, 0]
            pos_total += hist[g, b, 1]
        base = r * n_thr
        tp_c = 0
        fp_c = 0
        for j in range(n_thr - 1, -1, -1):
            tp_c += hist[g, j + 1, 1]
            fp_c += hist[g, j + 1, 0]
            tp[base + j] = tp_c
            fn[base + j] = pos_total - tp_c
            fp[base + j] = fp_c
            tn[base + j] = neg_total - fp_c
            n[base + j] = pos_total + neg_total
        for j in range(n_thr):
            threshold[base + j] = thresholds[j]
        if not measured:
            continue
        s = np.empty((n_fused, min(n_thr, _FUSED_BLOCK)))
        for lo in range(0, n_thr, _FUSED_BLOCK):
            m = min(n_thr - lo, _FUSED_BLOCK)
            for j in range(m):
                i = base + lo + j
                ti, fi, ni, ui = tp[i], fp[i], fn[i], tn[i]
                a, b, c, d = float(ti), float(fi), float(ni), float(ui)
                # binary.run_program's determinant, exact in int64 while it fits
                exact = float(ti * ui - fi * ni)
                det = exact if ti + fi + ni + ui < EXACT_LIMIT else a * d - b * c
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
def row_any(table):
    """``table.any(axis=1)`` for a 2-D int64 table, in parallel over rows."""
    out = np.zeros(table.shape[0], np.bool_)
    for g in prange(table.shape[0]):
        for j in range(table.shape[1]):
            if table[g, j] != 0:
                out[g] = True
                break
    return out
