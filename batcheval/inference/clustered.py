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
  ``n/(n − 1)`` and the design effect of the intervals is 1;
- every example repeated ``m`` times with the same prediction and
  ``example=`` naming it: ``S_c`` and ``n`` both grow ``m``-fold, so the
  standard error is that of the data without repeats and the design effect
  ``m``.

Copies of every row (identical seeds pooled, examples in clusters) multiply the design
effect by ``m`` too; with ``example=`` the intervals read a group whose rows are all repeated
``r`` times as one copy (:func:`one_copy`: the design effect's floor and "the rows' own"
interval count one copy's rows), so they are one copy's. ``cluster=`` alone reads no copies:
a passage's rows alike in a cell may be different examples.

The intervals are the unclustered ones of the *effective* data: the table (or a
proportion's trials) divided by the design effect ``deff`` of :func:`design_effects`, the
number of rows that carry the information of one independent row. It is the bias-reduced
(CR2; Bell & McCaffrey 2002, Survey Methodology 28:169; Pustejovsky & Tipton 2018, JBES
36:672) counterpart of ``var_c / var_rows``: each cluster's squared score sum is divided by
``1 − h_c``, ``h_c`` its share of the measure's units, and the row-wise sum is corrected for
the clustering of the mean its residuals are taken from, ``deff = V_c/(V_r + V_c/N)``.
Proportions (recall, precision, accuracy, ...) keep a Wilson interval, with Korn & Graubard's
(1998, Survey Methodology 24:193) effective number of trials ``m/deff`` (their
``p(1 − p)/var``), and the one-sided Poisson ends of the unclustered interval
(:func:`batcheval.inference.intervals.modified_wilson`) on the effective counts
(:func:`modified_wilson_z`). Where ``p`` is 0 or 1 (no spread to measure a design effect
from) the effective trials are the clusters holding a trial, as if each cluster were one
trial. The chance-corrected measures get the unclustered interval (score or adjusted delta)
of the table of effective counts, every cell divided by ``deff`` and rounded, moved to the
estimate, with neither side narrower than the rows' own where ``deff ≥ 1``. Both use the
critical value of Student's t (Cameron & Miller 2015, §VI.C) with Bell
& McCaffrey's degrees of freedom (:func:`bell_mccaffrey_dof`; ``C − 1`` for ``C`` equal
clusters), for the noise in the estimated design effect, except where every cluster's rows
lie in one cell (single rows, or copies of one example): there the design effect holds no
noise and the normal quantile is kept, so single-row clusters give the unclustered interval
itself. At 20 clusters, where the smallest margin holds 10 examples, Wald at the normal
quantile covered as little as 0.898, t with the CR1 design effect floored at 1 covered
0.943-0.974, and this covers 0.942-0.970 (docs/calibration_cluster.md).

The chance tests ``p_informedness`` and ``p_markedness`` count clusters too
(:func:`clustered_chance`): the unclustered exact test applied to the table
divided by the design effect of the chance statistic
(:func:`chance_design_effects`).

Paired differences (a run against the leader on the same clusters) use the
difference of the two runs' scaled cluster sums, ``D_c = S_c^run/n_run −
S_c^ref/n_ref`` over the clusters either run has, ``var = C/(C − 1)·Σ D_c²``
(Miller 2024, §4): :func:`paired_cluster_se`, tested against t with ``C − 1``
degrees of freedom (:func:`cluster_t_p`).

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
(0.377, 0.297)
>>> clus["informedness_ci_low"][0] == alone["informedness_ci_low"][0]
True
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import measures as _measures
from ..core.encode import check_key_dtype, encode_classes
from ..core.memory import check_allocation
from ..core.table import ContingencyTable, one_vs_rest
from ..errors import DuplicateColumnError, InvalidArgumentError, UnknownMeasureError, warn
from ..io.frames import select_columns, unused_name
from ..kernels.clustered import (
    class_codes,
    cluster_score_sums,
    cluster_square_sums,
    compact_pairs,
    dense_codes,
    leveraged_sums,
    pair_tally,
    pairs_holding,
    sparse_cells,
)
from ..kernels.jit import readonly
from ..measures.significance import alpha_sbb
from . import intervals as _intervals

__all__ = [
    "CLUSTERED_CHANCE",
    "REPEAT_ALPHA",
    "ClusterCells",
    "add_clustered_chance",
    "add_clustered_intervals",
    "bell_mccaffrey_dof",
    "chance_design_effects",
    "check_cluster_columns",
    "cluster_cells",
    "cluster_quantile",
    "cluster_scores",
    "cluster_t_p",
    "cluster_variance",
    "clustered_chance",
    "clustered_intervals",
    "clustered_measures",
    "count_cluster_cells",
    "design_effects",
    "effective_counts",
    "grouped_cells",
    "modified_wilson_z",
    "one_copy",
    "paired_cluster_count",
    "paired_cluster_se",
    "pure_groups",
    "repeated_rows",
    "row_copies",
    "rows_per_example",
    "select_clustered",
    "warn_independent_rows",
    "warn_one_cluster",
    "wilson_z",
]

#: A pooled key whose name matches this is taken to split the examples (cross-validation
#: folds) rather than to repeat them (seeds, replicates): see :func:`warn_independent_rows`.
FOLD_LIKE = re.compile(r"fold", re.IGNORECASE)


@dataclass(frozen=True)
class ClusterCells:
    """Each (group, cluster) pair's table, kept sparse: pair ``p``'s cells that hold a row are
    ``cell[start[p]:start[p + 1]]`` (``i·K + j`` for real class ``i``, predicted ``j``, ascending)
    with ``count[...]`` rows each, so the whole takes at most one entry a row (a dense
    ``[P, K, K]`` took ``P·K²`` cells: 4 GiB for 6,000 single-row clusters of 300 classes).
    ``group[P]`` is the row of the group's table a pair belongs to; ``cluster[P]`` numbers the
    clusters across groups (the same cluster in two groups has the same number).
    :meth:`from_dense` makes one of ``counts[P, K, K]``. ``copies[G]``, where given, is how many
    times each group's rows are repeated (:attr:`multiplicity`; by default read from the cells).

    Examples
    --------
    >>> cells = ClusterCells.from_dense(np.array([[[1, 0], [0, 2]], [[0, 0], [3, 0]]]),
    ...                                 np.array([0, 1]), np.array([0, 0]), 2)
    >>> cells.start.tolist(), cells.cell.tolist(), cells.count.tolist(), cells.counts[1].tolist()
    ([0, 2, 3], [0, 3, 2], [1, 2, 3], [[0, 0], [3, 0]])
    """

    start: np.ndarray
    cell: np.ndarray
    count: np.ndarray
    k: int
    group: np.ndarray
    cluster: np.ndarray
    n_groups: int
    copies: np.ndarray | None = None

    @classmethod
    def from_dense(
        cls, counts: np.ndarray, group: np.ndarray, cluster: np.ndarray, n_groups: int,
        copies: np.ndarray | None = None,
    ) -> ClusterCells:  # fmt: skip
        """The cells of ``counts[P, K, K]``, pair ``p``'s group ``group[p]`` and cluster ``cluster[p]``."""
        counts = np.asarray(counts)
        n_pairs, k = counts.shape[0], counts.shape[1]
        flat = readonly(np.ascontiguousarray(counts, dtype=np.int64).reshape(n_pairs, k * k))
        start, cell, count = sparse_cells(flat)
        return cls(
            *(readonly(x) for x in (start, cell, count)),
            k,
            *(readonly(np.ascontiguousarray(x, dtype=np.int64)) for x in (group, cluster)),
            n_groups,
            copies,
        )

    @property
    def n_pairs(self) -> int:
        """The number of (group, cluster) pairs ``P``."""
        return len(self.group)

    @property
    def counts(self) -> np.ndarray:
        """The dense ``counts[P, K, K]`` (int64), checked against the memory available."""
        check_allocation(self.n_pairs * self.k * self.k * 8, f"the dense tables of {self.n_pairs:,} "
                         f"(group, cluster) pairs of {self.k} classes")  # fmt: skip
        out = np.zeros((self.n_pairs, self.k * self.k), dtype=np.int64)
        out[self.entry_pair, self.cell] = self.count
        return out.reshape(self.n_pairs, self.k, self.k)

    @functools.cached_property
    def entry_pair(self) -> np.ndarray:
        """The pair of each entry (``cell``, ``count``)."""
        return np.repeat(np.arange(self.n_pairs, dtype=np.int64), np.diff(self.start))

    @functools.cached_property
    def clusters_per_group(self) -> np.ndarray:
        """The number of clusters ``C`` of each group (float64), counted once for every measure."""
        return np.bincount(self.group, minlength=self.n_groups).astype(np.float64)

    def sizes(self, n_groups: int) -> np.ndarray:
        """:attr:`clusters_per_group` padded or cut to ``n_groups`` groups."""
        if n_groups == self.n_groups:
            return self.clusters_per_group
        return np.bincount(self.group, minlength=n_groups).astype(np.float64)

    @functools.cached_property
    def multiplicity(self) -> np.ndarray:
        """How many times each group's rows are repeated (float64, at least 1): ``copies`` where
        given (:func:`cluster_cells` reads it per example when the clusters hold several), else
        the greatest common divisor of the group's counts per (cluster, cell). ``m`` copies of
        every row multiply it by ``m``; rows that are not all repeated alike give 1.

        Examples
        --------
        >>> cells = ClusterCells.from_dense(np.array([[[2, 0], [0, 4]], [[0, 6], [0, 0]], [[1, 0], [0, 2]]]),
        ...                                 np.array([0, 0, 1]), np.array([0, 1, 0]), 3)
        >>> cells.multiplicity.tolist()
        [2.0, 1.0, 1.0]
        """
        if self.copies is not None:
            return np.maximum(np.asarray(self.copies, dtype=np.float64), 1.0)
        out = np.zeros(self.n_groups, dtype=np.int64)
        np.gcd.at(out, self.group[self.entry_pair], self.count)
        return np.maximum(out, 1).astype(np.float64)

    def copies_of(self, n_groups: int) -> np.ndarray:
        """:attr:`multiplicity` padded (with 1) or cut to ``n_groups`` groups."""
        own = self.multiplicity
        if n_groups == self.n_groups:
            return own
        out = np.ones(n_groups)
        out[: min(n_groups, self.n_groups)] = own[:n_groups]
        return out

    def one_copy(self) -> ClusterCells:
        """The cells of one copy of each group's rows: every count divided by the group's
        :attr:`multiplicity` (which divides it), whose multiplicity is then 1."""
        r = self.multiplicity.astype(np.int64)
        count = self.count // r[self.group[self.entry_pair]]
        return dataclasses.replace(self, count=readonly(count), copies=readonly(np.ones(self.n_groups)))

    def real_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(pair, real, rows, hits)`` for every (pair, real class) holding a row, in pair order
        then class order: the pair's rows of the class and those predicted as it (a pair's cells
        of one real class are consecutive)."""
        real = self.cell // self.k
        key = self.entry_pair * self.k + real
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
        rows = np.add.reduceat(self.count, first) if len(first) else np.zeros(0, np.int64)
        diag = np.where(self.cell == real * (self.k + 1), self.count, 0)
        hits = np.add.reduceat(diag, first) if len(first) else np.zeros(0, np.int64)
        return self.entry_pair[first], real[first], rows, hits

    def _class_margins(self, classes: np.ndarray) -> np.ndarray:
        """``[P, len(classes), 2, 2]``: each pair's table of each class in ``classes`` against the
        rest, ``[[tn, fp], [fn, tp]]`` as :func:`batcheval.core.table.one_vs_rest` makes them."""
        n_pairs, n_cls = self.n_pairs, len(classes)
        check_allocation(n_pairs * n_cls * 8 * 8, f"the class-vs-rest tables of {n_pairs:,} (group, "
                         f"cluster) pairs of {self.k} classes")  # fmt: skip
        where = np.full(self.k, -1, dtype=np.int64)
        where[classes] = np.arange(n_cls)
        real, pred = where[self.cell // self.k], where[self.cell % self.k]
        size = n_pairs * n_cls

        def tally(at: np.ndarray, keep: np.ndarray) -> np.ndarray:
            flat = np.bincount(
                self.entry_pair[keep] * n_cls + at[keep], weights=self.count[keep], minlength=size
            )
            return flat.astype(np.int64).reshape(n_pairs, n_cls)  # whole numbers below 2**53: exact

        tp = tally(real, (real >= 0) & (real == pred))
        fn = tally(real, real >= 0) - tp
        fp = tally(pred, pred >= 0) - tp
        m = np.bincount(self.entry_pair, weights=self.count, minlength=n_pairs).astype(np.int64)
        out = np.empty((n_pairs, n_cls, 2, 2), dtype=np.int64)
        out[:, :, 1, 1], out[:, :, 1, 0], out[:, :, 0, 1] = tp, fn, fp
        out[:, :, 0, 0] = m[:, None] - tp - fn - fp
        return out

    def one_vs_rest(self) -> ClusterCells:
        """Class-vs-rest tables, group ``g`` class ``k`` becoming group ``g·K + k`` as in
        :func:`batcheval.core.table.one_vs_rest`."""
        k = self.k
        group = (self.group[:, None] * k + np.arange(k)[None, :]).reshape(-1)
        tables = self._class_margins(np.arange(k)).reshape(-1, 2, 2)
        # the rows' own repeats, not the merged cells': the rest of a class adds up cells
        copies = np.repeat(self.multiplicity, k)
        return ClusterCells.from_dense(tables, group, np.repeat(self.cluster, k), self.n_groups * k, copies)

    def versus_rest(self, index: int) -> ClusterCells:
        """The 2×2 tables of class ``index`` against the rest, as
        :meth:`batcheval.core.table.ContingencyTable.versus_rest` makes them."""
        tables = self._class_margins(np.array([index]))[:, 0]
        return ClusterCells.from_dense(tables, self.group, self.cluster, self.n_groups, self.multiplicity)


def one_copy(counts: np.ndarray, cells: ClusterCells) -> tuple[np.ndarray, ClusterCells]:
    """``counts[G, K, K]`` and ``cells`` of one copy of each group's rows, where a group repeats
    all its rows ``r`` times (:attr:`ClusterCells.multiplicity`); as they are where none does.

    Examples
    --------
    >>> cells = ClusterCells.from_dense(np.array([[[2, 0], [0, 4]], [[0, 6], [0, 0]]]),
    ...                                 np.array([0, 0]), np.array([0, 1]), 1)
    >>> counts, one = one_copy(np.array([[[2, 6], [0, 4]]]), cells)
    >>> counts.tolist(), one.counts.tolist(), one.multiplicity.tolist()
    ([[[1, 3], [0, 2]]], [[[1, 0], [0, 2]], [[0, 3], [0, 0]]], [1.0])
    """
    copies = cells.copies_of(len(counts))
    if not (copies > 1).any():
        return counts, cells
    return np.asarray(counts) // copies.astype(np.int64)[:, None, None], cells.one_copy()


def _versus_rest(c: np.ndarray, index: int) -> np.ndarray:
    """The 2×2 tables ``[[tn, fp], [fn, tp]]`` of class ``index`` against the rest of ``c[G, K, K]``."""
    tp = c[:, index, index]
    fn = c[:, index, :].sum(axis=1) - tp
    fp = c[:, :, index].sum(axis=1) - tp
    tn = c.sum(axis=(1, 2)) - tp - fn - fp
    return np.stack([np.stack([tn, fp], axis=1), np.stack([fn, tp], axis=1)], axis=1)


def warn_independent_rows(pool: Sequence[str]) -> None:
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
        warn(
            f"pool={repeating} pools groups that may repeat the same examples (seeds, replicates); "
            "the intervals and p-values treat every row as independent. Pass example= (the column "
            "that identifies an example) to count each example as one cluster"
        )


def warn_one_cluster(cells: ClusterCells, cluster: Any, example: Any) -> None:
    """Warn when every group that holds rows holds them in one cluster (``cluster=`` a column
    constant within groups): one independent unit tests nothing, so every interval and p-value
    is NaN, which came without a word. The message names ``cluster=``, or ``example=`` when
    the examples are the clusters.

    Examples
    --------
    >>> import warnings
    >>> groups, clusters = np.array([0, 1]), np.array([0, 0])  # two groups, one cluster each
    >>> one = ClusterCells.from_dense(np.ones((2, 2, 2), dtype=np.int64), groups, clusters, 2)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_one_cluster(one, "dataset", None)
    >>> str(caught[0].message)[:60]
    "cluster='dataset' puts each group's rows in one cluster: one"
    """
    sizes = cells.clusters_per_group
    held = sizes[sizes > 0]
    if len(held) and (held < 2).all():
        what, given = ("cluster", cluster) if cluster is not None else ("example", example)
        warn(
            f"{what}={given!r} puts each group's rows in one cluster: one independent unit tests "
            "nothing, so every interval and clustered p-value is NaN; name the column that identifies "
            f"the {what}s within a group"
        )


def check_cluster_columns(df: pl.DataFrame, examples: Sequence[str], clusters: Sequence[str]) -> None:
    """Raise :class:`InvalidArgumentError` for a null (or a float NaN) in an ``example=`` or
    ``cluster=`` column, or a ``cluster=`` value that varies within one example.

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
            series = df.get_column(col)
            missing = {"null": series.is_null()}
            if series.dtype.is_float():  # NaN ids are no ids either: they were one cluster
                missing["NaN"] = series.is_nan().fill_null(False)
            for kind, rows in missing.items():
                count = int(rows.sum())
                if count:
                    first = int(rows.arg_true()[0])
                    raise InvalidArgumentError(
                        f"{what} column {col!r} holds {count} {kind}(s) (first at row {first}); every "
                        f"row needs {'an' if what == 'example' else 'a'} {what} id, or drop those rows first"
                    )
    if examples and clusters:
        held = unused_name([*examples, *clusters], "__values")
        per = df.group_by(list(examples)).agg(pl.struct(list(clusters)).unique().alias(held))
        bad = per.filter(pl.col(held).list.len() > 1)
        if bad.height:
            row = bad.sort(list(examples)).row(0, named=True)
            values = [next(iter(v.values())) if len(v) == 1 else v for v in row.pop(held)][:5]
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
    examples: Sequence[str] = (),
) -> ClusterCells:
    """Count ``df`` per (group of ``keys``) × (cluster of ``units``) × cell.

    ``target`` is the table the intervals are for (its keys are ``keys``, in
    its row order, and its class set is used), so that ``group`` indexes its
    rows. ``df`` holds no nulls in ``units`` (:func:`check_cluster_columns`).
    ``examples``: the example ids (``example=``), by which the cells'
    :attr:`ClusterCells.multiplicity` counts the repeats of each example's rows (:func:`row_copies`
    where the clusters hold several examples, else the cells' own); without them (``cluster=``
    alone) no row is read as a repeat, since rows of a passage alike in a cell may be different
    examples.

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
    coded = _row_codes(df, keys, extra, label, prediction, target)
    if coded is None:
        cells = count_cluster_cells(df, keys, units, label, prediction, target)
    else:
        cells = _tally_cells(*coded, len(target.classes), len(target))
    if not examples:
        # cluster= alone: a passage's rows alike in a cell may be different examples, not copies;
        # read as copies, 16 examples whose every (passage, cell) count was even got half a
        # table's interval (recall [0.100, 0.953] for [0.179, 0.912]), so nothing is repeated
        return dataclasses.replace(cells, copies=readonly(np.ones(cells.n_groups)))
    finer = [c for c in examples if c not in keys and c not in extra]
    # the clusters are the examples (or hold them whole): the cells' own repeats; an example's
    # repeats divide its cluster's, so a group without the latter (the rule) has none either
    if not finer or not (cells.multiplicity > 1).any():
        return cells
    copies = row_copies(df, keys, [*extra, *finer], label, prediction, target)
    return dataclasses.replace(cells, copies=readonly(copies))


def row_copies(
    df: pl.DataFrame, keys: Sequence[str], ids: Sequence[str], label: str, prediction: str,
    target: ContingencyTable,
) -> np.ndarray:  # fmt: skip
    """How many times each of ``target``'s groups repeats its rows: the greatest common divisor
    of its counts of rows per example (``ids``), label and prediction (float64, at least 1).
    ``m`` copies of every row (seeds pooled that score alike) give ``m`` times one copy's;
    a group whose rows are not all repeated alike gives 1.

    Examples
    --------
    >>> import batcheval as be
    >>> one = pl.DataFrame({"ex": [0, 1, 2], "label": [1, 0, 1], "prediction": [1, 1, 0]})
    >>> df = pl.concat([one, one, one, one.head(2)]).with_columns(run=pl.Series([0] * 9 + [1] * 2))
    >>> table = be.ContingencyTable.from_frame(df, by="run")
    >>> row_copies(df, ["run"], ["ex"], "label", "prediction", table).tolist()
    [3.0, 1.0]
    """
    keys = list(keys)
    cols = list(dict.fromkeys([*keys, *ids, label, prediction]))
    size = unused_name(cols, "__rows")
    per = df.group_by(cols).agg(pl.len().alias(size))
    out = np.zeros(len(target), dtype=np.int64)
    if keys:
        row = unused_name([*cols, size], "__row")
        try:
            per = per.join(target.keys.select(keys).with_row_index(row), on=keys, how="inner",
                           nulls_equal=True)  # fmt: skip
        except pl.exceptions.PolarsError:  # key types the join cannot match: the rows as they are
            return np.ones(len(target))
        group = per.get_column(row).to_numpy().astype(np.int64)
    else:
        group = np.zeros(per.height, dtype=np.int64)
    np.gcd.at(out, group, per.get_column(size).to_numpy().astype(np.int64))
    return np.maximum(out, 1).astype(np.float64)


def count_cluster_cells(
    df: pl.DataFrame,
    keys: Sequence[str],
    units: Sequence[str],
    label: str,
    prediction: str,
    target: ContingencyTable,
) -> ClusterCells:
    """:func:`cluster_cells` through the counting stage (a table per group × cluster) and a join
    to ``target``'s rows: the general path, for class columns that the counting stage alone
    reads. Its dense tables take ``P·K²`` cells for ``P`` (group, cluster) pairs, checked against
    the memory available first (:class:`~batcheval.errors.MemoryBudgetError`)."""
    keys = list(keys)
    extra = [c for c in units if c not in keys]
    by = keys + extra
    k = len(target.classes)
    n_pairs = df.select(by).n_unique() if by else min(df.height, 1)
    # the table's counts and the scan of them for the cells that hold a row (a byte a cell)
    check_allocation(
        n_pairs * k * k * 9,
        f"the clustered tables of {n_pairs:,} (group, cluster) pairs of {k} classes (labels of type "
        f"{df.schema[label]})",
        "pass integer or string labels, or fewer classes or examples",
    )
    table = ContingencyTable.from_frame(df, by=by, label=label, prediction=prediction,
                                        classes=target.classes.to_list())  # fmt: skip
    if extra:
        cluster = _codes(table.keys.select(extra))
    else:  # the unit is a key: each group is one cluster
        cluster = np.zeros(len(table), dtype=np.int64)
    if keys:
        pair = unused_name(keys, "__pair")
        row = unused_name([*keys, pair], "__row")
        own = table.keys.select(keys).with_row_index(pair)
        rows = target.keys.select(keys).with_row_index(row)
        joined = own.join(rows, on=keys, how="left", nulls_equal=True).sort(pair)
        group = joined.get_column(row).to_numpy().astype(np.int64)
    else:
        group = np.zeros(len(table), dtype=np.int64)
    # the table's int64 counts are read as they are (an astype copy doubled them)
    return ClusterCells.from_dense(np.asarray(table.counts), group, cluster, len(target))


def _row_codes(
    df: pl.DataFrame, keys: list[str], extra: list[str], label: str, prediction: str,
    target: ContingencyTable,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:  # fmt: skip
    """Per row of ``df`` its group (``target``'s row), cluster and real and predicted class codes
    (``target``'s classes); None where the classes are not read as the counting stage reads them
    here, or a row's keys are not among ``target``'s (the caller counts through the general path,
    which gives the same)."""
    if not df.height or df.height >= 1 << 32:
        return None
    try:
        coding = encode_classes(df.get_column(label), df.get_column(prediction), target.classes.to_list())
    except Exception:  # whatever the counting stage would say about the classes, it says on that path
        return None
    if coding.trim or coding.classes.to_list() != target.classes.to_list():
        return None
    codes = [class_codes(np.asarray(arr, dtype=np.int64), coding.vmin, np.asarray(coding.lut, dtype=np.int64))
             for arr in (coding.label, coding.prediction)]  # fmt: skip
    if codes[0].min() < 0 or codes[1].min() < 0:
        return None
    group = _group_codes(df, keys, target)
    if group is None:
        return None
    for name in extra:  # the ids are coded as keys are: the same columns refused, with the same message
        check_key_dtype(name, df.schema[name])
    cluster = _codes(df.select(extra)) if extra else np.zeros(df.height, dtype=np.int64)
    return group, cluster, codes[0], codes[1]


def _group_codes(df: pl.DataFrame, keys: list[str], target: ContingencyTable) -> np.ndarray | None:
    """Each row's row of ``target`` (whose keys are ``keys``), or None where a row's keys are not
    among ``target``'s."""
    if not keys:
        return np.zeros(df.height, dtype=np.int64) if len(target) == 1 else None
    if all(df.schema[c] in _INT64_SAFE for c in keys) and not any(
        df.get_column(c).null_count() for c in keys
    ):
        group = _codes(df.select(keys))
        n_groups = int(group.max()) + 1
        if n_groups == len(target):  # the dense key codes number target's rows if its keys are sorted
            first = np.full(n_groups, -1, dtype=np.int64)
            first[group[::-1]] = np.arange(df.height - 1, -1, -1)
            if df.select(keys)[first].equals(target.keys.select(keys)):
                return group
    row = unused_name(keys, "__row")
    rows = target.keys.select(keys).with_row_index(row)
    try:
        found = df.select(keys).join(rows, on=keys, how="left", nulls_equal=True, maintain_order="left")
    except Exception:  # key types the join cannot match: the counting stage's own join does
        return None
    at = found.get_column(row)
    if at.null_count() or len(at) != df.height:
        return None
    return at.to_numpy().astype(np.int64)


def _tally_cells(
    group: np.ndarray, cluster: np.ndarray, real: np.ndarray, pred: np.ndarray, k: int, n_groups: int
) -> ClusterCells:
    """The cells of every (group, cluster) pair from each row's codes, pairs in (group, cluster)
    order: in one scattered pass (:func:`batcheval.kernels.clustered.pair_tally`) where a dense
    table of all pairs is not much larger than the rows, else by sorting the rows' (pair, cell)
    codes, which takes memory in proportion to the rows whatever the classes."""
    n_rows = len(group)
    n_clusters = int(cluster.max()) + 1
    if n_groups * n_clusters * k * k <= 8 * n_rows + (1 << 22):
        dense = pair_tally(group, cluster, real, pred, n_groups, n_clusters, k)
        cells = compact_pairs(dense, n_clusters)  # (group, cluster) order
        return ClusterCells(*(readonly(x) for x in cells[:3]), k, *(readonly(x) for x in cells[3:]), n_groups)
    # the row's pair numbered densely in (group, cluster) order, so pair·K² + cell fits int64
    pair = _dense(group * n_clusters + cluster) if n_groups * n_clusters < 1 << 62 else _codes(
        pl.DataFrame({"g": group, "c": cluster}))  # fmt: skip
    check_allocation(n_rows * 8 * 6, f"the clustered cells of {n_rows:,} rows")
    key, count = np.unique(pair * (k * k) + real * k + pred, return_counts=True)
    entry_pair, cell = np.divmod(key, k * k)
    first = np.flatnonzero(np.r_[True, entry_pair[1:] != entry_pair[:-1]])
    start = np.r_[first, len(key)]
    # each pair's group and cluster, from one of its rows
    at = np.empty(int(pair.max()) + 1, dtype=np.int64)
    at[pair] = np.arange(n_rows)
    return ClusterCells(
        *(readonly(np.ascontiguousarray(x, dtype=np.int64)) for x in (start, cell, count)),
        k,
        *(readonly(np.ascontiguousarray(x, dtype=np.int64)) for x in (group[at], cluster[at])),
        n_groups,
    )


#: integer dtypes whose values fit int64, so that their codes can be made with numpy
_INT64_SAFE = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)


def _dense(values: np.ndarray) -> np.ndarray:
    """Dense codes of int64 ``values`` in sorted order (a lookup table over the range when it is
    not much wider than the data, else a sort)."""
    codes = dense_codes(values, max(4 * len(values), 1 << 20))
    if len(codes) == len(values):
        return codes
    return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _codes(frame: pl.DataFrame) -> np.ndarray:
    """A dense code per distinct row of ``frame``, numbering the rows in sorted order (as
    ``pl.struct(...).rank("dense") - 1``)."""
    if len(frame) and all(frame.schema[c] in _INT64_SAFE for c in frame.columns):
        # integer ids (the common case): the lexicographic order of the columns' dense codes,
        # without polars' struct rank, which is 10x slower
        code = _dense(frame.get_column(frame.columns[0]).to_numpy().astype(np.int64))
        for col in frame.columns[1:]:  # re-coded after each column: below len(frame), no overflow
            part = _dense(frame.get_column(col).to_numpy().astype(np.int64))
            code = _dense(code * (int(part.max()) + 1) + part)
        return code
    return frame.select(pl.struct(frame.columns).rank("dense")).to_series().to_numpy().astype(np.int64) - 1


def cluster_scores(
    counts: np.ndarray, cells: ClusterCells, name: str, *, positive: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per (group, cluster) pair the score sum ``S_c``, and per group ``n``, the number of
    clusters ``C`` and where the measure's gradient is undefined.

    ``counts[G, K, K]`` are the groups' tables (the sums of their clusters').
    """
    u, n, undefined = _row_scores(counts, name, positive)
    k = u.shape[-1]
    s = cluster_score_sums(cells.start, cells.cell, cells.count, cells.group, u.reshape(len(u), k * k), k)
    return s, n, cells.sizes(len(n)), undefined


def _row_scores(counts: np.ndarray, name: str, positive: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group the score ``u_ij`` of a row in each cell ``[G, K, K]`` (0 where the gradient is
    undefined), ``n`` and where the measure is undefined."""
    c = _intervals.cells_last(counts)
    g, undefined = _intervals.gradient_cells_last(c, name, positive=positive)
    n = _intervals.ordered_sum(c, (0, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = _intervals.ordered_sum(c * g, (0, 1)) / n
    # an undefined gradient is NaN or inf somewhere; its groups are masked by the caller
    u = np.nan_to_num(np.moveaxis(g - centre, -1, 0), nan=0.0, posinf=0.0, neginf=0.0)
    return np.ascontiguousarray(u), n, undefined | (n == 0)


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
    return _cluster_variances(counts, cells, [name], positive)[name]


def _cluster_variances(
    counts: np.ndarray, cells: ClusterCells, names: Sequence[str], positive: int
) -> dict[str, np.ndarray]:
    """:func:`cluster_variance` of every measure in ``names``, with one pass over the pairs."""
    scores = [_row_scores(counts, name, positive) for name in names]
    if not scores:
        return {}
    n = scores[0][1]
    n_clusters = cells.sizes(len(n))
    u = np.ascontiguousarray(np.stack([sc[0] for sc in scores]))
    k = u.shape[-1]
    ss = cluster_square_sums(cells.start, cells.cell, cells.count, cells.group,
                             u.reshape(len(u), len(n), k * k), k, len(n))  # fmt: skip
    out = {}
    for name, row, (_, _, undefined) in zip(names, ss, scores, strict=True):
        with np.errstate(invalid="ignore", divide="ignore"):
            var = row / (n * n) * n_clusters / (n_clusters - 1.0)
        out[name] = np.where(undefined | (n_clusters < 2), np.nan, var)
    return out


def design_effects(
    counts: np.ndarray, cells: ClusterCells, names: Sequence[str], *, positive: int = 1
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]], np.ndarray]:
    """Per measure ``(deff, units, holding, dof)`` for every group: the design effect of the
    clustering, the measure's units (rows, or the trials of a proportion), the clusters
    holding one and the degrees of freedom of :func:`bell_mccaffrey_dof`; and per group whether
    every cluster's rows lie in one cell (:func:`pure_groups`), all from one pass over the
    (group, cluster) pairs.

    The delta method's per-row scores ``u`` are the residuals of an intercept-only fit to the
    measure's units (the mean of the rows' one-hot cell vectors for a chance-corrected
    measure; the trials of a proportion, whose other rows score 0), so a cluster's leverage
    is its share of the units, ``h_c = m_c/N``. The bias-reduced (CR2) sum
    ``V_c = Σ_c S_c²/(1 − h_c)`` (Bell & McCaffrey 2002) estimates ``N·σ²·deff`` without the
    downward bias of ``Σ S_c²`` at few clusters, while the rows' ``V_r = Σ_i u_i²`` estimates
    ``σ²·(N − deff)`` (its residuals are taken from a mean that is ``deff`` times noisier than
    ``σ²/N``). Both hold exactly for clusters with an exchangeable correlation and a common
    design effect; solving them gives

    .. math:: \\widehat{\\mathrm{deff}} = \\frac{V_c}{V_r + V_c/N}.

    Every cluster one unit: ``V_c = V_r·N/(N − 1)`` and ``deff`` is 1 (set exactly). Every
    cluster ``m`` copies of one example: ``deff = m``. Where ``V_r = 0`` (no spread among the
    units to measure the clustering by: a proportion of 0 or 1) or one cluster holds every
    unit, it is ``N/H``, as if each of the ``H`` clusters holding a unit were one unit. It is
    kept at least ``H/N`` (at most ``N/H`` effective units per unit) and is NaN where the
    measure is undefined or the group has fewer than two clusters.

    A group whose rows are all repeated ``r`` times (:attr:`ClusterCells.multiplicity`: ``r``
    seeds pooled that score every example alike) gets ``r`` times the design effect of one
    copy (:func:`one_copy`), whose floor counts one copy's units: ``H·N/E²`` with ``E = N/r``.
    ``m`` copies of every row multiply the design effect by ``m``, but a floor of ``H/N``
    counted in rows binds for one copy and not for ``m``: the copies got narrower intervals
    (markedness [0.276, 0.888] for two copies of 8 rows in three passages, [−0.310, 1] for
    one). Without such repeats (``r = 1``) nothing changes. Unlike the chance tests'
    design effect it may be below 1: a floor at 1 made the intervals cover 0.96-0.97 at 20
    clusters of independent rows.

    Examples
    --------
    Three examples each scored three times with the same prediction: the design effect is 3.

    >>> import batcheval as be
    >>> one = pl.DataFrame({"ex": range(6), "label": [1, 1, 1, 0, 0, 0], "prediction": [1, 1, 0, 0, 1, 0]})
    >>> df = pl.concat([one] * 3)
    >>> table = be.ContingencyTable.from_frame(df)
    >>> cells = cluster_cells(df, [], ["ex"], "label", "prediction", table)
    >>> effects, pure = design_effects(table.counts, cells, ["informedness", "recall"])
    >>> deff, units, holding, dof = effects["recall"]
    >>> round(float(deff[0]), 12), units.tolist(), holding.tolist(), dof.tolist(), pure.tolist()
    (3.0, [9.0], [3.0], [2.0], [True])
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    n_groups, k = counts.shape[0], counts.shape[1]
    copies = cells.copies_of(n_groups)
    if (copies > 1).any():
        # every row of a group repeated r times: r times one copy's design effect, whose floor
        # counts one copy's units (H·N/E², E = N/r), and one copy's degrees of freedom
        effects, pure = design_effects(*one_copy(counts, cells), names, positive=positive)
        return {name: (deff * copies, units * copies, holding, dof)
                for name, (deff, units, holding, dof) in effects.items()}, pure  # fmt: skip
    scores = [_row_scores(counts, name, positive) for name in names]
    every = np.ones((k, k), dtype=np.bool_)
    measure_masks = [
        every if name in _intervals.DELTA_MEASURES else _intervals.trial_cells(k, name, positive)
        for name in names
    ]
    distinct = list({mask.tobytes(): mask for mask in [every, *measure_masks]}.values())
    masks = np.stack(distinct)
    unit_of = np.array([[m.tobytes() for m in distinct].index(mask.tobytes()) for mask in measure_masks],
                       dtype=np.int64)  # fmt: skip
    totals = np.einsum("gij,dij->dg", counts.astype(np.float64), masks.astype(np.float64))
    if scores:
        u = np.ascontiguousarray(np.stack([sc[0] for sc in scores]))
    else:
        u = np.zeros((0, n_groups, k, k))
    v_c, holding, s2, sq, sq2, mixed = leveraged_sums(
        cells.start, cells.cell, cells.count, cells.group, u.reshape(len(u), n_groups, k * k), k, unit_of,
        masks.reshape(len(masks), k * k), totals, n_groups,
    )  # fmt: skip
    v_r = np.einsum("gij,mgij->mg", counts.astype(np.float64), u * u)
    n_clusters = cells.sizes(n_groups)
    dof = bell_mccaffrey_dof(totals, s2, sq, sq2)
    out = {}
    for m, (name, (_, _, undefined)) in enumerate(zip(names, scores, strict=True)):
        d = unit_of[m]
        with np.errstate(invalid="ignore", divide="ignore"):
            worst = totals[d] / holding[d]
            # one cluster holding every unit: no spread between clusters to measure, as V_r = 0
            spread = (v_r[m] > 0) & (holding[d] > 1)
            deff = np.where(spread, v_c[m] / (v_r[m] + v_c[m] / totals[d]), worst)
            deff = np.maximum(deff, 1.0 / worst)
        deff = np.where(totals[d] == holding[d], 1.0, deff)  # one unit per cluster: exactly 1
        deff = np.where(undefined | (n_clusters < 2) | (holding[d] == 0), np.nan, deff)
        out[name] = (deff, totals[d], holding[d], dof[d])
    return out, mixed == 0


#: the level of the test that a run's seeds repeat its predictions on a class, and of the upper
#: bound that says they may (:func:`repeated_rows`)
REPEAT_ALPHA = 0.01


def rows_per_example(cells: ClusterCells, n_groups: int) -> np.ndarray:
    """``d[G, K]``: each group's rows of each real class per cluster holding one, weighted by
    the rows, ``Σ_c m_c²/Σ_c m_c`` over its clusters' ``m_c`` rows of the class (1 where it has
    none): the largest design effect the clustering allows the class's rates.

    A rate pooled over the clusters, ``p̂ = Σ_c x_c/Σ_c m_c``, has the variance ``Σ_c
    Var(x_c)/N²`` (``N = Σ_c m_c``, clusters independent), and a cluster's ``m_c`` rows, each
    of variance ``p(1 − p)``, sum to at most ``m_c²·p(1 − p)`` (Cauchy–Schwarz; equality where
    they agree). So ``Var(p̂) ≤ p(1 − p)/(N/d)``: the rate is known at least as well as from
    ``N/d`` independent rows, and no better where a run's seeds repeat its predictions. An
    example scored once by each of ``S`` seeds has ``d = S``; single-row clusters ``d = 1``.

    Examples
    --------
    Three positive examples, two scored three times and one once; two negatives scored twice:

    >>> cells = ClusterCells.from_dense(np.array([[[0, 0], [1, 2]], [[0, 0], [3, 0]], [[0, 0], [0, 1]],
    ...                                           [[2, 0], [0, 0]], [[1, 1], [0, 0]]]),
    ...                                 np.zeros(5, dtype=np.int64), np.arange(5), 1)
    >>> rows_per_example(cells, 1).round(4).tolist()
    [[2.0, 2.7143]]
    """
    # each cluster's rows by class, those it holds: the sums of a dense [P, K] less its zeros
    pair, real, rows, _ = cells.real_rows()
    k = cells.k
    idx = cells.group[pair] * k + real
    rows = rows.astype(np.float64)
    total = np.bincount(idx, weights=rows, minlength=n_groups * k)
    square = np.bincount(idx, weights=rows * rows, minlength=n_groups * k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, square / total, 1.0).reshape(n_groups, k)


def repeated_rows(counts: np.ndarray, cells: ClusterCells) -> np.ndarray:
    """``d[G, K]``: how many of each group's rows of each real class count as one example,
    for a floor that must hold where a run's seeds repeat its predictions. The design effect
    of each class's hit rate (its recall against the rest, :func:`design_effects`) estimates
    it; ``d`` is the largest of the group's own on that class, the group's own on any of its
    classes, the median over the groups on that class, and the board's repeaters' level where
    the group's own rows cannot rule it out (below), at least 1 and at most
    :func:`rows_per_example` (what the rows allow).

    A group's own estimate on a class fails where the floor matters: a class whose rows hold no
    error shows no spread to measure the repeats by (its estimate is then the cap), and one
    with one or two errors measures them from those alone. How far a run's seeds repeat its
    predictions is read from its other classes too (a leader with every positive right shows
    its repeats on the negatives), and from the board: its groups (runs) score the same examples
    under the same seeds (docs/calibration_leader.md, Stop 39).

    The median misses a minority of runs that repeat on one class only: the lucky one among
    them, whose repeated predictions got that class right, shows its seeds' few fresh errors
    unrepeated, and led boards of 1,000 runs to lose a best run in 0.12 of them (Stop 40). So
    the board's repeaters are counted too: a group is one on a class where its estimate's
    lower :data:`REPEAT_ALPHA` bound (``deff·ν/χ²_{ν, 1 − α}``, ``ν`` the Bell–McCaffrey degrees
    of freedom) exceeds 1, and where more groups are than rows without repeats would give by
    chance (``αH + 3√(αH) + 1`` of the ``H`` groups with spread on the class), every group reads
    the class at least at the repeaters' median estimate, or at its own estimate's upper bound
    (``deff·ν′/χ²_{ν′, α}``, ``ν′`` at most one less than its clusters holding a miss of the
    class, or a hit, the fewer) where that is lower: a group with many examples of the class
    shows that it does not repeat, one with ten, or with two misses, cannot
    (docs/calibration_leader.md, Stop 41).

    Examples
    --------
    Two runs score two positives and two negatives under three seeds. On the positives the first
    run's seeds agree (one example always missed, one always found: 3), which its negatives
    take too; the second's do not (1), and the positives' median, 2, lifts it. On the negatives
    both runs' seeds disagree:

    >>> import batcheval as be
    >>> pos = pl.DataFrame({"run": [0, 0, 1, 1] * 3, "ex": [0, 1] * 6, "label": [1] * 12,
    ...                     "prediction": [0, 1, 1, 1] + [0, 1, 0, 1] + [0, 1, 1, 1]})
    >>> neg = pl.DataFrame({"run": [0, 0, 1, 1] * 3, "ex": [2, 3] * 6, "label": [0] * 12,
    ...                     "prediction": [1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0]})
    >>> df = pl.concat([pos, neg])
    >>> table = be.ContingencyTable.from_frame(df, by="run")
    >>> cells = cluster_cells(df, ["run"], ["ex"], "label", "prediction", table)
    >>> repeated_rows(table.counts, cells).round(4).tolist()
    [[3.0, 3.0], [1.0, 2.0]]
    """
    from scipy import special

    counts = np.asarray(counts)
    own = np.empty(counts.shape[:2])
    dof = np.empty(counts.shape[:2])
    for k in range(counts.shape[1]):
        effects, _ = design_effects(_versus_rest(counts, k), cells.versus_rest(k), ["recall"])
        own[:, k], dof[:, k] = effects["recall"][0], effects["recall"][3]
    # a class no group holds, or a group with no class estimate, stays NaN (then 1 below), taken
    # apart rather than under warnings.catch_warnings, which swaps the filters of every thread
    held = ~np.isnan(own)
    board, run = np.full(own.shape[1], np.nan), np.full(own.shape[0], np.nan)
    board[held.any(axis=0)] = np.nanmedian(own[:, held.any(axis=0)], axis=0)
    run[held.any(axis=1)] = np.nanmax(own[held.any(axis=1)], axis=1)
    d = np.fmax(np.fmax(own, board[None, :]), run[:, None])
    # a class with no error (or no hit) has no spread, and its estimate is the cap, not a measure
    hits, rows = np.einsum("gkk->gk", counts), counts.sum(axis=2)
    spread = (hits > 0) & (hits < rows) & np.isfinite(own) & np.isfinite(dof)
    # the lower bound above 1 is the χ² tail of own·ν below α: the tail, not its inverse (a
    # sixth of the time; the inverse took 1.5 µs a value, 0.6 s for 100k binary runs)
    repeats = spread & (
        special.chdtrc(np.where(spread, dof, 1.0), np.where(spread, own * dof, 0.0)) < REPEAT_ALPHA
    )
    held, found = spread.sum(axis=0), repeats.sum(axis=0)
    chance = REPEAT_ALPHA * held + 3.0 * np.sqrt(REPEAT_ALPHA * held) + 1.0
    triggered = np.flatnonzero(found > chance)
    if len(triggered):  # each cluster's rows of each class it holds, and its hits among them
        pair, real, cell_rows, cell_hits = cells.real_rows()
        pair_group = cells.group[pair]
    for k in triggered:
        # the spread of a rate near 0 or 1 is measured by its few clusters holding the rarer
        # outcome, not by every cluster: a lucky repeater with three fresh misses in three
        # examples bounds its repeats with ν = 2, not 9 (ten seeds: ν = 9 read 4.3 where the
        # truth was 8.3, and boards of 1,000 runs lost a best run in 0.20 of them)
        of = real == k
        group = pair_group[of]
        missing = np.bincount(group, weights=cell_hits[of] < cell_rows[of], minlength=len(counts))
        hitting = np.bincount(group, weights=cell_hits[of] > 0, minlength=len(counts))
        nu = np.where(
            spread[:, k], np.clip(np.fmin(np.minimum(missing, hitting) - 1.0, dof[:, k]), 1.0, None), 1.0
        )
        ends, at = np.unique(nu, return_inverse=True)  # the inverse once a distinct ν: few of them
        high = np.where(spread[:, k], own[:, k] * nu / special.chdtri(ends, 1.0 - REPEAT_ALPHA)[at], np.inf)
        d[:, k] = np.fmax(d[:, k], np.fmin(high, np.median(own[repeats[:, k], k])))
    return np.clip(np.nan_to_num(d, nan=1.0), 1.0, rows_per_example(cells, len(counts)))


def bell_mccaffrey_dof(totals: np.ndarray, s2: np.ndarray, sq: np.ndarray, sq2: np.ndarray) -> np.ndarray:
    """Bell & McCaffrey's (2002) Satterthwaite degrees of freedom of the CR2 sum of an
    intercept-only fit under working independence: with ``n_c`` the units of each cluster,
    ``N = Σ n_c`` (``totals``) and ``q_c = n_c²/(N − n_c)``, from ``s2 = Σ n_c²``, ``sq = Σ q_c``
    and ``sq2 = Σ q_c²`` (:func:`batcheval.kernels.clustered.leveraged_sums`),

    .. math:: \\nu = \\frac{N^2}{\\sum_c n_c^2 + (\\sum_c q_c)^2 - \\sum_c q_c^2}

    (``tr(B)²/tr(B²)`` for ``B = (I − H) W (I − H)``, ``W`` the CR2 weights: ``tr B = N``). For
    ``C`` clusters of equal size it is ``C − 1``; a few large clusters bring it down towards the
    number of large ones. Clusters without a unit drop out (a proportion's clusters without a
    trial). At least 1; NaN without units.

    Examples
    --------
    Four clusters of 3, and three of 1 with one of 9:

    >>> n = np.array([[3.0, 3, 3, 3], [1, 1, 1, 9]])
    >>> q = n * n / (12 - n)
    >>> bell_mccaffrey_dof(n.sum(1), (n * n).sum(1), q.sum(1), (q * q).sum(1)).round(4).tolist()
    [3.0, 1.4578]
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        dof = totals * totals / (s2 + sq * sq - sq2)
    return np.where(totals > 0, np.maximum(dof, 1.0), np.nan)


def pure_groups(cells: ClusterCells, n_groups: int) -> np.ndarray:
    """Per group whether every cluster's rows lie in one cell of the table (single rows, or
    copies of one example with the same prediction): the clustered table is then a table of
    independent clusters, and its design effect holds no noise to allow for.

    Examples
    --------
    >>> counts = np.array([[[2, 0], [0, 0]], [[0, 0], [0, 1]], [[1, 1], [0, 0]]])
    >>> pure_groups(ClusterCells.from_dense(counts, np.array([0, 0, 1]), np.arange(3), 2), 2).tolist()
    [True, False]
    """
    mixed = np.diff(cells.start) > 1  # rows in more than one cell
    return np.bincount(cells.group, weights=mixed.astype(np.float64), minlength=n_groups) == 0


def clustered_intervals(
    counts: np.ndarray,
    cells: ClusterCells,
    names: Sequence[str],
    level: float = 0.95,
    *,
    positive: int = 1,
    reference: str = "t",
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``(low, high)`` of every measure in ``names`` for every table, cluster-robust.

    Each is the unclustered interval of the measure's *effective* data, the table (or the
    trials) divided by the design effect of :func:`design_effects`: a chance-corrected
    measure gets the unclustered interval (the score interval of binary informedness and
    markedness, the adjusted delta method otherwise) of the table of effective counts,
    ``counts/deff`` rounded, moved to the estimate (no side narrower than the rows' where
    ``deff ≥ 1``); a proportion the Wilson interval with
    Korn & Graubard's effective trials ``m/deff`` (their ``p(1 − p)/var``) and the one-sided
    Poisson ends of :func:`modified_wilson_z`. The critical value is Student's t quantile
    with Bell & McCaffrey's degrees of freedom (:func:`bell_mccaffrey_dof`: ``C − 1`` for
    ``C`` equal clusters; over the clusters holding a trial for a proportion), the
    few-clusters allowance for the noise in the estimated design effect; where every
    cluster's rows lie in one cell
    (:func:`pure_groups`: single rows, or copies of one example) the design effect is known
    and the normal quantile is used. So single-row clusters give the unclustered interval
    itself, and examples repeated ``m`` times with the same prediction that of the examples
    without repeats.

    ``reference="normal"`` gives batcheval's first cluster-robust interval, kept for
    comparison (``estimate ± z·se`` with the CR1 variance :func:`cluster_variance` for the
    chance-corrected measures, Wilson with ``min(p(1 − p)/var, m)`` trials at the normal
    quantile for the proportions).

    The clustered counterpart of :func:`batcheval.inference.intervals.intervals`
    with ``method="wilson_delta"`` (see the module docstring; coverage in
    docs/calibration_cluster.md).

    Examples
    --------
    >>> import batcheval as be
    >>> df = pl.DataFrame({"ex": [0, 0, 1, 1, 2, 2, 3, 3], "label": [1, 1, 0, 0, 1, 1, 0, 0],
    ...                    "prediction": [1, 1, 0, 0, 0, 0, 0, 0]})
    >>> table = be.ContingencyTable.from_frame(df)
    >>> cells = cluster_cells(df, [], ["ex"], "label", "prediction", table)
    >>> low, high = clustered_intervals(table.counts, cells, ["recall"])["recall"]
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.0256, 0.9744)

    Two positive examples of two rows each, one found: every cluster's rows agree, so the
    design effect is 2 and the interval is that of 1 success in 2 trials at the normal
    quantile, whose ends are the Poisson ends ``λ_1/2`` and ``1 − λ_1/2``.

    >>> alone = be.evaluate(df.filter(pl.col("ex").is_in([0, 2])).unique("ex"), measures=["recall"], ci=0.95)
    >>> round(alone["recall_ci_low"][0], 4), round(alone["recall_ci_high"][0], 4)
    (0.0256, 0.9744)
    """
    from scipy import special

    _intervals.check_options(level, "wilson_delta", 2, None)
    level = float(level)  # checked: a float16 level took 0.5 + level / 2 in float16
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    k = counts.shape[1]
    capable = clustered_measures(k)
    for name in names:
        if name not in capable:
            raise UnknownMeasureError(
                f"measure {name!r} has no cluster-robust interval for {k} classes; "
                f"measures with one: {capable}"
            )
    if reference not in ("t", "normal"):
        raise InvalidArgumentError(f"reference must be 't' or 'normal', got {reference!r}")
    # every row of a group repeated r times (seeds pooled that score alike): one copy's data, so
    # that copies of every row give one copy's interval (the design effect's floor, and "the
    # rows' own" interval below, count one copy's rows); the estimates are the table's
    full = counts
    counts, cells = one_copy(counts, cells)
    if reference == "normal":
        if closed := [
            m for m in names if m in _intervals.BINARY_CLOSED_FORMS or _intervals.interval_twin(m, k) != m
        ]:
            raise UnknownMeasureError(f"reference='normal' has no interval for {closed}")
        point = _measures.compute(full, list(names), positive=positive)
        return _normal_intervals(counts, cells, names, level, positive, point)
    # binary f1 and jaccard take the interval of tp in tp + fp + fn (intervals.closed_form_interval),
    # mcc, macro_informedness, weighted_recall, ... the one they equal's (intervals.interval_twin),
    # each with the design effect of what it is built on
    twins = {m: t for m in names if (t := _intervals.interval_twin(m, k)) != m}
    base = {"f1": "jaccard", **twins}
    names_of = list(dict.fromkeys(base.get(m, m) for m in names))
    point = _measures.compute(full, names_of, positive=positive)
    z = float(special.ndtri(0.5 + level / 2.0))
    effects, pure = design_effects(counts, cells, names_of, positive=positive)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in names_of:
        deff, _, _, dof = effects[name]
        # Student's t with Bell & McCaffrey's degrees of freedom (C − 1 for equal clusters)
        crit = np.where(pure, z, cluster_quantile(level, dof + 1.0))
        if name in _intervals.DELTA_MEASURES:
            out[name] = _effective_interval(counts, name, point[name], deff, crit, z, level)
            continue
        x, m = _intervals.proportion(counts, name, positive)
        with np.errstate(invalid="ignore", divide="ignore"):
            m_eff = np.where(np.isfinite(deff), m / deff, 0.0)
            x_eff = np.where(deff == 1.0, x, x / m * m_eff)  # deff 1: the counts themselves
        x_star = None if name == "accuracy" else 1
        out[name] = modified_wilson_z(np.where(m_eff > 0, x_eff, 0.0), m_eff, crit, level, x_star=x_star)
    if "f1" in names:
        low, high = out["jaccard"]
        out["f1"] = (2 * low / (1 + low), 2 * high / (1 + high))
    out.update({m: out[base[m]] for m in names if m in base and m != "f1"})
    return {m: out[m] for m in names}


def clustered_measures(n_classes: int) -> list[str]:
    """Measures with a cluster-robust interval (:func:`clustered_intervals`) for
    ``n_classes`` classes: those with a Wilson or delta-method interval, and for two
    classes the closed forms of f1, jaccard and mcc and the measures equal to one of them
    (``measures.BINARY_EQUIVALENT``: macro_informedness is informedness, ...; weighted_recall
    is accuracy at any ``n_classes``).

    Examples
    --------
    >>> clustered_measures(3)
    ['accuracy', 'informedness', 'markedness', 'correlation', 'kappa_cohen', 'weighted_recall']
    >>> [m for m in clustered_measures(2) if m in ("f1", "jaccard", "mcc", "macro_f1")]
    ['f1', 'jaccard', 'mcc']
    """
    closed = list(_intervals.BINARY_CLOSED_FORMS) if n_classes == 2 else []
    own = [*_intervals.interval_measures(n_classes, "wilson_delta"), *closed]
    candidates = dict.fromkeys([*_measures.BINARY_EQUIVALENT, "weighted_recall"])
    return [*own, *(m for m in candidates if m not in own and _intervals.interval_twin(m, n_classes) != m)]


def _normal_intervals(
    counts: np.ndarray, cells: ClusterCells, names: Sequence[str], level: float, positive: int,
    point: dict[str, np.ndarray],
) -> dict[str, tuple[np.ndarray, np.ndarray]]:  # fmt: skip
    """``reference="normal"`` of :func:`clustered_intervals`: Wald with the CR1 variance for the
    chance-corrected measures, Wilson with ``min(p(1 − p)/var, m)`` trials (``H`` where ``p`` is 0
    or 1) for the proportions, both at the normal quantile."""
    from scipy import special

    k = counts.shape[1]
    n_clusters = cells.sizes(len(counts))
    z = np.full(len(counts), float(special.ndtri(0.5 + level / 2.0)))
    variances = _cluster_variances(counts, cells, names, positive)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in names:
        var = variances[name]
        if name in _intervals.DELTA_MEASURES:
            se = np.sqrt(var)
            out[name] = (np.clip(point[name] - z * se, -1.0, 1.0), np.clip(point[name] + z * se, -1.0, 1.0))
            continue
        mask = _intervals.trial_cells(k, name, positive).reshape(1, k * k)
        holding = pairs_holding(cells.start, cells.cell, cells.count, cells.group, mask, len(counts))[0]
        x, m = _intervals.proportion(counts, name, positive)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = x / m
            m_eff = np.where((var > 0) & (p > 0) & (p < 1), np.minimum(p * (1.0 - p) / var, m), holding)
        m_eff = np.where(n_clusters < 2, 0.0, m_eff)
        out[name] = wilson_z(np.where(m_eff > 0, p * m_eff, 0.0), m_eff, z)
    return out


def _effective_interval(
    counts: np.ndarray, name: str, est: np.ndarray, deff: np.ndarray, crit: np.ndarray, z: float,
    level: float,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The unclustered interval of a chance-corrected measure (score or adjusted delta) on the
    table of effective counts ``counts/deff`` (rounded), moved to the estimate and widened from
    the normal quantile ``z`` to ``crit``. Where that table leaves the measure undefined, the
    interval of the rows widened by ``√deff`` instead; where ``deff`` is 1 and ``crit`` is ``z``,
    the interval of the rows itself. Where ``deff ≥ 1`` neither side is narrower than the rows'
    (before the widening to ``crit``). NaN where ``deff`` is."""
    bad = ~np.isfinite(deff)
    d = np.where(bad, 1.0, deff)
    stretch = crit / z
    low_r, high_r = _intervals.intervals(counts, [name], level)[name]
    eff = np.rint(np.asarray(counts) / d[:, None, None]).astype(np.int64)
    low_e, high_e = _intervals.intervals(eff, [name], level)[name]
    est_e = _measures.compute(eff, [name])[name]
    ok = np.isfinite(low_e) & np.isfinite(high_e) & np.isfinite(est_e)
    root = np.sqrt(d)
    below = np.where(ok, est_e - low_e, (est - low_r) * root)
    above = np.where(ok, high_e - est_e, (high_r - est) * root)
    # rounding can empty the effective table's error cells ([[20, 1], [1, 15]]/2.02 is [[10, 0], [0, 7]],
    # a perfect table) and end the interval at the estimate; fewer independent rows than rows never
    # make a side narrower than the rows' own
    wider = d >= 1.0
    below = np.where(wider, np.fmax(below, est - low_r), below)
    above = np.where(wider, np.fmax(above, high_r - est), above)
    low = np.clip(est - stretch * below, -1.0, 1.0)
    high = np.clip(est + stretch * above, -1.0, 1.0)
    same = (d == 1.0) & (stretch == 1.0)  # the table itself at the normal quantile: its interval
    low, high = np.where(same, low_r, low), np.where(same, high_r, high)
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def cluster_quantile(level: float, n_clusters: np.ndarray) -> np.ndarray:
    """The ``0.5 + level/2`` quantile of Student's t with ``C − 1`` degrees of freedom per group
    (NaN below two clusters): the few-clusters reference of a cluster-robust statistic
    (Cameron & Miller 2015, §VI.C; docs/calibration_cluster.md).

    Examples
    --------
    >>> cluster_quantile(0.95, np.array([1.0, 2.0, 20.0, 1e9])).round(4).tolist()
    [nan, 12.7062, 2.093, 1.96]
    """
    from scipy import special

    c = np.asarray(n_clusters, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(c >= 2, special.stdtrit(np.maximum(c - 1.0, 1.0), 0.5 + level / 2.0), np.nan)


def cluster_t_p(diff: np.ndarray, se: np.ndarray, n_clusters: np.ndarray) -> np.ndarray:
    """Two-sided p-value of ``diff/se`` against Student's t with ``C − 1`` degrees of freedom
    (a zero ``se`` gives 1 for a zero difference and NaN otherwise, as
    :func:`batcheval.inference.comparisons.normal_p`).

    Examples
    --------
    >>> cluster_t_p(np.array([0.2, 0.0]), np.array([0.1, 0.0]), np.array([20.0, 20.0])).round(4).tolist()
    [0.06, 1.0]
    """
    from scipy import special

    c = np.asarray(n_clusters, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(diff) / se
        p = 2.0 * special.stdtr(np.maximum(c - 1.0, 1.0), -t)
    p = np.where(c >= 2, p, np.nan)
    return np.where(se == 0, np.where(diff == 0, 1.0, np.nan), p)


def wilson_z(successes: np.ndarray, trials: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of ``successes / trials`` with a critical value ``z`` per interval
    (NaN where ``trials = 0`` or ``z`` is NaN); at the normal quantile it is
    :func:`batcheval.inference.intervals.wilson`.

    Examples
    --------
    >>> low, high = wilson_z(np.array([7.0]), np.array([10.0]), np.array([1.959963984540054]))
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.3968, 0.8922)
    """
    x = np.asarray(successes, dtype=np.float64)
    m = np.asarray(trials, dtype=np.float64)
    return _intervals.wilson_ends(x, m, z)


def modified_wilson_z(
    successes: np.ndarray, trials: np.ndarray, z: np.ndarray, level: float = 0.95, x_star: int | None = 1
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`wilson_z` with the one-sided Poisson ends of
    :func:`batcheval.inference.intervals.modified_wilson`, for effective (fractional) counts.

    Where ``0 < x ≤ x*`` the lower end is the smaller of Wilson's and ``λ_x/m`` (``λ_x`` the
    ``α = 1 − level`` quantile of a Gamma(x) variable, ``½ χ²_{2x, α}`` for whole ``x``), and
    likewise the upper end for ``m − x``. ``x_star=None`` is Brown, Cai & DasGupta's rule
    (2 for ``m ≤ 50``, else 3). Plain Wilson at the critical value of t covered recall 0.879
    for single-row clusters of 5 positives at recall 0.975 (one miss: upper end 0.973), below
    the floor of 0.92 that the unclustered interval meets with this end (0.994). Taking the
    wider end keeps the interval at least as wide as the Wilson interval at ``z`` (a t quantile
    for few clusters), which the Poisson end does not widen.

    Examples
    --------
    >>> z = np.array([2.262157162740992] * 2)  # t with 9 degrees of freedom
    >>> low, high = modified_wilson_z(np.array([3.6, 4.5]), np.array([4.5, 4.5]), z)
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.3078, 0.4679], [0.9922, 1.0])
    """
    x = np.asarray(successes, dtype=np.float64)
    m = np.asarray(trials, dtype=np.float64)
    low, high = wilson_z(x, m, z)
    cut = np.where(m <= 50, 2.0, 3.0) if x_star is None else np.float64(x_star)
    f = m - x
    low_poisson, high_poisson = _intervals.poisson_ends(x, m, level)
    # a rounding error must not make a whole table look one failure short
    tiny = 1e-9 * np.maximum(m, 1.0)
    low = np.where((x > tiny) & (x <= cut + tiny), np.fmin(low, low_poisson), low)
    high = np.where((f > tiny) & (f <= cut + tiny), np.fmax(high, high_poisson), high)
    return low, high


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


def paired_cluster_count(cells: ClusterCells, ref: np.ndarray) -> np.ndarray:
    """The number of clusters either of a group and its reference ``ref[g]`` has rows in (the
    ``C`` of :func:`paired_cluster_se`, whose t test has ``C − 1`` degrees of freedom).

    Examples
    --------
    >>> cells = ClusterCells.from_dense(np.zeros((5, 2, 2), np.int64), np.array([0, 0, 0, 1, 1]),
    ...                                 np.array([0, 1, 2, 2, 3]), 2)
    >>> paired_cluster_count(cells, np.array([1, 0])).tolist()
    [4.0, 4.0]
    """
    g_count = cells.n_groups
    n_clusters = np.bincount(cells.group, minlength=g_count).astype(np.float64)
    at = np.maximum(np.asarray(ref, dtype=np.int64), 0)
    pairs = pl.DataFrame({"g": cells.group, "c": cells.cluster})
    left = pairs.with_columns(pl.Series("ref", at[cells.group]))
    shared = left.join(pairs.rename({"g": "ref"}), on=["ref", "c"], how="inner")
    n_shared = np.bincount(shared.get_column("g").to_numpy(), minlength=g_count)
    return n_clusters + n_clusters[at] - n_shared


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
            # a key may also be the cluster (one passage per group), but a class column may not:
            # the setdefault alone let example="label" pass and cluster the rows by their class
            if role in ("example", "cluster") and col in (label, prediction):
                raise DuplicateColumnError(f"column {col!r} is named twice: as {role} and as {roles[col]}")
            roles.setdefault(col, role)
    df = select_columns(data, list(roles), roles)
    if drop_nulls:
        df = df.filter(pl.col(label).is_not_null() & pl.col(prediction).is_not_null())
    check_cluster_columns(df, examples, clusters)
    return df


def grouped_cells(
    table: ContingencyTable, df: pl.DataFrame, units: Sequence[str], label: str, prediction: str,
    pool: Sequence[str], versus: Any, examples: Sequence[str] = (),
) -> tuple[np.ndarray, ClusterCells]:  # fmt: skip
    """The (pooled) groups' tables and their cluster cells, class ``versus`` against the rest
    when given (the cells are counted over ``table``'s own classes first); ``examples``: the
    example ids, where ``units`` are clusters of them (:func:`cluster_cells`)."""
    if pool:
        table = table.pool(list(pool))
    cells = cluster_cells(df, table.by, units, label, prediction, table, examples)
    if versus is None:
        return np.asarray(table.counts), cells
    index = table.classes.to_list().index(versus)
    return np.asarray(table.versus_rest(versus).counts), cells.versus_rest(index)


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
    versus: Any = None,
    prepared: tuple[np.ndarray, ClusterCells] | None = None,
    examples: Sequence[str] = (),
) -> pl.DataFrame:
    """Append cluster-robust ``<measure>_ci_low`` / ``_ci_high`` to an
    :func:`~batcheval.evaluate` frame, ``df`` holding its rows with the ``units`` columns
    (:func:`select_clustered`); like :func:`batcheval.inference.intervals.add_intervals`
    with ``method="wilson_delta"``. ``versus``, ``prepared``: as in :func:`add_clustered_chance`;
    ``examples``: the example ids where ``units`` are clusters of them (:func:`cluster_cells`)."""
    counts, cells = prepared or grouped_cells(table, df, units, label, prediction, pool, versus, examples)
    if versus is not None:
        table = table.versus_rest(versus)
    k = counts.shape[1]
    if k == 0:  # no rows: the columns of two classes, as the unclustered intervals give
        counts, k = np.zeros((0, 2, 2), dtype=np.int64), 2
    # two classes per class: positive=0's and positive=1's intervals (intervals.by_class)
    positives = (0, 1) if per_class and k == 2 and table.n_classes == 2 else None
    if per_class and positives is None:
        counts, cells, k, pos = one_vs_rest(counts), cells.one_vs_rest(), 2, 1
    else:
        pos = table.positive_index(positive) if k == 2 and table.n_classes == 2 else 1
    if k == 1 and _intervals.binary_only(measures):
        # one class: its binary measures (recall, ...) are those of the class against the (empty)
        # rest, as add_intervals reads them; they were left out (recall alone an error)
        counts, cells, k, pos = one_vs_rest(counts), cells.one_vs_rest(), 2, 1
    capable = clustered_measures(k)
    wanted = _measures.default_measures(k, beta) if measures is None else list(measures)
    # mcc, macro_informedness and macro_markedness of a group of at most two present classes are
    # correlation, informedness and markedness (measures.BINARY_EQUIVALENT), with their intervals, as
    # add_intervals gives them: they had none (an error when named alone) with classes=[0, 1, 2] or
    # beside a group of three classes, and in a one-class table unless recall was named with it
    part = {m: b for m, b in _measures.BINARY_EQUIVALENT.items() if m in wanted and m not in capable}
    few = np.count_nonzero(_intervals.present_classes(counts), axis=1) <= 2 if part else np.zeros(0, bool)
    if measures is None or not few.any():
        part = {}
    # binary f_beta with beta = 1 is f1 on every table and with beta = 0 precision, so it takes their
    # cluster-robust interval (it had none, an error when named alone), as add_intervals gives it theirs
    f_twin = _intervals.interval_twin("f_beta", k, beta) if "f_beta" in wanted else "f_beta"
    names = [m for m in wanted if m in capable or m in part or (m == "f_beta" and f_twin != m)]
    if not names:
        raise UnknownMeasureError(
            f"none of measures={list(wanted)} has a cluster-robust interval; measures with one: {capable}"
        )
    # a silent gap reads as "no interval needed": name what the bootstrap of the rows would have
    # given without example= (it resamples rows, so it cannot stand in here)
    boot = _intervals.interval_measures(k, "bootstrap")
    left = [m for m in wanted if m not in names and m in boot]
    if left and measures is not None:
        warn(f"no cluster-robust interval for {left}: with example= or cluster= only {capable} have one")
    if part and not few.all():
        warn(
            f"no cluster-robust interval for {', '.join(part)} of a group of three or more classes (NaN): "
            "of a group of at most two classes only"
        )
    own = (f_twin if m == "f_beta" else m for m in names if m not in part)
    asked = list(dict.fromkeys([*own, *part.values()]))
    result = _intervals.by_class(
        lambda c: clustered_intervals(counts, cells, asked, ci, positive=c), positives or (pos,)
    )
    if part:
        # the equivalents' intervals, each group cut to its present classes (intervals.chance_interval)
        for name, b in part.items():
            result[name] = tuple(np.where(few, end, np.nan) for end in result[b])
    if f_twin != "f_beta":
        result["f_beta"] = result[f_twin]
    result = {m: result[m] for m in names}
    return frame.hstack(_intervals.interval_columns(frame, result))


#: the chance tests that have a clustered counterpart, and what is computed from them
CLUSTERED_CHANCE = ("p_informedness", "p_markedness", "alpha_sbb")


def chance_design_effects(counts: np.ndarray, cells: ClusterCells) -> tuple[np.ndarray, np.ndarray]:
    """Design effects ``(deff_B, deff_M)`` of the chance statistics of informedness and
    markedness per group: the variance of the statistic under the null of no association
    with rows dependent within clusters, over its variance with independent rows.

    Given the margins, B and M are linear in the diagonal cells: ``T = Σ_i u_i`` with the
    row score ``u_i = Σ_k w_k a_ik b_ik``, ``a_ik = [y_i = k] − r_k/n``,
    ``b_ik = [ŷ_i = k] − p_k/n`` (``w_k = 1/(n − r_k)`` for B, ``1/(n − p_k)`` for M). Under
    the null labels and predictions are independent, so ``E[u_i u_j] = Σ_kl w_k w_l
    E[a_ik a_jl]·E[b_ik b_jl]``: zero between clusters, and within a cluster whatever the
    rows share, the same example repeated by seeds included. The design effect is the
    cluster sums' squares over the rows' squares,

        deff = Σ_c T_c² / Σ_i u_i²,   T_c = Σ_{i in c} u_i,

    the ratio of a cluster-robust (sandwich) variance of ``T`` to the same estimate for
    independent rows (Kish's design effect of a total; Rao & Scott 1984, Ann. Statist.
    12:46). Both sums are driven by the same rows, so a few clusters of a rare class sway
    them together: a z test on ``Σ_c T_c²`` alone rejected 0.27-0.30 of true nulls at
    prevalence 0.1 (docs/calibration_cluster.md). Each cluster's products of distinct rows
    enter as they are, not pooled over the clusters as if every pair of rows in a cluster
    were alike: that pooled estimate (stop 52's) missed the copies of one row that seeds
    make inside a passage, and the test rejected up to 0.206 of true nulls at 0.05 with 5
    copies.

    Single-row clusters give exactly 1; every cluster ``m`` copies of one row, exactly
    ``m``. NaN where a margin has one class (nothing to test) or no row scores.

    Examples
    --------
    Ten examples each scored three times with the same prediction: the design effect is 3.

    >>> import batcheval as be
    >>> one = pl.DataFrame({"ex": range(10), "label": [0, 1] * 5, "prediction": [0, 0, 1, 1, 1] * 2})
    >>> df = pl.concat([one] * 3)
    >>> table = be.ContingencyTable.from_frame(df)
    >>> cells = cluster_cells(df, [], ["ex"], "label", "prediction", table)
    >>> [round(float(d[0]), 12) for d in chance_design_effects(table.counts, cells)]
    [3.0, 3.0]
    """
    counts = np.asarray(counts, dtype=np.float64)
    n_groups, k = counts.shape[0], counts.shape[1]
    n = counts.sum(axis=(1, 2))
    r = counts.sum(axis=2)  # real class sizes [G, K]
    q = counts.sum(axis=1)  # predicted class sizes [G, K]
    with np.errstate(invalid="ignore", divide="ignore"):
        share_r = np.nan_to_num(r / n[:, None])
        share_q = np.nan_to_num(q / n[:, None])
    both = (r.max(axis=1, initial=0) < n) & (q.max(axis=1, initial=0) < n)  # two classes in each margin
    at = np.repeat(cells.group, np.diff(cells.start)) * (k * k) + cells.cell  # each entry's cell of u
    count = cells.count.astype(np.float64)
    out = []
    # two classes: B's and M's row scores differ by a factor per group, which the ratio cancels
    for margin in (r,) if k == 2 else (r, q):
        with np.errstate(invalid="ignore", divide="ignore"):
            w = np.where(n[:, None] > margin, 1.0 / (n[:, None] - margin), 0.0)
        # u_ij = Σ_k w_k (δ_ik − r_k/n)(δ_jk − p_k/n), expanded
        u = (
            w[:, :, None] * np.eye(k)
            - (w * share_q)[:, :, None]
            - (w * share_r)[:, None, :]
            + np.sum(w * share_r * share_q, axis=1)[:, None, None]
        )
        u_at = u.reshape(-1)[at]
        score = count * u_at
        t = np.bincount(cells.entry_pair, weights=score, minlength=cells.n_pairs)
        s = np.bincount(cells.entry_pair, weights=score * u_at, minlength=cells.n_pairs)
        # pair by pair, so that a single-row cluster adds the same u·u to both sums: exactly 1
        top = np.bincount(cells.group, weights=t * t, minlength=n_groups)[:n_groups]
        bottom = np.bincount(cells.group, weights=s, minlength=n_groups)[:n_groups]
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where(both & (bottom > 0), top / bottom, np.nan))
    return out[0], out[-1].copy() if k == 2 else out[1]


def effective_counts(counts: np.ndarray, deff: np.ndarray) -> np.ndarray:
    """Each table's cells divided by its design effect (NaN is 1) and rounded: the table of
    independent rows that carries the clustered table's information about association
    (Korn & Graubard 1998's effective sample size, applied to every cell).

    A design effect below 1 (clusters that balance each other: rows of a cluster alike in
    one variable and unlike in the other) enlarges the table. It has no floor but the one
    that keeps the cells finite (``1/n``, and ``n/2**62`` for the widest tables): the
    sandwich ratio limits itself, as ``T² ≤ C·Σ_c T_c²`` keeps the effective table's z² near
    the number of clusters ``C`` at most. A floor at 1 made the test conservative where
    there is no clustering (0.02-0.03 for 0.05 at 10-20 clusters, where half the estimates
    of a true 1 fall below it), and a fixed floor below 1 broke the invariance to copied
    rows: ``m`` copies multiply the design effect by ``m``, and a floor that binds for one
    copy and not for ``m`` gave the copies a larger table.

    Examples
    --------
    >>> effective_counts(np.array([[[30, 6], [9, 15]]] * 2), np.array([3.0, 0.8])).tolist()
    [[[10, 2], [3, 5]], [[38, 8], [11, 19]]]
    """
    counts = np.asarray(counts)
    n = counts.sum(axis=(1, 2)).astype(np.float64)
    d = np.nan_to_num(np.asarray(deff, dtype=np.float64), nan=1.0)
    d = np.maximum(d, np.maximum(1.0 / np.maximum(n, 1.0), n / 2.0**62))
    return np.rint(counts / d[:, None, None]).astype(np.int64)


def _towards_rows(p: np.ndarray, rows: np.ndarray, deff: np.ndarray) -> np.ndarray:
    """The effective table's p-value, kept on the side of the rows' own that its design
    effect points to: no smaller where ``deff ≥ 1`` (fewer independent rows never give more
    evidence), no larger where ``deff < 1``. Rounding each cell on its own can move the
    association against the design effect ([[12, 6], [6, 12]]/1.13 -> [[11, 5], [5, 11]], odds
    ratio 4.84 for 4); rounding towards independence was no cure, as the mid-p of a small
    table is not monotone in its z."""
    return np.where(np.nan_to_num(deff, nan=1.0) >= 1.0, np.maximum(p, rows), np.minimum(p, rows))


def clustered_chance(counts: np.ndarray, cells: ClusterCells) -> dict[str, np.ndarray]:
    """Clustered chance tests ``p_informedness`` and ``p_markedness`` of every table.

    The unclustered tests (:mod:`batcheval.kernels.chance`: exact hypergeometric mid-p,
    or the permutation z test for large tables) applied to the table of effective
    counts :func:`effective_counts`, each cell divided by the statistic's design effect
    (:func:`chance_design_effects`; informedness and markedness have their own for
    K > 2). The p-value stays on the side of the rows' own that the design effect points to
    (:func:`_towards_rows`): no smaller for a design effect of 1 or more (rounding the
    effective table cell by cell once gave more evidence than the rows, in 281 of 3,000
    small clustered groups), no larger below 1.

    - single-row clusters (two or more of them): the design effect is 1 and the p-values
      are the unclustered ones exactly;
    - every example repeated ``m`` times with the same prediction: the design effect is
      ``m`` and the effective table is the table without repeats;
    - every row copied ``m`` times by seeds pooled with ``pool=`` (read from ``example=``,
      :attr:`ClusterCells.multiplicity`): the p-values are those of one copy
      (:func:`one_copy`), as the intervals are.
    - one cluster: NaN, as the intervals are: one independent unit tests nothing (its
      design effect has no between-cluster spread to estimate, and floored at 1 it gave
      the rows' p-value, 0.001 for 12 questions about one passage).

    Its size under the null (docs/calibration_cluster.md): within [0.04, 0.06] at nominal
    0.05 where both margins hold 10 clusters or more.

    Examples
    --------
    Forty examples each scored three times with the same prediction: counted as rows,
    the association looks significant; clustered, the p-value is that of the forty.

    >>> import batcheval as be
    >>> one = pl.DataFrame({"ex": range(40), "label": [0, 1] * 20,
    ...                     "prediction": [0, 1, 1, 0, 0, 1, 0, 1, 1, 0] * 4})
    >>> df = pl.concat([one] * 3)
    >>> table = be.ContingencyTable.from_frame(df)
    >>> cells = cluster_cells(df, [], ["ex"], "label", "prediction", table)
    >>> clus = clustered_chance(table.counts, cells)["p_informedness"]
    >>> rows = be.evaluate(df, measures=["p_informedness"])["p_informedness"][0]
    >>> alone = be.evaluate(one, measures=["p_informedness"])["p_informedness"][0]
    >>> round(rows, 4), round(float(clus[0]), 4), round(alone, 4)
    (0.0307, 0.228, 0.228)
    """
    # a group whose rows are all repeated r times (seeds pooled that score alike) is one copy's data:
    # read as r copies, rounding the cells divided by r·deff and the rows' own p-value of r times
    # the rows moved 49 of 1,600 small tables' p-values (a markedness 0.132 -> 0.036 with 2 copies)
    counts, cells = one_copy(np.ascontiguousarray(counts, dtype=np.int64), cells)
    deff_b, deff_m = chance_design_effects(counts, cells)
    two = counts.shape[1] == 2  # one statistic, one design effect: B and M are both the covariance
    rows = _measures.compute(counts, ["p_informedness"] + ([] if two else ["p_markedness"]))
    p_b = _measures.compute(effective_counts(counts, deff_b), ["p_informedness"])["p_informedness"]
    p_b = _towards_rows(p_b, rows["p_informedness"], deff_b)
    if two:
        p_m = p_b.copy()
    else:
        eff_m = effective_counts(counts, deff_m)
        p_m = _towards_rows(_measures.compute(eff_m, ["p_markedness"])["p_markedness"], rows["p_markedness"],
                            deff_m)  # fmt: skip
    one = cells.sizes(len(counts)) < 2
    return {"p_informedness": np.where(one, np.nan, p_b), "p_markedness": np.where(one, np.nan, p_m)}


def add_clustered_chance(
    frame: pl.DataFrame,
    table: ContingencyTable,
    df: pl.DataFrame,
    *,
    units: Sequence[str],
    label: str,
    prediction: str,
    pool: Sequence[str],
    per_class: bool,
    versus: Any = None,
    prepared: tuple[np.ndarray, ClusterCells] | None = None,
) -> pl.DataFrame:
    """Replace ``p_informedness``, ``p_markedness`` and ``alpha_sbb`` of an
    :func:`~batcheval.evaluate` frame by their clustered counterparts
    (:func:`clustered_chance`); a frame without those columns is returned as it is.
    ``versus``: the class the frame's binary measures take against the rest of ``table``'s;
    ``prepared``: what :func:`grouped_cells` gives for these arguments, if already counted."""
    wanted = [c for c in CLUSTERED_CHANCE if c in frame.columns]
    if not wanted:
        return frame
    counts, cells = prepared or grouped_cells(table, df, units, label, prediction, pool, versus)
    # two classes: both rows are the table's own tests, as positive=0 and positive=1 give them, so
    # that the class rows agree (tests/test_per_class_binary.py); the unclustered class-0 p-values,
    # of the table reoriented for class 0, can differ from them in the last bit
    pair = per_class and counts.shape[1] == 2 and table.n_classes == 2
    if per_class and not pair:
        counts, cells = one_vs_rest(counts), cells.one_vs_rest()
    p = clustered_chance(counts, cells)
    if pair:
        p = {name: np.repeat(values, 2) for name, values in p.items()}
    values = {**p, "alpha_sbb": alpha_sbb(p["p_informedness"])}
    return frame.with_columns(pl.Series(c, values[c], dtype=pl.Float64) for c in wanted)
