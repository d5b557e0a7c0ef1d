"""Calibration of ``be.compare_auc``'s interval of a paired AUC difference (``diff_ci_low/high``).

Two runs score the same examples: within each class their scores are bivariate normal with
correlation ``rho`` (0.3 or 0.8: two unlike models, or two settings of one), the positives shifted
so that run 1 (the reference) has true AUC ``θ1`` and run 2 ``θ2``. Each grid point simulates
``--groups`` boards (default 2,000) and reports, for the interval of ``AUC2 − AUC1`` at 95 %, the
share of boards whose interval holds the true ``θ2 − θ1`` (binomial standard error near 0.95:
0.0049 at 2,000) and the median width, of:

- ``MOVER``: ``be.compare_auc``'s interval, Zou and Donner's (2008) MOVER of the two runs' own
  ``be.auc(ci=)`` intervals (:func:`batcheval.scores.auc_interval.difference_interval`), computed
  here in numpy from DeLong's placements, the boards at once; the first ``--check`` boards of
  every point are also run through ``be.compare_auc(reference=1)`` and must agree to 1e-9;
- ``Wald``: ``diff ± z·se_diff`` with DeLong's standard error (pROC's ``roc.test`` interval, the
  interval before stop 66), with its share of zero-width intervals.

At the points with equal true AUCs it also reports the size of the paired test at 0.05 and 0.01:
``p_value`` (z over the unbiased variance of the difference, Student's t on Welch–Satterthwaite
degrees of freedom; the unbiased variance by its definition over the m·n pairs here), z over
DeLong's variance on the same t (stop 67) and on the normal tail (pROC), with their power over the
points with unequal AUCs; a point above 0.06 is simulated again with ``--again`` boards. The
same z over the unbiased variance is also referred to three other tails (``TAILS``: the normal, and
Student's t with m + n − 2 and with min(m, n) − 1 degrees of freedom), to show whether the size
below the band is the tail's doing.

Score models: ``binormal`` (both classes standard deviation 1), ``wide`` (positives' standard
deviation 2), ``ordinal`` (the binormal scores cut into five ordered categories: many ties),
``mixed`` (run 2's positives spread twice as wide as run 1's: at equal AUCs the two runs' scores are
not exchangeable, which a test of equal AUCs must allow; the other models' null points are).

    python benchmarks/calibration_auc_difference.py     # docs/calibration_auc_difference.md's tables
    python benchmarks/calibration_auc_difference.py --quick
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
import polars as pl
from scipy import special, stats

import batcheval as be
from batcheval.scores.auc_interval import auc_interval

SIZES = [(5, 5), (10, 10), (20, 20), (30, 30), (50, 50), (100, 100), (10, 40), (20, 180)]
PAIRS = [(0.7, 0.7), (0.8, 0.8), (0.9, 0.9), (0.99, 0.99), (0.75, 0.85), (0.9, 0.95), (0.95, 0.99)]
RHOS = [0.3, 0.8]
MODELS = ["binormal", "wide", "ordinal", "mixed"]
BAND = (0.935, 0.965)
Z = float(special.ndtri(0.975))
CUTS = np.array([-0.5, 0.25, 1.0, 1.75])
TAILS = ("the normal tail", "Student's t, m + n − 2 df", "Student's t, min(m, n) − 1 df")


def draw(model: str, m: int, n: int, thetas: tuple[float, float], rho: float, boards: int, rng):
    """Positive (boards, m, 2) and negative (boards, n, 2) scores of the two runs, and their true AUCs."""
    cov = [[1.0, rho], [rho, 1.0]]
    sd = {"wide": np.array([2.0, 2.0]), "mixed": np.array([1.0, 2.0])}.get(model, np.ones(2))
    shift = np.sqrt(1 + sd * sd) * special.ndtri(np.asarray(thetas))
    neg = rng.multivariate_normal([0.0, 0.0], cov, size=(boards, n))
    pos = rng.multivariate_normal([0.0, 0.0], cov, size=(boards, m)) * sd + shift
    if model != "ordinal":
        return pos, neg, np.asarray(thetas, dtype=np.float64)
    truth = []
    for d in shift:
        p = np.diff(np.r_[0.0, stats.norm.cdf(CUTS - d), 1.0])
        q = np.diff(np.r_[0.0, stats.norm.cdf(CUTS), 1.0])
        truth.append(sum(p[k] * (q[:k].sum() + 0.5 * q[k]) for k in range(5)))
    return np.digitize(pos, CUTS) * 1.0, np.digitize(neg, CUTS) * 1.0, np.asarray(truth)


def _truth(model: str, thetas: tuple[float, float]) -> float:
    """The reference run's true AUC at ``thetas`` (the ordinal model's differs from θ1)."""
    return float(draw(model, 2, 2, thetas, 0.3, 1, np.random.default_rng(0))[2][0])


def placements(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each board's AUC and DeLong's placements of its positives and negatives (midranks)."""
    m = pos.shape[1]
    ranks = stats.rankdata(np.concatenate([pos, neg], axis=1), axis=1)
    v10 = (ranks[:, :m] - stats.rankdata(pos, axis=1)) / neg.shape[1]
    v01 = 1 - (ranks[:, m:] - stats.rankdata(neg, axis=1)) / m
    return v10.mean(1), v10, v01


def intervals(pos: np.ndarray, neg: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    boards, m, n = pos.shape[0], pos.shape[1], neg.shape[1]
    a1, p1, q1 = placements(pos[..., 0], neg[..., 0])
    a2, p2, q2 = placements(pos[..., 1], neg[..., 1])

    def cov(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        k = a.shape[1]
        return ((a - a.mean(1, keepdims=True)) * (b - b.mean(1, keepdims=True))).sum(1) / ((k - 1) * k)

    v1, v2 = cov(p1, p1) + cov(q1, q1), cov(p2, p2) + cov(q2, q2)
    vd = cov(p2 - p1, p2 - p1) + cov(q2 - q1, q2 - q1)
    diff, se = a2 - a1, np.sqrt(vd)
    ones = np.ones(boards)
    l1, u1 = auc_interval(a1, v1, m * ones, n * ones, Z)
    l2, u2 = auc_interval(a2, v2, m * ones, n * ones, Z)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where((v1 > 0) & (v2 > 0), (v1 + v2 - vd) / (2 * np.sqrt(v1 * v2)), 0.0)
    r = np.clip(np.nan_to_num(r), -1.0, 1.0)
    low = diff - np.sqrt(np.maximum((a2 - l2) ** 2 + (u1 - a1) ** 2 - 2 * r * (a2 - l2) * (u1 - a1), 0))
    high = diff + np.sqrt(np.maximum((u2 - a2) ** 2 + (a1 - l1) ** 2 - 2 * r * (u2 - a2) * (a1 - l1), 0))
    # the paired test: z over the unbiased variance on Student's t with Welch–Satterthwaite degrees
    # of freedom (compare_auc's p_value), z over DeLong's variance on the same t (the p_value of
    # stop 67) and on the normal tail (pROC's roc.test, the p_value before stop 67)
    parts = cov(p2 - p1, p2 - p1), cov(q2 - q1, q2 - q1)
    vu = np.maximum(unbiased(pos, neg, diff, parts), vd / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(diff) / se
        df = vd * vd / (parts[0] ** 2 / (m - 1) + parts[1] ** 2 / (n - 1))
        p_u = 2 * special.stdtr(df, -np.abs(diff) / np.sqrt(vu))
        p_t, p_z = 2 * special.stdtr(df, -z), 2 * special.ndtr(-z)
        # other tails for the same z over the unbiased variance (TAILS): is the conservative size
        # near AUC 1 a matter of the t tail's degrees of freedom?
        z_u = -np.abs(diff) / np.sqrt(vu)
        tails = (
            2 * special.ndtr(z_u),
            2 * special.stdtr(m + n - 2, z_u),
            2 * special.stdtr(min(m, n) - 1, z_u),
        )
    # no spread: a difference of 0 is p 1; any other takes the swap test in compare_auc (rare here)
    p_u, p_t, p_z, *tails = (
        np.where(vd > 0, p, np.where(diff == 0, 1.0, np.nan)) for p in (p_u, p_t, p_z, *tails)
    )
    return {
        "MOVER": (low, high),
        "Wald": (diff - Z * se, diff + Z * se),
        "p": (p_u, p_t, p_z),
        "tails": tails,
    }


def unbiased(pos: np.ndarray, neg: np.ndarray, diff: np.ndarray, parts: tuple) -> np.ndarray:
    """The unbiased variance of each board's AUC2 − AUC1 by its definition over the m·n pairs:
    DeLong's ``parts`` less ``W/(mn)``, ``W = (Q − (m − 1)·part10 − (n − 1)·part01) / ((1 − 1/m)(1 −
    1/n))`` with ``Q`` the pairs' mean square ``δ = ψ2 − ψ1`` less ``diff²``
    (:func:`batcheval.inference.delong.unbiased_variance`, which floors it at half of DeLong's), a
    block of boards at a time."""
    m, n = pos.shape[1], neg.shape[1]
    square = np.empty(pos.shape[0])
    step = max(1, (1 << 22) // (m * n))
    for lo in range(0, pos.shape[0], step):
        p, q = pos[lo : lo + step, :, None, :], neg[lo : lo + step, None, :, :]
        psi = (p > q) + 0.5 * (p == q)
        square[lo : lo + step] = ((psi[..., 1] - psi[..., 0]) ** 2).mean(axis=(1, 2))
    w = (square - diff * diff - (m - 1) * parts[0] - (n - 1) * parts[1]) / ((1 - 1 / m) * (1 - 1 / n))
    return parts[0] + parts[1] - w / (m * n)


def check(pos: np.ndarray, neg: np.ndarray, got: dict, boards: int) -> None:
    """The library's interval and p-value on the first ``boards`` boards equal the numpy ones."""
    m, n = pos.shape[1], neg.shape[1]
    for b in range(min(boards, pos.shape[0])):
        scores = np.concatenate([pos[b], neg[b]])  # (m + n, 2)
        df = pl.DataFrame({
            "run": np.repeat([1, 2], m + n), "example": np.tile(np.arange(m + n), 2),
            "label": np.tile(np.r_[np.ones(m), np.zeros(n)].astype(np.int64), 2),
            "score": np.concatenate([scores[:, 0], scores[:, 1]]),
        })  # fmt: skip
        row = be.compare_auc(df, reference=1).filter(pl.col("run") == 2).row(0, named=True)
        want = (got["MOVER"][0][b], got["MOVER"][1][b])
        ends = (row["diff_ci_low"], row["diff_ci_high"])
        assert np.allclose(ends, want, rtol=1e-9, atol=1e-12), (row, want)
        p = got["p"][0][b]
        assert np.isnan(p) or np.isclose(row["p_value"], p, rtol=1e-9, atol=1e-15), (row, p)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, default=2000)
    ap.add_argument("--check", type=int, default=5, help="boards per point run through be.compare_auc")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--again", type=int, default=20000, help="boards at a null point simulated again")
    ap.add_argument("--quick", action="store_true", help="a few points, 200 boards: a smoke test")
    args = ap.parse_args(argv)
    groups = 200 if args.quick else args.groups
    sizes, pairs = (SIZES[1:3], [PAIRS[0], *PAIRS[4:6]]) if args.quick else (SIZES, PAIRS)
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    print(f"## Coverage of the 95 % interval of AUC2 − AUC1 ({groups:,} boards a point, seed {args.seed})\n")
    print("`*`: both classes hold 10 or more examples and the coverage is outside [0.935, 0.965].")
    summary: dict[str, list] = {}
    sizes_at: list[tuple] = []
    tails_at: list[tuple] = []
    power_at: list[list[float]] = []
    for model in MODELS:
        print(f"\n### {model}\n")
        print("| positives | negatives | AUC1 | AUC2 | ρ | MOVER coverage | MOVER width | Wald coverage "
              "| Wald width | Wald zero-width |")  # fmt: skip
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for m, n in sizes:
            for thetas in pairs:
                for rho in RHOS:
                    pos, neg, truth = draw(model, m, n, thetas, rho, groups, rng)
                    got = intervals(pos, neg)
                    check(pos, neg, got, args.check)
                    tests, tails = got.pop("p"), got.pop("tails")
                    rates = [float(np.mean(p < a)) for p in tests for a in (0.05, 0.01)]
                    if thetas[0] == thetas[1]:  # the null: the size of the three tests
                        sizes_at.append((model, m, n, truth[0], rho, *rates))
                        tails_at.append((min(m, n), rates[0], *(float(np.mean(p < 0.05)) for p in tails)))
                    elif min(m, n) >= 10:
                        power_at.append(rates[::2])
                    true_diff = truth[1] - truth[0]
                    cov = {k: float(((lo <= true_diff) & (true_diff <= hi)).mean())
                           for k, (lo, hi) in got.items()}  # fmt: skip
                    width = {k: float(np.median(hi - lo)) for k, (lo, hi) in got.items()}
                    zero = float(np.mean(got["Wald"][0] == got["Wald"][1]))
                    flag = "" if min(m, n) < 10 or BAND[0] <= cov["MOVER"] <= BAND[1] else " *"
                    print(f"| {m} | {n} | {truth[0]:.4f} | {truth[1]:.4f} | {rho} | {cov['MOVER']:.4f}{flag} "
                          f"| {width['MOVER']:.4f} | {cov['Wald']:.4f} | {width['Wald']:.4f} "
                          f"| {zero:.3f} |")  # fmt: skip
                    summary.setdefault(model, []).append((min(m, n), cov["MOVER"], cov["Wald"]))
    print("\n### Summary\n")
    print("Points with both classes of 10 or more (`in`: coverage in [0.935, 0.965]), and the lowest "
          "coverage there and from 5 examples per class.\n")  # fmt: skip
    print("| model | points | MOVER in | below | above | lowest | from 5 "
          "| Wald in | below | above | lowest | from 5 |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for model, rows in summary.items():
        cells = []
        for k in (1, 2):
            big = [r[k] for r in rows if r[0] >= 10]
            lowest = min(r[k] for r in rows)
            cells += [sum(BAND[0] <= c <= BAND[1] for c in big), sum(c < BAND[0] for c in big),
                      sum(c > BAND[1] for c in big), f"{min(big):.4f}", f"{lowest:.4f}"]  # fmt: skip
        big_n = sum(r[0] >= 10 for r in rows)
        print(f"| {model} | {big_n} | " + " | ".join(str(c) for c in cells) + " |")
    print("\n## Size of the paired test of AUC1 = AUC2 (`p_value`)\n")
    print("Rejection rates at the points above with equal true AUCs of three versions of DeLong's paired "
          "test: `p_value` (z over the unbiased variance, on Student's t with Welch–Satterthwaite "
          "degrees of freedom; since stop 68), z over DeLong's variance on the same t (the p_value of "
          "stop 67), and on the normal tail (pROC's roc.test, the p_value before). `*`: both classes "
          "hold 10 or more examples and the size at 0.05 is outside [0.04, 0.06].\n")  # fmt: skip
    print("| model | positives | negatives | AUC | ρ | `p_value`, 0.05 | 0.01 | DeLong t, 0.05 | 0.01 "
          "| normal, 0.05 | 0.01 |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for model, m, n, auc, rho, *rates in sizes_at:
        cells = [f"{v:.4f}" + ("" if k % 2 or min(m, n) < 10 or 0.04 <= v <= 0.06 else " *")
                 for k, v in enumerate(rates)]  # fmt: skip
        print(f"| {model} | {m} | {n} | {auc:.4f} | {rho} | " + " | ".join(cells) + " |")
    names = ("z over the unbiased variance, t (`p_value`)", "z over DeLong's variance, t (stop 67)",
             "z over DeLong's variance, normal (pROC)")  # fmt: skip
    print("\n| test | points ≥ 10 | in [0.04, 0.06] | below | above | largest ≥ 10 | largest "
          "| largest at 0.01 | power |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for t, name in enumerate(names):
        k = 5 + 2 * t
        big = [r[k] for r in sizes_at if min(r[1], r[2]) >= 10]
        power = np.mean([r[t] for r in power_at]) if power_at else float("nan")
        print(f"| {name} | {len(big)} | {sum(0.04 <= v <= 0.06 for v in big)} | {sum(v < 0.04 for v in big)} "
              f"| {sum(v > 0.06 for v in big)} | {max(big):.4f} | {max(r[k] for r in sizes_at):.4f} "
              f"| {max(r[k + 1] for r in sizes_at):.4f} | {power:.3f} |")  # fmt: skip
    print("\npower: the mean rejection rate at 0.05 over the points with unequal true AUCs and both "
          "classes ≥ 10.")  # fmt: skip
    print("\nThe same z over the unbiased variance on other tails, at the same null points (both classes "
          "≥ 10), against `p_value`'s: a lighter tail moves points from below the band to above it, a "
          "heavier one the other way.\n")  # fmt: skip
    print("| tail | in [0.04, 0.06] | below | above | largest |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for t, name in enumerate(("Student's t, Welch–Satterthwaite df (`p_value`)", *TAILS)):
        big = [r[1 + t] for r in tails_at if r[0] >= 10]
        print(f"| {name} | {sum(0.04 <= v <= 0.06 for v in big)} | {sum(v < 0.04 for v in big)} "
              f"| {sum(v > 0.06 for v in big)} | {max(big):.4f} |")  # fmt: skip
    high = [r for r in sizes_at if r[5] > 0.06]
    if high and not args.quick:
        print(f"\nPoints where `p_value`'s size is above 0.06, simulated again with {args.again:,} boards "
              f"(seed {args.seed + 1}; binomial standard error near 0.05: "
              f"{np.sqrt(0.05 * 0.95 / args.again):.4f}):\n")  # fmt: skip
        print("| model | positives | negatives | AUC | ρ | `p_value`, 0.05 | 0.01 | DeLong t, 0.05 |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        again = np.random.default_rng(args.seed + 1)
        for model, m, n, auc, rho, *_ in high:
            theta = next(p for p in pairs if p[0] == p[1] and abs(_truth(model, p) - auc) < 1e-12)
            rates = np.zeros(4)
            for _ in range(args.again // 2000):
                pos, neg, _truths = draw(model, m, n, theta, rho, 2000, again)
                p_u, p_t, _p_z = intervals(pos, neg)["p"]
                rates += [np.mean(p_u < 0.05), np.mean(p_u < 0.01), np.mean(p_t < 0.05), 0.0]
            rates /= args.again // 2000
            print(f"| {model} | {m} | {n} | {auc:.4f} | {rho} | {rates[0]:.4f} | {rates[1]:.4f} "
                  f"| {rates[2]:.4f} |")  # fmt: skip
    print(f"\n(`python benchmarks/calibration_auc_difference.py`; {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
