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

from .exact import sorted_group
from .jit import jit, jit_parallel, prange


@jit
def _components(both: np.ndarray, n0: int, v10: np.ndarray, v01: np.ndarray) -> None:
    """Components of one run: ``both`` holds its n0 negatives, then its positives.

    One sort and one walk over blocks of tied scores: within a block holding ``p`` positives and
    ``q`` negatives, above ``P`` positives and ``Q`` negatives already walked, the midrank
    differences of Sun & Xu reduce to ``V10 = (Q + q/2)/n0`` for each of its positives and
    ``V01 = 1 − (P + p/2)/n1`` for each of its negatives.
    """
    n = len(both)
    n1 = n - n0
    order = np.argsort(both)
    below_pos = 0
    below_neg = 0
    i = 0
    while i < n:
        j = i
        p = 0
        while True:
            if order[j] >= n0:
                p += 1
            if j + 1 < n and both[order[j + 1]] == both[order[i]]:
                j += 1
            else:
                break
        q = j - i + 1 - p
        share_neg = (below_neg + 0.5 * q) / n0
        share_pos = 1.0 - (below_pos + 0.5 * p) / n1
        for t in range(i, j + 1):
            k = order[t]
            if k >= n0:
                v10[k - n0] = share_neg
            else:
                v01[k] = share_pos
        below_pos += p
        below_neg += q
        i = j + 1


@jit_parallel
def run_components(scores: np.ndarray, is_pos: np.ndarray, v10: np.ndarray, v01: np.ndarray) -> None:
    """Structural components of every run (row of ``scores[R, E]``) on the shared examples:
    ``v10[r]`` over the positives and ``v01[r]`` over the negatives, in example order."""
    n_runs, n_ex = scores.shape
    n1 = v10.shape[1]
    n0 = v01.shape[1]
    pos_idx = np.empty(n1, dtype=np.int64)
    neg_idx = np.empty(n0, dtype=np.int64)
    a = 0
    b = 0
    for e in range(n_ex):
        if is_pos[e]:
            pos_idx[a] = e
            a += 1
        else:
            neg_idx[b] = e
            b += 1
    for r in prange(n_runs):
        both = np.empty(n0 + n1)
        for j in range(n0):
            both[j] = scores[r, neg_idx[j]]
        for i in range(n1):
            both[n0 + i] = scores[r, pos_idx[i]]
        _components(both, n0, v10[r], v01[r])


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
def group_auc_variance(
    starts: np.ndarray, scores: np.ndarray, positives: np.ndarray, auc: np.ndarray, var: np.ndarray
) -> None:
    """Per group (negatives then positives in ``scores[starts[g]:starts[g+1]]``): the AUC and
    DeLong's variance ``var(V10)/n1 + var(V01)/n0``, from the exact kernels' bucket sort of the group
    and two walks over its blocks of tied scores (``V10 = (negatives below + q/2)/n0`` for the
    positives of a block with q negatives; ``V01 = 1 − (positives below + p/2)/n1``). NaN without
    two examples of each class."""
    for g in prange(len(positives)):
        s = starts[g]
        e = starts[g + 1]
        n1 = positives[g]
        n0 = e - s - n1
        if n0 < 1 or n1 < 1:
            auc[g] = np.nan
            var[g] = np.nan
            continue
        v, lab = sorted_group(scores, s, e, n0)
        s10, _, _ = _block_sums(v, lab, n0, n1, 0.0)
        a = s10 / n1
        auc[g] = a
        if n0 < 2 or n1 < 2:
            var[g] = np.nan
            continue
        _, d10, d01 = _block_sums(v, lab, n0, n1, a)
        var[g] = d10 / (n1 - 1) / n1 + d01 / (n0 - 1) / n0
