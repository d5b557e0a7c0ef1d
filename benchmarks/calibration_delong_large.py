"""Calibration of ``be.compare_auc``'s best set over ``selection.RANK_LIMIT`` (issue 20).

Boards of R runs (default 6,000, over the 5,000-run limit, where each run is compared with the
leader alone) score one shared test set of n examples with ``round(prevalence · n)`` positives.
Run r's score is ``δ_r · y + N(0, 1)``, independently per run and example, so its true AUC is
``Φ(δ_r/√2)``. Designs:

- ``null``: every run has AUC 0.75 (every run is best);
- ``staircase``: true AUCs evenly from 0.9 down to 0.6, one truly best run.

For each point it reports ``fwer best`` (P(a truly best run outside ``could_be_best``), with its
Monte-Carlo standard error ``sqrt(p(1 − p)/boards)``), the mean size of the set and the mean share
of clearly worse runs (true AUC at least 0.1 below the best) it excludes.

    python benchmarks/calibration_delong_large.py --boards 100
    python benchmarks/calibration_delong_large.py --quick    # 1,000 runs over a lowered limit
"""

from __future__ import annotations

import argparse
import math
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
import polars as pl
from scipy import special

import batcheval as be

ALPHA = 0.05


def one(auc: np.ndarray, n: int, prevalence: float, rng: np.random.Generator) -> dict:
    """The error, the set's size and the clearly worse runs it excludes, of one simulated board."""
    r = len(auc)
    m = max(2, round(prevalence * n))
    y = np.zeros(n, dtype=np.int8)
    y[:m] = 1
    delta = np.sqrt(2.0) * special.ndtri(auc)
    score = rng.standard_normal((r, n)) + delta[:, None] * y[None, :]
    df = pl.DataFrame({
        "run": np.repeat(np.arange(r, dtype=np.int32), n),
        "example": np.tile(np.arange(n, dtype=np.int32), r),
        "score": score.ravel(),
        "label": np.tile(y, r),
    })  # fmt: skip
    out = be.compare_auc(df, ci=1 - ALPHA)
    truth = auc[out["run"].to_numpy()]
    kept = np.array([k is None or bool(k) for k in out["could_be_best"].to_list()])
    worse = truth <= truth.max() - 0.1
    return {
        "best": bool(np.any((truth == truth.max()) & ~kept)),
        "size": int(kept.sum()),
        "excluded": float(np.mean(~kept[worse])) if worse.any() else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=100, help="boards per grid point")
    parser.add_argument("--runs", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--designs", default="null,staircase")
    parser.add_argument(
        "--quick", action="store_true", help="1,000 runs, RANK_LIMIT lowered to 500, 20 boards"
    )
    args = parser.parse_args()
    runs, boards = args.runs, args.boards
    if args.quick:
        from batcheval.inference import selection

        selection.RANK_LIMIT, runs, boards = 500, 1000, 20
    points = [("null", n, p) for n in (100, 400) for p in (0.1, 0.5)]
    points += [("staircase", n, p) for n, p in ((400, 0.5), (1000, 0.3))]
    print("| design | R | n | prevalence | boards | fwer best | mean size | worse excluded |")
    print("|---|---|---|---|---|---|---|---|")
    t0 = time.perf_counter()
    for design, n, prev in points:
        if design not in args.designs.split(","):
            continue
        auc = np.full(runs, 0.75) if design == "null" else np.linspace(0.9, 0.6, runs)
        rng = np.random.default_rng([args.seed, n, int(prev * 1000), design == "null"])
        res = pl.DataFrame([one(auc, n, prev, rng) for _ in range(boards)])
        rate = float(res["best"].cast(pl.Float64).mean())  # type: ignore[arg-type]
        se = math.sqrt(rate * (1 - rate) / boards)
        excl = float(res["excluded"].mean()) if design != "null" else float("nan")  # type: ignore[arg-type]
        print(
            f"| {design} | {runs} | {n} | {prev} | {boards} | {rate:.3f} ± {se:.3f} | "
            f"{float(res['size'].mean()):.1f} | {'—' if math.isnan(excl) else f'{excl:.3f}'} |",  # type: ignore[arg-type]
            flush=True,
        )
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
