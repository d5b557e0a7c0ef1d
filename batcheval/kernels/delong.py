"""DeLong's structural components by midranks (Sun & Xu 2014, IEEE Signal Process. Lett. 21:1389).

For m positives X and n negatives Y, with midranks T_Z over all m + n scores and T_X, T_Y within
each class, the structural components are ``V10_i = (T_Z(X_i) − T_X(X_i)) / n`` (the share of
negatives below positive i, ties counting a half) and ``V01_j = 1 − (T_Z(Y_j) − T_Y(Y_j)) / m``;
the AUC is the mean of either. Three sorts instead of the m·n comparisons of DeLong, DeLong &
Clarke-Pearson (1988, Biometrics 44:837).
"""

from __future__ import annotations

import numpy as np

from .jit import jit, jit_parallel, prange


@jit
def midranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..len(x) of ``x``, tied values sharing the mean of their ranks."""
    n = len(x)
    order = np.argsort(x, kind="mergesort")
    out = np.empty(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and x[order[j + 1]] == x[order[i]]:
            j += 1
        mid = 0.5 * (i + j) + 1.0
        for q in range(i, j + 1):
            out[order[q]] = mid
        i = j + 1
    return out


@jit
def _components(neg: np.ndarray, pos: np.ndarray, v10: np.ndarray, v01: np.ndarray) -> None:
    n0 = len(neg)
    n1 = len(pos)
    both = np.empty(n0 + n1)
    both[:n0] = neg
    both[n0:] = pos
    tz = midranks(both)
    tx = midranks(pos)
    ty = midranks(neg)
    for i in range(n1):
        v10[i] = (tz[n0 + i] - tx[i]) / n0
    for j in range(n0):
        v01[j] = 1.0 - (tz[j] - ty[j]) / n1


@jit_parallel
def group_auc_variance(
    starts: np.ndarray, scores: np.ndarray, positives: np.ndarray, auc: np.ndarray, var: np.ndarray
) -> None:
    """Per group (negatives then positives in ``scores[starts[g]:starts[g+1]]``): the AUC and
    DeLong's variance ``var(V10)/m + var(V01)/n`` (sample variances); NaN without two of each class."""
    for g in prange(len(positives)):
        s = starts[g]
        e = starts[g + 1]
        n1 = positives[g]
        n0 = e - s - n1
        if n0 < 1 or n1 < 1:
            auc[g] = np.nan
            var[g] = np.nan
            continue
        v10 = np.empty(n1)
        v01 = np.empty(n0)
        _components(scores[s : e - n1], scores[e - n1 : e], v10, v01)
        a = v10.mean()
        auc[g] = a
        if n0 < 2 or n1 < 2:
            var[g] = np.nan
            continue
        s10 = 0.0
        for i in range(n1):
            s10 += (v10[i] - a) ** 2
        s01 = 0.0
        for j in range(n0):
            s01 += (v01[j] - a) ** 2
        var[g] = s10 / (n1 - 1) / n1 + s01 / (n0 - 1) / n0


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
        pos = np.empty(n1)
        neg = np.empty(n0)
        for i in range(n1):
            pos[i] = scores[r, pos_idx[i]]
        for j in range(n0):
            neg[j] = scores[r, neg_idx[j]]
        _components(neg, pos, v10[r], v01[r])
