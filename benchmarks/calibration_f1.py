"""Coverage of the F1 interval that ``evaluate(..., ci=0.95, measures=[..., "f1"])`` gives.

Before, a named ``f1`` got the multinomial percentile bootstrap (1,000 replicates, the default
``n_boot``), as every measure outside ``interval_measures(2)`` does; ``ci_method="bootstrap"``
still gives it. Now it gets ``intervals.f1_interval`` (*Jaccard–Wilson*): F1 = 2J/(1 + J) with
J = tp/(tp + fp + fn). Given m = tp + fp + fn (the rows that are not true negatives), tp is exactly
Binomial(m, J) under multinomial sampling, so the modified Wilson interval of tp/m
(``modified_wilson(..., x_star=1)``, the recall interval's) mapped through the increasing
2J/(1 + J) is an interval for F1 with the binomial interval's coverage. This measures both over a
grid of n, prevalence and true informedness ``B`` (recall ``(1 + B)/2``, fallout ``(1 − B)/2``;
the four cells multinomial, as in ``calibration_intervals.py``).

    python benchmarks/calibration_f1.py --tables 2000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from batcheval.inference import intervals as iv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    t = args.tables
    print(f"{t} tables per point, seed {args.seed}; Monte-Carlo standard error near 0.95: "
          f"{np.sqrt(0.95 * 0.05 / t):.4f}\n")  # fmt: skip
    print("| n | prevalence | B | F1 | bootstrap: coverage | zero width | median width "
          "| Jaccard–Wilson: coverage | median width |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    start = time.process_time()
    mcc_rows = []
    for n in (20, 60, 200, 1000):
        for prev in (0.5, 0.1):
            for b in (0.3, 0.8, 0.95):
                tpr, fpr = (1 + b) / 2, (1 - b) / 2
                probs = [(1 - prev) * (1 - fpr), (1 - prev) * fpr, prev * (1 - tpr), prev * tpr]
                cells = rng.multinomial(n, probs, t).reshape(t, 2, 2).astype(np.int64)
                ppv = prev * tpr / (prev * tpr + (1 - prev) * fpr)
                truth = 2 * ppv * tpr / (ppv + tpr)
                row = [f"{n}", f"{prev}", f"{b}", f"{truth:.4f}"]
                boot = iv.intervals(cells, ["f1"], 0.95, "bootstrap", n_boot=1000, seed=1)["f1"]
                for k, (low, high) in enumerate((boot, iv.f1_interval(cells, 0.95))):
                    ok = np.isfinite(low) & np.isfinite(high)
                    row.append(f"{np.mean((low[ok] <= truth) & (truth <= high[ok])):.3f}")
                    if k == 0:
                        row.append(f"{np.mean(high[ok] == low[ok]):.3f}")
                    row.append(f"{np.median(high[ok] - low[ok]):.3f}")
                print("| " + " | ".join(row) + " |", flush=True)
                # binary MCC = Powers' correlation sign·sqrt(B·M): the bootstrap against its closed form
                bias = prev * tpr + (1 - prev) * fpr
                truth = np.sqrt(b * (prev * tpr / bias - prev * (1 - tpr) / (1 - bias)))
                row = [f"{n}", f"{prev}", f"{b}", f"{truth:.4f}"]
                boot = iv.intervals(cells, ["mcc"], 0.95, "bootstrap", n_boot=1000, seed=1)["mcc"]
                for k, (low, high) in enumerate(
                    (boot, iv.intervals(cells, ["correlation"], 0.95)["correlation"])
                ):
                    ok = np.isfinite(low) & np.isfinite(high)
                    row.append(f"{np.mean((low[ok] <= truth) & (truth <= high[ok])):.3f}")
                    if k == 0:
                        row.append(f"{np.mean(high[ok] == low[ok]):.3f}")
                    row.append(f"{np.median(high[ok] - low[ok]):.3f}")
                mcc_rows.append("| " + " | ".join(row) + " |")
    print("\nBinary `mcc` (the same tables):\n")
    print("| n | prevalence | B | MCC | bootstrap: coverage | zero width | median width "
          "| correlation's interval: coverage | median width |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(mcc_rows))
    print(f"\nCPU {time.process_time() - start:.0f} s")


if __name__ == "__main__":
    main()
