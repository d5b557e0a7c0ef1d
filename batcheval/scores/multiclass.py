"""Multiclass scores (one column per class, or a list column) as one-vs-rest problems.

Each class k becomes a binary problem — real class k against the rest, scored
by its own column — stacked in a long frame with a ``class`` key, so the
binary sweep, AUC and curve code serves every class unchanged.
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence, Sized
from typing import Any, NamedTuple

import polars as pl

from ..core.encode import typed_classes
from ..errors import (
    BatchevalError,
    ColumnNotFoundError,
    DuplicateColumnError,
    InvalidArgumentError,
    InvalidLabelError,
    InvalidScoreError,
    NullValuesError,
    warn,
)
from ..io.arguments import is_value_list
from ..io.frames import as_key_list, check_roles, select_columns, unused_name
from .prepare import check_exact_in_float, check_within_classes, checked_labels, floats_below, rounds_down

__all__ = [
    "IS_CLASS_COLUMN",
    "SCORE_COLUMN",
    "OneVsRest",
    "is_multiclass_score",
    "one_vs_rest_frame",
    "predicted_shares",
]

# stems of the long frame's columns; a user's column of that name pushes them to a free one
SCORE_COLUMN = "_score"
IS_CLASS_COLUMN = "_is_class"


class OneVsRest(NamedTuple):
    """Multiclass scores as stacked one-vs-rest problems (see :func:`one_vs_rest_frame`)."""

    frame: pl.DataFrame  # keys, ``class``, ``is_class`` and ``score``
    keys: list[str]  # the user's keys and ``class``
    values: list[Any]  # the classes, sorted
    wide: pl.DataFrame  # the user's rows: keys, label and one Float64 (or all Float32) score column per class
    names: list[str]  # those score columns, in class order
    is_class: str  # the column of label == class
    score: str  # the column of that class's score


def is_multiclass_score(data: Any, score: str | Sequence[str]) -> bool:
    """True for a list of score columns, or a single List/Array score column.

    Examples
    --------
    >>> is_multiclass_score(pl.DataFrame({"p0": [0.2], "p1": [0.8]}), ["p0", "p1"])
    True
    >>> is_multiclass_score(pl.DataFrame({"score": [0.2]}), None)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: score= takes a score column's name or a list of them ...
    >>> is_multiclass_score(pl.DataFrame({"score": [0.2]}), [])
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: score= names no column, got []
    """
    if not isinstance(score, str):
        # None, a number or a 0-d array went on as a list of columns, to a raw TypeError in list(score)
        if not is_value_list(score):
            raise InvalidArgumentError(
                "score= takes a score column's name or a list of them (one per class, in class "
                f"order), got {score!r}"
            )
        if isinstance(score, Sized) and not len(score):
            # no score column: the rows' checks built no mask of them, and polars panicked (a
            # PanicException, which except Exception misses) on a frame of two chunks
            raise InvalidArgumentError(f"score= names no column, got {score!r}")
        return True
    if isinstance(data, pl.LazyFrame | pl.DataFrame):
        schema = data.collect_schema()
        return score in schema and isinstance(schema[score], pl.List | pl.Array)
    # a pyarrow table or a pandas frame: the dtype of its column as polars reads it
    try:
        column = data[score]
    except (KeyError, TypeError, IndexError):
        return False
    numeric = getattr(getattr(column, "dtype", None), "kind", "O") in "biuf"
    if numeric and getattr(column, "ndim", 1) == 1:  # a numpy column: a number each (2-D: a row each)
        return False
    try:
        return isinstance(pl.Series(column).dtype, pl.List | pl.Array)
    except (TypeError, ValueError):
        return False


def _score_columns(
    df: pl.DataFrame, score: str | Sequence[str], n_classes: int, values: Sequence[Any] = ()
) -> tuple[pl.DataFrame, list[str]]:
    if isinstance(score, str):  # a list column: one entry per class
        if not len(df):  # nothing to split; the class count comes from classes= or stays 0
            names = [unused_name(df.columns, f"{SCORE_COLUMN}{k}") for k in range(n_classes)]
            return df.drop(score).with_columns(pl.lit(None, pl.Float64).alias(n) for n in names), names
        lengths = df.get_column(score).list.len().drop_nulls().unique().to_list() if len(df) else [n_classes]
        lengths = lengths or [n_classes]  # every list null: the caller has named or dropped them
        if lengths != [n_classes]:
            raise InvalidLabelError(
                f"score column {score!r} holds lists of length {sorted(lengths)}; "
                f"expected {n_classes}, one score per class"
            )
        names = [unused_name(df.columns, f"{SCORE_COLUMN}{k}") for k in range(n_classes)]
        split = df.get_column(score).list.to_struct(fields=names).struct.unnest()
        return df.drop(score).hstack(split), names
    names = list(score)
    if len(names) != n_classes and (n_classes or len(df)):
        shown = f" {reprlib.repr(list(values))}" if values else ""  # 10,000 classes: the first few
        hint = ""
        if len(names) > n_classes:
            hint = ("; a class no row holds (or none left after dropping rows) is named with classes=, "
                    "one per column in the columns' order")  # fmt: skip
        raise InvalidLabelError(
            f"{len(names)} score columns for {n_classes} classes{shown}; give one per class{hint}"
        )
    return df, names


def one_vs_rest_frame(
    data: Any,
    by: str | Sequence[str] | None,
    label: str,
    score: str | Sequence[str],
    classes: Sequence[Any] | None,
    drop_nulls: bool = False,
    drop_nonfinite: bool = False,
    exact_scores: bool = True,
) -> OneVsRest:
    """The one-vs-rest problems of multiclass scores (:class:`OneVsRest`).

    The long frame has the keys, ``class``, a column of label == class and one of that class's
    score (named :data:`IS_CLASS_COLUMN` and :data:`SCORE_COLUMN` unless a key has the name).
    Rows with a null label or score, or a NaN or infinite score, are named here in the user's
    columns and rows (or dropped, with a warning, under ``drop_nulls`` / ``drop_nonfinite``):
    the long frame repeats each row once per class. ``exact_scores``: as in
    :func:`~batcheval.scores.prepare.prepare_scores`. With no rows left and no ``classes=``
    the long frame is empty.
    """
    keys = as_key_list(by)
    if "class" in keys:
        raise DuplicateColumnError(
            "a key column is named 'class', which the one-vs-rest frame adds; rename it"
        )
    score_cols = [score] if isinstance(score, str) else list(score)
    # check_roles keeps both roles of a column named twice: a dict merged from the parts kept the last
    roles = check_roles(keys, label, *score_cols, roles=("label", *["score"] * len(score_cols)))
    df = select_columns(data, [*keys, label, *score_cols], roles)
    for c in score_cols:
        if isinstance(df.schema[c], pl.Array):  # a fixed-width list: the same entries as a List
            df = df.with_columns(pl.col(c).cast(pl.List(df.schema[c].inner)))
    df = _float_scores(df, score_cols, exact_scores)
    rows_before = df.get_column(label)
    df = _clean_rows(df, label, score_cols, drop_nulls, drop_nonfinite)
    if isinstance(score, str):
        _check_list_lengths(df.get_column(score))
    df = df.with_columns(checked_labels(df.get_column(label)))
    present = sorted(df.get_column(label).drop_nulls().unique().to_list())
    classes = check_within_classes(present, classes, df.get_column(label))
    # a class named twice is one class, as in evaluate: twice, it took two of the score columns
    values = present if classes is None else sorted(set(classes))
    if classes is None and isinstance(score, str):
        width = df.get_column(score).list.len().max() if len(df) else None
        if width is not None and width != len(values):
            # the rows dropped may have held the only examples of a class: "has 2 classes [1, 2]"
            # of a column of 3 read as a mistake in the data, not the drop
            dropped = ""
            if len(rows_before) > len(df):
                try:
                    held = set(checked_labels(rows_before.drop_nulls()).unique().to_list())
                except BatchevalError:  # a dropped row's label is no class (NaN, 2.5): nothing to name
                    held = set()
                lost = sorted(held - set(values))
                if lost:
                    flags = {"drop_nulls": drop_nulls, "drop_nonfinite": drop_nonfinite}
                    how = " and ".join(f"{name}=True" for name, on in flags.items() if on)
                    n_dropped = len(rows_before) - len(df)
                    dropped = (
                        f" (the {n_dropped} row{'s' if n_dropped > 1 else ''} dropped by {how} held every "
                        f"example of class{'es' if len(lost) > 1 else ''} {lost})"
                    )
            raise InvalidLabelError(
                f"label column {label!r} has {len(values)} classes {values}{dropped} but the score lists "
                f"hold {width}; name the classes with classes="
            )
    df, names = _score_columns(df, score if isinstance(score, str) else score_cols, len(values), values)
    for name in names:
        if name not in df.columns:
            raise ColumnNotFoundError(f"score column {name!r} not found")
    is_class = unused_name(keys, IS_CLASS_COLUMN)
    scored = unused_name([*keys, is_class], SCORE_COLUMN)
    class_type = _class_dtype(values, df.schema[label])
    parts = [
        df.select(
            *keys,
            pl.lit(v, dtype=class_type).alias("class"),
            (pl.col(label) == v).alias(is_class),
            pl.col(name).alias(scored),
        )
        for v, name in zip(values, names if values else [], strict=True)
    ]
    if not parts:  # no rows and no classes=: no class to stack
        schema = {k: df.schema[k] for k in keys} | {"class": class_type, is_class: pl.Boolean}
        parts = [pl.DataFrame(schema=schema | {scored: pl.Float64})]
    return OneVsRest(pl.concat(parts), [*keys, "class"], values, df, names, is_class, scored)


def _class_dtype(values: list[Any], dtype: pl.DataType) -> pl.DataType:
    """The ``class`` column's dtype: the labels', or where ``classes=`` names a class it cannot hold
    one that holds them all, as evaluate's classes are (Int64 for 200 beside Int8 labels, String for
    a class outside an Enum's categories): the labels' raised polars' InvalidOperationError.

    Examples
    --------
    >>> _class_dtype([0, 1, 200], pl.Int8), _class_dtype(["0", "3"], pl.Enum(["0", "1"]))
    (Int64, String)
    >>> _class_dtype([0, 1], pl.Int8)
    Int8
    """
    if dtype.is_integer():
        return typed_classes(values, dtype).dtype
    try:
        pl.Series("class", values).cast(dtype, strict=True)
    except pl.exceptions.InvalidOperationError:
        return pl.String
    return dtype


def _check_list_lengths(scores: pl.Series) -> None:
    """Refuse a list column whose lists differ in length: a fault of the scores whatever the
    classes are (it was an InvalidLabelError, which ``except InvalidScoreError`` missed)."""
    lengths = scores.list.len().drop_nulls().value_counts(sort=True)
    if lengths.height > 1:
        rows = lengths.sort(lengths.columns[0]).rows()
        counts = ", ".join(f"{n} row{'s' if n > 1 else ''} of {k}" for k, n in rows)
        raise InvalidScoreError(
            f"score column {scores.name!r} holds lists of lengths {[k for k, _ in rows]} ({counts}); "
            "every row holds one score per class"
        )


def _float_scores(df: pl.DataFrame, score_cols: list[str], exact_scores: bool) -> pl.DataFrame:
    """``df`` with every score column (or list of scores) as Float64, which the classes' long
    frame stacks into one column; an error naming a column whose scores are not numbers.

    Float32 columns all stay Float32: a sweep compares them with named thresholds rounded to
    float32, as it does a binary Float32 score (the score 0.7 counts at the threshold 0.7)."""
    inners = [df.schema[c].inner if isinstance(df.schema[c], pl.List) else df.schema[c] for c in score_cols]
    element = pl.Float32 if inners and all(d == pl.Float32 for d in inners) else pl.Float64
    for c in score_cols:
        dtype = df.schema[c]
        inner = dtype.inner if isinstance(dtype, pl.List) else dtype
        if not inner.is_numeric():
            what = f"lists of {inner}" if isinstance(dtype, pl.List) else f"dtype {dtype}"
            raise InvalidScoreError(f"score column {c!r} has {what}; scores must be numeric")
        if exact_scores:
            column = df.get_column(c)
            check_exact_in_float(column.explode() if isinstance(dtype, pl.List) else column, c)
        target = pl.List(element) if isinstance(dtype, pl.List) else element
        if not exact_scores and rounds_down(dtype):
            # a grid's thresholds: integers beyond 2^53 and whole Decimals rounded down, as the binary
            # sweep reads them (lists of scores keep the nearest float)
            below = pl.Series(c, floats_below(df.get_column(c)), dtype=pl.Float64)
            df = df.with_columns(
                pl.when(pl.col(c).is_null()).then(None).otherwise(below).alias(c)
            )  # NaN is no null
        elif dtype != target:
            df = df.with_columns(pl.col(c).cast(target))
    return df


def _clean_rows(
    df: pl.DataFrame, label: str, score_cols: list[str], drop_nulls: bool, drop_nonfinite: bool
) -> pl.DataFrame:
    """``df`` without its rows of a null label or score (a null list, or a null in one) and of
    a NaN or infinite score, where they are to be dropped; else an error naming the columns and
    the first row."""

    def failing(c: str, test: Any) -> pl.Expr:  # the score fails ``test``, or any entry of its list
        if isinstance(df.schema[c], pl.List):
            return pl.col(c).list.eval(test(pl.element())).list.any()
        return test(pl.col(c))

    null = pl.col(label).is_null()
    for c in score_cols:
        null = null | pl.col(c).is_null() | failing(c, _is_null)
    nonfinite = pl.lit(False)
    for c in score_cols:
        if isinstance(df.schema[c], pl.List) or df.schema[c].is_numeric():
            nonfinite = nonfinite | failing(c, _is_nonfinite)
    # both on the user's rows, so that an error names the row the user sees
    nulls = df.select(null.fill_null(True)).to_series()
    bad = df.select(nonfinite.fill_null(False)).to_series() & ~nulls
    checks = (
        (nulls, drop_nulls, NullValuesError, f"label column {label!r} or score column(s) {score_cols}",
         "a null value", "drop_nulls"),
        (bad, drop_nonfinite, InvalidScoreError, f"score column(s) {score_cols}", "a NaN or infinite score",
         "drop_nonfinite"),
    )  # fmt: skip
    for mask, drop, error, what, why, flag in checks:  # every error before any row is dropped
        if mask.any() and not drop:
            raise error(
                f"{what} hold {int(mask.sum())} row(s) with {why} (first at row {int(mask.arg_true()[0])}); "
                f"pass {flag}=True to skip those rows"
            )
    for mask, _, _, what, why, _ in checks:
        if mask.any():
            warn(f"dropped {int(mask.sum())} of {df.height} rows with {why} in {what}")
    return df.filter(~(nulls | bad))


def _is_null(e: pl.Expr) -> pl.Expr:
    return e.is_null()


def _is_nonfinite(e: pl.Expr) -> pl.Expr:
    return ~e.cast(pl.Float64).is_finite()


def predicted_shares(
    df: pl.DataFrame, keys: list[str], names: list[str], values: list[Any], dtype: pl.DataType, share: str
) -> pl.DataFrame:
    """Per group and class, the share of rows whose top score is that class (the bias), in
    column ``share``. A row whose top score several classes share counts ``1/t`` to each of its
    ``t`` tied classes, so the shares do not depend on the classes' names or order (the row went to
    the first of them, and ``bias_weighted_roc_auc`` changed with a relabelling: 0.5 against 0.167).

    Examples
    --------
    >>> df = pl.DataFrame({"s_a": [0.9, 0.2, 0.5], "s_b": [0.1, 0.7, 0.5]})
    >>> predicted_shares(df, [], ["s_a", "s_b"], ["a", "b"], pl.String, "bias").sort("class").rows()
    [('a', 0.5), ('b', 0.5)]
    """
    if not names:  # no rows and no classes=: no class to have a share
        return pl.DataFrame(schema={k: df.schema[k] for k in keys} | {"class": dtype, share: pl.Float64})
    taken = [*df.columns, share]
    for stem in ("_top", "_tied", "_n", "_class", "_w"):
        taken.append(unused_name(taken, stem))
    top, tied, total, at, weight = taken[-5:]
    parts = []
    for j in range(len(names)):
        parts.append(unused_name([*taken, *parts], f"_w{j}"))
    scores = [pl.col(n).cast(pl.Float64) for n in names]
    # each row counts 1/t to each of the t classes of its top score (one but where scores tie)
    rows = df.lazy().select(*keys, *names).with_columns(pl.max_horizontal(scores).alias(top))
    rows = rows.with_columns(pl.sum_horizontal([c == pl.col(top) for c in scores]).alias(tied))
    hit = [(c == pl.col(top)).cast(pl.Float64) / pl.col(tied) for c in scores]
    hits = [h.sum().alias(p) for h, p in zip(hit, parts, strict=True)]
    summed = (
        rows.group_by(keys).agg(pl.len().alias(total), *hits)
        if keys
        else rows.select(pl.len().alias(total), *hits)
    )
    # (with no rows the names of a list column's scores may outnumber the classes: nothing to look up)
    lookup = pl.LazyFrame(
        {at: parts[: len(values)], "class": values[: len(parts)]}, schema_overrides={at: pl.String}
    ).with_columns(pl.col("class").cast(dtype))
    counted = (
        summed.filter(pl.col(total) > 0)  # no rows: no share, as no row has a top score
        .unpivot(parts, index=[*keys, total], variable_name=at, value_name=weight)
        .join(lookup, on=at)
        # without ties each weight is 1.0 and their sum the count, exactly
        .select(*keys, "class", (pl.col(weight) / pl.col(total)).alias(share))
    )
    return counted.collect()
