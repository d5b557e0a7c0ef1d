"""Threshold sweeps: rows → per-group score histograms → 2×2 tables per threshold.

A row is predicted positive at threshold θ iff ``score >= θ``. With sorted
thresholds θ_0 < … < θ_{T-1}, a row whose score passes the first ``b`` of them
is positive exactly at thresholds ``t < b``; so one pass counts rows per
(group, b, label), and a suffix sum over b gives every threshold's table:
O(rows + groups·T), never O(rows·T).
"""

from __future__ import annotations

import math

import numpy as np

from .count import _group, thread_rows
from .jit import jit, jit_inline, jit_parallel, prange


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
            c = lut[np.int64(label[i]) - vmin]
            if c < 0:
                bad[t] += 1
                continue
            g = _group(i, k0, k1, k2, k3, offset, stride, nkeys)
            b = _passed(s, thresholds, lo, inv_step, evenly)
            buf[(g * width + b) * 2 + (1 if c == positive else 0)] += 1
    return nonfinite.sum(), bad.sum()


@jit_parallel
def tables_from_histogram(hist, out):
    """Suffix sums: ``hist[G, T+1, 2]`` → ``out[G, T, 2, 2]`` (real × predicted)."""
    n_groups, width, _ = hist.shape
    n_thr = width - 1
    for g in prange(n_groups):
        pos_total = 0
        neg_total = 0
        for b in range(width):
            neg_total += hist[g, b, 0]
            pos_total += hist[g, b, 1]
        tp = 0
        fp = 0
        for j in range(n_thr - 1, -1, -1):
            tp += hist[g, j + 1, 1]
            fp += hist[g, j + 1, 0]
            out[g, j, 1, 1] = tp
            out[g, j, 1, 0] = pos_total - tp
            out[g, j, 0, 1] = fp
            out[g, j, 0, 0] = neg_total - fp


# -- exact sweeps: every distinct score of each group ------------------------------


@jit_inline
def _turns_left_or_straight(ax, ay, bx, by, cx, cy):
    """a → b → c does not turn right: b is not on the upper hull."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) >= 0


@jit_parallel
def curve_areas(point_starts, tp, fp, pos_total, neg_total, out):
    """Per group: ROC AUC (trapezoids, ties as one diagonal step), area under the
    ROC convex hull, and average precision. NaN when a class is absent."""
    n_groups = point_starts.shape[0] - 1
    for g in prange(n_groups):
        a = point_starts[g]
        z = point_starts[g + 1]
        p_tot = pos_total[g]
        n_tot = neg_total[g]
        if p_tot == 0 or n_tot == 0:
            out[g, 0] = np.nan
            out[g, 1] = np.nan
            out[g, 2] = np.nan
            continue
        area = 0.0
        ap = 0.0
        prev_x = 0.0
        prev_y = 0.0
        m = z - a
        # upper hull of (0,0), the points, (1,1): monotone chain over increasing x
        hx = np.empty(m + 2)
        hy = np.empty(m + 2)
        h = 0
        hx[0] = 0.0
        hy[0] = 0.0
        h = 1
        for k in range(a, z + 1):
            if k < z:
                x = fp[k] / n_tot
                y = tp[k] / p_tot
            else:
                x = 1.0
                y = 1.0
            area += (x - prev_x) * (y + prev_y) * 0.5
            if k < z:
                ap += (y - prev_y) * (tp[k] / (tp[k] + fp[k]))
            while (
                h >= 2
                and (hx[h - 1] - hx[h - 2]) * (y - hy[h - 2]) - (hy[h - 1] - hy[h - 2]) * (x - hx[h - 2]) >= 0
            ):
                h -= 1
            hx[h] = x
            hy[h] = y
            h += 1
            prev_x = x
            prev_y = y
        hull = 0.0
        for i in range(1, h):
            hull += (hx[i] - hx[i - 1]) * (hy[i] + hy[i - 1]) * 0.5
        out[g, 0] = area
        out[g, 1] = hull
        out[g, 2] = ap


@jit_parallel
def segment_argmax(values, point_starts):
    """Index of the largest value in each segment (first on ties, NaN ignored); -1 if none."""
    n_groups = point_starts.shape[0] - 1
    best = np.full(n_groups, -1, np.int64)
    for g in prange(n_groups):
        top = -np.inf
        for k in range(point_starts[g], point_starts[g + 1]):
            v = values[k]
            if v > top:
                top = v
                best[g] = k
    return best


@jit_parallel
def point_tables(point_starts, tp, fp, pos_total, neg_total, out):
    """``out[k]`` = the 2×2 table (real × predicted) at point k of its group."""
    for g in prange(point_starts.shape[0] - 1):
        p = pos_total[g]
        n = neg_total[g]
        for k in range(point_starts[g], point_starts[g + 1]):
            out[k, 1, 1] = tp[k]
            out[k, 1, 0] = p - tp[k]
            out[k, 0, 1] = fp[k]
            out[k, 0, 0] = n - fp[k]


@jit
def group_label_offsets(gid, is_pos, n_groups):
    """Row starts per group (``starts[G+1]``) and positives per group."""
    sizes = np.zeros(n_groups, np.int64)
    positives = np.zeros(n_groups, np.int64)
    for i in range(gid.shape[0]):
        sizes[gid[i]] += 1
        positives[gid[i]] += is_pos[i]
    starts = np.zeros(n_groups + 1, np.int64)
    for g in range(n_groups):
        starts[g + 1] = starts[g] + sizes[g]
    return starts, positives


@jit
def scatter_by_group_label(gid, is_pos, score, starts, positives, out):
    """Counting sort of scores: group g's positives, then its negatives."""
    pos_at = starts[:-1].copy()
    neg_at = starts[:-1] + positives
    for i in range(gid.shape[0]):
        g = gid[i]
        if is_pos[i]:
            out[pos_at[g]] = score[i]
            pos_at[g] += 1
        else:
            out[neg_at[g]] = score[i]
            neg_at[g] += 1


@jit_parallel
def group_points(starts, positives, score, thr, tp, fp, n_points):
    """Sort each group's positive and negative scores, then merge them from the top:
    one point per distinct score with the rows at or above it. Points of group g
    are written from ``starts[g]`` on (a group has at most as many points as rows)."""
    for g in prange(starts.shape[0] - 1):
        a = starts[g]
        m = a + positives[g]
        z = starts[g + 1]
        score[a:m].sort()
        score[m:z].sort()
        i = m - 1
        j = z - 1
        k = a
        ctp = 0
        cfp = 0
        while i >= a or j >= m:
            v = -np.inf
            if i >= a:
                v = score[i]
            if j >= m and score[j] > v:
                v = score[j]
            while i >= a and score[i] == v:
                ctp += 1
                i -= 1
            while j >= m and score[j] == v:
                cfp += 1
                j -= 1
            thr[k] = v
            tp[k] = ctp
            fp[k] = cfp
            k += 1
        n_points[g] = k - a


@jit_parallel
def compact_points(starts, point_starts, thr, tp, fp, out_thr, out_tp, out_fp):
    """Close the gaps between groups' points."""
    for g in prange(starts.shape[0] - 1):
        a = starts[g]
        b = point_starts[g]
        for k in range(point_starts[g + 1] - b):
            out_thr[b + k] = thr[a + k]
            out_tp[b + k] = tp[a + k]
            out_fp[b + k] = fp[a + k]


@jit_parallel
def best_informedness(point_starts, tp, fp, pos_total, neg_total):
    """Youden point of each group without building tables: index and value of the
    largest informedness, first (highest threshold) on ties; -1 for empty groups.
    Computed as the binary kernel does (exact int determinant), so the values agree
    bit for bit with :func:`batcheval.measures.compute`."""
    n_groups = point_starts.shape[0] - 1
    best = np.full(n_groups, -1, np.int64)
    value = np.full(n_groups, np.nan)
    for g in prange(n_groups):
        p = pos_total[g]
        n = neg_total[g]
        top = -np.inf
        for k in range(point_starts[g], point_starts[g + 1]):
            den = float(p) * float(n)
            v = float(tp[k] * n - fp[k] * p) / den if den != 0 else 0.0
            if v > top:
                top = v
                best[g] = k
        if best[g] >= 0:
            value[g] = top
    return best, value


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
