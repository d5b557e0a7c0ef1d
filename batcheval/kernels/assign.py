"""Best assignment of predicted ids to classes, for many small tables at once.

:func:`assign_small` solves, for every group, the rectangular assignment
problem behind ``align="hungarian"``: match predicted ids to classes one to one
so that the matched counts ("the diagonal") sum to the maximum. It is exact
dynamic programming over subsets of classes, ``O(M · 2**M)`` per group with
``M = max(C, K)``, so it only suits small tables; the caller hands larger ones
to :func:`scipy.optimize.linear_sum_assignment`. Subset DP rather than
enumerating the ``M!`` permutations: at ``M = 8`` that is 2,048 steps instead of
40,320, and it lets ties be broken canonically (see :func:`assign_small`).
"""

from __future__ import annotations

import numpy as np

from .jit import jit_inline, jit_parallel, prange


@jit_inline
def _weight(w, g, i, c, n_classes, n_ids):
    """Count of predicted id i in class c; 0 for the padding rows and columns."""
    if i < n_ids and c < n_classes:
        return w[g, c, i]
    return np.int64(0)


@jit_parallel
def assign_small(w, n_classes, n_ids, out):
    """Maximum-diagonal one-to-one matching of each group's predicted ids to classes.

    Parameters
    ----------
    w
        int64 ``[G, C, K]``: the weight of matching predicted id ``i`` to class
        ``c`` in group ``g``. Only the first ``n_classes[g]`` classes and
        ``n_ids[g]`` ids of a group take part; the caller guarantees
        ``max(n_classes[g], n_ids[g])`` is small (the scratch table has
        ``2**M`` cells).
    n_classes
        int64 ``[G]``: how many classes group ``g`` has.
    n_ids
        int64 ``[G]``: how many predicted ids group ``g`` has.
    out
        int64 ``[G, K]``, written: the class matched to id ``i``, or -1 when the
        id is left unmatched (only possible when it has more ids than classes).

    Notes
    -----
    The table is padded to ``M × M`` with zero rows or columns, so every id
    is matched to a class or to a padding class ("unmatched"), and every
    class to an id or a padding id. ``best[mask]`` is the largest sum the ids
    ``popcount(mask) .. M-1`` can still add when the classes in ``mask`` are
    taken. Reconstruction walks the ids in order and gives each the smallest
    class that keeps the optimum, so among tied optima the result is the
    lexicographically smallest assignment, and padding classes (numbered
    after the real ones) come last: an id is left unmatched only if that is
    needed to reach the maximum.
    """
    n_groups = w.shape[0]
    for g in prange(n_groups):
        k = n_ids[g]
        n_cls = n_classes[g]
        m = max(n_cls, k)
        full = (1 << m) - 1
        best = np.zeros(1 << m, dtype=np.int64)
        # a superset mask is numerically larger, so a descending sweep sees it first
        for mask in range(full - 1, -1, -1):
            i = 0
            rest = mask
            while rest:
                rest &= rest - 1
                i += 1
            top = np.int64(-1)
            for c in range(m):
                bit = 1 << c
                if not mask & bit:
                    top = max(top, _weight(w, g, i, c, n_cls, k) + best[mask | bit])
            best[mask] = top
        mask = 0
        for i in range(m):
            for c in range(m):
                bit = 1 << c
                if not mask & bit and _weight(w, g, i, c, n_cls, k) + best[mask | bit] == best[mask]:
                    if i < k:
                        out[g, i] = c if c < n_cls else -1
                    mask |= bit
                    break
