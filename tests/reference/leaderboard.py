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


def joint_from_cells(
    cells: np.ndarray, n_examples: int, rows: np.ndarray, ref: np.ndarray, k: int
) -> np.ndarray:
    """``joint[i, real, ref's prediction, own prediction]`` from a runs × examples table of
    class pair codes (``real · k + predicted + 1``, 0: not predicted), one run and example at a time."""
    table = cells.reshape(-1, n_examples)
    joint = np.zeros((len(rows), k, k, k), dtype=np.int64)
    for i, r in enumerate(ref):
        if r < 0:
            continue
        for own, other in zip(table[rows[i]], table[rows[r]], strict=True):
            if own and other:
                real, pred = divmod(int(own) - 1, k)
                joint[i, real, (int(other) - 1) % k, pred] += 1
    return joint


def pair_cells(joint: np.ndarray, positive: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per binary joint table ``joint[g, real, reference's prediction, run's prediction]``,
    one at a time: the (tp, fp, fn, tn) of the run's and of the reference's table at class
    ``positive``, and (paired, only the reference right, only the run right)."""
    p, q = positive, 1 - positive
    run, ref, agree = [], [], []
    for j in joint:
        r, f = j.sum(axis=1), j.sum(axis=2)  # [real, run's prediction], [real, reference's]
        run.append([r[p, p], r[q, p], r[p, q], r[q, q]])
        ref.append([f[p, p], f[q, p], f[p, q], f[q, q]])
        real, lead, own = np.indices(j.shape)
        lead_right, own_right = lead == real, own == real
        agree.append([j.sum(), j[lead_right & ~own_right].sum(), j[~lead_right & own_right].sum()])
    as_rows = [np.array(x, dtype=np.int64).reshape(len(joint), -1).T for x in (run, ref, agree)]
    return as_rows[0], as_rows[1], as_rows[2]
