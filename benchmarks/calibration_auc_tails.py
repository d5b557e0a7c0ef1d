"""Why ``be.compare_auc``'s ``p_value`` misses its size band, and three more references tried for it
(measured at stop 71, none adopted).

``p_value`` is z = ``AUC2 − AUC1`` over the square root of the unbiased estimate of its variance,
referred to Student's t on Welch–Satterthwaite degrees of freedom (docs/calibration_auc_difference.md).
It is conservative near AUC 1 and with 10 examples in a class, and liberal where run 2's positives
spread twice as wide as run 1's (``mixed``, 20 + 180, AUC 0.9). Four parts, each a markdown table:

- ``tails``: at a few null points, the simulated variance of the difference beside the mean of its
  estimate, the spread of z, its upper quantiles and its rejection rate: is the conservative size
  near AUC 1 a biased variance, or the shape of z?
- ``wild``: a wild bootstrap-t of DeLong's z on the placement differences (each example's component
  of the difference, centred), with Rademacher weights (a sign flip of each example's component)
  and with Mammen's two-point weights, whose third moment 1 carries the components' skewness into
  the reference (Liu 1988; Mammen 1993); two-sided equal-tailed mid-p over ``--draws`` draws.
- ``switch``: the studentized swap test of calibration_auc_permutation.py (each example's two scores
  swapped at random, z recomputed in every permuted sample) used in place of ``p_value`` where the
  Welch–Satterthwaite degrees of freedom fall below a threshold, over every null point of the
  calibration page's grid.
- ``swap``: that swap test at ``mixed`` 20 + 180 and 10 + 90, AUC 0.9, where ``p_value`` is liberal.

    python benchmarks/calibration_auc_tails.py            # all four (about 12 minutes on 2 cores)
    python benchmarks/calibration_auc_tails.py --part wild
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "2")

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from calibration_auc_difference import MODELS, RHOS, SIZES, draw, intervals, placements, unbiased
from calibration_auc_permutation import permutation_p

#: Mammen's (1993) two-point weights: mean 0, variance 1, third moment 1
_ROOT5 = np.sqrt(5.0)
MAMMEN = np.array([-(_ROOT5 - 1) / 2, (_ROOT5 + 1) / 2])
MAMMEN_LOW = (_ROOT5 + 1) / (2 * _ROOT5)

WILD_POINTS = [
    ("binormal", 10, 10, 0.7), ("binormal", 10, 10, 0.9), ("binormal", 10, 40, 0.9),
    ("binormal", 30, 30, 0.99), ("binormal", 100, 100, 0.99), ("wide", 10, 40, 0.8), ("wide", 20, 180, 0.9),
    ("ordinal", 10, 40, 0.99),
    ("mixed", 10, 10, 0.9), ("mixed", 10, 40, 0.8), ("mixed", 10, 40, 0.9), ("mixed", 20, 20, 0.8),
    ("mixed", 30, 30, 0.99), ("mixed", 20, 180, 0.9),
]  # fmt: skip
TAIL_POINTS = [("binormal", 10, 10, 0.9), ("binormal", 30, 30, 0.9), ("binormal", 30, 30, 0.99),
               ("binormal", 100, 100, 0.99), ("mixed", 20, 180, 0.9)]  # fmt: skip
THRESHOLDS = [6, 10, 15, 20, 30]


def components(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each board's ``AUC2 − AUC1`` and its centred placement differences over the positives and the
    negatives (DeLong's structural components of the difference)."""
    a1, p1, q1 = placements(pos[..., 0], neg[..., 0])
    a2, p2, q2 = placements(pos[..., 1], neg[..., 1])
    diff = a2 - a1
    return diff, (p2 - p1) - diff[:, None], (q2 - q1) - diff[:, None]


def delong_z(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The components' mean over DeLong's standard error, along the last axis (±inf with no spread)."""
    m, n = a.shape[-1], b.shape[-1]
    num = a.mean(-1) + b.mean(-1)
    var = ((a - a.mean(-1, keepdims=True)) ** 2).sum(-1) / (m * (m - 1))
    var += ((b - b.mean(-1, keepdims=True)) ** 2).sum(-1) / (n * (n - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, num / np.sqrt(var), np.where(num == 0, 0.0, np.sign(num) * np.inf))


def wild_p(diff, a, b, draws: int, rng, kind: str) -> np.ndarray:
    """Equal-tailed two-sided mid-p of the wild bootstrap-t of each board's DeLong z."""
    m, n = a.shape[1], b.shape[1]
    vd = (a**2).sum(1) / (m * (m - 1)) + (b**2).sum(1) / (n * (n - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(vd > 0, diff / np.sqrt(vd), np.where(diff == 0, 0.0, np.inf))
    below = np.zeros(len(z))
    above = np.zeros(len(z))
    for start in range(0, draws, 100):
        k = min(100, draws - start)

        def weights(shape):
            u = rng.random(shape)
            if kind == "Rademacher":
                return np.where(u < 0.5, -1.0, 1.0)
            return np.where(u < MAMMEN_LOW, MAMMEN[0], MAMMEN[1])

        t = delong_z(a[:, None, :] * weights((len(z), k, m)), b[:, None, :] * weights((len(z), k, n)))
        below += np.sum(t < z[:, None] - 1e-9, 1) + 0.5 * np.sum(np.abs(t - z[:, None]) <= 1e-9, 1)
        above += np.sum(t > z[:, None] + 1e-9, 1) + 0.5 * np.sum(np.abs(t - z[:, None]) <= 1e-9, 1)
    return np.minimum(1.0, 2 * np.minimum(below, above) / draws)


def part_tails(args, rng) -> None:
    print("### The shape of z near AUC 1\n")
    print(f"{args.groups * 2:,} boards a point, ρ = 0.3. `var(diff)`: the simulated variance of the "
          "difference; `E[var est]`: the mean of its unbiased estimate (floored at half of DeLong's, "
          "as `compare_auc` floors it); `corr`: the correlation of diff² with that estimate.\n")  # fmt: skip
    print("| model | positives | negatives | AUC | var(diff) | E[var est] | sd(z) | 95 % of \\|z\\| "
          "| 99 % of \\|z\\| | corr | \\|z\\| > 1.96 | `p_value` < 0.05 |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for model, m, n, auc in TAIL_POINTS:
        pos, neg, _ = draw(model, m, n, (auc, auc), 0.3, args.groups * 2, rng)
        diff, a, b = components(pos, neg)
        parts = (a**2).sum(1) / (m * (m - 1)), (b**2).sum(1) / (n * (n - 1))
        est = np.maximum(unbiased(pos, neg, diff, parts), (parts[0] + parts[1]) / 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            z = diff / np.sqrt(est)
        ok = np.isfinite(z)
        q95, q99 = np.quantile(np.abs(z[ok]), [0.95, 0.99])
        p = intervals(pos, neg)["p"][0]
        print(f"| {model} | {m} | {n} | {auc} | {diff.var():.3g} | {est.mean():.3g} | {z[ok].std():.3f} | "
              f"{q95:.3f} | {q99:.3f} | {np.corrcoef(diff[ok] ** 2, est[ok])[0, 1]:.3f} | "
              f"{np.mean(np.abs(z[ok]) > 1.96):.4f} | {np.mean(p < 0.05):.4f} |", flush=True)  # fmt: skip


def part_wild(args, rng) -> None:
    print("\n### Wild bootstrap-t of DeLong's z\n")
    print(f"Rejection rate at 0.05 under equal true AUCs ({args.groups:,} boards a point, {args.draws} "
          "draws a board).\n")  # fmt: skip
    print("| model | positives | negatives | AUC | ρ | `p_value` | Rademacher | Mammen |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for model, m, n, auc in WILD_POINTS:
        for rho in RHOS:
            pos, neg, _ = draw(model, m, n, (auc, auc), rho, args.groups, rng)
            p = intervals(pos, neg)["p"][0]
            diff, a, b = components(pos, neg)
            rates = [np.mean(p < 0.05)]
            for kind in ("Rademacher", "Mammen"):
                rates.append(np.mean(wild_p(diff, a, b, args.draws, rng, kind) < 0.05))
            print(f"| {model} | {m} | {n} | {auc} | {rho} | " + " | ".join(f"{r:.4f}" for r in rates) + " |",
                  flush=True)  # fmt: skip


def part_switch(args, rng) -> None:
    print("\n### The swap test where the degrees of freedom are few\n")
    print(f"Rejection rate at 0.05 under equal true AUCs ({args.groups:,} boards a point, "
          f"{args.permutations} random swaps a board): `p_value`, and the studentized swap test's mid-p "
          "in its place on the boards whose Welch–Satterthwaite df fall below each threshold; `df`: "
          "their median. Points with both classes ≥ 10.\n")  # fmt: skip
    heads = " | ".join(f"df < {d}" for d in THRESHOLDS)
    print(f"| model | positives | negatives | AUC | ρ | df | `p_value` | {heads} |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |" + " ---: |" * len(THRESHOLDS))
    rows = []
    for model in MODELS:
        for m, n in SIZES:
            for auc in (0.7, 0.8, 0.9, 0.99):
                for rho in RHOS:
                    if min(m, n) < 10:
                        continue
                    pos, neg, _ = draw(model, m, n, (auc, auc), rho, args.groups, rng)
                    p = intervals(pos, neg)["p"][0]
                    _, a, b = components(pos, neg)
                    v10, v01 = (a**2).sum(1) / (m * (m - 1)), (b**2).sum(1) / (n * (n - 1))
                    with np.errstate(invalid="ignore", divide="ignore"):
                        df = np.nan_to_num((v10 + v01) ** 2 / (v10**2 / (m - 1) + v01**2 / (n - 1)))
                    need = np.flatnonzero(df < max(THRESHOLDS))
                    swap = np.full(len(p), np.nan)
                    if need.size:
                        few = (np.ascontiguousarray(pos[need]), np.ascontiguousarray(neg[need]))
                        swap[need] = permutation_p(*few, args.permutations, args.seed)[:, 0]
                    rates = [np.mean(p < 0.05)]
                    rates += [np.mean(np.where(df < d, swap, p) < 0.05) for d in THRESHOLDS]
                    rows.append(rates)
                    print(f"| {model} | {m} | {n} | {auc} | {rho} | {np.median(df):.1f} | "
                          + " | ".join(f"{r:.4f}" for r in rates) + " |", flush=True)  # fmt: skip
    rows = np.array(rows)
    print("\n| rule | in [0.04, 0.06] | below | above | largest |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for k, name in enumerate(["`p_value`"] + [f"swap test where df < {d}" for d in THRESHOLDS]):
        r = rows[:, k]
        counts = f"{np.sum((r >= 0.04) & (r <= 0.06))} | {np.sum(r < 0.04)} | {np.sum(r > 0.06)}"
        print(f"| {name} | {counts} | {r.max():.4f} |")


def part_swap(args, rng) -> None:
    print("\n### The swap test where the runs differ in shape\n")
    print(f"`mixed`, AUC 0.9, {args.groups * 2:,} boards a point, {args.permutations} random swaps "
          "a board.\n")  # fmt: skip
    print("| positives | negatives | ρ | `p_value` | swap test, mid-p |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for m, n in ((20, 180), (10, 90)):
        for rho in RHOS:
            pos, neg, _ = draw("mixed", m, n, (0.9, 0.9), rho, args.groups * 2, rng)
            p = intervals(pos, neg)["p"][0]
            swap = permutation_p(
                np.ascontiguousarray(pos), np.ascontiguousarray(neg), args.permutations, args.seed
            )
            rates = f"{np.mean(p < 0.05):.4f} | {np.mean(swap[:, 0] < 0.05):.4f}"
            print(f"| {m} | {n} | {rho} | {rates} |", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["tails", "wild", "switch", "swap", "all"], default="all")
    ap.add_argument("--groups", type=int, default=2000)
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--permutations", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    parts = {"tails": part_tails, "wild": part_wild, "switch": part_switch, "swap": part_swap}
    for name, run in parts.items():
        if args.part in (name, "all"):
            run(args, np.random.default_rng([args.seed, len(name)]))
    took = time.perf_counter() - t0
    print(f"\n(`python benchmarks/calibration_auc_tails.py --part {args.part}`; {took:.0f} s)")


if __name__ == "__main__":
    main()
