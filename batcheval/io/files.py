"""Reading and writing the files the CLI handles: parquet, csv, ipc/feather, json."""

from __future__ import annotations

import fnmatch
import functools
import glob
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import BatchevalError, SourceError
from .frames import integers_combine, widened
from .sources import FORMATS, check_each_file_once, resolve_paths, scan_csv

__all__ = ["check_output", "read_frame", "write_frame"]

_KINDS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".ipc": "ipc",
    ".arrow": "ipc",
    ".feather": "ipc",
}
_SCANS = {
    "parquet": pl.scan_parquet,
    "csv": scan_csv,
    "ipc": pl.scan_ipc,
}
_READERS = {suffix: _SCANS[kind] for suffix, kind in _KINDS.items()}


def read_frame(path: str | Path, keys: Sequence[str] = ()) -> pl.LazyFrame:
    """Lazily scan a parquet, csv or ipc file, a directory or a glob of them (concatenated in sorted order).

    The files' columns may be numeric of different types, except ``keys``: a key column has one
    type in every file, or integers of widths that combine, as the API's streamed sources check them;
    a relaxed concat would make runs 2**53 and 2**53 + 1 one Float64 run, and a Float32 0.1 and a
    Float64 0.1 two. Another column that is UInt64 in some files and a signed integer in others
    (which combine only as Int128) is read as Int64 if every UInt64 value fits in it, as the API
    counts labels within int64, and refused otherwise, naming the value. Another column of integers
    in some files and floats in others is read as float,
    unless a file's integer has no exact value of that float type (as 2**53 + 1 in Float64, which
    would merge classes 2**53 and 2**53 + 1): then the float files are read as Int64, as the API
    counts whole float labels, if they hold whole numbers within int64 only; if one does not (or an
    integer file is UInt64, which combines with Int64 only as Int128), the glob is refused, naming
    the column, the files, their types and the values.

    Errors name the file: a missing file, a glob that matches nothing, an
    unknown extension or an unreadable file raise
    :class:`~batcheval.errors.BatchevalError` before any data is read.

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for i in range(2):
    ...     pl.DataFrame({"run": [i], "label": [1]}).write_parquet(root / f"part{i}.parquet")
    >>> read_frame(root / "part*.parquet").collect()["run"].to_list()
    [0, 1]
    >>> read_frame(root / "nope*.parquet")
    Traceback (most recent call last):
    ...
    batcheval.errors.BatchevalError: cannot read '...nope*.parquet': no file matches it
    """
    text = str(path)
    if not text.strip():  # Path("") is the working directory
        raise BatchevalError(f"cannot read {text!r}: empty path; name a file, a directory or a glob")
    path = Path(path)
    if path.is_dir():  # every data file under it, each by its extension, as be.evaluate reads a directory
        return _read_many(_read_by_suffix, [str(f) for f in resolve_paths(path)], text, keys)
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise BatchevalError(
            f"cannot read {text!r}: unknown file type {path.suffix!r}; use parquet, csv or ipc"
        )
    if any(ch in text for ch in "*?[") and not path.exists():
        files = sorted(glob.glob(text, recursive=True))
        if not files:
            raise BatchevalError(f"cannot read {text!r}: no file matches it")
        check_each_file_once([Path(f) for f in files], [text] * len(files))  # a link beside its target
        source: Any = files
    elif not path.exists():
        raise BatchevalError(f"cannot read {text!r}: no such file")
    else:
        source = path
    if not isinstance(source, list) or len(source) == 1:
        frame = reader(source, glob=False)  # patterns are expanded above, names with "[" read as they are
        _schema(frame, text)
        return frame
    return _read_many(reader, source, text, keys)


def _read_by_suffix(file: str, glob: bool) -> pl.LazyFrame:
    """The scan of ``file`` by its extension: a directory may hold parquet, ipc and csv files."""
    return _READERS[Path(file).suffix.lower()](file, glob=glob)


def _read_many(reader: Any, source: list[str], text: str, keys: Sequence[str] = ()) -> pl.LazyFrame:
    frames = [reader(f, glob=False) for f in source]
    schemas = [_schema(frame, f) for frame, f in zip(frames, source, strict=True)]
    # a file with no rows adds nothing (a header-only csv reads every column as String)
    keep = [i for i, (frame, f) in enumerate(zip(frames, source, strict=True)) if _has_rows(frame, f)] or [0]
    schemas = _valueless_strings_as_null(frames, schemas, keep, source)
    first = source[keep[0]]
    # each column's type, and the file it is read from: the first whose column is not all null
    seen = {c: (dtype, first) for c, dtype in schemas[keep[0]].items()}
    for i in keep[1:]:
        _check_same_columns(text, first, schemas[keep[0]], source[i], schemas[i], seen, keys)
    frames, schemas = _unsigned_as_int64(text, frames, schemas, keep, source, seen)
    frames = _exact_integers(text, frames, schemas, keep, source, seen)
    # the columns may come in another order (as the API's streamed sources take them), integer
    # widths may differ between files, and a file's column of the Null dtype takes the others' type
    order = list(schemas[keep[0]])
    return pl.concat(
        [
            frames[i].select(
                pl.col(c).cast(seen[c][0]) if schemas[i][c] == pl.Null else pl.col(c) for c in order
            )
            for i in keep
        ],
        how="vertical_relaxed",
    )


def _valueless_strings_as_null(
    frames: list[pl.LazyFrame], schemas: list[pl.Schema], keep: list[int], source: list[str]
) -> list[pl.Schema]:
    """``schemas`` with a String column that holds no value in its file typed Null, where the column
    has another type in some other file: polars reads a csv column with no value at all as String,
    and it was refused beside integer keys, where one frame (or the API's streamed files) makes
    its rows a group of their own. Only such columns are read, once per file."""
    schemas = list(schemas)
    for col in schemas[keep[0]]:
        types = {schemas[i].get(col) for i in keep}
        if pl.String not in types or len(types - {pl.Null}) < 2:
            continue
        for i in keep:
            if schemas[i].get(col) != pl.String:
                continue
            try:
                empty = frames[i].select(pl.col(col).is_null().all()).collect().item()
            except (pl.exceptions.PolarsError, OSError) as exc:
                raise _cannot_read(source[i], exc) from exc
            if empty:
                schemas[i] = pl.Schema({**schemas[i], col: pl.Null})
    return schemas


def _unsigned_as_int64(
    text: str,
    frames: list[pl.LazyFrame],
    schemas: list[pl.Schema],
    keep: list[int],
    source: list[str],
    seen: dict[str, tuple[pl.DataType, str]],
) -> tuple[list[pl.LazyFrame], list[pl.Schema]]:
    """``frames`` (and ``schemas``) with each column that is UInt64 in some files and a signed
    integer in others, which combine only as Int128 (a key column is refused before), read as Int64
    in the UInt64 files, as the API counts labels within int64; a UInt64 value beyond int64 is
    a :class:`~batcheval.errors.BatchevalError` naming the column, the files, their types and the value."""
    frames, schemas = list(frames), list(schemas)
    for col in seen:
        unsigned = [i for i in keep if schemas[i][col] == pl.UInt64]
        signed = [j for j in keep if schemas[j][col].is_signed_integer()]
        if not (unsigned and signed):
            continue
        c = pl.col(col)
        beyond = _first_in(frames, source, dict.fromkeys(unsigned, c.filter(c >= 2**63)))
        if beyond is not None:
            i, value = beyond
            j = signed[0]
            raise BatchevalError(
                f"cannot read {text!r}: column {col!r} is {schemas[j][col]} in {source[j]!r} but UInt64 "
                f"in {source[i]!r}, which combine as Int64 only where every UInt64 value fits in it, "
                f"and {value} (in {source[i]!r}) does not; cast the column to one type in every file"
            )
        for i in unsigned:
            frames[i] = frames[i].with_columns(c.cast(pl.Int64))
            schemas[i] = pl.Schema({**schemas[i], col: pl.Int64})
        typed = [schemas[i][col] for i in keep if schemas[i][col] != pl.Null]
        seen[col] = (functools.reduce(_wider, typed), seen[col][1])
    return frames, schemas


def _exact_integers(
    text: str,
    frames: list[pl.LazyFrame],
    schemas: list[pl.Schema],
    keep: list[int],
    source: list[str],
    seen: dict[str, tuple[pl.DataType, str]],
) -> list[pl.LazyFrame]:
    """``frames`` with each column of integers in some files and floats in others read so that the
    concat keeps every integer: as float (``seen``'s type) if that type holds each of them exactly,
    else with the float files read as Int64 (and ``seen`` so typed) if they hold whole numbers within
    int64 only; else a :class:`~batcheval.errors.BatchevalError` naming the column, the files, their
    types and the values."""
    frames = list(frames)
    for col, (target, _) in seen.items():
        ints = [i for i in keep if schemas[i][col].is_integer()]
        floats = [i for i in keep if schemas[i][col].is_float()]
        if not (ints and floats):
            continue
        c = pl.col(col)
        # an integer that the concat's float type would round to another value
        rounded = {
            i: c.filter(c.cast(target).cast(schemas[i][col], strict=False).ne_missing(c)) for i in ints
        }
        lossy = _first_in(frames, source, rounded)
        if lossy is None:
            continue
        i, value = lossy
        no_int64 = c.filter(~c.is_finite() | (c != c.floor()) | (c >= 2.0**63) | (c < -(2.0**63)))
        fraction = _first_in(frames, source, dict.fromkeys(floats, no_int64))
        unsigned = [j for j in ints if schemas[j][col] == pl.UInt64]
        if fraction is not None or unsigned:
            j = floats[0] if fraction is None else fraction[0]
            nor = (
                "and UInt64 and Int64 combine only as Int128"
                if fraction is None
                else f"nor Int64 {fraction[1]!r} (in {source[j]!r})"
            )
            raise BatchevalError(
                f"cannot read {text!r}: column {col!r} is {schemas[i][col]} in {source[i]!r} but "
                f"{schemas[j][col]} in {source[j]!r}; {target} cannot hold {value} (in {source[i]!r}) "
                f"exactly, {nor}; cast the column to one type in every file"
            )
        for j in floats:
            frames[j] = frames[j].with_columns(c.cast(pl.Int64))
        seen[col] = (functools.reduce(_wider, (schemas[j][col] for j in ints), pl.Int64), seen[col][1])
    return frames


def _first_in(
    frames: list[pl.LazyFrame], source: list[str], values: dict[int, pl.Expr]
) -> tuple[int, Any] | None:
    """The first file ``i`` of ``values`` (indices of ``frames``, read from ``source``) where
    ``values[i]`` is not empty, and its first value; None if every one is empty."""
    for i, expr in values.items():
        try:
            value = frames[i].select(expr.first()).collect().item()
        except (pl.exceptions.PolarsError, OSError) as exc:
            raise _cannot_read(source[i], exc) from exc
        if value is not None:
            return i, value
    return None


def _wider(a: pl.DataType, b: pl.DataType) -> pl.DataType:
    """The type a column of ``a`` in one file and ``b`` in another combines to."""
    return widened(pl.Schema({"x": a}), pl.Schema({"x": b}))["x"]


def _schema(frame: pl.LazyFrame, name: str) -> pl.Schema:
    try:
        return frame.collect_schema()
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise _cannot_read(name, exc) from exc


def _has_rows(frame: pl.LazyFrame, name: str) -> bool:
    try:
        return frame.head(1).collect().height > 0
    except (pl.exceptions.PolarsError, OSError) as exc:  # a glob's file would go unnamed
        raise _cannot_read(name, exc) from exc


def _cannot_read(name: str, exc: BaseException) -> BatchevalError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return BatchevalError(f"cannot read {name!r}: {first}")


def _check_same_columns(
    text: str,
    first: str,
    schema: pl.Schema,
    other: str,
    theirs: pl.Schema,
    seen: dict[str, tuple[pl.DataType, str]],
    keys: Sequence[str] = (),
) -> None:
    """Files of one glob must have the same columns (in any order), each numeric in all of them
    or in none; a key column of one type in all of them (integers of any width that combine).
    A column of the Null dtype (all null) goes with any type; ``seen`` holds each column's type
    so far, and the file that set it: a column that was all null takes this file's type, and an
    integer column this file's width where it is wider (:func:`~batcheval.io.frames.widened`, as
    the API's streamed sources check a part against the parts before it)."""
    if set(theirs) != set(schema):
        raise BatchevalError(
            f"cannot read {text!r}: {other!r} has columns {list(theirs)}, but {first!r} has {list(schema)}"
        )
    for col, dtype in theirs.items():
        mine, first = seen[col]
        if pl.Null in (dtype, mine):
            if mine == pl.Null:
                seen[col] = (dtype, other)
            continue
        if col in keys and dtype != mine and not integers_combine(dtype, mine):
            raise SourceError(
                f"cannot read {text!r}: key column {col!r} is {dtype} in {other!r} but {mine} in "
                f"{first!r}; a key column must have one type in every file (integers of any width "
                "combine), or its values would merge or split in a cast"
            )
        # UInt64 beside a signed integer: Int64 if its values fit (_unsigned_as_int64), not Int128
        numeric = dtype.is_numeric() and mine.is_numeric()
        if dtype != mine and not numeric:
            raise BatchevalError(
                f"cannot read {text!r}: column {col!r} is {dtype} in {other!r} but {mine} in {first!r}"
            )
        if dtype != mine and (wider := _wider(mine, dtype)) != mine:
            seen[col] = (wider, other)


_WRITERS = {".parquet", ".pq", ".csv", ".ipc", ".arrow", ".feather", ".json"}


def check_output(path: str | Path, reads: str | None = None) -> None:
    """Raise :class:`~batcheval.errors.BatchevalError` unless :func:`write_frame` can write ``path``,
    and (``reads``: the input's file, directory or glob) unless it is an input: ``-o`` naming the
    predictions replaced them with the results without a word, and one inside an input directory
    or glob was read as predictions by the next run.

    Examples
    --------
    >>> check_output("scores.csv")
    >>> check_output("scores.xlsx")
    Traceback (most recent call last):
    ...
    batcheval.errors.BatchevalError: cannot write 'scores.xlsx': unknown file type '.xlsx'; ...
    >>> check_output("scores.csv", reads="*.csv")
    Traceback (most recent call last):
    ...
    batcheval.errors.BatchevalError: cannot write 'scores.csv': the input '*.csv' would read it as ...
    """
    suffix = Path(path).suffix.lower()
    if suffix not in _WRITERS:
        raise BatchevalError(
            f"cannot write {str(path)!r}: unknown file type {suffix!r}; use parquet, csv, ipc or json"
        )
    parent = Path(path).parent
    if not parent.is_dir():
        raise BatchevalError(f"cannot write {str(path)!r}: no directory {str(parent)!r}")
    if Path(path).is_dir():
        raise BatchevalError(f"cannot write {str(path)!r}: it is a directory")
    if reads is not None and _reads_output(Path(path), reads):
        same = Path(path).exists() and Path(reads).exists() and Path(path).samefile(reads)
        why = "it is the input file" if same else f"the input {reads!r} would read it as predictions"
        raise BatchevalError(f"cannot write {str(path)!r}: {why}; write the result to another file")


def _reads_output(path: Path, reads: str) -> bool:
    """Whether the input ``reads`` (a file, a directory read recursively, or a glob) names ``path``."""
    out = Path(os.path.realpath(path))
    source = Path(reads)
    if source.is_dir():
        return out.suffix.lower() in FORMATS and Path(os.path.realpath(source)) in out.parents
    if source.exists():
        return out == Path(os.path.realpath(source))
    if any(ch in reads for ch in "*?["):  # a glob, which the output may be about to join
        return glob_would_match(reads, path) or any(
            Path(os.path.realpath(m)) == out for m in glob.glob(reads, recursive=True)
        )
    return False


def glob_would_match(pattern: str, path: str | Path) -> bool:
    """Whether ``glob.glob(pattern, recursive=True)`` would list ``path`` once it exists: component
    by component, ``**`` for zero or more directories, and no wildcard matching a leading dot (as
    glob skips hidden names); ``*`` never crosses a ``/``, which ``fnmatch`` of the whole path did.

    Examples
    --------
    >>> [glob_would_match("runs/*.parquet", p) for p in ("runs/out.parquet", "runs/sub/out.parquet")]
    [True, False]
    >>> [glob_would_match("runs/**/*.parquet", p) for p in ("runs/out.parquet", "runs/a/b.parquet")]
    [True, True]
    """
    pat = os.path.abspath(pattern).split(os.sep)
    parts = os.path.abspath(path).split(os.sep)

    def hidden(name: str, piece: str) -> bool:
        return name.startswith(".") and not piece.startswith(".")

    def match(i: int, j: int) -> bool:
        if i == len(pat):
            return j == len(parts)
        if pat[i] == "**":  # zero or more directories, none hidden
            return any(match(i + 1, k) for k in range(j, len(parts) + 1)
                       if not any(hidden(name, "") for name in parts[j:k]))  # fmt: skip
        if j == len(parts) or hidden(parts[j], pat[i]) or not fnmatch.fnmatchcase(parts[j], pat[i]):
            return False
        return match(i + 1, j + 1)

    return match(0, 0)


def write_frame(frame: pl.DataFrame, path: str | Path) -> None:
    """Write parquet, csv, ipc or json, by the file's extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        frame.write_parquet(path)
    elif suffix == ".csv":
        frame.write_csv(path)
    elif suffix in (".ipc", ".arrow", ".feather"):
        frame.write_ipc(path)
    elif suffix == ".json":
        frame.write_json(path)
    else:
        raise BatchevalError(
            f"cannot write {str(path)!r}: unknown file type {suffix!r}; use parquet, csv, ipc or json"
        )
