"""Plain-numpy reference of the clustered chance tests (``p_informedness`` / ``p_markedness`` with
``example=`` or ``cluster=``).

Written from the definition, row by row and pair by pair, without batcheval's
cluster tables: the chance statistic of informedness (markedness) is
``T = Σ_i Σ_k w_k a_ik b_ik`` with ``a_ik = [y_i = k] − r_k/n``,
``b_ik = [ŷ_i = k] − p_k/n`` and ``w_k = 1/(n − r_k)`` (``1/(n − p_k)``). Under
the null its variance has a within-row part, the permutation variance

    V0 = Σ_kl w_k w_l (Σ_i a_ik a_il)(Σ_i b_ik b_il) / (n − 1)

and a within-cluster part, estimated from every ordered pair of distinct rows
``(i, j)`` of one cluster, pooled:

    V1 = Σ_kl w_k w_l G^a_kl G^b_kl / M2,  G^a_kl = Σ_pairs a_ik a_jl,  M2 = the number of pairs.

The design effect is ``1 + V1/V0``; the test is the unclustered one
(tests/reference/chance.py) on the table with every cell divided by
``max(deff, 1)`` and rounded to the nearest whole number, or the test of the rows where that
is larger.
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
    """``1 + V1/V0`` of the informedness (``which="informedness"``) or markedness statistic."""
    y = np.asarray(labels)
    p = np.asarray(predictions)
    n = len(y)
    real = np.array([(y == c).sum() for c in range(k)], dtype=float)
    pred = np.array([(p == c).sum() for c in range(k)], dtype=float)
    a = (y[:, None] == np.arange(k)).astype(float) - real / n
    b = (p[:, None] == np.arange(k)).astype(float) - pred / n
    margin = real if which == "informedness" else pred
    w = np.array([1.0 / (n - m) if m < n else 0.0 for m in margin])
    saa, sbb = a.T @ a, b.T @ b
    v0 = sum(w[i] * w[j] * saa[i, j] * sbb[i, j] for i in range(k) for j in range(k)) / (n - 1)
    members: dict[Hashable, list[int]] = defaultdict(list)
    for row, c in enumerate(clusters):
        members[c].append(row)
    gaa, gbb, pairs = np.zeros((k, k)), np.zeros((k, k)), 0
    for rows in members.values():
        for i in rows:
            for j in rows:
                if i != j:
                    gaa += np.outer(a[i], a[j])
                    gbb += np.outer(b[i], b[j])
                    pairs += 1
    if v0 <= 0:
        return math.nan
    v1 = sum(w[i] * w[j] * gaa[i, j] * gbb[i, j] for i in range(k) for j in range(k))
    return 1.0 + (v1 / pairs if pairs else 0.0) / v0


def clustered_p(
    labels: Sequence[int], predictions: Sequence[int], clusters: Sequence[Hashable], k: int, which: str
) -> float:
    """The clustered chance test: the unclustered test of the table divided by the design effect."""
    table = np.zeros((k, k), dtype=np.int64)
    for y, p in zip(labels, predictions, strict=True):
        table[y, p] += 1
    deff = design_effect(labels, predictions, clusters, k, which)
    divisor = 1.0 if math.isnan(deff) else max(deff, 1.0)
    effective = np.array([[round(table[i, j] / divisor) for j in range(k)] for i in range(k)])
    # fewer independent rows never give more evidence than the rows themselves
    return max(chance_multiclass(effective, which), chance_multiclass(table, which))
