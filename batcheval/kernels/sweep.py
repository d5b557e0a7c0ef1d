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

from .count import _group
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
    step = (n + n_threads - 1) // n_threads
    for t in prange(n_threads):
        buf = bufs[t]
        start = t * step
        stop = min(n, start + step)
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


@jit
def group_offsets(gid, n_groups):
    """Row counts per group and their exclusive prefix sums."""
    sizes = np.zeros(n_groups, np.int64)
    for i in range(gid.shape[0]):
        sizes[gid[i]] += 1
    starts = np.zeros(n_groups + 1, np.int64)
    for g in range(n_groups):
        starts[g + 1] = starts[g] + sizes[g]
    return starts


@jit
def scatter_by_group(gid, starts, score, is_pos, out_score, out_pos):
    """Counting sort of (score, is_pos) by group id (stable)."""
    pos = starts[:-1].copy()
    for i in range(gid.shape[0]):
        g = gid[i]
        out_score[pos[g]] = score[i]
        out_pos[pos[g]] = is_pos[i]
        pos[g] += 1


@jit_parallel
def sort_groups_and_count_points(starts, score, is_pos, n_points):
    """Sort each group's scores descending (labels alongside); count its distinct scores."""
    for g in prange(starts.shape[0] - 1):
        a = starts[g]
        z = starts[g + 1]
        if z - a == 0:
            n_points[g] = 0
            continue
        order = np.argsort(-score[a:z], kind="mergesort")
        s = score[a:z][order]
        p = is_pos[a:z][order]
        score[a:z] = s
        is_pos[a:z] = p
        distinct = 1
        for i in range(1, z - a):
            if s[i] != s[i - 1]:
                distinct += 1
        n_points[g] = distinct


@jit_parallel
def exact_points(starts, score, is_pos, point_starts, thr, tp, fp):
    """For each group and distinct score θ (descending): rows with score >= θ that are
    positive (``tp``) and negative (``fp``)."""
    for g in prange(starts.shape[0] - 1):
        a = starts[g]
        z = starts[g + 1]
        k = point_starts[g] - 1
        ctp = 0
        cfp = 0
        for i in range(a, z):
            if i == a or score[i] != score[i - 1]:
                k += 1
                thr[k] = score[i]
            if is_pos[i]:
                ctp += 1
            else:
                cfp += 1
            tp[k] = ctp
            fp[k] = cfp


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
