"""Exact ROC/PR over every distinct score: rows → scores grouped by group
→ one sort and one walk per group.

Rows are moved into one array, each group's negatives and then its
positives, by a two-pass counting sort split over threads (count per thread,
group and class while writing each row's cell, 2 or 4 bytes; then each thread
writes its own rows' scores in order, reading those cells): where a score
lands says its label, and no two threads write one slot. Each group is then
sorted by a two-byte radix sort of a 16-bit rank of its scores, or, where
that declines, by buckets over its value range (crowded buckets heap-sorted),
and walked once from the top, where a score equal to the next one is a tie
and adds no point. The walk keeps integer counts: the ROC and hull areas are exact
integer trapezoid sums divided once by 2·P·N, and hull turns are exact
integer cross products. Those products (each at most rows²) could pass
int64 in a group of more than 2^30 scores; such groups are walked with
128-bit pairs (:mod:`.wide`) instead, with the same exact results.
"""

from __future__ import annotations

import math

import numpy as np

from . import wide as _wide
from .count import row_group, thread_rows
from .jit import jit, jit_inline, jit_parallel, prange

# buckets up to this size are insertion-sorted; larger ones (heavy ties or
# heavy tails) go to numba's quicksort
_SMALL_BUCKET = 32
# two buckets per row: the final insertion pass then moves far fewer rows (a
# bucket shared by two rows is out of order half the time, and each such move
# is a mispredicted branch), for one more cheap pass over the bucket counts
_BUCKETS_PER_ROW = 2
# bucket indices stay far below 2^31 (they are int32, and a float product
# just under 2^31 could round up to it): a group of more than 2^29 rows gets
# fewer buckets than two a row, so a few more rows a bucket
MAX_BUCKETS = 1 << 30
# groups up to this many rows keep every product and sum of the walk (each
# at most rows²) within int64
NARROW_ROWS = 1 << 30


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


@jit_inline
def bucket_count(m, max_buckets=MAX_BUCKETS):
    """Buckets for a run of ``m`` rows: two a row, at most ``max_buckets``."""
    return min(_BUCKETS_PER_ROW * m, max_buckets)


@jit_inline
def bucket_of(x, lo, scale, n_buckets):
    """Bucket of value ``x`` in ``[lo, hi]`` with ``scale = n_buckets / (hi - lo)``,
    formed in int64 (``hi`` itself lands at ``n_buckets`` and joins the last)."""
    return min(np.int64((x - lo) * scale), n_buckets - 1)


@jit
def sort_segment(v, lab, tmp, tmp_lab, ends, bid, max_buckets=MAX_BUCKETS):
    """Sort finite ``v`` ascending, carrying ``lab`` along, leaving both as they are.

    Returns False when ``v`` is already in order, otherwise True with the
    sorted run in ``tmp`` and ``tmp_lab``. ``tmp``, ``tmp_lab`` and ``bid``
    (int32) are scratch of ``len(v)`` slots, ``ends`` of
    ``bucket_count(len(v), max_buckets) + 1``.
    """
    m = v.shape[0]
    lo = v[0]
    hi = v[0]
    ordered = True
    for i in range(m):
        x = v[i]
        ordered &= x >= hi
        lo = min(lo, x)
        hi = max(hi, x)
    if ordered:
        return False
    n_buckets = bucket_count(m, max_buckets)
    scale = n_buckets / (hi - lo)
    if m <= _SMALL_BUCKET or not math.isfinite(scale) or scale == 0.0:  # few rows, or a range beyond float64
        for i in range(m):  # a loop, not a slice copy: that compiles numba's shape-error text
            tmp[i] = v[i]
            tmp_lab[i] = lab[i]
        if m <= _SMALL_BUCKET:
            _insertion_sort(tmp, tmp_lab, np.int64(0), m)
        else:
            _heapsort_pairs(tmp, tmp_lab, np.int64(0), m)
        return True
    # rounding is monotone, so bucket order is value order
    ends[: n_buckets + 1] = 0
    for i in range(m):
        b = bucket_of(v[i], lo, scale, n_buckets)
        bid[i] = b
        ends[b + 1] += 1
    crowded = 0
    for b in range(n_buckets):
        crowded = max(crowded, ends[b + 1])
        ends[b + 1] += ends[b]
    for i in range(m):
        b = bid[i]
        e = ends[b]
        tmp[e] = v[i]
        tmp_lab[e] = lab[i]
        ends[b] = e + 1
    if crowded <= _SMALL_BUCKET:
        # every value already sits in its bucket: one insertion pass over the
        # whole run moves each only within it, without a branchy loop per bucket
        _insertion_sort(tmp, tmp_lab, np.int64(0), m)
        return True
    begin = np.int64(0)  # typed int64 from the start: a literal 0 would compile the sorts twice
    for b in range(n_buckets):
        end = ends[b]
        if end - begin > _SMALL_BUCKET:
            _heapsort_pairs(tmp, tmp_lab, begin, end)
        elif end - begin > 1:
            _insertion_sort(tmp, tmp_lab, begin, end)
        begin = end
    return True


@jit
def _sift_down(v, lab, a, root, n):
    """Restore the max-heap ``v[a:a+n]`` below ``root``, carrying ``lab``."""
    x, y = v[a + root], lab[a + root]
    while True:
        child = 2 * root + 1
        if child >= n:
            break
        if child + 1 < n and v[a + child + 1] > v[a + child]:
            child += 1
        if not v[a + child] > x:
            break
        v[a + root] = v[a + child]
        lab[a + root] = lab[a + child]
        root = child
    v[a + root] = x
    lab[a + root] = y


@jit
def _heapsort_pairs(v, lab, a, z):
    """Crowded buckets (heavy ties or tails): sort ``v[a:z]`` in place, carrying ``lab``.

    A heap sort rather than ``np.argsort``: no scratch arrays, O(n) when every value is
    tied, and it keeps numba's quicksort (about 1.5 s of the first ``auc``'s compile)
    out of the kernel; the order among tied values does not matter to any caller.
    """
    n = z - a
    for root in range(n // 2 - 1, -1, -1):
        _sift_down(v, lab, a, root, n)
    for end in range(n - 1, 0, -1):
        x, y = v[a], lab[a]
        v[a], lab[a] = v[a + end], lab[a + end]
        v[a + end], lab[a + end] = x, y
        _sift_down(v, lab, a, np.int64(0), end)  # a literal 0 would compile it twice


# a row's index rides in the low 16 bits of its radix key, its score's rank in the high 16
RADIX_ROWS = 1 << 16
_RADIX_LEVELS = 65536.0


@jit
def _range_of(v):
    """Min and max of non-empty ``v`` in four independent chains: one chain of ``min`` waits
    on each step before it, and numba's float min does not vectorise. Min and max are exact,
    so the order is free (but for the sign of a zero, which :func:`radix_sort_run` ranks
    the same either way)."""
    m = v.shape[0]
    lo0 = lo1 = lo2 = lo3 = hi0 = hi1 = hi2 = hi3 = v[0]
    quad = m // 4 * 4
    for i in range(0, quad, 4):
        x0 = v[i]
        x1 = v[i + 1]
        x2 = v[i + 2]
        x3 = v[i + 3]
        lo0 = min(lo0, x0)
        lo1 = min(lo1, x1)
        lo2 = min(lo2, x2)
        lo3 = min(lo3, x3)
        hi0 = max(hi0, x0)
        hi1 = max(hi1, x1)
        hi2 = max(hi2, x2)
        hi3 = max(hi3, x3)
    for i in range(quad, m):
        lo0 = min(lo0, v[i])
        hi0 = max(hi0, v[i])
    return min(lo0, lo1, lo2, lo3), max(hi0, hi1, hi2, hi3)


@jit
def _zeros_stable_in_buckets(v, lo, hi):
    """Whether :func:`sort_segment` keeps the zeros of ``v`` (range ``lo..hi``, not in
    order) in their order: their bucket, like every other, is then insertion-sorted, not
    heap-sorted, and its range in float64."""
    m = v.shape[0]
    n_buckets = bucket_count(m)
    scale = n_buckets / (hi - lo)
    if not math.isfinite(scale) or scale == 0.0:
        return False
    zero = bucket_of(0.0, lo, scale, n_buckets)
    shared = 0
    for i in range(m):
        shared += np.int64(bucket_of(v[i], lo, scale, n_buckets) == zero)
    return shared <= _SMALL_BUCKET


@jit
def radix_sort_run(v, negatives, tmp, lab, keys, spare, counts):
    """Sort finite ``v`` (rows from ``negatives`` on positive) ascending into ``tmp``, with a
    label byte per row in ``lab`` (1 = positive), in two byte passes of a 16-bit rank.

    Each score's rank is its place among 65,536 equal steps of the run's range, packed above
    its row into a uint32 key: two stable counting passes over 256 counts order the keys by
    rank, and gathering the scores in that order while insertion-sorting each into place fixes
    what a step holds. Against :func:`sort_segment`'s buckets (two a row) this sums 512
    counts instead of 4,000 for 2,000 rows, moves 4-byte keys, and leaves the insertion pass
    little to do, since distinct scores seldom share a step. ``keys`` and ``spare`` (uint32)
    and ``counts`` (uint32, 512) are scratch.

    Returns False, with ``tmp`` and ``lab`` undefined, where :func:`sort_segment` must sort:
    a run too short to pay for the counts or too long for a 16-bit row, a range beyond
    float64, insertion moves past eight a row (steps crowded by a heavy tail), and runs
    holding both +0.0 and -0.0 that sort_segment would heap-sort. Those two compare equal
    but differ in bits, so which sorts first shows in a threshold: this sort, like
    sort_segment but for the buckets it heap-sorts, keeps equal scores in their order in
    ``v``, so where sort_segment would not, it decides. Other equal scores have equal bits,
    and the walks read only how many rows of each class a score holds.
    """
    m = v.shape[0]
    if m <= _SMALL_BUCKET or m > RADIX_ROWS:
        return False
    lo, hi = _range_of(v)
    ordered = True
    zeros = 0  # bit 0: a +0.0 seen, bit 1: a -0.0
    for i in range(1, m):  # each loop on its own vectorises
        ordered &= v[i] >= v[i - 1]
    for i in range(m):
        x = v[i]
        zeros |= np.int64(x == 0.0) << np.int64(math.copysign(1.0, x) < 0.0)
    if ordered:
        for i in range(m):
            tmp[i] = v[i]
            lab[i] = np.uint8(i >= negatives)
        return True
    if zeros == 3 and not _zeros_stable_in_buckets(v, lo, hi):
        return False
    scale = _RADIX_LEVELS / (hi - lo)
    if not math.isfinite(scale) or scale == 0.0:
        return False
    top = np.int64(_RADIX_LEVELS) - 1
    for i in range(m):  # no stores but the key's: this loop vectorises
        rank = min(np.int64((v[i] - lo) * scale), top)  # rounding is monotone: rank order is value order
        keys[i] = (np.uint32(rank) << np.uint32(16)) | np.uint32(i)
    counts[:] = 0
    for i in range(m):
        k = keys[i]
        counts[(k >> np.uint32(16)) & np.uint32(255)] += 1
        counts[256 + (k >> np.uint32(24))] += 1
    low = np.uint32(0)  # unsigned counts and offsets: no negative-index wraparound to test
    high = np.uint32(0)
    for d in range(256):
        c = counts[d]
        counts[d] = low
        low += c
        c = counts[256 + d]
        counts[256 + d] = high
        high += c
    for i in range(m):
        k = keys[i]
        d = (k >> np.uint32(16)) & np.uint32(255)
        e = counts[d]
        spare[e] = k
        counts[d] = e + np.uint32(1)
    for i in range(m):
        k = spare[i]
        d = np.uint32(256) + (k >> np.uint32(24))
        e = counts[d]
        keys[e] = k
        counts[d] = e + np.uint32(1)
    budget = 8 * m
    for k in range(m):
        i = keys[k] & np.uint32(0xFFFF)
        x = v[i]
        y = np.uint8(i >= negatives)
        j = k - 1
        while j >= 0 and tmp[j] > x:
            tmp[j + 1] = tmp[j]
            lab[j + 1] = lab[j]
            j -= 1
        tmp[j + 1] = x
        lab[j + 1] = y
        budget -= k - 1 - j
        if budget < 0:
            return False
    return True


@jit
def sort_run(v, negatives, tmp, lab, keys, spare, counts, lab_in, ends, bid):
    """Sort finite ``v`` (rows from ``negatives`` on positive) into ``tmp`` with a label
    byte per row in ``lab``: by :func:`radix_sort_run` where it can, else by
    :func:`sort_segment`. Scratch: ``keys``, ``spare`` (uint32, ``min(len(v), RADIX_ROWS)``),
    ``counts`` (uint32, 512), ``lab_in`` (uint8), ``bid`` (int32) of ``len(v)``, ``ends`` of
    ``bucket_count(len(v)) + 1``."""
    if radix_sort_run(v, negatives, tmp, lab, keys, spare, counts):
        return
    m = v.shape[0]
    for i in range(m):
        lab_in[i] = np.uint8(i >= negatives)
    if not sort_segment(v, lab_in[:m], tmp, lab, ends, bid):
        for i in range(m):
            tmp[i] = v[i]
            lab[i] = lab_in[i]


@jit
def run_scratch(widest):
    """Scratch of :func:`sort_run` and :func:`walk_into` for runs of up to ``widest`` rows."""
    radix = min(widest, RADIX_ROWS)
    return (
        np.empty(widest),
        np.empty(widest, np.uint8),
        np.empty(radix, np.uint32),
        np.empty(radix, np.uint32),
        np.empty(512, np.uint32),
        np.empty(widest, np.uint8),
        np.empty(bucket_count(widest) + 1, np.int64),
        np.empty(widest, np.int32),
        np.empty(widest, np.int64),
        np.empty(widest, np.int64),
        np.empty(widest + 2, np.int64),
        np.empty(widest + 2, np.int64),
    )


@jit
def widest_group(starts, g0, g1):
    """The most rows of any of groups ``g0..g1-1``."""
    widest = 0
    for g in range(g0, g1):
        widest = max(widest, starts[g + 1] - starts[g])
    return widest


@jit_inline
def _not_right_turn(ax, ay, bx, by, cx, cy):
    """a → b → c turns left or goes straight: b is not on the upper hull
    (exact on integer counts)."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) >= 0


@jit_parallel
def segment_cells(
    k0, k1, k2, k3, offset, stride, nkeys, label, vmin, lut, positive, score, check, sizes, cells
):
    """``cells[i]``: row i's cell, ``2g + 1`` for a positive of group g and ``2g`` for its
    other rows, and ``sizes[t, cell]`` the rows of each cell in thread t's slice. With
    ``check``, a row without a class or a finite score gets the cell ``sizes.shape[1]`` and
    is not counted (every row has a class otherwise)."""
    n = score.shape[0]
    n_threads = sizes.shape[0]
    none = sizes.shape[1]
    for t in prange(n_threads):
        start, stop = thread_rows(t, n, n_threads)
        if check:
            for i in range(start, stop):
                c = lut[np.uint64(np.int64(label[i]) - vmin)]
                cell = none
                if c >= 0 and math.isfinite(score[i]):
                    g = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)
                    cell = 2 * g + np.int64(c == positive)
                    sizes[t, cell] += 1
                cells[i] = cell
        else:
            for i in range(start, stop):
                c = lut[np.uint64(np.int64(label[i]) - vmin)]
                g = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)
                cell = 2 * g + np.int64(c == positive)
                sizes[t, cell] += 1
                cells[i] = cell


@jit_parallel
def scatter_cells(cells, score, at, out):
    """Second pass: thread t writes the scores of its rows of cell c from ``at[t, c]`` on
    (a group's negatives, then its positives: where a score lands says its label, so no
    label byte is written), reading the cells of :func:`segment_cells` rather than the keys
    and labels again. Returns the rows it skipped (cells past the last, or a non-finite
    score)."""
    n = score.shape[0]
    n_threads = at.shape[0]
    n_cells = at.shape[1]
    skipped = np.zeros(n_threads, np.int64)
    for t in prange(n_threads):
        pos = at[t].copy()
        start, stop = thread_rows(t, n, n_threads)
        nskip = 0
        for i in range(start, stop):
            c = np.int64(cells[i])
            s = score[i]
            if c >= n_cells or not math.isfinite(s):
                nskip += 1
                continue
            out[np.uint64(pos[c])] = s
            pos[c] += 1
        skipped[t] = nskip
    return skipped.sum()


@jit
def _distinct_points(v, lab, tp_at, row_at):
    """Walk sorted, non-empty ``v`` from the top: one point per distinct
    score. Point j gets the positives at or above its score, ``tp_at[j]``, and
    the lowest row of its ties, ``row_at[j]`` (so ``len(v) - row_at[j]`` rows
    are at or above it). Returns the number of points.

    Every row writes its counts to the current point and a row whose next
    score differs moves on to the next: no branch depends on the data, which
    costs less than mispredicting the ties of rounded scores.
    """
    j = 0
    tp = 0
    for k in range(v.shape[0] - 1, 0, -1):
        tp += np.int64(lab[k])
        tp_at[j] = tp
        row_at[j] = k
        j += np.int64(v[k - 1] != v[k])
    tp_at[j] = tp + np.int64(lab[0])
    row_at[j] = 0
    return j + 1


@jit
def walk_into(v, lab, p_tot, n_tot, tp_at, row_at, hx, hy):
    """Summarise sorted, non-empty ``v`` over its distinct scores.

    Returns ``(2·P·N·auc, 2·P·N·hull, P·ap, det, threshold)``: the ROC and
    hull areas as exact integer trapezoid sums in (fp, tp) counts, rounded
    once to floats, average precision times P, and the Youden point's
    integer determinant ``tp·N − fp·P`` (informedness · P·N, as a float) with
    its threshold — the highest on ties. ``tp_at``, ``row_at`` (int64, at
    least ``len(v)``) and ``hx``, ``hy`` (int64, ``len(v) + 2``) are scratch.
    """
    m = v.shape[0]
    n_points = _distinct_points(v, lab, tp_at, row_at)
    if m <= NARROW_ROWS:
        twice_area, twice_hull, ap, top, best = _walk_points_into(
            tp_at, row_at, n_points, m, p_tot, n_tot, hx, hy
        )
    else:
        twice_area, twice_hull, ap, top, best = walk_points_wide(tp_at, row_at, n_points, m, p_tot, n_tot)
    return twice_area, twice_hull, ap, top, v[row_at[best]]


@jit
def walk_points(tp_at, row_at, n_points, m, p_tot, n_tot):
    """The areas, AP and Youden point of the ROC points of :func:`_distinct_points`
    (``m`` rows, ``p_tot`` of them positive), in int64: for ``m <= NARROW_ROWS``.

    Returns ``(2·P·N·auc, 2·P·N·hull, P·ap, det, best)`` with ``best`` the
    index of the Youden point.
    """
    hull = np.empty(n_points + 2, np.int64), np.empty(n_points + 2, np.int64)
    return _walk_points_into(tp_at, row_at, n_points, m, p_tot, n_tot, *hull)


@jit
def _drop_inner(hx, hy, nc):
    """Keep, in place, the first and last of points ``0..nc-1`` and each other point whose
    neighbours in the list make a right turn through it; returns how many are kept. A point
    on or under its neighbours' chord is no corner of their upper hull, so the hull, and its
    exact area, are the same without it."""
    if nc < 3:
        return nc
    px = hx[0]
    py = hy[0]
    cx = hx[1]
    cy = hy[1]
    k = 1
    for c in range(1, nc - 1):
        nx = hx[c + 1]  # read before any write reaches it: writes go to k <= c
        ny = hy[c + 1]
        hx[k] = cx
        hy[k] = cy
        k += np.int64(not _not_right_turn(px, py, cx, cy, nx, ny))
        px = cx
        py = cy
        cx = nx
        cy = ny
    hx[k] = cx
    hy[k] = cy
    return k + 1


@jit
def _walk_points_into(tp_at, row_at, n_points, m, p_tot, n_tot, hx, hy):
    """:func:`walk_points` with its hull candidates in ``hx``, ``hy`` (``n_points + 2``)."""
    # Hull candidates: only a point entered by a step up and left by a step
    # right can be a corner of the upper hull (one below the next point, or
    # right of the previous at the same height, lies under a chord). Each
    # point is written as pending and kept by advancing the count; the
    # monotone chain then runs over the few that stay.
    hx[0] = 0
    hy[0] = 0
    nc = 1
    ptp = 0
    pfp = 0
    twice_area = 0
    ap = 0.0
    top = np.iinfo(np.int64).min
    best = 0
    up = 0
    for j in range(n_points):
        tp = tp_at[j]
        fp = m - row_at[j] - tp
        twice_area += (fp - pfp) * (tp + ptp)
        ap += (tp - ptp) * tp / (tp + fp)
        det = tp * n_tot - fp * p_tot
        better = det > top
        top = det if better else top
        best = j if better else best
        hx[nc] = pfp
        hy[nc] = ptp
        nc += up & np.int64(fp > pfp)
        up = np.int64(tp > ptp)
        ptp = tp
        pfp = fp
    hx[nc] = pfp  # the last point: (N, P)
    hy[nc] = ptp
    nc += 1
    # the chain's pops are mispredicted branches (two of five walked points stay candidates
    # on bench_sweep's scores): first drop, without a branch, candidates under their
    # neighbours' chord, which no hull has as a corner, in two passes (a third paid little)
    nc = _drop_inner(hx, hy, _drop_inner(hx, hy, nc))
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
    return float(twice_area), float(twice_hull), ap, float(top), best


@jit
def walk_points_wide(tp_at, row_at, n_points, m, p_tot, n_tot):
    """:func:`walk_points` for groups whose products of counts pass int64:
    every product and sum in 128-bit pairs, so the results are as exact."""
    hx = np.empty(n_points + 2, np.int64)
    hy = np.empty(n_points + 2, np.int64)
    hx[0] = 0
    hy[0] = 0
    nc = 1
    ptp = 0
    pfp = 0
    # int64, not the literal 0: wide.pair_to_float was compiled for the literal too
    area_hi = np.int64(0)
    area_lo = np.int64(0)
    ap = 0.0
    top_hi = np.iinfo(np.int64).min
    top_lo = np.int64(0)
    best = 0
    up = 0
    for j in range(n_points):
        tp = tp_at[j]
        fp = m - row_at[j] - tp
        ph, pl = _wide.mul_pair(fp - pfp, tp + ptp)
        area_hi, area_lo = _wide.add_pair(area_hi, area_lo, ph, pl)
        ap += float(tp - ptp) * float(tp) / float(tp + fp)
        ah, al = _wide.mul_pair(tp, n_tot)
        bh, bl = _wide.mul_pair(fp, p_tot)
        dh, dl = _wide.sub_pair(ah, al, bh, bl)
        if _wide.less_pair(top_hi, top_lo, dh, dl):
            top_hi = dh
            top_lo = dl
            best = j
        hx[nc] = pfp
        hy[nc] = ptp
        nc += up & np.int64(fp > pfp)
        up = np.int64(tp > ptp)
        ptp = tp
        pfp = fp
    hx[nc] = pfp
    hy[nc] = ptp
    nc += 1
    h = 1
    for c in range(1, nc):
        x = hx[c]
        y = hy[c]
        while h >= 2:
            # a → b → c does not turn right (coordinates only grow, so every
            # factor is >= 0)
            ax = hx[h - 2]
            ay = hy[h - 2]
            bx = hx[h - 1]
            by = hy[h - 1]
            lh, ll = _wide.mul_pair(bx - ax, y - ay)
            rh, rl = _wide.mul_pair(by - ay, x - ax)
            if _wide.less_pair(lh, ll, rh, rl):
                break
            h -= 1
        hx[h] = x
        hy[h] = y
        h += 1
    hull_hi = np.int64(0)
    hull_lo = np.int64(0)
    for k in range(1, h):
        ph, pl = _wide.mul_pair(hx[k] - hx[k - 1], hy[k] + hy[k - 1])
        hull_hi, hull_lo = _wide.add_pair(hull_hi, hull_lo, ph, pl)
    return (
        _wide.pair_to_float(area_hi, area_lo),
        _wide.pair_to_float(hull_hi, hull_lo),
        ap,
        _wide.pair_to_float(top_hi, top_lo),
        best,
    )


@jit
def _clear_row(g, out, best_thr, best_val):
    best_thr[g] = np.nan
    best_val[g] = np.nan
    out[g, 0] = np.nan
    out[g, 1] = np.nan
    out[g, 2] = np.nan


@jit
def _write_row(g, p_tot, n_tot, twice_area, twice_hull, ap, top, threshold, out, best_thr, best_val):
    """Group g's row of :func:`summarise` from a walk's integer sums (the row was cleared)."""
    den = float(p_tot) * float(n_tot)
    best_thr[g] = threshold
    best_val[g] = top / den if den != 0 else 0.0
    if den != 0:
        out[g, 0] = twice_area / (2.0 * den)
        out[g, 1] = twice_hull / (2.0 * den)
        out[g, 2] = ap / p_tot


@jit
def summarise_run(g, a, z, p_tot, scores, scratch, out, best_thr, best_val):
    """Group g's row of :func:`summarise` from its rows ``scores[a:z]`` (negatives first, then
    its ``p_tot`` positives), sorted in ``scratch`` (:func:`run_scratch`); returns the sorted
    rows and their labels (views of the scratch), which :mod:`batcheval.kernels.delong` walks
    again for DeLong's variance."""
    tmp, lab, keys, spare, counts, lab_in, ends, bid, tp_at, row_at, hx, hy = scratch
    m = z - a
    n_tot = m - p_tot
    _clear_row(g, out, best_thr, best_val)
    if m == 0:
        return tmp[:0], lab[:0]
    sort_run(scores[a:z], n_tot, tmp, lab, keys, spare, counts, lab_in, ends, bid)
    twice_area, twice_hull, ap, top, thr = walk_into(tmp[:m], lab, p_tot, n_tot, tp_at, row_at, hx, hy)
    _write_row(g, p_tot, n_tot, twice_area, twice_hull, ap, top, thr, out, best_thr, best_val)
    return tmp[:m], lab[:m]


@jit
def summarise_short_run(g, a, z, p_tot, scores, scratch, out, best_thr, best_val):
    """:func:`summarise_run` for a group that :func:`radix_sort_run` sorts or that has at most
    ``_SMALL_BUCKET`` rows; returns False, leaving the row to :func:`summarise_declined`,
    for any other.

    It calls neither :func:`sort_segment` nor :func:`walk_points_wide` (a radix run has at
    most ``RADIX_ROWS`` rows, far below ``NARROW_ROWS``), so a first :func:`summarise` compiles
    neither unless a group needs them (a cold ``auc``: 8.56 → 6.48 s of CPU). The rows sort as
    :func:`sort_run` sorts them: up to ``_SMALL_BUCKET`` rows, :func:`sort_segment` copies
    them and insertion-sorts the copy (an ordered run it copies, which an insertion sort
    leaves as it is), so the same stable sort gives the same bits.
    """
    tmp, lab, keys, spare, counts = scratch[:5]
    tp_at, row_at, hx, hy = scratch[8:]
    m = z - a
    n_tot = m - p_tot
    if m <= _SMALL_BUCKET:
        for i in range(m):
            tmp[i] = scores[a + i]
            lab[i] = np.uint8(i >= n_tot)
        _insertion_sort(tmp, lab, np.int64(0), m)
    elif not radix_sort_run(scores[a:z], n_tot, tmp, lab, keys, spare, counts):
        return False
    _clear_row(g, out, best_thr, best_val)
    if m == 0:
        return True
    n_points = _distinct_points(tmp[:m], lab, tp_at, row_at)
    twice_area, twice_hull, ap, top, best = _walk_points_into(
        tp_at, row_at, n_points, m, p_tot, n_tot, hx, hy
    )
    _write_row(g, p_tot, n_tot, twice_area, twice_hull, ap, top, tmp[row_at[best]], out, best_thr, best_val)
    return True


@jit_parallel
def summarise(blocks, starts, scores, positives, out, best_thr, best_val, declined):
    """Per group: sort, then walk the distinct scores from the top.

    Group g's rows are ``scores[starts[g]:starts[g+1]]``, its negatives first
    and then its ``positives[g]`` positives; ``scores`` is left as it is.
    ``out[g]`` gets the ROC AUC (trapezoids, ties as one diagonal step), the
    area under the ROC convex hull and the average precision, NaN when a
    class is absent; ``best_thr``/``best_val`` the Youden point (largest
    informedness, highest threshold on ties), from the exact int determinant
    as the binary kernel computes it. Block b holds groups ``blocks[b]`` to
    ``blocks[b+1] - 1`` (:func:`batcheval.scores.exact.group_blocks`) and sorts
    them all in one set of scratch arrays.

    A group that :func:`summarise_short_run` declines gets ``declined[g] = 1`` (uint8, zeros
    on entry) and no row: :func:`summarise_declined` writes it, compiled on its first use.
    """
    for blk in prange(blocks.shape[0] - 1):
        g0 = blocks[blk]
        g1 = blocks[blk + 1]
        scratch = run_scratch(widest_group(starts, g0, g1))
        for g in range(g0, g1):
            done = summarise_short_run(
                g, starts[g], starts[g + 1], positives[g], scores, scratch, out, best_thr, best_val
            )
            declined[g] = np.uint8(not done)


@jit_parallel
def summarise_declined(groups, n_chunks, starts, scores, positives, out, best_thr, best_val):
    """:func:`summarise`'s rows of ``groups`` (int64, ascending), those it declined, by
    :func:`summarise_run`: in ``n_chunks`` chunks (the threads), each with one set of scratch."""
    n = groups.shape[0]
    n_chunks = max(min(n, n_chunks), 1)
    for c in prange(n_chunks):
        lo = c * n // n_chunks
        hi = (c + 1) * n // n_chunks
        widest = np.int64(0)  # a literal 0 made run_scratch compile a second, Literal[int](0), copy
        for i in range(lo, hi):
            widest = max(widest, starts[groups[i] + 1] - starts[groups[i]])
        scratch = run_scratch(widest)
        for i in range(lo, hi):
            g = groups[i]
            summarise_run(g, starts[g], starts[g + 1], positives[g], scores, scratch, out, best_thr, best_val)


@jit_parallel
def group_points(blocks, starts, scores, positives, thr, tp, fp, n_points):
    """Sort each group (laid out as for :func:`summarise`, in its blocks), then
    walk it from the top: one point per distinct score with the rows at or above
    it. Points of group g are written from ``starts[g]`` on (a group has at most
    as many points as rows)."""
    for blk in prange(blocks.shape[0] - 1):
        g0 = blocks[blk]
        g1 = blocks[blk + 1]
        scratch = run_scratch(widest_group(starts, g0, g1))
        tmp, lab, keys, spare, counts, lab_in, ends, bid = scratch[:8]
        for g in range(g0, g1):
            a = starts[g]
            z = starts[g + 1]
            m = z - a
            if m == 0:
                continue
            sort_run(scores[a:z], m - positives[g], tmp, lab, keys, spare, counts, lab_in, ends, bid)
            count = _distinct_points(tmp[:m], lab, tp[a:z], fp[a:z])
            for j in range(a, a + count):  # fp holds each point's lowest row until here
                row = fp[j]
                thr[j] = tmp[row]
                fp[j] = m - row - tp[j]
            n_points[g] = count


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
