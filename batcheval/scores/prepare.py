"""Score inputs of sweeps and AUCs: frame → key space, label coding, score array.

Everything here is a check or an encoding; no row is copied unless the input
needs it (nulls to drop, a non-float64 score). Non-finite scores are found in
one parallel pass and then skipped by the kernels, rather than filtered out of
a copied frame.
"""

from __future__ import annotations

import functools
import numbers
import reprlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..core.counting import KeySpace, kernel_keys, key_space
from ..core.encode import (
    WIDE_INTEGERS,
    as_integers,
    check_classes,
    encode_classes,
    encode_key,
    integer_like,
    label_kind,
    narrow_integers,
)
from ..core.memory import check_allocation
from ..errors import InvalidArgumentError, InvalidLabelError, InvalidScoreError, NullValuesError, warn
from ..io.arguments import is_real, is_text_or_truth, is_value_list
from ..io.frames import as_key_list, check_roles, select_columns
from ..kernels.count import mark_present
from ..kernels.jit import SERIAL_BELOW, n_threads, readonly
from ..kernels.ranges import finite_range
from ..kernels.sweep import RANGE_KEYS, input_ranges

__all__ = [
    "Scored",
    "check_exact_in_float",
    "check_histogram",
    "check_nonfinite",
    "check_thresholds",
    "check_within_classes",
    "checked_labels",
    "compared_thresholds",
    "floats_below",
    "grid_floor",
    "prepare_scores",
    "rounds_down",
    "threshold_grid",
]


@dataclass
class Scored:
    """Kernel-ready scored rows: key space, label codes and scores.

    ``lut[label - vmin]`` is 1 for the positive class, 0 for the others (and
    -1 for no class, which a label column's own coding never produces).
    Rows whose score is not finite are skipped by every kernel.
    """

    by: list[str]
    space: KeySpace
    label: np.ndarray
    vmin: int
    lut: np.ndarray
    score: np.ndarray
    score_min: float  # of the finite scores; min > max when there are none
    score_max: float
    classes: tuple
    score_name: str = "score"
    drop_nonfinite: bool = False
    # rows with a NaN or infinite score, which kernels skip; None when not
    # counted up front (exact AUCs count them while grouping)
    nonfinite: int | None = 0
    # rows dropped for a null score or label before these rows (positions in errors shift by them)
    nulls_dropped: int = 0
    # the label values these rows hold (``classes`` adds those of classes= and known=)
    present: tuple = ()
    # Float32 scores, widened to float64 here: a threshold the user names is compared as polars
    # and numpy compare it with such a column, rounded to float32 (:func:`compared_thresholds`)
    float32: bool = False

    @property
    def rows(self) -> tuple:
        """The arguments every row kernel takes: keys, then label coding, then scores."""
        return self.rows_between(0, len(self.score))

    def rows_between(self, lo: int, hi: int) -> tuple:
        """:attr:`rows` for rows ``[lo, hi)`` only (views, no copies)."""
        keys = kernel_keys(self.space.columns)
        n_keys = len(self.space.columns)
        arrays = tuple(a[lo:hi] if i < n_keys else a for i, a in enumerate(keys[:4]))
        return (*arrays, *keys[4:], self.label[lo:hi], self.vmin, self.lut, 1, self.score[lo:hi])


def prepare_scores(
    data: Any,
    by: str | Sequence[str] | None,
    label: str,
    score: str,
    positive: Any,
    classes: Sequence[Any] | None,
    drop_nonfinite: bool,
    drop_nulls: bool,
    score_range: bool = True,
    *,
    known: Sequence[Any] = (),
    exact_scores: bool = True,
    positions: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Scored:
    """Check and encode the key, label and score columns of a sweep or AUC.

    ``known``: classes of the whole source that these rows (a streamed batch) may lack, such as
    the positive one. ``exact_scores``: the scores are thresholds themselves (an AUC, an exact
    sweep), so integers or decimals that merge as float64 are an error (:func:`check_exact_in_float`).
    ``positions(at)``: where the rows ``at`` of ``data`` are in their source (a streamed batch's in
    its file, dropped rows counted), for errors that name rows; without it they are ``data``'s own.

    ``score_range=False`` skips the pass that finds the finite scores' range
    and counts the others; the caller's kernels must then count them (see
    :func:`check_nonfinite`).
    """
    keys = as_key_list(by)
    # check_roles keeps both roles of a column named twice: a dict merged from the parts kept the last
    roles = check_roles(keys, label, score, roles=("label", "score"))
    df = select_columns(data, [*keys, label, score], roles)
    # a Null-dtype column (all null, or empty) holds no values of a wrong kind
    nulls_typed = {label: pl.Int64, score: pl.Float64}
    df = df.with_columns(pl.col(c).cast(t) for c, t in nulls_typed.items() if df.schema[c] == pl.Null)
    s = df.get_column(score)
    if not s.dtype.is_numeric():
        raise InvalidScoreError(f"score column {score!r} has dtype {s.dtype}; scores must be numeric")
    if exact_scores:
        check_exact_in_float(s, score)
    nulls = s.null_count() + df.get_column(label).null_count()
    nulls_dropped = 0
    if nulls:
        if not drop_nulls:
            raise NullValuesError(
                f"score column {score!r} or label column {label!r} has {nulls} null value(s); "
                "pass drop_nulls=True to skip those rows"
            )
        keep = pl.col(score).is_not_null() & pl.col(label).is_not_null()
        if positions is not None:  # the rows kept are where they were before dropping
            kept_rows = df.select(keep).to_series().arg_true().to_numpy()
            positions = functools.partial(_positions_of_kept, positions, kept_rows)
        kept = df.filter(keep)
        warn(f"dropped {df.height - kept.height} of {df.height} rows with a null {score!r} or {label!r}")
        nulls_dropped = df.height - kept.height
        df = kept
    column = df.get_column(score)
    scores = column.cast(pl.Float64).to_numpy() if exact_scores else floats_below(column)
    scores = readonly(np.ascontiguousarray(scores))
    lab = narrow_integers(df.get_column(label), "label")
    n = df.height
    key_series = [df.get_column(k) for k in keys]
    lo, hi, bad = np.inf, -np.inf, (0 if score_range else None)
    key_bounds: list[tuple[int, int] | None] = [None] * len(keys)
    class_bounds, mask = None, None
    if score_range and n >= SERIAL_BELOW:
        # one pass for the score range and the label's and integer keys' ranges, which encoding
        # would otherwise scan for one column at a time (a pass over the rows each)
        lo, hi, bad, class_bounds, mask, key_bounds = _input_ranges(scores, lab, key_series)
        check_nonfinite(score, int(bad), drop_nonfinite, scores, nulls_dropped, positions)
    elif score_range and n:
        lo, hi, bad = finite_range(scores, n_threads())
        check_nonfinite(score, int(bad), drop_nonfinite, scores, nulls_dropped, positions)
    coding = encode_classes(lab, lab, None, bounds=class_bounds)
    present = coding.classes.to_list()
    if coding.trim and len(lab):  # a narrow integer range: which of its values occur
        seen = coding.seen
        # encode_classes' own reading of such a mask, which holds only values 0..63: a shift of
        # 64 or more read no bit (or a wrapped one), and labels {100, 101} were never seen
        in_mask = class_bounds is not None and 0 <= class_bounds[0] and class_bounds[1] < 64
        if seen is None and mask is not None and in_mask:
            shifts = np.arange(class_bounds[0], class_bounds[1] + 1, dtype=np.uint64)
            seen = ((np.uint64(mask) >> shifts) & np.uint64(1)).astype(np.bool_)
        if seen is None:
            seen = np.zeros(len(coding.lut), dtype=np.bool_)
            mark_present(coding.label, coding.vmin, seen)
        present = [present[i] for i in np.flatnonzero(seen)]
    classes = check_within_classes(present, classes, lab)
    try:
        values = sorted(set(present) | set(classes or []) | set(known))
    except TypeError:  # a positive of another kind than the labels, named for a streamed batch
        values = sorted(set(present) | set(classes or []))
        raise InvalidLabelError(f"positive={positive!r} is not one of the classes {values}") from None
    if positive is None and len(values) < 2 and set(values) <= {0, 1}:
        positive = True if lab.dtype == pl.Boolean else 1  # Powers 2011's convention: 1 is positive
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
    is_positive = np.array([v == positive for v in coding.classes.to_list()] + [False], dtype=np.int64)
    lut = readonly(np.where(coding.lut >= 0, is_positive[coding.lut], -1).astype(np.int64))
    space = key_space([encode_key(k, n, bounds=b) for k, b in zip(key_series, key_bounds, strict=True)], n, 1)
    return Scored(
        keys, space, coding.label, coding.vmin, lut, scores, float(lo), float(hi), tuple(values),
        score, drop_nonfinite, None if bad is None else int(bad), nulls_dropped, tuple(present),
        column.dtype == pl.Float32,
    )  # fmt: skip


def _positions_of_kept(
    positions: Callable[[np.ndarray], np.ndarray], kept: np.ndarray, at: np.ndarray
) -> np.ndarray:
    return positions(kept[at])


def _input_ranges(scores: np.ndarray, label: pl.Series, keys: list[pl.Series]) -> tuple:
    """``(lo, hi, nonfinite, class bounds, class mask, key bounds)`` from one
    :func:`~batcheval.kernels.sweep.input_ranges` pass over non-empty rows.

    The label's bounds and mask are None, and a key's bounds None, where encoding needs no scan
    or scans in its own way: labels other than integers (and UInt64, which must be checked to
    fit), key columns that are not integer-like or have nulls, and keys past the kernel's four.
    A boolean key spans 0..1 without a scan.
    """
    dummy = readonly(np.zeros(1, np.int64))
    with_label = label.dtype.is_integer() and label.dtype != pl.UInt64
    lab = readonly(label.to_numpy()) if with_label else dummy
    key_bounds: list[tuple[int, int] | None] = [None] * len(keys)
    scanned: list[int] = []
    arrays: list[np.ndarray] = []
    for j, s in enumerate(keys):
        if s.null_count() or not integer_like(s.dtype):
            continue
        if s.dtype == pl.Boolean:
            key_bounds[j] = (0, 1)
            continue
        phys = s.to_physical()
        if phys.dtype == pl.UInt64:
            if int(phys.max()) >= 1 << 63:  # type: ignore[arg-type]
                continue  # encode_key's dictionary path
            arr = phys.to_numpy().view(np.int64)
        else:
            arr = phys.to_numpy()
        if len(arrays) < RANGE_KEYS:
            scanned.append(j)
            arrays.append(readonly(arr))
    slots = arrays + [dummy] * (RANGE_KEYS - len(arrays))
    lo, hi, bad, lmin, lmax, mask, found = input_ranges(
        scores, lab, with_label, *slots, len(arrays), n_threads()
    )
    for slot, j in enumerate(scanned):
        key_bounds[j] = (int(found[0, slot]), int(found[1, slot]))
    classes = (int(lmin), int(lmax)) if with_label else None
    return lo, hi, bad, classes, (int(mask) if with_label else None), key_bounds


def check_nonfinite(
    score: str,
    bad: int,
    drop_nonfinite: bool,
    values: np.ndarray | None = None,
    nulls_dropped: int = 0,
    positions: Callable[[np.ndarray], np.ndarray] | None = None,
) -> None:
    """Raise for ``bad`` NaN or infinite scores, unless they are to be dropped.

    ``values`` (the scores) lets the error name the first offending rows: by their positions in
    ``values``, counted after dropping ``nulls_dropped`` null rows, or by ``positions`` of them
    (a streamed batch's rows in their file, the rows dropped counted).

    Examples
    --------
    >>> check_nonfinite("score", 1, False, np.array([0.2, np.nan, 0.7]))
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidScoreError: score column 'score' has 1 NaN or infinite value (row 1: nan); ...
    """
    if bad and drop_nonfinite:  # reported as drop_nulls reports its rows
        warn(f"dropped {bad} row{'s' if bad > 1 else ''} with a NaN or infinite score in column {score!r}")
    if bad and not drop_nonfinite:
        where = ""
        if values is not None:
            rows = np.flatnonzero(~np.isfinite(values))[:3]
            at = rows if positions is None else positions(rows)
            shown = ", ".join(f"{a}: {values[r]}" for r, a in zip(rows, at, strict=True))
            where = f" ({'row' if bad == 1 else 'rows' if bad <= 3 else 'first rows'} {shown}"
            dropped = nulls_dropped and positions is None
            where += f", counted after dropping {nulls_dropped} null rows)" if dropped else ")"
        raise InvalidScoreError(
            f"score column {score!r} has {bad} NaN or infinite value{'s' if bad > 1 else ''}{where}; "
            "pass drop_nonfinite=True to skip those rows"
        )


def rounds_down(dtype: pl.DataType) -> bool:
    """Whether :func:`floats_below` may round scores of ``dtype`` down: integers that can pass 2^53
    and whole Decimals. A Decimal with a fraction keeps the nearest float: 0.1 of a DECIMAL(5, 4)
    probability is at or above the threshold 0.1 that a user writes, as a float 0.1 is, though it
    lies below that float."""
    return dtype in (pl.Int64, pl.UInt64, *WIDE_INTEGERS) or (
        isinstance(dtype, pl.Decimal) and not dtype.scale  # type: ignore[attr-defined]
    )


def floats_below(s: pl.Series) -> np.ndarray:
    """Scores as float64 for a grid of float64 thresholds: integers beyond ±2^53 (and whole
    Decimals) rounded down, not to the nearest float, so that ``score >= t`` reads as the integers
    do at every float ``t``. Rounded to nearest, 2**62 + 600 became 2**62 + 1024 and counted as at
    or above the threshold 2**62 + 1024, which it is not. Nulls stay null (NaN is never made).

    Examples
    --------
    >>> floats_below(pl.Series([2**62 + 600, 2**62 + 1024, 3])).tolist() == [2.0**62, 2.0**62 + 1024, 3.0]
    True
    """
    floats = s.cast(pl.Float64)
    if not rounds_down(s.dtype) or s.null_count() == len(s) or floats.abs().max() < 2.0**53:  # type: ignore[operator]
        return floats.to_numpy()  # every such integer is a float exactly
    # compared in the scores' own type; a float beyond that type's range (2.0**127 of an Int128
    # 2**127 - 1) does not cast back, and lies above every value of it
    back = floats.cast(s.dtype, strict=False)
    up = ((back > s) | back.is_null()) & s.is_not_null()
    out = floats.to_numpy().copy()
    mask = up.to_numpy()
    out[mask] = np.nextafter(out[mask], -np.inf)
    return out


def check_exact_in_float(s: pl.Series, score: str, role: str = "score") -> None:
    """Raise if integer scores beyond ±2^53 (Int64, UInt64, Int128, UInt128 or a Decimal), or
    decimals of any size, would merge when read as float64 (as every sweep reads them): two scores
    that round alike would count as one threshold.

    Examples
    --------
    >>> check_exact_in_float(pl.Series([2**53, 2**53 + 1]), "score")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidScoreError: score column 'score' holds integers beyond 2^53 ...
    >>> check_exact_in_float(pl.Series([2**60, 2**60 + 1], dtype=pl.Int128), "score")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidScoreError: score column 'score' holds integers beyond 2^53 ...
    """
    decimal = isinstance(s.dtype, pl.Decimal)
    if not (decimal or s.dtype in (pl.Int64, pl.UInt64, *WIDE_INTEGERS)) or not len(s):
        return
    lo, hi = s.min(), s.max()
    if lo is None:
        return
    # a decimal with a fraction may merge at any size (1 and 1 + 1e-20); a whole one as an integer
    whole = not decimal or s.dtype.scale == 0  # type: ignore[attr-defined]
    if whole and -(2**53) <= lo and hi <= 2**53:  # type: ignore[operator]
        return
    if s.n_unique() != s.cast(pl.Float64).n_unique():
        what = "integers beyond 2^53" if whole else f"{s.dtype} decimals"
        # a score's order is all a sweep reads; a measure's differences are what compare reads
        hint = (
            "rank them first (e.g. pl.col(score).rank())"
            if role == "score"
            else "subtract a common offset first"
        )
        raise InvalidScoreError(
            f"{role} column {score!r} holds {what} (from {lo} to {hi}) that are equal as "
            f"float64, the type {role}s are compared in; {hint}"
        )


def checked_labels(label: pl.Series) -> pl.Series:
    """``label`` as evaluate keys its classes: whole-valued floats as the Int64 they hold (a Float64
    ``class`` column did not join evaluate's). Refused as the binary sweep refuses it: a column of
    no class kind, or floats other than whole numbers (NaN among them), which one-vs-rest scoring
    made classes of their own.

    Examples
    --------
    >>> checked_labels(pl.Series("label", [0.0, 2.0])).to_list()
    [0, 2]
    >>> checked_labels(pl.Series("label", [0.0, float("nan")]))
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidLabelError: label column 'label' is float and holds 1 non-integer value ...
    """
    if label_kind(label, "label") == "int":
        return as_integers(label, "label")
    return label


def check_within_classes(present: Sequence[Any], classes: Any, label: pl.Series) -> list[Any] | None:
    """``classes=`` as a list, checked: of the kind of the ``label`` column, and holding every label
    of ``present`` (when given), as :func:`batcheval.evaluate` checks it: counted as the rest, a
    label outside would pass for a negative.

    Examples
    --------
    >>> check_within_classes([0.0, 1.0], (0, 1, 2), pl.Series("label", [0.0, 1.0]))
    [0, 1, 2]
    >>> check_within_classes([0, 1, 2], [0, 1], pl.Series("label", [0, 1, 2]))
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidLabelError: label column 'label' has values outside classes=[0, 1]: [2]
    """
    if classes is None:
        return None
    checked = check_classes(classes, label_kind(label, "label"), label.name) or []
    known = set(checked)
    outside = [v for v in present if v not in known]
    if outside:
        raise InvalidLabelError(
            f"label column {label.name!r} has values outside classes={checked}: {outside[:10]}"
        )
    return checked


def threshold_grid(
    scored: Scored, thresholds: int | Sequence[float], score_range: tuple[float, float] | None
) -> tuple[np.ndarray, bool]:
    """Sorted distinct thresholds, and whether they are evenly spaced (bins by arithmetic).

    A count T gives at most T: a span with fewer than T floats in it (every score equal, or a
    few ulps) gives each of them once, as a list with repeats does.

    Examples
    --------
    >>> scored = Scored([], None, None, 0, None, None, 0.5, 0.5, (0, 1))  # every score 0.5
    >>> threshold_grid(scored, 3, None)
    (array([0.5]), False)
    >>> threshold_grid(scored, 3, (0.0, 1.0))
    (array([0. , 0.5, 1. ]), True)
    """
    if isinstance(thresholds, int | np.integer):  # a count of at least 1 (check_thresholds)
        # the histogram's own check, before linspace: thresholds=10**9 built 16 GB of grid first
        if scored.space is not None:
            check_histogram(scored.space.size, int(thresholds))
        lo, hi = _grid_span(scored, score_range)
        if np.isfinite(hi - lo):
            grid = np.linspace(lo, hi, int(thresholds))
            if np.any(grid[1:] < grid[:-1]):
                # a span of a few subnormals: the rounded step overshot the top before linspace set
                # the last to hi (0 .. 4.4e-323 in 7 gave ..., 4.9e-323, 4.4e-323), and bisection
                # over an unsorted grid counted wrong; the overshoot is clipped to hi
                grid = np.sort(np.clip(grid, lo, hi))
            distinct = _distinct(grid)
            # evenly spaced only when no value repeated: the arithmetic step is that of T points
            return distinct, len(distinct) == len(grid) > 1
        # a range wider than the largest float (scores near ±1.8e308): linspace's step overflows to
        # inf and its grid to NaN; weighing the ends cannot, and the sweep bins by bisection
        frac = np.linspace(0.0, 1.0, int(thresholds))
        grid = lo * (1.0 - frac) + hi * frac
        grid[0] = lo  # one threshold: the lowest, as linspace gives
        if len(grid) > 1:
            grid[-1] = hi
        return _distinct(np.sort(grid)), False
    return np.unique(_threshold_list(thresholds)), False


def compared_thresholds(scored: Scored, thr: np.ndarray) -> np.ndarray | None:
    """The thresholds that Float32 scores are compared with, or None where they are ``thr`` itself.

    Widened to float64, the Float32 score 0.7 is 0.699999988 and lay below the threshold 0.7 that
    the user named, where ``pl.col("score") >= 0.7`` (and numpy) count it: such a column is
    compared with each threshold rounded to float32, and the thresholds are reported as given.

    Examples
    --------
    >>> scored = Scored([], None, None, 0, None, None, 0.7, 0.7, (0, 1), float32=True)
    >>> compared_thresholds(scored, np.array([0.5, 0.7])).tolist()
    [0.5, 0.699999988079071]
    """
    if not scored.float32:
        return None
    with np.errstate(over="ignore"):  # beyond float32's range: ±inf, above or below every score
        rounded = thr.astype(np.float32).astype(np.float64)
    return None if np.array_equal(rounded, thr) else rounded


def _grid_span(scored: Scored, score_range: tuple[float, float] | None) -> tuple[float, float]:
    """The lowest and highest threshold of a count's grid: ``score_range=``, else the finite scores'."""
    if score_range is not None:
        return _score_range(score_range)
    if scored.score_min <= scored.score_max:
        return scored.score_min, scored.score_max
    return 0.0, 1.0


def grid_floor(
    scored: Scored, thresholds: int | Sequence[float], score_range: tuple[float, float] | None
) -> int:
    """How many thresholds :func:`threshold_grid` surely gives, known before it builds them.

    A count T gives T distinct values where its step is wider than the rounding of linspace (a
    few ulps of the span's largest magnitude), else at least one; a list is built already.

    Examples
    --------
    >>> scored = Scored([], None, None, 0, None, None, 0.5, 0.5, (0, 1))  # every score 0.5
    >>> grid_floor(scored, 3, None), grid_floor(scored, 3, (0.0, 1.0)), grid_floor(scored, [0.2, 0.4], None)
    (1, 3, 2)
    """
    if not isinstance(thresholds, int | np.integer):
        return len(thresholds)
    t = int(thresholds)
    lo, hi = _grid_span(scored, score_range)
    # at ±float max the span and the float spacing overflow to inf: a wide grid, as it should be
    with np.errstate(over="ignore"):
        step = (hi - lo) / max(t - 1, 1)
        return t if t == 1 or step > 4 * np.spacing(max(abs(lo), abs(hi))) else 1


def check_histogram(groups: int, thresholds: int) -> None:
    """Refuse a sweep's histogram of ``groups`` × ``thresholds`` that does not fit: two cells a bin,
    12 B each (the int64 histogram and at least one uint32 table).

    Examples
    --------
    >>> check_histogram(3, 10**12)
    Traceback (most recent call last):
    ...
    batcheval.errors.MemoryBudgetError: a sweep of 3 groups × 1000000000000 thresholds needs 65.5 TiB, ...
    """
    check_allocation(
        groups * (thresholds + 1) * 2 * 12,
        f"a sweep of {groups} groups × {thresholds} thresholds",
        "use fewer thresholds, or stream the groups in parts",
    )


def _distinct(grid: np.ndarray) -> np.ndarray:
    """A sorted grid with each value once, the first of each run kept (``grid[0]`` stays ``lo``).

    linspace repeats a value where the span holds fewer floats than thresholds (T = 3 over
    scores all 0.5 gave 0.5 three times), and a sweep's rows at a repeated threshold were
    summed by every merge keyed on (keys, threshold): files, batches and pool= gave n = 12 of
    4 rows.
    """
    if len(grid) < 2:
        return grid
    return grid[np.concatenate(([True], grid[1:] != grid[:-1]))]


def check_thresholds(thresholds: Any, score_range: Any) -> None:
    """Raise for a ``thresholds=`` (or, with a count of thresholds, a ``score_range=``) that no
    sweep takes: before any row is read, and for a streamed source before any batch is.

    Examples
    --------
    >>> check_thresholds([0.5, float("nan")], None)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: thresholds= as a list takes finite numbers, got [0.5, nan]
    """
    if score_range is not None and not isinstance(thresholds, int | np.integer):
        # a grid that is given, or every score, has no span to set: the range would be ignored
        raise InvalidArgumentError(
            "score_range= sets the span of a count of thresholds; with "
            f"thresholds={reprlib.repr(thresholds)} it has no effect, got score_range={score_range!r}: "
            "leave it out"
        )
    if isinstance(thresholds, str):
        if thresholds != "exact":
            raise InvalidArgumentError(
                f"thresholds= takes a count, a list of numbers or 'exact', got {thresholds!r}"
            )
        return
    # bytes iterate as their byte values (b"x" gave the threshold 120.0), a dict as its keys
    if isinstance(thresholds, bool) or not (
        isinstance(thresholds, int | np.integer) or is_value_list(thresholds)
    ):
        raise InvalidArgumentError(
            f"thresholds= takes a count, a list of numbers or 'exact', got {thresholds!r}"
        )
    if isinstance(thresholds, int | np.integer):
        if thresholds < 1:
            raise InvalidArgumentError(f"thresholds= as a count must be at least 1, got {thresholds}")
        # the grid itself, before any row is read (threshold_grid checks the histogram of every
        # group before it makes the grid)
        check_allocation(
            8 * int(thresholds), f"a grid of {int(thresholds):,} thresholds", "use fewer thresholds"
        )
        if score_range is not None:
            _score_range(score_range)
        return
    _threshold_list(thresholds)


def _threshold_list(thresholds: Iterable[Any]) -> np.ndarray:
    """``thresholds=`` as a list, read as float64: finite numbers, one or more (numpy's too; not text
    or bools, which numpy reads as 0.35 and 1.0, nor datetimes, which it reads as days or seconds).

    Examples
    --------
    >>> _threshold_list([0.5, 10**400])
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: thresholds= as a list takes finite numbers, got [0.5, 100000...
    >>> _threshold_list([0.2, True])
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: thresholds= as a list takes numbers, got [0.2, True]
    """
    try:
        # a numeric array holds numbers: checking its elements one by one took 0.5 s for a million
        numeric = isinstance(thresholds, np.ndarray) and thresholds.dtype.kind in "iuf"
        values = thresholds if numeric else list(thresholds)
        if not numeric and not all(_is_number(v) for v in values):
            raise TypeError  # "0.35", True, a datetime: read by float64 as numbers, given as none
        try:
            grid = np.asarray(values, dtype=np.float64)
        except OverflowError:
            # an integer (or fraction) beyond the largest float, 10**400: infinite as float64
            grid = np.array([np.inf])
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"thresholds= as a list takes numbers, got {reprlib.repr(thresholds)}"
        ) from None
    if grid.ndim != 1 or not len(grid) or not np.all(np.isfinite(grid)):
        raise InvalidArgumentError(f"thresholds= as a list takes finite numbers, got {reprlib.repr(values)}")
    return grid


def _is_number(value: Any) -> bool:
    """Whether ``value`` is one real number, of any size (an integer beyond the largest float is one,
    infinite as float64): not text or a bool, which float64 reads as numbers, nor a datetime.

    Examples
    --------
    >>> [_is_number(v) for v in (0.5, 10**400, np.int8(3), "0.5", True, np.datetime64("2020-01-01"))]
    [True, True, True, False, False, False]
    """
    return is_real(value) or (isinstance(value, numbers.Real) and not is_text_or_truth(value))


def _score_range(score_range: Any) -> tuple[float, float]:
    """``score_range=`` as finite ``(low, high)`` floats with ``low <= high``.

    Examples
    --------
    >>> _score_range((0, 10**400))
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: score_range= must be finite with low <= high, got (0, 100000...
    >>> _score_range({0: "low", 1: "high"})
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: score_range= takes (low, high), got {0: 'low', 1: 'high'}
    """
    try:
        # not bytes (byte values), a dict (its keys), a set (no order), "01", True or a datetime
        if not is_value_list(score_range, ordered=True):
            raise TypeError
        values = list(score_range)
        if not all(_is_number(v) for v in values):
            raise TypeError
        lo, hi = (float(v) for v in values)
    except OverflowError:  # an integer beyond the largest float, 10**400: infinite as float64
        lo, hi = 0.0, np.inf
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"score_range= takes (low, high), got {score_range!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
        # reprlib: a 400-digit integer shown in full was a screenful
        raise InvalidArgumentError(
            f"score_range= must be finite with low <= high, got {reprlib.repr(score_range)}"
        )
    return lo, hi
