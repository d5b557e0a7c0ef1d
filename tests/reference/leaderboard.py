"""Plain per-run references for the leaderboard: one run and one example at a time."""

from __future__ import annotations

import numpy as np


def table(real: np.ndarray, predicted: np.ndarray, k: int = 2) -> np.ndarray:
    t = np.zeros((k, k), dtype=np.int64)
    np.add.at(t, (real, predicted), 1)
    return t


def informedness(t: np.ndarray) -> float:
    tn, fp, fn, tp = t.ravel().astype(float)
    return tp / (tp + fn) - fp / (fp + tn)


def discordant(real: np.ndarray, leader: np.ndarray, run: np.ndarray) -> tuple[int, int]:
    """(examples only the leader got right, examples only the run got right)."""
    lead_ok, run_ok = leader == real, run == real
    return int(np.sum(lead_ok & ~run_ok)), int(np.sum(~lead_ok & run_ok))


def paired_bootstrap_se(
    real: np.ndarray, leader: np.ndarray, run: np.ndarray, n_boot: int, rng: np.random.Generator
) -> float:
    """Resample example indices with replacement; SD of informedness(run) − informedness(leader)."""
    n = len(real)
    diffs = np.empty(n_boot)
    for b in range(n_boot):
        i = rng.integers(0, n, n)
        diffs[b] = informedness(table(real[i], run[i])) - informedness(table(real[i], leader[i]))
    return float(diffs.std(ddof=1))
