"""Cluster-robust intervals: examples that repeat across pooled groups, or come in groups.

When a run is pooled over seeds or replicates, every test example appears in
several of the pooled tables; when several questions are asked about one
passage, their answers are not independent. Counting such rows as
independent makes standard errors too small (by about ``√m`` for an example
repeated ``m`` times with the same prediction). Here each *cluster* (an
example given by ``example=``, or a group of examples given by ``cluster=``)
is the independent unit.

The delta method writes a measure ``f(π̂)`` of a table of ``n`` rows as, to
first order, a mean of per-row scores: a row in cell ``(i, j)`` has the score
``u_ij = g_ij − Σ_kl π_kl g_kl`` with ``g = ∂f/∂π``
(:func:`batcheval.inference.intervals.delta_gradient`), and
``f(π̂) − f(π) ≈ Σ_rows u / n``. With rows independent between clusters but
not within them, the variance of that sum is estimated from the per-cluster
score sums ``S_c = Σ_{rows in c} u`` (the sandwich or cluster-robust
estimator; Liang & Zeger 1986, Biometrika 73:13; Cameron & Miller 2015,
J. Human Resources 50:317; for evaluations of language models Miller 2024,
arXiv:2411.00640, eq. 4)

.. math:: \\widehat{\\operatorname{var}} f = \\frac{C}{C - 1}\\,\\frac{1}{n^2} \\sum_{c=1}^{C} S_c^2

over the ``C`` clusters of the group. Each cluster's rows need only be
counted per cell: ``S_c = Σ_ij m_cij u_ij``, from the sparse
group × cluster × cell counts :func:`cluster_cells` makes.

Two identities pin the estimator down (both are tested):

- every cluster of one row: ``Σ S_c² / n² = (Σ π g² − (Σ π g)²)/n``, the
  ordinary delta variance, so the clustered variance is that times
  ``n/(n − 1)``;
- every example repeated ``m`` times with the same prediction and
  ``example=`` naming it: ``S_c`` and ``n`` both grow ``m``-fold, so the
  standard error is that of the data without repeats.

Proportions (recall, precision, accuracy, ...) keep a Wilson interval, with
the *effective* number of trials ``m_eff = p(1 − p)/var_c`` of Korn &
Graubard (1998, Survey Methodology 24:193): the number of independent trials
that would give the clustered variance. ``m_eff`` is capped at the trials
``m`` and, where ``p`` is 0 or 1 (no spread to measure a design effect
from), it is the number of clusters holding a trial, as if each cluster
were one trial. The chance-corrected measures get ``estimate ± z·se``
clipped to [−1, 1], as without clusters.

Paired differences (a run against the leader on the same clusters) use the
difference of the two runs' scaled cluster sums, ``D_c = S_c^run/n_run −
S_c^ref/n_ref`` over the clusters either run has, ``var = C/(C − 1)·Σ D_c²``
(Miller 2024, §4): :func:`paired_cluster_se`.

Examples
--------
Four examples, each scored under three seeds with the same prediction: as
three independent copies the interval is too narrow; with ``example=`` it
is that of the four examples.

>>> import polars as pl
>>> import batcheval as be
>>> one = pl.DataFrame({"example": range(40), "label": [1, 0] * 20,
...                     "prediction": [1, 0, 0, 0] * 10})
>>> df = pl.concat([one.with_columns(seed=pl.lit(s)) for s in range(3)])
>>> import warnings
>>> with warnings.catch_warnings(record=True):  # pooling seeds without example= warns
...     naive = be.evaluate(df, by="seed", pool="seed", measures=["informedness"], ci=0.95)
>>> clus = be.evaluate(df, by="seed", pool="seed", measures=["informedness"], ci=0.95, example="example")
>>> alone = be.evaluate(one, measures=["informedness"], ci=0.95, example="example")
>>> round(naive["informedness_ci_low"][0], 3), round(clus["informedness_ci_low"][0], 3)
(0.377, 0.278)
>>> clus["informedness_ci_low"][0] == alone["informedness_ci_low"][0]
True
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import measures as _measures
from ..core.table import ContingencyTable, one_vs_rest
from ..errors import BatchevalWarning, InvalidArgumentError, UnknownMeasureError
from ..io.frames import select_columns
from . import intervals as _intervals

__all__ = [
    "ClusterCells",
    "add_clustered_intervals",
    "check_cluster_columns",
    "cluster_cells",
    "cluster_scores",
    "cluster_variance",
    "clustered_intervals",
    "paired_cluster_se",
    "select_clustered",
    "warn_independent_rows",
]

#: A pooled key whose name matches this is taken to split the examples (cross-validation
#: folds) rather than to repeat them (seeds, replicates): see :func:`warn_independent_rows`.
FOLD_LIKE = re.compile(r"fold", re.IGNORECASE)


@dataclass(frozen=True)
class ClusterCells:
    """Each (group, cluster) pair's table: ``counts[P, K, K]`` and ``group[P]``, the row of
    the group's table it belongs to; ``cluster[P]`` numbers the clusters across groups
    (the same cluster in two groups has the same number)."""

    counts: np.ndarray
    group: np.ndarray
    cluster: np.ndarray
    n_groups: int

    def one_vs_rest(self) -> ClusterCells:
        """Class-vs-rest tables, group ``g`` class ``k`` becoming group ``g·K + k`` as in
        :func:`batcheval.core.table.one_vs_rest`."""
        k = self.counts.shape[1]
        group = (self.group[:, None] * k + np.arange(k)[None, :]).reshape(-1)
        return ClusterCells(one_vs_rest(self.counts), group, np.repeat(self.cluster, k), self.n_groups * k)


def warn_independent_rows(pool: Sequence[str], stacklevel: int = 3) -> None:
    """Warn that pooling over ``pool`` without ``example=`` treats every row as independent.

    Nothing in the counts tells a seed that repeats the examples from a fold
    that splits them, so the warning goes by name: it is given when a pooled
    key's name does not contain "fold". Pass ``example=`` (or ``cluster=``)
    to have repeats counted once, or filter the warning when the pooled
    groups really hold different examples.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_independent_rows(["seed", "fold"])
    ...     warn_independent_rows(["fold"])
    >>> [str(w.message)[:60] for w in caught]
    ["pool=['seed'] pools groups that may repeat the same examples"]
    """
    repeating = [c for c in pool if not FOLD_LIKE.search(c)]
    if repeating:
        warnings.warn(
            f"pool={repeating} pools groups that may repeat the same examples (seeds, replicates); "
            "the intervals and p-values treat every row as independent. Pass example= (the column "
            "that identifies an example) to count each example as one cluster",
            BatchevalWarning,
            stacklevel=stacklevel,
        )


def check_cluster_columns(df: pl.DataFrame, examples: Sequence[str], clusters: Sequence[str]) -> None:
    """Raise :class:`InvalidArgumentError` for a null in an ``example=`` or ``cluster=``
    column, or a ``cluster=`` value that varies within one example.

    Examples
    --------
    >>> df = pl.DataFrame({"q": [1, 1, 2], "passage": ["a", "b", "b"]})
    >>> check_cluster_columns(df, ["q"], ["passage"])
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: cluster=['passage'] varies within example {'q': 1}: ...
    """
    for what, cols in (("example", examples), ("cluster", clusters)):
        for col in cols:
            nulls = df.get_column(col).null_count()
            if nulls:
                first = int(df.get_column(col).is_null().arg_true()[0])
                raise InvalidArgumentError(
                    f"{what} column {col!r} holds {nulls} null(s) (first at row {first}); every row "
                    f"needs an {what} id, or drop those rows first"
                )
    if examples and clusters:
        per = df.group_by(list(examples)).agg(pl.struct(list(clusters)).unique().alias("__values"))
        bad = per.filter(pl.col("__values").list.len() > 1)
        if bad.height:
            row = bad.sort(list(examples)).row(0, named=True)
            values = [next(iter(v.values())) if len(v) == 1 else v for v in row.pop("__values")][:5]
            raise InvalidArgumentError(
                f"cluster={list(clusters)} varies within example {row}: values {values}; "
                "an example must belong to one cluster"
            )


def cluster_cells(
    df: pl.DataFrame,
    keys: Sequence[str],
    units: Sequence[str],
    label: str,
    prediction: str,
    target: ContingencyTable,
) -> ClusterCells:
    """Count ``df`` per (group of ``keys``) × (cluster of ``units``) × cell.

    ``target`` is the table the intervals are for (its keys are ``keys``, in
    its row order, and its class set is used), so that ``group`` indexes its
    rows. ``df`` holds no nulls in ``units`` (:func:`check_cluster_columns`).

    Examples
    --------
    >>> df = pl.DataFrame({"run": [1, 1, 1, 2], "ex": [0, 0, 1, 0],
    ...                    "label": [1, 1, 0, 1], "prediction": [1, 0, 0, 1]})
    >>> import batcheval as be
    >>> cells = cluster_cells(df, ["run"], ["ex"], "label", "prediction",
    ...                       be.ContingencyTable.from_frame(df, by="run"))
    >>> cells.group.tolist(), cells.cluster.tolist(), cells.counts[0].tolist()
    ([0, 0, 1], [0, 1, 0], [[0, 0], [1, 1]])
    """
    keys = list(keys)
    extra = [c for c in units if c not in keys]
    by = keys + extra
    table = ContingencyTable.from_frame(df, by=by, label=label, prediction=prediction,
                                        classes=target.classes.to_list())  # fmt: skip
    counts = np.asarray(table.counts)
    if extra:
        cluster = _codes(table.keys.select(extra))
    else:  # the unit is a key: each group is one cluster
        cluster = np.zeros(len(table), dtype=np.int64)
    if keys:
        own = table.keys.select(keys).with_row_index("__pair")
        rows = target.keys.select(keys).with_row_index("__row")
        joined = own.join(rows, on=keys, how="left", nulls_equal=True).sort("__pair")
        group = joined.get_column("__row").to_numpy().astype(np.int64)
    else:
        group = np.zeros(len(table), dtype=np.int64)
    return ClusterCells(counts.astype(np.int64), group, cluster, len(target))


def _codes(frame: pl.DataFrame) -> np.ndarray:
    """A dense code per distinct row of ``frame``."""
    return (
        frame.with_row_index("__i")
        .with_columns(pl.struct(frame.columns).rank("dense").alias("__c"))
        .get_column("__c")
        .to_numpy()
        .astype(np.int64)
        - 1
    )


def cluster_scores(
    counts: np.ndarray, cells: ClusterCells, name: str, *, positive: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per (group, cluster) pair the score sum ``S_c``, and per group ``n``, the number of
    clusters ``C`` and where the measure's gradient is undefined.

    ``counts[G, K, K]`` are the groups' tables (the sums of their clusters').
    """
    c = _intervals.cells_last(counts)
    g, undefined = _intervals.gradient_cells_last(c, name, positive=positive)
    n = c.sum(axis=(0, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.sum(c * g, axis=(0, 1)) / n
    # an undefined gradient is NaN or inf somewhere; its groups are masked by the caller
    u = np.nan_to_num(np.moveaxis(g - centre, -1, 0), nan=0.0, posinf=0.0, neginf=0.0)
    s = np.einsum("pij,pij->p", cells.counts.astype(np.float64), u[cells.group])
    n_clusters = np.bincount(cells.group, minlength=len(n)).astype(np.float64)
    return s, n, n_clusters, undefined | (n == 0)


def cluster_variance(counts: np.ndarray, cells: ClusterCells, name: str, *, positive: int = 1) -> np.ndarray:
    """Cluster-robust delta-method variance ``C/(C − 1)·Σ S_c²/n²`` per group (NaN where the
    measure is undefined or the group has fewer than two clusters).

    Examples
    --------
    Every cluster of one row: the ordinary delta variance times ``n/(n − 1)``.

    >>> import batcheval as be
    >>> df = pl.DataFrame({"ex": range(6), "label": [1, 1, 1, 0, 0, 0], "prediction": [1, 1, 0, 0, 0, 1]})
    >>> table = be.ContingencyTable.from_frame(df)
    >>> cells = cluster_cells(df, [], ["ex"], "label", "prediction", table)
    >>> v = cluster_variance(table.counts, cells, "informedness")
    >>> se = _intervals.standard_errors(table.counts, ["informedness"])["informedness"]
    >>> bool(np.isclose(v[0], se[0] ** 2 * 6 / 5))
    True
    """
    s, n, n_clusters, undefined = cluster_scores(counts, cells, name, positive=positive)
    ss = np.bincount(cells.group, weights=s * s, minlength=len(n))
    with np.errstate(invalid="ignore", divide="ignore"):
        var = ss / (n * n) * n_clusters / (n_clusters - 1.0)
    return np.where(undefined | (n_clusters < 2), np.nan, var)


def clustered_intervals(
    counts: np.ndarray,
    cells: ClusterCells,
    names: Sequence[str],
    level: float = 0.95,
    *,
    positive: int = 1,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``(low, high)`` of every measure in ``names`` for every table, cluster-robust.

    The clustered counterpart of :func:`batcheval.inference.intervals.intervals`
    with ``method="wilson_delta"`` (see the module docstring).

    Examples
    --------
    >>> import batcheval as be
    >>> df = pl.DataFrame({"ex": [0, 0, 1, 1, 2, 2, 3, 3], "label": [1, 1, 0, 0, 1, 1, 0, 0],
    ...                    "prediction": [1, 1, 0, 0, 0, 0, 0, 0]})
    >>> table = be.ContingencyTable.from_frame(df)
    >>> cells = cluster_cells(df, [], ["ex"], "label", "prediction", table)
    >>> low, high = clustered_intervals(table.counts, cells, ["recall"])["recall"]
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.076, 0.924)

    Two positive examples of four rows, one found: ``m_eff = 1.5`` trials (2,
    not 4, shrunk by the factor ``C/(C − 1) = 4/3`` of the four clusters).
    """
    from scipy import special

    _intervals.check_options(level, "wilson_delta", 2, None)
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    k = counts.shape[1]
    capable = _intervals.interval_measures(k, "wilson_delta")
    for name in names:
        if name not in capable:
            raise UnknownMeasureError(
                f"measure {name!r} has no cluster-robust interval for {k} classes; "
                f"measures with one: {capable}"
            )
    z = float(special.ndtri(0.5 + level / 2.0))
    point = _measures.compute(counts, list(names), positive=positive)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in names:
        var = cluster_variance(counts, cells, name, positive=positive)
        if name in _intervals.DELTA_MEASURES:
            se = np.sqrt(var)
            out[name] = (np.clip(point[name] - z * se, -1.0, 1.0), np.clip(point[name] + z * se, -1.0, 1.0))
            continue
        x, m = _intervals.proportion(counts, name, positive)
        _, m_pair = _intervals.proportion(cells.counts, name, positive)
        holding = np.bincount(cells.group, weights=(m_pair > 0).astype(np.float64), minlength=len(m))
        with np.errstate(invalid="ignore", divide="ignore"):
            p = x / m
            m_eff = np.where((var > 0) & (p > 0) & (p < 1), np.minimum(p * (1.0 - p) / var, m), holding)
        # one cluster: no variance between clusters to estimate, so no interval
        m_eff = np.where(np.bincount(cells.group, minlength=len(m)) < 2, 0.0, m_eff)
        out[name] = _intervals.wilson(np.where(m_eff > 0, p * m_eff, 0.0), m_eff, level)
    return out


def paired_cluster_se(
    counts: np.ndarray, cells: ClusterCells, name: str, ref: np.ndarray, *, positive: int = 1
) -> np.ndarray:
    """Cluster-robust standard error of ``measure(g) − measure(ref[g])`` for every group.

    The groups are runs scored on shared clusters (``cells.cluster`` numbers
    them across runs); ``ref[g] < 0`` or ``ref[g] == g`` gives NaN. With
    ``a_c = S_c^g/n_g`` and ``b_c = S_c^ref/n_ref`` (0 for a cluster a run
    has no row in), ``var = C/(C − 1)·Σ_c (a_c − b_c)²`` over the ``C``
    clusters of either run, summed as ``Σ a² + Σ b² − 2 Σ_shared a·b``.

    Examples
    --------
    A run against itself on shifted clusters is a run against an
    independent one: the variances add.

    >>> import batcheval as be
    >>> rng = np.random.default_rng(0)
    >>> ex = np.arange(200)
    >>> y = rng.integers(0, 2, 200)
    >>> df = pl.DataFrame({"run": [0] * 200 + [1] * 200, "ex": np.r_[ex, ex + 200],
    ...                    "label": np.r_[y, y], "prediction": np.r_[y, 1 - y] * (rng.random(400) < .8)})
    >>> table = be.ContingencyTable.from_frame(df, by="run")
    >>> import batcheval as be
    >>> cells = cluster_cells(df, ["run"], ["ex"], "label", "prediction", table)
    >>> se = paired_cluster_se(table.counts, cells, "accuracy", np.array([1, 0]))
    >>> v = cluster_variance(table.counts, cells, "accuracy")
    >>> bool(np.isclose(se[0] ** 2, (v[0] * 199 / 200 + v[1] * 199 / 200) * 400 / 399))
    True
    """
    s, n, n_clusters, undefined = cluster_scores(counts, cells, name, positive=positive)
    g_count = len(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = s / n[cells.group]
    own = np.bincount(cells.group, weights=a * a, minlength=g_count)
    ref = np.asarray(ref, dtype=np.int64)
    at = np.maximum(ref, 0)
    pairs = pl.DataFrame({"g": cells.group, "c": cells.cluster, "a": a})
    left = pairs.with_columns(pl.Series("ref", at[cells.group]))
    shared = left.join(pairs.rename({"g": "ref", "a": "b"}), on=["ref", "c"], how="inner")
    g_shared = shared.get_column("g").to_numpy()
    cross = np.bincount(g_shared, weights=(shared["a"] * shared["b"]).to_numpy(), minlength=g_count)
    n_shared = np.bincount(g_shared, minlength=g_count)
    total = n_clusters + n_clusters[at] - n_shared
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (own + own[at] - 2.0 * cross) * total / (total - 1.0)
    bad = (ref < 0) | (ref == np.arange(g_count)) | undefined | undefined[at] | (total < 2)
    return np.where(bad, np.nan, np.sqrt(np.maximum(var, 0.0)))


def select_clustered(
    data: Any,
    by: Sequence[str],
    label: str,
    prediction: str,
    examples: Sequence[str],
    clusters: Sequence[str],
    *,
    drop_nulls: bool = False,
) -> pl.DataFrame:
    """The key, class, example and cluster columns of an in-memory input, checked
    (:class:`~batcheval.errors.ColumnNotFoundError` for a missing column, then
    :func:`check_cluster_columns`); rows with a null label or prediction are left out
    with ``drop_nulls`` (the counting pass has warned about them)."""
    roles: dict[str, str] = {}
    for role, cols in (("key", by), ("label", [label]), ("prediction", [prediction]),
                       ("example", examples), ("cluster", clusters)):  # fmt: skip
        for col in cols:
            roles.setdefault(col, role)
    df = select_columns(data, list(roles), roles)
    if drop_nulls:
        df = df.filter(pl.col(label).is_not_null() & pl.col(prediction).is_not_null())
    check_cluster_columns(df, examples, clusters)
    return df


def add_clustered_intervals(
    frame: pl.DataFrame,
    table: ContingencyTable,
    df: pl.DataFrame,
    *,
    units: Sequence[str],
    label: str,
    prediction: str,
    pool: Sequence[str],
    measures: Sequence[str] | None,
    per_class: bool,
    positive: Any,
    beta: float | None,
    ci: float,
) -> pl.DataFrame:
    """Append cluster-robust ``<measure>_ci_low`` / ``_ci_high`` to an
    :func:`~batcheval.evaluate` frame, ``df`` holding its rows with the ``units`` columns
    (:func:`select_clustered`); like :func:`batcheval.inference.intervals.add_intervals`
    with ``method="wilson_delta"``."""
    if pool:
        table = table.pool(list(pool))
    k = table.n_classes
    counts = np.asarray(table.counts)
    cells = cluster_cells(df, table.by, units, label, prediction, table)
    if per_class:
        counts, cells, k, pos = one_vs_rest(counts), cells.one_vs_rest(), 2, 1
    else:
        pos = table.positive_index(positive) if k == 2 else 1
    capable = _intervals.interval_measures(k, "wilson_delta")
    wanted = _measures.default_measures(k, beta) if measures is None else list(measures)
    names = [m for m in wanted if m in capable]
    if not names:
        raise UnknownMeasureError(
            f"none of measures={list(wanted)} has a cluster-robust interval; measures with one: {capable}"
        )
    result = clustered_intervals(counts, cells, names, ci, positive=pos)
    columns = []
    for name, (low, high) in result.items():
        columns += [pl.Series(f"{name}_ci_low", low), pl.Series(f"{name}_ci_high", high)]
    return frame.hstack(columns)
