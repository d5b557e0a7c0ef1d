"""Coverage of 95 % intervals, and size of the chance tests, with and without ``example=`` / ``cluster=``.

    python benchmarks/calibration_cluster.py --part coverage [--quick] [--out FILE]
    python benchmarks/calibration_cluster.py --part size [--quick] [--out FILE]
    python benchmarks/calibration_cluster.py --part copied [--quick] [--out FILE]
    python benchmarks/calibration_cluster.py --part skewed [--quick] [--out FILE]
    python benchmarks/calibration_cluster.py --part closed [--quick] [--out FILE]

``--part coverage`` (the intervals):

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
interval that treats rows as independent (``naive``), by batcheval's first
cluster-robust one (``clus_z``: Wald with the CR1 variance, Wilson, both at the
normal quantile; ``clustered_intervals(..., reference="normal")``) and by what
``evaluate`` gives now (``clus_t``: the unclustered interval of the effective
data, divided by the CR2 design effect, at Student's t quantile with Bell and McCaffrey's
degrees of freedom: ``C − 1`` for equal clusters; docs/calibration_cluster.md, "Few
clusters"), with ``R``, the Monte-Carlo standard error of a coverage
of 0.95 (``sqrt(0.95·0.05/R)``), the median widths and ``margin``, the median
over the replicates of the smallest real or predicted class, in examples.
Replicates per point: ``R = clip(1.5e6 / rows per replicate, 200, 2000)``; 10, 20, 40,
100, 500 and 2,000 clusters (the 10 and 40 from a generator of their own).

``--part paired``: the size of a clustered board's ``p_vs_leader`` for two runs of
equal skill (normal reference, as before, against t with ``C − 1`` degrees of freedom).

``--part skewed`` (issue #20; the coverage grid has balanced classes at informedness 0.6):
skewed classes and high informedness, ``R = 1000`` replicates per point (400 with ``--quick``).
*Repeated examples*: ``n`` examples, each positive with probability ``prev``; an example's base
prediction is positive with probability ``tpr`` (a positive) or ``fpr`` (a negative); each of
``seeds`` seeds keeps it with probability ``keep``, else draws afresh from the same rates. The
truth: recall ``tpr``, informedness ``tpr − fpr``. *Clustered examples*: ``C`` clusters of
``size`` rows, each row positive with probability 0.1, its prediction right with the cluster's
probability ``q_c ~ Beta`` of mean 0.95 and intra-cluster correlation ``icc``; the truth:
recall 0.95, informedness 0.9. The table gives the coverage of ``evaluate``'s interval with
``example=`` / ``cluster=`` (``clus_t``), the share of replicates whose lower end is above the
truth (``miss_low``) and whose upper end is below it (``miss_high``), the median width, the
unclustered interval's coverage (``naive``) and ``positives``, the median number of positive
examples (resp. clusters holding a positive row) per replicate. A second table splits recall's
coverage at the repeated points with 10 seeds and ``keep < 1`` by the number of positive
examples whose base prediction is a miss (:func:`_diagnose`), next to a percentile cluster
bootstrap and Wilson with one trial per positive example.

``--part size`` (the chance tests under the null of no association): labels
and predictions independent, each with its own cluster-level rate (Beta of
mean ``prev`` resp. ``bias`` and intra-cluster correlation ``icc``), or, for
repeated examples, an example's label and base prediction drawn
independently and each seed keeping the base prediction with probability
``keep`` (else a fresh draw). ``naive`` is the share of ``p_informedness``
below 0.05 counting rows, ``clustered`` the same with ``cluster=`` /
``example=`` (the clustered chance test), ``clustered_01`` at 0.01;
``mc_se`` is ``sqrt(0.05·0.95/R)``; ``margin`` the median over replicates of
the smallest margin counted in clusters (the number of clusters holding a
row of the rarest real or predicted class); ``R = clip(6e6 / rows per replicate, 1000, 2000)``.
Replicates whose table has one
class in a margin (no test: p = 1) count as not rejected.

``--part copied`` (the chance tests when seeds repeat a cluster's rows): the clustered
null of ``--part size``, ``C`` clusters of 5 rows, each row scored under ``copies`` seeds
pooled with ``pool="seed"`` and ``cluster="passage"`` but no ``example=``. A seed keeps the
row's prediction with probability ``keep`` (1: exact copies), else draws a fresh one from
the cluster's rate. The columns are those of ``--part size``; ``R`` as there, counting the
copies.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

import batcheval as be
from batcheval.errors import BatchevalWarning
from batcheval.inference import clustered as _clustered

ROWS = 1_500_000
#: the size part: R = clip(SIZE_ROWS / rows per replicate, 1000, 2000)
SIZE_ROWS = 6_000_000


def _reps(rows_per_rep: int, quick: bool, rows: int = ROWS, bottom: int = 200) -> int:
    top = 400 if quick else 2000
    return int(np.clip(rows // rows_per_rep, min(bottom, top), top))


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
    return _seeded(rng, label, base, seeds, keep, lambda: rng.integers(0, 2, (reps, n)), "example")


def _seeded(rng: np.random.Generator, label: np.ndarray, base: np.ndarray, seeds: int, keep: float,
            fresh: Callable[[], np.ndarray], unit: str) -> pl.DataFrame:  # fmt: skip
    """``seeds`` scorings of the ``[reps, n]`` examples: each keeps its ``base`` prediction with
    probability ``keep``, else takes ``fresh()``'s; ``unit`` names the example id column."""
    reps, n = label.shape
    parts = []
    for seed in range(seeds):
        kept = rng.random((reps, n)) < keep
        pred = np.where(kept, base, fresh()).astype(np.int8)
        parts.append(pl.DataFrame({
            "rep": np.repeat(np.arange(reps, dtype=np.int32), n), "seed": np.full(reps * n, seed, np.int16),
            unit: np.tile(np.arange(n, dtype=np.int32), reps),
            "label": label.ravel(), "prediction": pred.ravel(),
        }))  # fmt: skip
    return pl.concat(parts)


def _normal_intervals(df: pl.DataFrame, by: list[str] | str, pool: list[str], units: list[str],
                      names: list[str]) -> pl.DataFrame:  # fmt: skip
    """The cluster-robust intervals with the normal quantile (batcheval before the t quantile)."""
    table = be.ContingencyTable.from_frame(df, by=by)
    if pool:
        table = table.pool(pool)
    cells = _clustered.cluster_cells(df, table.by, units, "label", "prediction", table)
    out = _clustered.clustered_intervals(np.asarray(table.counts), cells, names, 0.95, reference="normal")
    return pl.DataFrame(
        {f"{n}_ci_{side}": v for n, (lo, hi) in out.items() for side, v in (("low", lo), ("high", hi))}
    )


def _row(point: dict, reps: int, name: str, naive: tuple[float, float], normal: tuple[float, float],
         clus: tuple[float, float]) -> dict:  # fmt: skip
    return {
        **point, "R": reps, "mc_se": round(float(np.sqrt(0.95 * 0.05 / reps)), 4), "measure": name,
        "naive": naive[0], "clus_z": normal[0], "clus_t": clus[0], "width_naive": naive[1],
        "width_clus_z": normal[1], "width_clus_t": clus[1],
    }  # fmt: skip


def _rates(
    rng: np.random.Generator, mean: float, icc: float, shape: tuple[int, int], size: int
) -> np.ndarray:
    if icc > 0:
        a, b = mean * (1 - icc) / icc, (1 - mean) * (1 - icc) / icc
        return np.repeat(rng.beta(a, b, shape), size, axis=1)
    return np.full((shape[0], shape[1] * size), mean)


def null_clustered(rng: np.random.Generator, reps: int, n_clusters: int, size: int, icc: float, prev: float,
                   bias: float) -> pl.DataFrame:  # fmt: skip
    """Labels and predictions independent, each with its own cluster-level rate."""
    shape = (reps, n_clusters)
    label = (rng.random((reps, n_clusters * size)) < _rates(rng, prev, icc, shape, size)).astype(np.int8)
    pred = (rng.random((reps, n_clusters * size)) < _rates(rng, bias, icc, shape, size)).astype(np.int8)
    return pl.DataFrame({
        "rep": np.repeat(np.arange(reps, dtype=np.int32), n_clusters * size),
        "passage": np.tile(np.repeat(np.arange(n_clusters, dtype=np.int32), size), reps),
        "label": label.ravel(), "prediction": pred.ravel(),
    })  # fmt: skip


def null_repeated(rng: np.random.Generator, reps: int, n: int, seeds: int, keep: float, prev: float,
                  bias: float) -> pl.DataFrame:  # fmt: skip
    """An example's label and base prediction independent; each seed keeps the base prediction
    with probability ``keep``, else draws a fresh one."""
    label = (rng.random((reps, n)) < prev).astype(np.int8)
    base = rng.random((reps, n)) < bias
    return _seeded(rng, label, base, seeds, keep, lambda: rng.random((reps, n)) < bias, "passage")


def null_copied(rng: np.random.Generator, reps: int, n_clusters: int, size: int, icc: float, prev: float,
                bias: float, copies: int, keep: float) -> pl.DataFrame:  # fmt: skip
    """:func:`null_clustered`'s rows scored under ``copies`` seeds, each keeping a row's
    prediction with probability ``keep``, else drawing afresh from the row's cluster rate."""
    shape = (reps, n_clusters)
    label = (rng.random((reps, n_clusters * size)) < _rates(rng, prev, icc, shape, size)).astype(np.int8)
    rate = _rates(rng, bias, icc, shape, size)
    base = rng.random(rate.shape) < rate
    df = _seeded(rng, label, base, copies, keep, lambda: rng.random(rate.shape) < rate, "row")
    return df.with_columns(passage=pl.col("row") // size)


def run_copied(quick: bool) -> pl.DataFrame:
    """Size of the clustered chance test with seeds that repeat a cluster's rows, given
    ``cluster=`` and ``pool=`` but no ``example=``."""
    rng = np.random.default_rng(2026)
    rows = []
    points = [(copies, keep, icc, c, prev, bias)
              for copies, keep in ((2, 1.0), (5, 1.0), (3, 0.5))
              for icc in (0.1, 0.5)
              for c in ((20, 100) if quick else (20, 100, 500))
              for prev, bias in ((0.5, 0.5), (0.1, 0.1))]  # fmt: skip
    for copies, keep, icc, c, prev, bias in points:
        reps = _reps(c * 5 * copies, quick, SIZE_ROWS, 1000)
        df = null_copied(rng, reps, c, 5, icc, prev, bias, copies, keep)
        point = {"copies": copies, "keep": keep, "icc": icc, "clusters": c, "prev": prev, "bias": bias}
        rows.append(_size_row(point, df, reps, cluster="passage"))
        print(rows[-1], file=sys.stderr)
    return pl.DataFrame(rows)


def run_paired(quick: bool) -> pl.DataFrame:
    """Size of the clustered board's ``p_vs_leader`` for two runs of equal skill on shared
    clusters (a right prediction with the cluster's Beta probability of mean 0.8, shared by
    both runs): the normal reference against t with ``C − 1`` degrees of freedom."""
    from scipy import special

    rng = np.random.default_rng(2026)
    rows = []
    for size in (1, 5):
        for icc in (0.0, 0.3):
            for c in (20, 100) if quick else (20, 50, 100):
                reps = 1000 if quick else 4000
                q = _rates(rng, 0.8, icc, (reps, c), size)
                label = rng.integers(0, 2, q.shape, dtype=np.int8)
                frames = []
                for run in range(2):
                    pred = np.where(rng.random(q.shape) < q, label, 1 - label).astype(np.int8)
                    frames.append(pl.DataFrame({
                        "rep": np.repeat(np.arange(reps, dtype=np.int32), c * size), "run": np.int8(run),
                        "passage": np.tile(np.repeat(np.arange(c, dtype=np.int32), size), reps),
                        "label": label.ravel(), "prediction": pred.ravel(),
                    }))  # fmt: skip
                df = pl.concat(frames)
                table = be.ContingencyTable.from_frame(df, by=["rep", "run"])
                keys = ["rep", "run"]
                cells = _clustered.cluster_cells(df, keys, ["passage"], "label", "prediction", table)
                counts = np.asarray(table.counts)
                partner = np.arange(len(table)) ^ 1  # rows 2r and 2r + 1 are one board
                value = be.ContingencyTable(table.keys, table.classes, counts).measures(["informedness"])
                value = value["informedness"].to_numpy()
                se = _clustered.paired_cluster_se(counts, cells, "informedness", partner)
                diff = (value - value[partner])[::2]
                z = np.abs(diff) / se[::2]
                p_z = special.erfc(z / np.sqrt(2.0))
                n_clusters = _clustered.paired_cluster_count(cells, partner)[::2]
                p_t = _clustered.cluster_t_p(diff, se[::2], n_clusters)
                rows.append({
                    "size": size, "icc": icc, "clusters": c, "R": reps,
                    "mc_se": round(float(np.sqrt(0.05 * 0.95 / reps)), 4),
                    "normal": float(np.mean(np.nan_to_num(p_z, nan=1.0) < 0.05)),
                    "t": float(np.mean(np.nan_to_num(p_t, nan=1.0) < 0.05)),
                })  # fmt: skip
                print(rows[-1], file=sys.stderr)
    return pl.DataFrame(rows)


def _margin(df: pl.DataFrame) -> float:
    """Median over replicates of the smallest margin counted in clusters."""
    per = []
    for col in ("label", "prediction"):
        for v in (0, 1):
            per.append(
                df.filter(pl.col(col) == v).group_by("rep").agg(pl.col("passage").n_unique().alias("m"))
            )
    reps = df.select(pl.col("rep").unique())
    joined = reps
    for i, frame in enumerate(per):
        joined = joined.join(frame.rename({"m": f"m{i}"}), on="rep", how="left")
    smallest = joined.select(pl.min_horizontal(pl.exclude("rep").fill_null(0))).to_series().to_numpy()
    return float(np.median(smallest))


def _size(out: pl.DataFrame, alpha: float) -> float:
    p = out["p_informedness"].to_numpy()
    return float(np.mean(np.nan_to_num(p, nan=1.0) < alpha))


def _size_row(point: dict, df: pl.DataFrame, reps: int, **unit: str) -> dict:
    """A row of the size tables: the point, its margin and replicates, and the rates at which
    ``p_informedness`` rejects counting rows and with ``unit`` (``cluster=`` or ``example=``),
    pooled over the seeds where ``df`` has them."""
    keys = {"by": ["rep", "seed"], "pool": "seed"} if "seed" in df.columns else {"by": "rep"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BatchevalWarning)  # the warning about pooled seeds
        naive = be.evaluate(df, measures=["p_informedness"], **keys)
        clus = be.evaluate(df, measures=["p_informedness"], **keys, **unit)
    return {
        **point, "margin": _margin(df), "R": reps, "mc_se": round(float(np.sqrt(0.05 * 0.95 / reps)), 4),
        "naive": _size(naive, 0.05), "clustered": _size(clus, 0.05), "clustered_01": _size(clus, 0.01),
    }  # fmt: skip


def run_size(quick: bool) -> pl.DataFrame:
    rng = np.random.default_rng(2025)
    ns = (20, 100, 500) if quick else (20, 100, 500, 2000)
    rows = []
    skews = ((0.5, 0.5), (0.1, 0.1), (0.5, 0.1))
    points = [
        ("clustered", size, icc, c, prev, bias)
        for size in (1, 3, 10)
        for icc in (0.0, 0.1, 0.5)
        for c in ns
        for prev, bias in skews
        if not (size == 1 and icc > 0)
    ]
    points += [("repeated", seeds, keep, c, prev, bias) for seeds in (3, 10) for keep in (1.0, 0.5)
               for c in ns for prev, bias in skews]  # fmt: skip
    for layout, size, dep, c, prev, bias in points:
        reps = _reps(c * size, quick, SIZE_ROWS, 1000)
        point = {"layout": layout, "size": size, "icc_or_keep": dep, "clusters": c, "prev": prev,
                 "bias": bias}  # fmt: skip
        if layout == "clustered":
            rows.append(_size_row(point, null_clustered(rng, reps, c, size, dep, prev, bias), reps,
                                  cluster="passage"))  # fmt: skip
        else:
            rows.append(_size_row(point, null_repeated(rng, reps, c, size, dep, prev, bias), reps,
                                  example="passage"))  # fmt: skip
        print(rows[-1], file=sys.stderr)
    return pl.DataFrame(rows)


def _smallest_margin(df: pl.DataFrame, by: list[str], unit: str, per: int) -> float:
    """Median over the replicates of the smallest of the real and predicted class sizes, in
    examples: rows over ``per`` (the seeds that score each example; 1 for ``cluster=``)."""
    sizes = [df.group_by([*by, col]).len() for col in ("label", "prediction")]
    smallest = []
    for frame, col in zip(sizes, ("label", "prediction"), strict=True):
        wide = frame.pivot(on=col, index=by, values="len").fill_null(0).sort(by)  # both in rep order
        smallest.append(wide.select(pl.min_horizontal(pl.exclude(by))).to_series().to_numpy())
    return float(np.median(np.minimum(*smallest))) / per


def run(quick: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(2024)
    sizes, iccs = (1, 3, 10), (0.0, 0.1, 0.3, 0.5)
    ns = (20, 100, 500) if quick else (20, 100, 500, 2000)
    # the few-clusters points (issue #20): 10 and 40 clusters next to 20, with their own seed so
    # that the points above keep the draws they had before these were added
    few = () if quick else (10, 40)
    few_rng = np.random.default_rng(2027)
    rows = []
    for size in sizes:
        for icc in iccs:
            for c in sorted(ns + few):
                reps = _reps(c * size, quick)
                df = clustered_examples(few_rng if c in few else rng, reps, c, size, icc)
                names = ["informedness", "recall"]
                naive = be.evaluate(df, by="rep", measures=names, ci=0.95)
                clus = be.evaluate(df, by="rep", measures=names, ci=0.95, cluster="passage")
                normal = _normal_intervals(df, "rep", [], ["passage"], names)
                point = {"size": size, "icc": icc, "clusters": c,
                         "margin": _smallest_margin(df, ["rep"], "passage", 1)}  # fmt: skip
                for name, truth in (("informedness", 0.6), ("recall", 0.8)):
                    cover = [_coverage(out, name, truth) for out in (naive, normal, clus)]
                    rows.append(_row(point, reps, name, *cover))
                print(rows[-2], file=sys.stderr)
    clustered = pl.DataFrame(rows)
    rows = []
    for seeds in (3, 10):
        for keep in (1.0, 0.9, 0.5):
            for n in sorted(ns + few):
                reps = _reps(n * seeds, quick)
                df = repeated_examples(few_rng if n in few else rng, reps, n, seeds, keep)
                truth = 2 * (0.8 * keep + 0.5 * (1 - keep)) - 1
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", BatchevalWarning)
                    naive = be.evaluate(
                        df, by=["rep", "seed"], pool="seed", measures=["informedness"], ci=0.95
                    )
                clus = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=["informedness"], ci=0.95,
                                   example="example")  # fmt: skip
                normal = _normal_intervals(df, ["rep", "seed"], ["seed"], ["example"], ["informedness"])
                point = {"seeds": seeds, "keep": keep, "examples": n,
                         "margin": _smallest_margin(df, ["rep"], "example", seeds)}  # fmt: skip
                rows.append(_row(point, reps, "informedness", _coverage(naive, "informedness", truth),
                                 _coverage(normal, "informedness", truth),
                                 _coverage(clus, "informedness", truth)))  # fmt: skip
                print(rows[-1], file=sys.stderr)
    return clustered, pl.DataFrame(rows)


#: ``--part closed``: the measures whose clustered interval is a closed form of another's, and
#: their truth at a prediction right with probability ``a`` on fair-coin labels (tp = a/2,
#: fp = fn = (1 − a)/2): jaccard ``a/(2 − a)``, f1 ``a``, mcc (binary correlation) ``2a − 1``
CLOSED = {"jaccard": lambda a: a / (2 - a), "f1": lambda a: a, "mcc": lambda a: 2 * a - 1}


def run_closed(quick: bool) -> pl.DataFrame:
    """Coverage of the clustered intervals of binary f1, jaccard and mcc (stop 43: before,
    ``example=`` / ``cluster=`` dropped them): the coverage grid's clustered and repeated
    layouts, 10 to 500 clusters, beside the unclustered interval of the same rows."""
    rng = np.random.default_rng(2043)
    names = list(CLOSED)
    counts = (20, 100) if quick else (10, 20, 40, 100, 500)
    rows = []
    points = [("clustered", size, icc) for size in (3, 10) for icc in (0.0, 0.1, 0.3, 0.5)]
    points += [("repeated", seeds, keep) for seeds in (3, 10) for keep in (1.0, 0.9, 0.5)]
    for layout, size, dep in points:
        for c in counts:
            reps = _reps(c * size, quick)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", BatchevalWarning)
                if layout == "clustered":
                    df = clustered_examples(rng, reps, c, size, dep)
                    naive = be.evaluate(df, by="rep", measures=names, ci=0.95)
                    clus = be.evaluate(df, by="rep", measures=names, ci=0.95, cluster="passage")
                    a = 0.8
                else:
                    df = repeated_examples(rng, reps, c, size, dep)
                    naive = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=names, ci=0.95)
                    clus = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=names, ci=0.95,
                                       example="example")  # fmt: skip
                    a = 0.8 * dep + 0.5 * (1 - dep)
            for name, truth in CLOSED.items():
                (naive_cover, _), (cover, width) = (
                    _coverage(naive, name, truth(a)),
                    _coverage(clus, name, truth(a)),
                )
                rows.append({
                    "layout": layout, "size_or_seeds": size, "icc_or_keep": dep, "clusters": c, "R": reps,
                    "mc_se": round(float(np.sqrt(0.05 * 0.95 / reps)), 4), "measure": name,
                    "naive": round(naive_cover, 4), "clustered": round(cover, 4), "width": round(width, 4),
                })  # fmt: skip
            print(rows[-1], file=sys.stderr)
    return pl.DataFrame(rows)


#: the repeated-examples points of ``--part skewed``: (examples, seeds, keep, prev, tpr, fpr)
SKEWED_REPEATED = (
    (100, 3, 0.9, 0.3, 0.9, 0.05),
    (100, 10, 0.9, 0.3, 0.9, 0.05),
    (200, 3, 0.5, 0.3, 0.95, 0.02),
    (200, 10, 1.0, 0.1, 0.9, 0.05),
    (400, 3, 0.9, 0.1, 0.96, 0.01),
    (400, 3, 0.9, 0.1, 0.85, 0.05),
    (400, 10, 0.5, 0.1, 0.9, 0.03),
    (400, 10, 1.0, 0.05, 0.9, 0.02),
    (1000, 3, 0.9, 0.05, 0.97, 0.005),
    (1000, 3, 1.0, 0.2, 0.9, 0.05),
    (1000, 10, 0.9, 0.05, 0.97, 0.005),
    (1000, 10, 1.0, 0.05, 0.97, 0.005),
    (1000, 10, 0.5, 0.05, 0.97, 0.005),
    (1000, 10, 0.9, 0.1, 0.85, 0.05),
)
#: the clustered-examples points of ``--part skewed``: (clusters, size, icc)
SKEWED_CLUSTERED = ((20, 10, 0.1), (100, 10, 0.1), (100, 3, 0.3), (500, 3, 0.3), (20, 30, 0.3))


def _misses(out: pl.DataFrame, name: str, truth: float) -> dict:
    """Coverage of ``truth`` split by the side it is missed on, and the median width."""
    low, high = out[f"{name}_ci_low"].to_numpy(), out[f"{name}_ci_high"].to_numpy()
    above, below = low > truth, high < truth
    return {"clus_t": float(np.mean(np.isfinite(low) & np.isfinite(high) & ~above & ~below)),
            "miss_low": float(np.mean(above)), "miss_high": float(np.mean(below)),
            "width_clus_t": float(np.median(high - low))}  # fmt: skip


def _skewed_rows(point: dict, reps: int, naive: pl.DataFrame, clus: pl.DataFrame, positives: float,
                 truths: dict[str, float]) -> list[dict]:  # fmt: skip
    return [
        {**point, "positives": positives, "R": reps, "mc_se": round(float(np.sqrt(0.95 * 0.05 / reps)), 4),
         "measure": name, "truth": truth, "naive": _coverage(naive, name, truth)[0],
         **_misses(clus, name, truth)}
        for name, truth in truths.items()
    ]  # fmt: skip


def _diagnose(point: dict, label: np.ndarray, base: np.ndarray, df: pl.DataFrame, clus: pl.DataFrame,
              tpr: float) -> list[dict]:  # fmt: skip
    """Recall's coverage split by the number of positive examples whose base prediction is a
    miss (the misses every seed repeats with probability ``keep``), next to a percentile
    cluster bootstrap (1000 resamples of the positive examples) and Wilson with as many
    trials as positive examples (t with ``C − 1`` df: every example one trial)."""
    from scipy import stats

    reps, n = label.shape
    seeds = df.height // (reps * n)
    hits = df["prediction"].to_numpy().reshape(seeds, reps, n).sum(0)  # a positive's hits over seeds
    out = clus.sort("rep")
    low, high = out["recall_ci_low"].to_numpy(), out["recall_ci_high"].to_numpy()
    covered = (low <= tpr) & (tpr <= high)
    boot_rng = np.random.default_rng(7)
    persistent, deff, boot, whole = (np.empty(reps) for _ in range(4))
    for r in range(reps):
        h = hits[r][label[r] == 1].astype(np.float64)
        c, total = len(h), len(h) * seeds
        p = h.sum() / total
        persistent[r] = np.sum((label[r] == 1) & (base[r] == 0))
        # recall's CR2 design effect by hand, as in design_effects: V_c/(V_r + V_c/N)
        v_c = np.sum((h - seeds * p) ** 2) / (1.0 - seeds / total)
        v_r = np.sum(h * (1 - p) ** 2 + (seeds - h) * p**2)
        deff[r] = v_c / (v_r + v_c / total) if v_r > 0 else np.nan
        lo, hi = np.quantile(h[boot_rng.integers(0, c, (1000, c))].sum(1) / total, [0.025, 0.975])
        boot[r] = lo <= tpr <= hi
        z = stats.t.ppf(0.975, c - 1)
        centre, half = (
            (p * c + z * z / 2) / (c + z * z),
            z * np.sqrt(p * (1 - p) * c + z * z / 4) / (c + z * z),
        )
        whole[r] = centre - half <= tpr <= centre + half
    rows = []
    for k, sel in [("all", np.ones(reps, bool)), *((str(k), persistent == k) for k in range(3)),
                   ("3+", persistent >= 3)]:  # fmt: skip
        rows.append({
            **point, "persistent_misses": k, "share": float(sel.mean()), "clus_t": float(covered[sel].mean()),
            "bootstrap": float(boot[sel].mean()), "wilson_examples": float(whole[sel].mean()),
            "deff": float(np.nanmedian(deff[sel])), "recall": float(np.median(out["recall"].to_numpy()[sel])),
            "low": float(np.median(low[sel])),
        })  # fmt: skip
    return rows


def run_skewed(quick: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Coverage at skewed classes and high informedness (issue #20), repeated and clustered
    examples, and the diagnosis of recall at the repeated points with 10 partly kept seeds."""
    rng = np.random.default_rng(2031)
    reps = 400 if quick else 1000
    names = ["informedness", "recall"]
    rows, diagnosis = [], []
    for n, seeds, keep, prev, tpr, fpr in SKEWED_REPEATED:
        label = (rng.random((reps, n)) < prev).astype(np.int8)

        def fresh(label: np.ndarray = label, tpr: float = tpr, fpr: float = fpr) -> np.ndarray:
            return (rng.random(label.shape) < np.where(label == 1, tpr, fpr)).astype(np.int8)

        base = fresh()
        df = _seeded(rng, label, base, seeds, keep, fresh, "example")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BatchevalWarning)
            naive = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=names, ci=0.95)
        clus = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=names, ci=0.95, example="example")
        point = {"kind": "repeated", "examples": n, "seeds": seeds, "keep": keep, "prev": prev,
                 "size": 1, "icc": None}  # fmt: skip
        rows += _skewed_rows(point, reps, naive, clus, float(np.median(label.sum(1))),
                             {"informedness": tpr - fpr, "recall": tpr})  # fmt: skip
        print(rows[-1], file=sys.stderr)
        if seeds == 10 and keep < 1:
            diagnosis += _diagnose({"examples": n, "keep": keep, "prev": prev, "truth": tpr}, label, base, df,
                                   clus, tpr)  # fmt: skip
    for c, size, icc in SKEWED_CLUSTERED:
        shape = (reps, c * size)
        q = _rates(rng, 0.95, icc, (reps, c), size)
        label = (rng.random(shape) < 0.1).astype(np.int8)
        pred = np.where(rng.random(shape) < q, label, 1 - label).astype(np.int8)
        df = pl.DataFrame({
            "rep": np.repeat(np.arange(reps, dtype=np.int32), c * size),
            "passage": np.tile(np.repeat(np.arange(c, dtype=np.int32), size), reps),
            "label": label.ravel(), "prediction": pred.ravel(),
        })  # fmt: skip
        naive = be.evaluate(df, by="rep", measures=names, ci=0.95)
        clus = be.evaluate(df, by="rep", measures=names, ci=0.95, cluster="passage")
        holding = (label.reshape(reps, c, size).max(2)).sum(1)
        point = {"kind": "clustered", "examples": c, "seeds": 1, "keep": None, "prev": 0.1, "size": size,
                 "icc": icc}  # fmt: skip
        rows += _skewed_rows(point, reps, naive, clus, float(np.median(holding)),
                             {"informedness": 0.9, "recall": 0.95})  # fmt: skip
        print(rows[-1], file=sys.stderr)
    return pl.DataFrame(rows), pl.DataFrame(diagnosis)


def _markdown(frame: pl.DataFrame) -> str:
    cols = frame.columns
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(" ---: " for _ in cols) + "|"]
    for row in frame.iter_rows():
        cells = [f"{v:.3f}" if isinstance(v, float) and not isinstance(v, bool) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("coverage", "size", "copied", "paired", "skewed", "closed"),
                        default="coverage",
                        help="coverage of the intervals, size of the chance tests (with copied rows), "
                             "of the clustered board's paired test, at skewed classes, or of f1, "
                             "jaccard and mcc")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="fewer replicates and no 2,000-cluster points")
    parser.add_argument("--out", default=None, help="write the markdown tables to this file")
    args = parser.parse_args()
    start = time.perf_counter()
    cpu = time.process_time()
    if args.part == "coverage":
        clustered, repeated = run(args.quick)
        text = (
            f"### Clustered examples (`cluster=`), 95 % intervals\n\n{_markdown(clustered)}\n\n"
            f"### Repeated examples (`example=`, pooled over seeds), informedness, 95 % intervals\n\n"
            f"{_markdown(repeated)}\n\n"
        )
    elif args.part == "skewed":
        table, diagnosis = run_skewed(args.quick)
        text = (
            f"### Skewed classes and high informedness, 95 % intervals\n\n{_markdown(table)}\n\n"
            f"### Recall with 10 partly kept seeds, by persistent misses\n\n{_markdown(diagnosis)}\n\n"
        )
    elif args.part == "closed":
        table = _markdown(run_closed(args.quick))
        text = f"### Binary f1, jaccard and mcc, 95 % intervals\n\n{table}\n\n"
    elif args.part == "copied":
        table = _markdown(run_copied(args.quick))
        text = f"### Size of `p_informedness` with copied rows, nominal 0.05\n\n{table}\n\n"
    elif args.part == "paired":
        table = _markdown(run_paired(args.quick))
        text = f"### Size of a clustered board's `p_vs_leader` under the null, nominal 0.05\n\n{table}\n\n"
    else:
        table = _markdown(run_size(args.quick))
        text = f"### Size of `p_informedness` under the null, nominal 0.05\n\n{table}\n\n"
    text += f"({time.perf_counter() - start:.0f} s wall, {time.process_time() - cpu:.0f} s CPU)\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
