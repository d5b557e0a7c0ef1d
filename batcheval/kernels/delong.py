"""DeLong's structural components by midranks (Sun & Xu 2014, IEEE Signal Process. Lett. 21:1389).

For m positives X and n negatives Y, with midranks T_Z over all m + n scores and T_X, T_Y within
each class, the structural components are ``V10_i = (T_Z(X_i) − T_X(X_i)) / n`` (the share of
negatives below positive i, ties counting a half) and ``V01_j = 1 − (T_Z(Y_j) − T_Y(Y_j)) / m``;
the AUC is the mean of either. One sort instead of the m·n comparisons of DeLong, DeLong &
Clarke-Pearson (1988, Biometrics 44:837): the three midrank vectors all follow from the one
order of the pooled scores.
"""

from __future__ import annotations

import numpy as np

from .exact import bucket_count, run_scratch, sort_segment, summarise_run, widest_group
from .jit import jit, jit_parallel, prange
from .sampling import seed_state, uniform


@jit
def _components(
    keys: np.ndarray,
    order: np.ndarray,
    is_pos: np.ndarray,
    slot: np.ndarray,
    v10: np.ndarray,
    v01: np.ndarray,
    twice_rank: np.ndarray,
) -> int:
    """Components of one run from its sorted scores ``keys`` (``order``: their examples), twice
    its Mann–Whitney U, and each example's doubled midrank within the run (``twice_rank``, in
    example order: the ranks the paired swap test swaps).

    One walk over blocks of tied scores: within a block holding ``p`` positives and ``q``
    negatives, above ``P`` positives and ``Q`` negatives already walked, the midrank differences
    of Sun & Xu reduce to ``V10 = (Q + q/2)/n0`` for each of its positives and
    ``V01 = 1 − (P + p/2)/n1`` for each of its negatives (written at the example's ``slot``, its
    place among the examples of its class). ``2U = Σ p·(2Q + q)`` is exact in integers, so the
    AUC ``2U / 2·n0·n1`` is one correctly rounded float, as :func:`batcheval.auc` gives it: the
    mean of the components rounds by run, and runs of one AUC read as two.
    """
    twice_u = 0
    n = len(keys)
    n1 = len(v10)
    n0 = len(v01)
    below_pos = 0
    below_neg = 0
    i = 0
    while i < n:
        j = i
        p = 0
        while True:
            if is_pos[order[j]]:
                p += 1
            if j + 1 < n and keys[j + 1] == keys[i]:
                j += 1
            else:
                break
        q = j - i + 1 - p
        twice_u += p * (2 * below_neg + q)
        share_neg = (below_neg + 0.5 * q) / n0
        share_pos = 1.0 - (below_pos + 0.5 * p) / n1
        for t in range(i, j + 1):
            k = order[t]
            twice_rank[k] = i + j + 2  # the block's 1-based ranks i + 1 .. j + 1, averaged and doubled
            if is_pos[k]:
                v10[slot[k]] = share_neg
            else:
                v01[slot[k]] = share_pos
        below_pos += p
        below_neg += q
        i = j + 1
    return twice_u


@jit_parallel
def run_components(
    scores: np.ndarray,
    is_pos: np.ndarray,
    v10: np.ndarray,
    v01: np.ndarray,
    twice_u: np.ndarray,
    twice_rank: np.ndarray,
) -> None:
    """Structural components of every run (row of ``scores[R, E]``) on the shared examples:
    ``v10[r]`` over the positives and ``v01[r]`` over the negatives, in example order,
    ``twice_u[r]``, twice the run's Mann–Whitney U (its AUC times ``2·n0·n1``), and
    ``twice_rank[r]``, its examples' doubled midranks."""
    n_runs, n_ex = scores.shape
    slot = np.empty(n_ex, dtype=np.int64)
    a = 0
    b = 0
    for e in range(n_ex):
        if is_pos[e]:
            slot[e] = a
            a += 1
        else:
            slot[e] = b
            b += 1
    for r in prange(n_runs):
        # the exact AUC's bucket sort, carrying each score's example position instead of a label
        keys = np.empty(n_ex)
        order = np.empty(n_ex, dtype=np.int64)
        examples = np.arange(n_ex)
        ends = np.empty(bucket_count(n_ex) + 1, dtype=np.int64)
        if not sort_segment(scores[r], examples, keys, order, ends, np.empty(n_ex, np.int32)):
            for i in range(n_ex):  # a loop, not a slice copy: that compiles numba's shape-error text
                keys[i] = scores[r, i]
                order[i] = examples[i]
        twice_u[r] = _components(keys, order, is_pos, slot, v10[r], v01[r], twice_rank[r])


@jit
def _block_sums(v: np.ndarray, lab: np.ndarray, n0: int, n1: int, a: float) -> tuple[float, float, float]:
    """Walk sorted scores (ascending) by blocks of ties: Σ p·V10, Σ p·(V10 − a)², Σ q·(V01 − a)²."""
    m = len(v)
    below_pos = 0
    below_neg = 0
    s10 = 0.0
    d10 = 0.0
    d01 = 0.0
    i = 0
    while i < m:
        j = i
        p = 0
        while True:
            p += lab[j]
            if j + 1 < m and v[j + 1] == v[i]:
                j += 1
            else:
                break
        q = j - i + 1 - p
        v10 = (below_neg + 0.5 * q) / n0
        v01 = 1.0 - (below_pos + 0.5 * p) / n1
        s10 += p * v10
        d10 += p * (v10 - a) ** 2
        d01 += q * (v01 - a) ** 2
        below_pos += p
        below_neg += q
        i = j + 1
    return s10, d10, d01


@jit_parallel
def summarise_variance(
    blocks: np.ndarray,
    starts: np.ndarray,
    scores: np.ndarray,
    positives: np.ndarray,
    out: np.ndarray,
    best_thr: np.ndarray,
    best_val: np.ndarray,
    auc: np.ndarray,
    var: np.ndarray,
) -> None:
    """:func:`batcheval.kernels.exact.summarise` (same ``blocks``), and per group (negatives then
    positives in ``scores[starts[g]:starts[g+1]]``) the AUC and DeLong's variance
    ``var(V10)/n1 + var(V01)/n0``, from one sort per group: the sort is most of the time, and the
    walks that follow it are linear (a second sort for the variance made ``auc(ci=)`` twice the
    time of ``auc``). The variance takes two walks over the blocks of tied scores (``V10 =
    (negatives below + q/2)/n0`` for the positives of a block with q negatives; ``V01 = 1 −
    (positives below + p/2)/n1``). ``auc`` and ``var`` are NaN without two examples of each class
    (``auc`` needs one)."""
    for blk in prange(blocks.shape[0] - 1):
        g0 = blocks[blk]
        g1 = blocks[blk + 1]
        scratch = run_scratch(widest_group(starts, g0, g1))
        for g in range(g0, g1):
            a = starts[g]
            z = starts[g + 1]
            n1 = positives[g]
            n0 = z - a - n1
            v, lab = summarise_run(g, a, z, n1, scores, scratch, out, best_thr, best_val)
            auc[g] = np.nan
            var[g] = np.nan
            if n0 < 1 or n1 < 1:
                continue
            s10, _, _ = _block_sums(v, lab, n0, n1, 0.0)
            area = s10 / n1
            auc[g] = area
            if n0 < 2 or n1 < 2:
                continue
            _, d10, d01 = _block_sums(v, lab, n0, n1, area)
            var[g] = d10 / (n1 - 1) / n1 + d01 / (n0 - 1) / n0


@jit
def _twice_u(values: np.ndarray, is_pos: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> int:
    """Twice the Mann–Whitney U of ``values`` (positives above negatives, ties a half each):
    small non-negative integers (doubled midranks), counted by value into ``pos`` and ``neg``
    (zeroed here, at least as long as the largest value + 1), so a swap pattern costs O(n), no sort."""
    pos[:] = 0
    neg[:] = 0
    for i in range(len(values)):
        if is_pos[i]:
            pos[values[i]] += 1
        else:
            neg[values[i]] += 1
    twice_u = 0
    below = 0  # negatives of the lower values
    for v in range(len(pos)):
        twice_u += pos[v] * (2 * below + neg[v])
        below += neg[v]
    return twice_u


@jit
def swap_test(
    run: np.ndarray, reference: np.ndarray, is_pos: np.ndarray, draws: int, seed: np.uint64
) -> tuple[int, int]:
    """``(reaching, patterns)`` of the paired swap test of two runs' AUCs (Bandos, Rockette & Gur
    2005): each example's two scores (``run`` and ``reference``: within-run doubled midranks, so
    that the two runs' scales match) swapped or not, and the patterns whose ``|2U_run − 2U_ref|``
    reaches the observed one counted. Every one of the ``2^n`` patterns for ``n ≤ 16`` examples,
    else ``draws`` random ones from a generator seeded with ``seed`` (the caller adds the observed
    pattern itself: ``(1 + reaching) / (1 + draws)``).

    U is counted in integers, so "reaches" is exact, with no rounding to allow for.
    """
    n = len(run)
    top = max(run.max(), reference.max()) + 1 if n else 1
    pos = np.zeros(top, dtype=np.int64)
    neg = np.zeros(top, dtype=np.int64)
    observed = abs(_twice_u(run, is_pos, pos, neg) - _twice_u(reference, is_pos, pos, neg))
    a = np.empty(n, dtype=run.dtype)
    b = np.empty(n, dtype=run.dtype)
    exact = n <= 16
    patterns = (1 << n) if exact else draws
    state = seed_state(seed)
    reaching = 0
    for t in range(patterns):
        for i in range(n):
            if exact:
                swap = (t >> i) & 1 == 1
            else:
                u, state = uniform(state)
                swap = u < 0.5
            if swap:
                a[i] = reference[i]
                b[i] = run[i]
            else:
                a[i] = run[i]
                b[i] = reference[i]
        if abs(_twice_u(a, is_pos, pos, neg) - _twice_u(b, is_pos, pos, neg)) >= observed:
            reaching += 1
    return reaching, patterns


@jit
def _add_negative(tree: np.ndarray, level: np.ndarray, at: int) -> None:
    """A negative at reference rank ``at`` into the Fenwick tree and the count per rank."""
    level[at] += 1
    i = at + 1
    while i < len(tree):
        tree[i] += 1
        i += i & -i


@jit
def _reference_weight(tree: np.ndarray, level: np.ndarray, at: int) -> int:
    """``Σ 2ψ_ref`` of a positive at reference rank ``at`` over the negatives added so far:
    2 for each below it, 1 for each level with it."""
    below = 0
    i = at
    while i > 0:
        below += tree[i]
        i -= i & -i
    return 2 * below + level[at]


@jit_parallel
def pair_agreement(
    twice_rank: np.ndarray, is_pos: np.ndarray, ref: int, agree: np.ndarray, ties: np.ndarray
) -> None:
    """Per run ``r``, over every (positive i, negative j) pair, ``agree[r] = Σ (2ψ_r)(2ψ_ref)`` and
    ``ties[r]`` = the pairs run ``r`` scores equal, with ``2ψ = 2`` where i's score is above j's,
    1 where equal, 0 below: what the m·n kernel values of two runs share, which DeLong's
    components (their row and column means) do not hold. Exact integers.

    The within-run doubled midranks ``twice_rank`` order each run's scores. A run's examples are
    walked in its own rank order (a counting sort: ranks are integers up to 2E) by blocks of equal
    rank, a Fenwick tree over the reference's ranks (and a plain count per rank) holding the
    negatives walked so far. A positive counts the negatives below its block (``2ψ_r = 2``) and
    those of its own block (``2ψ_r = 1``), each weighted ``2ψ_ref = 2·[below] + [level]`` in the
    reference's ranks. O(E log E) a run, against the m·n of the pairs themselves.
    """
    n_runs, n_ex = twice_rank.shape
    top = 2 * n_ex + 2
    # the reference's ranks renumbered 0, 1, ... by value: a tree of its distinct ranks, half the
    # size of one over every doubled midrank, one level fewer to walk per query
    seen = np.zeros(top, dtype=np.int64)
    for e in range(n_ex):
        seen[twice_rank[ref, e]] = 1
    for v in range(1, top):
        seen[v] += seen[v - 1]
    reference = np.empty(n_ex, dtype=np.int64)
    for e in range(n_ex):
        reference[e] = seen[twice_rank[ref, e]] - 1
    width = seen[top - 1]
    for r in prange(n_runs):
        ranks = twice_rank[r]
        start = np.zeros(top + 1, dtype=np.int64)
        for e in range(n_ex):
            start[ranks[e] + 1] += 1
        for v in range(top):
            start[v + 1] += start[v]
        order = np.empty(n_ex, dtype=np.int64)
        for e in range(n_ex):
            order[start[ranks[e]]] = e
            start[ranks[e]] += 1
        tree = np.zeros(width + 1, dtype=np.int64)
        level = np.zeros(width, dtype=np.int64)  # negatives walked at each reference rank
        before = np.empty(n_ex, dtype=np.int64)
        total = 0
        tied = 0
        i = 0
        while i < n_ex:
            j = i
            p = 1 if is_pos[order[i]] else 0
            while j + 1 < n_ex and ranks[order[j + 1]] == ranks[order[i]]:
                j += 1
                if is_pos[order[j]]:
                    p += 1
            q = j - i + 1 - p
            if q == 0:  # positives alone: only negatives below the block, 2ψ_r = 2
                for t in range(i, j + 1):
                    total += 2 * _reference_weight(tree, level, reference[order[t]])
            elif p == 0:
                for t in range(i, j + 1):
                    _add_negative(tree, level, reference[order[t]])
            else:  # the block's own negatives count once (2ψ_r = 1), those below it twice
                for t in range(i, j + 1):
                    if is_pos[order[t]]:
                        before[t] = _reference_weight(tree, level, reference[order[t]])
                for t in range(i, j + 1):
                    if not is_pos[order[t]]:
                        _add_negative(tree, level, reference[order[t]])
                for t in range(i, j + 1):
                    if is_pos[order[t]]:
                        total += before[t] + _reference_weight(tree, level, reference[order[t]])
                tied += p * q
            i = j + 1
        agree[r] = total
        ties[r] = tied
