"""DeLong, DeLong & Clarke-Pearson (1988) by the definition: O(P·N) structural components."""

from __future__ import annotations

import numpy as np


def psi(x: float, y: float) -> float:
    return 1.0 if x > y else (0.5 if x == y else 0.0)


def components(scores, labels):
    """(V10 over positives, V01 over negatives) by comparing every positive with every negative."""
    pos = [s for s, lab in zip(scores, labels, strict=True) if lab]
    neg = [s for s, lab in zip(scores, labels, strict=True) if not lab]
    v10 = np.array([sum(psi(x, y) for y in neg) / len(neg) for x in pos])
    v01 = np.array([sum(psi(x, y) for x in pos) / len(pos) for y in neg])
    return v10, v01


def auc_variance(scores, labels):
    v10, v01 = components(scores, labels)
    return v10.mean(), v10.var(ddof=1) / len(v10) + v01.var(ddof=1) / len(v01)


def paired(scores_a, scores_b, labels):
    """(auc_a − auc_b, var of the difference) with DeLong's covariance of the two AUCs."""
    a10, a01 = components(scores_a, labels)
    b10, b01 = components(scores_b, labels)
    s10 = np.cov(np.vstack([a10, b10]))
    s01 = np.cov(np.vstack([a01, b01]))
    s = s10 / len(a10) + s01 / len(a01)
    return a10.mean() - b10.mean(), s[0, 0] + s[1, 1] - 2 * s[0, 1]
