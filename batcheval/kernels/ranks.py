"""Wilcoxon signed-rank sums for many pairs of methods at once (one sort of N differences a pair); the
permutation null of Friedman's statistic (exact enumeration and seeded Monte Carlo); the key codes,
fold-grid checks and per-pair difference moments of :func:`batcheval.compare`."""

from __future__ import annotations

import numpy as np

from .jit import jit, jit_parallel, prange
from .sampling import seed_state, uniform


@jit_parallel
def signed_rank_sums(
    x: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    r_plus: np.ndarray,
    r_minus: np.ndarray,
    count: np.ndarray,
    tie_term: np.ndarray,
) -> None:
    """For pair p, the differences ``x[a[p]] − x[b[p]]`` over the N columns (datasets):
    Wilcoxon's rank sums of the positive and negative ones, zeros dropped (``zero_method="wilcox"``),
    ties given mid-ranks; ``count`` the non-zero differences and ``tie_term`` Σ(t³ − t) over
    groups of tied |differences| (for the variance of the normal approximation). Equal scores are a
    zero difference even when infinite (inf − inf would be NaN, counted as non-zero), as ranking ties
    them."""
    n = x.shape[1]
    for p in prange(len(a)):
        xa = x[a[p]]
        xb = x[b[p]]
        d = np.zeros(n)
        for i in range(n):
            if xa[i] != xb[i]:
                d[i] = xa[i] - xb[i]
        mag = np.abs(d)
        order = np.argsort(mag)
        start = 0
        while start < n and mag[order[start]] == 0.0:
            start += 1
        rp = 0.0
        rm = 0.0
        tt = 0.0
        i = start
        while i < n:
            j = i
            while j + 1 < n and mag[order[j + 1]] == mag[order[i]]:
                j += 1
            mid = 0.5 * ((i - start + 1) + (j - start + 1))
            t = j - i + 1
            tt += float(t) * t * t - t
            for q in range(i, j + 1):
                if d[order[q]] > 0:
                    rp += mid
                else:
                    rm += mid
            i = j + 1
        r_plus[p] = rp
        r_minus[p] = rm
        count[p] = n - start
        tie_term[p] = tt


@jit_parallel
def radix_codes(values: np.ndarray, lo: int, lut: np.ndarray, radix: int, codes: np.ndarray) -> None:
    """``codes = codes·radix + lut[values − lo]`` in one pass: a key column's dense codes folded into
    the codes of the columns before it (mixed radix), without int64 copies of a narrow column."""
    for i in prange(len(values)):
        codes[i] = codes[i] * radix + lut[np.int64(values[i]) - lo]


@jit
def mark_present(values: np.ndarray, lo: int, present: np.ndarray) -> None:
    """``present[v − lo] = 1`` for every value ``v``: which keys of a compact integer range occur, in
    one pass instead of a hash set of the distinct values (a tenth of the time over ten million rows)."""
    for i in range(len(values)):
        present[np.int64(values[i]) - lo] = 1


@jit
def scatter_cells(
    r: np.ndarray, c: np.ndarray, n_cells: int, value: np.ndarray, out: np.ndarray, seen: np.ndarray
) -> None:
    """``out[r·n_cells + c] = value`` row by row, counting in ``seen`` (saturating at 2) how often
    each (row, cell) is written, so that duplicates and gaps show without a bincount's int64 copy."""
    for i in range(len(r)):
        k = r[i] * n_cells + c[i]
        out[k] = value[i]
        if seen[k] < 2:
            seen[k] += 1


@jit
def leading_run(x: np.ndarray) -> int:
    """How many rows from the first hold the first row's value."""
    n = len(x)
    i = 1
    while i < n and x[i] == x[0]:
        i += 1
    return i


@jit
def block_constant(x: np.ndarray, size: int) -> bool:
    """Whether ``x`` is constant within each block of ``size`` rows (the run column of a frame sorted by
    run with one row per fold)."""
    for s in range(0, len(x), size):
        for i in range(s + 1, s + size):
            if x[i] != x[s]:
                return False
    return True


@jit
def _block_sum(a: np.ndarray, lo: int, n: int) -> float:
    """numpy's pairwise summation of ``a[lo:lo + n]`` for n ≤ 128: eight accumulators, then the rest."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        k = lo + i
        r0 += a[k]
        r1 += a[k + 1]
        r2 += a[k + 2]
        r3 += a[k + 3]
        r4 += a[k + 4]
        r5 += a[k + 5]
        r6 += a[k + 6]
        r7 += a[k + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@jit
def pairwise_sum(a: np.ndarray, lo: int, n: int) -> float:
    """``a[lo:lo + n].sum()`` added in numpy's order (pairwise: halves split at a multiple of 8 down to
    blocks of at most 128), so that a kernel's means and variances equal numpy's to the last bit.

    The halving runs on an explicit stack: numba's disk cache cannot reload a recursive function (a
    cached recursive kernel crashes on its next load)."""
    if n <= 128:
        return _block_sum(a, lo, n)
    los = np.empty(64, np.int64)
    ns = np.empty(64, np.int64)
    split = np.zeros(64, np.bool_)
    vals = np.empty(64)
    top = 0
    los[0] = lo
    ns[0] = n
    v = 0
    while top >= 0:
        m = ns[top]
        if m <= 128:
            vals[v] = _block_sum(a, los[top], m)
            v += 1
            top -= 1
        elif split[top]:
            # both halves are done: the left's sum sits below the right's
            vals[v - 2] = vals[v - 2] + vals[v - 1]
            v -= 1
            split[top] = False
            top -= 1
        else:
            split[top] = True
            half = m // 2
            half -= half % 8
            los[top + 1] = los[top] + half
            ns[top + 1] = m - half
            split[top + 1] = False
            los[top + 2] = los[top]
            ns[top + 2] = half
            split[top + 2] = False
            top += 2
    return vals[0]


@jit_parallel
def diff_moments(values: np.ndarray, a: np.ndarray, b: np.ndarray, mean: np.ndarray, var: np.ndarray) -> None:
    """For pair p the J differences ``values[a[p]] − values[b[p]]``: their mean and sample variance
    (ddof 1), computed as numpy's ``d.mean(axis=1)`` and ``d.var(axis=1, ddof=1)`` would (same
    summation order, same results) but without the pairs × J matrix of differences."""
    j = values.shape[1]
    start = np.int64(0)  # a literal 0 would compile pairwise_sum and its blocks a second time
    for p in prange(len(a)):
        d = np.empty(j)
        for k in range(j):
            d[k] = values[a[p], k] - values[b[p], k]
        m = (0.0 + pairwise_sum(d, start, j)) / j
        for k in range(j):
            e = d[k] - m
            d[k] = e * e
        mean[p] = m
        var[p] = (0.0 + pairwise_sum(d, start, j)) / (j - 1)


@jit
def _drawn_rank_sums(pattern: np.ndarray, seed: int, null: np.ndarray) -> None:
    """``null[b]`` = ``Σ_j R_j²`` of draw b: blocks 1..N−1 of ``pattern`` shuffled, block 0 fixed.
    (One uniform per swap: reusing a uniform's spare bits for several swaps was no faster, since
    the swaps' loads and stores, not the generator, take the time.)"""
    n, k = pattern.shape
    state = seed_state(seed)
    work = pattern.copy()
    r = np.empty(k, dtype=np.int64)
    for b in range(len(null)):
        for j in range(k):
            r[j] = work[0, j]
        for i in range(1, n):
            # Fisher–Yates: a uniform shuffle of any arrangement is a uniform arrangement
            for j in range(k - 1, 0, -1):
                u, state = uniform(state)
                q = int(u * (j + 1))
                tmp = work[i, j]
                work[i, j] = work[i, q]
                work[i, q] = tmp
            for j in range(k):
                r[j] += work[i, j]
        total = 0
        for j in range(k):
            total += r[j] * r[j]
        null[b] = total


@jit_parallel(serial_below=1 << 11)
def permutation_rank_sums(
    blocks: np.ndarray,
    seeds: np.ndarray,
    draws: int,
    start: np.ndarray,
    stat: np.ndarray,
    at_least: np.ndarray,
) -> None:
    """Monte-Carlo null of Friedman's statistic by permuting each block (dataset) independently.

    ``blocks[s, i]`` holds the k (doubled mid-)ranks of block i of pattern s; the tables
    ``start[s]..start[s + 1] − 1`` share that pattern, and ``stat[t]`` is table t's observed
    ``Σ_j R_j²`` (R_j the column sums). Pattern s draws ``draws`` arrangements from its own stream
    (xoshiro256** seeded with ``seeds[s]``), so a table's p-value does not depend on the others in
    the stack; ``at_least[t]`` counts the draws with ``Σ_j R_j² ≥ stat[t]``. Block 0 stays in place: the
    statistic is invariant under relabelling the methods, so fixing one block leaves its null
    distribution unchanged and saves a shuffle."""
    for s in prange(blocks.shape[0]):
        null = np.empty(draws, dtype=np.int64)
        _drawn_rank_sums(blocks[s], seeds[s], null)
        if start[s + 1] - start[s] <= 8:  # a pass per table costs less than a sort
            for t in range(start[s], start[s + 1]):
                hits = 0
                for b in range(draws):
                    hits += null[b] >= stat[t]
                at_least[t] = hits
        else:
            null.sort()
            for t in range(start[s], start[s + 1]):
                at_least[t] = draws - np.searchsorted(null, stat[t])


@jit
def enumerate_rank_sums(
    first: np.ndarray, arrangements: np.ndarray, offsets: np.ndarray, out: np.ndarray
) -> None:
    """Every value of ``Σ_j R_j²`` over all arrangements of blocks 1..N−1 (block 0 ``first`` fixed;
    see :func:`permutation_rank_sums`): block i's distinct arrangements are the rows
    ``offsets[i − 1]..offsets[i] − 1`` of ``arrangements``; ``out`` has one slot per combination,
    visited as an odometer that updates the column sums by one block's change at a time."""
    m = len(offsets) - 1
    k = first.shape[0]
    r = first.astype(np.int64).copy()
    digit = np.zeros(m, dtype=np.int64)
    for i in range(m):
        for j in range(k):
            r[j] += arrangements[offsets[i], j]
    c = 0
    while True:
        total = 0
        for j in range(k):
            total += r[j] * r[j]
        out[c] = total
        c += 1
        i = 0
        while i < m:
            row = offsets[i] + digit[i]
            if digit[i] + 1 < offsets[i + 1] - offsets[i]:
                digit[i] += 1
                for j in range(k):
                    r[j] += arrangements[row + 1, j] - arrangements[row, j]
                break
            for j in range(k):
                r[j] += arrangements[offsets[i], j] - arrangements[row, j]
            digit[i] = 0
            i += 1
        if i == m:
            return
