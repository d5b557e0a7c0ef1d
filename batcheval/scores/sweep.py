"""Threshold sweeps over scores (Powers 2015; docs/references.md): every binary measure at every threshold.

``sweep`` turns a score column into the four cells of a 2×2 table per
(group, threshold) — one histogram pass over the rows, then suffix sums over
the bins (:mod:`batcheval.kernels.sweep`) — and computes the measures straight
from those cell columns. Pooled and streamed sweeps hand the same cells to
the accumulator (:class:`~batcheval.ContingencyTable`), so pooling and
``_mean``/``_std`` work as in :func:`batcheval.evaluate`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from ..core.counting import PRIVATE_CELLS, PRIVATE_ROWS_PER_THREAD, kernel_keys, radix_count, use_radix
from ..core.encode import as_integers
from ..core.engine import check_engine
from ..core.memory import check_allocation
from ..core.pooling import check_mean_weights, pooled_measures
from ..core.stream import PartTypes, Positions, check_part_types, class_kind, reduce_parts
from ..core.table import ContingencyTable, key_types
from ..errors import (
    BatchevalError,
    ColumnNotFoundError,
    InvalidArgumentError,
    InvalidLabelError,
    InvalidScoreError,
    SourceError,
    warn,
)
from ..io.arguments import as_flag, as_one_value
from ..io.frames import (
    as_key_list,
    check_free_names,
    check_roles,
    key_argument,
    named_as_pooled,
    read_once,
)
from ..io.sources import DEFAULT_BATCH_ROWS, in_part, is_one_shot, is_streamed, open_parts
from ..kernels import count as _count
from ..kernels import sweep as _sweep
from ..kernels.binary import EXACT_LIMIT
from ..kernels.jit import n_threads
from ..measures import names as _names
from ..measures.compute import default_measures
from ..measures.registry import with_beta
from .exact import exact_sweep
from .multiclass import is_multiclass_score, one_vs_rest_frame
from .prepare import (
    Scored,
    check_histogram,
    check_thresholds,
    compared_thresholds,
    floats_below,
    grid_floor,
    prepare_scores,
    rounds_down,
    threshold_grid,
)
from .swept import CELLS, Swept, pooled_empty

__all__ = ["SWEEP_MEASURES", "sweep"]

# the fused radix sweep (_partitioned) takes inputs up to this many rows: two uint32 id buffers
# of all rows at once, 512 MiB at most; longer ones count in blocks (_histogram)
_FUSED_ROWS = 1 << 26
# cells of one radix partition of the fused sweep (int64: 1 MiB, an L2's worth)
_PART_BITS = 17

#: The measures a sweep computes by default: the axes of every chart (roc, boc, lift, bift, pr)
#: and the usual best-point criteria. ``measures="all"`` gives every binary measure.
SWEEP_MEASURES: tuple[str, ...] = (
    "recall",
    "fallout",
    "precision",
    "bias",
    "informedness",
    "markedness",
    "f1",
    "accuracy",
)


def sweep(
    data: Any,
    by: str | Sequence[str] | None = None,
    label: str = "label",
    score: str | Sequence[str] = "score",
    *,
    thresholds: int | Sequence[float] | Literal["exact"] = 101,
    score_range: tuple[float, float] | None = None,
    pool: str | Sequence[str] | None = None,
    measures: Sequence[str] | Literal["all"] | None = None,
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
    """Binary measures at every threshold of a score, for every group: by default the eight that
    the charts and best thresholds read (:data:`SWEEP_MEASURES`), any others with ``measures=``, and
    every one with ``measures="all"``.

    A row is predicted positive iff ``score >= threshold``.

    Parameters
    ----------
    data, by, label
        As in :func:`batcheval.evaluate`.
    score
        The score column (any numeric type). With multiclass scores — one column per class in
        sorted class order, or one List column — each class is swept against the rest, keyed
        by a ``class`` column (a frame in memory, or a LazyFrame, which is collected).
    thresholds
        An int T for T evenly spaced thresholds over ``score_range`` (default:
        the finite min and max of all scores, so every group shares the grid), each
        threshold once: a span holding fewer than T floats (every score equal, or a
        range of a few ulps) gives fewer rows, as a list with repeats does;
        an explicit list; or ``"exact"`` for every distinct score of each group.
        A Float32 score column is compared with each threshold of a list or of a
        ``score_range`` grid rounded to float32, as ``pl.col(score) >= t`` and numpy compare it
        (the score 0.7 counts at the threshold 0.7), and the thresholds are reported as given; in
        a streamed source each part is compared as its own column's type.
    score_range
        ``(low, high)``, finite with ``low <= high``: the span of the ``thresholds=int`` grid,
        the distinct values of ``numpy.linspace(low, high, T)`` (one threshold where
        ``low == high``), in place of the scores' finite min and max. Scores
        outside it are still counted: below ``low`` they are negative at every threshold, above
        ``high`` positive. A streamed sweep given it skips the scan for the range (it still scans
        the labels when it needs the positive class). Only for an int ``thresholds``: with a list
        or ``"exact"`` it would have no effect, and is refused.
    measures
        The measures at every threshold. Default: :data:`SWEEP_MEASURES`, what the
        charts and best-point searches read (recall, fallout, precision, bias,
        informedness, markedness, f1, accuracy); a 10M-row sweep with every measure
        is a 4 GB frame, mostly columns nobody reads. ``"all"`` gives every binary
        measure; a list names them (``[]`` gives the cells only).
    pool, beta, mean_weights
        As in :func:`batcheval.evaluate` (``pool`` sums tables at equal
        thresholds, so it needs a shared grid: with ``"exact"`` it is an error).
    positive
        The positive class; default the greater of two classes. With more
        classes, naming one sweeps it against the rest.
    classes
        The class set, as in :func:`batcheval.evaluate`: a label outside it is an
        :class:`~batcheval.errors.InvalidLabelError`, and classes absent from the rows still
        count, so the default ``positive`` is the greater of the two classes named even when the
        rows hold only one (``classes=["a", "b"]`` over labels ``"a"`` scores ``"b"``), and a
        named ``positive`` may be a class no row holds. With multiclass scores it gives the
        classes whose scores the columns (or list entries) hold, one per class in sorted order,
        each swept against the rest even with no row of its own; by default the classes are the
        labels present.
    drop_nonfinite, drop_nulls
        Skip rows with a NaN/infinite score, or a null score or label, instead
        of raising.
    on_error, progress, batch_rows, engine, client
        Streamed sources and the Dask engine, as in :func:`batcheval.evaluate`.
        A streamed sweep reads the source twice when it needs the score range
        or the positive class (once for the key, label and score columns only), and
        takes ``thresholds=int`` or a list: ``"exact"`` needs a group's scores
        all at once (a LazyFrame is collected for it, as for multiclass scores, with a
        warning if any of these options is given, since none then applies).

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
    positive = as_one_value(positive, "positive=")
    if isinstance(thresholds, Iterator):  # a generator: read once, or the check consumed it all
        thresholds = list(thresholds)
    by, pool = key_argument(by), key_argument(pool, "pool")  # read again below: a generator once
    classes = read_once(classes)  # read by every batch of a streamed sweep, and by its scans
    score = read_once(score)  # multiclass: read for the roles, then for the columns
    drop_nulls = as_flag(drop_nulls, "drop_nulls=")
    # read strictly as drop_nulls=: drop_nonfinite="no" dropped the NaN rows
    drop_nonfinite = as_flag(drop_nonfinite, "drop_nonfinite=")
    progress = None if progress is None else as_flag(progress, "progress=")
    check_thresholds(thresholds, score_range)
    # pooled keys too: they key the unpooled tables, beside their thresholds and counts
    keys = [*as_key_list(by), *as_key_list(pool, "pool")]
    check_free_names(keys, ["threshold", "n", *CELLS], "the sweep's thresholds and counts")
    check_engine(engine, on_error, batch_rows, client)
    if is_multiclass_score(data, score):
        if isinstance(data, pl.LazyFrame) and engine == "local":
            _warn_unstreamed(
                "multiclass scores are swept from the LazyFrame collected at once",
                "",
                batch_rows=batch_rows,
                on_error=on_error,
                progress=progress,
            )
        return _one_vs_rest(data, by, label, score, thresholds=thresholds, score_range=score_range,
                            pool=pool, measures=measures, positive=positive, classes=classes, beta=beta,
                            drop_nonfinite=drop_nonfinite, drop_nulls=drop_nulls, mean_weights=mean_weights,
                            engine=engine)  # fmt: skip
    if isinstance(measures, str) and measures == "all":
        measures, rename = None, {}  # the registry's default: every binary measure
    elif measures is None:
        measures, rename = [*SWEEP_MEASURES, *(["f_beta"] if beta is not None else [])], {}
    else:
        measures, rename = _names.resolve(measures)
        measures = with_beta(measures, beta, True)  # f_beta after the list, as in the default set
    if pool is not None and isinstance(thresholds, str) and thresholds == "exact":
        # each pooled table's exact thresholds are its own scores, so pooling would add up
        # tables at thresholds where few or none of the others have one (it gave each
        # "pooled" row a single fold's counts)
        raise InvalidArgumentError(
            f"pool={pool!r} sums the tables of a group at equal thresholds, and with "
            "thresholds='exact' each table's thresholds are its own scores; give a shared grid "
            "(thresholds=int or a list), or leave out pool= and the pooled keys to sweep the "
            "rows of every pooled table together"
        )
    check_mean_weights(mean_weights, pool)
    pool_only = [c for c in as_key_list(pool, "pool") if c not in as_key_list(by)]  # a key in by= is a key
    if pool is not None:  # pooled keys in by or only in pool, as in evaluate
        keys = as_key_list(by)
        by = keys + [c for c in as_key_list(pool, "pool") if c not in keys]
    report = None
    # every score of a group at once, as auc reads a LazyFrame: its named columns collected, not
    # streamed (which refused the exact sweep of curves' default, where auc of the same frame ran)
    collected = isinstance(thresholds, str) and isinstance(data, pl.LazyFrame) and engine != "dask"
    if collected:
        _warn_unstreamed(
            "thresholds='exact' collects the LazyFrame's named columns (it needs every score of a group "
            "at once)",
            "; give thresholds=int or a list to stream it in parts",
            batch_rows=batch_rows,
            on_error=on_error,
            progress=progress,
        )
    if not collected and (is_streamed(data) or engine == "dask"):
        stream = _Stream(as_key_list(by), label, score, positive, classes, drop_nonfinite, drop_nulls,
                         batch_rows or DEFAULT_BATCH_ROWS)  # fmt: skip
        with named_as_pooled(pool_only):
            table, report = stream.table(data, thresholds, score_range, on_error, progress, engine, client)
    else:
        with named_as_pooled(pool_only):
            scored = prepare_scores(data, by, label, score, positive, classes, drop_nonfinite, drop_nulls,
                                    exact_scores=isinstance(thresholds, str))  # fmt: skip
        swept = _swept(scored, thresholds, score_range, measures if pool is None else [])
        if pool is None:  # straight from the cell columns: no [N, 2, 2] tensor
            return _names.rename_columns(swept.frame(measures, beta), rename)
        table = swept.table()
    if pool is None:
        # each part's counts were guarded as they were made, the whole source's measures not yet
        _check_output(
            len(table), len(table.by) - 1, measures, f"the sweep's {len(table):,} rows (groups × thresholds)"
        )
        out = table.measures(measures, beta=beta)
    else:
        out = pooled_measures(table, as_key_list(pool, "pool"), measures, False, None, beta, mean_weights)
    out = _names.rename_columns(out, rename)
    if report is not None:
        out.metadata = report.as_dict()  # type: ignore[attr-defined]
    return out


def _warn_unstreamed(why: str, hint: str, **options: Any) -> None:
    """Say which streaming options the sweep of a LazyFrame that it collects (the exact sweep,
    multiclass scores) leaves unused: a ``batch_rows=`` meant to bound memory would not, and
    nothing is skipped or shown part by part."""
    defaults = {"batch_rows": None, "on_error": "raise", "progress": None}
    # progress=False asks for nothing a collect could fail to give
    given = [f"{k}={v!r}" for k, v in options.items() if v != defaults[k] and v is not False]
    if given:
        warn(f"{why}, so {', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply{hint}")


def _one_vs_rest(data, by, label, score, *, positive, classes, drop_nonfinite, drop_nulls, engine,
                 pool, **kwargs) -> pl.DataFrame:  # fmt: skip
    """The sweep of every class of multiclass scores against the rest, keyed by ``class``."""
    if engine != "local" or (is_streamed(data) and not isinstance(data, pl.LazyFrame)):
        raise InvalidArgumentError(
            f"multiclass scores (score={score!r}) are swept from a frame in memory; "
            f"read the source into one first (engine={engine!r})"
        )
    if positive is not None:
        raise InvalidArgumentError(
            f"positive={positive!r} names the positive class of one binary score; multiclass scores "
            f"(score={score!r}) sweep every class against the rest"
        )
    keys = as_key_list(by)
    pool_only = [c for c in as_key_list(pool, "pool") if c not in keys]  # a key in by= is a key
    keys += pool_only  # the long frame keeps them
    with named_as_pooled(pool_only):
        ovr = one_vs_rest_frame(data, keys, label, score, classes, drop_nulls, drop_nonfinite,
                                exact_scores=isinstance(kwargs["thresholds"], str))  # fmt: skip
    return sweep(ovr.frame, ovr.keys, ovr.is_class, ovr.score, positive=True, pool=pool, **kwargs)


def _swept(
    scored: Scored,
    thresholds: int | Sequence[float] | str,
    score_range,
    measures: Sequence[str] | None = (),
    named: bool | None = None,
) -> Swept:
    if isinstance(thresholds, str):
        return exact_sweep(scored)
    return _binned(scored, thresholds, score_range, measures, named)


def _binned(
    scored: Scored,
    thresholds: int | Sequence[float],
    score_range,
    measures: Sequence[str] | None = (),
    named: bool | None = None,
) -> Swept:
    """One histogram pass, then suffix sums straight into the cell columns, and the measures
    ``measures`` with them when the kernel has them all (:data:`~batcheval.kernels.sweep.FUSED`).

    Many groups of shuffled rows count by radix partitioning, and the partitions of
    :func:`_partitioned` hold whole groups: each is counted and written out in cache, without
    a histogram of every group in between.

    ``named`` says whether the user named the thresholds (a list, or a ``score_range`` grid),
    which a Float32 column is compared with rounded to float32; by default, as the arguments
    say, but a streamed source's ``score_range`` is the scan's, not the user's."""
    names = list(dict.fromkeys(measures)) if measures is not None else None
    if scored.score_min <= scored.score_max:
        # some group holds a finite score, so one group's output over the grid's surely distinct
        # thresholds is a floor known before the grid and the count: 3 groups × 2e8 thresholds
        # built a 1.6 GB grid and filled a 14 GB histogram for 20 s before their refusal
        floor = grid_floor(scored, thresholds, score_range)
        check_histogram(scored.space.size, floor)  # the count alone first: its own message
        what = f"the sweep of {scored.space.size:,} groups × {floor:,} thresholds"
        _check_output(
            floor,
            len(scored.by),
            names,
            f"{what} (its count and one group's rows)",
            count_bytes=scored.space.size * (floor + 1) * 2 * 12,
        )
    thr, evenly = threshold_grid(scored, thresholds, score_range)
    # a count's grid between the scores' own ends names no threshold of the user's
    if named is None:
        named = not isinstance(thresholds, int | np.integer) or score_range is not None
    shown = thr
    rounded = compared_thresholds(scored, thr) if named else None
    if rounded is not None:  # bisection: the rounded grid is not evenly spaced, and may repeat
        thr, evenly = rounded, False
    t = len(thr)
    n_groups = scored.space.size
    with np.errstate(over="ignore", divide="ignore"):
        inv_step = (t - 1) / (thr[-1] - thr[0]) if evenly else 0.0
    if not np.isfinite(inv_step):
        # a grid of subnormal steps: (s − lo)·inf is NaN at s = lo, and the arithmetic bin of NaN
        # is no bin at all (it read past the thresholds); bisection needs no step
        inv_step, evenly = 0.0, False
    grid = (thr, float(thr[0]), inv_step, evenly)
    cells = n_groups * (t + 1) * 2
    wbits = (2 * (t + 1) - 1).bit_length()  # a group's cells, rounded up to a power of two
    parts = None
    if len(scored.score) <= _FUSED_ROWS and (n_groups << wbits) < (1 << 32) - 1:
        if use_radix(kernel_keys(scored.space.columns), len(scored.score), cells, rows_per_cell=0):
            parts = _partitioned(scored, grid, n_groups, wbits)
    hist = None
    # the groups some row counts in, as evaluate keeps them: without keys the one group, or none
    # when no rows are left (no thresholds made up for an empty input)
    if parts is not None:
        present = np.flatnonzero(parts[2])
    else:
        hist = _histogram(scored, grid, cells).reshape(n_groups, t + 1, 2)
        present = np.flatnonzero(_sweep.row_any(hist.reshape(n_groups, (t + 1) * 2)))
    rows = len(present) * t
    _check_output(rows, len(scored.by), names, f"the sweep of {len(present):,} groups × {t:,} thresholds")
    n, tp, fp, fn, tn = pooled_empty((5, rows), np.int64)
    threshold = pooled_empty(rows, np.float64)
    fused = names is not None and all(m in _sweep.FUSED for m in names)
    slots = np.full(len(_sweep.FUSED), -1, dtype=np.int64)
    for row, name in enumerate(names if fused else ()):
        slots[_sweep.FUSED.index(name)] = row
    out = pooled_empty((len(names) if fused else 0, rows), np.float64)
    # a table holds at most every row: below EXACT_LIMIT rows no determinant needs the limbs
    wide = True if len(scored.score) >= EXACT_LIMIT else None
    columns = (thr, slots, tp, fp, fn, tn, n, threshold, out, wide)
    if parts is not None:
        grouped, bounds, _, gbits = parts
        rank = np.full(n_groups, -1, dtype=np.int64)
        rank[present] = np.arange(len(present), dtype=np.int64)
        _sweep.sweep_parts(grouped, bounds, n_groups, gbits, wbits, rank, *columns)
    else:
        _sweep.sweep_columns(hist, present, *columns)
    if rounded is not None:
        threshold[:] = np.tile(shown, len(present))
    measured = dict(zip(names, out, strict=True)) if fused else None
    return Swept(scored.space.decode(present), t, threshold, n, tp, fp, fn, tn, measured)


def _partitioned(scored: Scored, grid: tuple, n_groups: int, wbits: int) -> tuple:
    """``(cell ids grouped by partition, partition bounds, which groups occur, gbits)``: radix
    passes 1 and 2 of :func:`~batcheval.kernels.sweep.sweep_parts`, which does the third.

    A row's cell is ``(g << wbits) | (2*bin + is_positive)``, and partition p holds groups
    ``p << gbits`` onwards, as many as make a 1 MiB int64 table (an L2's worth). The id buffers
    come from pyarrow's pool (:func:`~batcheval.scores.swept.pooled_empty`): fresh ones the size
    of the input would be faulted in on every call.
    """
    n_rows = len(scored.score)
    threads = n_threads()
    gbits = max(0, _PART_BITS - wbits)
    shift = wbits + gbits
    n_parts = ((n_groups - 1) >> gbits) + 1
    ids = pooled_empty(n_rows, np.uint32)
    grouped = pooled_empty(n_rows, np.uint32)
    part_rows = np.zeros((threads, n_parts), dtype=np.int64)
    seen = np.zeros((threads, n_groups), dtype=np.uint8)
    _sweep.sweep_group_ids(*scored.rows, *grid, wbits, shift, ids, part_rows, seen)
    # partition-major, thread-minor offsets keep each thread's writes in row order
    per_part = part_rows.T.reshape(-1)
    starts = np.concatenate(([0], np.cumsum(per_part)[:-1])).reshape(n_parts, threads).T.copy()
    _count.scatter_by_part(ids, shift, starts, grouped)
    bounds = np.concatenate(([0], np.cumsum(part_rows.sum(axis=0))))
    return grouped, bounds, seen.any(axis=0), gbits


def _check_output(
    rows: int, n_keys: int, names: Sequence[str] | None, what: str, *, count_bytes: int = 0
) -> None:
    """Refuse a sweep whose output would not fit, before its columns are allocated.

    The histogram's guard let through grids whose output is five times its size (1,000 groups ×
    40,000 thresholds under a 4 GB limit: pyarrow's own "malloc of size 1600000000 failed"
    after the count). Each row holds ``n``, the threshold, four cells, its keys and every
    measure (``None``: all of them), or, with none fused, the ``[rows, 2, 2]`` table a pooled
    or streamed sweep measures. ``count_bytes``: what the count holds beside them.

    Examples
    --------
    >>> _check_output(10**9, 1, ["informedness"], "the sweep of 1 group × 1,000,000,000 thresholds")
    Traceback (most recent call last):
    ...
    batcheval.errors.MemoryBudgetError: the sweep of 1 group × 1,000,000,000 thresholds needs 82.0 GiB, ...
    """
    n_measures = len(default_measures(2, None)) if names is None else max(len(set(names)), 4)
    check_allocation(
        count_bytes + rows * 8 * (6 + n_keys + n_measures),
        what,
        "use fewer thresholds or measures, or sweep fewer groups at a time",
    )


def _histogram(scored: Scored, grid: tuple, cells: int) -> np.ndarray:
    """``hist[(g*(T+1) + bin)*2 + is_positive]``: radix-partitioned for large
    tables of shuffled rows, else per-thread private tables."""
    n_rows = len(scored.score)
    check_histogram(scored.space.size, grid[0].shape[0])
    threads = n_threads()
    hist = np.zeros(cells, dtype=np.int64)
    sliced = scored.rows_between
    if use_radix(kernel_keys(scored.space.columns), n_rows, cells, rows_per_cell=0):

        def fill_ids(lo: int, hi: int, shift: int, ids: np.ndarray, part_hist: np.ndarray) -> int:
            return _sweep.sweep_cell_ids(*sliced(lo, hi), *grid, shift, ids, part_hist)

        radix_count(fill_ids, n_rows, cells, threads, hist)
        return hist
    # uint32 thread tables (half the memory traffic of int64), flushed into int64
    # before any cell could wrap: at most 2**32 - 1 rows per thread per block. At most
    # PRIVATE_CELLS cells of them in all: many groups × many thresholds (1M × 101 on 16
    # threads would be 13 GB) count on fewer threads instead.
    threads = max(1, min(threads, PRIVATE_CELLS // max(cells, 1)))
    bufs = np.zeros((threads, cells), dtype=np.uint32)
    block = PRIVATE_ROWS_PER_THREAD * threads
    for lo in range(0, n_rows, block):
        hi = min(n_rows, lo + block)
        _sweep.score_histogram(*sliced(lo, hi), *grid, bufs)
        _count.sum_rows(bufs, hist)
        if hi < n_rows:
            bufs[:] = 0
    return hist


@dataclass
class _Stream:
    """A sweep over a streamed source: one scan for the grid, one pass to count.

    Both passes are functions of one part at a time, so the Dask engine runs
    them as tasks (:mod:`batcheval.core.distributed`) and the local engine in a loop.
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
        if engine == "dask":
            from ..core.distributed import check_dask_input

            # before a cluster is started: its spawned processes re-run the caller's script
            check_dask_input(data)
        if isinstance(thresholds, str):
            raise InvalidArgumentError(
                "thresholds='exact' needs every score of a group at once, which a streamed source "
                "does not give; use thresholds=int or a list, or collect the data first"
            )
        if engine == "dask" and client is None:
            from ..core.distributed import with_client

            # one cluster for both passes: the default client, or one started here
            return with_client(
                None,
                lambda c: self.table(data, thresholds, score_range, on_error, progress, engine, c),
            )
        need_range = isinstance(thresholds, int | np.integer) and score_range is None
        positive, classes = self.positive, self.classes
        # a named positive is checked against the labels: by the scan where there is one, by the
        # count's own batches otherwise (a worker's batches cannot report them, so Dask scans)
        scan_positive = positive is not None and classes is None and engine == "dask"
        if positive is None and classes is not None and len(classes) == 2:
            # the greater of the two classes named: no scan of the labels needed for it
            positive = _default_positive(sorted(classes), self.label)
        if need_range or positive is None or scan_positive:
            if is_one_shot(data):
                wanted = " and ".join(
                    name
                    for name, needed in (("score_range=", need_range), ("positive=", positive is None))
                    if needed
                )
                raise InvalidArgumentError(
                    "a RecordBatchReader can be read only once, and this sweep needs a first pass over the "
                    f"scores for what {wanted} would give; give {wanted}, or pass a pyarrow Dataset, file "
                    "paths or a frame"
                )
            if engine == "dask":
                from ..core.distributed import leaves_for

                scans = [
                    s for part in client.gather(client.compute(leaves_for(data, self.scan))) for s in part
                ]
            else:
                scans = self.scan(data)
            lo, hi, values, third = self.gathered(scans, on_error)
            if lo > hi:
                lo, hi = 0.0, 1.0
            score_range = (float(lo), float(hi)) if need_range else score_range
            if positive is None:
                try:
                    positive = _default_positive(values, self.label)
                except InvalidLabelError as exc:  # name the part whose labels made the third class
                    raise InvalidLabelError(in_part(third, str(exc)) if third else str(exc)) from None
            elif classes is None:
                _check_positive(positive, values)
        count = functools.partial(self.count, thresholds=thresholds, score_range=score_range,
                                  named=not need_range, positive=positive, classes=classes,
                                  on_error=on_error)  # fmt: skip
        if engine == "dask":
            from ..core.distributed import reduce_on_cluster

            return reduce_on_cluster(data, count, client, on_error=on_error)
        seen: set[Any] = set()
        result = count(data, progress=progress, warn=True, seen=seen)
        if classes is None and self.positive is not None:
            # a default positive may be a class no row holds: 1 over labels all 0, as in memory
            _check_positive(positive, sorted(seen))
        return result

    def count(
        self, data, *, thresholds, score_range, positive, classes, on_error, progress=False, warn=False,
        seen: set[Any] | None = None, named: bool | None = None,
    ):  # fmt: skip
        """Count every batch; ``seen`` (when given) collects the label values of the parts kept (a
        part skipped half-way adds none of its labels, as it adds none of its counts)."""
        part_seen: set[Any] = set()

        def make_table(frame: pl.DataFrame, positions: Positions) -> ContingencyTable:
            if not frame.height:  # no scores, whatever their type says (a header-only csv's: String)
                frame = frame.with_columns(pl.col(self.score).cast(pl.Float64))
            # the positive class is one of the source's: a batch of negatives only (a file of
            # one run, the first rows of a sorted frame) must not fail for want of it
            scored = prepare_scores(frame, self.by, self.label, self.score, positive, classes,
                                    self.drop_nonfinite, self.drop_nulls, known=(positive,),
                                    exact_scores=False, positions=positions)  # fmt: skip
            part_seen.update(scored.present)
            return _swept(scored, thresholds, score_range, named=named).table()

        def part_done(kept: bool) -> None:
            if kept and seen is not None:
                seen.update(part_seen)
            part_seen.clear()

        roles = self.roles
        parts = open_parts(data, list(roles), roles)
        check_part = functools.partial(self.check_part, positive=positive)
        return reduce_parts(parts, make_table, filters=self.filters(), check_part=check_part,
                            on_error=on_error, progress=progress, batch_rows=self.batch_rows,
                            warn=warn, part_done=part_done)  # fmt: skip

    def filters(self) -> list[tuple[Any, str]]:
        """The rows ``drop_nulls=`` and ``drop_nonfinite=`` leave out, in prepare_scores' order, each
        step with what the one warning over all parts says of its rows (a batch's own warning
        would count its rows alone, once per batch)."""
        label, score = self.label, self.score
        steps = []
        if self.drop_nulls:
            steps.append(
                (functools.partial(_drop_nulls, columns=[score, label]), f"a null {score!r} or {label!r}")
            )
        if self.drop_nonfinite:
            # a null score or label is kept for prepare_scores to refuse, as in memory, without
            # drop_nulls= (which drops those rows first)
            why = f"a NaN or infinite score in column {score!r}"
            steps.append((functools.partial(_drop_nonfinite, score=score, label=label), why))
        return steps

    def check_part(self, name: str, frame: pl.DataFrame, positive: Any = None) -> None:
        """Refuse a part whose score column is not numeric, or whose labels are of another kind
        (:func:`~batcheval.core.stream.class_kind`) than the positive class: text where it is not,
        say: a file's, with ``on_error="skip"``, is skipped as one whose key types disagree, as the
        scan skips a file whose labels are of another kind than the files before it, by the same rule."""
        dtype = frame.schema[self.score]
        # a part of no rows says nothing of its scores' type (a header-only csv reads them as text)
        if frame.height and not (dtype.is_numeric() or dtype == pl.Null):
            raise InvalidScoreError(
                in_part(name, f"score column {self.score!r} has dtype {dtype}; scores must be numeric")
            )
        labels = frame.schema[self.label]
        # a part of no labels says nothing of their kind (a header-only csv reads them as text)
        if (
            positive is not None
            and labels != pl.Null
            and frame.get_column(self.label).null_count() < frame.height
        ):
            if class_kind(labels) != _value_kind(positive):
                raise InvalidLabelError(
                    in_part(name, f"positive={positive!r} is not one of the classes: label column "
                            f"{self.label!r} holds {labels} values")
                )  # fmt: skip

    def scan(self, data) -> list[_PartScan]:
        """Every part's finite score range, label values and key types, or why the count will
        refuse it: the rows the count reads, checked as the count checks them."""
        roles = self.roles
        out = []
        for part in open_parts(data, list(roles), roles):
            lo, hi, values, keys, kind = np.inf, -np.inf, set(), None, None
            try:
                for batch in part.batches(self.batch_rows):
                    if keys is None:
                        self.check_part(part.name, batch)
                    # the rows the count drops must not stretch the grid
                    frame = batch.drop_nulls([self.label, self.score]) if self.drop_nulls else batch
                    # as the count reads them: integers beyond 2^53 rounded down (floats_below); a
                    # float column cast, not copied through numpy
                    s = frame.get_column(self.score)
                    s = pl.Series(floats_below(s)) if rounds_down(s.dtype) else s.cast(pl.Float64)
                    s = s.filter(s.is_finite())
                    if len(s):
                        lo, hi = min(lo, s.min()), max(hi, s.max())  # type: ignore[type-var]
                    labels = frame.get_column(self.label).drop_nulls()
                    try:  # whole floats and Decimals are the integers they hold, as the count reads them
                        labels = as_integers(labels, "label")
                    except InvalidLabelError as exc:
                        raise InvalidLabelError(in_part(part.name, str(exc))) from None
                    if len(labels):
                        # one source's labels are of one kind: 1 and "1" sort and match nothing
                        mine = (class_kind(labels.dtype), str(labels.dtype))
                        if kind is not None and mine[0] != kind[0]:
                            raise SourceError(in_part(part.name, self._kinds_differ(mine[1], kind[1])))
                        kind = mine
                        values |= set(labels.unique().to_list())
                    # a key all null in every batch so far shows no type (csv reads it as String)
                    shown = key_types(frame.select(self.by))
                    keys = (
                        shown
                        if keys is None
                        else pl.Schema({n: shown[n] if t == pl.Null else t for n, t in keys.items()})
                    )
            except (SourceError, ColumnNotFoundError, InvalidScoreError) as exc:
                out.append(_PartScan(part.name, lo, hi, values, None, None, exc))
                continue
            # a part of no counted rows sets no key types in the count (a csv's read as String)
            counted = lo <= hi or not self.by
            out.append(_PartScan(part.name, lo, hi, values, keys if counted else None, kind, None))
        return out

    def gathered(self, scans: list[_PartScan], on_error: str) -> tuple[float, float, list[Any], str | None]:
        """The score range and label values of the parts the count will keep: a part it will skip
        (``on_error="skip"``) shapes neither the grid nor the default positive class; and the part
        whose labels made a third class, for the message that no default positive class is defined."""
        lo, hi = np.inf, -np.inf
        values: set[Any] = set(self.classes or [])
        third: str | None = None
        types = None
        kind = (class_kind(pl.Series(list(values)).dtype), "the classes named") if values else None
        for scan in scans:
            try:
                if scan.error is not None:
                    raise scan.error
                if scan.keys is not None:
                    types = check_part_types(scan.name, PartTypes(scan.keys, "Boolean"), types, "Boolean")
                if scan.kind is not None and kind is not None and scan.kind[0] != kind[0]:
                    raise SourceError(in_part(scan.name, self._kinds_differ(scan.kind[1], kind[1])))
            except (SourceError, ColumnNotFoundError, InvalidScoreError):
                if on_error == "raise":
                    raise
                continue
            kind = scan.kind or kind
            lo, hi = min(lo, scan.lo), max(hi, scan.hi)
            if len(values) <= 2 < len(values | scan.values):
                third = scan.name  # where a default positive class stops being defined
            values |= scan.values
        return lo, hi, sorted(values), third

    def _kinds_differ(self, mine: str, before: str) -> str:
        where = before if before == "the classes named" else f"the parts before it hold {before} values"
        return (
            f"label column {self.label!r} holds {mine} values, where {where}; "
            "one source's labels are of one kind"
        )


@dataclass
class _PartScan:
    """What :meth:`_Stream.scan` found in one part: ``keys`` is None for a part of no counted rows."""

    name: str
    lo: float
    hi: float
    values: set[Any]
    keys: pl.Schema | None
    kind: tuple[str, str] | None  # the labels' kind (as class_kind) and dtype; None without labels
    error: BatchevalError | None


def _drop_nulls(frame: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    return frame.drop_nulls(columns)


def _drop_nonfinite(frame: pl.DataFrame, score: str, label: str) -> pl.DataFrame:
    s = pl.col(score)
    if frame.schema[score] == pl.Null:
        return frame
    return frame.filter(s.cast(pl.Float64).is_finite() | s.is_null() | pl.col(label).is_null())


def _value_kind(value: Any) -> str:
    """:func:`~batcheval.core.stream.class_kind` of a column holding ``value``."""
    try:
        return class_kind(pl.Series([value]).dtype)
    except (TypeError, ValueError, pl.exceptions.PolarsError):
        return type(value).__name__


def _check_positive(positive: Any, values: Sequence[Any]) -> None:
    """A named positive must be one of the source's labels, as for a frame in memory (a source of no
    rows holds none: refused, as an empty frame is)."""
    if positive not in values:
        raise InvalidLabelError(f"positive={positive!r} is not one of the classes {list(values)}")


def _default_positive(values: list[Any], label: str) -> Any:
    """The rule of :func:`~batcheval.scores.prepare_scores`, over the values of the whole source."""
    if len(values) < 2 and set(values) <= {0, 1}:
        return True if values and isinstance(values[0], bool) else 1
    if len(values) != 2:
        raise InvalidLabelError(
            f"label column {label!r} has classes {values}; a score sweep needs two classes, "
            "or name the class to score with positive="
        )
    return values[1]
