"""Plain-numpy reference of the clustered intervals' design effect (bias-reduced, CR2).

Written from the regression form, row by row and with matrices, without batcheval's
gradients or its closed form of the leverage: the delta method's row scores are the
residuals ``e`` of a least-squares fit, and Bell & McCaffrey's (2002) CR2 estimator adjusts
each cluster's residuals by ``A_c = (I − H_cc)^(-1/2)`` (a symmetric inverse square root, here
by an eigendecomposition), ``H_cc`` the cluster's block of the hat matrix:

- a chance-corrected measure ``f(π)`` of the cell shares: the rows' responses are their
  cells' gradients ``y_i = ∂f/∂π`` at ``π̂`` (finite differences, ``tests/reference/clustered.py``),
  fitted by an intercept (``X`` a column of ones), so ``e_i = y_i − ȳ`` is the row's score;
- a proportion ``x/m`` (recall, accuracy, ...): the ratio fit of the successes ``a_i`` on the
  trials ``b_i`` (1 for a row that is a trial, else 0) without intercept, ``β̂ = x/m``,
  ``e_i = a_i − β̂·b_i``, ``X = b``.

With ``N = X'X`` (the rows, or the trials), the CR2 sum ``V_c = Σ_c (X_c' A_c e_c)²`` and the
rows' ``V_r = Σ_i e_i²``, the design effect is ``V_c / (V_r + V_c/N)``. Bell & McCaffrey's
degrees of freedom under working independence are ``tr(B)²/tr(B²)`` for the matrix of the
quadratic form ``V_c = y'By``, ``B = (I − H) W (I − H)``, ``W`` block-diagonal with blocks
``A_c X_c X_c' A_c``.

:func:`floored_design_effect` adds the documented edge rules (docs/calibration_cluster.md,
``design_effects``), counted from the rows: with ``H`` the clusters holding a unit, exactly 1
where every such cluster holds one unit, ``N/H`` where the residuals are all 0 or one cluster
holds every unit, and at least ``H/N``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from .clustered import influence

#: the binary proportions: the trial rows ``(label, prediction)`` and the success rows among them
PROPORTIONS = {
    "recall": (lambda y, p: y == 1, lambda y, p: p == 1),
    "precision": (lambda y, p: p == 1, lambda y, p: y == 1),
    "inverse_recall": (lambda y, p: y == 0, lambda y, p: p == 0),
    "accuracy": (lambda y, p: np.ones_like(y, dtype=bool), lambda y, p: y == p),
    "jaccard": (lambda y, p: (y == 1) | (p == 1), lambda y, p: y == p),  # tp in tp + fp + fn
}


def _inverse_sqrt(m: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eigh(m)
    return (v / np.sqrt(w)) @ v.T


def regression(
    labels: Sequence[int], predictions: Sequence[int], k: int, name: str
) -> tuple[np.ndarray, np.ndarray]:
    """The design ``X`` (one column) and residuals ``e`` of the fit whose residuals are the
    measure's row scores (up to a constant factor)."""
    y, p = np.asarray(labels), np.asarray(predictions)
    if name in PROPORTIONS:
        trial, success = PROPORTIONS[name]
        b = trial(y, p).astype(float)
        a = (success(y, p) & (b > 0)).astype(float)
        beta = a.sum() / b.sum()
        return b, a - beta * b
    table = np.zeros((k, k))
    np.add.at(table, (y, p), 1)
    g = influence(table, name)[y, p]
    return np.ones(len(y)), g - g.mean()


def design_effect(
    labels: Sequence[int], predictions: Sequence[int], clusters: Sequence[Hashable], k: int, name: str
) -> float:
    """The CR2 design effect of ``name`` over rows (class codes 0..k-1) in ``clusters``."""
    x, e = regression(labels, predictions, k, name)
    n_units = float(x @ x)
    ids = np.unique(np.asarray(clusters), return_inverse=True)[1].reshape(-1)
    v_c = 0.0
    for c in np.unique(ids):
        rows = ids == c
        xc, ec = x[rows], e[rows]
        h = np.outer(xc, xc) / n_units  # the cluster's block of X (X'X)^-1 X'
        if np.allclose(h.trace(), 1.0):  # the cluster holds every unit: no residual to adjust
            continue
        v_c += float(xc @ _inverse_sqrt(np.eye(len(xc)) - h) @ ec) ** 2
    v_r = float(e @ e)
    return v_c / (v_r + v_c / n_units)


def _blocks(labels, predictions, clusters, k, name):
    x, e = regression(labels, predictions, k, name)
    ids = np.unique(np.asarray(clusters), return_inverse=True)[1].reshape(-1)
    return x, e, ids


def bell_mccaffrey_dof(
    labels: Sequence[int], predictions: Sequence[int], clusters: Sequence[Hashable], k: int, name: str
) -> float:
    """The Satterthwaite degrees of freedom of the CR2 sum of ``name`` (whole matrices)."""
    x, _, ids = _blocks(labels, predictions, clusters, k, name)
    n = len(x)
    hat = np.outer(x, x) / float(x @ x)
    w = np.zeros((n, n))
    for c in np.unique(ids):
        rows = np.flatnonzero(ids == c)
        xc = x[rows]
        if not xc.any():
            continue
        h = hat[np.ix_(rows, rows)]
        if np.allclose(h.trace(), 1.0):
            continue
        a = _inverse_sqrt(np.eye(len(rows)) - h)
        w[np.ix_(rows, rows)] = a @ np.outer(xc, xc) @ a
    b = (np.eye(n) - hat) @ w @ (np.eye(n) - hat)
    return float(np.trace(b) ** 2 / np.trace(b @ b))


def floored_design_effect(
    labels: Sequence[int], predictions: Sequence[int], clusters: Sequence[Hashable], k: int, name: str
) -> float:
    """:func:`design_effect` with its edge rules: 1 where each cluster holding a unit holds one,
    ``N/H`` without residual spread or with one cluster holding every unit, at least ``H/N``."""
    x, e, ids = _blocks(labels, predictions, clusters, k, name)
    n_units = float(x @ x)
    holding = sum(1 for c in np.unique(ids) if x[ids == c].any())
    if holding == n_units:
        return 1.0
    # a proportion's residuals are exact; finite-difference gradients leave a constant score a
    # residual of ~1e-10, not 0
    flat = not e.any() if name in PROPORTIONS else float(np.abs(e).max()) <= 1e-7
    if flat or holding == 1:
        return max(n_units / holding, holding / n_units)
    return max(design_effect(labels, predictions, clusters, k, name), holding / n_units)
