"""Plain-numpy reference of the cluster-robust (sandwich) variance of a measure.

Written from the definition, row by row, without batcheval's gradients: a
row's score is the influence of that row on the measure, found by a central
finite difference of the measure (tests/reference/naive.py) along the row's
cell, ``u_ij = d/dε f((1 − ε)π + ε·e_ij)`` at ``ε = 0``; a cluster's score is
the sum of its rows' scores, and

    var = C/(C − 1) · Σ_c S_c² / n²
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence

import numpy as np

from .naive import binary_reference, multiclass_reference


def measure(table: np.ndarray, name: str, positive: int = 1) -> float:
    """``name`` of a (possibly fractional) K×K table, real × predicted."""
    if table.shape[0] == 2:
        return binary_reference(table, positive)[name]
    return multiclass_reference(table)[name]


def influence(table: np.ndarray, name: str, positive: int = 1, eps: float = 1e-6) -> np.ndarray:
    """``u[i, j]``: the measure's derivative along a row of cell (i, j), by central differences."""
    pi = np.asarray(table, dtype=float) / table.sum()
    k = pi.shape[0]
    u = np.empty((k, k))
    for i in range(k):
        for j in range(k):
            e = np.zeros((k, k))
            e[i, j] = 1.0
            up = measure((1 - eps) * pi + eps * e, name, positive)
            down = measure((1 + eps) * pi - eps * e, name, positive)
            u[i, j] = (up - down) / (2 * eps)
    return u


def cluster_variance(
    labels: Sequence[int], predictions: Sequence[int], clusters: Sequence[Hashable], k: int, name: str,
    positive: int = 1,
) -> float:  # fmt: skip
    """Cluster-robust variance of ``name`` over rows (class codes 0..k-1), one loop over rows."""
    table = np.zeros((k, k))
    for y, p in zip(labels, predictions, strict=True):
        table[y, p] += 1
    u = influence(table, name, positive)
    sums: dict[Hashable, float] = defaultdict(float)
    for y, p, c in zip(labels, predictions, clusters, strict=True):
        sums[c] += u[y, p]
    n, n_clusters = len(labels), len(sums)
    return n_clusters / (n_clusters - 1) * sum(s * s for s in sums.values()) / n**2
