"""Calibration of the best set on paired boards with a constant baseline (issue 20, item 1).

A constant run (one that predicts one class for every example: a majority baseline) has
correlation and markedness 0 by convention but no spread, so the max statistic of the best set
cannot test it. Until stop 47 it stayed in the best set (``p_best`` 1) whatever the board; since
then it leaves the set where its own test against the leader (``p_vs_leader``, the larger of
the swap test and the normal one) rejects at Bonferroni's level over the ``R − 1`` others
(:func:`batcheval.inference.selection.exclude_loose`). This simulates paired boards (one shared
test set of n examples with ``round(prevalence · n)`` positives) of R runs beside one constant
run predicting the majority class, and reports:

- ``null``: every run uninformed (B = 0: a coin flip per example), so every run, the constant
  one included, has true correlation and markedness 0 and is best: ``fwer`` is P(the constant
  run is outside ``could_be_best``);
- ``below``: every run anti-informed (B = −0.1: it flips the label with probability 0.1, else
  flips a coin), so the constant run alone is best, and the leader is a run that beat 0 by
  chance: ``fwer`` as above, the case the Bonferroni argument has to hold in;
- ``power``: every run informed (B = 0.5), the constant run far below: ``excluded`` is the
  share of boards whose best set leaves it out (the old rule: 0).

A rate's Monte-Carlo standard error is ``sqrt(p(1 − p)/boards)``.

    python benchmarks/calibration_constant.py --boards 400 --out docs/calibration_constant.md
    python benchmarks/calibration_constant.py --quick   # a smoke test
"""

from __future__ import annotations

import argparse
import math
import os
import time
import warnings

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # small boards: a parallel launch costs more

import numpy as np
import polars as pl

import batcheval as be

DESIGNS = {"null": 0.0, "below": -0.1, "power": 0.5}
#: what the tables show, as docs/calibration_constant.md says it (the same at any seed so far)
READING = """## Reading

Under both nulls the constant run was never lost (the rule is conservative: the two-sided
`p_vs_leader` against the selected leader, at Bonferroni's level over every other run). Its
power is that of `p_vs_leader`, the larger of the swap test and the normal one: certain at
400 examples, low at 20-40, and nil with 10 positives in 100 examples, where the swap test's
null spreads wide (swapping predictions between a constant run and the leader makes neither
constant). The rank intervals stay as wide as before (a constant run could rank anywhere):
this test tells it from the leader only, and the ranks are a family of their own.
"""


def board(b: float, runs: int, n: int, prevalence: float, rng: np.random.Generator) -> pl.DataFrame:
    """``runs`` runs of informedness ``b`` (a negative ``b`` flips the label with probability
    ``|b|``) and a constant run ``"const"`` predicting the majority class, on one test set."""
    y = np.zeros(n, dtype=np.int8)
    y[: max(1, round(prevalence * n))] = 1
    y = rng.permutation(y)
    coin = rng.integers(0, 2, (runs, n), dtype=np.int8)
    informed = rng.random((runs, n)) < abs(b)
    pred = np.where(informed, y if b >= 0 else 1 - y, coin)
    majority = int(y.mean() > 0.5)
    pred = np.vstack([pred, np.full((1, n), majority, dtype=np.int8)])
    names = [f"r{i}" for i in range(runs)] + ["const"]
    return pl.DataFrame({
        "run": np.repeat(names, n),
        "example": np.tile(np.arange(n), runs + 1),
        "label": np.tile(y, runs + 1),
        "prediction": pred.ravel(),
    })  # fmt: skip


def grid(quick: bool) -> list[tuple[str, str, int, int, float]]:
    measures = ("correlation", "markedness")
    if quick:
        return [(d, m, 10, 40, 0.3) for d in DESIGNS for m in measures]
    return [
        (d, m, r, n, p)
        for d in DESIGNS
        for m in measures
        for r in (2, 10, 30)
        for n, p in ((20, 0.5), (40, 0.3), (100, 0.1), (400, 0.5))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=400, help="boards per grid point")
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=None, help="write the markdown table here")
    args = parser.parse_args()
    boards = 20 if args.quick else args.boards
    rows = []
    t0 = time.perf_counter()
    for design, measure, r, n, prev in grid(args.quick):
        rng = np.random.default_rng([args.seed, list(DESIGNS).index(design), len(measure), r, n])
        t1 = time.perf_counter()
        out = []
        for _ in range(boards):
            data = board(DESIGNS[design], r, n, prev, rng)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lb = be.leaderboard(data, measure=measure, example="example", seed=int(rng.integers(1 << 31)))
            out.append(lb.row(by_predicate=pl.col("run") == "const", named=True)["could_be_best"] is False)
        rate = float(np.mean(out))
        se = math.sqrt(rate * (1 - rate) / boards)
        row = {"design": design, "measure": measure, "R": r, "n": n, "prevalence": prev, "boards": boards,
               "excluded": rate, "se": se, "seconds": time.perf_counter() - t1}  # fmt: skip
        rows.append(row)
        print(f"{design:6} {measure:11} R={r:3} n={n:4} prev={prev}: excluded {rate:.3f} ± {row['se']:.3f} "
              f"[{row['seconds']:.0f} s]", flush=True)  # fmt: skip
    print(f"total {time.perf_counter() - t0:.0f} s")
    if args.out:
        write(pl.DataFrame(rows), args)


def write(table: pl.DataFrame, args: argparse.Namespace) -> None:
    lines = [
        "# Calibration of the best set with a constant baseline (paired boards)",
        "",
        "Made by",
        "",
        "```",
        f"python benchmarks/calibration_constant.py --boards {args.boards} --seed {args.seed} "
        f"--out {args.out}",
        "```",
        "",
        "(see the benchmark's docstring for the design). Nominal family-wise error α = 0.05; ± is the",
        "Monte-Carlo standard error. `null` and `below`: the share of boards whose best set lost the",
        "constant run although it is truly best (a family-wise error: at most 0.05 plus Monte-Carlo",
        "error); `power`: the share that excluded it where every other run is far better (before stop 47:",
        "0, it stayed in every best set).",
        "",
    ]
    for design, b in DESIGNS.items():
        part = table.filter(pl.col("design") == design)
        what = "fwer" if design != "power" else "excluded"
        lines += [f"## {design} (B = {b} for every other run)", "",
                  f"| measure | R | n | prevalence | boards | {what} |",
                  "|---|---|---|---|---|---|"]  # fmt: skip
        for row in part.iter_rows(named=True):
            lines.append(
                f"| {row['measure']} | {row['R']} | {row['n']} | {row['prevalence']} | {row['boards']} | "
                f"{row['excluded']:.3f} ± {row['se']:.3f} |"
            )
        lines.append("")
    lines += READING.splitlines()
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
