"""Plain-Python references for the cross-validated tests of batcheval.inference.cv, one pair at a time."""

from __future__ import annotations

import math

from scipy import stats


def corrected_t(run: list[float], reference: list[float], n_folds: int, test_fraction: float | None = None):
    """Nadeau & Bengio (2003): t = mean / sqrt((1/J + n2/n1) s^2), J − 1 df; returns (t, p)."""
    d = [x - y for x, y in zip(run, reference, strict=True)]
    j = len(d)
    mean = sum(d) / j
    s2 = sum((x - mean) ** 2 for x in d) / (j - 1)
    ratio = test_fraction / (1 - test_fraction) if test_fraction is not None else 1 / (n_folds - 1)
    t = mean / math.sqrt((1 / j + ratio) * s2)
    return t, 2 * stats.t.sf(abs(t), j - 1)


def five_by_two(run: list[list[float]], reference: list[list[float]]):
    """Dietterich (1998) eq. for the 5x2cv paired t: run[i][j] is repeat i, fold j; returns (t, p)."""
    p = [[run[i][j] - reference[i][j] for j in range(2)] for i in range(5)]
    s2 = []
    for i in range(5):
        bar = (p[i][0] + p[i][1]) / 2
        s2.append((p[i][0] - bar) ** 2 + (p[i][1] - bar) ** 2)
    t = p[0][0] / math.sqrt(sum(s2) / 5)
    return t, 2 * stats.t.sf(abs(t), 5)
