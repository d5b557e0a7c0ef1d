"""Candidate 95 % intervals of a group's ROC AUC, simulated on the grid of ``calibration_auc.py``.

The study behind the choice of ``be.auc(ci=)``'s interval (docs/calibration_auc.md, "Why these
two"). It computes each candidate from the same draws in plain numpy (DeLong's placements by
midranks), not through batcheval:

- ``wald``: AUC ± z·se (DeLong), clipped to [0, 1], pROC's interval;
- ``logit``: logit(AUC) ± z·se/(AUC(1 − AUC)), no interval for a group whose classes separate;
- ``newcombe5``: Newcombe's (2006) score interval with Hanley and McNeil's variance at N*;
- ``wilson_eff``: Wilson's interval with DeLong's effective sample size AUC(1 − AUC)/var, the
  separated groups' 4mn/(m + n) where the variance is 0; ``wilson_cap``: that size capped there;
- ``floor_f``: the logit interval with DeLong's variance floored at f times Hanley and McNeil's at
  the estimate (f = 0.35, 0.5, 0.75), separated groups half a pair inside;
- ``hull_0.75``: the hull of ``logit`` and Newcombe's score interval with 0.75 of his variance;
- ``floor_0.5_cut``: ``floor_0.5`` within the hull of ``logit`` and ``newcombe5``, ``be.auc``'s;
- ``floor_0.5_t``: ``floor_0.5`` with Student's t on Welch–Satterthwaite degrees of freedom;
- ``floor_0.5_cut_hall``: ``floor_0.5_cut`` moved by Hall's (1992) skewness correction of a
  studentized mean, ``κ3/var·(2z² + 1)/6``, with the AUC's third cumulant from the placements.

    python benchmarks/calibration_auc_candidates.py            # about 30 s
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calibration_auc import AUCS, BAND, MODELS, SIZES, draw

Z = float(special.ndtri(0.975))


def delong(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each row's AUC, the two parts of DeLong's variance, var(V10)/m and var(V01)/n, and the
    AUC's third cumulant from the placements' unbiased third moments, k3(V10)/m² + k3(V01)/n²."""
    m, n = pos.shape[1], neg.shape[1]
    ranks = stats.rankdata(np.hstack([pos, neg]), axis=1)
    v10 = (ranks[:, :m] - stats.rankdata(pos, axis=1)) / n
    v01 = 1 - (ranks[:, m:] - stats.rankdata(neg, axis=1)) / m
    k3 = sum(
        ((v - v.mean(1, keepdims=True)) ** 3).sum(1) * k / ((k - 1) * (k - 2)) / k**2
        for v, k in ((v10, m), (v01, n))
    )
    return v10.mean(1), v10.var(1, ddof=1) / m, v01.var(1, ddof=1) / n, k3


def hanley_mcneil(theta: np.ndarray, m: int, n: int) -> np.ndarray:
    star = (m + n) / 2 - 1
    spread = 1 + star * ((1 - theta) / (2 - theta) + theta / (1 + theta))  # N* for m − 1 and n − 1
    return theta * (1 - theta) / (m * n) * spread


def newcombe_end(a: np.ndarray, m: int, n: int, upward: bool, share: float = 1.0) -> np.ndarray:
    """The root of (t − a)² = z² share·V_HM(t) on one side of a, by bisection."""
    lo, hi = (a.copy(), np.ones_like(a)) if upward else (np.zeros_like(a), a.copy())
    for _ in range(60):
        mid = (lo + hi) / 2
        inside = (mid - a) ** 2 <= Z * Z * share * hanley_mcneil(mid, m, n)
        if upward:
            lo, hi = np.where(inside, mid, lo), np.where(inside, hi, mid)
        else:
            lo, hi = np.where(inside, lo, mid), np.where(inside, mid, hi)
    return (lo + hi) / 2


def wilson(a: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    zz = Z * Z
    centre = (a + zz / (2 * size)) / (1 + zz / size)
    half = Z * np.sqrt(a * (1 - a) / size + zz / (4 * size**2)) / (1 + zz / size)
    return centre - half, centre + half


def floored_logit(a, var, m, n, share, q):
    t = np.clip(a, 0.5 / (m * n), 1 - 0.5 / (m * n))
    half = q * np.sqrt(np.maximum(var, share * hanley_mcneil(t, m, n))) / (t * (1 - t))
    centre = np.log(t / (1 - t))
    low = np.where(a <= 0, 0.0, special.expit(centre - half))
    return low, np.where(a >= 1, 1.0, special.expit(centre + half))


def candidates(a: np.ndarray, v1: np.ndarray, v2: np.ndarray, k3: np.ndarray, m: int, n: int) -> dict:
    var = v1 + v2
    se = np.sqrt(var)
    out = {"wald": (np.clip(a - Z * se, 0, 1), np.clip(a + Z * se, 0, 1))}
    with np.errstate(all="ignore"):
        centre, half = np.log(a / (1 - a)), Z * se / (a * (1 - a))
        separated = (a <= 0) | (a >= 1)
        out["logit"] = (np.where(separated, np.nan, special.expit(centre - half)),
                        np.where(separated, np.nan, special.expit(centre + half)))  # fmt: skip
        out["newcombe5"] = (newcombe_end(a, m, n, False), newcombe_end(a, m, n, True))
        boundary = 4 * m * n / (m + n)
        size = a * (1 - a) / var
        size = np.where((var <= 0) | ~np.isfinite(size), boundary, size)
        out["wilson_eff"] = wilson(a, size)
        out["wilson_cap"] = wilson(a, np.minimum(size, boundary))
        for share in (0.35, 0.5, 0.75):
            out[f"floor_{share}"] = floored_logit(a, var, m, n, share, Z)
        lo, hi = np.where(separated, a, out["logit"][0]), np.where(separated, a, out["logit"][1])
        for share in (0.75, 1.0):
            out[f"hull_{share}"] = (np.minimum(lo, newcombe_end(a, m, n, False, share)),
                                    np.maximum(hi, newcombe_end(a, m, n, True, share)))  # fmt: skip
        f, h = out["floor_0.5"], out.pop("hull_1.0")
        out["floor_0.5_cut"] = (np.maximum(f[0], h[0]), np.minimum(f[1], h[1]))
        # Hall's (1992) first-order correction of a studentized mean for skewness moves both ends
        # by κ3/var·(2z² + 1)/6; the AUC's κ3 and var are sums over the two samples alike
        shift = np.where(var > 0, k3 / var, 0.0) * (2 * Z * Z + 1) / 6
        cut = out["floor_0.5_cut"]
        out["floor_0.5_cut_hall"] = (np.where(a <= 0, 0.0, np.clip(cut[0] + shift, 0, 1)),
                                     np.where(a >= 1, 1.0, np.clip(cut[1] + shift, 0, 1)))  # fmt: skip
        df = var**2 / (v1**2 / (m - 1) + v2**2 / (n - 1))
        df = np.where(np.isfinite(df), np.maximum(df, 1.0), min(m, n) - 1)
        out["floor_0.5_t"] = floored_logit(a, var, m, n, 0.5, stats.t.ppf(0.975, df))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    rows, sides = [], []
    for model in MODELS:
        for m, n in SIZES:
            for theta in AUCS:
                pos, neg, truth = draw(model, m, n, theta, args.groups, rng)
                got = candidates(*delong(pos, neg), m, n)
                rows.append((model, min(m, n), {k: float(((lo <= truth) & (truth <= hi)).mean())
                                                for k, (lo, hi) in got.items()}))  # fmt: skip
                lo, hi = got["floor_0.5_cut"]
                if min(m, n) >= 10 and rows[-1][2]["floor_0.5_cut"] < BAND[0]:
                    sides.append((model, m, n, theta, float((truth < lo).mean()), float((truth > hi).mean()),
                                  rows[-1][2]["floor_0.5_cut_hall"]))  # fmt: skip
    print(
        f"Coverage of 95 % AUC intervals, {args.groups:,} groups per point (seed {args.seed}); points with "
        "both classes ≥ 10 in, below and above [0.935, 0.965], and the lowest coverage there.\n"
    )
    print("| candidate | in | below | above | lowest | lowest at any size |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for k in rows[0][2]:
        big = [r[2][k] for r in rows if r[1] >= 10]
        print(
            f"| {k} | {sum(BAND[0] <= c <= BAND[1] for c in big)} | {sum(c < BAND[0] for c in big)} "
            f"| {sum(c > BAND[1] for c in big)} | {min(big):.4f} | {min(r[2][k] for r in rows):.4f} |"
        )
    print(
        "\nWhere `floor_0.5_cut` (be.auc's interval) is below the band with both classes ≥ 10: the share"
        " of groups whose true AUC lies below its interval and above it, and Hall's candidate there.\n"
    )
    print("| model | positives | negatives | true AUC | truth below | truth above | floor_0.5_cut_hall |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for model, m, n, theta, below, above, hall in sides:
        print(f"| {model} | {m} | {n} | {theta} | {below:.4f} | {above:.4f} | {hall:.4f} |")


if __name__ == "__main__":
    main()
