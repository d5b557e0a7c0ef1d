"""Threshold sweeps and exact ROC/PR summaries over scores (spec §6).

``sweep`` turns a score column into one 2×2 table per (group, threshold) and
hands them to the same accumulator and measures as :func:`batcheval.evaluate`,
so every binary measure, pooling and ``_mean``/``_std`` work unchanged.
``auc`` sorts each group's scores once and integrates the exact curves.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from . import measures as _measures
from .counting import _kernel_keys, _key_space
from .encode import class_values, encode_key
from .errors import ColumnNotFoundError, InvalidLabelError, NullValuesError, SourceError
from .evaluate import _pooled
from .frames import as_key_list, check_roles, select_columns
from .kernels import count as _count
from .kernels import sweep as _sweep
from .kernels.jit import n_threads
from .multiscore import _IS_POS as _IS_CLASS
from .multiscore import _SCORE as _SCORE_COL
from .multiscore import is_multiclass_score, one_vs_rest_frame, predicted_shares
from .sources import DEFAULT_BATCH_ROWS, is_streamed, open_parts
from .stream import reduce_parts
from .table import ContingencyTable

__all__ = ["auc", "sweep"]

_AREAS = ("roc_auc", "roc_auch", "pr_auc")


@dataclass
class _Scored:
    """Encoded keys, scores and positive flags of the rows that take part."""

    by: list[str]
    frame: pl.DataFrame
    score: np.ndarray
    is_pos: np.ndarray
    label_values: tuple


def _prepare(
    data: Any,
    by: str | Sequence[str] | None,
    label: str,
    score: str,
    positive: Any,
    classes: Sequence[Any] | None,
    drop_nonfinite: bool,
    drop_nulls: bool,
) -> _Scored:
    keys = as_key_list(by)
    roles = {k: "key" for k in keys} | {label: "label", score: "score"}
    df = select_columns(data, [*keys, label, score], roles)
    s = df.get_column(score)
    if not s.dtype.is_numeric():
        raise InvalidLabelError(f"score column {score!r} has dtype {s.dtype}; scores must be numeric")
    nulls = s.null_count() + df.get_column(label).null_count()
    if nulls:
        if not drop_nulls:
            raise NullValuesError(
                f"score column {score!r} or label column {label!r} has {nulls} null value(s); "
                "pass drop_nulls=True to skip those rows"
            )
        df = df.filter(pl.col(score).is_not_null() & pl.col(label).is_not_null())
    scores = df.get_column(score).cast(pl.Float64)
    bad = int((~scores.is_finite()).sum())
    if bad:
        if not drop_nonfinite:
            raise InvalidLabelError(
                f"score column {score!r} has {bad} NaN or infinite value{'s' if bad > 1 else ''}; "
                "pass drop_nonfinite=True to skip those rows"
            )
        df = df.filter(pl.col(score).cast(pl.Float64).is_finite())
        scores = df.get_column(score).cast(pl.Float64)
    lab = df.get_column(label)
    values = class_values(lab, classes)
    if positive is None and len(values) < 2 and set(values) <= {0, 1}:
        positive = True if lab.dtype == pl.Boolean else 1  # spec §1: class 1 is positive
        values = sorted(set(values) | {positive})
    if positive is None:
        if len(values) != 2:
            raise InvalidLabelError(
                f"label column {label!r} has classes {values}; a score sweep needs two classes, "
                "or name the class to score with positive="
            )
        positive = values[1]
    elif positive not in values:
        raise InvalidLabelError(f"positive={positive!r} is not one of the classes {values}")
    is_pos = (lab == positive).to_numpy().astype(np.uint8)
    return _Scored(keys, df, np.ascontiguousarray(scores.to_numpy()), is_pos, tuple(values))


def _group_space(scored: _Scored):
    n = scored.frame.height
    cols = [encode_key(scored.frame.get_column(k), n) for k in scored.by]
    return _key_space(cols, n, 1)


def _thresholds(scored: _Scored, thresholds: int | Sequence[float], score_range) -> tuple[np.ndarray, bool]:
    if isinstance(thresholds, int | np.integer):
        if thresholds < 1:
            raise ValueError(f"thresholds must be at least 1, got {thresholds}")
        if score_range is not None:
            lo, hi = (float(v) for v in score_range)
        elif len(scored.score):
            lo, hi = float(scored.score.min()), float(scored.score.max())
        else:
            lo, hi = 0.0, 1.0
        if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
            raise ValueError(f"score_range must be finite with low <= high, got {(lo, hi)}")
        return np.linspace(lo, hi, int(thresholds)), hi > lo and thresholds > 1
    thr = np.unique(np.asarray(list(thresholds), dtype=np.float64))
    if len(thr) == 0 or not np.all(np.isfinite(thr)):
        raise ValueError("an explicit threshold list must be non-empty and finite")
    return thr, False


def sweep(
    data: Any,
    by: str | Sequence[str] | None = None,
    label: str = "label",
    score: str = "score",
    *,
    thresholds: int | Sequence[float] | Literal["exact"] = 101,
    score_range: tuple[float, float] | None = None,
    pool: str | Sequence[str] | None = None,
    measures: Sequence[str] | None = None,
    positive: Any = None,
    classes: Sequence[Any] | None = None,
    beta: float | None = None,
    drop_nonfinite: bool = False,
    drop_nulls: bool = False,
    mean_weights: Literal["n"] | None = None,
    on_error: Literal["raise", "skip"] = "raise",
    progress: bool | None = None,
    batch_rows: int | None = None,
    engine: Literal["local", "dask"] = "local",
    client: Any = None,
) -> pl.DataFrame:
    """Every binary measure at every threshold of a score, for every group.

    A row is predicted positive iff ``score >= threshold``.

    Parameters
    ----------
    data, by, label
        As in :func:`batcheval.evaluate`.
    score
        The score column (any numeric type).
    thresholds
        An int T for T evenly spaced thresholds over ``score_range`` (default:
        the finite min and max of all scores, so every group shares the grid);
        an explicit list; or ``"exact"`` for every distinct score of each group.
    pool, measures, beta, mean_weights
        As in :func:`batcheval.evaluate` (``pool`` sums tables at equal
        thresholds, so use a shared grid, not ``"exact"``, when pooling).
    positive
        The positive class; default the greater of two classes. With more
        classes, naming one sweeps it against the rest.
    drop_nonfinite, drop_nulls
        Skip rows with a NaN/infinite score, or a null score or label, instead
        of raising.
    on_error, progress, batch_rows, engine, client
        Streamed sources and the Dask engine, as in :func:`batcheval.evaluate`.
        A streamed sweep reads the source twice when it needs the score range
        or the positive class (once for the label and score columns only), and
        takes ``thresholds=int`` or a list: ``"exact"`` needs a group's scores
        all at once.

    Returns
    -------
    polars.DataFrame
        One row per group × threshold: keys, ``threshold``, ``n``, ``tp fp fn
        tn`` and the measures.

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({"run": [1, 1, 1, 1], "label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    >>> be.sweep(df, by="run", thresholds=[0.3, 0.5], measures=["recall", "fallout"]).rows()
    [(1, 0.3, 4, 2, 1, 0, 1, 1.0, 0.5), (1, 0.5, 4, 1, 0, 1, 2, 0.5, 0.0)]
    """
    if isinstance(thresholds, str) and thresholds != "exact":
        raise ValueError(f"thresholds must be an int, a list or 'exact', got {thresholds!r}")
    if "threshold" in as_key_list(by):
        raise InvalidLabelError("a key column is named 'threshold', which sweep() adds; rename it")
    report = None
    if is_streamed(data) or engine == "dask":
        stream = _Stream(as_key_list(by), label, score, positive, classes, drop_nonfinite, drop_nulls,
                         batch_rows or DEFAULT_BATCH_ROWS)  # fmt: skip
        table, report = stream.table(data, thresholds, score_range, on_error, progress, engine, client)
    else:
        scored = _prepare(data, by, label, score, positive, classes, drop_nonfinite, drop_nulls)
        table = _threshold_table(scored, thresholds, score_range)
    if pool is None:
        out = table.measures(measures, beta=beta)
    else:
        out = _pooled(table, as_key_list(pool, "pool"), measures, False, None, beta, mean_weights)
    if report is not None:
        out.metadata = report.as_dict()  # type: ignore[attr-defined]
    return out


def _threshold_table(scored: _Scored, thresholds, score_range) -> ContingencyTable:
    """Keys × thresholds as one accumulator of 2×2 tables (classes False, True)."""
    if isinstance(thresholds, str):
        keys, thr, counts = _exact_tables(scored)
    else:
        keys, thr, counts = _binned_tables(scored, thresholds, score_range)
    keys = (
        keys.with_columns(pl.Series("threshold", thr, dtype=pl.Float64))
        if keys.width
        else pl.DataFrame([pl.Series("threshold", thr, dtype=pl.Float64)])
    )
    return ContingencyTable(keys, pl.Series("class", [False, True]), counts)


@dataclass
class _Stream:
    """A sweep over a streamed source: one scan for the grid, one pass to count.

    Both passes are functions of one part at a time, so the Dask engine runs
    them as tasks (:mod:`batcheval.distributed`) and the local engine in a loop.
    """

    by: list[str]
    label: str
    score: str
    positive: Any
    classes: Sequence[Any] | None
    drop_nonfinite: bool
    drop_nulls: bool
    batch_rows: int = DEFAULT_BATCH_ROWS

    @property
    def roles(self) -> dict[str, str]:
        return check_roles(self.by, self.label, self.score, roles=("label", "score"))

    def table(self, data, thresholds, score_range, on_error, progress, engine, client):
        if isinstance(thresholds, str):
            raise ValueError(
                "thresholds='exact' needs every score of a group at once, which a streamed source "
                "does not give; use thresholds=int or a list, or collect the data first"
            )
        need_range = isinstance(thresholds, int | np.integer) and score_range is None
        positive = self.positive
        if need_range or positive is None:
            if engine == "dask":
                from .distributed import leaves_for, with_client

                def scan_all(c: Any) -> Any:
                    return c.gather(c.compute(leaves_for(data, self.scan)))

                scans = with_client(client, scan_all)
            else:
                scans = [self.scan(data)]
            lo = min(s[0] for s in scans)
            hi = max(s[1] for s in scans)
            values = sorted(set().union(*(s[2] for s in scans)))
            if lo > hi:
                lo, hi = 0.0, 1.0
            score_range = (float(lo), float(hi)) if need_range else score_range
            positive = _default_positive(values, self.label) if positive is None else positive
        count = functools.partial(self.count, thresholds=thresholds, score_range=score_range,
                                  positive=positive, on_error=on_error)  # fmt: skip
        if engine == "dask":
            from .distributed import reduce_on_cluster

            return reduce_on_cluster(data, count, client)
        return count(data, progress=progress, warn=True)

    def count(self, data, *, thresholds, score_range, positive, on_error, progress=False, warn=False):
        def make_table(frame: pl.DataFrame) -> ContingencyTable:
            scored = _prepare(frame, self.by, self.label, self.score, positive, self.classes,
                              self.drop_nonfinite, self.drop_nulls)  # fmt: skip
            return _threshold_table(scored, thresholds, score_range)

        roles = self.roles
        parts = open_parts(data, list(roles), roles)
        return reduce_parts(parts, make_table, on_error=on_error, progress=progress,
                            batch_rows=self.batch_rows, warn=warn)  # fmt: skip

    def scan(self, data) -> tuple[float, float, set[Any]]:
        """Finite score range and label values over every readable part."""
        lo, hi = np.inf, -np.inf
        values: set[Any] = set(self.classes or [])
        columns = [self.label, self.score]
        roles = self.roles
        for part in open_parts(data, columns, {c: roles[c] for c in columns}):
            try:
                for frame in part.batches(self.batch_rows):
                    s = frame.get_column(self.score).cast(pl.Float64)
                    s = s.filter(s.is_finite())
                    if len(s):
                        lo, hi = min(lo, s.min()), max(hi, s.max())  # type: ignore[type-var]
                    values |= set(frame.get_column(self.label).drop_nulls().unique().to_list())
            except (SourceError, ColumnNotFoundError):
                continue  # the counting pass reports it (or skips it)
        return lo, hi, values


def _default_positive(values: list[Any], label: str) -> Any:
    """The rule of :func:`_prepare`, over the values of the whole source."""
    if len(values) < 2 and set(values) <= {0, 1}:
        return True if values and isinstance(values[0], bool) else 1
    if len(values) != 2:
        raise InvalidLabelError(
            f"label column {label!r} has classes {values}; a score sweep needs two classes, "
            "or name the class to score with positive="
        )
    return values[1]


def _binned_tables(scored: _Scored, thresholds, score_range) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    """One histogram pass, then suffix sums: a (keys, thresholds, counts) triple."""
    thr, evenly = _thresholds(scored, thresholds, score_range)
    t = len(thr)
    inv_step = (t - 1) / (thr[-1] - thr[0]) if evenly else 0.0
    space = _group_space(scored)
    width = space.size * (t + 1) * 2
    threads = n_threads()
    # uint32 thread tables (half the memory traffic of int64), flushed into int64
    # before any cell could wrap: at most 2**32 - 1 rows per thread per block
    bufs = np.zeros((threads, width), dtype=np.uint32)
    hist = np.zeros(width, dtype=np.int64)
    n = len(scored.score)
    block = ((1 << 32) - 1) * threads
    keys = _kernel_keys(space.columns)
    for lo in range(0, n, block):
        rows = slice(lo, min(n, lo + block))
        sliced = tuple(a[rows] if i < len(space.columns) else a for i, a in enumerate(keys[:4]))
        _sweep.score_histogram(
            *sliced, *keys[4:], scored.is_pos[rows], 0, _IDENTITY, 1,
            scored.score[rows], thr, float(thr[0]), inv_step, evenly, bufs,
        )  # fmt: skip
        _count.sum_rows(bufs, hist)
        if lo + block < n:
            bufs[:] = 0
    hist = hist.reshape(space.size, t + 1, 2)
    per_group = hist.reshape(space.size, -1)
    if not scored.by:
        present = np.zeros(1, np.int64)
    else:
        present = np.flatnonzero(_sweep.row_any(per_group))
        if len(present) != space.size:
            hist = np.ascontiguousarray(hist[present])
    tables = np.empty((len(present), t, 2, 2), dtype=np.int64)
    _sweep.tables_from_histogram(hist, tables)
    keys = space.decode(present)
    # broadcast-and-copy: several times faster than np.repeat / np.tile at 10M rows
    rows = np.broadcast_to(np.arange(len(present))[:, None], (len(present), t)).ravel()
    thresholds = np.broadcast_to(thr, (len(present), t)).ravel()
    return (keys[rows] if keys.width else keys), thresholds, tables.reshape(-1, 2, 2)


_IDENTITY = np.array([0, 1], dtype=np.int64)


@dataclass
class _Points:
    """Each group's distinct scores (descending) with cumulative tp and fp."""

    keys: pl.DataFrame
    starts: np.ndarray  # point_starts[g]: first point of group g
    threshold: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray

    def tables(self) -> np.ndarray:
        """``[points, 2, 2]`` tables (real × predicted) at every point."""
        out = np.empty((len(self.tp), 2, 2), dtype=np.int64)
        if len(self.tp):
            _sweep.point_tables(self.starts, self.tp, self.fp, self.positives, self.negatives, out)
        return out


def _exact_points(scored: _Scored) -> _Points:
    """Counting sort by (group, label), sorts within each group, one merge walk."""
    space = _group_space(scored)
    n = len(scored.score)
    gid = np.zeros(n, dtype=np.int64)
    if scored.by and n:
        _count.pack_ids(*_kernel_keys(space.columns), gid)
    starts, positives = _sweep.group_label_offsets(gid, scored.is_pos, space.size)
    grouped = np.empty(n, dtype=np.float64)
    _sweep.scatter_by_group_label(gid, scored.is_pos, scored.score, starts, positives, grouped)
    del gid
    present = np.flatnonzero(np.diff(starts)) if scored.by else np.zeros(1, np.int64)
    if len(present) != space.size:
        starts = np.ascontiguousarray(np.append(starts[present], starts[-1]))
        positives = np.ascontiguousarray(positives[present])
    thr = np.empty(n)
    tp = np.empty(n, dtype=np.int64)
    fp = np.empty(n, dtype=np.int64)
    n_points = np.zeros(len(present), dtype=np.int64)
    _sweep.group_points(starts, positives, grouped, thr, tp, fp, n_points)
    point_starts = np.concatenate(([0], np.cumsum(n_points)))
    total = int(point_starts[-1])
    if total != n:  # ties left gaps between groups
        out = np.empty(total), np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64)
        _sweep.compact_points(starts, point_starts, thr, tp, fp, *out)
        thr, tp, fp = out
    negatives = np.diff(starts) - positives
    return _Points(space.decode(present), point_starts, thr, tp, fp, positives, negatives)


def _exact_tables(scored: _Scored) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    pts = _exact_points(scored)
    rows = np.repeat(np.arange(len(pts.positives)), np.diff(pts.starts))
    keys = pts.keys[rows] if pts.keys.width else pts.keys
    return keys, pts.threshold, pts.tables()


def auc(
    data: Any,
    by: str | Sequence[str] | None = None,
    label: str = "label",
    score: str = "score",
    *,
    measure: str = "informedness",
    positive: Any = None,
    classes: Sequence[Any] | None = None,
    per_class: bool = False,
    drop_nonfinite: bool = False,
    drop_nulls: bool = False,
) -> pl.DataFrame:
    """Exact ROC and precision-recall summaries of a score, for every group.

    With multiclass scores — ``score`` a list of columns, one per class in
    sorted class order, or one List column — each class is scored against the
    rest. ``per_class=True`` returns those rows (with a ``class`` column);
    otherwise ``roc_auc`` and ``pr_auc`` come averaged three ways, each
    labelled: ``_macro`` (unweighted), ``_prevalence_weighted`` and
    ``_bias_weighted`` (weights: the share of rows whose top score is the
    class, the weighting paper 004 asks for). Classes whose AUC is undefined
    in a group are left out of its averages.

    Returns one row per group with ``n``, ``positives``, ``negatives`` and

    - ``roc_auc``: trapezoids over the exact ROC curve, tied scores taking one
      diagonal step (equals scikit-learn's ``roc_auc_score``);
    - ``roc_auch``: the area under the ROC convex hull;
    - ``gini`` = 2·roc_auc − 1 and ``auboc`` = gini/2;
    - ``pr_auc``: average precision (equals ``average_precision_score``);
    - ``best_threshold`` and ``best_<measure>``: the distinct score whose
      threshold maximises ``measure`` (the Youden point for informedness;
      the highest such threshold on ties).

    Groups with only one class give NaN, without an error.

    Parameters
    ----------
    data, by, label
        As in :func:`batcheval.evaluate` (a frame in memory: exact areas need
        each group's scores at once).
    score
        The score column, or one column per class (or a List column) for
        multiclass scores.
    measure
        The binary measure whose best threshold is reported.
    positive, classes
        The positive class (default: the greater of two) and the class set.
    per_class
        Multiclass scores: one row per group × class instead of the averages.
    drop_nonfinite, drop_nulls
        Skip rows with a NaN/infinite score, or a null score or label.

    Returns
    -------
    polars.DataFrame
        One row per group (per group × class with ``per_class``).

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({"label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    >>> be.auc(df).select("roc_auc", "pr_auc", "best_threshold", "best_informedness").rows()
    [(0.75, 0.8333333333333333, 0.8, 0.5)]
    """
    if is_multiclass_score(data, score):
        return _multiclass_auc(
            data, by, label, score, classes, measure, per_class, drop_nonfinite, drop_nulls
        )
    scored = _prepare(data, by, label, score, positive, classes, drop_nonfinite, drop_nulls)
    pts = _exact_points(scored)
    n_groups = len(pts.positives)
    areas = np.empty((n_groups, 3))
    if n_groups:
        _sweep.curve_areas(pts.starts, pts.tp, pts.fp, pts.positives, pts.negatives, areas)
    if measure == "informedness":  # the default: straight from the points, no tables
        best, best_val = _sweep.best_informedness(pts.starts, pts.tp, pts.fp, pts.positives, pts.negatives)
    else:
        values = _measures.compute(pts.tables(), [measure])[measure] if len(pts.tp) else np.empty(0)
        best = _sweep.segment_argmax(values, pts.starts) if n_groups else np.empty(0, np.int64)
        best_val = np.where(best >= 0, values[np.maximum(best, 0)] if len(pts.tp) else np.nan, np.nan)
    best_thr = np.where(best >= 0, pts.threshold[np.maximum(best, 0)] if len(pts.tp) else np.nan, np.nan)
    roc = areas[:, 0]
    columns = [
        pl.Series("n", pts.positives + pts.negatives, dtype=pl.Int64),
        pl.Series("positives", pts.positives, dtype=pl.Int64),
        pl.Series("negatives", pts.negatives, dtype=pl.Int64),
        pl.Series("roc_auc", roc),
        pl.Series("roc_auch", areas[:, 1]),
        pl.Series("gini", 2.0 * roc - 1.0),
        pl.Series("auboc", roc - 0.5),
        pl.Series("pr_auc", areas[:, 2]),
        pl.Series("best_threshold", best_thr, dtype=pl.Float64),
        pl.Series(f"best_{measure}", best_val, dtype=pl.Float64),
    ]
    return pts.keys.hstack(columns) if pts.keys.width else pl.DataFrame(columns)


def _multiclass_auc(
    data, by, label, score, classes, measure, per_class, drop_nonfinite, drop_nulls
) -> pl.DataFrame:
    long, keys, values, wide, names = one_vs_rest_frame(data, by, label, score, classes)
    per = auc(long, keys, _IS_CLASS, _SCORE_COL, measure=measure, positive=True, classes=[False, True],
              drop_nonfinite=drop_nonfinite, drop_nulls=drop_nulls)  # fmt: skip
    if per_class:
        return per
    group_keys = keys[:-1]
    shares = predicted_shares(wide, group_keys, names, values, long.schema["class"])
    per = per.join(shares, on=keys, how="left", nulls_equal=True).with_columns(
        pl.col("bias").fill_null(0.0), (pl.col("positives") / pl.col("n")).alias("prevalence")
    )
    aggs = [pl.col("n").first()]
    for m in ("roc_auc", "pr_auc"):
        v = pl.col(m).fill_nan(None)
        defined = v.is_not_null()
        aggs += [
            v.mean().alias(f"{m}_macro"),
            ((v * pl.col("prevalence")).sum() / pl.col("prevalence").filter(defined).sum()).alias(
                f"{m}_prevalence_weighted"
            ),
            ((v * pl.col("bias")).sum() / pl.col("bias").filter(defined).sum()).alias(f"{m}_bias_weighted"),
        ]
    if not group_keys:
        return per.select(aggs)
    return per.group_by(group_keys, maintain_order=True).agg(aggs).sort(group_keys, nulls_last=True)
