"""Kernels of the cluster-robust statistics (:mod:`batcheval.inference.clustered`).

They loop once over the (group, cluster) pairs' cells, kept sparse (each pair's cells that hold
a row, ``cell[start[p]:start[p + 1]]``, with their counts: at most the rows, where a dense
``counts[P, K, K]`` took ``P·K²`` cells, 4 GiB for 6,000 single-row clusters of 300 classes),
instead of materialising ``[P, K, K]`` float arrays per measure. Sums over pairs run in the
order of the pairs, as the ``np.bincount`` code they replace did, so the results are the same to
the last bit; a pair's score sum over its cells adds 2x2 cells in ``np.einsum``'s order (the
same bits) and K x K cells in row-major order (``np.einsum``'s SIMD order differs from it in
the last bit for K > 2), skipping the cells without rows, which add nothing to it.
"""

from __future__ import annotations

import numpy as np

from .jit import jit, jit_inline

__all__ = [
    "class_codes",
    "cluster_score_sums",
    "cluster_square_sums",
    "compact_pairs",
    "dense_codes",
    "leveraged_sums",
    "pair_tally",
    "pairs_holding",
]


@jit_inline
def _pair_score(
    start: np.ndarray, cell: np.ndarray, count: np.ndarray, p: int, ug: np.ndarray, k: int
) -> float:
    """``Σ_ij counts[p, i, j]·ug[i·K + j]``: one (group, cluster) pair's score sum from its cells
    (``cell``, ``count`` over ``start[p]:start[p + 1]``, cells ascending) and its group's per-cell
    scores ``ug[K·K]``; for K = 2 in np.einsum's order for four terms (two lanes), which the 2x2
    results were made with, so every caller's sums agree to the bit. A cell without rows adds
    ``0·u = ±0`` to the row-major sum of the dense table, which leaves it as it is (``u`` is
    finite), so skipping it gives the same bits."""
    if k == 2:
        c00 = 0
        c01 = 0
        c10 = 0
        c11 = 0
        for e in range(start[p], start[p + 1]):
            at = cell[e]
            if at == 0:
                c00 = count[e]
            elif at == 1:
                c01 = count[e]
            elif at == 2:
                c10 = count[e]
            else:
                c11 = count[e]
        even = c00 * ug[0] + c10 * ug[2]
        odd = c01 * ug[1] + c11 * ug[3]
        return even + odd
    acc = 0.0
    for e in range(start[p], start[p + 1]):
        acc += count[e] * ug[cell[e]]
    return acc


@jit
def cluster_score_sums(
    start: np.ndarray, cell: np.ndarray, count: np.ndarray, group: np.ndarray, u: np.ndarray, k: int
) -> np.ndarray:
    """``s[p] = Σ_ij counts[p, i, j]·u[group[p], i·K + j]``: each (group, cluster) pair's score
    sum from its cells (the sparse rows of :class:`batcheval.inference.clustered.ClusterCells`:
    pair ``p``'s cells ``cell[start[p]:start[p + 1]]`` (``i·K + j``, ascending) hold
    ``count[...]`` rows) and its group's per-cell scores ``u[G, K·K]``.

    Examples
    --------
    >>> start, cell, count = np.array([0, 3, 4]), np.array([0, 1, 3, 0]), np.array([1, 2, 3, 4])
    >>> u = np.array([[0.5, -1.0, 2.0, 0.25]])
    >>> cluster_score_sums(start, cell, count, np.array([0, 0]), u, 2).tolist()
    [-0.75, 2.0]
    """
    p_count = group.shape[0]
    s = np.empty(p_count)
    for p in range(p_count):
        s[p] = _pair_score(start, cell, count, p, u[group[p]], k)
    return s


@jit
def cluster_square_sums(
    start: np.ndarray, cell: np.ndarray, count: np.ndarray, group: np.ndarray, u: np.ndarray, k: int,
    n_groups: int,
) -> np.ndarray:  # fmt: skip
    """``Σ_c S_c²`` per measure and group ``[M, G]`` for the per-cell scores ``u[M, G, K·K]`` of
    ``M`` measures, ``S_c`` the pair's score sum of :func:`cluster_score_sums` (added in the same
    order), in one pass over the pairs and without materialising the ``S_c``.

    Examples
    --------
    >>> start, cell, count = np.array([0, 3, 4]), np.array([0, 1, 3, 0]), np.array([1, 2, 3, 4])
    >>> u = np.array([[0.5, -1.0, 2.0, 0.25]])
    >>> cluster_square_sums(start, cell, count, np.array([0, 0]), np.stack([u, 2 * u]), 2, 2).tolist()
    [[4.5625, 0.0], [18.25, 0.0]]
    """
    n_measures = u.shape[0]
    ss = np.zeros((n_measures, n_groups))
    for p in range(group.shape[0]):
        g = group[p]
        for m in range(n_measures):
            acc = _pair_score(start, cell, count, p, u[m, g], k)
            ss[m, g] += acc * acc
    return ss


@jit
def leveraged_sums(
    start: np.ndarray, cell: np.ndarray, count: np.ndarray, group: np.ndarray, u: np.ndarray, k: int,
    unit_of: np.ndarray, masks: np.ndarray, totals: np.ndarray, n_groups: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Everything the CR2 design effects of :func:`batcheval.inference.clustered.design_effects`
    need from the (group, cluster) pairs (their cells as in :func:`cluster_score_sums`), in one
    pass over them.

    ``u[M, G, K·K]`` are the per-cell scores of ``M`` measures, ``masks[D, K·K]`` the distinct
    sets of unit cells (every cell, or a proportion's trials), ``unit_of[M]`` the set of each
    measure and ``totals[D, G]`` each group's units. With ``n_c`` a pair's units and
    ``h_c = n_c/N`` (``N = totals[d, g]``):

    - ``vc[M, G] = Σ_c S_c²/(1 − h_c)`` (:func:`cluster_square_sums` with the CR2 weights; a
      pair holding all its group's units adds nothing: its score sum is 0 up to rounding; nor
      does one of a group without units);
    - ``holding[D, G]``: the pairs with a unit; ``s2[D, G] = Σ n_c²``, ``sq[D, G] = Σ q_c`` and
      ``sq2[D, G] = Σ q_c²`` with ``q_c = n_c²/(N − n_c)`` (0 where ``n_c = N``), Bell &
      McCaffrey's degrees of freedom;
    - ``mixed[G]``: the pairs whose rows are in more than one cell.

    Examples
    --------
    >>> start, cell, count = np.array([0, 3, 4]), np.array([0, 1, 3, 0]), np.array([1, 2, 3, 4])
    >>> u = np.array([[0.5, -1.0, 2.0, 0.25]])
    >>> every = np.ones((1, 4), dtype=np.bool_)
    >>> out = leveraged_sums(start, cell, count, np.array([0, 0]), u[None], 2, np.array([0]), every,
    ...                      np.array([[10.0]]), 1)
    >>> [a.tolist() for a in out]
    [[[8.072916666666668]], [[2.0]], [[52.0]], [[11.666666666666666]], [[88.11111111111111]], [1.0]]
    """
    n_measures = u.shape[0]
    n_sets = masks.shape[0]
    vc = np.zeros((n_measures, n_groups))
    holding = np.zeros((n_sets, n_groups))
    s2 = np.zeros((n_sets, n_groups))
    sq = np.zeros((n_sets, n_groups))
    sq2 = np.zeros((n_sets, n_groups))
    mixed = np.zeros(n_groups)
    units = np.zeros(n_sets)
    for p in range(group.shape[0]):
        g = group[p]
        top = 0
        total = 0
        for e in range(start[p], start[p + 1]):
            c = count[e]
            total += c
            top = max(top, c)
        if top < total:
            mixed[g] += 1.0
        for d in range(n_sets):
            n_c = 0
            for e in range(start[p], start[p + 1]):
                if masks[d, cell[e]]:
                    n_c += count[e]
            units[d] = n_c
            if n_c > 0:
                holding[d, g] += 1.0
                s2[d, g] += n_c * n_c
                rest = totals[d, g] - n_c
                if rest > 0.0:
                    q = n_c * n_c / rest
                    sq[d, g] += q
                    sq2[d, g] += q * q
        for m in range(n_measures):
            d = unit_of[m]
            if units[d] >= totals[d, g]:  # all the group's units (or none of a group without any)
                continue
            rest = 1.0 - units[d] / totals[d, g]
            acc = _pair_score(start, cell, count, p, u[m, g], k)
            vc[m, g] += acc * acc / rest
    return vc, holding, s2, sq, sq2, mixed


@jit
def pairs_holding(
    start: np.ndarray, cell: np.ndarray, count: np.ndarray, group: np.ndarray, masks: np.ndarray,
    n_groups: int,
) -> np.ndarray:  # fmt: skip
    """Per cell mask ``masks[M, K·K]`` and group ``[M, G]`` the number of (group, cluster) pairs
    (their cells as in :func:`cluster_score_sums`) with a row in a cell where the mask is true
    (the clusters that hold a trial of a proportion), as float64, in one pass over the pairs.

    Examples
    --------
    >>> start, cell, count = np.array([0, 1, 2, 3]), np.array([0, 3, 1]), np.array([1, 2, 3])
    >>> masks = np.array([[False, False, True, True], [True, True, True, True]])
    >>> pairs_holding(start, cell, count, np.array([0, 0, 1]), masks, 2).tolist()
    [[1.0, 0.0], [2.0, 1.0]]
    """
    out = np.zeros((masks.shape[0], n_groups))
    for p in range(group.shape[0]):
        for m in range(masks.shape[0]):
            trials = 0
            for e in range(start[p], start[p + 1]):
                if masks[m, cell[e]]:
                    trials += count[e]
            if trials > 0:
                out[m, group[p]] += 1.0
    return out


@jit
def pair_tally(
    group: np.ndarray,
    cluster: np.ndarray,
    label: np.ndarray,
    prediction: np.ndarray,
    n_groups: int,
    n_clusters: int,
    k: int,
) -> np.ndarray:
    """Rows per (group, cluster) pair and cell in a dense uint32 table
    ``[n_groups·n_clusters, k·k]``, pair ``g·n_clusters + c``, cell ``label·k + prediction``
    (one scattered pass, as :func:`batcheval.kernels.count.count_private` counts groups).

    ``group``, ``cluster`` are dense non-negative codes per row and ``label``, ``prediction``
    class codes in ``[0, k)``; the caller keeps the table small and at most 2**32 - 1 rows.

    Examples
    --------
    >>> pair_tally(np.array([1, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([1, 0, 1, 0]),
    ...            np.array([1, 0, 0, 0]), 2, 2, 2).tolist()
    [[0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0]]
    """
    # indices known non-negative go through uint64: numba then skips negative-index wraparound
    nc = np.uint64(n_clusters)
    kk = np.uint64(k * k)
    uk = np.uint64(k)
    dense = np.zeros((n_groups * n_clusters, k * k), dtype=np.uint32)
    flat = dense.reshape(-1)
    for r in range(group.shape[0]):
        at = np.uint64(group[r]) * nc + np.uint64(cluster[r])
        flat[at * kk + np.uint64(label[r]) * uk + np.uint64(prediction[r])] += 1
    return dense


@jit
def compact_pairs(
    dense: np.ndarray, n_clusters: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows of :func:`pair_tally`'s table that hold a count, in row order, as sparse cells:
    ``(start, cell, count, group, cluster)``, pair ``p``'s non-zero cells ``cell[start[p]:start[p +
    1]]`` with their ``count`` (int64), its group ``row // n_clusters`` and cluster
    ``row % n_clusters``. Straight from the uint32 table (:func:`sparse_cells`): a dense int64
    copy of the held rows, then its non-zero cells, cost two more passes (2M binary pairs: 72 -> 40 ms).

    Examples
    --------
    >>> table = np.array([[0, 0], [2, 0], [0, 0], [1, 1]], np.uint32)
    >>> start, cell, count, group, cluster = compact_pairs(table, 2)
    >>> start.tolist(), cell.tolist(), count.tolist(), group.tolist(), cluster.tolist()
    ([0, 1, 3], [0, 0, 1], [2, 1, 1], [0, 1], [1, 1])
    """
    full, cell, count = sparse_cells(dense)
    n_ids = dense.shape[0]
    n_pairs = 0
    for i in range(n_ids):
        if full[i + 1] > full[i]:
            n_pairs += 1
    start = np.empty(n_pairs + 1, dtype=np.int64)
    group = np.empty(n_pairs, dtype=np.int64)
    cluster = np.empty(n_pairs, dtype=np.int64)
    start[0] = 0
    p = 0
    i = 0
    for g in range(n_ids // n_clusters):  # counters, not a division per pair
        for c in range(n_clusters):
            if full[i + 1] > full[i]:
                group[p] = g
                cluster[p] = c
                p += 1
                start[p] = full[i + 1]
            i += 1
    return start, cell, count, group, cluster


@jit
def sparse_cells(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(start, cell, count)`` of the non-zero cells of ``flat[P, C]``, pair by pair and cell by
    cell: pair ``p``'s cells are ``cell[start[p]:start[p + 1]]`` with their ``count``. Two passes
    over the table, where numpy's nonzero, bincount and gather took four (2M binary pairs: 51 ms).
    """
    n_pairs, n_cells = flat.shape
    start = np.empty(n_pairs + 1, np.int64)
    start[0] = 0
    total = np.int64(0)
    for p in range(n_pairs):
        for c in range(n_cells):
            if flat[p, c] != 0:
                total += 1
        start[p + 1] = total
    cell = np.empty(total, np.int64)
    count = np.empty(total, np.int64)
    at = 0
    for p in range(n_pairs):
        for c in range(n_cells):
            v = flat[p, c]
            if v != 0:
                cell[at] = c
                count[at] = v
                at += 1
    return start, cell, count


@jit
def dense_codes(values: np.ndarray, max_span: int) -> np.ndarray:
    """Dense codes of int64 ``values`` in sorted order (0 for the smallest), through a lookup
    table over their range; an empty array when the range is wider than ``max_span`` (the caller
    then sorts).

    Examples
    --------
    >>> dense_codes(np.array([40, -2, 40, 7]), 100).tolist()
    [2, 0, 2, 1]
    >>> dense_codes(np.array([0, 10**9]), 100).tolist()
    []
    >>> dense_codes(np.array([-(2**63), 2**63 - 1]), 100).tolist()
    []
    """
    n = values.shape[0]
    out = np.empty(n, dtype=np.int64)
    if n == 0:
        return out
    lo = values[0]
    hi = values[0]
    for r in range(n):
        lo = min(lo, values[r])
        hi = max(hi, values[r])
    # the span as unsigned: ids across most of int64 (hashes) wrapped hi − lo negative, passed the
    # check, and sized the table from it (a ValueError, or a segmentation fault)
    if np.uint64(hi) - np.uint64(lo) >= np.uint64(max_span):
        return np.empty(0, dtype=np.int64)
    table = np.zeros(hi - lo + 1, dtype=np.int64)
    for r in range(n):
        table[np.uint64(values[r] - lo)] = 1
    code = 0
    for i in range(table.shape[0]):
        if table[i]:
            table[i] = code
            code += 1
    for r in range(n):
        out[r] = table[np.uint64(values[r] - lo)]
    return out


@jit
def class_codes(values: np.ndarray, vmin: int, lut: np.ndarray) -> np.ndarray:
    """``lut[value - vmin]`` per row (the counting stage's class codes), -1 for a value outside
    the table.

    Examples
    --------
    >>> class_codes(np.array([3, 5, 9]), 3, np.array([0, -1, 1])).tolist()
    [0, 1, -1]
    """
    out = np.empty(values.shape[0], dtype=np.int64)
    span = lut.shape[0]
    for r in range(values.shape[0]):
        at = values[r] - vmin
        out[r] = lut[at] if 0 <= at < span else -1
    return out
