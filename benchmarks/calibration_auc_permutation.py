"""A studentized permutation test of equal paired AUCs, measured against ``be.compare_auc``'s
``p_value`` at the small null points of docs/calibration_auc_difference.md (not adopted).

``p_value`` (z over the unbiased variance of ``AUC2 − AUC1``, Student's t on Welch–Satterthwaite
degrees of freedom) is conservative at small classes and near AUC 1. A permutation test swaps the
two runs' scores of each example at random and refers the same studentized statistic to its
permutation distribution: exact where the two runs' scores are exchangeable, and asymptotically
valid where they are not (Janssen 1997; Chung and Romano 2013), since the statistic is studentized in
every permuted sample. This script measures whether that holds at 10 examples a class, on the
calibration page's score models and its ``mixed`` one, whose runs are not exchangeable at equal
AUCs (run 2's positives spread twice as wide as run 1's).

Each point draws ``--groups`` boards (as calibration_auc_difference.py does) and reports the
rejection rate at 0.05 of ``p_value`` (computed as that page computes it) and of the permutation
test with ``--permutations`` random swaps, its mid-p and its ``(1 + #≥)/(B + 1)`` p-value.

    python benchmarks/calibration_auc_permutation.py     # the section of calibration_auc_difference.md
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "2")

import numpy as np
from numba import njit, prange

sys.path.insert(0, str(Path(__file__).parent))
from calibration_auc_difference import MODELS, draw, intervals

SIZES = [(5, 5), (10, 10), (10, 40), (20, 20), (30, 30)]
AUCS = [0.7, 0.8, 0.9, 0.99]
RHOS = [0.3, 0.8]


@njit(cache=True)
def studentized(p1, p2, q1, q2):
    """``AUC2 − AUC1`` over the square root of its unbiased variance (floored at half of DeLong's,
    as compare_auc floors it), from the m·n pairs; ±inf for a difference with no spread, 0 for none."""
    m, n = p1.size, q1.size
    r10, r01 = np.zeros(m), np.zeros(n)
    total = square = 0.0
    for i in range(m):
        for j in range(n):
            s1 = 1.0 if p1[i] > q1[j] else (0.5 if p1[i] == q1[j] else 0.0)
            s2 = 1.0 if p2[i] > q2[j] else (0.5 if p2[i] == q2[j] else 0.0)
            d = s2 - s1
            r10[i] += d
            r01[j] += d
            total += d
            square += d * d
    diff = total / (m * n)
    v10 = np.sum((r10 / n - diff) ** 2) / ((m - 1) * m)
    v01 = np.sum((r01 / m - diff) ** 2) / ((n - 1) * n)
    delong = v10 + v01
    if delong <= 0:
        return 0.0 if diff == 0 else np.inf * np.sign(diff)
    w = (square / (m * n) - diff * diff - (m - 1) * v10 - (n - 1) * v01) / ((1 - 1 / m) * (1 - 1 / n))
    return diff / np.sqrt(max(delong - w / (m * n), delong / 2))


@njit(parallel=True, cache=True)
def permutation_p(pos, neg, permutations, seed):
    """Each board's mid-p and ``(1 + #≥)/(B + 1)`` p-value of the two-sided permutation test."""
    boards, m, n = pos.shape[0], pos.shape[1], neg.shape[1]
    out = np.empty((boards, 2))
    for b in prange(boards):
        np.random.seed(seed + b)  # noqa: NPY002 (numba's per-thread state)
        t = abs(studentized(pos[b, :, 0], pos[b, :, 1], neg[b, :, 0], neg[b, :, 1]))
        above = ties = 0.0
        p1, p2, q1, q2 = np.empty(m), np.empty(m), np.empty(n), np.empty(n)
        for _ in range(permutations):
            for i in range(m):
                k = np.random.random() < 0.5  # noqa: NPY002
                p1[i], p2[i] = pos[b, i, int(k)], pos[b, i, 1 - int(k)]
            for j in range(n):
                k = np.random.random() < 0.5  # noqa: NPY002
                q1[j], q2[j] = neg[b, j, int(k)], neg[b, j, 1 - int(k)]
            s = abs(studentized(p1, p2, q1, q2))
            if s > t * (1 + 1e-12):
                above += 1
            elif s >= t * (1 - 1e-12):
                ties += 1
        out[b, 0] = (above + 0.5 * ties) / permutations
        out[b, 1] = (1 + above + ties) / (permutations + 1)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, default=2000)
    ap.add_argument("--permutations", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    print(f"Rejection rate at 0.05 under equal true AUCs ({args.groups:,} boards a point, "
          f"{args.permutations} random swaps a board, seed {args.seed}). `*`: both classes hold 10 or "
          "more examples and the rate is outside [0.04, 0.06].\n")  # fmt: skip
    print("| model | positives | negatives | AUC | ρ | `p_value` | permutation, mid-p "
          "| permutation, (1 + #≥)/(B + 1) |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = []
    for model in MODELS:
        for m, n in SIZES:
            for auc in AUCS:
                for rho in RHOS:
                    pos, neg, truth = draw(model, m, n, (auc, auc), rho, args.groups, rng)
                    p_value = intervals(pos, neg)["p"][0]
                    perm = permutation_p(np.ascontiguousarray(pos), np.ascontiguousarray(neg),
                                         args.permutations, args.seed)  # fmt: skip
                    rates = [float(np.mean(p < 0.05)) for p in (p_value, perm[:, 0], perm[:, 1])]
                    rows.append((model, min(m, n), rates))
                    cells = [f"{r:.4f}" + ("" if min(m, n) < 10 or 0.04 <= r <= 0.06 else " *")
                             for r in rates]  # fmt: skip
                    print(f"| {model} | {m} | {n} | {truth[0]:.4f} | {rho} | " + " | ".join(cells) + " |",
                          flush=True)  # fmt: skip
    print("\nPoints with both classes ≥ 10 (the permutation test's exchangeable models and `mixed` apart):\n")
    print("| test | models | points | in [0.04, 0.06] | below | above | largest |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for k, name in enumerate(("`p_value`", "permutation, mid-p", "permutation, (1 + #≥)/(B + 1)")):
        for label, mixed in (("binormal, wide, ordinal", False), ("mixed", True)):
            big = [r[2][k] for r in rows if r[1] >= 10 and (r[0] == "mixed") == mixed]
            counts = [sum(0.04 <= v <= 0.06 for v in big), sum(v < 0.04 for v in big)]
            counts += [sum(v > 0.06 for v in big)]
            cells = " | ".join(map(str, counts))
            print(f"| {name} | {label} | {len(big)} | {cells} | {max(big):.4f} |")
    print(f"\n(`python benchmarks/calibration_auc_permutation.py`; {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
