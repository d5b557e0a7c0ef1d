"""Cost of clustered evaluation (``example=`` / ``cluster=``) against plain evaluate.

Usage::

    NUMBA_NUM_THREADS=1 python benchmarks/bench_clustered.py [--rows 2000000] [--repeat 3] [--profile]

The case of docs/calibration_cluster.md ("Cost:"): ``--rows`` random binary rows,
100 runs x 3 seeds, 20,000 example ids, pooled over the seeds. Times are CPU seconds
(``time.process_time``, best of ``--repeat`` after one warm-up call), since the machine
is shared.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

import batcheval as be

RUNS, SEEDS, EXAMPLES = 100, 3, 20_000


def make_frame(rows: int, seed: int = 0, classes: int = 2) -> pl.DataFrame:
    """Random rows: run, seed, example id, label, prediction (right 70 % of the time)."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, classes, rows)
    prediction = np.where(rng.random(rows) < 0.7, label, rng.integers(0, classes, rows))
    return pl.DataFrame(
        {
            "run": rng.integers(0, RUNS, rows),
            "seed": rng.integers(0, SEEDS, rows),
            "example": rng.integers(0, EXAMPLES, rows),
            "label": label,
            "prediction": prediction,
        }
    )


def best_cpu(fn: Callable[[], Any], repeat: int) -> float:
    """Best CPU time of ``repeat`` calls after a warm-up call."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=fmt)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile the clustered call")
    args = parser.parse_args()
    df = make_frame(args.rows)
    cases: dict[str, Callable[[], Any]] = {
        "plain": lambda: be.evaluate(df, by=["run", "seed"], pool=["seed"]),
        "example=": lambda: be.evaluate(df, by=["run", "seed"], pool=["seed"], example="example"),
        "plain ci=0.95": lambda: be.evaluate(df, by=["run", "seed"], pool=["seed"], ci=0.95),
        "example= ci=0.95": lambda: be.evaluate(
            df, by=["run", "seed"], pool=["seed"], example="example", ci=0.95
        ),
    }
    import warnings

    warnings.simplefilter("ignore")  # pooling seeds without example= warns
    print(f"rows={args.rows:,} runs={RUNS} seeds={SEEDS} examples={EXAMPLES:,}, CPU s best of {args.repeat}")
    for name, fn in cases.items():
        print(f"{name:>20}: {best_cpu(fn, args.repeat):.3f}")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        cases["example="]()
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
