"""Coverage of 95 % intervals with and without ``example=`` / ``cluster=``.

    python benchmarks/calibration_cluster.py [--quick] [--out docs/calibration_cluster.md]

Two kinds of dependent rows, each simulated as ``R`` replicate boards counted
by one :func:`batcheval.evaluate` call (one group per replicate):

*Clustered examples* (``cluster=``): ``C`` clusters of ``size`` rows (say,
questions about one passage). Labels are fair coins; a row's prediction is
right with the cluster's probability ``q_c ~ Beta`` of mean 0.8 and
intra-cluster correlation ``ICC`` (ICC = 0: ``q_c = 0.8``). The truth:
informedness 0.6, recall 0.8.

*Repeated examples* (``example=`` with ``pool="seed"``): ``C`` examples, each
scored under ``seeds`` seeds. An example's base prediction is right with
probability 0.8; each seed keeps it with probability ``keep``, else flips a
coin. The truth: informedness ``2·(0.8·keep + 0.5·(1 − keep)) − 1``.

For each point the table gives the coverage of the true value by the
interval that treats rows as independent (``naive``) and by the
cluster-robust one (``clustered``), with ``R``, the Monte-Carlo standard
error of a coverage of 0.95 (``sqrt(0.95·0.05/R)``) and the median widths.
Replicates per point: ``R = clip(4e6 / rows per replicate, 200, 2000)``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

import batcheval as be
from batcheval.errors import BatchevalWarning

ROWS = 4_000_000


def _reps(rows_per_rep: int, quick: bool) -> int:
    top = 400 if quick else 2000
    return int(np.clip(ROWS // rows_per_rep, 200, top))


def _coverage(out: pl.DataFrame, name: str, truth: float) -> tuple[float, float]:
    low, high = out[f"{name}_ci_low"].to_numpy(), out[f"{name}_ci_high"].to_numpy()
    ok = np.isfinite(low) & np.isfinite(high)
    return float(np.mean(ok & (low <= truth) & (high >= truth))), float(np.median(high - low))


def clustered_examples(
    rng: np.random.Generator, reps: int, n_clusters: int, size: int, icc: float
) -> pl.DataFrame:
    if icc > 0:
        a, b = 0.8 * (1 - icc) / icc, 0.2 * (1 - icc) / icc
        q = np.repeat(rng.beta(a, b, (reps, n_clusters)), size, axis=1)
    else:
        q = np.full((reps, n_clusters * size), 0.8)
    label = rng.integers(0, 2, q.shape, dtype=np.int8)
    pred = np.where(rng.random(q.shape) < q, label, 1 - label).astype(np.int8)
    return pl.DataFrame({
        "rep": np.repeat(np.arange(reps, dtype=np.int32), n_clusters * size),
        "passage": np.tile(np.repeat(np.arange(n_clusters, dtype=np.int32), size), reps),
        "label": label.ravel(), "prediction": pred.ravel(),
    })  # fmt: skip


def repeated_examples(rng: np.random.Generator, reps: int, n: int, seeds: int, keep: float) -> pl.DataFrame:
    label = rng.integers(0, 2, (reps, n), dtype=np.int8)
    base = np.where(rng.random((reps, n)) < 0.8, label, 1 - label)
    parts = []
    for seed in range(seeds):
        kept = rng.random((reps, n)) < keep
        pred = np.where(kept, base, rng.integers(0, 2, (reps, n))).astype(np.int8)
        parts.append(pl.DataFrame({
            "rep": np.repeat(np.arange(reps, dtype=np.int32), n), "seed": np.full(reps * n, seed, np.int16),
            "example": np.tile(np.arange(n, dtype=np.int32), reps),
            "label": label.ravel(), "prediction": pred.ravel(),
        }))  # fmt: skip
    return pl.concat(parts)


def _row(point: dict, reps: int, name: str, naive: tuple[float, float], clus: tuple[float, float]) -> dict:
    return {
        **point, "R": reps, "mc_se": round(float(np.sqrt(0.95 * 0.05 / reps)), 4), "measure": name,
        "naive": naive[0], "clustered": clus[0], "width_naive": naive[1], "width_clustered": clus[1],
    }  # fmt: skip


def run(quick: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(2024)
    sizes, iccs = (1, 3, 10), (0.0, 0.1, 0.3, 0.5)
    ns = (20, 100, 500) if quick else (20, 100, 500, 2000)
    rows = []
    for size in sizes:
        for icc in iccs:
            for c in ns:
                reps = _reps(c * size, quick)
                df = clustered_examples(rng, reps, c, size, icc)
                names = ["informedness", "recall"]
                naive = be.evaluate(df, by="rep", measures=names, ci=0.95)
                clus = be.evaluate(df, by="rep", measures=names, ci=0.95, cluster="passage")
                point = {"size": size, "icc": icc, "clusters": c}
                for name, truth in (("informedness", 0.6), ("recall", 0.8)):
                    rows.append(
                        _row(point, reps, name, _coverage(naive, name, truth), _coverage(clus, name, truth))
                    )
                print(rows[-2], file=sys.stderr)
    clustered = pl.DataFrame(rows)
    rows = []
    for seeds in (3, 10):
        for keep in (1.0, 0.9, 0.5):
            for n in ns:
                reps = _reps(n * seeds, quick)
                df = repeated_examples(rng, reps, n, seeds, keep)
                truth = 2 * (0.8 * keep + 0.5 * (1 - keep)) - 1
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", BatchevalWarning)
                    naive = be.evaluate(
                        df, by=["rep", "seed"], pool="seed", measures=["informedness"], ci=0.95
                    )
                clus = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=["informedness"], ci=0.95,
                                   example="example")  # fmt: skip
                point = {"seeds": seeds, "keep": keep, "examples": n}
                rows.append(_row(point, reps, "informedness", _coverage(naive, "informedness", truth),
                                 _coverage(clus, "informedness", truth)))  # fmt: skip
                print(rows[-1], file=sys.stderr)
    return clustered, pl.DataFrame(rows)


def _markdown(frame: pl.DataFrame) -> str:
    cols = frame.columns
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(" ---: " for _ in cols) + "|"]
    for row in frame.iter_rows():
        cells = [f"{v:.3f}" if isinstance(v, float) and not isinstance(v, bool) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer replicates and no 2,000-cluster points")
    parser.add_argument("--out", default=None, help="write the markdown tables to this file")
    args = parser.parse_args()
    start = time.perf_counter()
    clustered, repeated = run(args.quick)
    elapsed = time.perf_counter() - start
    text = (
        f"### Clustered examples (`cluster=`), 95 % intervals\n\n{_markdown(clustered)}\n\n"
        f"### Repeated examples (`example=`, pooled over seeds), informedness, 95 % intervals\n\n"
        f"{_markdown(repeated)}\n\n({elapsed:.0f} s)\n"
    )
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
