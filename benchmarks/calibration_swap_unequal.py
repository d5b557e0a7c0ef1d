"""Size of the paired markedness p-values when two runs have equal markedness but are not
exchangeable (docs/calibration_leader.md, "Runs of equal markedness that are not exchangeable").

Run A is paper 002's informed-plus-chance model with skill ``B_a`` and a fair guess; run B guesses
positive with probability ``q_b`` and its skill ``B_b`` is solved for the same markedness at the
prevalence, so H0 (equal markedness) holds while the two runs' predictions of an example are not
exchangeable, the null the swap test assumes. Both runs score one shared test set of ``n`` examples
(``max(1, round(prevalence · n))`` positives); ``--boards`` pairs a point. Columns: the share of
pairs with p ≤ 0.05 for the swap test alone (``paired_se.swap_p``) and its mid-p version
(``mid_p=True``), the normal p-values with the paired bootstrap's and the delta method's standard
errors (``paired_se.normal_paired_p``), the larger of the exact swap test and that normal p-value
(what ``p_vs_leader`` was before the mid-p swap test), and ``p_vs_leader`` as the library gives it
under ``paired="bootstrap"`` and ``"delta"`` (the larger of the mid-p swap test and that normal
p-value; ``comparisons.paired_columns``).

    python benchmarks/calibration_swap_unequal.py --boards 2000
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np
from scipy.optimize import brentq

from batcheval.inference import comparisons as _cmp
from batcheval.inference.paired_se import normal_paired_p, swap_p

ALPHA = 0.05
POINTS = ((0.5, 0.5, 0.2), (0.3, 0.5, 0.15), (0.1, 0.6, 0.1))  # prevalence, B_a, q_b
NS = (40, 100, 400, 1000)


def markedness(prevalence: float, skill: float, guess: float) -> float:
    """Population markedness of the informed-plus-chance run."""
    tpr, fpr = skill + (1 - skill) * guess, (1 - skill) * guess
    pp = prevalence * tpr + (1 - prevalence) * fpr
    return prevalence * tpr / pp + (1 - prevalence) * (1 - fpr) / (1 - pp) - 1


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=2000)
    args = parser.parse_args()
    r = args.boards
    t0 = time.process_time()
    print("| prev | B_a | q_b | B_b | markedness | n | swap alone | mid-p swap alone | normal bootstrap "
          "| normal delta | exact swap or normal bootstrap (before) | exact swap or normal delta (before) "
          "| p_vs_leader bootstrap | p_vs_leader delta |")  # fmt: skip
    print("|" + "---|" * 14)
    for prev, ba, qb in POINTS:
        target = markedness(prev, ba, 0.5)
        bb = brentq(lambda b, qb=qb, prev=prev, target=target: markedness(prev, b, qb) - target, 0.0, 0.999)
        for n in NS:
            rng = np.random.default_rng([n, int(prev * 100)])
            y = np.zeros((r, n), dtype=np.int64)
            y[:, : max(1, round(prev * n))] = 1
            pa = np.where(rng.random(y.shape) < ba, y, rng.random(y.shape) < 0.5).astype(np.int64)
            pb = np.where(rng.random(y.shape) < bb, y, rng.random(y.shape) < qb).astype(np.int64)
            code = y * 4 + pa * 2 + pb  # [real, A's prediction, B's prediction]: B against A
            joint = np.stack([(code == c).sum(axis=1) for c in range(8)], axis=1).reshape(-1, 2, 2, 2)
            swap, enumerated = swap_p(joint, "markedness")
            rates = [np.mean(swap <= ALPHA), np.mean(swap_p(joint, "markedness", mid_p=True)[0] <= ALPHA)]
            lib, before = [], []
            for method in ("bootstrap", "delta"):
                got = _cmp.paired_columns(joint, "markedness", 1, 200, 0, method)
                normal = normal_paired_p(
                    joint, "markedness", 1, got["diff_vs_leader"], got["se_vs_leader"], method
                )
                rates.append(np.mean(normal <= ALPHA))
                exact = np.where(enumerated, np.maximum(swap, normal), normal)  # before the mid-p swap test
                before.append(np.mean(exact <= ALPHA))
                lib.append(np.mean(got["p_vs_leader"] <= ALPHA))
            cells = " | ".join(f"{v:.3f}" for v in [*rates, *before, *lib])
            print(f"| {prev} | {ba} | {qb} | {bb:.3f} | {target:.3f} | {n} | {cells} |", flush=True)
    print(f"\n{r} pairs a point; {time.process_time() - t0:.1f} s of CPU")


if __name__ == "__main__":
    main()
