"""The binary paired sign-flip test written with numpy over arrays: what
``batcheval.inference.paired_se`` computed before its kernel
(``kernels/signflip.binary_sign_flip``), kept as its reference.

The exact tails come from scipy's Bin(m, 1/2) pmf (:func:`exact_tail`), an outer product
over every sign pattern summed where ``|D| ≥ t``: nothing of batcheval's tail code (its
ratio-recurrence tables, cdf/survival sums and lattice bounds) is shared. The weights,
statistic, tolerance and normal tails are this file's numpy; those entries match the kernel
bit for bit, the exact tails to float rounding. ``tails=`` takes another tail function of
the same signature (``two_binomial_tail``'s), for batcheval-against-batcheval checks."""

from __future__ import annotations

import numpy as np
from scipy import special, stats

EXACT_DISCORDANT = 50


def binary_weights(measure: str, n1: np.ndarray, n0: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, ...]:
    """|change of the measure| when one discordant example of the real positives
    (resp. negatives) turns from wrong to right: 1/n1 for a tp, 1/n0 for a tn."""
    zero = np.zeros_like(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv1, inv0, inv = 1.0 / n1, 1.0 / n0, 1.0 / n
    return {
        "informedness": (inv1, inv0),
        "auc_single": (inv1 / 2.0, inv0 / 2.0),
        "accuracy": (inv, inv),
        "recall": (inv1, zero),
        "miss_rate": (inv1, zero),
        "inverse_recall": (zero, inv0),
        "fallout": (zero, inv0),
    }[measure]


def exact_tail(
    ma: np.ndarray, mb: np.ndarray, wa: np.ndarray, wb: np.ndarray, t: np.ndarray, out: np.ndarray
) -> None:
    """``out[g] = P(|wa(2X_a − ma) + wb(2X_b − mb)| ≥ t)`` for independent ``X ~ Bin(m, 1/2)``:
    scipy's pmfs of both counts, their outer product over every ``(x_a, x_b)``, summed where
    the statistic reaches ``t``."""
    for g in range(len(out)):
        a, b = int(ma[g]), int(mb[g])
        xa, xb = np.arange(a + 1), np.arange(b + 1)
        joint = np.outer(stats.binom.pmf(xa, a, 0.5), stats.binom.pmf(xb, b, 0.5))
        d = np.abs(wa[g] * (2.0 * xa - a)[:, None] + wb[g] * (2.0 * xb - b)[None, :])
        out[g] = joint[d >= t[g]].sum()


def binary_sign_flip(
    joint: np.ndarray, measure: str, pos: int, tails=exact_tail
) -> tuple[np.ndarray, np.ndarray]:
    """Weights, statistic, exact tail and normal statistic of every table's paired sign-flip
    test, in numpy; the exact tails from ``tails`` (:func:`exact_tail`, scipy's pmfs, unless
    given another). Also returns where the tail is exact, as ``(p, exact)``."""

    neg = 1 - pos
    n1 = joint[:, pos].sum(axis=(1, 2)).astype(np.float64)
    n0 = joint[:, neg].sum(axis=(1, 2)).astype(np.float64)
    # discordant examples of each real class, and how many of them the run got right
    c1, b1 = joint[:, pos, neg, pos], joint[:, pos, pos, neg]
    c0, b0 = joint[:, neg, pos, neg], joint[:, neg, neg, pos]
    m1, m0 = (c1 + b1).astype(np.float64), (c0 + b0).astype(np.float64)
    w1, w0 = binary_weights(measure, n1, n0, n1 + n0)
    w1 = np.where(m1 > 0, w1, 0.0)
    w0 = np.where(m0 > 0, w0, 0.0)
    stat = np.abs(w1 * (c1 - b1) + w0 * (c0 - b0))
    undefined = ((measure in ("informedness", "auc_single")) & ((n1 == 0) | (n0 == 0))) | (n1 + n0 == 0)
    undefined |= ((measure in ("recall", "miss_rate")) & (n1 == 0)) | (
        (measure in ("inverse_recall", "fallout")) & (n0 == 0)
    )
    # enumerate the class with fewer discordant examples; the other's tail is a binomial cdf
    swap = m1 > m0
    ma, mb = np.where(swap, m0, m1), np.where(swap, m1, m0)
    wa, wb = np.where(swap, w0, w1), np.where(swap, w1, w0)
    p = np.ones(len(stat))
    tol = 1e-9 * (wa * ma + wb * mb)  # the observed value itself counts as "at least as extreme"
    exact = (ma <= EXACT_DISCORDANT) & (stat > tol)
    idx = np.flatnonzero(exact)
    if len(idx):
        values = np.empty(len(idx))
        tails(ma[idx], mb[idx], wa[idx], wb[idx], (stat - tol)[idx], values)
        p[idx] = values
    approx = (~exact) & (stat > tol)
    var = wa * wa * ma + wb * wb * mb
    # half the smallest step of the statistic's lattice (one example flipped moves it by 2w)
    half_step = np.where((wa > 0) & (wb > 0), np.minimum(wa, wb), np.maximum(wa, wb))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.maximum(stat - half_step, 0.0) / np.sqrt(2.0 * var)
        p = np.where(approx, np.minimum(1.0, special.erfc(z)), p)
    return np.where(undefined, np.nan, p), exact & ~undefined
