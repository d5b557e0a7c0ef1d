"""Data generators shared by the tests."""

from __future__ import annotations

import numpy as np
import polars as pl


def sweep_frame(
    n_runs: int = 20, n_folds: int = 3, rows_per_group: int = 50, n_classes: int = 2, seed: int = 0
) -> pl.DataFrame:
    """A sweep-shaped frame: runs of varying skill and bias, several folds each."""
    rng = np.random.default_rng(seed)
    g = n_runs * n_folds
    run = np.repeat(np.arange(n_runs), n_folds * rows_per_group)
    fold = np.tile(np.repeat(np.arange(n_folds), rows_per_group), n_runs)
    label = rng.integers(0, n_classes, g * rows_per_group)
    skill = rng.uniform(0, 0.9, n_runs)[run]
    guess = rng.integers(0, n_classes, g * rows_per_group)
    prediction = np.where(rng.uniform(size=len(label)) < skill, label, guess)
    return pl.DataFrame({"run": run, "fold": fold, "label": label, "prediction": prediction})
