"""Calibration of ``be.auc(ci=0.95)``: coverage and width of the AUC interval, small n to AUC near 1.

Each grid point simulates ``--groups`` groups (default 2,000) of ``m`` positives and ``n``
negatives, scores them, and runs ``be.auc(by="g", ci=0.95)`` once on all of them. Reported, with
the binomial standard error of a coverage near 0.95 (``sqrt(0.95 · 0.05 / groups)`` = 0.0049):

- ``coverage``: the share of groups whose interval (``roc_auc_ci_low``, ``roc_auc_ci_high``) holds
  the true AUC, and its median width;
- ``Wald``: the same of ``roc_auc ± z·roc_auc_se`` clipped to [0, 1] (pROC's DeLong interval, the
  interval before stop 66), and its share of zero-width intervals.

Score models (true AUC θ = P(positive's score > negative's) + P(tie)/2):

- ``binormal``: negatives N(0, 1), positives N(√2·Φ⁻¹(θ), 1);
- ``wide``: positives with standard deviation 2, ``narrow``: 0.5 (unequal-variance binormal);
- ``ordinal``: the binormal scores cut into five ordered categories (ratings; many ties);
- ``binary``: scores 0 or 1 (a hard classifier: AUC = (1 + informedness)/2).

``--part bootstrap`` compares the median width with that of a 2,000-replicate percentile bootstrap
(positives and negatives resampled apart) at a subset of points, with 200 groups each.

    python benchmarks/calibration_auc.py > docs/calibration_auc.md   # about 5 minutes on 2 cores
    python benchmarks/calibration_auc.py --quick                     # a smoke test
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl
from scipy import special, stats

import batcheval as be

SIZES = [(5, 5), (10, 10), (15, 15), (20, 20), (30, 30), (50, 50), (100, 100), (200, 200),
         (10, 40), (10, 90), (20, 180), (50, 450)]  # fmt: skip
AUCS = [0.5, 0.7, 0.8, 0.9, 0.95, 0.99]
MODELS = ["binormal", "wide", "narrow", "ordinal", "binary"]
LEVEL = 0.95
BAND = (0.935, 0.965)


def draw(model: str, m: int, n: int, theta: float, groups: int, rng: np.random.Generator):
    """Positive and negative scores, (groups, m) and (groups, n), and the true AUC."""
    if model == "binary":
        return (rng.random((groups, m)) < theta) * 1.0, (rng.random((groups, n)) < 1 - theta) * 1.0, theta
    sd = {"wide": 2.0, "narrow": 0.5}.get(model, 1.0)
    shift = np.sqrt(1 + sd * sd) * special.ndtri(theta)
    pos, neg = rng.normal(shift, sd, (groups, m)), rng.normal(0.0, 1.0, (groups, n))
    if model != "ordinal":
        return pos, neg, theta
    cuts = np.array([-0.5, 0.25, 1.0, 1.75]) * max(shift, 0.5)
    p = np.diff(np.r_[0.0, stats.norm.cdf(cuts - shift), 1.0])
    q = np.diff(np.r_[0.0, stats.norm.cdf(cuts), 1.0])
    truth = sum(p[i] * (q[:i].sum() + 0.5 * q[i]) for i in range(5))
    return np.digitize(pos, cuts) * 1.0, np.digitize(neg, cuts) * 1.0, float(truth)


def frame(pos: np.ndarray, neg: np.ndarray) -> pl.DataFrame:
    groups, m = pos.shape
    n = neg.shape[1]
    return pl.DataFrame({
        "g": np.repeat(np.arange(groups), m + n),
        "label": np.tile(np.r_[np.ones(m), np.zeros(n)], groups).astype(np.int64),
        "score": np.hstack([pos, neg]).reshape(-1),
    })  # fmt: skip


def intervals(pos: np.ndarray, neg: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    out = be.auc(frame(pos, neg), by="g", ci=LEVEL).sort("g")
    a, se = out["roc_auc"].to_numpy(), out["roc_auc_se"].to_numpy()
    z = special.ndtri(0.5 + LEVEL / 2)
    return {
        "batcheval": (out["roc_auc_ci_low"].to_numpy(), out["roc_auc_ci_high"].to_numpy()),
        "wald": (np.clip(a - z * se, 0, 1), np.clip(a + z * se, 0, 1)),
    }


def percentile_bootstrap(pos: np.ndarray, neg: np.ndarray, reps: int, rng: np.random.Generator):
    """2.5 % and 97.5 % quantiles of the stratified bootstrap AUC of each group: with multinomial
    weights w, the resampled AUC is wₚᵀ C w_n / (m n), C the pairs' 1, ½, 0 comparison."""
    groups, m = pos.shape
    n = neg.shape[1]
    low, high = np.empty(groups), np.empty(groups)
    for g in range(groups):
        c = (pos[g][:, None] > neg[g][None, :]) + 0.5 * (pos[g][:, None] == neg[g][None, :])
        wp = rng.multinomial(m, np.full(m, 1 / m), size=reps).astype(float)
        wn = rng.multinomial(n, np.full(n, 1 / n), size=reps).astype(float)
        auc = np.einsum("bi,ij,bj->b", wp, c, wn) / (m * n)
        low[g], high[g] = np.quantile(auc, [0.025, 0.975])
    return low, high


def covered(bounds: tuple[np.ndarray, np.ndarray], truth: float) -> float:
    low, high = bounds
    return float(((low <= truth) & (truth <= high)).mean())


def coverage_tables(groups: int, rng: np.random.Generator, quick: bool) -> None:
    sizes, aucs = (SIZES[:2] + SIZES[8:9], AUCS[::2]) if quick else (SIZES, AUCS)
    summary = {}
    for model in MODELS:
        print(f"\n### {model}\n")
        print(
            "| positives | negatives | true AUC | coverage | median width | Wald coverage | Wald width "
            "| Wald zero-width |"
        )
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for m, n in sizes:
            for theta in aucs:
                pos, neg, truth = draw(model, m, n, theta, groups, rng)
                got = intervals(pos, neg)
                cov = {k: covered(v, truth) for k, v in got.items()}
                width = {k: float(np.median(v[1] - v[0])) for k, v in got.items()}
                zero = float(np.mean(got["wald"][1] == got["wald"][0]))
                flag = "" if min(m, n) < 10 or BAND[0] <= cov["batcheval"] <= BAND[1] else " *"
                print(
                    f"| {m} | {n} | {truth:.4f} | {cov['batcheval']:.4f}{flag} | {width['batcheval']:.4f} "
                    f"| {cov['wald']:.4f} | {width['wald']:.4f} | {zero:.3f} |"
                )
                summary.setdefault(model, []).append((min(m, n), cov["batcheval"], cov["wald"]))
    print("\n### Summary\n")
    print(
        "Points with both classes of 10 or more (`in`: coverage in [0.935, 0.965]; `below`, `above`: "
        "outside it), and the lowest coverage from 5 examples per class.\n"
    )
    print(
        "| model | points | in | below | above | lowest | Wald in | Wald below | Wald lowest "
        "| lowest from 5 | Wald lowest from 5 |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for model, rows in summary.items():
        big = [r for r in rows if r[0] >= 10]
        new = [r[1] for r in big]
        old = [r[2] for r in big]
        in_band = [sum(BAND[0] <= c <= BAND[1] for c in x) for x in (new, old)]
        print(
            f"| {model} | {len(big)} | {in_band[0]} | {sum(c < BAND[0] for c in new)} "
            f"| {sum(c > BAND[1] for c in new)} | {min(new):.4f} | {in_band[1]} "
            f"| {sum(c < BAND[0] for c in old)} | {min(old):.4f} "
            f"| {min(r[1] for r in rows):.4f} | {min(r[2] for r in rows):.4f} |"
        )


BOOT_POINTS = [("binormal", 10, 10, 0.7), ("binormal", 20, 20, 0.8), ("binormal", 30, 30, 0.5),
               ("binormal", 20, 20, 0.95), ("binormal", 50, 50, 0.9), ("binormal", 100, 100, 0.95),
               ("binormal", 200, 200, 0.8), ("binormal", 10, 90, 0.8), ("binormal", 20, 180, 0.9),
               ("wide", 10, 40, 0.8), ("wide", 20, 180, 0.95), ("narrow", 20, 180, 0.7),
               ("ordinal", 20, 20, 0.8), ("ordinal", 50, 50, 0.9), ("binary", 30, 30, 0.8)]  # fmt: skip


def bootstrap_table(groups: int, reps: int, rng: np.random.Generator, quick: bool) -> None:
    print(f"\n## Width against a {reps:,}-replicate percentile bootstrap ({groups} groups per point)\n")
    print(
        "| model | positives | negatives | true AUC | bootstrap coverage | bootstrap width | coverage "
        "| width / bootstrap |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for model, m, n, theta in BOOT_POINTS[:3] if quick else BOOT_POINTS:
        pos, neg, truth = draw(model, m, n, theta, groups, rng)
        boot = percentile_bootstrap(pos, neg, reps, rng)
        ours = intervals(pos, neg)["batcheval"]
        bw = float(np.median(boot[1] - boot[0]))
        print(
            f"| {model} | {m} | {n} | {truth:.4f} | {covered(boot, truth):.3f} | {bw:.4f} "
            f"| {covered(ours, truth):.3f} | {float(np.median(ours[1] - ours[0])) / bw:.2f} |"
        )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few points and groups: a smoke test")
    ap.add_argument("--groups", type=int, default=2000)
    ap.add_argument("--part", choices=["coverage", "bootstrap", "all"], default="all")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    groups = 200 if args.quick else args.groups
    t0 = time.perf_counter()
    if args.part in ("coverage", "all"):
        print(f"## Coverage of the 95 % interval ({groups:,} groups per point, seed {args.seed})")
        print("\n`*`: both classes hold 10 or more examples and the coverage is outside [0.935, 0.965].")
        coverage_tables(groups, rng, args.quick)
    if args.part in ("bootstrap", "all"):
        bootstrap_table(50 if args.quick else 200, 200 if args.quick else 2000, rng, args.quick)
    print(f"\n(`python benchmarks/calibration_auc.py`; {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
