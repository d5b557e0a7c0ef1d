"""Exact ROC/PR over every distinct score: rows → scores grouped by group
→ one sort and one walk per group.

Rows are moved into one array per group — scores, with a byte that says
positive — by a two-pass counting sort split over threads (count per thread
and group, then each thread writes its own rows in order): no id column is
materialised and no two threads write one slot. Each group is then sorted by
buckets over its value range — linear for the smooth score distributions
classifiers produce, and no worse than quicksort otherwise, since crowded
buckets fall back to it — and walked once from the top, where a score equal to
the next one is a tie and adds no point.
"""

from __future__ import annotations

import math

import numpy as np

from .count import _group, thread_rows
from .jit import jit, jit_inline, jit_parallel, prange

# buckets up to this size are insertion-sorted; larger ones (heavy ties or
# heavy tails) go to numba's quicksort
_SMALL_BUCKET = 32


@jit
def _insertion_sort(v, lab, a, z):
    for i in range(a + 1, z):
        x = v[i]
        y = lab[i]
        j = i - 1
        while j >= a and v[j] > x:
            v[j + 1] = v[j]
            lab[j + 1] = lab[j]
            j -= 1
        v[j + 1] = x
        lab[j + 1] = y


@jit
def sort_segment(v, lab, a, z, tmp, tmp_lab, ends):
    """Sort ``v[a:z]`` ascending in place, carrying ``lab`` along (finite values).

    ``tmp``, ``tmp_lab`` and ``ends`` are scratch of at least ``z - a`` (+1) slots.
    """
    m = z - a
    if m <= _SMALL_BUCKET:
        _insertion_sort(v, lab, a, z)
        return
    lo = v[a]
    hi = v[a]
    ordered = True
    for i in range(a, z):
        x = v[i]
        if x < hi:
            ordered = False
        lo = min(lo, x)
        hi = max(hi, x)
    if ordered:
        return
    scale = m / (hi - lo)
    if not math.isfinite(scale) or scale == 0.0:  # a range beyond float64
        _quicksort_pairs(v, lab, a, z, tmp, tmp_lab)
        return
    # rounding is monotone, so bucket order is value order
    ends[: m + 1] = 0
    for i in range(a, z):
        ends[min(int((v[i] - lo) * scale), m - 1) + 1] += 1
    for b in range(m):
        ends[b + 1] += ends[b]
    for i in range(a, z):
        b = min(int((v[i] - lo) * scale), m - 1)
        tmp[ends[b]] = v[i]
        tmp_lab[ends[b]] = lab[i]
        ends[b] += 1
    begin = 0
    for b in range(m):
        end = ends[b]
        if end - begin > _SMALL_BUCKET:
            _quicksort_pairs(tmp, tmp_lab, begin, end, v[a + begin : a + end], lab[a + begin : a + end])
        elif end - begin > 1:
            _insertion_sort(tmp, tmp_lab, begin, end)
        begin = end
    v[a:z] = tmp[:m]
    lab[a:z] = tmp_lab[:m]


@jit
def _quicksort_pairs(v, lab, a, z, spare, spare_lab):
    """Crowded buckets (heavy ties or tails): argsort, then permute through ``spare``."""
    order = np.argsort(v[a:z])
    for k in range(z - a):
        spare[k] = v[a + order[k]]
        spare_lab[k] = lab[a + order[k]]
    v[a:z] = spare[: z - a]
    lab[a:z] = spare_lab[: z - a]


@jit_inline
def _not_right_turn(ax, ay, bx, by, cx, cy):
    """a → b → c turns left or goes straight: b is not on the upper hull."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) >= 0


@jit_parallel
def segment_sizes(k0, k1, k2, k3, offset, stride, nkeys, label, vmin, lut, positive, score, sizes):
    """``sizes[t, 2g]`` (positives) and ``sizes[t, 2g + 1]`` (others) of the finite,
    in-class rows of thread t's slice. Returns the rows left out."""
    n = score.shape[0]
    n_threads = sizes.shape[0]
    skipped = np.zeros(n_threads, np.int64)
    for t in prange(n_threads):
        start, stop = thread_rows(t, n, n_threads)
        nskip = 0
        for i in range(start, stop):
            c = lut[np.int64(label[i]) - vmin]
            if c < 0 or not math.isfinite(score[i]):
                nskip += 1
                continue
            g = _group(i, k0, k1, k2, k3, offset, stride, nkeys)
            sizes[t, 2 * g + (0 if c == positive else 1)] += 1
        skipped[t] = nskip
    return skipped.sum()


@jit_parallel
def scatter_segments(
    k0, k1, k2, k3, offset, stride, nkeys, label, vmin, lut, positive, score, at, out, out_lab
):  # fmt: skip
    """Second pass: thread t writes its rows' scores, and 1 for a positive,
    from ``at[t, g]`` on."""
    n = score.shape[0]
    n_threads = at.shape[0]
    for t in prange(n_threads):
        pos = at[t].copy()
        start, stop = thread_rows(t, n, n_threads)
        for i in range(start, stop):
            c = lut[np.int64(label[i]) - vmin]
            s = score[i]
            if c < 0 or not math.isfinite(s):
                continue
            g = _group(i, k0, k1, k2, k3, offset, stride, nkeys)
            out[pos[g]] = s
            out_lab[pos[g]] = 1 if c == positive else 0
            pos[g] += 1


@jit_parallel
def summarise(starts, scores, labels, positives, out, best_thr, best_val):
    """Per group: sort, then walk the distinct scores from the top.

    Group g's rows are ``starts[g]:starts[g+1]`` of ``scores`` and ``labels``
    (1 = positive). ``out[g]`` gets the ROC AUC (trapezoids, ties as one
    diagonal step), the area under the ROC convex hull and the average
    precision, NaN when a class is absent; ``best_thr``/``best_val`` the
    Youden point (largest informedness, highest threshold on ties), from the
    exact int determinant as the binary kernel computes it.
    """
    n_groups = starts.shape[0] - 1
    for g in prange(n_groups):
        a = starts[g]
        z = starts[g + 1]
        m = z - a
        tmp = np.empty(m)
        tmp_lab = np.empty(m, labels.dtype)
        ends = np.empty(m + 1, np.int64)
        sort_segment(scores, labels, a, z, tmp, tmp_lab, ends)
        p_tot = positives[g]
        n_tot = m - p_tot
        best_thr[g] = np.nan
        best_val[g] = np.nan
        if m == 0:
            out[g, 0] = np.nan
            out[g, 1] = np.nan
            out[g, 2] = np.nan
            continue
        # Hull candidates: only a point entered by a step up and left by a step
        # right can be a corner of the upper hull (one below the next point, or
        # right of the previous at the same height, lies under a chord). Each
        # point is written as pending and kept by advancing the count, without a
        # branch; the monotone chain then runs over the few that stay.
        hx = np.empty(m + 2)
        hy = np.empty(m + 2)
        hx[0] = 0.0
        hy[0] = 0.0
        nc = 1
        area = 0.0
        ap = 0.0
        prev_x = 0.0
        prev_y = 0.0
        prev_up = False
        prev_tp = 0
        prev_fp = 0
        top = np.iinfo(np.int64).min
        ctp = 0
        cfp = 0
        for k in range(z - 1, a - 2, -1):
            if k >= a:
                pos = np.int64(labels[k])
                ctp += pos
                cfp += 1 - pos
                if k > a and scores[k - 1] == scores[k]:
                    continue  # ties: one point after the last of them
                # informedness = det / (P·N) with a fixed positive denominator
                det = ctp * n_tot - cfp * p_tot
                if det > top:
                    top = det
                    best_thr[g] = scores[k]
                x = cfp / n_tot if n_tot else np.nan
                y = ctp / p_tot if p_tot else np.nan
                ap += (y - prev_y) * (ctp / (ctp + cfp))
            else:
                x = 1.0
                y = 1.0
            area += (x - prev_x) * (y + prev_y) * 0.5
            hx[nc] = prev_x
            hy[nc] = prev_y
            nc += prev_up and cfp > prev_fp
            prev_up = ctp > prev_tp
            prev_tp = ctp
            prev_fp = cfp
            prev_x = x
            prev_y = y
        hx[nc] = 1.0
        hy[nc] = 1.0
        nc += 1
        h = 1  # upper hull of (0,0), the candidates, (1,1): monotone chain in place
        for c in range(1, nc):
            x = hx[c]
            y = hy[c]
            while h >= 2 and _not_right_turn(hx[h - 2], hy[h - 2], hx[h - 1], hy[h - 1], x, y):
                h -= 1
            hx[h] = x
            hy[h] = y
            h += 1
        den = float(p_tot) * float(n_tot)
        best_val[g] = float(top) / den if den != 0 else 0.0
        if p_tot == 0 or n_tot == 0:
            out[g, 0] = np.nan
            out[g, 1] = np.nan
            out[g, 2] = np.nan
            continue
        hull = 0.0
        for k in range(1, h):
            hull += (hx[k] - hx[k - 1]) * (hy[k] + hy[k - 1]) * 0.5
        out[g, 0] = area
        out[g, 1] = hull
        out[g, 2] = ap


@jit_parallel
def group_points(starts, scores, labels, thr, tp, fp, n_points):
    """Sort each group, then walk it from the top: one point per distinct score
    with the rows at or above it. Points of group g are written from
    ``starts[g]`` on (a group has at most as many points as rows)."""
    for g in prange(starts.shape[0] - 1):
        a = starts[g]
        z = starts[g + 1]
        m = z - a
        sort_segment(scores, labels, a, z, np.empty(m), np.empty(m, labels.dtype), np.empty(m + 1, np.int64))
        k = a
        ctp = 0
        cfp = 0
        for i in range(z - 1, a - 1, -1):
            pos = np.int64(labels[i])
            ctp += pos
            cfp += 1 - pos
            if i > a and scores[i - 1] == scores[i]:
                continue
            thr[k] = scores[i]
            tp[k] = ctp
            fp[k] = cfp
            k += 1
        n_points[g] = k - a


@jit_parallel
def compact_points(starts, point_starts, thr, tp, fp, out_thr, out_tp, out_fp):
    """Close the gaps that ties left between groups' points."""
    for g in prange(point_starts.shape[0] - 1):
        a = starts[g]
        b = point_starts[g]
        for k in range(point_starts[g + 1] - b):
            out_thr[b + k] = thr[a + k]
            out_tp[b + k] = tp[a + k]
            out_fp[b + k] = fp[a + k]


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
