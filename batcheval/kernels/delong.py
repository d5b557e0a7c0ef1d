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


@jit_parallel
def points_auc_variance(
    starts: np.ndarray,
    tp: np.ndarray,
    fp: np.ndarray,
    positives: np.ndarray,
    negatives: np.ndarray,
    auc: np.ndarray,
    var: np.ndarray,
) -> None:
    """AUC and DeLong variance of each group from its exact ROC points (distinct scores, descending,
    cumulative ``tp`` and ``fp``), with no sort: a point adding ``p`` positives and ``q`` negatives is
    a block of tied scores, whose positives have ``V10 = (n0 − fp + q/2)/n0`` (negatives strictly
    below, ties a half) and whose negatives have ``V01 = 1 − (n1 − tp + p/2)/n1``. NaN without two
    examples of each class."""
    for g in prange(len(positives)):
        n1 = positives[g]
        n0 = negatives[g]
        if n0 < 1 or n1 < 1:
            auc[g] = np.nan
            var[g] = np.nan
            continue
        s10 = 0.0
        for i in range(starts[g], starts[g + 1]):
            p = tp[i] - (tp[i - 1] if i > starts[g] else 0)
            q = fp[i] - (fp[i - 1] if i > starts[g] else 0)
            s10 += p * (n0 - fp[i] + 0.5 * q)
        a = s10 / (n0 * n1)
        auc[g] = a
        if n0 < 2 or n1 < 2:
            var[g] = np.nan
            continue
        d10 = 0.0
        d01 = 0.0
        for i in range(starts[g], starts[g + 1]):
            p = tp[i] - (tp[i - 1] if i > starts[g] else 0)
            q = fp[i] - (fp[i - 1] if i > starts[g] else 0)
            v10 = (n0 - fp[i] + 0.5 * q) / n0
            v01 = 1.0 - (n1 - tp[i] + 0.5 * p) / n1
            d10 += p * (v10 - a) ** 2
            d01 += q * (v01 - a) ** 2
        var[g] = d10 / (n1 - 1) / n1 + d01 / (n0 - 1) / n0
