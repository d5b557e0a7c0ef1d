"""Calibration of the leaderboard's best set and rank intervals for the ratio measures
(``odds_ratio``, ``lr_plus``, ``lr_minus``), which are compared on the log scale
(:mod:`batcheval.inference.ratios`; docs/calibration_leader.md, "Ratio measures").

Global null: every board has R runs of the same true ratio. The labels have
``round(prevalence · n)`` positives; run r predicts positive with probability ``recall_r`` on
a positive and ``fallout_r`` on a negative, independently. ``equal``: every run has recall 0.8 and
fallout 0.3 (odds ratio 9.33, lr_plus 2.67, lr_minus 0.286). ``profiles``: odd and even runs err on
different classes with the same value of the measure (odds ratio 9: recall 0.9, fallout 0.5 or
0.5, 0.1; lr_plus 3: 0.9, 0.3 or 0.6, 0.2; lr_minus 1/3: 0.8, 0.4 or 0.7, 0.1), so they are not
exchangeable. Paired boards score one shared test set (``example=``), unpaired ones one each.

Every run is best, so ``fwer best`` is P(some run with ``could_be_best`` false) and ``fwer rank``
P(some rank interval other than ``[1, R]``: a pair declared different); a run whose measure is
undefined (odds ratio with ``fp·fn = 0``, ...) has no rank and no claim. ``size``: mean best set,
``undefined``: mean share of runs with no value. ``p<0.05``: the share of the rank-2 run's
``p_vs_leader`` at most 0.05 (the test of one run against the leader, not valid under
selection: for reference). ± is the binomial standard error ``sqrt(p(1 − p)/boards)``.

    python benchmarks/calibration_ratio.py --boards 200 --out ratio.md
    python benchmarks/calibration_ratio.py --quick
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
import warnings

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
import polars as pl

import batcheval as be

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calibration_board import frame

#: (recall, fallout) of the two error profiles of each measure, of equal value
PROFILES = {
    "odds_ratio": ((0.9, 0.5), (0.5, 0.1)),
    "lr_plus": ((0.9, 0.3), (0.6, 0.2)),
    "lr_minus": ((0.8, 0.4), (0.7, 0.1)),
}
EQUAL = (0.8, 0.3)


def board(
    r: int, n: int, prevalence: float, paired: bool, design: str, measure: str, rng: np.random.Generator
) -> pl.DataFrame:
    """One row per run × example of a null board."""
    pos = max(1, round(prevalence * n))
    base = np.zeros(n, dtype=np.int8)
    base[:pos] = 1
    y = np.stack([rng.permutation(base)] * r if paired else [rng.permutation(base) for _ in range(r)])
    rates = np.array([EQUAL if design == "equal" else PROFILES[measure][i % 2] for i in range(r)])
    p_one = np.where(y == 1, rates[:, :1], rates[:, 1:])
    pred = (rng.random(y.shape) < p_one).astype(np.int8)
    return frame(y, pred)


def point(
    measure: str,
    paired: bool,
    r: int,
    n: int,
    prevalence: float,
    design: str,
    boards: int,
    seed: int,
    ci_method: str = "wilson_delta",
) -> dict:
    """The error rates of one grid point over ``boards`` seeded boards."""
    rng = np.random.default_rng(seed)
    best = rank = small = 0
    size = undefined = 0.0
    for _ in range(boards):
        df = board(r, n, prevalence, paired, design, measure, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = be.leaderboard(
                df, measure=measure, example="example_id" if paired else None, ci_method=ci_method, n_boot=50
            )
        defined = b.filter(pl.col("rank").is_not_null())
        best += bool((defined["could_be_best"] == False).any())  # noqa: E712
        m = defined.height
        rank += bool(((defined["rank_ci_low"] > 1) | (defined["rank_ci_high"] < m)).any())
        size += defined["could_be_best"].sum()
        undefined += 1 - m / r
        if m >= 2:
            small += bool(defined["p_vs_leader"][1] <= 0.05)
    return {
        "measure": measure, "pairing": "paired" if paired else "unpaired", "design": design, "R": r, "n": n,
        "prevalence": prevalence, "boards": boards, "fwer best": best / boards, "fwer rank": rank / boards,
        "size": size / boards, "undefined": undefined / boards, "p<0.05": small / boards,
    }  # fmt: skip


def fmt_rate(p: float, boards: int) -> str:
    se = math.sqrt(p * (1 - p) / boards)
    return f"{p:.3f} ± {se:.3f}"


def write(rows: list[dict]) -> str:
    head = (
        "| measure | pairing | design | R | n | prevalence | boards | fwer best | fwer rank | size "
        "| undefined | p<0.05 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    body = "".join(
        f"| {x['measure']} | {x['pairing']} | {x['design']} | {x['R']} | {x['n']} | {x['prevalence']} | "
        f"{x['boards']} | {fmt_rate(x['fwer best'], x['boards'])} | "
        f"{fmt_rate(x['fwer rank'], x['boards'])} | "
        f"{x['size']:.1f} | {x['undefined']:.3f} | {x['p<0.05']:.3f} |\n"
        for x in rows
    )
    return head + body


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--n", default="40,200")
    parser.add_argument("--prevalence", default="0.5,0.1")
    parser.add_argument("--measures", default="odds_ratio,lr_plus,lr_minus")
    parser.add_argument("--pairings", default="unpaired,paired")
    parser.add_argument("--designs", default="equal,profiles")
    parser.add_argument("--ci-method", default="wilson_delta")
    parser.add_argument("--quick", action="store_true", help="20 boards, n = 40 only")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if args.quick:
        args.boards, args.n = 20, "40"
    rows = []
    start = time.process_time()
    grid = itertools.product(
        args.measures.split(","), args.pairings.split(","), args.designs.split(","),
        [int(x) for x in args.n.split(",")], [float(x) for x in args.prevalence.split(",")],
    )  # fmt: skip
    for i, (measure, pairing, design, n, prev) in enumerate(grid):
        row = point(measure, pairing == "paired", args.runs, n, prev, design, args.boards, args.seed + i,
                    args.ci_method)  # fmt: skip
        rows.append(row)
        print(
            f"{measure:10} {pairing:8} {design:8} n={n:4} prev={prev}: best {row['fwer best']:.3f} "
            f"rank {row['fwer rank']:.3f} size {row['size']:.1f} undefined {row['undefined']:.3f} "
            f"p<0.05 {row['p<0.05']:.3f}",
            flush=True,
        )
    table = write(rows)
    print(table)
    print(f"CPU {time.process_time() - start:.0f} s")
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
