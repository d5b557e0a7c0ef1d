"""Size of a leaderboard's pairwise p-values: ``p_vs_leader`` and ``p_mcnemar`` under the null.

Issue #20 asks for "the size of every p-value column at α = 0.01 and 0.05". The chance tests
(``calibration_chance.py``), the clustered board's ``p_vs_leader`` (``calibration_cluster.py
--part paired``) and the best set (``calibration_leader.py``) have theirs; this is the unclustered
board's comparison of a run with the leader.

Each board has two runs of the same true informedness ``B`` (recall ``(1 + B)/2``, fallout
``(1 − B)/2``, so the accuracies are equal too); each run's test set has ``round(prevalence·n)``
positives in ``n`` examples. *Unpaired*: each run has its own test set, no ``example=`` (the
delta-method z test). *Paired*: both runs score one test set, independently given the label,
``example=`` given (``paired="bootstrap"``, the default, and ``paired="delta"``); ``p_mcnemar``
is the exact McNemar test of equal accuracy. With two runs the leader is the better estimate, and
the two-sided p-value of the difference does not depend on which run that is, so the rate at which
the second run's ``p_vs_leader`` falls below α is the test's size. ± in the docs is the binomial
standard error ``sqrt(α(1 − α)/boards)``.

    python benchmarks/calibration_board.py --boards 2000 --out docs/calibration_board.md
    python benchmarks/calibration_board.py --quick
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

# one thread: each board is small, and a parallel launch costs more than its work
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
import polars as pl

import batcheval as be

#: (n, prevalence, B) of the grid: small n, skewed classes, a strong classifier.
GRID = ((10, 0.5, 0.5), (20, 0.5, 0.5), (20, 0.5, 0.9), (40, 0.1, 0.5), (100, 0.5, 0.5), (100, 0.1, 0.8),
        (400, 0.1, 0.5))  # fmt: skip
MODES = ("unpaired", "paired bootstrap", "paired delta")


def null_board(rng: np.random.Generator, n: int, prevalence: float, b: float, paired: bool) -> pl.DataFrame:
    """Two runs of true informedness ``b`` on ``n`` examples each (one shared test set if paired)."""
    pos = max(1, round(prevalence * n))
    base = np.r_[np.ones(pos, np.int8), np.zeros(n - pos, np.int8)]
    y0 = rng.permutation(base)
    y1 = y0 if paired else rng.permutation(base)
    tpr, fpr = (1 + b) / 2, (1 - b) / 2
    preds = [np.where(y == 1, rng.random(n) < tpr, rng.random(n) < fpr).astype(np.int8) for y in (y0, y1)]
    return pl.DataFrame({
        "run": np.repeat([0, 1], n), "example": np.tile(np.arange(n), 2),
        "label": np.r_[y0, y1], "prediction": np.r_[preds[0], preds[1]],
    })  # fmt: skip


def board_p_values(mode: str, n: int, prevalence: float, b: float, boards: int, seed: int) -> np.ndarray:
    """``[boards, 2]``: the second run's ``p_vs_leader`` and ``p_mcnemar`` (NaN unpaired)."""
    rng = np.random.default_rng(seed)
    kwargs = {} if mode == "unpaired" else {"example": "example", "paired": mode.split()[1]}
    out = np.full((boards, 2), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)
        for i in range(boards):
            board = be.leaderboard(null_board(rng, n, prevalence, b, mode != "unpaired"), seed=i, **kwargs)
            second = board.sort("rank", maintain_order=True).row(1, named=True)
            out[i, 0] = second["p_vs_leader"]
            out[i, 1] = second.get("p_mcnemar", np.nan)
    return out


def _rate(p: np.ndarray, alpha: float) -> str:
    return "–" if np.isnan(p).all() else f"{np.mean(p < alpha):.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--quick", action="store_true", help="200 boards per point")
    parser.add_argument("--out", help="also write the table to this Markdown file")
    args = parser.parse_args()
    boards = 200 if args.quick else args.boards
    se05, se01 = (np.sqrt(a * (1 - a) / boards) for a in (0.05, 0.01))
    lines = [
        f"{boards} boards per point, seed {args.seed}; binomial standard error of a rate of 0.05: "
        f"{se05:.4f}, of 0.01: {se01:.4f}.",
        "",
        "| board | n | prevalence | B | `p_vs_leader` < 0.05 | < 0.01 | `p_mcnemar` < 0.05 | < 0.01 "
        "| CPU s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    print("\n".join(lines), flush=True)
    for k, mode in enumerate(MODES):
        for j, (n, prevalence, b) in enumerate(GRID):
            start = time.process_time()
            p = board_p_values(mode, n, prevalence, b, boards, args.seed + 100 * k + j)
            rates = " | ".join(_rate(p[:, c], a) for c in (0, 1) for a in (0.05, 0.01))
            line = f"| {mode} | {n} | {prevalence} | {b} | {rates} | {time.process_time() - start:.1f} |"
            lines.append(line)
            print(line, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
