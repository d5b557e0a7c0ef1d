"""Input frames: accept what users have, hand polars to the rest of batcheval."""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable, Iterator, Sequence, Set
from contextlib import contextmanager, nullcontext
from typing import Any

import numpy as np
import polars as pl

from ..errors import (
    BatchevalError,
    ColumnNotFoundError,
    DuplicateColumnError,
    InvalidArgumentError,
    SourceError,
)
from .arguments import is_value_list

__all__ = [
    "CSV_INFER_ROWS",
    "LAZY_FRAME",
    "as_key_list",
    "check_in_memory",
    "check_label_keywords",
    "check_named_once",
    "check_roles",
    "column_names",
    "column_of_values",
    "from_mapping",
    "integers_combine",
    "is_label_values",
    "key_argument",
    "named_as_pooled",
    "named_by_keyword",
    "read_once",
    "reading",
    "select_columns",
    "select_predictions",
    "shown_value",
    "unused_name",
    "widened",
    "widens_to_int128",
]


#: rows a csv's column types are inferred from (polars reads 100; a full pass costs 8x the read)
CSV_INFER_ROWS = 10_000
#: what a lazy frame is called in messages: one frame, as in memory
LAZY_FRAME = "lazy frame"


def as_key_list(by: str | Sequence[str] | None, what: str = "by") -> list[str]:
    """Normalise a key argument (None, one name, or a sequence of names).

    Examples
    --------
    >>> as_key_list(("run", "fold"))
    ['run', 'fold']
    >>> as_key_list(["fold", "fold"], "pool")
    Traceback (most recent call last):
    ...
    batcheval.errors.DuplicateColumnError: column 'fold' is named twice in pool=['fold', 'fold']
    >>> as_key_list(np.array("run"))
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: by= takes a column name or a list of names, got array('run', ...)
    """
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    if not is_value_list(by):  # a 0-d array (np.array("run")) raised TypeError in list(by)
        raise InvalidArgumentError(f"{what}= takes a column name or a list of names, got {by!r}")
    keys = list(by)
    for k in keys:
        if not isinstance(k, str):
            raise InvalidArgumentError(f"{what}= takes column names, got {k!r} in {what}={by!r}")
    # pool=['fold', 'fold'] pooled as pool='fold' does, and by=['run', 'run'] said "as key and as key"
    check_named_once(what, keys)
    return keys


def key_argument(by: str | Iterable[str] | None, what: str = "by") -> str | list[str] | None:
    """A key argument read once, for a function that reads it again or passes it on.

    None and one name are kept as given (None may mean something else than no key, as
    ``pool=None`` does, and a message shows the name as the user wrote it); any other
    iterable of names becomes the list :func:`as_key_list` reads from it, so a generator or an
    iterator, spent by its first reading, gives what the list gives.

    Examples
    --------
    >>> key_argument(c for c in ["run", "fold"])
    ['run', 'fold']
    >>> key_argument("fold", "pool"), key_argument(None, "pool")
    ('fold', None)
    """
    if by is None or isinstance(by, str):
        return by
    return as_key_list(by, what)


def read_once(value: Any) -> Any:
    """An argument read more than once (``score=``, ``averages=``, ``classes=``, which every batch
    of a streamed source and every Dask part reads): an iterator (a generator, ``iter(...)``)
    becomes its list, since the first reading spent it and the next saw none; anything else is
    kept as given, for its own check to read or refuse (``classes="ab"``, a number).

    Examples
    --------
    >>> read_once(c for c in ["p0", "p1"]), read_once("score"), read_once(3)
    (['p0', 'p1'], 'score', 3)
    """
    return list(value) if isinstance(value, Iterator) else value


def check_free_names(keys: Sequence[str], outputs: Collection[str], what: str, role: str = "key") -> None:
    """Refuse a key column that has the name of a column the result adds (``what`` says which).

    Examples
    --------
    >>> check_free_names(["run", "n"], ["n", "tp"], "the counts")
    Traceback (most recent call last):
    ...
    batcheval.errors.DuplicateColumnError: key column 'n' has the name of an output column (the counts); ...
    """
    taken = set(outputs)
    for col in keys:
        if col in taken:
            raise DuplicateColumnError(
                f"{role} column {col!r} has the name of an output column ({what}); "
                f"rename it, e.g. df.rename({{{col!r}: '{col}_key'}})"
            )


def unused_name(columns: Sequence[str], stem: str) -> str:
    """A column name for an intermediate result that none of ``columns`` (the user's) has:
    ``stem``, with underscores put before it until it is free.

    Examples
    --------
    >>> unused_name(["run", "__row"], "__row")
    '___row'
    """
    taken = set(columns)
    name = stem
    while name in taken:
        name = "_" + name
    return name


def check_named_once(argument: str, columns: Sequence[str]) -> None:
    """Raise :class:`~batcheval.errors.DuplicateColumnError` for a column named twice in one
    argument's list (``by=['run', 'run']``, ``example=['q', 'q']``), which polars refuses with
    its own DuplicateError further on.

    Examples
    --------
    >>> check_named_once("example", ["q", "q"])
    Traceback (most recent call last):
    ...
    batcheval.errors.DuplicateColumnError: column 'q' is named twice in example=['q', 'q']
    """
    for i, col in enumerate(columns):
        if col in columns[:i]:
            raise DuplicateColumnError(f"column {col!r} is named twice in {argument}={list(columns)}")


def widens_to_int128(a: pl.DataType, b: pl.DataType) -> bool:
    """Whether a column of ``a`` in one file and ``b`` in another combine only as Int128 (UInt64
    with a signed type), which nothing downstream reads.

    Examples
    --------
    >>> widens_to_int128(pl.UInt64, pl.Int32), widens_to_int128(pl.Int64, pl.Int32)
    (True, False)
    """
    return pl.UInt64 in (a, b) and (a.is_signed_integer() or b.is_signed_integer())


def widened(before: pl.Schema, mine: pl.Schema) -> pl.Schema:
    """``before`` with each integer column as wide as ``mine``'s too, and each of the Null dtype of
    ``mine``'s type, as a relaxed concat (and the streamed engine's ``combine``) casts them: what
    the parts or files so far combine to, which the next one is checked against.

    Examples
    --------
    >>> before = pl.Schema({"run": pl.UInt32, "k": pl.Null})
    >>> dict(widened(before, pl.Schema({"k": pl.String, "run": pl.UInt64})))
    {'run': UInt64, 'k': String}
    """
    empty = [pl.DataFrame(schema=before), pl.DataFrame(schema=mine).select(list(before))]
    return pl.concat(empty, how="vertical_relaxed").schema


def integers_combine(a: pl.DataType | None, b: pl.DataType) -> bool:
    """Whether key columns of ``a`` in one part and ``b`` in another combine as one: integers of
    any widths but UInt64 with a signed type (:func:`widens_to_int128`); ``a`` None (a column one
    part lacks) never does.

    Examples
    --------
    >>> integers_combine(pl.Int32, pl.Int64), integers_combine(pl.Int64, pl.Float64)
    (True, False)
    >>> integers_combine(pl.UInt64, pl.Int8), integers_combine(None, pl.Int8)
    (False, False)
    """
    return a is not None and a.is_integer() and b.is_integer() and not widens_to_int128(a, b)


def check_roles(
    by: Sequence[str], *named: str, roles: Sequence[str] = ("label", "prediction")
) -> dict[str, str]:
    """Map each column to the argument that named it; a column named twice is an error.

    Examples
    --------
    >>> check_roles(["run"], "label", "run")
    Traceback (most recent call last):
    ...
    batcheval.errors.DuplicateColumnError: column 'run' is named twice: as key and as prediction
    >>> check_roles([], ["label"], "prediction")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: label= takes a column name (a string), got a list (['label'])
    """
    for col, role in zip(named, roles, strict=True):
        if not isinstance(col, str):
            raise InvalidArgumentError(f"{role}= takes a column name (a string), got {shown_value(col)}")
    out: dict[str, str] = {}
    for col, role in [*((k, "key") for k in by), *zip(named, roles, strict=True)]:
        if col in out:
            raise DuplicateColumnError(f"column {col!r} is named twice: as {out[col]} and as {role}")
        out[col] = role
    return out


def shown_value(value: Any, width: int = 60) -> str:
    """A value as a message shows it: its type, and its repr cut to ``width`` characters.

    Examples
    --------
    >>> shown_value(["label"]), shown_value(None)
    ("a list (['label'])", 'None')
    >>> shown_value(list(range(100)), 20), shown_value(np.zeros((6, 5)))
    ('a list of 100 values ([0, 1, 2, 3, 4, ...)', 'an ndarray of shape (6, 5)')
    """
    if value is None:
        return "None"
    text = " ".join(repr(value).split())
    kind = type(value).__name__
    if kind == "Series" or (hasattr(value, "shape") and len(text) > width):  # an array's or frame's repr
        kind = f"{type(value).__module__.split('.')[0]} {kind}" if kind == "Series" else kind
        size = f"of {len(value)} values" if kind.endswith("Series") else f"of shape {tuple(value.shape)}"
        return f"{_article(kind)} {kind} {size}"
    size = ""
    if len(text) > width:
        text = text[: width - 5].rstrip(", ") + ", ..."
        size = f" of {len(value)} values" if hasattr(value, "__len__") else ""
    return f"{_article(kind)} {kind}{size} ({text})"


def _article(kind: str) -> str:
    return "an" if kind[:1].lower() in "aeiou" or kind == "ndarray" else "a"


def _schema_names(data: Any) -> list[str]:
    if isinstance(data, pl.LazyFrame):
        return data.collect_schema().names()
    return list(data.columns)


def select_columns(data: Any, columns: Sequence[str], roles: dict[str, str]) -> pl.DataFrame:
    """Return a polars DataFrame with just ``columns`` of ``data``.

    ``data`` may be a polars DataFrame or LazyFrame (only the named columns
    are collected; a failure to read it is a :class:`~batcheval.errors.SourceError`, as in
    a streamed evaluation), a pyarrow Table or RecordBatch, or a pandas DataFrame.
    ``roles`` maps each column to the argument that named it, for messages.

    Examples
    --------
    >>> select_columns(pl.scan_parquet("no-such.parquet"), ["label"], {"label": "label"})
    Traceback (most recent call last):
    ...
    batcheval.errors.SourceError: lazy frame: FileNotFoundError: No such file or directory ...
    """
    seen: dict[str, str] = {}
    for col in columns:
        if col in seen:
            raise DuplicateColumnError(f"column {col!r} is named twice: as {seen[col]} and as {roles[col]}")
        seen[col] = roles[col]

    if not isinstance(data, pl.DataFrame | pl.LazyFrame):
        return _select_foreign(data, columns, roles)
    with reading(LAZY_FRAME) if isinstance(data, pl.LazyFrame) else nullcontext():
        names = _schema_names(data)
        for col in columns:
            if col not in names:
                raise ColumnNotFoundError(
                    f"{roles[col]} column {col!r} not found; the frame has columns {names}"
                )
        selected = data.select(list(columns))
        if isinstance(selected, pl.LazyFrame):
            selected = selected.collect()
    return selected


@contextmanager
def reading(where: str) -> Iterator[None]:
    """Re-raise a reader's failure inside (OSError, ArrowInvalid, polars' ComputeError, ...) as a
    :class:`~batcheval.errors.SourceError` that names the part ``where``; batcheval's own errors
    pass as they are.

    Examples
    --------
    >>> with reading("file 'a.parquet'"):
    ...     raise OSError("corrupt footer")
    Traceback (most recent call last):
    ...
    batcheval.errors.SourceError: file 'a.parquet': OSError: corrupt footer
    """
    try:
        yield
    except BatchevalError:
        raise
    except Exception as exc:  # readers raise OSError, ArrowInvalid, ComputeError, ...
        raise SourceError(f"{where}: {_reason(exc)}") from exc


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    reason = f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")
    if isinstance(exc, pl.exceptions.ComputeError) and "could not parse" in reason:
        reason += (
            f" (a csv's column types are read from its first {CSV_INFER_ROWS:,} rows: convert it to "
            "parquet with pl.read_csv(path, infer_schema_length=None).write_parquet(...))"
        )
    return reason


def check_label_keywords(data: Any, y_true: Any, y_pred: Any) -> None:
    """Refuse ``y_true=``/``y_pred=`` given beside ``data=``, one without the other, or as
    something other than a sequence of labels (a scalar, a string, a dict, a generator), as
    :func:`batcheval.evaluate`, :func:`batcheval.report` and :func:`batcheval.plot_confusion`
    take them.

    Examples
    --------
    >>> check_label_keywords(None, [0, 1], [1, 1])
    >>> check_label_keywords(None, [0, 1], None)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: give either data= or both y_true= and y_pred=, got data=None, ...
    >>> check_label_keywords(None, "ab", "ab")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: y_true= takes a list, array or Series of labels, got 'ab'
    """
    if data is not None or y_true is None or y_pred is None:
        raise InvalidArgumentError(
            "give either data= or both y_true= and y_pred=, got "
            f"data={'a frame' if data is not None else None}, y_true={_given(y_true)}, "
            f"y_pred={_given(y_pred)}"
        )
    for what, values in (("y_true", y_true), ("y_pred", y_pred)):
        # a 0-d array has __len__ but no length: len() raised TypeError
        if not _sized(values) or isinstance(values, (str, bytes, dict)):
            raise InvalidArgumentError(f"{what}= takes a list, array or Series of labels, got {values!r}")


def _sized(v: Any) -> bool:
    return hasattr(v, "__len__") and not (isinstance(v, np.ndarray) and v.ndim == 0)


def _given(v: Any) -> str:
    return "None" if v is None else f"{len(v)} values" if _sized(v) else repr(v)


def from_mapping(data: dict, roles: dict[str, str] | None = None) -> pl.DataFrame:
    """A dict of equal-length columns (lists, numpy arrays, polars Series) as a frame.

    ``roles`` names, per column, the argument it came from (``"y_true="``) for messages; a
    column polars cannot read as one type is an :class:`InvalidArgumentError` naming it.

    Examples
    --------
    >>> from_mapping({"label": [0, 1], "prediction": [1, 1]}).shape
    (2, 2)
    >>> from_mapping({"label": [0, 1], "prediction": [1]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: a dict of columns needs columns of one length, got {'label': 2, ...
    >>> keywords = {"label": "y_true=", "prediction": "y_pred="}
    >>> from_mapping({"label": [0, 1, 1], "prediction": [1, 1]}, keywords)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: y_true= has 3 values but y_pred= has 2
    >>> from_mapping({"label": [0, "a"], "prediction": [1, 1]}, {"label": "y_true="})
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: y_true= cannot be read as one column: unexpected value while ...
    """
    lengths = {str(k): len(v) for k, v in data.items()}
    roles = roles or {}
    if len(set(lengths.values())) > 1 and len(lengths) == 2 and set(lengths) <= set(roles):
        (first, n), (second, m) = lengths.items()  # the short form: y_true= and y_pred=
        raise InvalidArgumentError(f"{roles[first]} has {n} values but {roles[second]} has {m}")
    if len(set(lengths.values())) > 1:
        raise InvalidArgumentError(f"a dict of columns needs columns of one length, got {lengths}")
    columns = []
    for k, v in data.items():
        what = roles.get(str(k), f"column {str(k)!r}")
        try:
            columns.append(column_of_values(str(k), v, what))
        except (pl.exceptions.PolarsError, ValueError, TypeError, OverflowError) as e:
            if isinstance(e, InvalidArgumentError):
                raise
            raise InvalidArgumentError(f"{what} cannot be read as one column: {_first_line(e)}") from e
    return pl.DataFrame(columns)


@contextmanager
def named_by_keyword(roles: dict[str, str] | None) -> Iterator[None]:
    """Name the columns a short form made (``{"label": "y_true="}``) by their keyword in the
    messages of batcheval errors raised inside: "label column 'label' has 1 null value" becomes
    "y_true= has 1 null value", as the caller gave no column.

    Examples
    --------
    >>> with named_by_keyword({"prediction": "y_pred="}):
    ...     raise InvalidArgumentError("prediction column 'prediction' is float")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: y_pred= is float
    """
    with _reworded(
        {rf"\b(?:label|prediction) column {re.escape(repr(c))}": w for c, w in (roles or {}).items()}
    ):
        yield


@contextmanager
def named_as_pooled(pools: Sequence[str]) -> Iterator[None]:
    """Name the pooled columns, which are counted as keys, as pool columns in the messages of
    batcheval errors raised inside ("pool column 'folds' not found", as the leaderboard says).

    Examples
    --------
    >>> with named_as_pooled(["folds"]):
    ...     raise ColumnNotFoundError("key column 'folds' not found; the frame has columns ['fold']")
    Traceback (most recent call last):
    ...
    batcheval.errors.ColumnNotFoundError: pool column 'folds' not found; the frame has columns ['fold']
    """
    with _reworded({rf"\bkey column {re.escape(repr(c))}": f"pool column {c!r}" for c in pools}):
        yield


@contextmanager
def _reworded(replacements: dict[str, str]) -> Iterator[None]:
    """Rewrite the message of a batcheval error raised inside: each pattern by its text."""
    try:
        yield
    except BatchevalError as exc:
        text = str(exc)
        for pattern, new in replacements.items():
            text = re.sub(pattern, new.replace("\\", "\\\\"), text)
        if text == str(exc):
            raise
        raise type(exc)(text) from None


def column_of_values(name: str, values: Any, what: str) -> pl.Series:
    """A list, numpy array or Series of labels as a polars Series called ``name``.

    Integers mixed with floats read as Float64, as numpy reads them (a non-integer float is
    then refused as a label is), and integers beyond int64 as Int128 (refused showing the
    value): polars' strict reading refuses both with a bare TypeError. A set, whose order is
    not the rows', is an :class:`InvalidArgumentError` naming ``what``; any other value polars
    cannot read raises polars' own error, for the caller to name the column.

    Examples
    --------
    >>> column_of_values("label", [0, 1.5], "y_true=").to_list()
    [0.0, 1.5]
    >>> column_of_values("label", {0, 1}, "y_true=")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: y_true= is a set, whose order is not the rows'; pass a list, ...
    """
    if isinstance(values, Set):
        raise InvalidArgumentError(
            f"{what} is a set, whose order is not the rows'; pass a list, array or Series, got {values!r}"
        )
    try:
        return pl.DataFrame({name: values}).to_series()
    except (TypeError, pl.exceptions.PolarsError):
        if not isinstance(values, list | tuple) or not all(_is_number(v) for v in values):
            raise
        return pl.Series(name, values, strict=False)


def _is_number(v: Any) -> bool:
    return v is None or (isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool))


def _first_line(e: BaseException) -> str:
    """The first line of an error's message (polars appends its context stack and hints)."""
    return str(e).strip().split("\n", 1)[0]


def check_in_memory(data: Any, what: str = "this function") -> None:
    """Refuse a path, a list of paths or a pyarrow dataset, where ``what`` needs a frame in memory.

    Examples
    --------
    >>> check_in_memory("preds.parquet", "auc")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: auc needs a frame in memory, got the path 'preds.parquet'; ...
    """
    if isinstance(data, str | os.PathLike):
        shown = f"the path {str(data)!r}"
    elif isinstance(data, list | tuple) and data and all(isinstance(p, str | os.PathLike) for p in data):
        shown = f"the paths {[str(p) for p in data]}"
    elif type(data).__module__.startswith("pyarrow") and hasattr(data, "get_fragments"):
        shown = f"a pyarrow dataset ({type(data).__name__})"
    else:
        return
    raise InvalidArgumentError(
        f"{what} needs a frame in memory, got {shown}; read it first, e.g. pl.read_parquet(path)"
    )


def column_names(data: Any) -> list[str]:
    """The column names of a dict, pyarrow or pandas input, as strings, without converting it
    (a name may appear twice)."""
    if isinstance(data, dict):
        return [str(k) for k in data]
    module = type(data).__module__.split(".")[0]
    if module == "pyarrow" and hasattr(data, "schema") and not hasattr(data, "get_fragments"):
        return list(data.schema.names)
    if module == "pandas" and hasattr(data, "iloc") and hasattr(data, "columns"):
        return [str(c) for c in data.columns]
    check_in_memory(data)
    raise InvalidArgumentError(
        "data= takes a polars DataFrame or LazyFrame, a pyarrow Table, a pandas DataFrame or a dict "
        f"of equal-length columns, got {shown_value(data)}; labels and predictions as lists or arrays "
        "are given by keyword: y_true=..., y_pred=... (evaluate, report, plot_confusion)"
    )


def is_label_values(data: Any) -> bool:
    """Whether ``data`` is a sequence of labels (a list, tuple, numpy array or Series), not a frame
    and not a list of paths: a list of strings is one of labels when none of them names a file
    (exists, or has a path separator, glob character or file extension).

    Examples
    --------
    >>> is_label_values(["cat", "dog"]), is_label_values([0, 1]), is_label_values(["runs/a.parquet"])
    (True, True, False)
    """
    if isinstance(data, np.ndarray) or (type(data).__name__ == "Series" and hasattr(data, "dtype")):
        return True
    if not isinstance(data, list | tuple) or not data:
        return False
    if not all(isinstance(d, str | os.PathLike) for d in data):
        return True
    return not any(_names_a_file(d) for d in data)


def _names_a_file(item: str | os.PathLike) -> bool:
    if isinstance(item, os.PathLike):
        return True
    return (
        any(ch in item for ch in "/\\*?[")
        or os.sep in item
        or bool(os.path.splitext(item)[1])
        or os.path.exists(item)
    )


def _select_foreign(data: Any, columns: Sequence[str], roles: dict[str, str]) -> pl.DataFrame:
    """``columns`` of a dict, pyarrow or pandas input, converted one at a time, so that a column
    no argument names (of mixed types, or under a duplicated name) is never read."""
    if hasattr(data, "read_all") and type(data).__module__.startswith("pyarrow"):
        data = data.read_all()  # a RecordBatchReader, which a function in memory reads whole
    names = column_names(data)
    for col in columns:
        if col not in names:
            raise ColumnNotFoundError(f"{roles[col]} column {col!r} not found; the frame has columns {names}")
        if names.count(col) > 1:
            raise DuplicateColumnError(
                f"{roles[col]} column {col!r} appears {names.count(col)} times in the frame; "
                "rename or drop the other copies"
            )
    out = []
    for col in columns:
        out.append(_foreign_column(data, names.index(col), col, roles[col]))
    if isinstance(data, dict):
        lengths = {col: len(s) for col, s in zip(columns, out, strict=True)}
        if len(set(lengths.values())) > 1:
            raise InvalidArgumentError(f"a dict of columns needs columns of one length, got {lengths}")
    return pl.DataFrame(out)


def _foreign_column(data: Any, i: int, name: str, role: str) -> pl.Series:
    """Column ``i`` of ``data`` as a polars Series called ``name``."""
    try:
        if isinstance(data, dict):
            values = list(data.values())[i]
            if not hasattr(values, "__len__") or isinstance(values, str | bytes):
                raise InvalidArgumentError(f"{role} column {name!r} is not a sequence of values: {values!r}")
            return column_of_values(name, values, f"{role} column {name!r}")
        if type(data).__module__.startswith("pyarrow"):
            arrow_type = data.schema.field(i).type
            kept = getattr(getattr(arrow_type, "value_type", arrow_type), "extension_name", "")
            if kept.startswith("pandas."):
                # a pandas Period or Interval column (or a categorical of them) kept in arrow:
                # pandas' metadata turns it back, and it is read as the pandas column is; other
                # extension types (uuid, json) polars reads as their storage
                return _pandas_period_or_interval(_arrow_to_pandas(data, i, name, role)).alias(name)
            return pl.Series(name, data.column(i))
        values = data.iloc[:, i]
        if _is_period_or_interval(values):
            return _pandas_period_or_interval(values).alias(name)
        return pl.from_pandas(values).alias(name)
    except (pl.exceptions.PolarsError, ValueError, TypeError, NotImplementedError, OverflowError) as e:
        if isinstance(e, InvalidArgumentError):
            raise
        raise InvalidArgumentError(f"{role} column {name!r} cannot be read: {e}") from e


def _arrow_to_pandas(data: Any, i: int, name: str, role: str) -> Any:
    """Column ``i`` of an arrow table of pandas extension values, as pandas wrote it."""
    problem = None
    try:
        values = data.select([i]).to_pandas().iloc[:, 0]
    except (TypeError, ValueError, NotImplementedError) as e:  # pyarrow cannot rebuild some
        problem = e
    else:
        # a categorical of Periods comes back as one of their ordinals (600 for 2020-01)
        if _is_period_or_interval(values) or not hasattr(values, "cat"):
            return values
        problem = f"it reads back as {values.dtype} of {values.cat.categories.dtype}"
    raise InvalidArgumentError(
        f"{role} column {name!r} holds pandas values ({data.schema.field(i).type}) that pyarrow "
        f"cannot turn back ({problem}); pass the pandas frame itself, or cast the column to strings"
    )


def _is_period_or_interval(values: Any) -> bool:
    """Whether a pandas Series holds Periods or Intervals, or is a categorical of them."""
    import pandas as pd

    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    return isinstance(dtype, pd.PeriodDtype | pd.IntervalDtype)


def _pandas_period_or_interval(values: Any) -> pl.Series:
    """pandas Periods or Intervals as a polars Enum of their text ('2020-01', '(0, 5]'), in
    pandas' order: they have no polars type, and their text alone sorts (10, 30] before (5, 10]."""
    import pandas as pd

    if not _is_period_or_interval(values):  # from arrow: anything else is read as polars reads it
        return pl.from_pandas(values)
    if isinstance(values.dtype, pd.CategoricalDtype):
        order = values.cat.categories.sort_values()
        values = values.astype(object)
    else:
        order = pd.Index(values.dropna().unique()).sort_values()
    text = [None if pd.isna(v) else str(v) for v in values]
    return pl.Series(text, dtype=pl.String).cast(pl.Enum([str(v) for v in order]))


def select_predictions(data: Any, keys: Sequence[str], label: str, prediction: str) -> pl.DataFrame:
    """The key, label and prediction columns of an in-memory input, each checked by role."""
    roles = check_roles(keys, label, prediction)
    return select_columns(data, list(roles), roles)
