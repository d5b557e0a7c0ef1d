"""Leaderboards with uncertainty: rank runs, and say which are tied with the leader.

Every run is compared with the leader (and, with ``adjacent=True``, with the
run ranked just above it), never with all other runs, so the work is linear
in the number of runs: one counting pass over the predictions, plus for
paired boards either

- nothing more, when the runs × examples table is dense (at most four cells
  per row): the counting pass also writes each run's real and predicted
  class per example into it (one byte a cell), and every comparison reads
  only that table; or
- one more pass over the rows per comparison, holding only the compared
  runs' predictions.

Paired comparisons (``example=`` given)
    The same test examples are scored by every run, so a run and the leader
    are compared on the examples both predicted. Each run's *joint table*
    ``joint[real, leader's prediction, run's prediction]`` holds everything
    a paired comparison needs:

    - ``p_mcnemar``: exact McNemar test of binary correctness, the two-sided
      binomial test of ``n_run_only`` successes in ``n_leader_only +
      n_run_only`` discordant examples at p = 1/2 (McNemar 1947; the exact
      form as in Fagerland, Lydersen & Laake 2013, BMC Med. Res. Methodol.
      13:91);
    - ``p_vs_leader``: the paired bootstrap of the measure difference. Each
      replicate resamples the examples (a multinomial draw of the joint
      table), and measures the run and the leader on the same resample. The
      standard error of the difference is the replicates' standard
      deviation, and ``p = 2·Φ(−|diff|/se)``. A normal p-value rather than a
      percentile one because a percentile p-value cannot fall below
      1/(n_boot + 1), which a Holm correction over many runs could never
      reject.

Unpaired comparisons (no ``example=``)
    The run and the leader are treated as independent samples:
    ``se = sqrt(se_run² + se_leader²)`` from the delta method (or from the
    bootstrap with ``ci_method="bootstrap"``). Runs scored on the same test
    set are positively correlated, so this overstates the standard error
    and the test is conservative: give ``example=`` when you can.

``tied_with_leader`` is true when the Holm-adjusted ``p_vs_leader`` (over all
runs but the leader) exceeds ``1 − ci``: the board cannot tell that run from
the leader at that family-wise error rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from . import intervals as _intervals
from . import measures as _measures
from .adjust import adjust
from .counting import _PRIVATE_ROWS_PER_THREAD, _kernel_keys, compact, encode_frame, raise_outside
from .encode import value_range
from .errors import InvalidArgumentError, UnknownMeasureError
from .frames import as_key_list, select_columns
from .kernels import bootstrap as _boot
from .kernels import leaderboard as _lb
from .kernels.jit import n_threads
from .table import ContingencyTable, sum_axes

__all__ = ["leaderboard"]

# replicate cells held in memory at once by the paired bootstrap
_CHUNK_CELLS = 1 << 24
# an integer example column is looked up through an array when its range is at most this
_LUT_LIMIT = 1 << 26
# the one-pass joint count keeps a private table per thread while all of them stay this small
_PRIVATE_CELLS = 1 << 25
# paired tests hold one prediction per compared run and example: at most this many (1-2 bytes each)
_ADJACENT_CELLS = 1 << 30
# one-pass paired boards hold every run × example, if that is at most this many cells per row
_CELLS_PER_ROW = 4


def leaderboard(
    data: Any,
    run: str | Sequence[str] = "run",
    label: str = "label",
    prediction: str = "prediction",
    *,
    pool: str | Sequence[str] | None = None,
    measure: str = "informedness",
    example: str | Sequence[str] | None = None,
    ci: float = 0.95,
    ci_method: str = "wilson_delta",
    significance: str = "chi2_kb",
    n_boot: int = 200,
    seed: int | None = 0,
    paired: str = "bootstrap",
    adjacent: bool = False,
    classes: Sequence[Any] | None = None,
    positive: Any = None,
) -> pl.DataFrame:
    """Rank runs by a measure, with intervals and tests against the leader.

    Parameters
    ----------
    data
        Per-example predictions (polars, pyarrow or pandas), one row per
        run × example.
    run
        Column(s) naming a run; the board has one row per run.
    label, prediction
        The real and the predicted class.
    pool
        Columns such as ``"fold"`` that a run's predictions are summed over
        (the micro average, spec §5). Every column not in ``run`` is pooled
        over anyway; naming them checks that they exist.
    measure
        The ranking measure, highest first. It needs an interval under
        ``ci_method`` (see :func:`batcheval.intervals.interval_measures`).
    example
        Column(s) identifying a test example across runs: comparisons with
        the leader become paired (see the module docstring). If example ids
        restart in each fold, name both: ``example=["fold", "example_id"]``.
    ci
        Level of the intervals; ``1 − ci`` is the level of the Holm-corrected
        tie test.
    ci_method
        ``"wilson_delta"`` or ``"bootstrap"`` for the measure's interval (and
        for the unpaired standard errors).
    significance
        The statistic whose chance p-value is reported as ``p_<significance>``:
        ``chi2_kb`` (default), any other of spec §3's statistics, or ``fisher``.
    n_boot, seed
        Bootstrap replicates (paired comparisons, and intervals with
        ``ci_method="bootstrap"``) and their seed; the default seed 0 makes
        the board reproducible. 200 replicates estimate a standard error to
        about 5%; raise ``n_boot`` to 1000 or more for percentile intervals.
    paired
        How ``p_vs_leader`` is found with ``example=``: ``"bootstrap"`` (the
        paired bootstrap above) or ``"delta"``, the delta-method standard
        error of the same difference on the joint table, ``var = (Σ π G² −
        (Σ π G)²)/n`` with ``G[y, l, p] = g_run[y, p] − g_leader[y, l]`` (the
        two measures' gradients, see :func:`batcheval.intervals.delta_gradient`).
        It is the bootstrap's large-sample limit at no resampling cost: use it
        for boards of many thousands of runs. (The bootstrap draws ``n_boot``
        multinomials of each run's joint table: about 11–12 s for 100k runs
        and 200 replicates on two cores, where ``"delta"`` adds 0.1–0.4 s.)
    adjacent
        Also compare each run with the run ranked just above it:
        ``diff_vs_above`` and ``p_vs_above`` (NaN for the leader), tested as
        the leader comparison is — paired with ``example=``, unpaired
        without. Not corrected for multiplicity: each answers whether two
        neighbours on the board can be told apart. A paired adjacent test
        holds every run's prediction for every example (runs × examples
        bytes), which a dense board holds anyway.
    classes, positive
        The class set and the positive class, as in :func:`batcheval.evaluate`.

    Returns
    -------
    polars.DataFrame
        One row per run, best first: the run keys, ``rank`` (ties share the
        best rank), ``n``, the measure with ``<measure>_ci_low`` and
        ``<measure>_ci_high``, ``p_<significance>``, ``diff_vs_leader``,
        ``p_vs_leader``, ``p_vs_leader_holm`` and ``tied_with_leader`` (true
        for the leader), and with ``example=`` also ``n_paired``,
        ``n_leader_only``, ``n_run_only`` and ``p_mcnemar``; with
        ``adjacent=True`` also ``diff_vs_above`` and ``p_vs_above``.

    Examples
    --------
    Three runs score the same 400 test examples; run "b" is a little worse
    than "a", run "c" much worse:

    >>> import numpy as np
    >>> import batcheval as be
    >>> rng = np.random.default_rng(0)
    >>> label = rng.integers(0, 2, 400)
    >>> def predict(skill):  # informed with probability skill, else a coin flip
    ...     return np.where(rng.random(400) < skill, label, rng.integers(0, 2, 400))
    >>> df = pl.concat([
    ...     pl.DataFrame({"run": r, "example_id": np.arange(400), "label": label, "prediction": predict(s)})
    ...     for r, s in [("a", 0.8), ("b", 0.75), ("c", 0.3)]
    ... ])
    >>> board = be.leaderboard(df, run="run", example="example_id")
    >>> board.select("run", "rank", "tied_with_leader").rows()
    [('a', 1, True), ('b', 2, True), ('c', 3, False)]
    """
    _intervals.check_options(ci, ci_method, n_boot, seed)
    if paired not in ("bootstrap", "delta"):
        raise InvalidArgumentError(f"unknown paired method {paired!r}; use 'bootstrap' or 'delta'")
    runs = as_key_list(run, "run")
    if not runs:
        raise InvalidArgumentError("run must name at least one column, got []")
    pools = as_key_list(pool, "pool")
    examples = as_key_list(example, "example")
    p_name = _significance_name(significance)
    roles = {
        **{c: "pool" for c in pools}, **{c: "example" for c in examples}, **{c: "run" for c in runs},
        label: "label", prediction: "prediction",
    }  # fmt: skip
    columns = [*runs, *pools, *examples, label, prediction]
    # the same column in two roles (e.g. fold as pool and as part of the example) is fine
    df = select_columns(data, list(dict.fromkeys(columns)), roles)
    cells = _count_with_cells(df, runs, examples, label, prediction, classes) if examples else None
    if cells is not None:
        table = cells.table
    else:
        table = ContingencyTable.from_frame(df, by=runs, label=label, prediction=prediction, classes=classes)
    k = table.n_classes
    if k < 2:
        raise InvalidArgumentError(f"a leaderboard needs at least 2 classes, got {table.classes.to_list()}")
    if p_name not in (_measures.BINARY_MEASURES if k == 2 else _measures.MULTICLASS_MEASURES):
        raise UnknownMeasureError(f"significance={significance!r} has no p-value for {k} classes")
    capable = _intervals.interval_measures(k, ci_method)
    if measure not in capable:
        hint = (
            " (try ci_method='bootstrap')" if measure in _intervals.interval_measures(k, "bootstrap") else ""
        )
        raise UnknownMeasureError(
            f"measure {measure!r} has no {ci_method} interval for {k} classes{hint}; "
            f"measures with one: {capable}"
        )
    pos = table.positive_index(positive) if k == 2 else 1
    counts = np.asarray(table.counts)
    point = _measures.compute(counts, [measure, p_name], positive=pos)
    value = point[measure]
    low, high = _intervals.intervals(
        counts, [measure], ci, ci_method, n_boot=n_boot, seed=seed, positive=pos
    )[measure]

    order = np.lexsort((np.arange(len(value)), -np.nan_to_num(value, nan=-np.inf)))
    leader = int(order[0])
    ranked = value[order]
    # competition ranking: a run tied in value with the one above shares its rank
    same = np.concatenate(([False], ranked[1:] == ranked[:-1]))
    rank = np.arange(1, len(order) + 1)
    rank = np.maximum.accumulate(np.where(same, 0, rank))

    cols: dict[str, Any] = {
        "n": counts.sum(axis=(1, 2)),
        measure: value,
        f"{measure}_ci_low": low,
        f"{measure}_ci_high": high,
        p_name: point[p_name],
    }
    above = np.full(len(value), -1, dtype=np.int64)  # the run ranked just above each run
    above[order[1:]] = order[:-1]
    if examples:
        if paired == "delta" and measure not in _intervals.interval_measures(k, "wilson_delta"):
            raise UnknownMeasureError(
                f"paired='delta' needs a measure with a delta-method gradient, not {measure!r}"
            )
        versus_leader = np.full(len(value), leader)
        if cells is not None:
            joint = cells.joint(versus_leader, df, runs, examples)
        else:
            lead = np.array([leader])
            joint = _joint_tables(df, table, runs, examples, label, prediction, lead, versus_leader)
        cols.update(_paired(joint, measure, pos, n_boot, seed, paired))
        if adjacent:
            if cells is not None:
                joint = cells.joint(above, df, runs, examples)
            else:  # every run held: each is checked for repeated examples, and all but the last referenced
                every = np.arange(len(value))
                joint = _joint_tables(df, table, runs, examples, label, prediction, every, above)
            vs = _paired(joint, measure, pos, n_boot, seed, paired)
            cols["diff_vs_above"], cols["p_vs_above"] = vs["diff_vs_leader"], vs["p_vs_leader"]
    else:
        se = _unpaired_se(counts, measure, ci_method, n_boot, seed, pos)
        cols.update(_versus(value, se, np.full(len(value), leader), "leader"))
        if adjacent:
            cols.update(_versus(value, se, above, "above"))
    if adjacent:
        cols["diff_vs_above"][leader] = np.nan
        cols["p_vs_above"][leader] = np.nan
    p = cols["p_vs_leader"]
    p[leader] = np.nan
    if examples:
        cols["p_mcnemar"][leader] = np.nan
    cols["diff_vs_leader"][leader] = 0.0
    holm = adjust(p, "holm")
    tied = np.where(np.isnan(holm), None, holm > 1.0 - ci).astype(object)
    tied[leader] = True
    cols["p_vs_leader_holm"] = holm
    cols["tied_with_leader"] = tied

    head = ["n", measure, f"{measure}_ci_low", f"{measure}_ci_high", p_name, "diff_vs_leader", "p_vs_leader",
            "p_vs_leader_holm", "tied_with_leader"]  # fmt: skip
    tail = ["n_paired", "n_leader_only", "n_run_only", "p_mcnemar"] if examples else []
    tail += ["diff_vs_above", "p_vs_above"] if adjacent else []
    series = [pl.Series("rank", rank, dtype=pl.Int64)]
    for name in head + tail:
        values = cols[name][order]
        if name == "tied_with_leader":
            series.append(pl.Series(name, values.tolist(), dtype=pl.Boolean))
        elif name in ("n", "n_paired", "n_leader_only", "n_run_only"):
            series.append(pl.Series(name, values, dtype=pl.Int64))
        else:
            series.append(pl.Series(name, values, dtype=pl.Float64))
    return table.keys[order].hstack(series)


def _significance_name(significance: str) -> str:
    stats = ("chi2", "g2", "chi2_pos_pred", "chi2_pos_real", "chi2_kb", "chi2_km", "chi2_kbm", "fisher")
    if significance not in stats:
        raise InvalidArgumentError(f"unknown significance {significance!r}; use one of {list(stats)}")
    return f"p_{significance}"


def _normal_p(diff: np.ndarray, se: np.ndarray) -> np.ndarray:
    from scipy import special

    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(diff) / se
    p = special.erfc(z / np.sqrt(2.0))
    # no spread at all: equal values are no evidence of a difference, unequal ones are certain
    return np.where(se == 0, np.where(diff == 0, 1.0, 0.0), p)


def _unpaired_se(
    counts: np.ndarray, measure: str, ci_method: str, n_boot: int, seed: int | None, pos: int
) -> np.ndarray:
    if ci_method == "bootstrap":
        return _bootstrap_se(counts, measure, n_boot, seed, pos)
    return _intervals.standard_errors(counts, [measure], positive=pos)[measure]


def _versus(value: np.ndarray, se: np.ndarray, ref: np.ndarray, name: str) -> dict[str, np.ndarray]:
    """Unpaired difference of each run from run ``ref[g]``, with independent standard errors."""
    at = np.maximum(ref, 0)
    diff = value - value[at]
    return {f"diff_vs_{name}": diff, f"p_vs_{name}": _normal_p(diff, np.sqrt(se * se + se[at] ** 2))}


def _bootstrap_se(counts: np.ndarray, measure: str, n_boot: int, seed: int | None, pos: int) -> np.ndarray:
    g, k, _ = counts.shape
    se = np.empty(g)
    step = max(1, _CHUNK_CELLS // (n_boot * (k * k + 1)))
    for start in range(0, g, step):  # chunks of groups bound the replicate memory
        stop = min(g, start + step)
        reps = _intervals.bootstrap_replicates(counts[start:stop], n_boot, seed, first=start)
        v = _measures.compute(reps.reshape(-1, k, k), [measure], positive=pos)[measure]
        _boot.nan_std(v.reshape(stop - start, n_boot), se[start:stop])
    return se


@dataclass
class _Cells:
    """Every run's class pair (real · K + predicted + 1, 0: none) on every example,
    ``cells[rows[g] * E + e]`` for run g of ``table``: counted and filled in
    one pass over the rows, after which each paired comparison reads only
    this table."""

    table: ContingencyTable
    cells: np.ndarray
    n_examples: int
    rows: np.ndarray
    k: int  # class codes in ``cells``; ``table`` keeps ``class_codes`` of them
    class_codes: np.ndarray

    def joint(self, ref: np.ndarray, df: pl.DataFrame, runs: list[str], examples: list[str]) -> np.ndarray:
        """``joint[g, real, ref's prediction, g's prediction]`` as :func:`_joint_tables`
        gives it, raising for a run with two rows for one example."""
        g, k = len(self.rows), self.k
        pairs = np.zeros((g, k**4), dtype=np.int64)
        filled = np.empty(g, dtype=np.int64)
        _lb.joint_from_cells(self.cells, self.n_examples, self.rows, ref, k * k, pairs, filled)
        short = np.flatnonzero(filled < self.table.counts.sum(axis=(1, 2)))
        if len(short):
            _raise_duplicate_examples(df, self.table, runs, examples, int(short[0]))
        # [g, real, own prediction, ref's real, ref's prediction] → [g, real, ref's prediction, own]
        joint = pairs.reshape(g, k, k, k, k).sum(axis=3).transpose(0, 1, 3, 2)
        keep = self.class_codes
        if len(keep) != k:
            joint = joint[:, keep][:, :, keep][:, :, :, keep]
        return np.ascontiguousarray(joint)


def _count_with_cells(
    df: pl.DataFrame,
    runs: list[str],
    examples: list[str],
    label: str,
    prediction: str,
    classes: Sequence[Any] | None,
) -> _Cells | None:
    """The board's table and its :class:`_Cells` from one pass over the rows, or
    None when the runs × examples table would be large or sparse (per-thread
    count tables too, or class pairs beyond int8)."""
    coding, space = encode_frame(df, runs, label, prediction, classes)
    if space is None:
        return None
    k, threads = coding.n_codes, n_threads()
    if k * k > 127 or space.size * k * k * threads > _PRIVATE_CELLS:
        return None
    if -(-df.height // threads) > _PRIVATE_ROWS_PER_THREAD:
        return None
    example_col, ex_lo, n_examples = _example_coding(df, examples)
    size = space.size * n_examples
    if size > min(_ADJACENT_CELLS, _CELLS_PER_ROW * df.height):
        return None
    cells = np.zeros(size, dtype=np.int8)
    bufs = np.zeros((threads, space.size * k * k), dtype=np.uint32)
    bad = _lb.count_and_fill(*_kernel_keys(space.columns), coding.label, coding.prediction, coding.vmin,
                             coding.lut, k, example_col, ex_lo, n_examples, bufs, cells)  # fmt: skip
    if bad:
        raise_outside(coding, bad)
    counts = bufs.sum(axis=0, dtype=np.int64).reshape(space.size, k, k)
    counted = compact(space, coding, counts, True)
    table = ContingencyTable(counted.keys, counted.classes, counted.counts)
    return _Cells(table, cells, n_examples, counted.groups, k, counted.class_codes)  # type: ignore[arg-type]


def _joint_tables(
    df: pl.DataFrame,
    table: ContingencyTable,
    runs: list[str],
    examples: list[str],
    label: str,
    prediction: str,
    held: np.ndarray,
    ref: np.ndarray,
) -> np.ndarray:
    """``joint[g, real, reference's prediction, g's prediction]`` over the examples both
    predicted, where g's reference is run ``ref[g]`` (-1: none, a zero table).

    Two passes: the runs in ``held`` (every reference, and any run whose
    examples must be checked for duplicates) write their predictions into a
    ``held × examples`` table, then every row is counted against its reference.
    """
    k, g = table.n_classes, len(table)
    slot = np.full(g, -1, dtype=np.int64)
    slot[held] = np.arange(len(held))
    run_col, run_lo, run_lut = _run_coding(df, table, runs)
    example_col, ex_lo, n_examples = _example_coding(df, examples)
    if len(held) * n_examples > _ADJACENT_CELLS:
        raise InvalidArgumentError(
            f"paired tests hold each compared run's prediction per example: {len(held):,} runs × "
            f"{n_examples:,} examples is over {_ADJACENT_CELLS:,} cells; drop example= for "
            "unpaired tests"
        )
    (label_col, pred_col), class_lo, class_lut = _class_coding(df, table, label, prediction)
    preds = np.full(len(held) * n_examples, -1, dtype=np.int8 if k < 128 else np.int16)
    fill = (run_col, example_col, pred_col)
    if len(held) == 1:  # one run's rows: a polars filter finds them faster than a pass over every row
        rows = pl.Series(_run_mask(df, table, runs, int(held[0]))).arg_true().to_numpy()
        fill = tuple(col[rows] for col in fill)
    _lb.fill_predictions(fill[0], run_lo, run_lut, slot, fill[1], ex_lo, n_examples, fill[2],
                         class_lo, class_lut, preds)  # fmt: skip
    filled = (preds.reshape(len(held), n_examples) >= 0).sum(axis=1)
    short = np.flatnonzero(filled < np.asarray(table.counts)[held].sum(axis=(1, 2)))
    if len(short):
        _raise_duplicate_examples(df, table, runs, examples, int(held[short[0]]))
    # a private table per thread while they stay small, else one table (the result)
    threads = n_threads() if g * k**3 * n_threads() <= _PRIVATE_CELLS else 1
    narrow = -(-df.height // threads) <= _PRIVATE_ROWS_PER_THREAD
    bufs = np.zeros((threads, g * k**3), dtype=np.uint32 if narrow else np.int64)
    ref_slot = np.where(ref >= 0, slot[np.maximum(ref, 0)], -1)
    _lb.joint_vs_reference(run_col, run_lo, run_lut, example_col, ex_lo, label_col, pred_col, class_lo,
                           class_lut, ref_slot, n_examples, preds, k, bufs)  # fmt: skip
    return bufs.sum(axis=0, dtype=np.int64).reshape(g, k, k, k)


def _run_mask(df: pl.DataFrame, table: ContingencyTable, runs: list[str], g: int) -> pl.Series:
    """The rows of run g."""
    keys = table.keys.row(g, named=True)
    mask = pl.lit(True)
    for c in runs:
        mask = mask & (pl.col(c).is_null() if keys[c] is None else pl.col(c) == keys[c])
    return df.select(mask.alias("mask")).to_series()


def _raise_duplicate_examples(
    df: pl.DataFrame, table: ContingencyTable, runs: list[str], examples: list[str], g: int
) -> None:
    keys = table.keys.row(g, named=True)
    rows = df.filter(_run_mask(df, table, runs, g)).select(examples)
    dup = rows.is_duplicated()
    first = rows.filter(dup).row(0, named=True)
    raise InvalidArgumentError(
        f"example={examples} does not identify one row per example in run {keys}: "
        f"{int(dup.sum())} rows share a key (first: {first}); "
        "if ids restart in each fold, include the fold, e.g. example=['fold', 'example_id']"
    )


def _dense_lut(col: pl.Series, limit: int = _LUT_LIMIT) -> tuple[int, int] | None:
    """``(lo, hi)`` of an integer column without nulls whose range is small enough for a lookup array."""
    if not col.dtype.is_integer() or col.null_count() or not len(col):
        return None
    if col.dtype == pl.UInt64:  # may not fit the int64 pass
        lo, hi = int(col.min()), int(col.max())  # type: ignore[arg-type]
        if hi >= 1 << 63:  # the kernels index through int64
            return None
    else:
        lo, hi = value_range(col.to_numpy())  # one parallel pass; polars' min and max are two
    return (lo, hi) if hi - lo < limit else None


def _dense_codes(values: pl.Series) -> tuple[int, np.ndarray] | None:
    """``(lo, lut)`` with ``lut[v - lo]`` = the position of v in ``values`` (distinct
    small-range integers), else None."""
    dense = _dense_lut(values)
    if dense is None:
        return None
    lo, hi = dense
    lut = np.zeros(hi - lo + 1, dtype=np.int64)
    lut[values.to_numpy().astype(np.int64) - lo] = np.arange(len(values))
    return lo, lut


def _run_coding(
    df: pl.DataFrame, table: ContingencyTable, runs: list[str]
) -> tuple[np.ndarray, int, np.ndarray]:
    """``(column, lo, lut)``: row i belongs to group ``lut[column[i] - lo]`` of ``table``
    (every row's run is a key of it: the table was counted from these rows)."""
    dense = _dense_codes(table.keys.get_column(runs[0])) if len(runs) == 1 else None
    if dense is not None:
        return df.get_column(runs[0]).to_numpy(), *dense
    keys = table.keys.with_row_index("__g")
    joined = df.select(runs).join(keys, on=runs, how="left", nulls_equal=True, maintain_order="left")
    return joined.get_column("__g").to_numpy(), 0, np.arange(len(table), dtype=np.int64)


def _example_coding(df: pl.DataFrame, examples: list[str]) -> tuple[np.ndarray, int, int]:
    """``(column, lo, E)``: row i scores example ``column[i] - lo``, one of ``0..E-1``."""
    dense = _dense_lut(df.get_column(examples[0])) if len(examples) == 1 else None
    if dense is not None:
        lo, hi = dense
        return df.get_column(examples[0]).to_numpy(), lo, hi - lo + 1
    codes = df.select(pl.struct(examples).rank("dense")).to_series().to_numpy()
    return codes, 1, int(codes.max()) if len(codes) else 0


def _class_coding(
    df: pl.DataFrame, table: ContingencyTable, label: str, prediction: str
) -> tuple[tuple[np.ndarray, np.ndarray], int, np.ndarray]:
    """The label and prediction columns with ``(lo, lut)``: class code ``lut[value - lo]``."""
    classes = table.classes
    k = len(classes)
    dense = _dense_codes(classes)
    if dense is not None:
        return (df.get_column(label).to_numpy(), df.get_column(prediction).to_numpy()), *dense
    codes = pl.Series(range(k), dtype=pl.Int16)
    cols = tuple(df.get_column(c).replace_strict(classes, codes).to_numpy() for c in (label, prediction))
    return cols, 0, np.arange(k, dtype=np.int64)  # type: ignore[return-value]


def _paired(
    joint: np.ndarray, measure: str, pos: int, n_boot: int, seed: int | None, method: str
) -> dict[str, np.ndarray]:
    run_tables = sum_axes(joint, 2)  # real × run's prediction
    lead_tables = sum_axes(joint, 3)  # real × leader's prediction
    diff = (
        _measures.compute(run_tables, [measure], positive=pos)[measure]
        - _measures.compute(lead_tables, [measure], positive=pos)[measure]
    )
    if method == "delta":
        se = _paired_delta_se(joint, run_tables, lead_tables, measure, pos)
    else:
        se = _paired_bootstrap_se(joint, measure, pos, n_boot, seed)
    both = np.einsum("gyyy->g", joint)
    leader_right = np.einsum("gyyp->g", joint) - both
    run_right = np.einsum("gyly->g", joint) - both
    return {
        "diff_vs_leader": diff,
        "p_vs_leader": _normal_p(diff, se),
        "n_paired": sum_axes(joint, (1, 2, 3)),
        "n_leader_only": leader_right,
        "n_run_only": run_right,
        "p_mcnemar": _mcnemar_exact(leader_right, run_right),
    }


def _paired_delta_se(
    joint: np.ndarray, run_tables: np.ndarray, lead_tables: np.ndarray, measure: str, pos: int
) -> np.ndarray:
    g_run, bad_run = _intervals.delta_gradient(run_tables, measure, positive=pos)
    g_lead, bad_lead = _intervals.delta_gradient(lead_tables, measure, positive=pos)
    grad = g_run[:, :, None, :] - g_lead[:, :, :, None]  # [g, real, leader, run]
    n = sum_axes(joint, (1, 2, 3)).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = joint / n[:, None, None, None]
        s1 = sum_axes(pi * grad, (1, 2, 3))
        s2 = sum_axes(pi * grad * grad, (1, 2, 3))
        se = np.sqrt(np.maximum(s2 - s1 * s1, 0.0) / n)
    return np.where(bad_run | bad_lead | (n == 0), np.nan, se)


def _paired_bootstrap_se(
    joint: np.ndarray, measure: str, pos: int, n_boot: int, seed: int | None
) -> np.ndarray:
    g, k = joint.shape[0], joint.shape[1]
    se = np.empty(g)
    step = max(1, _CHUNK_CELLS // (n_boot * (k**3 + 2 * k * k)))
    for start in range(0, g, step):  # chunks of groups bound the replicate memory
        stop = min(g, start + step)
        if k == 2:  # one fused kernel: replicate cells straight into cell columns
            cells = np.empty((2, 4, (stop - start) * n_boot), dtype=np.int64)
            flat = np.ascontiguousarray(joint[start:stop].reshape(stop - start, 8), dtype=np.int64)
            seeds = _intervals.seeds_for(seed, start, stop - start)
            _boot.paired_binary_cells(flat, n_boot, seeds, pos, *cells)
            d = (
                _measures.compute_cells(*cells[0], [measure])[measure]
                - _measures.compute_cells(*cells[1], [measure])[measure]
            )
        else:
            reps = _intervals.bootstrap_replicates(joint[start:stop], n_boot, seed, first=start)
            flat = reps.reshape(-1, k, k, k)
            d = (
                _measures.compute(flat.sum(axis=2), [measure], positive=pos)[measure]
                - _measures.compute(flat.sum(axis=3), [measure], positive=pos)[measure]
            )
        _boot.nan_std(d.reshape(stop - start, n_boot), se[start:stop])
    return se


def _mcnemar_exact(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Two-sided exact McNemar p-value: 2·P(X <= min(b, c)), X ~ Bin(b + c, 1/2), at most 1."""
    from scipy import special

    m = b + c
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2.0 * special.bdtr(np.minimum(b, c), m, 0.5))
    return np.where(m == 0, 1.0, p)


def plot_leaderboard(
    board: pl.DataFrame,
    *,
    top: int = 20,
    path: Any = None,
    title: str | None = None,
    ax: Any = None,
) -> Any:
    """Forest plot of the ``top`` runs of a :func:`leaderboard` frame (``be.plot(board)``).

    One row per run, best at the top: the measure as a point, its interval as
    a bar; runs tied with the leader are drawn filled, the others hollow, and
    a dashed line marks the leader's value.

    Examples
    --------
    >>> import batcheval as be
    >>> from batcheval.demo import make_sweep
    >>> board = be.leaderboard(make_sweep(n_runs=30, rows_per_fold=100), pool="fold")
    >>> fig = be.plot(board, top=10)
    >>> len(fig.axes[0].get_yticklabels()), fig.axes[0].get_xlabel()
    (10, 'informedness')
    """
    from .plot import _pyplot

    measure = _board_measure(board)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise InvalidArgumentError(f"top must be a positive integer, got {top!r}")
    rows = board.sort("rank", maintain_order=True).head(top)
    keys = [c for c in rows.columns[: rows.columns.index("rank")]]
    labels = [", ".join(str(v) for v in r) for r in rows.select(keys).iter_rows()] if keys else []
    value = rows.get_column(measure).to_numpy()
    low = rows.get_column(f"{measure}_ci_low").to_numpy()
    high = rows.get_column(f"{measure}_ci_high").to_numpy()
    tied = rows.get_column("tied_with_leader").fill_null(False).to_numpy()
    plt = _pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.28 * len(rows)))
    else:
        fig = ax.figure
    y = np.arange(len(rows))[::-1]
    ax.hlines(y, low, high, color="0.35", linewidth=1.4)
    ax.plot(value[tied], y[tied], "o", color="C0", label="tied with the leader")
    ax.plot(value[~tied], y[~tied], "o", mfc="white", color="C3", label="below the leader")
    if len(rows):
        ax.axvline(value[0], color="0.6", linestyle="--", linewidth=0.9)
    ax.set_yticks(y, labels or [str(r) for r in rows.get_column("rank").to_list()])
    ax.set_xlabel(measure)
    ax.set_title(title or f"top {len(rows)} runs by {measure}")
    ax.grid(True, axis="x", color="0.93")
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def _board_measure(board: pl.DataFrame) -> str:
    for name in board.columns:
        if f"{name}_ci_low" in board.columns and f"{name}_ci_high" in board.columns:
            return name
    raise InvalidArgumentError(
        f"not a leaderboard frame: no <measure>_ci_low/_ci_high columns among {board.columns}"
    )


def is_leaderboard(frame: Any) -> bool:
    """True for a frame from :func:`leaderboard` (what :func:`batcheval.plot` dispatches on)."""
    return isinstance(frame, pl.DataFrame) and {"rank", "tied_with_leader"} <= set(frame.columns)
