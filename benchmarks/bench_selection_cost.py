"""What the best set and rank intervals cost a modest leaderboard: ``be.leaderboard``
(``paired="delta"``) on simulated null boards (benchmarks/calibration_leader.py's
design) of a few sizes, best of 3 calls after a warm-up, one numba thread.

Boards within :data:`batcheval.inference.board_bootstrap.BOOT_BUDGET` (and ``BOOT_CELLS``, which
no two-class board here reaches) take the studentized
bootstrap's critical values; the larger ones below keep the Gaussian max-t (or
Bonferroni), so their time shows the old path's cost.

``--staircase``: paired staircase boards (B from 0.7 to 0.3, prevalence 0.3) of 300 to
4,000 runs, the influence matrix's path with each pair's least-favourable variance: CPU
seconds of the whole call, best of 3, and how many runs could be the best. With
``--classes 3`` the staircases have three classes (calibration_leader.py's ``--classes``):
1,000 and 2,000 runs, with two classes of 10 examples beside one of 80, or 100-100-200. With
``--seeds S`` (and ``--keep q``), each run scores its test set once per seed, the seeds
pooled: the clustered board (``calibration_leader.board``).

    python benchmarks/bench_selection_cost.py
    python benchmarks/bench_selection_cost.py --staircase
    python benchmarks/bench_selection_cost.py --staircase --classes 3
    python benchmarks/bench_selection_cost.py --staircase --seeds 3 --keep 0.9
    python benchmarks/bench_selection_cost.py --spread

``--spread``: boards of 1,000 to 4,000 runs whose informedness is spread evenly from 0.8 to 0
(prevalence 0.4, 500 examples), as a sweep's runs often are: most pairs differ by far more
than their noise. Paired (the bootstrap, then ``paired="delta"``) and unpaired, CPU seconds
of the whole call, best of 3, and how many runs could be the best.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import calibration_leader as cl
import numpy as np

import batcheval as be

BOARDS = [
    (30, 40, 0.1, False), (300, 100, 0.1, False), (600, 100, 0.1, False), (2000, 100, 0.1, False),
    (30, 40, 0.1, True), (30, 400, 0.5, True), (100, 40, 0.5, True),
]  # fmt: skip


STAIRCASES = [(300, 100, 0.3), (1000, 100, 0.3), (2000, 400, 0.3), (4000, 200, 0.3)]
#: three classes: (runs, examples, the last class's share)
MULTICLASS_STAIRCASES = [(1000, 100, 0.8), (2000, 100, 0.8), (2000, 400, 0.5)]


def staircase(classes: int = 2, seeds: int = 1, keep: float = 0.0) -> None:
    for r, n, prev in STAIRCASES if classes == 2 else MULTICLASS_STAIRCASES:
        rng = np.random.default_rng(1)
        df = cl.board(np.linspace(0.7, 0.3, r), n, prev, True, rng, seeds=seeds, keep=keep, classes=classes)
        kw = {"run": "run", "example": "example_id", "paired": "delta", "seed": 0}
        if seeds > 1:
            kw["pool"] = "seed"
        times = []
        for _ in range(3):
            t0 = time.process_time()
            out = be.leaderboard(df, **kw)
            times.append(time.process_time() - t0)
        kept = int(out["could_be_best"].sum())
        print(
            f"paired staircase R={r:5} n={n:4} prevalence={prev} seeds={seeds}: "
            f"best of 3 {min(times):.3f} s CPU, "
            f"{kept} could be best",
            flush=True,
        )


SPREADS = [(1000, 500, 0.4), (2100, 500, 0.4), (4000, 500, 0.4)]


def spread() -> None:
    for r, n, prev in SPREADS:
        for name, paired, kw in (
            ("paired", True, {"example": "example_id"}),
            ("paired delta", True, {"example": "example_id", "paired": "delta"}),
            ("unpaired", False, {}),
        ):
            df = cl.board(np.linspace(0.8, 0.0, r), n, prev, paired, np.random.default_rng(2))
            times = []
            for _ in range(3):
                t0 = time.process_time()
                out = be.leaderboard(df, run="run", seed=0, **kw)
                times.append(time.process_time() - t0)
            print(
                f"spread {name:12} R={r:5} n={n:4} prevalence={prev}: best of 3 {min(times):.3f} s CPU, "
                f"{int(out['could_be_best'].sum())} could be best",
                flush=True,
            )


def main() -> None:
    warnings.simplefilter("ignore")
    args = sys.argv[1:]
    if "--spread" in args:
        spread()
        return
    if "--staircase" in args:

        def option(name: str, default: str) -> str:
            return args[args.index(name) + 1] if name in args else default

        staircase(int(option("--classes", "2")), int(option("--seeds", "1")), float(option("--keep", "0")))
        return
    rng = np.random.default_rng(0)
    for r, n, prev, paired in BOARDS:
        df = cl.board(np.full(r, 0.5), n, prev, paired, rng)
        kw = {"run": "run", "example": "example_id" if paired else None, "paired": "delta", "seed": 0}
        be.leaderboard(df, **kw)
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            be.leaderboard(df, **kw)
            times.append(time.perf_counter() - t0)
        kind = "paired" if paired else "unpaired"
        print(f"{kind:8} R={r:5} n={n:4} prevalence={prev}: best of 3 {min(times) * 1000:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
