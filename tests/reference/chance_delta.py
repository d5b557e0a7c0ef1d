"""The numpy code that computed the delta-method variances of the chance-corrected measures and
the least-favourable tables before :mod:`batcheval.kernels.delta` did (kept as written then): the
gradient of every cell as ``[K, K, G]`` arrays (``gradient_cells_last``), and every cell's Wilson
ends over the stacked tables."""

from __future__ import annotations

import numpy as np

from batcheval.inference import intervals as iv


def delta_variance(counts: np.ndarray, name: str, extra: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``(var, undefined)`` of every table plus ``extra`` a cell, from the gradient's arrays."""
    c = iv.cells_last(np.asarray(counts, dtype=np.float64)) + extra
    g, undefined = iv.gradient_cells_last(c, name)
    return iv.gradient_variance(c, g), undefined


def least_favourable_table(counts: np.ndarray, level: float) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    n = c.sum(axis=2, keepdims=True)
    low, high = iv.wilson(c, np.broadcast_to(n, c.shape), level)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = c / n
        step = 1.0 / c.shape[2] - p
        room = np.where(step > 0, (high - p) / step, np.where(step < 0, (p - low) / -step, np.inf))
    t = np.clip(np.nan_to_num(room.min(axis=2, keepdims=True), nan=0.0), 0.0, 1.0)
    return np.where(n > 0, n * (p + t * step), 0.0)


def least_favourable_variance(counts: np.ndarray, name: str, level: float) -> np.ndarray:
    here = iv.cells_last(np.asarray(counts, dtype=np.float64))
    g, undefined = iv.gradient_cells_last(here, name)
    plain = np.where(undefined, np.nan, iv.gradient_variance(here, g))
    moved = iv.cells_last(least_favourable_table(counts, level))
    g, _ = iv.gradient_cells_last(moved, name)
    var = iv.gradient_variance(moved, g)
    return np.where(np.isnan(plain), np.nan, np.fmax(var, plain))
