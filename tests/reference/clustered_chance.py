"""Plain-numpy reference of the clustered chance tests (``p_informedness`` / ``p_markedness`` with
``example=`` or ``cluster=``).

Written from the definition, row by row and cluster by cluster, without batcheval's
cluster tables: the chance statistic of informedness (markedness) is
``T = Σ_i u_i`` with the row score ``u_i = Σ_k w_k a_ik b_ik``, ``a_ik = [y_i = k] − r_k/n``,
``b_ik = [ŷ_i = k] − p_k/n`` and ``w_k = 1/(n − r_k)`` (``1/(n − p_k)``). The design effect
is the sandwich estimate of ``var T`` over the same estimate with every row its own cluster,

    deff = Σ_c (Σ_{i in c} u_i)² / Σ_i u_i²,

and the test is the unclustered one (tests/reference/chance.py) on the table with every
cell divided by ``max(deff, 1/n)`` and rounded to the nearest whole number, moved to the
rows' own p-value where it falls on the wrong side of it (smaller for ``deff ≥ 1``, larger
below).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence

import numpy as np

from .chance import chance_multiclass


def design_effect(
    labels: Sequence[int], predictions: Sequence[int], clusters: Sequence[Hashable], k: int, which: str
) -> float:
    """``Σ_c T_c² / Σ_i u_i²`` of the informedness (``which="informedness"``) or markedness statistic."""
    y = np.asarray(labels)
    p = np.asarray(predictions)
    n = len(y)
    real = np.array([(y == c).sum() for c in range(k)], dtype=float)
    pred = np.array([(p == c).sum() for c in range(k)], dtype=float)
    if real.max() == n or pred.max() == n:
        return math.nan
    margin = real if which == "informedness" else pred
    w = [1.0 / (n - m) if m < n else 0.0 for m in margin]
    u = []
    for row in range(n):
        a = [float(y[row] == c) - real[c] / n for c in range(k)]
        b = [float(p[row] == c) - pred[c] / n for c in range(k)]
        u.append(sum(w[c] * a[c] * b[c] for c in range(k)))
    totals: dict[Hashable, float] = defaultdict(float)
    for row, c in enumerate(clusters):
        totals[c] += u[row]
    within = sum(x * x for x in u)
    return sum(t * t for t in totals.values()) / within if within > 0 else math.nan


def clustered_p(
    labels: Sequence[int], predictions: Sequence[int], clusters: Sequence[Hashable], k: int, which: str
) -> float:
    """The clustered chance test: the unclustered test of the table divided by the design effect."""
    table = np.zeros((k, k), dtype=np.int64)
    for y, p in zip(labels, predictions, strict=True):
        table[y, p] += 1
    deff = design_effect(labels, predictions, clusters, k, which)
    divisor = 1.0 if math.isnan(deff) else max(deff, 1.0 / len(labels))
    effective = np.array([[round(table[i, j] / divisor) for j in range(k)] for i in range(k)])
    got, rows = chance_multiclass(effective, which), chance_multiclass(table, which)
    return max(got, rows) if divisor >= 1 else min(got, rows)
