"""Calibration of issue 22's comparisons: the level claims that docs/comparing.md makes.

Two simulations, each a seeded Monte-Carlo whose rates carry the standard error
``sqrt(p(1 − p)/reps)`` (``be.auc(ci=)``'s interval has its own, ``calibration_auc.py``):

1. ``be.compare`` under Nadeau and Bengio's correlation model: J = r·k fold differences of a null
   comparison, equicorrelated with ρ = 1/k (the share of data two folds' training sets do not
   share, n_test/n). Reports the size of a 5 % two-sided test, the plain paired t over folds and
   the corrected resampled t.
2. ``be.compare_auc``'s best set under the global null: R runs of the same true AUC (binormal, δ =
   1) score one shared test set whose examples carry an effect every run sees, so the AUCs are
   correlated as on a real leaderboard. Every run is best, so a board errs when
   ``could_be_best`` leaves any run out (``fwer best``); ``fwer holm`` is the naive rule, some run
   with Holm-adjusted ``p_value`` < 0.05 against the data-chosen leader.

    python benchmarks/calibration_compare.py              # the tables in docs/comparing.md
    python benchmarks/calibration_compare.py --quick      # a smoke test
"""

from __future__ import annotations

import argparse
import os
import time

# one thread: each call is small, and a parallel launch costs more than its work on a busy machine
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
import polars as pl

import batcheval as be

ALPHA = 0.05


def _rate(hits: float, reps: int) -> str:
    p = hits / reps
    return f"{p:.4f} ± {np.sqrt(p * (1 - p) / reps):.4f}"


def compare_size(k: int, r: int, reps: int, rng: np.random.Generator) -> tuple[float, float]:
    """Rejection rates of the plain and the corrected t at 5 % over ``reps`` null comparisons."""
    j, rho = r * k, 1.0 / k
    diffs = np.sqrt(rho) * rng.normal(size=(reps, 1)) + np.sqrt(1 - rho) * rng.normal(size=(reps, j))
    n_runs = reps + 1
    values = np.vstack([np.zeros((1, j)), diffs])
    df = pl.DataFrame({
        "run": np.repeat(np.arange(n_runs), j), "repeat": np.tile(np.repeat(np.arange(r), k), n_runs),
        "fold": np.tile(np.arange(k), n_runs * r), "m": values.reshape(-1),
    })  # fmt: skip
    plain = be.compare(df, repeat="repeat", measure="m", reference=0, test="t")
    corrected = be.compare(df, repeat="repeat", measure="m", reference=0)
    return float((plain["p_value"] < ALPHA).sum()), float((corrected["p_value"] < ALPHA).sum())


def best_set_fwer(
    runs: int, n: int, prevalence: float, boards: int, rng: np.random.Generator
) -> tuple[float, float, float]:
    """Boards (of ``boards``) where the best set, or Holm against the leader, drops a best run,
    and the mean size of the best set."""
    pos = max(2, round(prevalence * n))
    lost = holm = size = 0.0
    for _ in range(boards):
        label = rng.permutation(np.r_[np.ones(pos), np.zeros(n - pos)]).astype(np.int64)
        shared = rng.normal(size=n)
        s = shared[None, :] + rng.normal(size=(runs, n)) + label[None, :]
        df = pl.DataFrame({
            "run": np.repeat(np.arange(runs), n), "example": np.tile(np.arange(n), runs),
            "label": np.tile(label, runs), "score": s.reshape(-1),
        })  # fmt: skip
        # the bootstrap's seed drawn from the study's generator: a run repeats to the last digit
        out = be.compare_auc(df, seed=int(rng.integers(2**32)))
        best = out["could_be_best"]
        lost += not best.all()
        size += best.sum()
        holm += bool((out["p_holm"].drop_nans() < ALPHA).any())
    return lost, holm, size / boards


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few replicates: a smoke test")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    reps, boards = (200, 20) if args.quick else (4000, 400)
    t0 = time.perf_counter()

    print(f"## be.compare: size of a 5 % test under Nadeau and Bengio's model ({reps:,} null comparisons)\n")
    print("| k folds | r repeats | J | plain t size | corrected t size |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for k, r in [(2, 5), (5, 1), (5, 3), (10, 1), (10, 10)]:
        plain, corrected = compare_size(k, r, reps, rng)
        print(f"| {k} | {r} | {k * r} | {_rate(plain, reps)} | {_rate(corrected, reps)} |")

    print(f"\n## be.compare_auc: the best set under the global null ({boards:,} boards, α = 0.05)\n")
    print("| runs | examples | positives | fwer best | fwer holm | mean set size |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for runs, n, prevalence in [(2, 60, 0.5), (5, 60, 0.5), (5, 400, 0.1), (20, 200, 0.5), (20, 1000, 0.05)]:
        lost, holm, size = best_set_fwer(runs, n, prevalence, boards, rng)
        pos = max(2, round(prevalence * n))
        print(f"| {runs} | {n} | {pos} | {_rate(lost, boards)} | {_rate(holm, boards)} | {size:.2f} |")
    print(f"\n(seed {args.seed}; {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
