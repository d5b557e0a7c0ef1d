"""Exact ROC/PR over every distinct score: rows → scores grouped by group
→ one sort and one walk per group.

Rows are moved into one array per group — scores, with a byte that says
positive — by a two-pass counting sort split over threads (count per thread
and group, then each thread writes its own rows in order): no id column is
materialised and no two threads write one slot. Each group is then sorted by
buckets over its value range — linear for the smooth score distributions
classifiers produce, and no worse than quicksort otherwise, since crowded
buckets fall back to it — and walked once from the top, where a score equal to
the next one is a tie and adds no point. The walk keeps integer counts: the
ROC and hull areas are exact integer trapezoid sums divided once by 2·P·N,
and hull turns are exact integer cross products.
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
def sort_segment(v, lab, a, z, tmp, tmp_lab, ends, bid):
    """Sort ``v[a:z]`` ascending, carrying ``lab`` along (finite values).

    Returns True when the sorted run was written to ``tmp[:z-a]`` and
    ``tmp_lab`` (``v`` and ``lab`` are then left as they were), False when it
    is in place. ``tmp``, ``tmp_lab``, ``bid`` and ``ends`` are scratch of at
    least ``z - a`` (+1 for ``ends``) slots.
    """
    m = z - a
    if m <= _SMALL_BUCKET:
        _insertion_sort(v, lab, a, z)
        return False
    lo = v[a]
    hi = v[a]
    ordered = True
    for i in range(a, z):
        x = v[i]
        ordered &= x >= hi
        lo = min(lo, x)
        hi = max(hi, x)
    if ordered:
        return False
    scale = m / (hi - lo)
    if not math.isfinite(scale) or scale == 0.0:  # a range beyond float64
        _quicksort_pairs(v, lab, a, z, tmp, tmp_lab)
        return False
    # rounding is monotone, so bucket order is value order
    ends[: m + 1] = 0
    for i in range(m):
        b = min(np.int32((v[a + i] - lo) * scale), m - 1)
        bid[i] = b
        ends[b + 1] += 1
    crowded = 0
    for b in range(m):
        crowded = max(crowded, ends[b + 1])
        ends[b + 1] += ends[b]
    for i in range(m):
        b = bid[i]
        e = ends[b]
        tmp[e] = v[a + i]
        tmp_lab[e] = lab[a + i]
        ends[b] = e + 1
    if crowded <= _SMALL_BUCKET:
        # every value already sits in its bucket: one insertion pass over the
        # whole run moves each only within it, without a branchy loop per bucket
        _insertion_sort(tmp, tmp_lab, 0, m)
        return True
    begin = 0
    for b in range(m):
        end = ends[b]
        if end - begin > _SMALL_BUCKET:
            spare = np.empty(end - begin)
            _quicksort_pairs(tmp, tmp_lab, begin, end, spare, np.empty(end - begin, lab.dtype))
        elif end - begin > 1:
            _insertion_sort(tmp, tmp_lab, begin, end)
        begin = end
    return True


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
    """a → b → c turns left or goes straight: b is not on the upper hull
    (exact on integer counts)."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) >= 0


@jit_parallel
def segment_sizes(k0, k1, k2, k3, offset, stride, nkeys, label, vmin, lut, positive, score, check, sizes):
    """``sizes[t, g]``: the rows of group g in thread t's slice that have a
    class and a finite score — every row, read from the keys alone, when
    ``check`` is False."""
    n = score.shape[0]
    n_threads = sizes.shape[0]
    for t in prange(n_threads):
        start, stop = thread_rows(t, n, n_threads)
        if check:
            for i in range(start, stop):
                if lut[np.uint64(np.int64(label[i]) - vmin)] >= 0 and math.isfinite(score[i]):
                    sizes[t, np.uint64(_group(i, k0, k1, k2, k3, offset, stride, nkeys))] += 1
        else:
            for i in range(start, stop):
                sizes[t, np.uint64(_group(i, k0, k1, k2, k3, offset, stride, nkeys))] += 1


@jit_parallel
def segment_sums(starts, labels):
    """Sum of ``labels[starts[g]:starts[g+1]]`` for every g: each group's positives."""
    n_groups = starts.shape[0] - 1
    out = np.zeros(n_groups, np.int64)
    for g in prange(n_groups):
        s = 0
        for k in range(starts[g], starts[g + 1]):
            s += labels[k]
        out[g] = s
    return out


@jit_parallel
def scatter_segments(
    k0, k1, k2, k3, offset, stride, nkeys, label, vmin, lut, positive, score, at, out, out_lab
):  # fmt: skip
    """Second pass: thread t writes its rows' scores, and 1 for a positive,
    from ``at[t, g]`` on. Returns the rows it skipped (no class or a
    non-finite score)."""
    n = score.shape[0]
    n_threads = at.shape[0]
    skipped = np.zeros(n_threads, np.int64)
    for t in prange(n_threads):
        pos = at[t].copy()
        start, stop = thread_rows(t, n, n_threads)
        nskip = 0
        for i in range(start, stop):
            c = lut[np.uint64(np.int64(label[i]) - vmin)]
            s = score[i]
            if c < 0 or not math.isfinite(s):
                nskip += 1
                continue
            g = np.uint64(_group(i, k0, k1, k2, k3, offset, stride, nkeys))
            at_g = np.uint64(pos[g])
            out[at_g] = s
            out_lab[at_g] = 1 if c == positive else 0
            pos[g] += 1
        skipped[t] = nskip
    return skipped.sum()


@jit
def _walk(v, lab, a, z, p_tot, n_tot, hx, hy):
    """Walk sorted ``v[a:z]`` from the top, one point per distinct score.

    Returns ``(2·P·N·auc, 2·P·N·hull, P·ap, det, threshold)``: the ROC and
    hull areas as exact integer trapezoid sums in (fp, tp) counts, average
    precision times P, and the Youden point's integer determinant
    ``tp·N − fp·P`` (informedness · P·N) with its threshold — the highest on
    ties. ``hx``/``hy`` are scratch of ``z - a + 2`` slots.

    The loop has no data-dependent branch: whether a row ends a run of tied
    scores is a 0/1 factor and a select, which costs less than mispredicting
    the ties of rounded scores.
    """
    # Hull candidates: only a point entered by a step up and left by a step
    # right can be a corner of the upper hull (one below the next point, or
    # right of the previous at the same height, lies under a chord). Each
    # point is written as pending and kept by advancing the count; the
    # monotone chain then runs over the few that stay.
    hx[0] = 0
    hy[0] = 0
    nc = 1
    ctp = 0
    cfp = 0
    ptp = 0
    pfp = 0
    twice_area = 0
    ap = 0.0
    top = np.iinfo(np.int64).min
    best = np.nan
    prev_up = 0
    for k in range(z - 1, a - 1, -1):
        pos = np.int64(lab[k])
        ctp += pos
        cfp += 1 - pos
        last = np.int64(k == a or v[k - 1] != v[k])
        det = ctp * n_tot - cfp * p_tot
        better = last & np.int64(det > top)
        top = det if better else top
        best = v[k] if better else best
        dtp = ctp - ptp
        twice_area += last * ((cfp - pfp) * (ctp + ptp))
        ap += (last * dtp) * ctp / (ctp + cfp)
        hx[nc] = pfp
        hy[nc] = ptp
        nc += last & prev_up & np.int64(cfp > pfp)
        prev_up = (np.int64(dtp > 0) & last) | (prev_up & (1 - last))
        ptp = ctp if last else ptp
        pfp = cfp if last else pfp
    hx[nc] = pfp  # the last point: (N, P)
    hy[nc] = ptp
    nc += 1
    h = 1  # upper hull of (0, 0), the candidates and (N, P): monotone chain in place
    for c in range(1, nc):
        x = hx[c]
        y = hy[c]
        while h >= 2 and _not_right_turn(hx[h - 2], hy[h - 2], hx[h - 1], hy[h - 1], x, y):
            h -= 1
        hx[h] = x
        hy[h] = y
        h += 1
    twice_hull = 0
    for k in range(1, h):
        twice_hull += (hx[k] - hx[k - 1]) * (hy[k] + hy[k - 1])
    return twice_area, twice_hull, ap, top, best


@jit_parallel
def summarise(starts, scores, labels, positives, out, best_thr, best_val):
    """Per group: sort, then walk the distinct scores from the top.

    Group g's rows are ``starts[g]:starts[g+1]`` of ``scores`` and ``labels``
    (1 = positive); they are left in place or sorted, never otherwise
    changed. ``out[g]`` gets the ROC AUC (trapezoids, ties as one diagonal
    step), the area under the ROC convex hull and the average precision, NaN
    when a class is absent; ``best_thr``/``best_val`` the Youden point
    (largest informedness, highest threshold on ties), from the exact int
    determinant as the binary kernel computes it.
    """
    n_groups = starts.shape[0] - 1
    for g in prange(n_groups):
        a = starts[g]
        z = starts[g + 1]
        m = z - a
        p_tot = positives[g]
        n_tot = m - p_tot
        best_thr[g] = np.nan
        best_val[g] = np.nan
        out[g, 0] = np.nan
        out[g, 1] = np.nan
        out[g, 2] = np.nan
        if m == 0:
            continue
        tmp = np.empty(m)
        tmp_lab = np.empty(m, labels.dtype)
        hx = np.empty(m + 2, np.int64)
        hy = np.empty(m + 2, np.int64)
        if sort_segment(scores, labels, a, z, tmp, tmp_lab, np.empty(m + 1, np.int64), np.empty(m, np.int32)):
            twice_area, twice_hull, ap, top, best = _walk(tmp, tmp_lab, 0, m, p_tot, n_tot, hx, hy)
        else:
            twice_area, twice_hull, ap, top, best = _walk(scores, labels, a, z, p_tot, n_tot, hx, hy)
        den = float(p_tot) * float(n_tot)
        best_thr[g] = best
        best_val[g] = float(top) / den if den != 0 else 0.0
        if den != 0:
            out[g, 0] = twice_area / (2.0 * den)
            out[g, 1] = twice_hull / (2.0 * den)
            out[g, 2] = ap / p_tot


@jit_parallel
def group_points(starts, scores, labels, thr, tp, fp, n_points):
    """Sort each group, then walk it from the top: one point per distinct score
    with the rows at or above it. Points of group g are written from
    ``starts[g]`` on (a group has at most as many points as rows)."""
    for g in prange(starts.shape[0] - 1):
        a = starts[g]
        z = starts[g + 1]
        m = z - a
        tmp = np.empty(m)
        tmp_lab = np.empty(m, labels.dtype)
        if sort_segment(scores, labels, a, z, tmp, tmp_lab, np.empty(m + 1, np.int64), np.empty(m, np.int32)):
            scores[a:z] = tmp
            labels[a:z] = tmp_lab
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
